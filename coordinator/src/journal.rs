//! The coordinator's journal: an append-only log of finished tiers, one
//! line each, fsync'd before a completion is acknowledged, so that a
//! restarted coordinator (`--resume`) knows exactly which tiers are done.
//!
//! ```text
//! foxbase-journal 1 <game> <variant JSON>
//! <crc32 of the rest of the line, 8 hex digits> <TierEntry as JSON>
//! ...
//! ```
//!
//! A crash can leave a last line cut short; it fails its checksum and is
//! dropped (the tier is solved again). A bad line before the last is
//! corruption and refused.

use foxbase_tables::durable;
use foxbase_tables::manifest::TierEntry;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a journal cannot be created, resumed or appended to.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{path}: a journal exists already; pass --resume to continue that run")]
    Exists { path: String },
    #[error("{path}: {source} (nothing to resume)")]
    NothingToResume {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: journal of another run or variant: '{found}' (this run: '{expected}')")]
    OtherRun { path: String, found: String, expected: String },
    #[error("{path}: line {line} is corrupt (not a torn last line)")]
    Corrupt { path: String, line: usize },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

const MAGIC: &str = "foxbase-journal 1";

/// An open journal, positioned for appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

fn entry_line(entry: &TierEntry) -> String {
    let json = serde_json::to_string(entry).expect("a tier entry serialises");
    format!("{:08x} {json}\n", crc32fast::hash(json.as_bytes()))
}

impl Journal {
    /// Creates a new journal at `path` for `game`'s `variant`; fails if one exists.
    pub fn create(path: &Path, game: &str, variant: &str) -> Result<Journal, JournalError> {
        let p = path.display().to_string();
        let io = |path: &Path| {
            let path = path.display().to_string();
            move |source| JournalError::Io { path, source }
        };
        if path.exists() {
            return Err(JournalError::Exists { path: p });
        }
        let dir = durable::parent_dir(path);
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let mut file = OpenOptions::new().create_new(true).append(true).open(path).map_err(io(path))?;
        file.write_all(format!("{MAGIC} {game} {variant}\n").as_bytes()).map_err(io(path))?;
        file.sync_all().map_err(io(path))?;
        durable::sync_dir(dir).map_err(io(dir))?;
        Ok(Journal { path: path.to_path_buf(), file })
    }

    /// Opens an existing journal, checks it is for `game`'s `variant`, and
    /// returns it with its finished tiers in the order they finished. A
    /// torn last line is cut off.
    pub fn resume(path: &Path, game: &str, variant: &str) -> Result<(Journal, Vec<TierEntry>), JournalError> {
        let p = path.display().to_string();
        let io = |source| JournalError::Io { path: p.clone(), source };
        let bytes = std::fs::read(path).map_err(|source| JournalError::NothingToResume { path: p.clone(), source })?;
        let text = String::from_utf8_lossy(&bytes);
        let head = format!("{MAGIC} {game} {variant}\n");
        if !text.starts_with(&head) {
            let found = text.lines().next().unwrap_or("").to_string();
            return Err(JournalError::OtherRun { path: p, found, expected: head.trim_end().to_string() });
        }
        let mut entries = Vec::new();
        let mut good_len = head.len();
        let body = &text[head.len()..];
        let lines: Vec<&str> = body.split_inclusive('\n').collect();
        for (n, line) in lines.iter().enumerate() {
            let last = n + 1 == lines.len();
            let parsed = line
                .strip_suffix('\n')
                .and_then(|l| l.split_once(' '))
                .filter(|(crc, json)| u32::from_str_radix(crc, 16).ok() == Some(crc32fast::hash(json.as_bytes())))
                .and_then(|(_, json)| serde_json::from_str::<TierEntry>(json).ok());
            match parsed {
                Some(entry) => {
                    entries.push(entry);
                    good_len += line.len();
                }
                None if last => break,
                None => return Err(JournalError::Corrupt { path: p, line: n + 2 }),
            }
        }
        let file = OpenOptions::new().write(true).open(path).map_err(io)?;
        if good_len < bytes.len() {
            file.set_len(good_len as u64).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        drop(file);
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        Ok((Journal { path: path.to_path_buf(), file }, entries))
    }

    /// Appends a finished tier and waits until it is on disk.
    pub fn append(&mut self, entry: &TierEntry) -> Result<(), JournalError> {
        let io = |source| JournalError::Io { path: self.path.display().to_string(), source };
        self.file.write_all(entry_line(entry).as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> TierEntry {
        TierEntry {
            name: name.into(),
            file: format!("tiers/{name}.fxt"),
            slots: 8,
            bytes: 100,
            crc32: "0123abcd".into(),
            wins: 1,
            draws: 2,
            losses: 3,
            unused: 2,
            children: vec!["f1-0.0.0.0.0.0.1".into()],
            levels: 3,
            decided_at_start: 4,
            plies: Some(foxbase_tables::manifest::PliesEntry {
                file: format!("tiers/{name}.fxp"),
                bytes: 50,
                crc32: "89abcdef".into(),
                longest: 17,
            }),
        }
    }

    #[test]
    fn a_journal_resumes_with_its_entries_and_drops_a_torn_last_line() {
        let dir = std::env::temp_dir().join(format!("foxbase-journal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("journal.log");
        let mut j = Journal::create(&path, "fox", "{\"v\":1}").unwrap();
        j.append(&entry("a")).unwrap();
        j.append(&entry("b")).unwrap();
        drop(j);
        assert!(Journal::create(&path, "fox", "{\"v\":1}").unwrap_err().to_string().contains("--resume"));
        let err = Journal::resume(&path, "fox", "{\"v\":2}").err().unwrap().to_string();
        assert!(err.contains("another run or variant"), "{err}");

        // A torn append: half of a third line.
        let full = std::fs::read(&path).unwrap();
        let third = entry_line(&entry("c"));
        let mut torn = full.clone();
        torn.extend_from_slice(&third.as_bytes()[..third.len() / 2]);
        std::fs::write(&path, &torn).unwrap();
        let (mut j, entries) = Journal::resume(&path, "fox", "{\"v\":1}").unwrap();
        assert_eq!(entries, vec![entry("a"), entry("b")]);
        assert_eq!(std::fs::read(&path).unwrap(), full, "the torn line is cut off");
        j.append(&entry("c")).unwrap();
        drop(j);
        let (_, entries) = Journal::resume(&path, "fox", "{\"v\":1}").unwrap();
        assert_eq!(entries, vec![entry("a"), entry("b"), entry("c")]);

        // A damaged line in the middle is corruption, not a torn append.
        let mut bad = std::fs::read(&path).unwrap();
        let at = full.len() - 10;
        bad[at] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let err = Journal::resume(&path, "fox", "{\"v\":1}").err().unwrap().to_string();
        assert!(err.contains("line 3 is corrupt"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
