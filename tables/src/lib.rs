#![doc = include_str!("../README.md")]
//!
//! ## Modules
//!
//! One idea a module: [`packed`] (2-bit value arrays), [`table`] (the table
//! file format), [`uring`] (positioned I/O on io_uring or `pread`),
//! [`source`] (byte-range sources and tablebase locations), [`durable`]
//! (write-temp/fsync/rename), [`tier_files`] (where a tier's table lives),
//! [`manifest`] and [`index`] (what a tablebase holds), [`tier_tables`]
//! (the one reader, [`TierTables`], of every game; [`read_cache`] its
//! caches of single reads; [`fox_tables`] what the Fox Game adds to it),
//! [`tiered`] (a tier in memory and the one-step valuation), [`tier_walk`]
//! (every tier in turn with its children, each read once), [`reader`]
//! (the reading API, [`Tablebase`]), [`probe`], [`engine`] (perfect play), [`verify`] (with [`verify_journal`]), [`publish`], [`survey`],
//! [`seal`] (finishing a run), [`retire`] (publishing a solve's tiers in
//! place under a disk budget) and [`error`].

pub mod checksums;
pub mod durable;
pub mod engine;
pub mod error;
pub mod fox_tables;
pub mod index;
pub mod manifest;
pub mod packed;
pub mod plies;
pub mod plies_pack;
pub mod probe;
pub mod publish;
pub mod puzzles;
pub mod read_cache;
pub mod reader;
pub mod retire;
pub mod seal;
pub mod source;
pub mod stats;
pub mod survey;
pub mod table;
pub mod tier_files;
pub mod tier_tables;
pub mod tier_walk;
pub mod tiered;
pub mod uring;
pub mod value_columns;
pub mod verify;
pub mod verify_journal;

pub use error::{Error, ErrorKind, TableError};
pub use fox_tables::FoxTables;
pub use reader::Tablebase;
pub use table::Layout;
pub use tier_tables::TierTables;
