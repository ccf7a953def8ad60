//! foxbase-worker: solves tiers. The retrograde kernel ([`kernel`]), 2-bit
//! value tables ([`packed`]) and their files ([`table`]).

pub mod job;
pub mod kernel;
pub mod packed;
pub mod table;
pub mod uring;
