//! The local solve: an embedded coordinator with in-process workers, which
//! call it directly with the protocol's plain types (no protobuf, no network).
//!
//! [`solve_local_journaled`] is the resumable one (`foxbase solve --out
//! DIR`, `--resume`): it keeps the coordinator's journal in
//! `DIR/journal.log` ([`LOCAL_JOURNAL`]), journals finished tiers only
//! once their files are durable, and a later run started with `resume`
//! solves only the tiers the journal does not hold. [`solve_local`] and
//! [`solve_local_into`] keep no journal: a solve that stops is started
//! again, so they sync the tables once at the end.

use crate::dir_lock::DirLock;
use crate::error::CoordinatorError;
use crate::journal::Journal;
use crate::plan::TierPlan;
use crate::reuse::TableSource;
use crate::run::{Refusal, RunOptions, RunState};
use foxbase_core::tier::TierGame;
use foxbase_tables::checksums::{write_sums, SUMS_FILE};
use foxbase_tables::durable::sync_filesystem;
use foxbase_tables::index::INDEX_FILE;
use foxbase_tables::manifest::{Manifest, TierEntry, MANIFEST_FILE};
use foxbase_tables::plies::Distance;
use foxbase_tables::publish::{Levels, Publishable};
use foxbase_tables::retire;
use foxbase_tables::verify::OnTier;
use foxbase_tables::Layout;
use foxbase_worker::job::TierReport;
use foxbase_worker::kernel::{Kernel, Output, SolveTier};
use foxbase_worker::lease_loop::{run_lease_loop, WorkerOptions};
use foxbase_worker::protocol::{Accepted, Completion, LeaseAnswer, Link, LinkError, Registration};
use foxbase_worker::store::{clear_incoming, DirStore, Store, INCOMING};
use foxbase_worker::table_cache::TableCache;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How to run a local solve.
#[derive(Clone, Copy, Debug)]
pub struct LocalOptions {
    /// In-process workers, each solving one tier at a time.
    pub workers: usize,
    /// Kernel threads per worker.
    pub threads_per_worker: usize,
    /// Which kernel solves the tiers for values alone (the tables are the same either way).
    pub kernel: Kernel,
    /// Values alone, or with plies to the end.
    pub output: Output,
    /// Bytes of tables (values) kept in memory for the parents solved after
    /// them, shared by the workers ([`TableCache`]); 0 reads every child
    /// table from its file.
    pub tables_in_memory: u64,
    /// Bytes the tables of a journaled solve may take on disk: each tier is
    /// published in place once every tier that reads it is solved
    /// ([`foxbase_tables::retire`]), a tier is begun only when the bytes
    /// held and its raw size ([`raw_bytes`]) fit, and the finished
    /// directory is the published tablebase. `None`: no budget, the
    /// solved tables are kept.
    pub disk_budget: Option<u64>,
    /// The zstd levels of the tiers published in place under a disk budget:
    /// the finished directory is what `foxbase publish` writes at these
    /// levels. Publishing spends its time compressing, so a long solve may
    /// want lower ones than [`Levels::default`] (docs/results.md, "Open runs").
    pub publish_levels: Levels,
}

/// [`LocalOptions::tables_in_memory`] by default: 1 GiB, which holds about
/// two thirds of the child tables the 20-sheep solve reads (docs/operations.md).
pub const DEFAULT_TABLES_IN_MEMORY: u64 = 1 << 30;

impl Default for LocalOptions {
    /// One worker of one thread, the default kernel, 1 GiB of tables in
    /// memory, no disk budget (publishing levels as `foxbase publish`'s).
    fn default() -> LocalOptions {
        LocalOptions {
            workers: 1,
            threads_per_worker: 1,
            kernel: Kernel::default(),
            output: Output::Values,
            tables_in_memory: DEFAULT_TABLES_IN_MEMORY,
            disk_budget: None,
            publish_levels: Levels::default(),
        }
    }
}

/// Progress events, for a bar or log lines.
pub trait Progress: Sync {
    fn planned(&self, tiers: usize, slots: u64);
    /// A journaled solve resumed with `tiers_done` tiers of `slots_done`
    /// slots finished before it started (called after [`Progress::planned`]).
    fn resumed(&self, _tiers_done: usize, _slots_done: u64) {}
    /// Tiers taken from other solves ([`crate::reuse`]): called as they are
    /// copied (`tiers` and `slots` so far), then once with `finished`
    /// (after [`Progress::resumed`], before any tier is solved).
    fn imported(&self, _tiers: usize, _slots: u64, _finished: bool) {}
    /// A tier is finished; the counts include the tiers finished before a resume.
    fn tier_done(&self, report: &TierReport, tiers_done: usize, slots_done: u64);
}

/// Solves every tier of `plan` into the directory `dir` and returns the
/// manifest (not yet written: [`foxbase_tables::seal::seal`] does that).
/// See [`solve_local_into`].
pub fn solve_local<G: SolveTier>(
    game: &G,
    plan: &TierPlan<G>,
    dir: &Path,
    options: LocalOptions,
    progress: &dyn Progress,
) -> Result<Manifest, CoordinatorError> {
    std::fs::create_dir_all(dir.join("tiers"))
        .map_err(|source| CoordinatorError::Io { path: dir.display().to_string(), source })?;
    let _lock = DirLock::take(dir)?;
    solve_local_into(game, plan, &DirStore::synced_at_end(dir), dir, options, progress)
}

