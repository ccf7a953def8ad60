//! `foxbase publish`: turns the tables a solve wrote into the distributable
//! tablebase: every table and plies file checked as `verify` checks its
//! files, rewritten compressed harder, a manifest saying so, and a check
//! that the result gives back every solved value.
//!
//! The Fox Game's and Bagh-Chal's tables are rewritten in the published
//! layout (the fox-to-move, or goats-to-move, values left out, derived by
//! one move when read: docs/format.md); tic-tac-toe keeps every slot.
//! Everything else is one code path for every game.

use crate::error::{io_error, Error};
use crate::fox_tables::fox_side_deriver;
use crate::manifest::{Manifest, PliesEntry, TierEntry};
use crate::packed::PackedValues;
use crate::plies::{Distance, Plies};
use crate::plies_pack::Packing;
use crate::source::DirLocation;
use crate::table::{
    write_plies_with, write_published_table, write_table_layout, Layout, TableFile, DEFAULT_BLOCK_SLOTS,
};
use crate::tier_files::table_header;
use crate::tier_tables::derive_left_out;
use crate::tier_tables::TierTables;
use crate::tier_walk::{TierWalk, WalkMemory};
use crate::tiered::{fill_derived, locate_by_tier, LocateChild, WholeTier};
use crate::verify::{check_index, check_tier, check_tier_files, CheckedTier, OnTier, TierCounter};
use foxbase_core::baghchal::BaghChal;
use foxbase_core::foxgame::{FoxGame, FoxTier};
use foxbase_core::game::GameKind;
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tictactoe::TicTacToe;
use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Figures from a publish.
#[derive(Clone, Debug)]
pub struct Published {
    pub tiers: usize,
    pub slots: u64,
    pub source_bytes: u64,
    pub bytes: u64,
    /// Bytes of the published plies files (0 without plies).
    pub plies_bytes: u64,
}

/// The zstd levels of a publication: its tables' blocks and its plies files'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Levels {
    pub values: i32,
    pub plies: i32,
}

impl Default for Levels {
    fn default() -> Levels {
        Levels { values: crate::table::PUBLISH_ZSTD_LEVEL, plies: crate::table::PUBLISH_PLIES_ZSTD_LEVEL }
    }
}

/// Publishes the solved directory `src` (the Fox Game's or Bagh-Chal's
/// tables, as its manifest says) as the new directory `out`, with the zstd
/// `levels`; packed plies files (distances to zeroing) a byte a count in
/// column order ([`Packing::published`]). The tables are built in a
/// sibling directory, each file written
/// durably (a temporary name, fsync, rename) and the manifest last, and
/// the directory is renamed to `out` only after every check passed, so
/// `out` never holds part of a tablebase; an `out` that exists is refused.
/// `on_tier` reports progress over both passes (writing, then checking:
/// twice the tiers and twice their slots in all). The checking pass holds
/// complete tiers between the tiers that read them as `memory` says
/// ([`TierWalk`]).
pub fn publish(
    src: &Path,
    out: &Path,
    levels: Levels,
    memory: &WalkMemory,
    on_tier: OnTier,
) -> Result<Published, Error> {
    if out.exists() {
        return Err(Error::OutputExists(out.display().to_string()));
    }
    let manifest = Manifest::read(src)?;
    struct Publish<'a>(&'a Path, &'a Path, Levels, &'a WalkMemory, OnTier<'a>);
    impl PublishVisitor for Publish<'_> {
        type Output = Published;
        fn visit<G: Publishable>(self, game: &G) -> Result<Published, Error> {
            publish_as(game, self.0, self.1, self.2, self.3, self.4)
        }
    }
    with_publishable(&manifest, src, Publish(src, out, levels, memory, on_tier))
}

/// [`publish`] for a game known to the caller (any [`Publishable`] game,
/// in the registry or not): `src` must hold `game`'s solved tables, with
/// its variant.
pub fn publish_as<G: Publishable>(
    game: &G,
    src: &Path,
    out: &Path,
    levels: Levels,
    memory: &WalkMemory,
    on_tier: OnTier,
) -> Result<Published, Error> {
    if out.exists() {
        return Err(Error::OutputExists(out.display().to_string()));
    }
    let manifest = Manifest::read(src)?;
    if manifest.layout != Layout::Solved {
        return Err(Error::AlreadyPublished(src.display().to_string()));
    }
    if manifest.game != game.game_name() || manifest.variant != game.variant_json() {
        return Err(Error::Variant {
            dir: src.display().to_string(),
            message: format!(
                "tables of game '{}' variant {}, not {} {}",
                manifest.game,
                manifest.variant,
                game.game_name(),
                game.variant_json()
            ),
        });
    }
    publish_game(game, src, out, &manifest, levels, memory, on_tier)
}

