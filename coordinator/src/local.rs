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

use crate::error::CoordinatorError;
use crate::journal::Journal;
use crate::plan::TierPlan;
use crate::reuse::TableSource;
use crate::run::{Refusal, RunOptions, RunState};
use foxbase_core::tier::TierGame;
use foxbase_tables::durable::sync_filesystem;
use foxbase_tables::index::INDEX_FILE;
use foxbase_tables::manifest::{Manifest, TierEntry, MANIFEST_FILE};
use foxbase_tables::plies::Distance;
use foxbase_worker::job::TierReport;
use foxbase_worker::kernel::{Kernel, Output, SolveTier};
use foxbase_worker::lease_loop::{run_lease_loop, WorkerOptions};
use foxbase_worker::protocol::{Accepted, Completion, LeaseAnswer, Link, LinkError, Registration};
use foxbase_worker::store::{clear_incoming, DirStore, Store, INCOMING};
use foxbase_worker::table_cache::TableCache;
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
}

/// [`LocalOptions::tables_in_memory`] by default: 1 GiB, which holds about
/// two thirds of the child tables the 20-sheep solve reads (docs/operations.md).
pub const DEFAULT_TABLES_IN_MEMORY: u64 = 1 << 30;

impl Default for LocalOptions {
    /// One worker of one thread, the default kernel, 1 GiB of tables in memory.
    fn default() -> LocalOptions {
        LocalOptions {
            workers: 1,
            threads_per_worker: 1,
            kernel: Kernel::default(),
            output: Output::Values,
            tables_in_memory: DEFAULT_TABLES_IN_MEMORY,
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
    run_workers(game, store, cache, options, state, None, progress)
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
/// The tiers not journaled that a source of `sources` holds are taken from
/// it ([`crate::reuse::import`]) and journaled before any tier is solved.
pub fn solve_local_journaled<G: SolveTier>(
    game: &G,
    plan: &TierPlan<G>,
    dir: &Path,
    options: LocalOptions,
    resume: bool,
    sources: &[TableSource],
    progress: &dyn Progress,
) -> Result<LocalSolve, CoordinatorError> {
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
    let (game_name, run) = (game.game_name(), journal_run(game, plan, options.output));
    let (mut journal, mut finished) = if journaled {
        check_journal_run(dir, &journal_path, game_name, &run)?;
        Journal::resume(&journal_path, game_name, &run)?
    } else {
        (Journal::create(&journal_path, game_name, &run)?, Vec::new())
    };
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
    if state.is_finished() {
        let manifest = state.manifest();
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
                });
            }
        }
    }
    let checkpoints = Checkpoints { journal: Mutex::new((journal, None)), pending: Mutex::new(Vec::new()) };
    let manifest = run_workers(game, &store, dir, options, state, Some(&checkpoints), progress)?;
    Ok(LocalSolve { manifest, resumed, resumed_slots, imported: imported_tiers, imported_slots, sealed: None })
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
fn run_workers<G: SolveTier>(
    game: &G,
    store: &dyn Store,
    cache: &Path,
    options: LocalOptions,
    state: RunState<'_, G>,
    checkpoints: Option<&Checkpoints>,
    progress: &dyn Progress,
) -> Result<Manifest, CoordinatorError> {
    let slots_done = state.status(Instant::now(), None).slots_done;
    let link = LocalLink { state: Mutex::new(state), progress, slots_done: Mutex::new(slots_done), store, checkpoints };
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
struct LocalLink<'a, 'g, G: TierGame> {
    state: Mutex<RunState<'g, G>>,
    progress: &'a dyn Progress,
    slots_done: Mutex<u64>,
    store: &'a dyn Store,
    checkpoints: Option<&'a Checkpoints>,
}

fn link_error(r: Refusal) -> LinkError {
    match r {
        Refusal::UnknownWorker(m) => LinkError::UnknownWorker(m),
        Refusal::Invalid(m) | Refusal::Conflict(m) | Refusal::Internal(m) => LinkError::Refused(m),
    }
}

impl<G: TierGame> Link for LocalLink<'_, '_, G> {
    fn register(&self, worker_name: &str, threads: u32) -> Result<Registration, LinkError> {
        Ok(self.state.lock().unwrap().register(worker_name, threads, Instant::now()))
    }

    fn lease(&self, worker_id: &str) -> Result<LeaseAnswer, LinkError> {
        self.state.lock().unwrap().lease(worker_id, Instant::now()).map_err(link_error)
    }

    fn heartbeat(&self, worker_id: &str, lease_id: u64) -> Result<bool, LinkError> {
        self.state.lock().unwrap().heartbeat(worker_id, lease_id, Instant::now()).map_err(link_error)
    }

    fn release(&self, worker_id: &str, lease_id: u64) -> Result<(), LinkError> {
        self.state.lock().unwrap().release(worker_id, lease_id, Instant::now()).map_err(link_error)
    }

    fn complete(&self, completion: &Completion) -> Result<Accepted, LinkError> {
        let report = &completion.report;
        {
            let mut state = self.state.lock().unwrap();
            let accepted = state.complete(completion, Instant::now()).map_err(link_error)?;
            if accepted.duplicate {
                return Ok(accepted);
            }
            if let Some(c) = self.checkpoints {
                // Queued under the state's lock: in the order tiers finish.
                let entry = state.finished_entry(&report.tier_name).expect("an accepted tier is finished");
                c.pending.lock().unwrap().push(entry.clone());
            }
            let mut slots_done = self.slots_done.lock().unwrap();
            *slots_done += report.stats.slots;
            self.progress.tier_done(report, state.tiers_done(), *slots_done);
        }
        if let Some(c) = self.checkpoints {
            // Without the state's lock: the other workers go on meanwhile.
            c.checkpoint(self.store, false).map_err(|e| LinkError::Refused(format!("journal: {e}")))?;
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