/// Solves every tier of `plan` into `store` and returns the manifest (not
/// yet written: [`foxbase_tables::seal::seal_at`] does that). `cache` is a
/// local directory for child tables fetched from a remote store and tables
/// before their upload (unused for a directory store). The embedded
/// coordinator is [`RunState`], the workers run [`run_lease_loop`] on
/// threads of this process, calling it directly: the same code as
/// `foxbase coordinator` and `foxbase worker`, without gRPC.
pub fn solve_local_into<G: SolveTier>(
    game: &G,
    plan: &TierPlan<G>,
    store: &dyn Store,
    cache: &Path,
    options: LocalOptions,
    progress: &dyn Progress,
) -> Result<Manifest, CoordinatorError> {
    progress.planned(plan.order.len(), plan.total_slots());
    // No journal: a local solve that stops is started again, so its tables
    // are synced once at the end (a directory store made with
    // `DirStore::synced_at_end`), before the manifest that makes them a
    // tablebase, instead of one by one.
    let state = RunState::new(game, plan, store, None, Vec::new(), run_options(options))?;
    run_workers(game, store, cache, options, state, None, None, progress)
}

/// The journal of a resumable local solve, in its output directory: the
/// name the coordinator gives its journal in a directory store.
pub const LOCAL_JOURNAL: &str = "journal.log";

/// What [`solve_local_journaled`] did.
#[derive(Debug)]
pub struct LocalSolve {
    /// The manifest of the finished run (not yet written).
    pub manifest: Manifest,
    /// Tiers finished before this run started (from the journal).
    pub resumed: usize,
    /// Their slots.
    pub resumed_slots: u64,
    /// Tiers taken from other solves by this run (`sources`), and their slots.
    pub imported: usize,
    pub imported_slots: u64,
    /// The directory's `manifest.json`, when the journaled run had finished
    /// and its manifest was written with these same tiers: nothing was
    /// solved and nothing is left to write (but a start value it lacks).
    pub sealed: Option<Manifest>,
    /// Under a disk budget (the tiers published in place): once sealed,
    /// [`finish_published`] makes the directory the published tablebase.
    pub published_in_place: bool,
    /// Under a disk budget: the most bytes of tables the directory held
    /// during this run (each tier's files as they were written: solved,
    /// then published); `None` for a run that found the solve finished.
    pub disk_high_water: Option<u64>,
    /// The directory's lock ([`DirLock`]): no other solve writes there
    /// while this is held, through the sealing and [`finish_published`].
    pub lock: DirLock,
}

