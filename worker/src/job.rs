//! One unit of work: solve a tier from the child tables in a store directory
//! and write its table there. The local solve and remote workers run this
//! same code.

use crate::error::WorkerError;
use crate::kernel::{thread_pool, ChildTable, Kernel, Output, Phases, SolveTier, TierStats};
use crate::plane_kernel::KeptPlanes;
use crate::table_cache::TableCache;
use foxbase_core::tier::TierGame;
use foxbase_tables::packed::PackedValues;
use foxbase_tables::plies::{read_plies, Plies};
use foxbase_tables::table::{
    read_table, write_plies, write_plies_upload, write_table, write_table_upload, TableHeader, ZSTD_LEVEL,
};
use foxbase_tables::tier_files::{table_header, table_path};
use foxbase_tables::Layout;
use foxbase_tables::TableError;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What solving one tier produced.
#[derive(Clone, Debug, PartialEq)]
pub struct TierReport {
    pub tier_name: String,
    pub stats: TierStats,
    pub crc32: u32,
    pub bytes: u64,
    pub seconds: f64,
    /// Where the seconds went.
    pub phases: Phases,
    /// The plies file, for a solve with plies.
    pub plies: Option<PliesReport>,
}

/// The plies file a solve wrote beside its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PliesReport {
    pub crc32: u32,
    pub bytes: u64,
    /// The tier's largest plies count.
    pub longest: u32,
}

/// Where the plies file of the table at `table` goes
/// ([`foxbase_tables::tier_files::plies_beside`]).
pub fn plies_beside(table: &Path) -> PathBuf {
    PathBuf::from(foxbase_tables::tier_files::plies_beside(&table.to_string_lossy()))
}

/// Loads the child tables of `tier` from the directory `store`, solves it
/// with `threads` threads and writes its table there.
pub fn solve_and_store<G: SolveTier>(
    game: &G,
    store: &Path,
    tier: G::Tier,
    threads: usize,
) -> Result<TierReport, WorkerError> {
    let child_path = |child| table_path(game, store, child);
    solve_to_file(game, tier, &child_path, &table_path(game, store, tier), threads, Kernel::default(), Output::Values)
}

/// Solves `tier` with `threads` threads from the child tables at
/// `child_path(child)` and writes its table durably to `out`. Child tables
/// are decoded in parallel and the table's blocks compressed in parallel,
/// on the same `threads` threads (the bytes written do not depend on how
/// many).
pub fn solve_to_file<G: SolveTier>(
    game: &G,
    tier: G::Tier,
    child_path: &(dyn Fn(G::Tier) -> PathBuf + Sync),
    out: &Path,
    threads: usize,
    kernel: Kernel,
    output: Output,
) -> Result<TierReport, WorkerError> {
    thread_pool(threads)?.install(|| solve_to_file_in_pool(game, tier, child_path, out, kernel, output))
}

/// Reads and decodes the child tables of `tier` from `child_path(child)`
/// (and with `plies`, their plies files beside them, [`plies_beside`]), in
/// parallel on the calling thread's rayon pool. With `tables`, a child's
/// values held there are taken as they are, and those read are kept there.
pub fn load_children<G: TierGame>(
    game: &G,
    tier: G::Tier,
    child_path: &(dyn Fn(G::Tier) -> PathBuf + Sync),
    plies: bool,
    tables: Option<&TableCache>,
) -> Result<Vec<ChildTable<G>>, WorkerError> {
    game.child_tiers(tier)
        .into_par_iter()
        .map(|child| {
            let index = game.tier_index(child);
            let header = table_header(game, child, game.tier_size(&index));
            let path = child_path(child);
            let name = game.tier_name(child);
            let (values, planes) = match tables.and_then(|t| t.get(&name)) {
                Some(kept) => kept,
                None => {
                    let (values, planes) = (Arc::new(read_table(&path, &header)?), Arc::new(KeptPlanes::default()));
                    if let Some(t) = tables {
                        t.insert(&name, values.clone(), planes.clone());
                    }
                    (values, planes)
                }
            };
            debug_assert_eq!(values.len(), header.slots, "a kept table has its tier's slots");
            let plies = if plies { Some(read_plies(&plies_beside(&path), &header, &values)?) } else { None };
            Ok(ChildTable { tier: child, index, values, plies, planes })
        })
        .collect()
}

