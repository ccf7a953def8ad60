//! The coordinator/worker protocol as plain Rust types: the five calls a
//! worker makes ([`Link`]) and what they carry, and the run's status
//! ([`RunStatus`]) that `foxbase status` asks for. The gRPC transport (in the
//! coordinator crate) converts these to and from its messages; the local
//! solve calls the embedded coordinator with them directly, so no process
//! ever speaks protobuf to itself.

use crate::job::TierReport;
pub use foxbase_tables::plies::Distance;
use std::time::Duration;

/// A worker's registration, as the coordinator answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    pub worker_id: String,
    /// The game (its registry name, `GameKind::name`) and its variant as JSON text (its `variant_json`).
    pub game: String,
    pub variant: String,
    /// A lease lasts this long unless a heartbeat extends it.
    pub lease_seconds: u32,
    /// Where tables are shared (see `store::open_store`).
    pub store_url: String,
    /// What plies the run computes, if any: every table then has its
    /// plies file beside it ([`crate::job::plies_beside`]). With DTM the
    /// children's plies files come with every assignment; with DTZ they are
    /// not needed.
    pub distance: Option<Distance>,
}

/// A finished table in the store, as the coordinator recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableRef {
    pub tier: String,
    /// Key in the store, e.g. `tiers/f1-0.0.1.2.2.0.0.fxt`.
    pub file: String,
    pub crc32: u32,
    pub bytes: u64,
    /// Its plies file (the key [`crate::job::plies_beside`] `file`), in a run with plies.
    pub plies: Option<FileRef>,
}

/// A file's checksum and length, as the coordinator recorded them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileRef {
    pub crc32: u32,
    pub bytes: u64,
}

/// A leased tier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub tier: String,
    pub lease_id: u64,
    /// Where to upload the table; the coordinator moves it to its final key after checking it.
    pub upload_key: String,
    pub children: Vec<TableRef>,
}

/// The answer to a lease request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeaseAnswer {
    Assigned(Assignment),
    /// No tier is ready: ask again after this long.
    Wait(Duration),
    /// Every tier is solved: the worker can stop.
    Done,
}

/// A finished tier, reported by the worker that leased it.
#[derive(Clone, Debug)]
pub struct Completion {
    pub worker_id: String,
    pub lease_id: u64,
    /// The uploaded table's key.
    pub upload_key: String,
    /// The tier (`report.tier_name`), the table's CRC32 and length, the value counts.
    pub report: TierReport,
}

/// The coordinator's acceptance of a completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Accepted {
    /// True when the tier had been completed before with the same checksum.
    pub duplicate: bool,
}

/// A worker as `foxbase status` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerStatus {
    pub worker_id: String,
    pub name: String,
    pub threads: u32,
    pub leased_tiers: Vec<String>,
    pub seconds_since_seen: f64,
}

/// A run's progress, as `foxbase status` shows it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RunStatus {
    pub variant: String,
    pub tiers_total: u32,
    pub tiers_done: u32,
    pub tiers_running: u32,
    pub tiers_pending: u32,
    pub slots_total: u64,
    pub slots_done: u64,
    pub positions_per_second: f64,
    /// `None` while nothing has been measured.
    pub eta_seconds: Option<f64>,
    pub workers: Vec<WorkerStatus>,
    /// Tiers found finished in the journal at start (`--resume`).
    pub tiers_resumed: u32,
    pub leases_issued: u64,
    pub leases_expired: u64,
    pub completions_rejected: u64,
    pub finished: bool,
    /// The start position's value once finished ("win", "draw", "loss").
    pub start_value: Option<String>,
}

/// Why a call to the coordinator failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// The coordinator does not know this worker (it restarted): register again.
    #[error("{0}")]
    UnknownWorker(String),
    /// Refused for good (bad token, other protocol version, rejected completion).
    #[error("{0}")]
    Refused(String),
    /// Not reachable or failed for now: retry with backoff.
    #[error("{0}")]
    Unavailable(String),
}

/// The protocol's calls, as a worker makes them (over gRPC, or in-process).
pub trait Link: Send + Sync {
    fn register(&self, worker_name: &str, threads: u32) -> Result<Registration, LinkError>;
    fn lease(&self, worker_id: &str) -> Result<LeaseAnswer, LinkError>;
    /// Extends a lease; false when it is no longer this worker's.
    fn heartbeat(&self, worker_id: &str, lease_id: u64) -> Result<bool, LinkError>;
    /// Gives a lease back before it is finished.
    fn release(&self, worker_id: &str, lease_id: u64) -> Result<(), LinkError>;
    fn complete(&self, completion: &Completion) -> Result<Accepted, LinkError>;
}