/// Solves every tier of `plan` into the directory `dir`, journaled so
/// that a run that stops (killed, a crash, a reboot) can be resumed, and
/// returns the manifest (not yet written).
///
/// The journal is `dir/journal.log` ([`LOCAL_JOURNAL`], in the
/// coordinator's format, [`crate::journal`]); its first line records the
/// game, the variant, the plan (its root tier and number of tiers) and
/// whether plies are computed. Finished tiers are journaled in checkpoints,
/// at most one every [`CHECKPOINT_EVERY`] (the first tier at once, the last
/// ones at the end): the directory's filesystem is synced (`syncfs`: every
/// table and plies file written and renamed into `tiers/` so far is on
/// disk), then the tiers finished since the last checkpoint are appended
/// and the journal fsync'd. A journaled tier is durable; a solve killed
/// between two checkpoints solves again at most the tiers of the last
/// [`CHECKPOINT_EVERY`] per worker. (An fsync for each file, rename and
/// journal line instead, five a tier, cost about 11 ms a tier on this
/// machine's disk: seconds on the Fox Game's solves of a thousand small
/// tiers.)
///
/// Without `resume`, a directory holding a journal or tables
/// (`manifest.json`, `tiers.idx`, files in `tiers/` or `incoming/`) is
/// refused and left as it is. With `resume`, the journal's tiers are
/// checked as `foxbase coordinator --resume` checks them (each journaled
/// file is in `tiers/` with its journaled length) and not solved again; a
/// torn last line is dropped (that tier is solved again); a journal of
/// another game, variant, plan or output is refused naming the difference.
/// A directory with no journal and no tables is a new run either way.
///
/// Under a disk budget ([`LocalOptions::disk_budget`]) each tier is
/// published in place ([`foxbase_tables::retire`]) once every tier that
/// reads it is journaled, its published entry journaled as the tier's
/// second line; a tier is begun only when the bytes held and its
/// [`raw_bytes`] fit the budget. A journal with published tiers is
/// resumed only under a budget. Once sealed, [`finish_published`] makes
/// the directory the published tablebase and removes the journal; such a
/// directory resumed is a finished solve.
///
/// The tiers not journaled that a source of `sources` holds are taken from
/// it ([`crate::reuse::import`]) and journaled before any tier is solved.
pub fn solve_local_journaled<G: SolveTier + Publishable>(
    game: &G,
    plan: &TierPlan<G>,
    dir: &Path,
    options: LocalOptions,
    resume: bool,
    sources: &[TableSource],
    progress: &dyn Progress,
) -> Result<LocalSolve, CoordinatorError> {
    // Taken before the directory is read (it is created below when new).
    let lock = if dir.exists() { Some(DirLock::take(dir)?) } else { None };
    let journal_path = dir.join(LOCAL_JOURNAL);
    let journaled = journal_path.exists();
    if journaled && !resume {
        return Err(CoordinatorError::Output(format!(
            "{}: holds the journal of a solve ({}); pass --resume to continue it (only the tiers it has not \
             finished are solved), or choose another --out; nothing was changed",
            dir.display(),
            journal_path.display()
        )));
    }
    if !journaled && resume {
        if let Some(manifest) = published_in_place(game, plan, dir) {
            return Ok(LocalSolve {
                resumed: manifest.tiers.len(),
                resumed_slots: manifest.total_slots(),
                imported: 0,
                imported_slots: 0,
                sealed: Some(manifest.clone()),
                manifest,
                published_in_place: true,
                disk_high_water: None,
                // The manifest was read, so the directory exists and is locked.
                lock: lock.expect("a directory with a manifest is locked"),
            });
        }
    }
    let found = tables_in(dir);
    if !journaled && !found.is_empty() {
        return Err(CoordinatorError::Output(format!(
            "{}: holds tables ({}) and no journal ({LOCAL_JOURNAL}), {}; choose another --out (or remove them); \
             nothing was changed",
            dir.display(),
            found.join(", "),
            if resume { "so there is nothing to resume" } else { "which a solve does not overwrite" }
        )));
    }
    // tiers/ before the journal: creating the journal fsyncs `dir`.
    std::fs::create_dir_all(dir.join("tiers"))
        .map_err(|source| CoordinatorError::Io { path: dir.display().to_string(), source })?;
    let lock = match lock {
        Some(lock) => lock,
        None => DirLock::take(dir)?,
    };
    let (game_name, run) = (game.game_name(), journal_run(game, plan, options.output));
    let (mut journal, mut finished) = if journaled {
        check_journal_run(dir, &journal_path, game_name, &run)?;
        Journal::resume(&journal_path, game_name, &run)?
    } else {
        (Journal::create(&journal_path, game_name, &run)?, Vec::new())
    };
    // A tier's second line is its published form (a solve under a disk budget).
    let published = take_published(&mut finished);
    if !published.is_empty() && options.disk_budget.is_none() {
        return Err(CoordinatorError::Output(format!(
            "{}: this solve was started with --disk-budget and has published {} tiers in place; resume it with \
             --disk-budget; nothing was changed",
            dir.display(),
            published.len()
        )));
    }
    for entry in published.values() {
        // Journaled as published: moved over the solved files, if a stopped run had not.
        retire::install(dir, entry)?;
    }
    retire::clear_unjournaled(dir, &HashSet::new())?;
    progress.planned(plan.order.len(), plan.total_slots());
    if journaled {
        progress.resumed(finished.len(), finished.iter().map(|e| e.slots).sum());
    }
    let imported = if sources.is_empty() {
        Vec::new()
    } else {
        let distance = options.output.distance();
        let imported =
            crate::reuse::import(game, plan, sources, dir, &finished, distance, &|n, s| progress.imported(n, s, false));
        let imported = match imported {
            Ok(imported) => imported,
            Err(e) => {
                if !journaled {
                    // A new run that took nothing leaves nothing behind (the copies are removed already).
                    drop(journal);
                    let _ = std::fs::remove_file(&journal_path);
                    let _ = std::fs::remove_dir(dir.join("tiers"));
                }
                return Err(e);
            }
        };
        if !imported.is_empty() {
            // The copies are durable before the journal says they are there.
            sync_filesystem(dir).map_err(|source| CoordinatorError::Io { path: dir.display().to_string(), source })?;
            journal.append_all(&imported)?;
        }
        progress.imported(imported.len(), imported.iter().map(|e| e.slots).sum(), true);
        imported
    };
    let (imported_slots, imported_tiers) = (imported.iter().map(|e| e.slots).sum::<u64>(), imported.len());
    finished.extend(imported);
    // Renames and tables are synced by the checkpoints' `syncfs`.
    let store = DirStore::synced_at_end(dir);
    let state = RunState::new(game, plan, &store, None, finished, run_options(options))?;
    let resumed = state.resumed() - imported_tiers;
    let resumed_slots = state.status(Instant::now(), None).slots_done - imported_slots;
    let checkpoints = Checkpoints { journal: Mutex::new((journal, None)), pending: Mutex::new(Vec::new()) };
    let publisher = match options.disk_budget {
        Some(limit) => {
            let publisher = Publisher::new(game, plan, dir, limit, &options, &state, published);
            // Tiers no tier left to solve reads, finished before a stop but not yet published.
            let entry_of = |name: &str| state.finished_entry(name).cloned();
            for tier in publisher.unread_unpublished(&state) {
                publisher.publish(tier, &entry_of, &checkpoints).map_err(CoordinatorError::Publish)?;
            }
            Some(publisher)
        }
        None => None,
    };
    let in_place = |manifest: Manifest| match &publisher {
        Some(p) => p.published_manifest(manifest),
        None => Ok(manifest),
    };
    let high_water = publisher.as_ref().map(|p| p.high_water());
    if state.is_finished() {
        let manifest = in_place(state.manifest())?;
        if let Ok(written) = Manifest::read(dir) {
            let same = written.game == manifest.game && written.variant == manifest.variant;
            if same && written.tiers == manifest.tiers {
                return Ok(LocalSolve {
                    manifest,
                    resumed,
                    resumed_slots,
                    imported: imported_tiers,
                    imported_slots,
                    sealed: Some(written),
                    published_in_place: publisher.is_some(),
                    disk_high_water: high_water,
                    lock,
                });
            }
        }
    }
    let manifest = run_workers(game, &store, dir, options, state, Some(&checkpoints), publisher.as_ref(), progress)?;
    Ok(LocalSolve {
        manifest: in_place(manifest)?,
        resumed,
        resumed_slots,
        imported: imported_tiers,
        imported_slots,
        sealed: None,
        published_in_place: publisher.is_some(),
        disk_high_water: publisher.as_ref().map(|p| p.high_water()),
        lock,
    })
}

