//! foxbase-worker: solves tiers. The retrograde kernel ([`kernel`]), 2-bit
//! value tables ([`packed`]) and their files ([`table`]).

pub mod grpc_link;
pub mod job;
pub mod kernel;
pub mod lease_loop;
pub mod packed;
pub mod store;
pub mod table;
pub mod uring;
