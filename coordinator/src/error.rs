//! Typed errors of the coordinator library: a run that cannot start or
//! finish, and what failed underneath (a worker, the journal, the tables,
//! the network).

use crate::journal::JournalError;
use crate::run::ResumeError;
use foxbase_worker::WorkerError;

#[derive(Debug, thiserror::Error)]
pub enum CoordinatorError {
    /// A local file or directory (the store, a certificate).
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Worker(#[from] WorkerError),
    #[error(transparent)]
    Resume(#[from] ResumeError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Tables(#[from] foxbase_tables::Error),
    /// The store or tablebase location cannot be opened (a bad URL, refused credentials).
    #[error(transparent)]
    Open(#[from] foxbase_objstore::OpenError),
    #[error("the solve stopped before every tier was solved")]
    Unfinished,
    /// A local solve's output directory holds what the solve will not
    /// overwrite, or a journal it cannot resume (another variant, plan or
    /// output); the message names the directory and what to do.
    #[error("{0}")]
    Output(String),
    /// A tier could not be published in place (a solve under a disk
    /// budget); the message names the tier and why.
    #[error("{0}")]
    Publish(String),
    /// A worker's `--kernel` does not solve the coordinator's game; the
    /// message names both.
    #[error("{0}")]
    Kernel(String),
    /// Listening, TLS set-up, or the server failing while it runs.
    #[error("{0}")]
    Server(String),
}

impl From<foxbase_tables::TableError> for CoordinatorError {
    fn from(e: foxbase_tables::TableError) -> CoordinatorError {
        CoordinatorError::Tables(e.into())
    }
}