/// The tiers of a journal's entries, each once, in the order they first
/// finished; a tier's second line (its published form, written by a solve
/// under a disk budget) replaces its first and is also returned by name.
fn take_published(entries: &mut Vec<TierEntry>) -> HashMap<String, TierEntry> {
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut published = HashMap::new();
    let mut kept = Vec::with_capacity(entries.len());
    for entry in entries.drain(..) {
        match at.get(&entry.name) {
            Some(&i) => {
                published.insert(entry.name.clone(), entry.clone());
                kept[i] = entry;
            }
            None => {
                at.insert(entry.name.clone(), kept.len());
                kept.push(entry);
            }
        }
    }
    *entries = kept;
    published
}

/// A solve published in place and finished, its journal removed (the last
/// steps of [`finish_published`]): `dir`'s manifest, when it is of this
/// game, variant and plan, in the published layout or with its checksum list.
fn published_in_place<G: TierGame>(game: &G, plan: &TierPlan<G>, dir: &Path) -> Option<Manifest> {
    let manifest = Manifest::read(dir).ok()?;
    let published = manifest.layout != Layout::Solved || dir.join(SUMS_FILE).exists();
    let same = manifest.game == game.game_name() && manifest.variant == game.variant_json();
    (published && same && manifest.tiers.len() == plan.order.len()).then_some(manifest)
}

/// The last steps of a solve published in place ([`LocalSolve::disk_high_water`]),
/// once its `manifest` is sealed in `dir`: every file checked as `foxbase
/// verify` checks it, `retiring/`, `incoming/` and the journal removed, and
/// the checksum list written last: `dir` is then the published tablebase,
/// as `foxbase publish` writes it. Once that list exists (a finished run
/// wrote it) there is nothing left to do, and nothing is read again.
/// `on_tier` hears the count of tiers whose files passed, from zero.
pub fn finish_published<G: TierGame>(
    game: &G,
    dir: &Path,
    manifest: &Manifest,
    on_tier: OnTier,
) -> Result<(), CoordinatorError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| CoordinatorError::Io { path, source }
    };
    stop_point("sealed");
    if dir.join(SUMS_FILE).exists() {
        // Written last: every step below was done by the run that wrote it.
        return Ok(());
    }
    retire::check_finished(game, dir, manifest, on_tier)?;
    let incoming = dir.join(INCOMING);
    if incoming.exists() {
        std::fs::remove_dir_all(&incoming).map_err(io(&incoming))?;
    }
    let journal = dir.join(LOCAL_JOURNAL);
    if journal.exists() {
        std::fs::remove_file(&journal).map_err(io(&journal))?;
        foxbase_tables::durable::sync_dir(dir).map_err(io(dir))?;
        stop_point("journal-removed");
    }
    write_sums(dir).map_err(|p| foxbase_tables::Error::PublishedCheck(Box::new(p)))?;
    Ok(())
}

/// The most bytes a tier's files can take before they are written: 2 bits
/// a slot and, with plies, 2 bytes a slot, and 1/64 more with 4 KiB for
/// the files' framing (a compressed block can come out slightly larger
/// than its raw bytes).
pub fn raw_bytes(slots: u64, plies: bool) -> u64 {
    let raw = slots.div_ceil(4) + if plies { 2 * slots } else { 0 };
    raw + raw / 64 + (4 << 10)
}

/// The bytes of a tier's files as an entry records them.
fn entry_bytes(entry: &TierEntry) -> u64 {
    entry.bytes + entry.plies.as_ref().map_or(0, |p| p.bytes)
}

/// A journaled solve within a disk budget ([`LocalOptions::disk_budget`]):
/// which finished tiers are still read, what the directory holds, and
/// the publishing of tiers in place ([`foxbase_tables::retire`]).
struct Publisher<'g, G: TierGame> {
    game: &'g G,
    plan: &'g TierPlan<G>,
    dir: &'g Path,
    limit: u64,
    plies: bool,
    /// The zstd levels of the published files ([`LocalOptions::publish_levels`]).
    levels: Levels,
    /// The game's published layout, and its steps 1 and 2 of publishing a tier.
    layout: Layout,
    steps: Steps<G>,
    books: Mutex<Books<G::Tier>>,
    /// Held while a tier is published: one at a time, so that no tier's
    /// files are read while they are replaced.
    turn: Mutex<()>,
}

/// [`retire::write`] and [`retire::check`] of a game (a [`Publishable`]
/// one: the bound stays here, not on every function a [`Publisher`] passes through).
struct Steps<G> {
    write: fn(&G, &Path, &TierEntry, Levels) -> Result<TierEntry, foxbase_tables::Error>,
    check: CheckStep<G>,
}

/// [`retire::check`]: the game, the directory, the solved entry, the published one, the children's.
type CheckStep<G> = fn(&G, &Path, &TierEntry, &TierEntry, &[TierEntry]) -> Result<(), foxbase_tables::Error>;

