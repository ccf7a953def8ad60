//! `foxbase verify`: checks a table directory end to end.
//!
//! 1. The manifest names every file, each file exists with the recorded
//!    length and CRC32, and its header is the tier and variant the manifest
//!    says (so swapped or foreign files are caught).
//! 2. Every block decompresses and matches its CRC32.
//! 3. Every stored value agrees with its children's stored values after one
//!    forward step: a game-over position holds its game-over value; a win has
//!    a child lost for the opponent; a loss has only children won for the
//!    opponent; a draw has no losing child and at least one drawn child.
//!    Published tables store no fox-to-move values: those are derived by
//!    this same step from the sheep-to-move values, which are then checked.
//! 4. In a tablebase with plies, every won or lost position's plies agree
//!    with its children's after one step: 0 when over, a win 1 + the fewest
//!    among the children lost for the opponent, a loss 1 + the most among
//!    all children ([`foxbase_core::Outcome::from_children`]).
//!
//! [`verify_game`] checks the tables of any game, in both layouts: step 3
//! with the check a program installed for the game where it takes the tier
//! ([`TierCheck`]: the plane kernel's, for the Fox Game), else one
//! position at a time through the tier contract ([`outcome_by_one_step`]).

use crate::error::{Error, TableError};
use crate::index::{IndexEntry, TierIndex};
use crate::manifest::Manifest;
use crate::packed::PackedValues;
use crate::plies::Plies;
use crate::source::DirLocation;
use crate::table::TableFile;
use crate::tier_files::table_header;
use crate::tier_walk::{TierWalk, WalkFigures, WalkMemory};
use crate::tiered::{outcome_by_one_step, LocateChild, StepScratch, WholeTier};
use crate::verify_journal::{VerifyJournal, VerifyJournalError};
use crate::TierTables;
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::Path;

