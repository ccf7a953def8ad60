//! Durable writes: every file foxbase writes (tables, manifests, tier
//! indexes, store objects, journals, published directories) goes through
//! this module, so that a crash leaves the old file or the new one, never a
//! mix.
//!
//! The rule is always the same: write a temporary file beside the target
//! (`.NAME.tmp`, a name no reader looks at), fsync it, rename it over the
//! target, and fsync the directory so that the rename itself survives.

use crate::uring::Backend;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// The directory `path` lives in (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// The temporary name a durable write of `path` uses: `.NAME.tmp` beside it.
pub fn temp_path(path: &Path) -> io::Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| io::Error::other("path has no file name"))?;
    Ok(parent_dir(path).join(format!(".{}.tmp", name.to_string_lossy())))
}

/// Fsyncs a directory, so that names created or renamed in it survive a crash.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Writes `bytes` to `path` durably.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_pieces(path, &[(0, bytes)])
}

/// Writes each `(offset, bytes)` piece of a new file and puts it at `path`
/// durably; the pieces go through the I/O backend ([`Backend`]), several in
/// flight on io_uring.
pub fn write_pieces(path: &Path, pieces: &[(u64, &[u8])]) -> io::Result<()> {
    let tmp = temp_path(path)?;
    {
        let f = File::create(&tmp)?;
        // The backend syncs the file after the last piece.
        Backend::get().write_all_at(&f, pieces)?;
    }
    rename(&tmp, path)
}

/// Writes each `(offset, bytes)` piece of a new file at `path` itself and
/// fsyncs it: no temporary name, no rename. Only for a name no reader
/// trusts before checking what it holds: an upload, which the coordinator
/// checks (length, CRC32, header) before renaming it durably into place,
/// so a crash mid-write leaves a file that is refused, never used.
///
/// With `sync` false the file is not fsync'd either: for a writer that
/// syncs the whole filesystem ([`sync_filesystem`]) before anything refers
/// to the file durably (a local solve, before its manifest).
pub fn write_pieces_unnamed(path: &Path, pieces: &[(u64, &[u8])], sync: bool) -> io::Result<()> {
    let f = File::create(path)?;
    if sync {
        // The backend syncs the file after the last piece.
        Backend::get().write_all_at(&f, pieces)
    } else {
        Backend::get().write_all_at_unsynced(&f, pieces)
    }
}

/// Flushes everything written to the filesystem that holds `dir` (one
/// `syncfs`): what was written there, renamed there, or created there
/// without a sync of its own survives a crash once this returns.
pub fn sync_filesystem(dir: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let d = File::open(dir)?;
    // SAFETY: syncfs takes an open file descriptor, which `d` holds until it returns.
    if unsafe { libc::syncfs(d.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Copies the file `from` to `to` durably (creating `to`'s directory).
pub fn copy(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(parent_dir(to))?;
    let tmp = temp_path(to)?;
    fs::copy(from, &tmp)?;
    File::open(&tmp)?.sync_all()?;
    rename(&tmp, to)
}

/// Renames `from` to `to` (a file or a directory, replacing a file there)
/// and fsyncs the target's directory. Only the new name is made durable:
/// if the old one comes back after a crash too, it is a leftover the
/// writer's own rules clean up (temporary names, `incoming/` uploads).
pub fn rename(from: &Path, to: &Path) -> io::Result<()> {
    fs::rename(from, to)?;
    sync_dir(parent_dir(to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_copies_and_renames_leave_no_temporary_files() {
        let dir = std::env::temp_dir().join(format!("foxbase-durable-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.bin");
        write(&a, b"first").unwrap();
        write(&a, b"second, longer").unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"second, longer");
        write_pieces(&a, &[(0, b"ab"), (2, b"cd")]).unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"abcd", "a rewrite replaces the whole file");
        let b = dir.join("sub/b.bin");
        copy(&a, &b).unwrap();
        assert_eq!(fs::read(&b).unwrap(), b"abcd");
        let c = dir.join("c.bin");
        rename(&b, &c).unwrap();
        assert!(!b.exists());
        assert_eq!(fs::read(&c).unwrap(), b"abcd");
        assert_eq!(temp_path(Path::new("x/y.fxt")).unwrap(), Path::new("x/.y.fxt.tmp"));
        assert_eq!(parent_dir(Path::new("y.fxt")), Path::new("."));
        for d in [&dir, &dir.join("sub")] {
            let tmp = fs::read_dir(d).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp"));
            assert!(!tmp, "{}", d.display());
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
