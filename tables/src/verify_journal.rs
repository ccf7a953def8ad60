//! The journal of a verification (`foxbase verify --journal FILE`): the
//! tiers whose check passed, so that a verification of hours, stopped at
//! any point, goes on from where it was instead of starting again.
//!
//! ```text
//! foxbase-verify-journal 1 <SHA-256 of the tablebase's manifest.json> <check>
//! <crc32 of the tier name, 8 hex digits> <tier name>
//! ...
//! ```
//!
//! `<check>` says what each recorded tier passed (`kernel` or `one-step`,
//! with `+against` when compared with its solve): a journal is resumed
//! only by the same check of the same tablebase (the manifest names every
//! file with its checksum, so its digest pins them all). A tier is
//! recorded once steps 1 to 3 of [`crate::verify`] and any comparison
//! passed for it; the journal lives outside the tablebase (a published
//! one lists every file in SHA256SUMS).
//!
//! Each line is written as its tier passes (a killed verification loses
//! none of them), and fsync'd with the first record that comes
//! [`SYNC_EVERY`] or more after the last fsync, and when the journal is
//! finished: a crash of the machine loses at most the tiers recorded since
//! the last fsync, which are checked again. A crash can also leave a last
//! line cut short: it fails its checksum and is cut off when the journal
//! is opened again. A bad line before the last is corruption and refused.

use crate::durable;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const MAGIC: &str = "foxbase-verify-journal 1";

/// The least time between two fsyncs of the records (each tier's own
/// would cost more than checking a small tier).
pub const SYNC_EVERY: Duration = Duration::from_secs(5);

/// Why a verification journal cannot be opened or written.
#[derive(Debug, thiserror::Error)]
pub enum VerifyJournalError {
    #[error("--journal {path}: the journal of another verification: '{found}' (this one: '{expected}')")]
    Other { path: String, found: String, expected: String },
    #[error("--journal {path}: line {line} is corrupt (not a torn last line)")]
    Corrupt { path: String, line: usize },
    #[error("--journal {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// An open verification journal, positioned for appending.
pub struct VerifyJournal {
    path: PathBuf,
    file: File,
    /// The tiers recorded when it was opened.
    done: HashSet<String>,
    /// Records written since the last fsync, and when that was.
    unsynced: usize,
    synced_at: Instant,
}

/// The first line of the journal of `check` over the tablebase whose
/// manifest's SHA-256 is `manifest_sha256`.
fn head(manifest_sha256: &str, check: &str) -> String {
    format!("{MAGIC} {manifest_sha256} {check}\n")
}

/// The line recording `tier`.
fn tier_line(tier: &str) -> String {
    format!("{:08x} {tier}\n", crc32fast::hash(tier.as_bytes()))
}

/// The tier of one line (with its newline), if its checksum holds.
fn parse_tier_line(line: &str) -> Option<&str> {
    let (crc, tier) = line.strip_suffix('\n')?.split_once(' ')?;
    (crc == format!("{:08x}", crc32fast::hash(tier.as_bytes())) && !tier.is_empty()).then_some(tier)
}

impl VerifyJournal {
    /// Opens the journal at `path` for `check` over the tablebase whose
    /// manifest's SHA-256 is `manifest_sha256`: a new one (made durable
    /// with its first line) if there is no file there, else the one there,
    /// with the tiers it records ([`VerifyJournal::done`]) and any torn
    /// last line cut off. Refused when it is another verification's.
    pub fn open(path: &Path, manifest_sha256: &str, check: &str) -> Result<VerifyJournal, VerifyJournalError> {
        let p = path.display().to_string();
        let io = |source| VerifyJournalError::Io { path: p.clone(), source };
        let head = head(manifest_sha256, check);
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut file = OpenOptions::new().create_new(true).append(true).open(path).map_err(io)?;
                file.write_all(head.as_bytes()).map_err(io)?;
                file.sync_all().map_err(io)?;
                durable::sync_dir(durable::parent_dir(path)).map_err(io)?;
                return Ok(VerifyJournal::appending(path, file, HashSet::new()));
            }
            Err(e) => return Err(io(e)),
        };
        let text = String::from_utf8_lossy(&bytes);
        if !text.starts_with(&head) {
            let found = text.lines().next().unwrap_or("").to_string();
            return Err(VerifyJournalError::Other { path: p, found, expected: head.trim_end().to_string() });
        }
        let mut done = HashSet::new();
        let mut good_len = head.len();
        let lines: Vec<&str> = text[head.len()..].split_inclusive('\n').collect();
        for (n, line) in lines.iter().enumerate() {
            match parse_tier_line(line) {
                Some(tier) => {
                    done.insert(tier.to_string());
                    good_len += line.len();
                }
                None if n + 1 == lines.len() => break,
                None => return Err(VerifyJournalError::Corrupt { path: p, line: n + 2 }),
            }
        }
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        if good_len < bytes.len() {
            file.set_len(good_len as u64).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        Ok(VerifyJournal::appending(path, file, done))
    }