/// A test's stop point: with `FOXBASE_TEST_STOP_AT=STEP:N` in the
/// environment the process aborts, as a kill would stop it, the Nth time
/// it reaches STEP: `written`, `checked`, `journaled` and `installed` (the
/// steps of publishing a tier in place, [`retire`]), `sealed` and
/// `journal-removed` ([`finish_published`]). The tests of resuming a solve
/// under a disk budget stop it so after each step; unset, nothing happens.
fn stop_point(step: &str) {
    static STOP_AT: std::sync::OnceLock<Option<(String, usize)>> = std::sync::OnceLock::new();
    static REACHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let stop_at = STOP_AT.get_or_init(|| {
        let setting = std::env::var("FOXBASE_TEST_STOP_AT").ok()?;
        let (step, n) = setting.rsplit_once(':')?;
        Some((step.to_string(), n.parse().ok()?))
    });
    if let Some((at, n)) = stop_at {
        if at == step && REACHED.fetch_add(1, Ordering::SeqCst) + 1 == *n {
            eprintln!("foxbase: FOXBASE_TEST_STOP_AT={at}:{n}: stopping");
            std::process::abort();
        }
    }
}

/// What a [`Publisher`] keeps count of.
struct Books<T> {
    /// For each tier of the plan, the tiers that read it (its parents) not finished yet.
    readers_left: HashMap<T, usize>,
    /// Bytes of the tier files in the directory now (solved or published,
    /// and published files waiting in `retiring/`), and the most so far.
    held: u64,
    high_water: u64,
    /// For each tier being solved, the bytes set aside for it ([`raw_bytes`]).
    reserved: HashMap<T, u64>,
    /// Completions whose tiers' publishing is not done yet.
    publishing: usize,
    /// Published entries by tier name.
    published: HashMap<String, TierEntry>,
}

impl<T> Books<T> {
    fn hold(&mut self, bytes: u64) {
        self.held += bytes;
        self.high_water = self.high_water.max(self.held);
    }
}

impl<'g, G: TierGame> Publisher<'g, G> {
    /// The books of a run resumed with the finished tiers of `state`, of
    /// which `published` are published.
    fn new(
        game: &'g G,
        plan: &'g TierPlan<G>,
        dir: &'g Path,
        limit: u64,
        options: &LocalOptions,
        state: &RunState<'_, G>,
        published: HashMap<String, TierEntry>,
    ) -> Publisher<'g, G>
    where
        G: Publishable,
    {
        let mut readers_left: HashMap<G::Tier, usize> = plan.order.iter().map(|&t| (t, 0)).collect();
        let mut held = 0;
        for &tier in &plan.order {
            match state.finished_entry(&game.tier_name(tier)) {
                Some(entry) => held += entry_bytes(entry),
                None => {
                    for child in &plan.children[&tier] {
                        *readers_left.get_mut(child).expect("a plan holds its tiers' children") += 1;
                    }
                }
            }
        }
        let books = Books { readers_left, held, high_water: held, reserved: HashMap::new(), publishing: 0, published };
        Publisher {
            game,
            plan,
            dir,
            limit,
            plies: options.output.plies(),
            levels: options.publish_levels,
            layout: G::LAYOUT,
            steps: Steps { write: retire::write::<G>, check: retire::check::<G> },
            books: Mutex::new(books),
            turn: Mutex::new(()),
        }
    }

    /// Finished tiers that no tier left to solve reads and that are not published.
    fn unread_unpublished(&self, state: &RunState<'_, G>) -> Vec<G::Tier> {
        let books = self.books.lock().unwrap();
        let name = |t: G::Tier| self.game.tier_name(t);
        self.plan
            .order
            .iter()
            .copied()
            .filter(|&t| books.readers_left[&t] == 0 && !books.published.contains_key(&name(t)))
            .filter(|&t| state.finished_entry(&name(t)).is_some())
            .collect()
    }

    /// Whether `tier` may be begun now: the bytes held, those set aside for
    /// the tiers being solved and its own [`raw_bytes`] fit the budget (then
    /// they are set aside for it). When they do not and nothing is being
    /// solved or published (which would free or settle bytes), the budget
    /// is too small for this solve: an error saying so.
    fn admit(&self, tier: G::Tier) -> Result<bool, String> {
        let mut books = self.books.lock().unwrap();
        let need = raw_bytes(self.plan.slots[&tier], self.plies);
        let reserved: u64 = books.reserved.values().sum();
        if books.held + reserved + need <= self.limit {
            books.reserved.insert(tier, need);
            return Ok(true);
        }
        if reserved > 0 || books.publishing > 0 {
            return Ok(false);
        }
        Err(format!(
            "--disk-budget {}: the tables in {} take {} bytes and tier {} may need {need} more ({} positions \
             unpacked), over the budget; resume with a larger --disk-budget (nothing is lost)",
            self.limit,
            self.dir.display(),
            books.held,
            self.game.tier_name(tier),
            self.plan.slots[&tier]
        ))
    }

    /// Books `tier` finished with `entry` and returns the tiers that no
    /// tier left to solve reads now (its children whose last reader it was,
    /// and itself when nothing reads it), for [`Publisher::publish`];
    /// [`Publisher::done_publishing`] must follow.
    fn finished(&self, tier: G::Tier, entry: &TierEntry) -> Vec<G::Tier> {
        let mut books = self.books.lock().unwrap();
        books.reserved.remove(&tier);
        books.hold(entry_bytes(entry));
        books.publishing += 1;
        let mut unread = Vec::new();
        for child in &self.plan.children[&tier] {
            let left = books.readers_left.get_mut(child).expect("a plan holds its tiers' children");
            *left -= 1;
            if *left == 0 {
                unread.push(*child);
            }
        }
        if books.readers_left[&tier] == 0 {
            unread.push(tier);
        }
        unread
    }

