//! foxbase-coordinator: plans the tier DAG ([`plan`]), keeps a run's
//! leases, workers and journal ([`run`], [`journal`]), serves them over
//! gRPC and connects workers to them ([`grpc`]), and runs the local solve
//! ([`local`]: the same run state and worker loop in one process, without
//! the network), taking tables another solve holds ([`reuse`]). The
//! `foxbase` command line (crate `foxbase`, in `cli/`) is a layer over this
//! library, `foxbase-tables` and `foxbase-worker`.

pub mod dir_lock;
pub mod error;
pub mod grpc;
pub mod journal;
pub mod local;
pub mod metrics;
pub mod plan;
pub mod reuse;
pub mod run;

pub use error::CoordinatorError;
