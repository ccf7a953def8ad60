//! The worker's loop: lease a tier whose children are done, fetch the child
//! tables, solve, upload, report, repeat until the coordinator says the
//! solve is over. The same loop runs in `foxbase worker` (over the gRPC
//! link of the coordinator crate) and inside `foxbase solve` (calling the
//! embedded coordinator directly); it sees only [`Link`].

use crate::error::WorkerError;
use crate::job::{plies_beside, solve_to_upload_in_pool, TierReport};
use crate::kernel::thread_pool;
use crate::kernel::Output;
use crate::kernel::SolveTier;
use crate::protocol::{Assignment, Completion, LeaseAnswer, Link, LinkError, Registration};
use crate::store::Store;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// Shown in `foxbase status`.
    pub name: String,
    /// Kernel threads.
    pub threads: usize,
    /// Which kernel solves the tiers (the tables are the same either way).
    pub kernel: crate::kernel::Kernel,
    /// Local directory for child tables fetched from a remote store and for
    /// tables before upload. Unused when the store is a local directory.
    pub cache: PathBuf,
    /// Give up when the coordinator has been unreachable this long.
    pub give_up_after: Duration,
    /// Hold each lease this long before solving (tests use it to stop a
    /// worker in the middle of a tier); zero otherwise.
    pub hold_before_solving: Duration,
    /// Stop with an error when a completion is refused, instead of logging
    /// it and leasing the next tier. A remote worker logs (the coordinator
    /// may have restarted or finished the tier elsewhere); in a local solve
    /// a refusal can only be a failure of the disk, so it ends the solve.
    pub refusal_is_fatal: bool,
    /// Fsync each table before reporting it done. A remote worker does
    /// (the coordinator journals the tier); a local solve syncs its
    /// directory's filesystem at each journal checkpoint instead (at most
    /// once a second, before journaling the tiers finished since).
    pub sync_each_table: bool,
}

/// What a worker did.
#[derive(Clone, Debug, Default)]
pub struct WorkerSummary {
    pub tiers: usize,
    pub slots: u64,
    pub duplicates: usize,
    /// True when it stopped because `stop` was set, not because the solve was over.
    pub stopped: bool,
}

