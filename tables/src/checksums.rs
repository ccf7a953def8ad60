//! The checksum list a published tablebase carries: `SHA256SUMS`, one line
//! per file, as `sha256sum` writes it and as the lists published beside
//! chess tablebases are (so `sha256sum -c SHA256SUMS` checks a download too):
//!
//! ```text
//! 3f5a…(64 lowercase hex digits)  manifest.json
//! 9c1e…  tiers/f2-0.0.0.0.0.2.3.fxt
//! ```
//!
//! Every file of the tablebase but the list itself is listed (the
//! manifest, the tier index, every table and plies file), by its path
//! relative to the tablebase's directory with `/` between names, sorted
//! bytewise, two spaces after the digest. `foxbase publish` writes it last
//! into the tablebase before the directory appears; `foxbase verify
//! --published` checks it: a malformed line, a listed file missing or
//! different, and a file present but not listed are each a problem naming
//! the file.

use crate::durable;
use crate::verify::Problem;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::{Component, Path};

/// The checksum list's name in a tablebase's directory.
pub const SUMS_FILE: &str = "SHA256SUMS";

fn problem(file: &str, message: String) -> Problem {
    Problem { file: Some(file.to_string()), block: None, position: None, message }
}

/// The SHA-256 of the file at `path`, as 64 lowercase hex digits.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    // Most files of a tablebase are a few kilobytes: no big buffer to clear for each.
    let mut buf = [0u8; 64 << 10];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Every regular file under `dir` but [`SUMS_FILE`], as relative paths