    fn appending(path: &Path, file: File, done: HashSet<String>) -> VerifyJournal {
        VerifyJournal { path: path.to_path_buf(), file, done, unsynced: 0, synced_at: Instant::now() }
    }

    /// The tiers the journal recorded when it was opened.
    pub fn done(&self) -> &HashSet<String> {
        &self.done
    }

    /// Records that `tier` passed: written now, fsync'd with it the
    /// records since the last fsync when that was [`SYNC_EVERY`] or more
    /// ago (the rest at [`VerifyJournal::finish`]).
    pub fn record(&mut self, tier: &str) -> Result<(), VerifyJournalError> {
        let io = |source| VerifyJournalError::Io { path: self.path.display().to_string(), source };
        self.file.write_all(tier_line(tier).as_bytes()).map_err(io)?;
        self.unsynced += 1;
        if self.synced_at.elapsed() >= SYNC_EVERY {
            self.sync()?;
        }
        Ok(())
    }

    /// Makes every record durable.
    pub fn finish(&mut self) -> Result<(), VerifyJournalError> {
        self.sync()
    }

    fn sync(&mut self) -> Result<(), VerifyJournalError> {
        if self.unsynced > 0 {
            let path = self.path.display().to_string();
            self.file.sync_data().map_err(|source| VerifyJournalError::Io { path, source })?;
            self.unsynced = 0;
        }
        self.synced_at = Instant::now();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A journal resumes with its tiers, cuts off a torn last line (and
    /// appends after it), refuses another verification's journal naming
    /// both first lines, and refuses a bad line before the last.
    #[test]
    fn a_journal_resumes_with_its_tiers_and_drops_a_torn_last_line() {
        let dir = std::env::temp_dir().join(format!("foxbase-verify-journal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("verify.journal");
        let mut j = VerifyJournal::open(&path, "ab12", "kernel").unwrap();
        assert!(j.done().is_empty());
        j.record("f2-0.0.0.1.2.0.0").unwrap();
        j.record("f1-0.0.0.1.2.0.0").unwrap();
        j.finish().unwrap();
        drop(j);
        // A torn record: cut off, and the next record follows the good ones.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(b"0badc0de f2-0.0.1");
        std::fs::write(&path, &bytes).unwrap();
        let mut j = VerifyJournal::open(&path, "ab12", "kernel").unwrap();
        let want: HashSet<String> = ["f2-0.0.0.1.2.0.0", "f1-0.0.0.1.2.0.0"].map(String::from).into();
        assert_eq!(j.done(), &want);
        j.record("f2-0.0.1.1.1.0.0").unwrap();
        j.finish().unwrap();
        drop(j);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        assert_eq!(VerifyJournal::open(&path, "ab12", "kernel").unwrap().done().len(), 3);
        // Another tablebase, or another check.
        for (digest, check) in [("cd34", "kernel"), ("ab12", "one-step")] {
            let e = VerifyJournal::open(&path, digest, check).err().unwrap().to_string();
            assert!(e.contains("another verification") && e.contains(&format!("{digest} {check}")), "{e}");
        }
        // A bad line that is not the last.
        let mut lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
        lines[1] = lines[1].replacen('f', "g", 1);
        std::fs::write(&path, lines.concat()).unwrap();
        let e = VerifyJournal::open(&path, "ab12", "kernel").err().unwrap().to_string();
        assert!(e.contains("line 2 is corrupt"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