/// The first problem found, precisely.
#[derive(Debug, Clone)]
pub struct Problem {
    pub file: Option<String>,
    pub block: Option<u64>,
    pub position: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        if let Some(b) = self.block {
            write!(f, "block {b}: ")?;
        }
        if let Some(p) = &self.position {
            write!(f, "position {p}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

fn problem(file: Option<&str>, message: impl Into<String>) -> Problem {
    Problem { file: file.map(String::from), block: None, position: None, message: message.into() }
}

/// Figures from a successful verification.
#[derive(Debug, Clone, Default)]
pub struct Verified {
    pub tiers: usize,
    /// Of those, the tiers a journal recorded as checked before, not checked again.
    pub checked_before: usize,
    pub slots: u64,
    pub positions_checked: u64,
    /// How the walk over the tiers held them ([`TierWalk`]).
    pub walk: WalkFigures,
}

/// How far a pass over the tiers is: tiers, and their slots (the measure
/// of a tier's work: tiers differ in size by orders of magnitude, so a
/// time left is estimated from slots, not from tiers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierProgress {
    pub tiers_done: usize,
    pub tiers: usize,
    pub slots_done: u64,
    pub slots: u64,
}

/// Called after each tier with how far the pass is.
pub type OnTier<'a> = &'a (dyn Fn(TierProgress) + Sync);

/// Counts the tiers done, and their slots, from any thread, and tells
/// `on_tier` after each.
pub struct TierCounter<'a> {
    tiers_done: std::sync::atomic::AtomicUsize,
    slots_done: std::sync::atomic::AtomicU64,
    tiers: usize,
    slots: u64,
    on_tier: OnTier<'a>,
}

impl<'a> TierCounter<'a> {
    /// A count of `tiers` tiers of `slots` slots in all, starting now:
    /// tells `on_tier` so (nothing done yet), so that a time left is
    /// measured from here.
    pub fn new(tiers: usize, slots: u64, on_tier: OnTier<'a>) -> TierCounter<'a> {
        on_tier(TierProgress { tiers_done: 0, tiers, slots_done: 0, slots });
        TierCounter { tiers_done: Default::default(), slots_done: Default::default(), tiers, slots, on_tier }
    }

    /// One more tier done, of `slots` slots.
    pub fn done(&self, slots: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        let tiers_done = self.tiers_done.fetch_add(1, Relaxed) + 1;
        let slots_done = self.slots_done.fetch_add(slots, Relaxed) + slots;
        (self.on_tier)(TierProgress { tiers_done, tiers: self.tiers, slots_done, slots: self.slots });
    }
}

/// A problem in `file` from a table error: the file as the manifest names
/// it, the block from the error's own field.
fn table_problem(file: &str, e: TableError) -> Problem {
    Problem { file: Some(file.to_string()), block: e.block, position: None, message: e.kind.to_string() }
}

/// A problem from a tablebase error: a file's error keeps its block.
fn dir_problem(file: &str, e: Error) -> Problem {
    match e {
        Error::Table(t) => table_problem(file, t),
        other => problem(Some(file), other.to_string()),
    }
}

/// Steps 1 and 2 for the tiers of `game` that `manifest` lists, and the
/// tier index: every file's length, checksum and header, every block's
/// CRC. Returns each tier with its file and its block size.
pub(crate) fn check_tier_files<G: TierGame>(
    game: &G,
    dir: &Path,
    manifest: &Manifest,
) -> Result<Vec<(G::Tier, String, u64)>, Problem> {
    check_tier_files_counted(game, dir, manifest, &HashSet::new(), None)
}

/// [`check_tier_files`] but for the tiers named in `checked_before`,
/// which are left out of what it returns; each tier counted by `counter`
/// once its files passed.
///
/// The tiers are checked on rayon's threads (each reads and decompresses
/// its own files); the problem returned is the one of the first failing
/// tier in the manifest's order, as a check one tier at a time finds it.
/// Once a tier failed, no tier after it starts.
pub(crate) fn check_tier_files_counted<G: TierGame>(
    game: &G,
    dir: &Path,
    manifest: &Manifest,
    checked_before: &HashSet<String>,
    counter: Option<&TierCounter>,
) -> Result<Vec<(G::Tier, String, u64)>, Problem> {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let to_check: Vec<_> = manifest.tiers.iter().filter(|e| !checked_before.contains(&e.name)).collect();
    // The first tier, in the manifest's order, known to have failed.
    let first_failed = AtomicUsize::new(usize::MAX);
    let checked: Vec<Option<Result<_, Problem>>> = to_check
        .par_iter()
        .enumerate()
        .map(|(at, entry)| {
            if at > first_failed.load(Relaxed) {
                return None;
            }
            let checked = check_tier(game, dir, manifest, entry);
            match &checked {
                Ok(_) => {
                    if let Some(counter) = counter {
                        counter.done(entry.slots);
                    }
                }
                Err(_) => {
                    first_failed.fetch_min(at, Relaxed);
                }
            }
            Some(checked.map(|c| (c.tier, entry.file.clone(), c.block_slots)))
        })
        .collect();
    let mut tiers = Vec::with_capacity(checked.len());
    // A tier left out comes after a failed one, so the loop returns before it.
    for result in checked.into_iter().flatten() {
        tiers.push(result?);
    }
    check_index(dir, manifest)?;
    Ok(tiers)
}

/// One tier's files as steps 1 and 2 read them ([`check_tier`]).
pub(crate) struct CheckedTier<G: TierGame> {
    pub tier: G::Tier,
    /// Slots per block of its table.
    pub block_slots: u64,
    /// Its values as stored (in the manifest's layout).
    pub values: PackedValues,
    /// Its plies as stored, in a tablebase with plies.
    pub plies: Option<Plies>,
}

/// Steps 1 and 2 for the tier `entry` of `manifest` in `dir`: a tier of
/// `game` with the slots the manifest says; its table and plies file
/// (header first, so a swapped file is named as such; then every block, so
/// a damaged block is named; then the whole file's length and checksum and
/// its layout against the manifest's); the plies file's longest count; a
/// plies file beside every table or none. Returns what was read.
pub(crate) fn check_tier<G: TierGame>(
    game: &G,
    dir: &Path,
    manifest: &Manifest,
    entry: &crate::manifest::TierEntry,
) -> Result<CheckedTier<G>, Problem> {
    let with_plies = manifest.tiers.iter().any(|t| t.plies.is_some());
    check_tier_as(game, dir, manifest.layout, with_plies, entry)
}

/// [`check_tier`] for a tier of a tablebase in `want_layout` whose tiers
/// have plies files (`with_plies`) or not.
pub(crate) fn check_tier_as<G: TierGame>(
    game: &G,
    dir: &Path,
    want_layout: crate::table::Layout,
    with_plies: bool,
    entry: &crate::manifest::TierEntry,
) -> Result<CheckedTier<G>, Problem> {
    let file = Some(entry.file.as_str());
    let tier = game
        .parse_tier_name(&entry.name)
        .ok_or_else(|| problem(file, format!("manifest names an unknown tier '{}'", entry.name)))?;
    let path = dir.join(&entry.file);
    let real_slots = game.tier_size(&game.tier_index(tier));
    if entry.slots != real_slots {
        return Err(problem(
            file,
            format!("the manifest says {} slots, tier {} has {real_slots}", entry.slots, entry.name),
        ));
    }
    let header = table_header(game, tier, entry.slots);
    let (t, values) =
        check_file(&path, &entry.file, &header, entry.bytes, &entry.crc32, want_layout, false, |t| t.read_all())?;
    let plies = match &entry.plies {
        Some(p) => {
            let read = |t: &TableFile| t.read_all_plies(&values);
            let (pt, plies) =
                check_file(&dir.join(&p.file), &p.file, &header, p.bytes, &p.crc32, want_layout, true, read)?;
            // A published file stores no fox-to-move plies, so its own largest may be smaller.
            if pt.layout == crate::table::Layout::Solved && plies.max() as u32 != p.longest {
                let message = format!("longest {} plies, the manifest says {}", plies.max(), p.longest);
                return Err(problem(Some(&p.file), message));
            }
            Some(plies)
        }
        None if with_plies => {
            return Err(problem(file, "other tiers have plies files, this one has none"));
        }
        None => None,
    };
    Ok(CheckedTier { tier, block_slots: t.block_slots as u64, values, plies })
}

/// Steps 1 and 2 for one table or plies file (`name` as the manifest names
/// it): header first (a swapped file is named as such), then every block
/// (a damaged block is named) as `read` reads them all, then the whole
/// file's length and CRC32 and its layout against the manifest's
/// ([`crate::table::Layout::holds_plies`] for a plies file). Returns
/// the opened file and what `read` read.
#[allow(clippy::too_many_arguments)]
fn check_file<T>(
    path: &Path,
    name: &str,
    header: &crate::table::TableHeader,
    bytes: u64,
    crc32: &str,
    layout: crate::table::Layout,
    plies: bool,
    read: impl FnOnce(&TableFile) -> Result<T, TableError>,
) -> Result<(TableFile, T), Problem> {
    let fail = |e: TableError| table_problem(name, e);
    let t = TableFile::open(path).map_err(fail)?;
    t.expect(header).map_err(fail)?;
    let read = read(&t).map_err(fail)?;
    let whole = t.read_file().map_err(fail)?;
    if whole.len() as u64 != bytes {
        return Err(problem(Some(name), format!("{} bytes, the manifest says {bytes}", whole.len())));
    }
    let crc = format!("{:08x}", crc32fast::hash(&whole));
    if crc != crc32 {
        return Err(problem(Some(name), format!("file checksum {crc}, the manifest says {crc32}")));
    }
    let layout_ok = if plies { layout.holds_plies(t.layout, t.contents) } else { t.layout == layout };
    if !layout_ok {
        let what = if plies { "plies" } else { "table" };
        let message = format!("{what} layout {}, but the manifest says the directory is {layout}", t.layout);
        return Err(problem(Some(name), message));
    }
    Ok((t, read))
}

/// The tier index says what the manifest says: the same summary and the
/// same record for every tier, and nothing more.
pub(crate) fn check_index(dir: &Path, manifest: &Manifest) -> Result<(), Problem> {
    let file = Some(crate::index::INDEX_FILE);
    let index = TierIndex::open(&DirLocation::new(dir)).map_err(|e| problem(file, e.message()))?;
    let records = index.all().map_err(|e| problem(file, e.message()))?;
    if index.summary != crate::index::Summary::of(manifest) {
        return Err(problem(file, format!("its summary disagrees with {}", crate::manifest::MANIFEST_FILE)));
    }
    let mut expected: Vec<IndexEntry> = manifest
        .tiers
        .iter()
        .map(|t| IndexEntry {
            name: t.name.clone(),
            slots: t.slots,
            bytes: t.bytes,
            crc32: u32::from_str_radix(&t.crc32, 16).unwrap_or(0),
        })
        .collect();
    expected.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    if let Some((got, want)) = records.iter().zip(&expected).find(|(g, w)| g != w) {
        return Err(problem(
            file,
            format!(
                "its record of tier {} disagrees with {} (tier {})",
                got.name,
                crate::manifest::MANIFEST_FILE,
                want.name
            ),
        ));
    }
    if records.len() != expected.len() {
        return Err(problem(
            file,
            format!("{} tiers, {} lists {}", records.len(), crate::manifest::MANIFEST_FILE, expected.len()),
        ));
    }
    Ok(())
}

/// A check of a whole tier's values against its children that takes the
/// place of step 3's one-step check, position by position, where it
/// applies: the worker's plane kernel provides one that runs at the speed
/// of a solve's initial pass. The tables crate itself has no kernel.
/// A program that links a kernel installs it where the game's
/// [`LocateChild::installed_check`] finds it (the Fox Game's:
/// [`crate::fox_tables::install_fox_tier_check`]).
pub trait TierCheck<G: TierGame>: Sync {
    /// `None` when this check does not handle `tier`. Otherwise the number
    /// of positions checked, or why the tier fails. `own` and `children`
    /// are complete (even slots derived for published tables); `even`:
    /// the even slots are stored and must be checked.
    fn check(
        &self,
        game: &G,
        tier: G::Tier,
        own: &WholeTier<G>,
        children: &[&WholeTier<G>],
        even: bool,
    ) -> Option<Result<u64, TierCheckError>>;
}

/// Why a [`TierCheck`] failed a tier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TierCheckError {
    /// The stored value at `slot` is not what its children say.
    Contradiction { slot: u64, stored: Value, derived: Value },
    /// The check could not run (a missing or inconsistent child table).
    Other(String),
}

/// Verifies the tablebase in `dir`, of the game `G` its manifest records
/// ([`TierGame::from_variant_json`]): [`verify_game`].
pub fn verify_dir<G: LocateChild + WithRules>(
    dir: &Path,
    on_tier: OnTier,
    one_step: bool,
    memory: &WalkMemory,
) -> Result<Verified, Problem> {
    let manifest = Manifest::read(dir).map_err(|e| problem(None, e.to_string()))?;
    let game = G::from_variant_json(&manifest.variant).map_err(|e| {
        problem(
            None,
            format!("{}: tables of game '{}' variant {}: {e}", dir.display(), manifest.game, manifest.variant),
        )
    })?;
    verify_game(game, dir, on_tier, one_step, memory)
}

/// Verifies a tablebase of `game` in `dir`, solved or published; the error
/// is the first problem found: [`verify_game_then`] with nothing after
/// each tier.
pub fn verify_game<G: LocateChild + WithRules>(
    game: G,
    dir: &Path,
    on_tier: OnTier,
    one_step: bool,
    memory: &WalkMemory,
) -> Result<Verified, Problem> {
    verify_game_then(game, dir, on_tier, one_step, memory, None, |_| Ok(()))
}

/// Verifies a tablebase of `game` in `dir`, solved or published; the error
/// is the first problem found. Steps 1 and 2 for every file; then step 3
/// tier by tier, each whole and complete with its children
/// ([`TierWalk`]: each read, and derived, once, holding what is kept
/// between tiers as `memory` says): the values by the game's installed
/// [`TierCheck`] where it takes the tier (not with `one_step`), every used
/// slot otherwise, and the plies one position at a time
/// ([`outcome_by_one_step`]). A published tier's even slots are derived
/// by this very step (by the game's installed derivation, or with
/// `one_step` one move at a time, independent of any kernel): they agree
/// with their children by construction, and are counted without a second
/// derivation. After a tier's check, `then` gets the tier complete (the
/// comparison with a solve, [`crate::publish::SolveComparison`], goes
/// there); its problem stops the check. Problems name positions in the
/// game's notation ([`Playable::format_position`]).
///
/// `on_tier` hears two counts of the tiers to check, each from zero:
/// steps 1 and 2, then step 3. With a `journal`, each tier that passed
/// (`then` included) is recorded in it, and the tiers it recorded before
/// are not checked again (steps 1 to 3): they are read only where a tier
/// still to check reads them, and are not counted.
pub fn verify_game_then<G: LocateChild + WithRules>(
    game: G,
    dir: &Path,
    on_tier: OnTier,
    one_step: bool,
    memory: &WalkMemory,
    mut journal: Option<&mut VerifyJournal>,
    mut then: impl FnMut(&WholeTier<G>) -> Result<(), Problem>,
) -> Result<Verified, Problem> {
    let manifest = Manifest::read(dir).map_err(|e| problem(None, e.to_string()))?;
    if manifest.game != game.game_name() || manifest.variant != game.variant_json() {
        return Err(problem(
            None,
            format!(
                "{}: tables of game '{}' variant {}, not {} {}",
                dir.display(),
                manifest.game,
                manifest.variant,
                game.game_name(),
                game.variant_json()
            ),
        ));
    }
    let checked_before = journal.as_ref().map(|j| j.done().clone()).unwrap_or_default();
    let journal_problem = |e: VerifyJournalError| problem(None, e.to_string());
    // Steps 1 and 2, counted as a pass of their own: `on_tier` hears two counts from zero.
    let to_check = manifest.tiers.iter().filter(|e| !checked_before.contains(&e.name));
    let (tiers_to_check, slots_to_check) = to_check.fold((0, 0), |(t, s), e| (t + 1, s + e.slots));
    let files_counter = TierCounter::new(tiers_to_check, slots_to_check, on_tier);
    let tiers = check_tier_files_counted(&game, dir, &manifest, &checked_before, Some(&files_counter))?;
    let (check, deriver) = if one_step { (None, None) } else { (G::installed_check(), G::installed_deriver()) };
    // The walk keeps the complete tiers; the reader keeps one stored tier beside them.
    let tables = TierTables::open_game_at(game, Box::new(DirLocation::new(dir)))
        .map_err(|e| problem(None, e.to_string()))?
        .with_cache_budget(0)
        .with_deriver(deriver);
    let game = &tables.game;
    let format = |p: &G::Position| game.rules().format_position(p);
    let (plies, distance) = (tables.has_plies(), tables.distance());
    // Steps 1 and 2 found every table in the manifest's layout.
    let derived_even = manifest.layout != crate::table::Layout::Solved;
    let files: std::collections::HashMap<G::Tier, (&String, u64)> =
        tiers.iter().map(|(tier, file, block_slots)| (*tier, (file, *block_slots))).collect();
    // Every tier of the tablebase, walked where a tier still to check reads it.
    let all: Vec<G::Tier> = manifest
        .tiers
        .iter()
        .map(|e| game.parse_tier_name(&e.name).ok_or_else(|| problem(Some(&e.file), "names an unknown tier")))
        .collect::<Result<_, _>>()?;
    let walk = TierWalk::visiting(game, &all, |t| files.contains_key(&t), memory.clone());
    let mut checked = 0;
    let counter = TierCounter::new(tiers.len(), slots_to_check, on_tier);
    let load_problem = |t: G::Tier, e: Error| dir_problem(&crate::tier_files::table_key(game, t), e);
    let walked = walk.walk(&tables, load_problem, |own, children| {
        let tier = own.tier;
        let (file, block_slots) = files[&tier];
        let size = game.tier_size(&own.index);
        let name = game.tier_name(tier);
        let mut refs = vec![own];
        refs.extend_from_slice(children);
        let mut values_checked = false;
        if let Some(result) = check.and_then(|c| c.check(game, tier, own, children, !derived_even)) {
            values_checked = true;
            checked += result.map_err(|e| match e {
                TierCheckError::Contradiction { slot, stored, derived } => Problem {
                    file: Some(file.clone()),
                    block: Some(slot / block_slots),
                    position: game.unrank(&own.index, slot).map(|p| format(&p)),
                    message: format!("stored {stored}, but its children say {derived} (slot {slot} of tier {name})"),
                },
                TierCheckError::Other(message) => problem(Some(file), message),
            })?;
        }
        // The values checked whole, the plies still go one position at a time.
        if !values_checked || plies {
            let count = one_step_check(game, &refs, file, block_slots, derived_even, plies, distance)?;
            if !values_checked {
                checked += count;
            }
        }
        then(own)?;
        if let Some(j) = journal.as_deref_mut() {
            j.record(&name).map_err(journal_problem)?;
        }
        counter.done(size);
        Ok(())
    })?;
    if let Some(j) = journal {
        j.finish().map_err(journal_problem)?;
    }
    Ok(Verified {
        tiers: manifest.tiers.len(),
        checked_before: checked_before.len(),
        slots: manifest.total_slots(),
        positions_checked: checked,
        walk: walked,
    })
}

/// Step 3 (values and plies) one position at a time for the tier `refs[0]`
/// (complete, with its complete children after it), in chunks in
/// parallel: the positions checked, or the first problem
/// ([`ChunkCheck::first_problem`]). With `derived_even` the even slots were
/// just derived by this same step and are counted without a check.
fn one_step_check<G: LocateChild + WithRules>(
    game: &G,
    refs: &[&WholeTier<G>],
    file: &str,
    block_slots: u64,
    derived_even: bool,
    plies: bool,
    distance: Option<crate::plies::Distance>,
) -> Result<u64, Problem> {
    let own = refs[0];
    let size = game.tier_size(&own.index);
    let name = game.tier_name(own.tier);
    let format = |p: &G::Position| game.rules().format_position(p);
    let chunk = 1u64 << 16;
    let results: Vec<ChunkCheck> = (0..size.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut found = ChunkCheck::default();
            let mut scratch = StepScratch::default();
            game.for_each_slot(&own.index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                // An unused slot holds a don't-care code (docs/format.md).
                let Some(pos) = pos else { return };
                if found.value.is_some() {
                    return;
                }
                found.checked += 1;
                // A derived even slot was just derived by this very step: it
                // agrees with its children by construction.
                if derived_even && i.is_multiple_of(2) {
                    return;
                }
                let fail = |message: String| Problem {
                    file: Some(file.to_string()),
                    block: Some(i / block_slots),
                    position: Some(format(&pos)),
                    message,
                };
                let Some(stored) = own.outcome(i) else {
                    found.value = Some(fail(format!("slot {i} holds the unused code 3, but a position belongs there")));
                    return;
                };
                match outcome_by_one_step(game, &pos, refs, distance, &mut scratch) {
                    Err(e) => found.value = Some(fail(format!("{e} (slot {i} of tier {name})"))),
                    Ok(d) if d.value != stored.value => {
                        found.value = Some(fail(format!(
                            "stored {}, but its children say {} (slot {i} of tier {name})",
                            stored.value, d.value
                        )))
                    }
                    Ok(d) if plies && d.plies != stored.plies && found.plies.is_none() => {
                        found.plies = Some(Problem {
                            file: Some(crate::tier_files::plies_key(game, own.tier)),
                            ..fail(format!(
                                "stored {} in {} plies, but its children say {} plies (slot {i} of tier {name})",
                                stored.value,
                                stored.plies.map_or("-".into(), |p| p.to_string()),
                                d.plies.map_or("-".into(), |p| p.to_string()),
                            ))
                        })
                    }
                    Ok(_) => {}
                }
            });
            found
        })
        .collect();
    ChunkCheck::first_problem(results)
}

/// What one chunk of a tier's check found: the positions it checked, its
/// first value problem (after which it stops) and its first plies problem.
#[derive(Default)]
struct ChunkCheck {
    checked: u64,
    value: Option<Problem>,
    plies: Option<Problem>,
}

impl ChunkCheck {
    /// The positions a tier's chunks checked, or the tier's first value
    /// problem, else its first plies problem. Values come first because a
    /// packed plies file's counts are read through the table's values
    /// (docs/format.md): one wrong value misreads the counts after it, and
    /// the table, not the plies file, is then what to name.
    fn first_problem(chunks: Vec<ChunkCheck>) -> Result<u64, Problem> {
        let mut checked = 0;
        let mut plies = None;
        for chunk in chunks {
            if let Some(problem) = chunk.value {
                return Err(problem);
            }
            plies = plies.or(chunk.plies);
            checked += chunk.checked;
        }
        plies.map_or(Ok(checked), Err)
    }
}