/// What is done with the game a manifest names ([`with_publishable`]).
trait PublishVisitor {
    type Output;
    fn visit<G: Publishable>(self, game: &G) -> Result<Self::Output, Error>;
}

/// The game of `manifest` (read from `dir`) with its variant, handed to
/// `visitor` ([`foxbase_core::with_game_kind`]).
fn with_publishable<V: PublishVisitor>(manifest: &Manifest, dir: &Path, visitor: V) -> Result<V::Output, Error> {
    let not_publishable = || Error::NotPublishable { dir: dir.display().to_string(), game: manifest.game.clone() };
    let kind = manifest.game.parse::<GameKind>().map_err(|_| not_publishable())?;
    foxbase_core::with_game_kind!(kind, &manifest.variant, |game| visitor.visit(&game))
        .map_err(|e| Error::Variant { dir: dir.display().to_string(), message: e.problem })?
}

/// Where a tier's files are: its table, and its plies file if it has one.
pub struct TierFiles<T> {
    pub tier: T,
    pub slots: u64,
    pub table: PathBuf,
    pub plies: Option<PathBuf>,
}

impl<T> TierFiles<T> {
    /// The files of `tier`, as its manifest entry `entry` names them below `root`.
    pub fn of(root: &Path, entry: &TierEntry, tier: T) -> TierFiles<T> {
        TierFiles {
            tier,
            slots: entry.slots,
            table: root.join(&entry.file),
            plies: entry.plies.as_ref().map(|p| root.join(&p.file)),
        }
    }
}

/// A tier's files read whole, as stored.
pub struct StoredTier {
    pub values: PackedValues,
    pub plies: Option<Plies>,
    /// The table's layout, and the plies file's (the table's without one).
    pub layout: Layout,
    pub plies_layout: Layout,
}

/// Reads the files of `files` whole (checked against the tier's header,
/// every block's checksum too).
pub fn read_stored<G: TierGame>(game: &G, files: &TierFiles<G::Tier>) -> Result<StoredTier, Error> {
    let header = table_header(game, files.tier, files.slots);
    let table = TableFile::open(&files.table)?;
    table.expect(&header)?;
    let values = table.read_all()?;
    let (plies, plies_layout) = match &files.plies {
        Some(path) => {
            let p = TableFile::open(path)?;
            p.expect(&header)?;
            (Some(p.read_all_plies(&values)?), p.layout)
        }
        None => (None, table.layout),
    };
    Ok(StoredTier { values, plies, layout: table.layout, plies_layout })
}

/// [`read_stored`] as a [`WholeTier`] (with its layouts).
pub fn read_whole_stored<G: TierGame>(game: &G, files: &TierFiles<G::Tier>) -> Result<WholeTier<G>, Error> {
    let s = read_stored(game, files)?;
    let (values, plies, layout, plies_layout) = (s.values, s.plies, s.layout, s.plies_layout);
    Ok(WholeTier { tier: files.tier, index: game.tier_index(files.tier), values, layout, plies, plies_layout })
}

/// What publishing needs of a game beyond the tier contract (and the
/// child search of the one-step valuation, [`LocateChild`], with which
/// a published layout's slots are derived and tables are checked).
pub trait Publishable: WithRules + LocateChild + Sized {
    /// The layout its published tables are written in.
    const LAYOUT: Layout;

    /// The period of the column order of its published tables
    /// ([`crate::value_columns`]) and DTZ files
    /// ([`crate::plies_pack::Packing`]) for `tier`; 1: slot order. Above
    /// 1 it is even, and the layout is [`Layout::Published`].
    fn column_period(&self, tier: Self::Tier) -> u64;