    fn done_publishing(&self) {
        self.books.lock().unwrap().publishing -= 1;
    }

    /// Publishes the finished `tier` in place: steps 1 and 2 of
    /// [`foxbase_tables::retire`], its published entry journaled, then its
    /// files installed. `entry_of` gives a finished tier's entry by name.
    fn publish(
        &self,
        tier: G::Tier,
        entry_of: &dyn Fn(&str) -> Option<TierEntry>,
        checkpoints: &Checkpoints,
    ) -> Result<(), String> {
        let _turn = self.turn.lock().unwrap();
        let name = self.game.tier_name(tier);
        let entry_named = |n: &str| entry_of(n).ok_or_else(|| format!("tier {n} is not finished"));
        let entry = entry_named(&name)?;
        let children = self.plan.children[&tier]
            .iter()
            .map(|&c| entry_named(&self.game.tier_name(c)))
            .collect::<Result<Vec<_>, _>>()?;
        let fail = |e: &dyn std::fmt::Display| format!("publishing tier {name} in place: {e}");
        let published = (self.steps.write)(self.game, self.dir, &entry, self.levels).map_err(|e| fail(&e))?;
        self.books.lock().unwrap().hold(entry_bytes(&published));
        stop_point("written");
        (self.steps.check)(self.game, self.dir, &entry, &published, &children).map_err(|e| fail(&e))?;
        stop_point("checked");
        checkpoints.journal.lock().unwrap().0.append(&published).map_err(|e| fail(&e))?;
        stop_point("journaled");
        retire::install(self.dir, &published).map_err(|e| fail(&e))?;
        stop_point("installed");
        let mut books = self.books.lock().unwrap();
        books.held -= entry_bytes(&entry);
        books.published.insert(name, published);
        Ok(())
    }

    /// `manifest` (every tier finished) with each tier's published entry,
    /// in the game's published layout.
    fn published_manifest(&self, mut manifest: Manifest) -> Result<Manifest, CoordinatorError> {
        let books = self.books.lock().unwrap();
        for entry in &mut manifest.tiers {
            *entry = books.published.get(&entry.name).cloned().ok_or_else(|| {
                CoordinatorError::Publish(format!("tier {} was solved but not published in place", entry.name))
            })?;
        }
        manifest.layout = self.layout;
        Ok(manifest)
    }

    fn high_water(&self) -> u64 {
        self.books.lock().unwrap().high_water
    }
}

/// The run a local solve journals after the game's name (its journal's
/// first line): the variant, the plan (its root, the last tier solved, and
/// its number of tiers) and whether plies are computed, as one JSON object
/// in this field order.
#[derive(serde::Serialize, serde::Deserialize)]
struct JournalRun<'a> {
    /// The game's `variant_json`, as written.
    #[serde(borrow)]
    variant: &'a serde_json::value::RawValue,
    root: String,
    tiers: usize,
    plies: bool,
    /// What the plies count (absent: to the end, as in journals written before DTZ existed).
    #[serde(default, skip_serializing_if = "Distance::is_dtm")]
    distance: Distance,
}

impl JournalRun<'_> {
    /// The plan, in words: `N tiers, root tier R`.
    fn plan(&self) -> String {
        format!("{} tiers, root tier {}", self.tiers, if self.root.is_empty() { "none" } else { &self.root })
    }

    /// The output, in words.
    fn output(&self) -> &'static str {
        match (self.plies, self.distance) {
            (false, _) => "values only, --distance none",
            (true, Distance::Dtm) => "values and plies to the end, --distance dtm",
            (true, Distance::Dtz) => "values and plies to zeroing, --distance dtz",
        }
    }
}

/// The [`JournalRun`] of this solve, as its journal's first line holds it.
fn journal_run<G: TierGame>(game: &G, plan: &TierPlan<G>, output: Output) -> String {
    let variant = game.variant_json();
    let run = JournalRun {
        variant: serde_json::from_str(&variant).expect("a game's variant_json is JSON"),
        root: plan.order.last().map(|&t| game.tier_name(t)).unwrap_or_default(),
        tiers: plan.order.len(),
        plies: output.plies(),
        distance: output.distance().unwrap_or_default(),
    };
    serde_json::to_string(&run).expect("a journal run serialises")
}

/// What of a tablebase `dir` holds (`manifest.json`, `tiers.idx`, `tiers/`
/// or `incoming/` when not empty): the names found, for a refusal.
pub fn tables_in(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for file in [MANIFEST_FILE, INDEX_FILE] {
        if dir.join(file).exists() {
            found.push(file.to_string());
        }
    }
    for folder in ["tiers", INCOMING] {
        if std::fs::read_dir(dir.join(folder)).is_ok_and(|mut entries| entries.next().is_some()) {
            found.push(format!("{folder}/"));
        }
    }
    found
}

