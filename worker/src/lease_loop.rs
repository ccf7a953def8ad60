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
use crate::retry::{is_disk_full, Backoff, RetryCount, RetryPolicy};
use crate::store::Store;
use crate::table_cache::TableCache;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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
    /// Keep the cache's child tables under this many bytes, dropping the
    /// least recently used first (never one the tier being solved needs);
    /// `None`: no limit.
    pub cache_max: Option<u64>,
    /// Retries of failed store operations and of writes to a full disk,
    /// for `/metrics` ([`crate::retry`]).
    pub retries: Arc<RetryCount>,
    /// Give up when the coordinator has been unreachable this long.
    pub give_up_after: Duration,
    /// Hold each lease this long before solving (tests use it to stop a
    /// worker in the middle of a tier); zero otherwise.
    pub hold_before_solving: Duration,
    /// End that hold as soon as a heartbeat says the lease is lost (a test
    /// of a lease that expires mid-tier then waits for that, not for a
    /// time that a loaded machine may overrun).
    pub hold_until_lost: bool,
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
    /// Tables kept in memory for the parents solved after them, shared by
    /// the workers of one solve ([`TableCache`]); `None`: every child
    /// table is read from its file.
    pub tables_in_memory: Option<Arc<TableCache>>,
}

/// What a worker did.
#[derive(Clone, Debug, Default)]
pub struct WorkerSummary {
    pub tiers: usize,
    pub slots: u64,
    pub duplicates: usize,
    /// True when it stopped because `stop` was set, not because the solve was over.
    pub stopped: bool,
    /// Where its time went.
    pub time: WorkerTime,
}

/// Seconds a worker spent in each step of its loop.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WorkerTime {
    /// Asking for leases (the calls themselves).
    pub lease: f64,
    /// Waiting, told that no tier was ready.
    pub waiting: f64,
    /// Fetching child tables (nothing to copy from a local store).
    pub fetch: f64,
    /// Solving and writing tables (loading the children included).
    pub solve: f64,
    /// Uploading to a remote store.
    pub upload: f64,
    /// Reporting completions (the coordinator checks and journals the tier before it answers).
    pub complete: f64,
}

impl std::fmt::Display for WorkerTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "lease {:.1} s, waiting for ready tiers {:.1} s, fetch {:.1} s, solve {:.1} s, upload {:.1} s, complete {:.1} s",
            self.lease, self.waiting, self.fetch, self.solve, self.upload, self.complete
        )
    }
}