    /// `own` as a reader of its tablebase gets it (values, plies): its
    /// files read whole, and what their layout leaves out derived from the
    /// files of its child tiers `children` (every child tier held, solved
    /// or published: a derivation reads the slots both layouts store), for
    /// plies to the `distance` of its tablebase. By default by one move
    /// ([`fill_derived`]).
    fn read_whole(
        &self,
        own: &TierFiles<Self::Tier>,
        children: &[TierFiles<Self::Tier>],
        distance: Option<Distance>,
    ) -> Result<(PackedValues, Option<Plies>), Error> {
        let mut whole = read_whole_stored(self, own)?;
        if !whole.is_complete() {
            let children = children.iter().map(|c| read_whole_stored(self, c)).collect::<Result<Vec<_>, Error>>()?;
            let children: Vec<&WholeTier<Self>> = children.iter().collect();
            fill_derived(self, distance, &mut whole, &children)?;
        }
        Ok((whole.values, whole.plies))
    }
}

impl Publishable for FoxGame {
    /// Fox-to-move values left out, derived by one fox move.
    const LAYOUT: Layout = Layout::Published;

    /// A sheep set's slots: a column is a fox placement and side to move
    /// (on the kernel benchmark's variant 12 % smaller DTZ files than slot
    /// order; for the tables, docs/results.md).
    fn column_period(&self, tier: Self::Tier) -> u64 {
        self.tier_index(tier).fox_slots * 2
    }

    /// The fox-to-move values (and plies) derived as [`FoxTables`](crate::FoxTables) derives them.
    fn read_whole(
        &self,
        own: &TierFiles<FoxTier>,
        children: &[TierFiles<FoxTier>],
        distance: Option<Distance>,
    ) -> Result<(PackedValues, Option<Plies>), Error> {
        let mut whole = read_whole_stored(self, own)?;
        if whole.is_complete() {
            return Ok((whole.values, whole.plies));
        }
        // A fox move stays in the tier or jumps one sheep (one jump a
        // move): of the child tiers, only those with the same foxes and
        // one sheep fewer are read, not the sheep steps' (most of them).
        let (foxes, sheep) = (own.tier.foxes(), own.tier.sheep());
        let children = children
            .iter()
            .filter(|c| c.tier.foxes() == foxes && c.tier.sheep() + 1 == sheep)
            .map(|c| read_whole_stored(self, c))
            .collect::<Result<Vec<WholeTier<FoxGame>>, Error>>()?;
        let refs: Vec<&WholeTier<FoxGame>> = children.iter().collect();
        derive_left_out(self, fox_side_deriver(), &mut whole, &refs, distance)?;
        Ok((whole.values, whole.plies))
    }
}

impl Publishable for BaghChal {
    /// The tigers-to-move values only (odd slots); the goats' (even slots)
    /// are derived by one goat move, which always leaves the tigers to move.
    const LAYOUT: Layout = Layout::Published;

    /// Slot order: a tier's tiger sets come first in its ranking, and no
    /// column order was measured for them.
    fn column_period(&self, _: Self::Tier) -> u64 {
        1
    }
}

/// Bagh-Chal's children are found by their tier and canonical rank.
impl LocateChild for BaghChal {
    type Memo = ();

    fn locate(&self, _: &mut (), loaded: &[&WholeTier<BaghChal>], child: &Self::Position) -> Option<(usize, u64)> {
        locate_by_tier(self, loaded, child)
    }
}

/// Tic-tac-toe's children are found by their tier and canonical rank.
impl LocateChild for TicTacToe {
    type Memo = ();

    fn locate(&self, _: &mut (), loaded: &[&WholeTier<TicTacToe>], child: &Self::Position) -> Option<(usize, u64)> {
        locate_by_tier(self, loaded, child)
    }
}

impl Publishable for TicTacToe {
    /// Every slot stored, as solved.
    const LAYOUT: Layout = Layout::Solved;

    /// Slot order (its tables have no distances to zeroing).
    fn column_period(&self, _: Self::Tier) -> u64 {
        1
    }
}

