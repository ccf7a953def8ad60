//! Typed errors of the worker: a failed table read or write, a kernel
//! failure, a call to the coordinator that failed for good, or an answer
//! of the coordinator this worker cannot use.

use crate::kernel::KernelError;
use crate::protocol::LinkError;
use foxbase_tables::TableError;

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// A local file or directory (the cache, an output directory).
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Fetching from or uploading to the shared store.
    #[error("{what}: {source}")]
    Store {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// A call to the coordinator failed for good.
    #[error("{call}: {error}")]
    Link { call: &'static str, error: LinkError },
    /// The coordinator said something this worker cannot use (another
    /// variant, an unknown tier, a table that does not match its record).
    #[error("{0}")]
    Protocol(String),
}
