//! foxbase-worker: solves tiers. The retrograde kernels ([`kernel`], the
//! choice of a kernel and the contract they keep; [`counter_kernel`], for
//! any game, the oracle; [`plies_kernel`], the same with plies;
//! [`plane_kernel`], the Fox Game per sheep set; [`forward_kernel`],
//! Bagh-Chal's placing tiers in two passes; [`game_kernels`], which a game
//! is solved with), the
//! one-tier job that loads child tables, solves and writes ([`job`]), the
//! store tables are shared through ([`store`]), tables kept in memory for
//! the parents solved next ([`table_cache`]), and the worker's lease loop
//! ([`lease_loop`]) over the protocol's plain types ([`protocol`]), and
//! any game of the registry as a type for generic code ([`games`]). No
//! network code: the gRPC transport lives in the coordinator crate, and
//! table files in `foxbase-tables`.

pub mod counter_kernel;
pub mod error;
pub mod forward_kernel;
pub mod game_kernels;
pub mod games;
pub mod job;
pub mod kernel;
pub mod lease_loop;
pub mod plane_kernel;
pub mod plies_kernel;
pub mod protocol;
pub mod retry;
pub mod store;
pub mod table_cache;

pub use error::WorkerError;