/// Calls `f` until it succeeds or fails for good, backing off from 100 ms
/// to 5 s between attempts; [`LinkError::Unavailable`] for longer than
/// `give_up_after` is failure for good.
fn with_retry<T>(
    give_up_after: Duration,
    log: &(dyn Fn(&str) + Sync),
    mut f: impl FnMut() -> Result<T, LinkError>,
) -> Result<T, LinkError> {
    let first_failure = Instant::now();
    let mut wait = Duration::from_millis(100);
    let mut said = false;
    loop {
        match f() {
            Err(LinkError::Unavailable(m)) => {
                if first_failure.elapsed() >= give_up_after {
                    return Err(LinkError::Unavailable(format!("{m} (gave up after {:.0?})", give_up_after)));
                }
                if !said {
                    log(&format!("coordinator unavailable ({m}); retrying"));
                    said = true;
                }
                std::thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            other => return other,
        }
    }
}

/// Registers with the coordinator, retrying while it is unavailable.
pub fn register(
    link: &dyn Link,
    options: &WorkerOptions,
    log: &(dyn Fn(&str) + Sync),
) -> Result<Registration, WorkerError> {
    with_retry(options.give_up_after, log, || link.register(&options.name, options.threads as u32))
        .map_err(|error| WorkerError::Link { call: "register", error })
}

/// The worker's loop. Registers (unless `registered` holds this worker's
/// first registration), then leases and solves tiers until the coordinator
/// says the solve is over or `stop` is set; a tier being solved when `stop`
/// is set is finished and reported first, one not yet started is released.
/// `log` receives one line per event worth telling a person.
pub fn run_lease_loop<G: SolveTier>(
    game: &G,
    link: &dyn Link,
    store: &dyn Store,
    options: &WorkerOptions,
    registered: Option<Registration>,
    stop: &AtomicBool,
    log: &(dyn Fn(&str) + Sync),
) -> Result<WorkerSummary, WorkerError> {
    // One pool for every tier: its threads (and their io_uring rings) are
    // set up once, not per tier (592 tiers of the kernel benchmark paid
    // about 2 ms each for that).
    let pool = thread_pool(options.threads)?;
    let check = |r: Registration| -> Result<Registration, WorkerError> {
        if r.game != game.game_name() || r.variant != game.variant_json() {
            return Err(WorkerError::Protocol(format!(
                "the coordinator solves {} {}, this worker was started for {} {}",
                r.game,
                r.variant,
                game.game_name(),
                game.variant_json()
            )));
        }
        Ok(r)
    };
    let register = || check(register(link, options, log)?);
    let mut me = match registered {
        Some(r) => check(r)?,
        None => register()?,
    };
    let mut summary = WorkerSummary::default();
    loop {
        if stop.load(Ordering::Relaxed) {
            summary.stopped = true;
            return Ok(summary);
        }
        let assignment = match with_retry(options.give_up_after, log, || link.lease(&me.worker_id)) {
            Ok(LeaseAnswer::Assigned(a)) => a,
            Ok(LeaseAnswer::Wait(after)) => {
                std::thread::sleep(after.clamp(Duration::from_millis(1), Duration::from_secs(5)));
                continue;
            }
            Ok(LeaseAnswer::Done) => return Ok(summary),
            Err(LinkError::UnknownWorker(_)) => {
                log("the coordinator restarted; registering again");
                me = register()?;
                continue;
            }
            Err(error) => return Err(WorkerError::Link { call: "lease", error }),
        };
        let Some(report) = work_on(game, link, store, options, &pool, &me, &assignment, stop, log)? else {
            // Stopped before solving: the lease was given back.
            summary.stopped = true;
            return Ok(summary);
        };
        let completion = Completion {
            worker_id: me.worker_id.clone(),
            lease_id: assignment.lease_id,
            upload_key: assignment.upload_key.clone(),
            report: report.clone(),
        };
        let done = match with_retry(options.give_up_after, log, || link.complete(&completion)) {
            Err(LinkError::UnknownWorker(_)) => {
                log("the coordinator restarted; registering again");
                me = register()?;
                // The completion is judged by the upload, not by who sends it.
                let again = Completion { worker_id: me.worker_id.clone(), ..completion.clone() };
                match with_retry(options.give_up_after, log, || link.complete(&again)) {
                    Err(error @ LinkError::UnknownWorker(_)) => {
                        return Err(WorkerError::Link { call: "complete", error })
                    }
                    other => other,
                }
            }
            other => other,
        };
        match done {
            Ok(r) => {
                summary.tiers += 1;
                summary.slots += report.stats.slots;
                summary.duplicates += r.duplicate as usize;
            }
            // A coordinator that restarted without this tier's children
            // journaled, or that finished the tier meanwhile, refuses it:
            // the tier is solved again from its journal, nothing is lost.
            Err(LinkError::Refused(e)) if !options.refusal_is_fatal => {
                log(&format!("completion of {} refused: {e}", assignment.tier))
            }
            Err(error) => return Err(WorkerError::Link { call: "complete", error }),
        }
    }
}

/// Fetches children, solves and uploads one leased tier, beating the lease
/// meanwhile. `None` if `stop` was set before solving began: the lease is
/// released instead.
#[allow(clippy::too_many_arguments)]
fn work_on<G: SolveTier>(
    game: &G,
    link: &dyn Link,
    store: &dyn Store,
    options: &WorkerOptions,
    pool: &rayon::ThreadPool,
    me: &Registration,
    assignment: &Assignment,
    stop: &AtomicBool,
    log: &(dyn Fn(&str) + Sync),
) -> Result<Option<TierReport>, WorkerError> {
    let tier = game.parse_tier_name(&assignment.tier).ok_or_else(|| {
        WorkerError::Protocol(format!("the coordinator leased an unknown tier '{}'", assignment.tier))
    })?;
    let beat_every = Duration::from_secs(me.lease_seconds.max(1) as u64) / 4;
    // Dropping `finished` wakes the heartbeat thread at once.
    let (finished, beats_end) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = beats_end.recv_timeout(beat_every) {
                if let Ok(false) = link.heartbeat(&me.worker_id, assignment.lease_id) {
                    log(&format!("lease of {} lost; finishing it anyway", assignment.tier));
                }
            }
        });
        let result = (|| {
            let mut child_paths = HashMap::new();
            for child in &assignment.children {
                let t = game.parse_tier_name(&child.tier).ok_or_else(|| {
                    WorkerError::Protocol(format!("the coordinator named an unknown child tier '{}'", child.tier))
                })?;
                let path = fetch(store, options, &child.file, child.crc32, child.bytes)?;
                if let Some(plies) = child.plies {
                    // Fetched to the path beside the table, where the job reads it.
                    let key = plies_beside(Path::new(&child.file)).to_string_lossy().into_owned();
                    let at = fetch(store, options, &key, plies.crc32, plies.bytes)?;
                    debug_assert_eq!(at, plies_beside(&path));
                } else if me.distance == Some(foxbase_tables::plies::Distance::Dtm) {
                    return Err(WorkerError::Protocol(format!(
                        "the coordinator sent child tier {} without its plies in a run with plies",
                        child.tier
                    )));
                }
                child_paths.insert(t, path);
            }
            let hold_until = Instant::now() + options.hold_before_solving;
            while Instant::now() < hold_until && !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(20));
            }
            if stop.load(Ordering::Relaxed) {
                if let Err(e) = link.release(&me.worker_id, assignment.lease_id) {
                    log(&format!("release of {}: {e} (the lease will expire instead)", assignment.tier));
                }
                return Ok(None);
            }
            let local_out = store.local_path(&assignment.upload_key);
            let out = local_out.clone().unwrap_or_else(|| options.cache.join(&assignment.upload_key));
            let child_path = |c: G::Tier| child_paths[&c].clone();
            let output = Output::with(me.distance);
            let report = pool.install(|| {
                solve_to_upload_in_pool(game, tier, &child_path, &out, options.kernel, output, options.sync_each_table)
            })?;
            if local_out.is_none() {
                // The plies first: the coordinator checks both when the completion comes.
                let mut files = Vec::new();
                if report.plies.is_some() {
                    let key = plies_beside(Path::new(&assignment.upload_key)).to_string_lossy().into_owned();
                    files.push((key, plies_beside(&out)));
                }
                files.push((assignment.upload_key.clone(), out.clone()));
                for (key, path) in files {
                    store
                        .put_file(&key, &path)
                        .map_err(|source| WorkerError::Store { what: format!("upload {key}"), source })?;
                    let _ = std::fs::remove_file(&path);
                }
            }
            Ok(Some(report))
        })();
        drop(finished);
        result
    })
}

/// A local path holding the store's `key` with the given CRC32 and length:
/// the store's own file when it is local, else a checked copy in the cache.
fn fetch(
    store: &dyn Store,
    options: &WorkerOptions,
    key: &str,
    crc32: u32,
    bytes: u64,
) -> Result<PathBuf, WorkerError> {
    if let Some(p) = store.local_path(key) {
        return Ok(p);
    }
    let path = options.cache.join(key);
    if matches_record(&path, crc32, bytes) {
        return Ok(path);
    }
    store
        .get_file(key, &path)
        .map_err(|source| WorkerError::Store { what: format!("fetch {key} from {}", store.describe()), source })?;
    if !matches_record(&path, crc32, bytes) {
        return Err(WorkerError::Protocol(format!(
            "{key}: the copy fetched from {} does not match the coordinator's record",
            store.describe()
        )));
    }
    Ok(path)
}

fn matches_record(path: &Path, crc32: u32, bytes: u64) -> bool {
    std::fs::read(path).is_ok_and(|b| b.len() as u64 == bytes && crc32fast::hash(&b) == crc32)
}