/// Calls `f` until it succeeds or fails for good, backing off from 100 ms
/// to 5 s between attempts with jitter ([`Backoff`]), each retry counted in
/// `count`; [`LinkError::Unavailable`] for longer than `give_up_after` is
/// failure for good.
fn with_retry<T>(
    give_up_after: Duration,
    count: &RetryCount,
    log: &(dyn Fn(&str) + Sync),
    mut f: impl FnMut() -> Result<T, LinkError>,
) -> Result<T, LinkError> {
    let mut backoff = Backoff::new(RetryPolicy::giving_up_after(give_up_after));
    let mut said = false;
    loop {
        match f() {
            Err(LinkError::Unavailable(m)) => {
                if backoff.expired() {
                    return Err(LinkError::Unavailable(format!("{m} (gave up after {:.0?})", give_up_after)));
                }
                if !said {
                    log(&format!("coordinator unavailable ({m}); retrying"));
                    said = true;
                }
                count.add();
                backoff.sleep();
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
    with_retry(options.give_up_after, &options.retries, log, || link.register(&options.name, options.threads as u32))
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
        let asked = Instant::now();
        let answer = with_retry(options.give_up_after, &options.retries, log, || link.lease(&me.worker_id));
        summary.time.lease += asked.elapsed().as_secs_f64();
        let assignment = match answer {
            Ok(LeaseAnswer::Assigned(a)) => a,
            Ok(LeaseAnswer::Wait(after)) => {
                let waited = Instant::now();
                std::thread::sleep(after.clamp(Duration::from_millis(1), Duration::from_secs(5)));
                summary.time.waiting += waited.elapsed().as_secs_f64();
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
        let Some(report) = work_on(game, link, store, options, &pool, &me, &assignment, stop, &mut summary.time, log)?
        else {
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
        let reporting = Instant::now();
        let done = match with_retry(options.give_up_after, &options.retries, log, || link.complete(&completion)) {
            Err(LinkError::UnknownWorker(_)) => {
                log("the coordinator restarted; registering again");
                me = register()?;
                // The completion is judged by the upload, not by who sends it.
                let again = Completion { worker_id: me.worker_id.clone(), ..completion.clone() };
                match with_retry(options.give_up_after, &options.retries, log, || link.complete(&again)) {
                    Err(error @ LinkError::UnknownWorker(_)) => {
                        return Err(WorkerError::Link { call: "complete", error })
                    }
                    other => other,
                }
            }
            other => other,
        };
        summary.time.complete += reporting.elapsed().as_secs_f64();
        match done {
            Ok(r) => {
                summary.tiers += 1;
                summary.slots += report.stats.slots;
                summary.duplicates += r.duplicate as usize;
                if r.duplicate {
                    log(&format!("{}: solved again; another worker's table was taken first", assignment.tier));
                }
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
    time: &mut WorkerTime,
    log: &(dyn Fn(&str) + Sync),
) -> Result<Option<TierReport>, WorkerError> {
    let tier = game.parse_tier_name(&assignment.tier).ok_or_else(|| {
        WorkerError::Protocol(format!("the coordinator leased an unknown tier '{}'", assignment.tier))
    })?;
    let beat_every = Duration::from_secs(me.lease_seconds.max(1) as u64) / 4;
    // Dropping `finished` wakes the heartbeat thread at once.
    let (finished, beats_end) = std::sync::mpsc::channel::<()>();
    let lost = &AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = beats_end.recv_timeout(beat_every) {
                if let Ok(false) = link.heartbeat(&me.worker_id, assignment.lease_id) {
                    log(&format!("lease of {} lost; finishing it anyway", assignment.tier));
                    lost.store(true, Ordering::Relaxed);
                }
            }
        });
        let result = (|| {
            if store.local_path(&assignment.upload_key).is_none() {
                if let Some(max) = options.cache_max {
                    let mut in_use = HashSet::new();
                    for child in &assignment.children {
                        in_use.insert(options.cache.join(&child.file));
                        let plies = plies_beside(Path::new(&child.file));
                        in_use.insert(options.cache.join(plies));
                    }
                    let need: u64 = assignment.children.iter().map(|c| c.bytes + c.plies.map_or(0, |p| p.bytes)).sum();
                    prune_cache(&options.cache, max.saturating_sub(need), &in_use, log);
                }
            }
            let fetching = Instant::now();
            let mut child_paths = HashMap::new();
            for child in &assignment.children {
                let t = game.parse_tier_name(&child.tier).ok_or_else(|| {
                    WorkerError::Protocol(format!("the coordinator named an unknown child tier '{}'", child.tier))
                })?;
                let path = fetch(store, options, &child.file, child.crc32, child.bytes, log)?;
                if let Some(plies) = child.plies {
                    // Fetched to the path beside the table, where the job reads it.
                    let key = plies_beside(Path::new(&child.file)).to_string_lossy().into_owned();
                    let at = fetch(store, options, &key, plies.crc32, plies.bytes, log)?;
                    debug_assert_eq!(at, plies_beside(&path));
                } else if me.distance == Some(foxbase_tables::plies::Distance::Dtm) {
                    return Err(WorkerError::Protocol(format!(
                        "the coordinator sent child tier {} without its plies in a run with plies",
                        child.tier
                    )));
                }
                child_paths.insert(t, path);
            }
            time.fetch += fetching.elapsed().as_secs_f64();
            if !options.hold_before_solving.is_zero() {
                log(&format!(
                    "holding the lease of {} for up to {} ms before solving",
                    assignment.tier,
                    options.hold_before_solving.as_millis()
                ));
            }
            let hold_until = Instant::now() + options.hold_before_solving;
            while Instant::now() < hold_until
                && !stop.load(Ordering::Relaxed)
                && !(options.hold_until_lost && lost.load(Ordering::Relaxed))
            {
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
            // A full disk is waited out: the table is written whole or not
            // at all (temp, fsync, rename), so solving again is safe.
            let solving = Instant::now();
            let mut backoff = Backoff::new(RetryPolicy::giving_up_after(options.give_up_after));
            let mut retries = 0u64;
            let report = loop {
                let solved = pool.install(|| {
                    solve_to_upload_in_pool(
                        game,
                        tier,
                        &child_path,
                        &out,
                        options.kernel,
                        output,
                        options.sync_each_table,
                        options.tables_in_memory.as_deref(),
                    )
                });
                match solved {
                    Err(e) if is_disk_full(&e) => {
                        // What was written of it only takes space now.
                        let _ = std::fs::remove_file(&out);
                        let _ = std::fs::remove_file(plies_beside(&out));
                        if retries == 0 {
                            log(&format!("{}: {e}; solving it again when there is space", assignment.tier));
                        }
                        if backoff.expired() {
                            return Err(e);
                        }
                        retries += 1;
                        options.retries.add();
                        backoff.sleep();
                    }
                    solved => {
                        if retries > 0 && solved.is_ok() {
                            log(&format!("{}: written after {retries} retries on a full disk", assignment.tier));
                        }
                        break solved?;
                    }
                }
            };
            time.solve += solving.elapsed().as_secs_f64();
            let uploading = Instant::now();
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
            time.upload += uploading.elapsed().as_secs_f64();
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
    log: &(dyn Fn(&str) + Sync),
) -> Result<PathBuf, WorkerError> {
    if let Some(p) = store.local_path(key) {
        return Ok(p);
    }
    let path = options.cache.join(key);
    if matches_record(&path, crc32, bytes) {
        // Recently used: the last to be pruned.
        let _ = std::fs::File::options()
            .append(true)
            .open(&path)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        return Ok(path);
    }
    if path.exists() {
        log(&format!("{key}: the cached copy does not match the coordinator's record; fetching it again"));
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

/// Deletes the least recently used files of the cache (by modification
/// time: a fetch sets it, and so does every use of a cached copy) until at
/// most `keep` bytes are left, never one in `in_use`. Files another process
/// is writing (`*.tmp`) are left alone. Failures to list or delete are
/// logged, not fatal: the cache is only a cache.
pub fn prune_cache(cache: &Path, keep: u64, in_use: &HashSet<PathBuf>, log: &(dyn Fn(&str) + Sync)) {
    let mut files = Vec::new();
    let mut dirs = vec![cache.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                dirs.push(path);
            } else if path.extension().is_none_or(|e| e != "tmp") {
                let used = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
                files.push((used, meta.len(), path));
            }
        }
    }
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    if total <= keep {
        return;
    }
    files.sort();
    for (_, len, path) in files {
        if total <= keep {
            break;
        }
        if in_use.contains(&path) {
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => total -= len,
            Err(e) => log(&format!("cache: could not delete {}: {e}", path.display())),
        }
    }
}

fn matches_record(path: &Path, crc32: u32, bytes: u64) -> bool {
    std::fs::read(path).is_ok_and(|b| b.len() as u64 == bytes && crc32fast::hash(&b) == crc32)
}
