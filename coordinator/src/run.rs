//! The coordinator's state of one solve: which tiers are done, leased or
//! waiting, which workers hold which leases, and the journal. Plain data
//! behind the five calls of the protocol, in the worker crate's plain types
//! ([`foxbase_worker::protocol`]): the gRPC server ([`crate::grpc::server`])
//! and the local solve ([`crate::local`]) drive this same code.
//!
//! A completion is judged by what it claims about the store, never by who
//! sends it: the uploaded file must exist under its upload key with the
//! claimed length, CRC32, tier, variant and slot count. Accepted tables are
//! renamed to their final key and journaled (fsync'd) before the call
//! returns. A second completion of a finished tier is a duplicate if its
//! checksum matches and a conflict otherwise; either way the first result
//! stays and the upload is deleted.

use crate::journal::Journal;
use crate::plan::{Scheduler, TierPlan};
use foxbase_core::tier::TierGame;
use foxbase_tables::manifest::{Manifest, PliesEntry, TierEntry};
use foxbase_tables::plies::Distance;
use foxbase_tables::source::ByteSource;
use foxbase_tables::table::{Contents, TableFile, TableHeader};
use foxbase_tables::tier_files::{plies_beside, plies_key, table_header, TABLE_EXT};
use foxbase_worker::kernel::Phases;
use foxbase_worker::protocol::{
    Accepted, Assignment, Completion, FileRef, LeaseAnswer, Registration, RunStatus, TableRef, WorkerStatus,
};
use foxbase_worker::store::Store;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant, SystemTime};

/// Why a call was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The worker id is not one this coordinator gave out (it restarted): register again.
    #[error("{0}")]
    UnknownWorker(String),
    /// The request names something that does not exist or does not match the store.
    #[error("{0}")]
    Invalid(String),
    /// A finished tier was completed again with another checksum; the first result stands.
    #[error("{0}")]
    Conflict(String),
    /// The store or journal failed; the request may be retried.
    #[error("{0}")]
    Internal(String),
}

/// Why a run cannot start from its journal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    #[error("the journal names tier '{0}', which this run does not have")]
    UnknownTier(String),
    #[error("{file}: {message}")]
    Store { file: String, message: String },
    #[error("the journal says {file} is finished ({bytes} bytes), but the store holds {found}")]
    Missing { file: String, bytes: u64, found: String },
    #[error(
        "the journal's tier {0} has no plies, and this run computes plies (resume it with --distance none, as it began)"
    )]
    NoPlies(String),
    #[error("the journal's tier {tier} has {found} plies, and this run computes {asked} (resume it with --distance {found}, as it began)")]
    OtherDistance { tier: String, found: Distance, asked: Distance },
}

/// Settings of a run.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// How long a lease lasts without a heartbeat.
    pub lease: Duration,
    /// How long a worker waits before asking again when no tier is ready.
    pub retry_after: Duration,
    /// What plies tiers are solved with, if any: every completion then
    /// brings a plies file, checked and kept beside its table.
    pub distance: Option<Distance>,
}

struct Lease<T> {
    tier: T,
    worker: String,
    expires: Instant,
}

struct WorkerInfo {
    name: String,
    threads: u32,
    last_seen: Instant,
}

/// Counters for `foxbase status` and for tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunCounters {
    pub leases_issued: u64,
    pub leases_expired: u64,
    pub completions_rejected: u64,
    pub duplicates: u64,
    /// Bytes of the tables and plies files accepted into the store.
    pub store_bytes_written: u64,
}

/// What [`RunState::admit`] decided about a completion.
pub enum Admission<T> {
    /// Refused or a duplicate: nothing more to do.
    Decided(Accepted),
    /// Its uploads must be checked, then [`RunState::commit`] called.
    Check(PendingCompletion<T>),
}

/// A completion whose claims hold, waiting for its uploads to be checked.
pub struct PendingCompletion<T> {
    tier: T,
    uploads: Vec<UploadCheck>,
}

/// One uploaded file and what the completion claims about it.
struct UploadCheck {
    key: String,
    bytes: u64,
    crc32: u32,
    header: TableHeader,
    contents: Contents,
}

