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
//!
//! A local solve (`foxbase solve --out DIR`, [`crate::local`]) keeps the
//! same journal in `DIR/journal.log`, with the variant, plan and output of
//! its run after the game's name, and appends finished tiers in
//! checkpoints ([`Journal::append_all`]) once the directory is synced.
//! Under a disk budget (`foxbase solve --disk-budget`) it appends a tier a
//! second time once the tier is published in place: that second line is
//! its published entry ([`foxbase_tables::retire`]).
//!
//! **In a store** (a bucket, where objects cannot be appended to), the same
//! lines are objects: `journal/run` holds the first line and
//! `journal/tiers/NAME` one entry line per finished tier. Each is written
//! once with a conditional put ([`Store::put_new`]), so a second
//! coordinator cannot start a run over a journaled one, and an entry is
//! never replaced. An object is written whole or not at all, so there is no
//! torn line: an entry that fails its checksum is corruption. A coordinator
//! on any machine resumes from the store alone.

use foxbase_tables::durable;
use foxbase_tables::manifest::TierEntry;
use foxbase_worker::store::Store;
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

pub(crate) const MAGIC: &str = "foxbase-journal 1";

/// The object holding the first line of a journal in a store.
pub const STORE_JOURNAL_RUN: &str = "journal/run";
/// The folder of a journal's entries in a store, one object per tier.
pub const STORE_JOURNAL_TIERS: &str = "journal/tiers";

/// An open journal, positioned for appending.
pub struct Journal {
    sink: Sink,
}

enum Sink {
    File { path: PathBuf, file: File },
    Store(Box<dyn Store>),
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Journal({})", self.describe())
    }
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
        Ok(Journal { sink: Sink::File { path: path.to_path_buf(), file } })
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
            match parse_entry_line(line) {
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
        Ok((Journal { sink: Sink::File { path: path.to_path_buf(), file } }, entries))
    }

    /// Creates a new journal in `store` (see the module documentation);
    /// fails if the store holds one.
    pub fn create_in_store(store: Box<dyn Store>, game: &str, variant: &str) -> Result<Journal, JournalError> {
        let path = format!("{}/{STORE_JOURNAL_RUN}", store.url());
        let head = format!("{MAGIC} {game} {variant}\n");
        match store.put_new(STORE_JOURNAL_RUN, head.as_bytes()) {
            Ok(true) => Ok(Journal { sink: Sink::Store(store) }),
            Ok(false) => Err(JournalError::Exists { path }),
            Err(source) => Err(JournalError::Io { path, source }),
        }
    }

    /// Opens the journal in `store`, checks it is for `game`'s `variant`,
    /// and returns it with its finished tiers (in name order).
    pub fn resume_from_store(
        store: Box<dyn Store>,
        game: &str,
        variant: &str,
    ) -> Result<(Journal, Vec<TierEntry>), JournalError> {
        let path = format!("{}/{STORE_JOURNAL_RUN}", store.url());
        let head = match store.get_bytes(STORE_JOURNAL_RUN) {
            Ok(bytes) => bytes,
            Err(source) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(JournalError::NothingToResume { path, source })
            }
            Err(source) => return Err(JournalError::Io { path, source }),
        };
        let expected = format!("{MAGIC} {game} {variant}\n");
        if head != expected.as_bytes() {
            let found = String::from_utf8_lossy(&head).lines().next().unwrap_or("").to_string();
            return Err(JournalError::OtherRun { path, found, expected: expected.trim_end().to_string() });
        }
        let keys = store
            .list(STORE_JOURNAL_TIERS)
            .map_err(|source| JournalError::Io { path: format!("{}/{STORE_JOURNAL_TIERS}", store.url()), source })?;
        let mut entries = Vec::with_capacity(keys.len());
        for key in keys {
            let path = format!("{}/{key}", store.url());
            let bytes = store.get_bytes(&key).map_err(|source| JournalError::Io { path: path.clone(), source })?;
            let entry = String::from_utf8(bytes).ok().as_deref().and_then(parse_entry_line);
            match entry {
                Some(entry) if key == entry_key(&entry.name) => entries.push(entry),
                _ => return Err(JournalError::Corrupt { path, line: 1 }),
            }
        }
        Ok((Journal { sink: Sink::Store(store) }, entries))
    }

    /// Where the journal is, for messages.
    pub fn describe(&self) -> String {
        match &self.sink {
            Sink::File { path, .. } => path.display().to_string(),
            Sink::Store(store) => format!("{}/journal", store.url()),
        }
    }

    /// Appends finished tiers, in order, and waits until they are durable:
    /// in a file, one write and one sync for all of them.
    pub fn append_all(&mut self, entries: &[TierEntry]) -> Result<(), JournalError> {
        match &mut self.sink {
            Sink::File { path, file } => {
                let io = |source| JournalError::Io { path: path.display().to_string(), source };
                let lines: String = entries.iter().map(entry_line).collect();
                file.write_all(lines.as_bytes()).map_err(io)?;
                file.sync_data().map_err(io)
            }
            Sink::Store(_) => entries.iter().try_for_each(|e| self.append(e)),
        }
    }

    /// Appends a finished tier and waits until it is durable.
    pub fn append(&mut self, entry: &TierEntry) -> Result<(), JournalError> {
        let line = entry_line(entry);
        match &mut self.sink {
            Sink::File { path, file } => {
                let io = |source| JournalError::Io { path: path.display().to_string(), source };
                file.write_all(line.as_bytes()).map_err(io)?;
                file.sync_data().map_err(io)
            }
            Sink::Store(store) => {
                let key = entry_key(&entry.name);
                let path = format!("{}/{key}", store.url());
                let io = |source| JournalError::Io { path: path.clone(), source };
                if store.put_new(&key, line.as_bytes()).map_err(io)? {
                    return Ok(());
                }
                // Written before: by this coordinator, whose answer was lost
                // (then it holds this same line), or by another one.
                if store.get_bytes(&key).map_err(io)? == line.as_bytes() {
                    Ok(())
                } else {
                    Err(JournalError::Io {
                        path: path.clone(),
                        source: std::io::Error::new(
                            std::io::ErrorKind::AlreadyExists,
                            "journaled already with another result (is a second coordinator running on this store?)",
                        ),
                    })
                }
            }
        }
    }
}