/// with `/`, sorted bytewise. Anything else (a link, a device) is a problem.
fn files_in(dir: &Path) -> Result<Vec<String>, Problem> {
    fn walk(at: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), Problem> {
        let entries = fs::read_dir(at).map_err(|e| problem(prefix, format!("cannot list {}: {e}", at.display())))?;
        for entry in entries {
            let entry = entry.map_err(|e| problem(prefix, format!("cannot list {}: {e}", at.display())))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
            let kind = entry.file_type().map_err(|e| problem(&rel, e.to_string()))?;
            if kind.is_dir() {
                walk(&entry.path(), &rel, out)?;
            } else if kind.is_file() {
                if rel != SUMS_FILE {
                    out.push(rel);
                }
            } else {
                return Err(problem(&rel, "neither a file nor a directory".into()));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out)?;
    out.sort();
    Ok(out)
}

/// Writes `dir`'s [`SUMS_FILE`] over every other file in it, durably
/// (a temporary name, fsync, rename); returns how many files it lists.
pub fn write_sums(dir: &Path) -> Result<usize, Problem> {
    let files = files_in(dir)?;
    let lines = files
        .par_iter()
        .map(|rel| {
            let digest = sha256_file(&dir.join(rel)).map_err(|e| problem(rel, format!("cannot read: {e}")))?;
            Ok(format!("{digest}  {rel}\n"))
        })
        .collect::<Result<Vec<String>, Problem>>()?;
    let text = lines.concat();
    durable::write(&dir.join(SUMS_FILE), text.as_bytes())
        .map_err(|e| problem(SUMS_FILE, format!("cannot write: {e}")))?;
    Ok(files.len())
}

/// One line of a checksum list: its digest and relative path, or why not.
fn parse_line(line: &str) -> Result<(&str, &str), String> {
    let (digest, rel) =
        line.split_once("  ").ok_or_else(|| "not 'DIGEST  PATH' (64 hex digits, two spaces, a path)".to_string())?;
    if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return Err(format!("'{digest}' is not a SHA-256 digest (64 lowercase hex digits)"));
    }
    let safe = !rel.is_empty()
        && !rel.contains('\\')
        && Path::new(rel).components().all(|c| matches!(c, Component::Normal(_)));
    if !safe {
        return Err(format!("'{rel}' is not a path inside the tablebase"));
    }
    Ok((digest, rel))
}

/// Checks `dir` against its [`SUMS_FILE`]: every line well formed, every
/// listed file there with its digest, every file there listed. Returns how
/// many files were checked; the first problem found otherwise.
pub fn check_sums(dir: &Path) -> Result<usize, Problem> {
    let text = fs::read_to_string(dir.join(SUMS_FILE)).map_err(|e| {
        problem(SUMS_FILE, format!("cannot read the checksum list ({e}); `foxbase publish` writes one"))
    })?;
    let mut listed = Vec::new();
    let mut seen = HashSet::new();
    for (n, line) in text.lines().enumerate() {
        let (digest, rel) = parse_line(line).map_err(|why| problem(SUMS_FILE, format!("line {}: {why}", n + 1)))?;
        if !seen.insert(rel) {
            return Err(problem(SUMS_FILE, format!("line {}: {rel} is listed twice", n + 1)));
        }
        listed.push((digest, rel));
    }
    // The files in parallel; the first problem in the list's order.
    let wrong = listed.par_iter().find_map_first(|(digest, rel)| match sha256_file(&dir.join(rel)) {
        Err(e) => Some(problem(rel, format!("listed in {SUMS_FILE}: {e}"))),
        Ok(found) if found != *digest => Some(problem(rel, format!("SHA-256 {found}, {SUMS_FILE} says {digest}"))),
        Ok(_) => None,
    });
    if let Some(p) = wrong {
        return Err(p);
    }
    for rel in files_in(dir)? {
        if !seen.contains(rel.as_str()) {
            return Err(problem(&rel, format!("not listed in {SUMS_FILE}")));
        }
    }
    Ok(listed.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("foxbase-sums-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("tiers")).unwrap();
        fs::write(dir.join("manifest.json"), b"{}").unwrap();
        fs::write(dir.join("tiers/a.fxt"), b"abc").unwrap();
        dir
    }

    #[test]
    fn the_list_is_sha256sums_format_and_checks() {
        let dir = scratch("ok");
        assert_eq!(write_sums(&dir).unwrap(), 2);
        // SHA-256 of "abc" and of "{}" (FIPS 180-2's example, and sha256sum's).
        assert_eq!(
            fs::read_to_string(dir.join(SUMS_FILE)).unwrap(),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a  manifest.json\n\
             ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  tiers/a.fxt\n"
        );
        assert_eq!(check_sums(&dir).unwrap(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_changed_missing_or_unlisted_file_is_named() {
        let dir = scratch("bad");
        write_sums(&dir).unwrap();
        fs::write(dir.join("tiers/a.fxt"), b"abd").unwrap();
        let p = check_sums(&dir).unwrap_err();
        assert_eq!(p.file.as_deref(), Some("tiers/a.fxt"));
        assert!(p.message.starts_with("SHA-256 "), "{p}");
        fs::write(dir.join("tiers/a.fxt"), b"abc").unwrap();
        fs::write(dir.join("tiers/extra.fxt"), b"x").unwrap();
        let p = check_sums(&dir).unwrap_err();
        assert_eq!((p.file.as_deref(), p.message.as_str()), (Some("tiers/extra.fxt"), "not listed in SHA256SUMS"));
        fs::remove_file(dir.join("tiers/extra.fxt")).unwrap();
        fs::remove_file(dir.join("tiers/a.fxt")).unwrap();
        assert_eq!(check_sums(&dir).unwrap_err().file.as_deref(), Some("tiers/a.fxt"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn malformed_lines_are_refused_by_number() {
        let dir = scratch("lines");
        for (text, why) in [
            ("abc  manifest.json\n", "line 1: 'abc' is not a SHA-256 digest"),
            (&format!("{}  ../etc/passwd\n", "0".repeat(64)), "line 1: '../etc/passwd' is not a path inside"),
            (&format!("{} manifest.json\n", "0".repeat(64)), "line 1: not 'DIGEST  PATH'"),
        ] {
            fs::write(dir.join(SUMS_FILE), text).unwrap();
            let p = check_sums(&dir).unwrap_err();
            assert_eq!(p.file.as_deref(), Some(SUMS_FILE));
            assert!(p.message.starts_with(why), "{p}");
        }
        assert!(check_sums(&dir.join("none")).unwrap_err().message.contains("cannot read the checksum list"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