impl<T> PendingCompletion<T> {
    /// Reads every upload from `store` and checks its length, CRC32, header
    /// and contents against the claims; the message says what is wrong.
    /// Needs no state: run it without the state's lock.
    pub fn check(&self, store: &dyn Store) -> Result<(), String> {
        for u in &self.uploads {
            let key = &u.key;
            let stored = store.size(key).map_err(|e| format!("{key}: {e}"))?;
            if stored != Some(u.bytes) {
                let what = stored.map_or("no upload".to_string(), |s| format!("{s} bytes"));
                return Err(format!("{} bytes claimed, the store holds {what} under {key}", u.bytes));
            }
            let bytes = store.get_bytes(key).map_err(|e| format!("{key}: {e}"))?;
            let crc = crc32fast::hash(&bytes);
            if crc != u.crc32 {
                return Err(format!("checksum {:08x} claimed, the upload's is {crc:08x} ({key})", u.crc32));
            }
            let file =
                TableFile::from_source(Box::new(Upload { name: key.clone(), bytes })).map_err(|e| e.to_string())?;
            file.expect(&u.header).map_err(|e| e.to_string())?;
            file.expect_contents(u.contents).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

/// The state of one solve. See the module documentation.
pub struct RunState<'g, G: TierGame> {
    game: &'g G,
    plan: &'g TierPlan<G>,
    store: &'g dyn Store,
    journal: Option<Journal>,
    options: RunOptions,
    scheduler: Scheduler<G::Tier>,
    finished: HashMap<G::Tier, TierEntry>,
    leases: BTreeMap<u64, Lease<G::Tier>>,
    workers: BTreeMap<String, WorkerInfo>,
    /// Distinguishes this coordinator's ids from those of a previous run.
    run_id: u32,
    next_lease: u32,
    next_worker: u32,
    resumed: usize,
    /// Slots of all finished tiers (kept, not summed, for status calls).
    slots_finished: u64,
    started: Instant,
    slots_done_here: u64,
    counters: RunCounters,
    /// Phase seconds summed over the tiers finished by this run.
    phases: Phases,
}

pub use foxbase_tables::tier_files::table_key;

impl<'g, G: TierGame> RunState<'g, G> {
    /// A run over `plan`, with `finished` tiers (from a journal) already done.
    ///
    /// Fails if a finished tier is not in the plan, or its table is missing
    /// from the store or has another length than journaled.
    pub fn new(
        game: &'g G,
        plan: &'g TierPlan<G>,
        store: &'g dyn Store,
        journal: Option<Journal>,
        finished: Vec<TierEntry>,
        options: RunOptions,
    ) -> Result<RunState<'g, G>, ResumeError> {
        let mut done = HashMap::new();
        for entry in finished {
            let tier = game
                .parse_tier_name(&entry.name)
                .filter(|t| plan.slots.contains_key(t))
                .ok_or_else(|| ResumeError::UnknownTier(entry.name.clone()))?;
            // The store holds each finished file with its journaled length.
            let mut files = vec![(&entry.file, entry.bytes)];
            match (&entry.plies, options.distance) {
                (Some(p), Some(asked)) if p.distance != asked => {
                    return Err(ResumeError::OtherDistance { tier: entry.name.clone(), found: p.distance, asked })
                }
                (Some(p), _) => files.push((&p.file, p.bytes)),
                (None, Some(_)) => return Err(ResumeError::NoPlies(entry.name.clone())),
                (None, None) => {}
            }
            for (file, bytes) in files {
                let size =
                    store.size(file).map_err(|e| ResumeError::Store { file: file.clone(), message: e.to_string() })?;
                if size != Some(bytes) {
                    let found = size.map_or("nothing".to_string(), |s| format!("{s} bytes"));
                    return Err(ResumeError::Missing { file: file.clone(), bytes, found });
                }
            }
            done.insert(tier, entry);
        }
        let finished_tiers: Vec<G::Tier> = done.keys().copied().collect();
        let scheduler = Scheduler::new(&plan.order, &plan.children, &finished_tiers, |t| game.solve_priority(t));
        let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        Ok(RunState {
            game,
            plan,
            store,
            journal,
            options,
            scheduler,
            resumed: done.len(),
            slots_finished: done.values().map(|e: &TierEntry| e.slots).sum(),
            finished: done,
            leases: BTreeMap::new(),
            workers: BTreeMap::new(),
            run_id: (nanos as u32) | 1,
            next_lease: 0,
            next_worker: 0,
            started: Instant::now(),
            slots_done_here: 0,
            counters: RunCounters::default(),
            phases: Phases::default(),
        })
    }

    /// The tier the next lease would hand out, if one is ready.
    pub fn next_ready(&self) -> Option<G::Tier> {
        self.scheduler.peek()
    }

    pub fn is_finished(&self) -> bool {
        self.scheduler.is_finished()
    }

    pub fn counters(&self) -> RunCounters {
        self.counters
    }

    /// Phase seconds summed over the tiers this run finished (not resumed ones).
    pub fn phases(&self) -> Phases {
        self.phases
    }

    /// Workers heard from within `within` of `now`.
    pub fn active_workers(&self, now: Instant, within: Duration) -> Vec<String> {
        self.workers
            .iter()
            .filter(|(_, w)| now.saturating_duration_since(w.last_seen) <= within)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Tiers finished so far, including resumed ones.
    pub fn tiers_done(&self) -> usize {
        self.scheduler.done()
    }

    /// Tiers that were already finished when the run started.
    pub fn resumed(&self) -> usize {
        self.resumed
    }

    /// The entry of the finished tier `tier_name` (as the journal gets it).
    pub fn finished_entry(&self, tier_name: &str) -> Option<&TierEntry> {
        self.game.parse_tier_name(tier_name).and_then(|t| self.finished.get(&t))
    }

    pub fn register(&mut self, name: &str, threads: u32, now: Instant) -> Registration {
        self.next_worker += 1;
        let worker_id = format!("{:08x}-{}", self.run_id, self.next_worker);
        self.workers.insert(worker_id.clone(), WorkerInfo { name: name.to_string(), threads, last_seen: now });
        Registration {
            worker_id,
            game: self.game.game_name().into(),
            variant: self.game.variant_json(),
            lease_seconds: self.options.lease.as_secs().max(1) as u32,
            store_url: self.store.url(),
            distance: self.options.distance,
        }
    }

    fn seen(&mut self, worker: &str, now: Instant) -> Result<(), Refusal> {
        match self.workers.get_mut(worker) {
            Some(w) => {
                w.last_seen = now;
                Ok(())
            }
            None => Err(Refusal::UnknownWorker(format!("unknown worker '{worker}': register again"))),
        }
    }

    /// Puts tiers whose leases ran out back in the queue.
    pub fn expire(&mut self, now: Instant) {
        let expired: Vec<u64> = self.leases.iter().filter(|(_, l)| l.expires <= now).map(|(&id, _)| id).collect();
        for id in expired {
            let lease = self.leases.remove(&id).unwrap();
            self.scheduler.requeue(lease.tier);
            self.counters.leases_expired += 1;
        }
    }

    pub fn lease(&mut self, worker: &str, now: Instant) -> Result<LeaseAnswer, Refusal> {
        self.seen(worker, now)?;
        self.expire(now);
        if self.is_finished() {
            return Ok(LeaseAnswer::Done);
        }
        let Some(tier) = self.scheduler.lease() else {
            return Ok(LeaseAnswer::Wait(self.options.retry_after));
        };
        self.next_lease += 1;
        let lease_id = ((self.run_id as u64) << 32) | self.next_lease as u64;
        self.leases.insert(lease_id, Lease { tier, worker: worker.to_string(), expires: now + self.options.lease });
        self.counters.leases_issued += 1;
        let children = self.plan.children[&tier]
            .iter()
            .map(|c| {
                let e = &self.finished[c];
                TableRef {
                    tier: e.name.clone(),
                    file: e.file.clone(),
                    crc32: u32::from_str_radix(&e.crc32, 16).unwrap_or(0),
                    bytes: e.bytes,
                    // DTZ reads the children's values alone: their plies stay in the store.
                    plies: e
                        .plies
                        .as_ref()
                        .filter(|p| p.distance == Distance::Dtm)
                        .map(|p| FileRef { crc32: u32::from_str_radix(&p.crc32, 16).unwrap_or(0), bytes: p.bytes }),
                }
            })
            .collect();
        let name = self.game.tier_name(tier);
        Ok(LeaseAnswer::Assigned(Assignment {
            tier: name.clone(),
            lease_id,
            upload_key: format!("incoming/{name}.{lease_id:016x}.{TABLE_EXT}"),
            children,
        }))
    }

    /// Extends a lease; false if it is not (or no longer) this worker's.
    pub fn heartbeat(&mut self, worker: &str, lease_id: u64, now: Instant) -> Result<bool, Refusal> {
        self.seen(worker, now)?;
        self.expire(now);
        match self.leases.get_mut(&lease_id) {
            Some(l) if l.worker == worker => {
                l.expires = now + self.options.lease;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Gives a lease back before it is finished (a worker shutting down).
    pub fn release(&mut self, worker: &str, lease_id: u64, now: Instant) -> Result<(), Refusal> {
        self.seen(worker, now)?;
        if self.leases.get(&lease_id).is_some_and(|l| l.worker == worker) {
            let lease = self.leases.remove(&lease_id).unwrap();
            self.scheduler.requeue(lease.tier);
        }
        Ok(())
    }

    /// Judges a completion and, if its uploads check out, accepts it: the
    /// three steps of [`RunState::admit`], [`PendingCompletion::check`] and
    /// [`RunState::commit`] in a row. A server that shares the state between
    /// threads runs the check between two locks instead, so that reading a
    /// large upload never holds up the other calls.
    pub fn complete(&mut self, req: &Completion, now: Instant) -> Result<Accepted, Refusal> {
        match self.admit(req, now)? {
            Admission::Decided(accepted) => Ok(accepted),
            Admission::Check(pending) => {
                let checked = pending.check(self.store);
                self.commit(req, pending, checked)
            }
        }
    }

    /// The store the tables go to.
    pub fn store(&self) -> &'g dyn Store {
        self.store
    }

    /// Judges what a completion claims against the run (tier, children,
    /// counts, upload keys): a refusal or a duplicate is decided here;
    /// otherwise the uploads are to be checked.
    pub fn admit(&mut self, req: &Completion, now: Instant) -> Result<Admission<G::Tier>, Refusal> {
        self.seen(&req.worker_id, now)?;
        match self.judge_claims(req) {
            Ok(Admission::Check(pending)) => Ok(Admission::Check(pending)),
            Ok(Admission::Decided(accepted)) => self.settle(req, Ok(accepted)).map(Admission::Decided),
            Err(refusal) => self.settle(req, Err(refusal)).map(Admission::Decided),
        }
    }

    /// Accepts an admitted completion whose uploads `checked` out: renames
    /// them into place and journals the tier. The tier may have been
    /// finished by another completion since it was admitted: then this one
    /// is a duplicate or a conflict.
    pub fn commit(
        &mut self,
        req: &Completion,
        pending: PendingCompletion<G::Tier>,
        checked: Result<(), String>,
    ) -> Result<Accepted, Refusal> {
        let tier_name = &req.report.tier_name;
        let result = match checked {
            Err(m) => Err(Refusal::Invalid(format!("completion of tier '{tier_name}' refused: {m}"))),
            Ok(()) => match self.already_finished(pending.tier, req) {
                Some(decided) => decided,
                None => self.accept(req, pending),
            },
        };
        self.settle(req, result)
    }

    /// Counts a refusal, and deletes the uploads of a completion that is
    /// refused or a duplicate: they are never used.
    fn settle(&mut self, req: &Completion, result: Result<Accepted, Refusal>) -> Result<Accepted, Refusal> {
        if result.is_err() {
            self.counters.completions_rejected += 1;
        }
        if !matches!(result, Ok(Accepted { duplicate: false })) && is_upload_key(&req.upload_key) {
            let _ = self.store.delete(&req.upload_key);
            let _ = self.store.delete(&plies_beside(&req.upload_key));
        }
        result
    }

    /// For a tier finished already: a duplicate if the checksum matches, a conflict if not.
    fn already_finished(&mut self, tier: G::Tier, req: &Completion) -> Option<Result<Accepted, Refusal>> {
        let done = self.finished.get(&tier)?;
        let report = &req.report;
        let crc = format!("{:08x}", report.crc32);
        if done.crc32 == crc && done.bytes == report.bytes {
            self.counters.duplicates += 1;
            return Some(Ok(Accepted { duplicate: true }));
        }
        Some(Err(Refusal::Conflict(format!(
            "tier {} was completed before with checksum {} ({} bytes); this completion says {crc} ({} bytes): the first result is kept",
            report.tier_name, done.crc32, done.bytes, report.bytes
        ))))
    }

    fn judge_claims(&mut self, completion: &Completion) -> Result<Admission<G::Tier>, Refusal> {
        let req = &completion.report;
        let stats = &req.stats;
        let upload_key = &completion.upload_key;
        let tier_name = &req.tier_name;
        let invalid = |m: String| Err(Refusal::Invalid(format!("completion of tier '{tier_name}' refused: {m}")));
        let Some(tier) = self.game.parse_tier_name(tier_name).filter(|t| self.plan.slots.contains_key(t)) else {
            return invalid("no such tier in this run".into());
        };
        if let Some(decided) = self.already_finished(tier, completion) {
            return decided.map(Admission::Decided);
        }
        if let Some(c) = self.plan.children[&tier].iter().find(|c| !self.finished.contains_key(c)) {
            return invalid(format!("its child tier {} is not finished", self.game.tier_name(*c)));
        }
        if !is_upload_key(upload_key) {
            return invalid(format!("'{upload_key}' is not an upload key (incoming/...)"));
        }
        let slots = self.plan.slots[&tier];
        if stats.slots != slots {
            return invalid(format!("{} slots claimed, the tier has {slots}", stats.slots));
        }
        if stats.wins + stats.draws + stats.losses + stats.unused != slots {
            return invalid("wins, draws, losses and unused do not add up to the slots".into());
        }
        let header = table_header(self.game, tier, slots);
        let mut uploads = vec![UploadCheck {
            key: upload_key.clone(),
            bytes: req.bytes,
            crc32: req.crc32,
            header: header.clone(),
            contents: Contents::Values,
        }];
        match (req.plies, self.options.distance.is_some()) {
            (Some(p), true) => uploads.push(UploadCheck {
                key: plies_beside(upload_key),
                bytes: p.bytes,
                crc32: p.crc32,
                header,
                contents: Contents::Plies8,
            }),
            (None, false) => {}
            (Some(_), false) => return invalid("it brings plies to a run without them".into()),
            (None, true) => return invalid("it brings no plies to a run with plies".into()),
        }
        Ok(Admission::Check(PendingCompletion { tier, uploads }))
    }

    fn accept(&mut self, completion: &Completion, pending: PendingCompletion<G::Tier>) -> Result<Accepted, Refusal> {
        let req = &completion.report;
        let stats = &req.stats;
        let tier = pending.tier;
        let slots = self.plan.slots[&tier];
        // The plies first: a table in place always has its plies beside it.
        let plies = match req.plies {
            Some(p) if self.options.distance.is_some() => {
                let (upload, key) = (plies_beside(&completion.upload_key), plies_key(self.game, tier));
                self.store.rename(&upload, &key).map_err(|e| Refusal::Internal(format!("{key}: {e}")))?;
                Some(PliesEntry {
                    file: key,
                    bytes: p.bytes,
                    crc32: format!("{:08x}", p.crc32),
                    longest: p.longest,
                    distance: self.options.distance.unwrap_or_default(),
                })
            }
            _ => None,
        };
        let key = table_key(self.game, tier);
        self.store.rename(&completion.upload_key, &key).map_err(|e| Refusal::Internal(format!("{key}: {e}")))?;
        let entry = TierEntry {
            name: req.tier_name.clone(),
            file: key,
            slots,
            bytes: req.bytes,
            crc32: format!("{:08x}", req.crc32),
            wins: stats.wins,
            draws: stats.draws,
            losses: stats.losses,
            unused: stats.unused,
            children: self.plan.children[&tier].iter().map(|&c| self.game.tier_name(c)).collect(),
            levels: stats.levels,
            decided_at_start: stats.decided_at_start,
            plies,
        };
        if let Some(j) = &mut self.journal {
            j.append(&entry).map_err(|e| Refusal::Internal(e.to_string()))?;
        }
        self.finished.insert(tier, entry);
        let held: Vec<u64> = self.leases.iter().filter(|(_, l)| l.tier == tier).map(|(&id, _)| id).collect();
        if held.is_empty() {
            // Its lease had expired and the tier was back in the queue.
            let taken = self.scheduler.take(tier);
            debug_assert!(taken, "a tier neither leased nor ready cannot be completed");
        }
        for id in held {
            self.leases.remove(&id);
        }
        self.scheduler.complete(tier);
        self.phases += req.phases;
        self.counters.store_bytes_written += req.bytes + req.plies.map_or(0, |p| p.bytes);
        self.slots_done_here += slots;
        self.slots_finished += slots;
        Ok(Accepted { duplicate: false })
    }

    pub fn status(&self, now: Instant, start_value: Option<&str>) -> RunStatus {
        let mut leased: HashMap<&str, Vec<String>> = HashMap::new();
        for l in self.leases.values() {
            leased.entry(l.worker.as_str()).or_default().push(self.game.tier_name(l.tier));
        }
        let slots_done = self.slots_finished;
        let slots_total = self.plan.total_slots();
        let secs = now.duration_since(self.started).as_secs_f64();
        let rate = if secs > 0.0 { self.slots_done_here as f64 / secs } else { 0.0 };
        let eta = (rate > 0.0).then(|| (slots_total - slots_done) as f64 / rate);
        RunStatus {
            variant: self.game.variant_json(),
            tiers_total: self.plan.order.len() as u32,
            tiers_done: self.scheduler.done() as u32,
            tiers_running: self.leases.len() as u32,
            tiers_pending: (self.plan.order.len() - self.scheduler.done() - self.leases.len()) as u32,
            slots_total,
            slots_done,
            positions_per_second: rate,
            eta_seconds: eta,
            workers: self
                .workers
                .iter()
                .map(|(id, w)| WorkerStatus {
                    worker_id: id.clone(),
                    name: w.name.clone(),
                    threads: w.threads,
                    leased_tiers: leased.get(id.as_str()).cloned().unwrap_or_default(),
                    seconds_since_seen: now.saturating_duration_since(w.last_seen).as_secs_f64(),
                })
                .collect(),
            tiers_resumed: self.resumed as u32,
            leases_issued: self.counters.leases_issued,
            leases_expired: self.counters.leases_expired,
            completions_rejected: self.counters.completions_rejected,
            finished: self.is_finished(),
            start_value: start_value.map(String::from),
        }
    }

    /// The manifest of a finished run: tiers in plan order (not yet written).
    pub fn manifest(&self) -> Manifest {
        let tiers = self.plan.order.iter().map(|t| self.finished[t].clone()).collect();
        Manifest::new(self.game, tiers, self.started.elapsed().as_secs_f64())
    }
}

/// An upload's bytes, already read whole to check its CRC, as a table source.
struct Upload {
    name: String,
    bytes: Vec<u8>,
}

impl ByteSource for Upload {
    fn name(&self) -> &str {
        &self.name
    }

    fn len(&self) -> std::io::Result<u64> {
        Ok(self.bytes.len() as u64)
    }

    fn read_ranges(&self, ranges: &mut [(u64, &mut [u8])]) -> std::io::Result<()> {
        for (offset, buf) in ranges.iter_mut() {
            let start = usize::try_from(*offset).map_err(std::io::Error::other)?;
            let piece = start
                .checked_add(buf.len())
                .and_then(|end| self.bytes.get(start..end))
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
            buf.copy_from_slice(piece);
        }
        Ok(())
    }
}

fn is_upload_key(key: &str) -> bool {
    key.strip_prefix("incoming/").is_some_and(|rest| !rest.is_empty() && !rest.contains('/') && !rest.starts_with('.'))
}