/// [`publish`] once the game is known: builds the tablebase in a staging
/// directory beside `out`, then renames it to `out`.
fn publish_game<G: Publishable>(
    game: &G,
    src: &Path,
    out: &Path,
    manifest: &Manifest,
    levels: Levels,
    memory: &WalkMemory,
    on_tier: OnTier,
) -> Result<Published, Error> {
    let name = out.file_name().ok_or_else(|| Error::NotADirectoryName(out.display().to_string()))?;
    let parent = crate::durable::parent_dir(out);
    let staging: PathBuf = parent.join(format!(".{}.partial", name.to_string_lossy()));
    if staging.exists() {
        // Left by an interrupted publish: nothing in it was ever published.
        fs::remove_dir_all(&staging).map_err(io_error(staging.display().to_string()))?;
    }
    let published = match build(game, src, &staging, manifest, levels, memory, on_tier) {
        Ok(p) => p,
        Err(e) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    crate::durable::rename(&staging, out).map_err(io_error(out.display().to_string()))?;
    Ok(published)
}

/// Both passes into `staging`, the manifest between them, and the final
/// check of the staging directory's files.
fn build<G: Publishable>(
    game: &G,
    src: &Path,
    staging: &Path,
    manifest: &Manifest,
    levels: Levels,
    memory: &WalkMemory,
    on_tier: OnTier,
) -> Result<Published, Error> {
    let source_problem = |p| Error::SourceCheck(Box::new(p));
    check_index(src, manifest).map_err(source_problem)?;
    fs::create_dir_all(staging.join("tiers")).map_err(io_error(staging.display().to_string()))?;
    let counter = TierCounter::new(manifest.tiers.len() * 2, manifest.total_slots() * 2, on_tier);
    // Pass 1: check and rewrite every table and plies file (tiers in
    // parallel: most are one block).
    let written: Vec<Result<(G::Tier, TierEntry), Error>> = manifest
        .tiers
        .par_iter()
        .map(|entry| {
            // What verify checks of the files: header, blocks, length, checksum, layout, slots.
            let checked = check_tier(game, src, manifest, entry).map_err(source_problem)?;
            let written = write_published_tier(game, &checked, entry, staging, levels)?;
            counter.done(entry.slots);
            Ok((checked.tier, written))
        })
        .collect();
    let (tiers, entries): (Vec<G::Tier>, Vec<TierEntry>) =
        written.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().unzip();
    let mut published = manifest.clone();
    published.layout = G::LAYOUT;
    published.tool = format!("foxbase {}", env!("CARGO_PKG_VERSION"));
    published.tiers = entries;
    // The tier index, then the manifest: a reader that finds the manifest finds everything.
    published.write(staging)?;
    // Pass 2: every value and plies count read back from the published
    // tables equals the solved one.
    let comparison = SolveComparison::<G>::open(staging, &published, src)?;
    compare_published(staging, &published, &comparison, memory, &counter)?;
    check_tier_files(game, staging, &published).map_err(|p| Error::PublishedCheck(Box::new(p)))?;
    // The checksum list last: it lists every other file.
    crate::checksums::write_sums(staging).map_err(|p| Error::PublishedCheck(Box::new(p)))?;
    Ok(Published {
        tiers: tiers.len(),
        slots: manifest.total_slots(),
        source_bytes: manifest.total_bytes(),
        bytes: published.total_bytes(),
        plies_bytes: published.tiers.iter().filter_map(|t| t.plies.as_ref()).map(|p| p.bytes).sum(),
    })
}

/// Writes the published files of the solved tier `entry` (its files as
/// [`check_tier`] read them: `checked`) into `out`, at the paths its entry
/// names (each durably), and returns its published entry.
pub(crate) fn write_published_tier<G: Publishable>(
    game: &G,
    checked: &CheckedTier<G>,
    entry: &TierEntry,
    out: &Path,
    levels: Levels,
) -> Result<TierEntry, Error> {
    let header = table_header(game, checked.tier, entry.slots);
    let period = game.column_period(checked.tier);
    let path = out.join(&entry.file);
    let (crc32, bytes) = if period > 1 {
        write_published_table(&path, &header, &checked.values, DEFAULT_BLOCK_SLOTS, levels.values, period)?
    } else {
        write_table_layout(&path, &header, &checked.values, DEFAULT_BLOCK_SLOTS, levels.values, G::LAYOUT)?
    };
    let plies = match (&entry.plies, &checked.plies) {
        (Some(p), Some(plies)) => {
            let packs = p.distance.packs(game.no_progress() > 0);
            let packing = Packing::published(period);
            let packed_with = packs.then_some((&checked.values, packing));
            let path = out.join(&p.file);
            let (crc32, bytes) = write_plies_with(&path, &header, plies, packed_with, levels.plies, G::LAYOUT)?;
            Some(PliesEntry { crc32: format!("{crc32:08x}"), bytes, ..p.clone() })
        }
        _ => None,
    };
    Ok(TierEntry { crc32: format!("{crc32:08x}"), bytes, plies, ..entry.clone() })
}

/// The tables of the solve a published tablebase was made from, opened to
/// compare the published tiers with, a tier at a time, complete as a
/// reader of the published tablebase makes it ([`TierTables`]): pass 2 of
/// a publish, and `foxbase verify --published DIR --against SOLVED`
/// (during its check, [`crate::verify::verify_game_then`]).
pub struct SolveComparison<G: Publishable> {
    /// The solve's tables (what a solved DTZ file leaves out derived as
    /// a reader of them derives it).
    solved: TierTables<G>,
    /// The published entries by tier (a difference names their files).
    published: HashMap<G::Tier, TierEntry>,
}

impl<G: Publishable> SolveComparison<G> {
    /// Opens the solve in `solved` to compare the tablebase published in
    /// `published` (with the manifest `pub_manifest`) with: refused unless
    /// it is a solve's tables of the same game, variant and tiers.
    pub fn open(published: &Path, pub_manifest: &Manifest, solved: &Path) -> Result<SolveComparison<G>, Error> {
        let src_manifest = Manifest::read(solved)?;
        let differ = |what: String| Error::NotTheSource {
            published: published.display().to_string(),
            solved: solved.display().to_string(),
            what,
        };
        if src_manifest.layout != Layout::Solved {
            return Err(differ("the second is not a solve's tables (its layout is published)".into()));
        }
        if (&pub_manifest.game, &pub_manifest.variant) != (&src_manifest.game, &src_manifest.variant) {
            return Err(differ(format!(
                "game {} with variant {} against game {} with variant {}",
                pub_manifest.game, pub_manifest.variant, src_manifest.game, src_manifest.variant
            )));
        }
        let game = G::from_variant_json(&src_manifest.variant)
            .map_err(|message| Error::Variant { dir: solved.display().to_string(), message })?;
        let solved_names: std::collections::HashSet<&str> =
            src_manifest.tiers.iter().map(|t| t.name.as_str()).collect();
        let mut entries = HashMap::new();
        for new_entry in &pub_manifest.tiers {
            let tier = game.parse_tier_name(&new_entry.name).ok_or_else(|| {
                differ(format!("the published manifest names a tier {} this game has not", new_entry.name))
            })?;
            if !solved_names.contains(new_entry.name.as_str()) {
                return Err(differ(format!("the solve has no tier {}", new_entry.name)));
            }
            entries.insert(tier, new_entry.clone());
        }
        if entries.len() != src_manifest.tiers.len() {
            return Err(differ(format!("{} tiers published, {} solved", entries.len(), src_manifest.tiers.len())));
        }
        // One tier at a time: the reader keeps one beside the one compared.
        let solved = TierTables::open_game_at(game, Box::new(DirLocation::new(solved)))?.with_cache_budget(0);
        Ok(SolveComparison { solved, published: entries })
    }

    /// The published tier `complete` (read and derived by the published
    /// tablebase's reader) against the solved one, value for value and
    /// plies count for plies count: the first difference is an error
    /// naming the published file, the slot and the position.
    pub fn compare(&self, complete: &WholeTier<G>) -> Result<(), Error> {
        let tier = complete.tier;
        let new_entry =
            self.published.get(&tier).ok_or_else(|| Error::NoTable { tier: self.solved.game.tier_name(tier) })?;
        let solved = self.solved.complete(tier)?;
        compare_tier(
            &self.solved.game,
            tier,
            new_entry,
            &solved.values,
            solved.plies.as_ref(),
            &complete.values,
            complete.plies.as_ref(),
        )
    }
}

/// Every tier of the tablebase published in `published` (its manifest
/// `manifest`), complete as its reader makes it, compared with the solve
/// ([`SolveComparison::compare`]), the tiers in a [`TierWalk`] (each read
/// and derived once); `counter` counts them. Returns the tiers compared.
fn compare_published<G: Publishable>(
    published: &Path,
    manifest: &Manifest,
    comparison: &SolveComparison<G>,
    memory: &WalkMemory,
    counter: &TierCounter,
) -> Result<usize, Error> {
    let game = G::from_variant_json(&manifest.variant)
        .map_err(|message| Error::Variant { dir: published.display().to_string(), message })?;
    let tables = TierTables::open_game_at(game, Box::new(DirLocation::new(published)))?.with_cache_budget(0);
    let tiers = manifest
        .tiers
        .iter()
        .map(|e| tables.game.parse_tier_name(&e.name).ok_or_else(|| Error::NoTable { tier: e.name.clone() }))
        .collect::<Result<Vec<_>, Error>>()?;
    let walk = TierWalk::new(&tables.game, &tiers, memory.clone());
    walk.walk(
        &tables,
        |_, e| e,
        |own, _| {
            comparison.compare(own)?;
            counter.done(tables.game.tier_size(&own.index));
            Ok(())
        },
    )?;
    Ok(tiers.len())
}

/// A published tier's values and plies (`values`, `plies`, as read back)
/// against the solved ones: the first difference is an error naming the
/// published file, the slot and the position.
pub(crate) fn compare_tier<G: Publishable>(
    game: &G,
    tier: G::Tier,
    new_entry: &TierEntry,
    solved: &PackedValues,
    solved_plies: Option<&Plies>,
    values: &PackedValues,
    plies: Option<&Plies>,
) -> Result<(), Error> {
    match first_difference(game, tier, solved, solved_plies, values, plies) {
        None => Ok(()),
        Some((i, pos)) => {
            // Equal codes: the plies differ.
            let values_differ = values.code(i) != solved.code(i);
            let plies_file = new_entry.plies.as_ref().map(|p| p.file.clone());
            Err(Error::PublishMismatch {
                file: if values_differ { new_entry.file.clone() } else { plies_file.unwrap_or(new_entry.file.clone()) },
                slot: i,
                position: pos.map_or_else(|| "-".into(), |pos| game.rules().format_position(&pos)),
                published: values.code(i),
                solved: solved.code(i),
            })
        }
    }
}

/// The published tablebase in `published` gives back, value for value and
/// plies count for plies count, the tables of the solve in `solved` it
/// was made from (the same game, variant and tiers): [`SolveComparison`]
/// over every tier. Returns the tiers compared. (`foxbase verify
/// --published DIR --against SOLVED` compares during its check.)
pub fn compare_with_solve(
    published: &Path,
    solved: &Path,
    memory: &WalkMemory,
    on_tier: OnTier,
) -> Result<usize, Error> {
    let pub_manifest = Manifest::read(published)?;
    struct Compare<'a>(&'a Path, &'a Path, &'a Manifest, &'a WalkMemory, OnTier<'a>);
    impl PublishVisitor for Compare<'_> {
        type Output = usize;
        fn visit<G: Publishable>(self, _: &G) -> Result<usize, Error> {
            let Compare(published, solved, manifest, memory, on_tier) = self;
            let comparison = SolveComparison::<G>::open(published, manifest, solved)?;
            let counter = TierCounter::new(manifest.tiers.len(), manifest.total_slots(), on_tier);
            compare_published(published, manifest, &comparison, memory, &counter)
        }
    }
    with_publishable(&pub_manifest, published, Compare(published, solved, &pub_manifest, memory, on_tier))
}

