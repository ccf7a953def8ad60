//! One unit of work: solve a tier from the child tables in a store directory
//! and write its table there. The local solve and remote workers run this
//! same code.

use crate::error::WorkerError;
use crate::kernel::{solve_tier, ChildTable, TierStats};
use foxbase_core::tier::TierGame;
use foxbase_tables::table::{read_table, write_table};
use foxbase_tables::tier_files::{table_header, table_path};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What solving one tier produced.
#[derive(Clone, Debug, PartialEq)]
pub struct TierReport {
    pub tier_name: String,
    pub stats: TierStats,
    pub crc32: u32,
    pub bytes: u64,
    pub seconds: f64,
}

/// Loads the child tables of `tier` from the directory `store`, solves it
/// with `threads` threads and writes its table there.
pub fn solve_and_store<G: TierGame>(
    game: &G,
    store: &Path,
    tier: G::Tier,
    threads: usize,
) -> Result<TierReport, WorkerError> {
    solve_to_file(game, tier, &|child| table_path(game, store, child), &table_path(game, store, tier), threads)
}

/// Solves `tier` with `threads` threads from the child tables at
/// `child_path(child)` and writes its table durably to `out`.
pub fn solve_to_file<G: TierGame>(
    game: &G,
    tier: G::Tier,
    child_path: &dyn Fn(G::Tier) -> PathBuf,
    out: &Path,
    threads: usize,
) -> Result<TierReport, WorkerError> {
    let started = Instant::now();
    let mut children = Vec::new();
    for child in game.child_tiers(tier) {
        let index = game.tier_index(child);
        let header = table_header(game, child, game.tier_size(&index));
        let values = read_table(&child_path(child), &header)?;
        children.push(ChildTable { tier: child, index, values });
    }
    let solved = solve_tier(game, tier, &children, threads)?;
    drop(children);
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|source| WorkerError::Io { path: dir.display().to_string(), source })?;
    }
    let header = table_header(game, tier, solved.values.len());
    let (crc32, bytes) = write_table(out, &header, &solved.values)?;
    Ok(TierReport {
        tier_name: game.tier_name(tier),
        stats: solved.stats,
        crc32,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}