/// Refuses to resume a journal whose first line is not this run's, naming
/// what differs (game, variant, plan, plies), before the journal is opened
/// for appending.
fn check_journal_run(dir: &Path, path: &Path, game: &str, run: &str) -> Result<(), CoordinatorError> {
    use std::io::BufRead;
    let io = |source| CoordinatorError::Io { path: path.display().to_string(), source };
    let mut first = String::new();
    std::io::BufReader::new(std::fs::File::open(path).map_err(io)?).read_line(&mut first).map_err(io)?;
    let first = first.trim_end_matches('\n');
    let expected = format!("{} {game} {run}", crate::journal::MAGIC);
    if first == expected {
        return Ok(());
    }
    let this: JournalRun = serde_json::from_str(run).expect("this solve's run parses");
    let mut differences = Vec::new();
    match first.strip_prefix(crate::journal::MAGIC).and_then(|r| r.strip_prefix(' ')).and_then(|r| r.split_once(' ')) {
        None => differences.push(format!("its first line is not a journal's: '{first}'")),
        Some((found_game, _)) if found_game != game => {
            differences.push(format!("it is a solve of the game {found_game}, this one of {game}"))
        }
        Some((_, found_run)) => match serde_json::from_str::<JournalRun>(found_run) {
            Ok(found) => {
                if found.variant.get() != this.variant.get() {
                    differences.push(format!("variant {} (this solve: {})", found.variant.get(), this.variant.get()));
                } else if found.root != this.root || found.tiers != this.tiers {
                    differences.push(format!("plan: {} (this solve: {})", found.plan(), this.plan()));
                }
                if found.plies != this.plies || (this.plies && found.distance != this.distance) {
                    differences.push(format!("output: {} (this solve: {})", found.output(), this.output()));
                }
                if differences.is_empty() {
                    differences.push(format!("'{found_run}' (this solve: '{run}')"));
                }
            }
            Err(_) => differences.push(format!(
                "it is not a local solve's journal (a coordinator's?): '{found_run}' (this solve: '{run}')"
            )),
        },
    }
    Err(CoordinatorError::Output(format!(
        "{}: its journal {} is of another solve: {}; resume it with the flags it was started with, or choose \
         another --out; nothing was changed",
        dir.display(),
        path.display(),
        differences.join("; ")
    )))
}

/// The settings of an embedded coordinator's run.
fn run_options(options: LocalOptions) -> RunOptions {
    RunOptions {
        lease: Duration::from_secs(3600),
        retry_after: Duration::from_millis(2),
        distance: options.output.distance(),
    }
}

/// How often, at most, a journaled local solve syncs its directory and
/// journals the tiers finished since the last time.
pub const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// The journal of a resumable local solve and the finished tiers waiting
/// for its next checkpoint (see [`solve_local_journaled`]).
struct Checkpoints {
    /// The journal and when it was last written.
    journal: Mutex<(Journal, Option<Instant>)>,
    /// Finished tiers not journaled yet, in the order they finished.
    pending: Mutex<Vec<TierEntry>>,
}

impl Checkpoints {
    /// Journals the pending tiers once the filesystem is synced, if the last
    /// checkpoint is [`CHECKPOINT_EVERY`] old (or there was none), or always
    /// with `now`. Checkpoints take turns; each journals what finished
    /// before it began, so the journal keeps the order tiers finished in
    /// (children before parents).
    fn checkpoint(&self, store: &dyn Store, now: bool) -> Result<(), CoordinatorError> {
        let mut journal = self.journal.lock().unwrap();
        if !now && journal.1.is_some_and(|last| last.elapsed() < CHECKPOINT_EVERY) {
            return Ok(());
        }
        let entries = std::mem::take(&mut *self.pending.lock().unwrap());
        if entries.is_empty() {
            return Ok(());
        }
        store.sync_all().map_err(|source| CoordinatorError::Io { path: store.describe(), source })?;
        journal.0.append_all(&entries)?;
        journal.1 = Some(Instant::now());
        Ok(())
    }
}

/// Runs the in-process workers on `state` until every tier is done. With
/// `checkpoints` (a journaled run) finished tiers are journaled in
/// checkpoints; the store is synced at the end either way.
#[allow(clippy::too_many_arguments)]
fn run_workers<G: SolveTier>(
    game: &G,
    store: &dyn Store,
    cache: &Path,
    options: LocalOptions,
    state: RunState<'_, G>,
    checkpoints: Option<&Checkpoints>,
    publisher: Option<&Publisher<'_, G>>,
    progress: &dyn Progress,
) -> Result<Manifest, CoordinatorError> {
    let slots_done = state.status(Instant::now(), None).slots_done;
    let link = LocalLink {
        state: Mutex::new(state),
        progress,
        slots_done: Mutex::new(slots_done),
        store,
        checkpoints,
        publisher,
    };
    let stop = AtomicBool::new(false);
    let worker_options = WorkerOptions {
        name: "local".into(),
        threads: options.threads_per_worker,
        kernel: options.kernel,
        cache: cache.to_path_buf(),
        cache_max: None,
        retries: Default::default(),
        give_up_after: Duration::from_secs(1),
        hold_before_solving: Duration::ZERO,
        hold_until_lost: false,
        refusal_is_fatal: true,
        // Synced once at the end, or by the checkpoints' `syncfs`.
        sync_each_table: false,
        tables_in_memory: (options.tables_in_memory > 0).then(|| Arc::new(TableCache::new(options.tables_in_memory))),
    };
    let errors: Vec<foxbase_worker::WorkerError> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..options.workers.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let result = run_lease_loop(game, &link, store, &worker_options, None, &stop, &|_| {});
                    if result.is_err() {
                        // One failure ends the solve: the others stop at their next lease.
                        stop.store(true, Ordering::Relaxed);
                    }
                    result
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().expect("a worker thread panicked").err()).collect()
    });
    if let Some(e) = errors.into_iter().next() {
        if let Some(c) = checkpoints {
            // What finished before the failure is kept for a resume (unless the journal is what failed).
            let _ = c.checkpoint(store, true);
        }
        return Err(e.into());
    }
    let state = link.state.into_inner().unwrap();
    if !state.is_finished() {
        return Err(CoordinatorError::Unfinished);
    }
    if let Some(c) = checkpoints {
        c.checkpoint(store, true)?;
    }
    let io = |source| CoordinatorError::Io { path: store.describe(), source };
    clear_incoming(store).map_err(io)?;
    store.sync_all().map_err(io)?;
    Ok(state.manifest())
}