/// The first used slot of `tier` (with its position) whose value, or whose
/// plies (for a win or a loss), differs between the solved tables and
/// those read back. Slots that hold no position hold anything in either
/// (a table file stores a neighbour's code there), so a slot that differs
/// is unranked to tell; eight bytes that agree (32 slots) need no look at
/// single slots when there are no plies.
fn first_difference<G: TierGame>(
    game: &G,
    tier: G::Tier,
    solved: &PackedValues,
    solved_plies: Option<&Plies>,
    values: &PackedValues,
    plies: Option<&Plies>,
) -> Option<(u64, Option<G::Position>)> {
    let size = solved.len();
    if values.len() != size {
        return Some((size.min(values.len()), None));
    }
    let index = game.tier_index(tier);
    let differs = |i: u64| {
        let code = solved.code(i);
        let plies_differ = match (solved_plies, plies) {
            (Some(a), Some(b)) => code != Value::Draw.code() && a.get(i) != b.get(i),
            (None, None) => false,
            _ => true,
        };
        (values.code(i) != code || plies_differ) && game.unrank(&index, i).is_some()
    };
    let words_agree = |first_slot: u64| {
        let at = (first_slot / 4) as usize;
        let (a, b) = (solved.bytes().get(at..at + 8), values.bytes().get(at..at + 8));
        solved_plies.is_none() && plies.is_none() && a.is_some() && a == b
    };
    // A chunk is a whole number of eight-byte words (32 slots a word).
    let chunk = 1u64 << 16;
    let first = (0..size.div_ceil(chunk)).into_par_iter().find_map_first(|c| {
        let slots = c * chunk..((c + 1) * chunk).min(size);
        slots.step_by(32).find_map(|word| {
            if words_agree(word) {
                return None;
            }
            (word..(word + 32).min(size)).find(|&i| differs(i))
        })
    })?;
    Some((first, game.unrank(&index, first)))
}
