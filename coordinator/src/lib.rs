//! foxbase-coordinator: plans the tier DAG, schedules tiers onto workers,
//! writes the manifest, and answers probes. The `foxbase` binary is a thin
//! command-line layer over this library.

pub mod journal;
pub mod loaded;
pub mod local;
pub mod manifest;
pub mod plan;
pub mod probe;
pub mod publish;
pub mod run;
pub mod server;
pub mod survey;
pub mod verify;