/// The protocol's calls made directly on the embedded coordinator.
struct LocalLink<'a, 'g, 'p, G: TierGame> {
    state: Mutex<RunState<'g, G>>,
    progress: &'a dyn Progress,
    slots_done: Mutex<u64>,
    store: &'a dyn Store,
    checkpoints: Option<&'a Checkpoints>,
    publisher: Option<&'a Publisher<'p, G>>,
}

fn link_error(r: Refusal) -> LinkError {
    match r {
        Refusal::UnknownWorker(m) => LinkError::UnknownWorker(m),
        Refusal::Invalid(m) | Refusal::Conflict(m) | Refusal::Internal(m) => LinkError::Refused(m),
    }
}

impl<G: TierGame> Link for LocalLink<'_, '_, '_, G> {
    fn register(&self, worker_name: &str, threads: u32) -> Result<Registration, LinkError> {
        Ok(self.state.lock().unwrap().register(worker_name, threads, Instant::now()))
    }

    fn lease(&self, worker_id: &str) -> Result<LeaseAnswer, LinkError> {
        let mut state = self.state.lock().unwrap();
        if let (Some(publisher), Some(next)) = (self.publisher, state.next_ready()) {
            if !publisher.admit(next).map_err(LinkError::Refused)? {
                // Tiers being solved or published will settle what the directory holds.
                return Ok(LeaseAnswer::Wait(Duration::from_millis(50)));
            }
        }
        state.lease(worker_id, Instant::now()).map_err(link_error)
    }

    fn heartbeat(&self, worker_id: &str, lease_id: u64) -> Result<bool, LinkError> {
        self.state.lock().unwrap().heartbeat(worker_id, lease_id, Instant::now()).map_err(link_error)
    }

    fn release(&self, worker_id: &str, lease_id: u64) -> Result<(), LinkError> {
        self.state.lock().unwrap().release(worker_id, lease_id, Instant::now()).map_err(link_error)
    }

    fn complete(&self, completion: &Completion) -> Result<Accepted, LinkError> {
        let report = &completion.report;
        let mut unread = Vec::new();
        {
            let mut state = self.state.lock().unwrap();
            let accepted = state.complete(completion, Instant::now()).map_err(link_error)?;
            if accepted.duplicate {
                return Ok(accepted);
            }
            let entry = state.finished_entry(&report.tier_name).expect("an accepted tier is finished");
            if let Some(c) = self.checkpoints {
                // Queued under the state's lock: in the order tiers finish.
                c.pending.lock().unwrap().push(entry.clone());
            }
            if let Some(p) = self.publisher {
                let tier = p.game.parse_tier_name(&report.tier_name).expect("an accepted tier is the game's");
                unread = p.finished(tier, entry);
            }
            let mut slots_done = self.slots_done.lock().unwrap();
            *slots_done += report.stats.slots;
            self.progress.tier_done(report, state.tiers_done(), *slots_done);
        }
        if let Some(c) = self.checkpoints {
            // Without the state's lock: the other workers go on meanwhile.
            // Under a disk budget at once: a tier is published only once
            // every tier reading it is journaled (a resume never solves a
            // tier again whose children are published).
            let now = self.publisher.is_some();
            c.checkpoint(self.store, now).map_err(|e| LinkError::Refused(format!("journal: {e}")))?;
        }
        if let (Some(p), Some(c)) = (self.publisher, self.checkpoints) {
            let entry_of = |name: &str| self.state.lock().unwrap().finished_entry(name).cloned();
            let published = unread.into_iter().try_for_each(|tier| p.publish(tier, &entry_of, c));
            p.done_publishing();
            published.map_err(LinkError::Refused)?;
        }
        Ok(Accepted { duplicate: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foxbase_core::foxgame::FoxGame;
    use foxbase_core::notation::parse_position;
    use foxbase_core::{Geometry, Side, Variant};

    /// The first line of a journal a solve wrote before [`JournalRun`] was
    /// typed (the 18-sheep run of docs/results.md, "18 sheep, classic, F = 18, sheep first") is this solve's, byte for byte,
    /// so that it resumes.
    #[test]
    fn the_journal_run_line_keeps_its_bytes() {
        let start = parse_position("F.F/.../......./.SSSSS./SSSSSSS/SSS/SSS s").unwrap();
        let variant = Variant::new(Geometry::Classic, 9, start).unwrap().with_sheep_floor(18, Side::Fox).unwrap();
        let game = FoxGame::new(variant);
        let plan = TierPlan::new(&game);
        assert_eq!(
            journal_run(&game, &plan, Output::Values),
            "{\"variant\":{\"floor_winner\":\"foxes\",\"geometry\":\"classic\",\"pen_target\":9,\"sheep_floor\":18,\
             \"start\":\"F.F/.../......./.SSSSS./SSSSSSS/SSS/SSS s\"},\"root\":\"f2-3.3.7.5.0.0.0\",\"tiers\":21160,\
             \"plies\":false}"
        );
    }
}
