//! Shared storage for tables: where workers fetch child tables from and
//! upload finished ones to, and where the coordinator checks and publishes
//! them. Keys are relative paths with `/` separators
//! (`tiers/f1-0.0.1.2.2.0.0.fxt`).
//!
//! The trait asks only for whole-object operations (put, get, size, rename,
//! delete, a put that never replaces, a listing), so that an object store
//! implements it as well as a directory (`foxbase-objstore`: S3 and
//! S3-compatible servers). A rename there is a copy and a delete, which is
//! fine because the coordinator is the only one renaming and it journals a
//! tier only after the rename.

use foxbase_tables::durable;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Storage the coordinator and workers share.
pub trait Store: Send + Sync {
    /// Where the store is, for messages and logs.
    fn describe(&self) -> String;

    /// A URL another machine can open the store with ([`open_store`]).
    fn url(&self) -> String;

    /// The object's path on this machine's filesystem when the store has
    /// one, so that reads need no copy; `None` for remote stores.
    fn local_path(&self, key: &str) -> Option<PathBuf>;

    /// Stores the file at `from` under `key`, replacing any object there:
    /// durably, and so that readers see the old object or the new one.
    fn put_file(&self, key: &str, from: &Path) -> io::Result<()>;

    /// Stores `bytes` under `key`, as [`Store::put_file`] does.
    fn put_bytes(&self, key: &str, bytes: &[u8]) -> io::Result<()>;

    /// Copies the object `key` to the local file `to` (written whole, then renamed into place).
    fn get_file(&self, key: &str, to: &Path) -> io::Result<()>;

    /// The whole object `key`.
    fn get_bytes(&self, key: &str) -> io::Result<Vec<u8>>;

    /// The object's length, or `None` if there is none under `key`.
    fn size(&self, key: &str) -> io::Result<Option<u64>>;

    /// Moves the object `from` to `to`, replacing any object there.
    fn rename(&self, from: &str, to: &str) -> io::Result<()>;

    /// Removes the object `key`; no error if there is none.
    fn delete(&self, key: &str) -> io::Result<()>;

    /// Stores `bytes` under `key` only if no object is there (a conditional
    /// put: of two writers, exactly one succeeds): `Ok(false)` when one was.
    /// Durable like [`Store::put_bytes`].
    fn put_new(&self, key: &str, bytes: &[u8]) -> io::Result<bool>;

    /// The keys of every object under the folder `prefix` (e.g.
    /// `journal/tiers`), sorted.
    fn list(&self, prefix: &str) -> io::Result<Vec<String>>;

    /// Makes durable whatever this store wrote without syncing it (see
    /// [`DirStore::synced_at_end`]); a store whose every write is durable
    /// when it returns has nothing to do.
    fn sync_all(&self) -> io::Result<()> {
        Ok(())
    }
}

/// Deletes what is left under `incoming/` (uploads of workers that died, or
/// that a crash brought back): once every tier is done, none will be used.
pub fn clear_incoming(store: &dyn Store) -> io::Result<()> {
    for key in store.list(INCOMING)? {
        store.delete(&key)?;
    }
    if let Some(dir) = store.local_path(INCOMING) {
        let _ = fs::remove_dir_all(dir);
    }
    Ok(())
}

/// The folder of uploads not yet checked by the coordinator.
pub const INCOMING: &str = "incoming";

/// A directory on a local disk or a network filesystem.
#[derive(Clone, Debug)]
pub struct DirStore {
    root: PathBuf,
    /// Renames fsync their directory (see [`DirStore::synced_at_end`]).
    sync_renames: bool,
}

impl DirStore {
    pub fn new(root: &Path) -> DirStore {
        DirStore { root: root.to_path_buf(), sync_renames: true }
    }

    /// A store whose renames do not fsync their directory: for a local
    /// solve, which syncs the whole store once before writing its manifest
    /// (`foxbase_tables::durable::sync_filesystem`).
    pub fn synced_at_end(root: &Path) -> DirStore {
        DirStore { root: root.to_path_buf(), sync_renames: false }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `key`, refusing keys that would leave the directory.
    fn path(&self, key: &str) -> io::Result<PathBuf> {
        foxbase_tables::source::key_path(&self.root, key)
    }
}

impl Store for DirStore {
    fn describe(&self) -> String {
        format!("directory {}", self.root.display())
    }

    fn url(&self) -> String {
        let abs = std::path::absolute(&self.root).unwrap_or_else(|_| self.root.clone());
        format!("file://{}", abs.display())
    }

    fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.path(key).ok()
    }

    fn put_file(&self, key: &str, from: &Path) -> io::Result<()> {
        let to = self.path(key)?;
        if to == from {
            return Ok(());
        }
        durable::copy(from, &to)
    }

    fn put_bytes(&self, key: &str, bytes: &[u8]) -> io::Result<()> {
        let to = self.path(key)?;
        fs::create_dir_all(to.parent().unwrap())?;
        durable::write(&to, bytes)
    }

    fn get_file(&self, key: &str, to: &Path) -> io::Result<()> {
        durable::copy(&self.path(key)?, to)
    }

    fn get_bytes(&self, key: &str) -> io::Result<Vec<u8>> {
        fs::read(self.path(key)?)
    }

