//! The gRPC transport of the distributed solve: the coordinator's server
//! ([`server`]) and the worker's client ([`client`]). Everything else in
//! foxbase speaks the protocol's plain types (`foxbase_worker::protocol`);
//! messages are converted at this edge (the `From` impls of
//! `foxbase_proto::convert`).

pub mod client;
pub mod server;
