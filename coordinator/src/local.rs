//! The local solve: an embedded coordinator with in-process workers, which
//! call it directly with the protocol's plain types (no protobuf, no network).

use crate::error::CoordinatorError;
use crate::plan::TierPlan;
use crate::run::{Refusal, RunOptions, RunState};
use foxbase_core::tier::TierGame;
use foxbase_tables::manifest::Manifest;
use foxbase_worker::job::TierReport;
use foxbase_worker::kernel::{Kernel, Output, SolveTier};
use foxbase_worker::lease_loop::{run_lease_loop, WorkerOptions};
use foxbase_worker::protocol::{Accepted, Completion, LeaseAnswer, Link, LinkError, Registration};
use foxbase_worker::store::{clear_incoming, DirStore, Store};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
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
}

impl Default for LocalOptions {
    /// One worker of one thread, the default kernel.
    fn default() -> LocalOptions {
        LocalOptions { workers: 1, threads_per_worker: 1, kernel: Kernel::default(), output: Output::Values }
    }
}

/// Progress events, for a bar or log lines.
pub trait Progress: Sync {
    fn planned(&self, tiers: usize, slots: u64);
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
    let run_options = RunOptions {
        lease: Duration::from_secs(3600),
        retry_after: Duration::from_millis(2),
        plies: options.output.plies(),
    };
    let state = RunState::new(game, plan, store, None, Vec::new(), run_options)?;
    let link = LocalLink { state: Mutex::new(state), progress, slots_done: Mutex::new(0) };
    let stop = AtomicBool::new(false);
    let worker_options = WorkerOptions {
        name: "local".into(),
        threads: options.threads_per_worker,
        kernel: options.kernel,
        cache: cache.to_path_buf(),
        give_up_after: Duration::from_secs(1),
        hold_before_solving: Duration::ZERO,
        refusal_is_fatal: true,
        sync_each_table: false,
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
        return Err(e.into());
    }
    let state = link.state.into_inner().unwrap();
    if !state.is_finished() {
        return Err(CoordinatorError::Unfinished);
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
        let mut state = self.state.lock().unwrap();
        let accepted = state.complete(completion, Instant::now()).map_err(link_error)?;
        if !accepted.duplicate {
            let mut slots_done = self.slots_done.lock().unwrap();
            *slots_done += completion.report.stats.slots;
            self.progress.tier_done(&completion.report, state.tiers_done(), *slots_done);
        }
        Ok(accepted)
    }
}