    fn size(&self, key: &str) -> io::Result<Option<u64>> {
        match fs::metadata(self.path(key)?) {
            Ok(m) => Ok(Some(m.len())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        let (from, to) = (self.path(from)?, self.path(to)?);
        fs::create_dir_all(durable::parent_dir(&to))?;
        // Only the new name must survive a crash; if the old one comes back
        // too, it is an upload nobody will use (the coordinator clears
        // incoming/ when the run is over).
        if self.sync_renames {
            durable::rename(&from, &to)
        } else {
            fs::rename(&from, &to)
        }
    }

    fn delete(&self, key: &str) -> io::Result<()> {
        match fs::remove_file(self.path(key)?) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn put_new(&self, key: &str, bytes: &[u8]) -> io::Result<bool> {
        let to = self.path(key)?;
        let dir = durable::parent_dir(&to).to_path_buf();
        fs::create_dir_all(&dir)?;
        // Written whole and synced under a temporary name, then linked to
        // its key: a link never replaces, so of two writers one gets there.
        let tmp = dir.join(format!(".{}.{}.new", to.file_name().unwrap().to_string_lossy(), std::process::id()));
        let written = (|| {
            let mut file = fs::File::create(&tmp)?;
            io::Write::write_all(&mut file, bytes)?;
            file.sync_all()?;
            fs::hard_link(&tmp, &to)
        })();
        let _ = fs::remove_file(&tmp);
        match written {
            Ok(()) => {
                durable::sync_dir(&dir)?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn sync_all(&self) -> io::Result<()> {
        if self.sync_renames || !self.root.exists() {
            return Ok(());
        }
        durable::sync_filesystem(&self.root)
    }

    fn list(&self, prefix: &str) -> io::Result<Vec<String>> {
        let mut keys = Vec::new();
        let mut folders = vec![(self.path(prefix)?, prefix.trim_end_matches('/').to_string())];
        while let Some((dir, key)) = folders.pop() {
            let entries = match fs::read_dir(&dir) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                entries => entries?,
            };
            for entry in entries {
                let entry = entry?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue; // temporary files of writes in progress
                }
                let child = format!("{key}/{name}");
                if entry.file_type()?.is_dir() {
                    folders.push((entry.path(), child));
                } else {
                    keys.push(child);
                }
            }
        }
        keys.sort();
        Ok(keys)
    }
}

/// A store URL this build cannot open.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("store '{url}': scheme '{scheme}' is not supported (only file:// directories)")]
pub struct UnsupportedStore {
    pub url: String,
    pub scheme: String,
}

/// Opens the store a URL names: `file:///path` (or a plain path) is a
/// [`DirStore`]; other schemes are refused by name.
pub fn open_store(url: &str) -> Result<Box<dyn Store>, UnsupportedStore> {
    if let Some(path) = url.strip_prefix("file://") {
        return Ok(Box::new(DirStore::new(Path::new(path))));
    }
    if let Some((scheme, _)) = url.split_once("://") {
        return Err(UnsupportedStore { url: url.to_string(), scheme: scheme.to_string() });
    }
    Ok(Box::new(DirStore::new(Path::new(url))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_store_round_trips_and_refuses_escaping_keys() {
        let root = std::env::temp_dir().join(format!("foxbase-store-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let store = DirStore::new(&root);
        store.put_bytes("incoming/a.fxt", b"abc").unwrap();
        assert_eq!(store.size("incoming/a.fxt").unwrap(), Some(3));
        store.rename("incoming/a.fxt", "tiers/a.fxt").unwrap();
        assert_eq!(store.size("incoming/a.fxt").unwrap(), None);
        assert_eq!(store.get_bytes("tiers/a.fxt").unwrap(), b"abc");
        let local = root.join("copy/a.fxt");
        store.get_file("tiers/a.fxt", &local).unwrap();
        assert_eq!(fs::read(&local).unwrap(), b"abc");
        store.put_file("tiers/b.fxt", &local).unwrap();
        assert_eq!(store.get_bytes("tiers/b.fxt").unwrap(), b"abc");
        store.delete("tiers/b.fxt").unwrap();
        store.delete("tiers/b.fxt").unwrap();
        assert_eq!(store.size("tiers/b.fxt").unwrap(), None);
        for bad in ["", "/etc/passwd", "../x", "tiers/../../x", "a//b", "./a"] {
            let err = store.get_bytes(bad).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{bad}");
        }
        assert_eq!(open_store(&store.url()).unwrap().get_bytes("tiers/a.fxt").unwrap(), b"abc");
        assert!(store.put_new("journal/tiers/x", b"1").unwrap());
        assert!(!store.put_new("journal/tiers/x", b"2").unwrap(), "a second put_new does not replace");
        assert_eq!(store.get_bytes("journal/tiers/x").unwrap(), b"1");
        store.put_new("journal/tiers/deeper/y", b"3").unwrap();
        assert_eq!(store.list("journal").unwrap(), ["journal/tiers/deeper/y", "journal/tiers/x"]);
        assert_eq!(store.list("nothing/here").unwrap(), Vec::<String>::new());
        assert!(open_store("s3://bucket/x").err().unwrap().to_string().contains("scheme 's3' is not supported"));
        assert!(!root.join("tiers").read_dir().unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".tmp")));
        fs::remove_dir_all(&root).unwrap();
    }
}