/// The object of a tier's entry in a store's journal.
fn entry_key(tier_name: &str) -> String {
    format!("{STORE_JOURNAL_TIERS}/{tier_name}")
}

/// The entry of one journal line (with its newline), if its checksum holds.
fn parse_entry_line(line: &str) -> Option<TierEntry> {
    line.strip_suffix('\n')
        .and_then(|l| l.split_once(' '))
        .filter(|(crc, json)| u32::from_str_radix(crc, 16).ok() == Some(crc32fast::hash(json.as_bytes())))
        .and_then(|(_, json)| serde_json::from_str::<TierEntry>(json).ok())
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
                distance: Default::default(),
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
        j.append_all(&[entry("b")]).unwrap();
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
        j.append_all(&[]).unwrap();
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

    #[test]
    fn a_journal_in_a_store_resumes_refuses_a_second_run_and_never_replaces_an_entry() {
        use foxbase_worker::store::DirStore;
        let dir = std::env::temp_dir().join(format!("foxbase-store-journal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = || Box::new(DirStore::new(&dir));
        let err = Journal::resume_from_store(store(), "fox", "{\"v\":1}").err().unwrap().to_string();
        assert!(err.contains("nothing to resume"), "{err}");
        let mut j = Journal::create_in_store(store(), "fox", "{\"v\":1}").unwrap();
        j.append(&entry("b")).unwrap();
        j.append(&entry("a")).unwrap();
        j.append(&entry("a")).unwrap(); // a retried append of the same line
        let mut other = entry("a");
        other.crc32 = "ffffffff".into();
        assert!(j.append(&other).unwrap_err().to_string().contains("another result"));
        drop(j);
        assert!(Journal::create_in_store(store(), "fox", "{\"v\":1}").unwrap_err().to_string().contains("--resume"));
        let err = Journal::resume_from_store(store(), "fox", "{\"v\":2}").err().unwrap().to_string();
        assert!(err.contains("another run or variant"), "{err}");
        let (mut j, entries) = Journal::resume_from_store(store(), "fox", "{\"v\":1}").unwrap();
        assert_eq!(entries, vec![entry("a"), entry("b")]);
        j.append(&entry("c")).unwrap();
        drop(j);
        let (_, entries) = Journal::resume_from_store(store(), "fox", "{\"v\":1}").unwrap();
        assert_eq!(entries, vec![entry("a"), entry("b"), entry("c")]);

        // A damaged entry is corruption (objects are never torn).
        let key = dir.join("journal/tiers/b");
        let mut bad = std::fs::read(&key).unwrap();
        bad[12] ^= 1;
        std::fs::write(&key, &bad).unwrap();
        let err = Journal::resume_from_store(store(), "fox", "{\"v\":1}").err().unwrap().to_string();
        assert!(err.contains("journal/tiers/b: line 1 is corrupt"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
