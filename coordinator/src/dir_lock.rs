//! One solve at a time in an output directory.
//!
//! Two `foxbase solve --resume --out DIR` started by mistake would both
//! append to DIR's journal and rename tables over each other's. A solve
//! into a directory therefore holds an exclusive advisory lock
//! (`flock`) on the directory itself while it writes there: no lock file
//! is left in what becomes the published tablebase, and the lock goes
//! with the process however it ends (killed included), so a stale lock
//! never blocks a resume.

use crate::error::CoordinatorError;
use std::fs::{File, TryLockError};
use std::path::Path;

/// Held while a solve writes into its directory; released when dropped.
#[derive(Debug)]
pub struct DirLock {
    _dir: File,
}

impl DirLock {
    /// Takes `dir`'s lock, or refuses at once, naming the directory, when
    /// another process holds it (nothing is changed then).
    pub fn take(dir: &Path) -> Result<DirLock, CoordinatorError> {
        let io = |source| CoordinatorError::Io { path: dir.display().to_string(), source };
        let file = File::open(dir).map_err(io)?;
        match file.try_lock() {
            Ok(()) => Ok(DirLock { _dir: file }),
            Err(TryLockError::WouldBlock) => Err(CoordinatorError::Output(format!(
                "{}: another foxbase solve is writing into this directory; let it finish (or stop it) and \
                 then --resume; nothing was changed",
                dir.display()
            ))),
            Err(TryLockError::Error(e)) => Err(io(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = std::env::temp_dir().join(format!("foxbase-dir-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = DirLock::take(&dir).unwrap();
        let refused = DirLock::take(&dir).unwrap_err().to_string();
        assert!(refused.contains("another foxbase solve is writing into this directory"), "{refused}");
        assert!(refused.contains(&dir.display().to_string()), "{refused}");
        drop(first);
        let again = DirLock::take(&dir);
        assert!(again.is_ok(), "{again:?}");
        drop(again);
        std::fs::remove_dir(&dir).unwrap();
    }
}
