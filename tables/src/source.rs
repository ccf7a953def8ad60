//! Where table bytes come from: a small byte-range interface, so that the
//! table reader never cares whether a file is on a local disk or in an
//! object store.
//!
//! A reader asks for a source's length and for ranges of it; reading one
//! value of a table takes three ranges (fixed header, block index, one
//! block), reading a whole table takes every block. [`FileSource`] reads a
//! local file through the I/O backend ([`crate::uring::Backend`]).
//! A [`Location`] opens the objects of one tablebase by key
//! (`manifest.json`, `tiers/NAME.fxt`); [`DirLocation`] is a directory. A
//! bucket-backed location lives outside this crate, so that a plain prober
//! compiles no network code.

use crate::uring::Backend;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Random access to the bytes of one object.
pub trait ByteSource: Send + Sync {
    /// Where the bytes come from, for messages: a path, or a URL.
    fn name(&self) -> &str;

    /// The object's length in bytes.
    fn len(&self) -> io::Result<u64>;

    /// Whether the object is empty.
    fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Fills each `(offset, buffer)` from the object; a range past the end
    /// is an error, never a short buffer.
    fn read_ranges(&self, ranges: &mut [(u64, &mut [u8])]) -> io::Result<()>;

    /// The whole object.
    fn read_all(&self) -> io::Result<Vec<u8>> {
        let len = usize::try_from(self.len()?).map_err(io::Error::other)?;
        let mut bytes = vec![0u8; len];
        self.read_ranges(&mut [(0, &mut bytes[..])])?;
        Ok(bytes)
    }
}

/// A file on a local (or network) filesystem, read with positioned reads.
#[derive(Debug)]
pub struct FileSource {
    name: String,
    file: File,
}

impl FileSource {
    pub fn open(path: &Path) -> io::Result<FileSource> {
        Ok(FileSource { name: path.display().to_string(), file: File::open(path)? })
    }
}

impl ByteSource for FileSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    fn read_ranges(&self, ranges: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        Backend::get().read_exact_at(&self.file, ranges)
    }
}

/// The objects of one tablebase, by key: `manifest.json`, `tiers.idx`,
/// `tiers/NAME.fxt` (relative, `/`-separated).
pub trait Location: Send + Sync {
    /// Where the tablebase is, for messages.
    fn describe(&self) -> String;

    /// The name an object's errors carry (a path on this machine, or a URL).
    fn name_of(&self, key: &str) -> String;

    /// Opens the object `key`.
    fn open(&self, key: &str) -> io::Result<Box<dyn ByteSource>>;
}

/// The path of the object `key` in the directory `root`. Keys come from
/// our own manifests, indexes and coordinators, but a damaged or hostile
/// one must not reach outside the directory: empty keys, absolute keys and
/// `.`, `..` or empty parts are refused.
pub fn key_path(root: &Path, key: &str) -> io::Result<PathBuf> {
    let ok = !key.is_empty()
        && !key.starts_with('/')
        && key.split('/').all(|part| !part.is_empty() && part != "." && part != "..");
    if !ok {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("bad key '{key}'")));
    }
    Ok(root.join(key))
}

/// A tablebase in a directory.
#[derive(Clone, Debug)]
pub struct DirLocation {
    root: PathBuf,
}

impl DirLocation {
    pub fn new(root: &Path) -> DirLocation {
        DirLocation { root: root.to_path_buf() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path of `key` (see [`key_path`]).
    pub fn path(&self, key: &str) -> io::Result<PathBuf> {
        key_path(&self.root, key)
    }
}

impl Location for DirLocation {
    fn describe(&self) -> String {
        self.root.display().to_string()
    }

    fn name_of(&self, key: &str) -> String {
        self.root.join(key).display().to_string()
    }

    fn open(&self, key: &str) -> io::Result<Box<dyn ByteSource>> {
        Ok(Box::new(FileSource::open(&self.path(key)?)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_location_reads_ranges_and_refuses_escaping_keys() {
        let dir = std::env::temp_dir().join(format!("foxbase-source-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tiers")).unwrap();
        std::fs::write(dir.join("tiers/a.fxt"), b"0123456789").unwrap();
        let loc = DirLocation::new(&dir);
        let src = loc.open("tiers/a.fxt").unwrap();
        assert_eq!(src.len().unwrap(), 10);
        assert_eq!(src.name(), dir.join("tiers/a.fxt").display().to_string());
        let (mut a, mut b) = ([0u8; 2], [0u8; 3]);
        src.read_ranges(&mut [(1, &mut a[..]), (7, &mut b[..])]).unwrap();
        assert_eq!((&a, &b), (b"12", b"789"));
        assert!(src.read_ranges(&mut [(9, &mut [0u8; 2][..])]).is_err(), "a range past the end");
        assert_eq!(src.read_all().unwrap(), b"0123456789");
        for bad in ["", "/etc/passwd", "../x", "tiers/../../x", "a//b", "./a"] {
            assert_eq!(loc.open(bad).err().unwrap().kind(), io::ErrorKind::InvalidInput, "{bad}");
        }
        assert_eq!(loc.open("tiers/none.fxt").err().unwrap().kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
