//! Shared storage for tables: where workers fetch child tables from and
//! upload finished ones to, and where the coordinator checks and publishes
//! them. Keys are relative paths with `/` separators
//! (`tiers/f1-0.0.1.2.2.0.0.fxt`).
//!
//! The trait asks only for whole-object operations (put, get, size, rename,
//! delete), so an S3-style object store can implement it later; a rename
//! there is a copy and a delete, which is fine because the coordinator is
//! the only one renaming and it journals a tier only after the rename.

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
}

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
        assert!(open_store("s3://bucket/x").err().unwrap().to_string().contains("scheme 's3' is not supported"));
        assert!(!root.join("tiers").read_dir().unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".tmp")));
        fs::remove_dir_all(&root).unwrap();
    }
}