/// [`solve_to_file`] on the calling thread's rayon pool (the caller chose
/// its size; a worker keeps one pool for all its tiers).
pub fn solve_to_file_in_pool<G: SolveTier>(
    game: &G,
    tier: G::Tier,
    child_path: &(dyn Fn(G::Tier) -> PathBuf + Sync),
    out: &Path,
    kernel: Kernel,
    output: Output,
) -> Result<TierReport, WorkerError> {
    let write_plies =
        |path: &Path, header: &TableHeader, plies: &Plies, packed_with: Option<&PackedValues>, layout: Layout| {
            write_plies(path, header, plies, packed_with, ZSTD_LEVEL, layout)
        };
    solve_and_write(game, tier, child_path, out, kernel, output, None, &write_table, &write_plies)
}

/// [`solve_to_file_in_pool`] for an upload that the coordinator checks
/// before renaming it into place: written at `out` itself and fsync'd,
/// without a temporary name of its own ([`write_table_upload`]); with
/// `sync` false not even fsync'd (a local solve syncs its store once at the
/// end). With `tables`, the children's values are taken from there where
/// held, and the tier's are kept there ([`load_children`]).
#[allow(clippy::too_many_arguments)]
pub fn solve_to_upload_in_pool<G: SolveTier>(
    game: &G,
    tier: G::Tier,
    child_path: &(dyn Fn(G::Tier) -> PathBuf + Sync),
    out: &Path,
    kernel: Kernel,
    output: Output,
    sync: bool,
    tables: Option<&TableCache>,
) -> Result<TierReport, WorkerError> {
    solve_and_write(
        game,
        tier,
        child_path,
        out,
        kernel,
        output,
        tables,
        &|path, header, values| write_table_upload(path, header, values, sync),
        &|path, header, plies, packed_with, layout| write_plies_upload(path, header, plies, packed_with, layout, sync),
    )
}

type WriteTable<'a> = &'a dyn Fn(&Path, &TableHeader, &PackedValues) -> Result<(u32, u64), TableError>;
/// Writes a plies file, packed beside the tier's values when given, in a layout.
type WritePlies<'a> =
    &'a dyn Fn(&Path, &TableHeader, &Plies, Option<&PackedValues>, Layout) -> Result<(u32, u64), TableError>;

/// Solves and writes the plies file (if any) first, then the table: a
/// table on disk always has its plies beside it. With `tables`, the
/// children come from there where held, and the tier's values, once
/// written, are kept there for its parents.
#[allow(clippy::too_many_arguments)]
fn solve_and_write<G: SolveTier>(
    game: &G,
    tier: G::Tier,
    child_path: &(dyn Fn(G::Tier) -> PathBuf + Sync),
    out: &Path,
    kernel: Kernel,
    output: Output,
    tables: Option<&TableCache>,
    write: WriteTable,
    write_plies: WritePlies,
) -> Result<TierReport, WorkerError> {
    let started = Instant::now();
    let children = load_children(game, tier, child_path, output.children_plies(), tables)?;
    let load = started.elapsed().as_secs_f64();
    let child_names: Vec<String> = children.iter().map(|c| game.tier_name(c.tier)).collect();
    let solved = game.solve_owning(kernel, output, tier, children)?;
    if let Some(t) = tables {
        // The solve may have derived planes from the children it kept.
        for name in &child_names {
            t.recount(name);
        }
    }
    let writing = Instant::now();
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|source| WorkerError::Io { path: dir.display().to_string(), source })?;
    }
    let header = table_header(game, tier, solved.values.len());
    let plies = match &solved.plies {
        Some(plies) => {
            let packs = output.distance().is_some_and(|d| d.packs(game.no_progress() > 0));
            let layout = if packs { game.packed_plies_layout() } else { Layout::Solved };
            let (crc32, bytes) =
                write_plies(&plies_beside(out), &header, plies, packs.then_some(&solved.values), layout)?;
            Some(PliesReport { crc32, bytes, longest: plies.max() as u32 })
        }
        None => None,
    };
    let (crc32, bytes) = write(out, &header, &solved.values)?;
    if let Some(t) = tables {
        // The values written (the file fills unused slots, which no kernel reads as values).
        t.insert(&game.tier_name(tier), Arc::new(solved.values), Arc::default());
    }
    let phases = Phases { load, write: writing.elapsed().as_secs_f64(), ..solved.phases };
    Ok(TierReport {
        tier_name: game.tier_name(tier),
        stats: solved.stats,
        crc32,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
        phases,
        plies,
    })
}
