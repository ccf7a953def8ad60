//! The coordinator under a fleet: 200 simulated workers, each with its own
//! gRPC connection, register, lease, heartbeat and complete the 236 tiers of
//! a small variant on loopback. A simulated worker does not solve: it
//! uploads the table and plies file a local solve made for its tier and
//! reports what that solve reported, so the coordinator does all of its
//! real work (checks every upload, renames, journals) at the rate of the
//! network calls alone. The run must end with the local solve's tables,
//! nothing refused, within a time bound; the test prints leases per second
//! and each call's latency percentiles (figures in docs/results.md).
//!
//! The 200 connections share one client runtime ([`GrpcLink::on_runtime`]).
//! With a runtime each, the process (server and clients) peaked at 1,217
//! open files and failed under CI's limit of 1,024 with "tcp connect
//! error"; shared, it peaks at 417 to 420 (200 sockets a side).
//!
//! `cargo test --release -p foxbase --test fleet -- --nocapture`

mod common;

use common::{token_file, TempDir};
use foxbase_coordinator::grpc::client::{link_runtime, Credentials, GrpcLink};
use foxbase_coordinator::grpc::server::{serve_coordinator, CoordinatorConfig};
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::parse_position;
use foxbase_core::{Geometry, Variant};
use foxbase_tables::manifest::{Manifest, TierEntry};
use foxbase_worker::job::{PliesReport, TierReport};
use foxbase_worker::kernel::{Output, TierStats};
use foxbase_worker::protocol::{Completion, LeaseAnswer, Link};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Two foxes against four sheep, K = 2: 236 tiers, 9,283,062 positions.
const START: &str = "F.F/.../......./......./SSSS.../.../... f";
const WORKERS: usize = 200;
/// The whole run must end within this (it takes seconds on 2 cores).
const LIMIT: Duration = Duration::from_secs(240);
const TOKEN: &str = "fleet-token";

struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &TierReport, _: usize, _: u64) {}
}

/// What the worker of `entry`'s tier reports: what the local solve wrote.
fn report_of(entry: &TierEntry) -> TierReport {
    let plies = entry.plies.as_ref().expect("a solve with plies");
    TierReport {
        tier_name: entry.name.clone(),
        stats: TierStats {
            slots: entry.slots,
            wins: entry.wins,
            draws: entry.draws,
            losses: entry.losses,
            unused: entry.unused,
            levels: entry.levels,
            decided_at_start: entry.decided_at_start,
        },
        crc32: u32::from_str_radix(&entry.crc32, 16).unwrap(),
        bytes: entry.bytes,
        seconds: 0.0,
        phases: Default::default(),
        plies: Some(PliesReport {
            crc32: u32::from_str_radix(&plies.crc32, 16).unwrap(),
            bytes: plies.bytes,
            longest: plies.longest,
        }),
    }
}

/// Latencies of one kind of call, in microseconds.
#[derive(Default)]
struct Latencies(Vec<u64>);

impl Latencies {
    fn time<T>(&mut self, call: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let answer = call();
        self.0.push(started.elapsed().as_micros() as u64);
        answer
    }

    fn percentile(&self, p: f64) -> f64 {
        let mut v = self.0.clone();
        v.sort_unstable();
        v[((v.len() - 1) as f64 * p).round() as usize] as f64 / 1000.0
    }
}

#[test]
fn two_hundred_workers_lease_heartbeat_and_complete_a_run_on_loopback() {
    let root = TempDir::new("fleet");
    let variant = Variant::new(Geometry::Classic, 2, parse_position(START).unwrap()).unwrap();
    let game: &'static FoxGame = Box::leak(Box::new(FoxGame::new(variant)));
    let plan: &'static TierPlan<FoxGame> = Box::leak(Box::new(TierPlan::new(game)));
    assert_eq!(plan.order.len(), 236);
    let solved = root.0.join("solved");
    let options = LocalOptions { output: Output::Dtm, threads_per_worker: 2, ..Default::default() };
    let expected = solve_local(game, plan, &solved, options, &Quiet).unwrap();
    let reports: HashMap<String, (TierEntry, TierReport)> =
        expected.tiers.iter().map(|t| (t.name.clone(), (t.clone(), report_of(t)))).collect();

    let store = root.0.join("store");
    let config = CoordinatorConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        store: store.display().to_string(),
        journal: None,
        resume: false,
        resume_if_journaled: false,
        token: TOKEN.into(),
        tls: None,
        lease: Duration::from_secs(30),
        distance: Some(foxbase_tables::plies::Distance::Dtm),
        metrics_listen: None,
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    let coordinator = std::thread::spawn(move || {
        let log = move |line: &str| {
            if let Some(addr) = line.strip_prefix("listening on ") {
                let _ = tx.lock().unwrap().send(addr.split_whitespace().next().unwrap().to_string());
            }
        };
        serve_coordinator(game, plan, &config, &log)
    });
    let url = format!("http://{}", rx.recv_timeout(Duration::from_secs(30)).unwrap());
    let _ = token_file(&root.0, TOKEN);

    let started = Instant::now();
    let calls: Arc<Mutex<HashMap<&'static str, Latencies>>> = Arc::default();
    let runtime = link_runtime().unwrap();
    let workers: Vec<_> = (0..WORKERS)
        .map(|n| {
            let (url, calls, reports, solved, store, runtime) =
                (url.clone(), calls.clone(), reports.clone(), solved.clone(), store.clone(), runtime.clone());
            std::thread::spawn(move || {
                let link = GrpcLink::on_runtime(&url, Credentials::new(TOKEN).unwrap(), None, runtime).unwrap();
                let mut mine: HashMap<&'static str, Latencies> = HashMap::new();
                let me = mine.entry("register").or_default().time(|| link.register(&format!("sim-{n}"), 1)).unwrap();
                let mut completed = 0;
                loop {
                    assert!(started.elapsed() < LIMIT, "worker {n} still leasing after {LIMIT:?}");
                    match mine.entry("lease").or_default().time(|| link.lease(&me.worker_id)).unwrap() {
                        LeaseAnswer::Done => break,
                        LeaseAnswer::Wait(d) => std::thread::sleep(d),
                        LeaseAnswer::Assigned(a) => {
                            let held = mine
                                .entry("heartbeat")
                                .or_default()
                                .time(|| link.heartbeat(&me.worker_id, a.lease_id))
                                .unwrap();
                            assert!(held, "a fresh lease is held");
                            let (entry, report) = &reports[&a.tier];
                            let upload = store.join(&a.upload_key);
                            std::fs::create_dir_all(upload.parent().unwrap()).unwrap();
                            let plies_file = &entry.plies.as_ref().unwrap().file;
                            std::fs::copy(solved.join(plies_file), plies_beside(&upload)).unwrap();
                            std::fs::copy(solved.join(&entry.file), &upload).unwrap();
                            let completion = Completion {
                                worker_id: me.worker_id.clone(),
                                lease_id: a.lease_id,
                                upload_key: a.upload_key.clone(),
                                report: report.clone(),
                            };
                            let accepted =
                                mine.entry("complete").or_default().time(|| link.complete(&completion)).unwrap();
                            assert!(!accepted.duplicate);
                            completed += 1;
                        }
                    }
                }
                let mut all = calls.lock().unwrap();
                for (call, l) in mine {
                    all.entry(call).or_default().0.extend(l.0);
                }
                completed
            })
        })
        .collect();
    let completed: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
    let seconds = started.elapsed().as_secs_f64();
    let finished = coordinator.join().unwrap().unwrap();
    assert_eq!(completed, 236);
    assert_eq!(finished.counters.leases_issued, 236);
    assert_eq!(finished.counters.completions_rejected, 0);
    assert_eq!(finished.counters.leases_expired, 0);
    assert_eq!(Manifest::read(&store).unwrap().tiers, expected.tiers);

    let calls = calls.lock().unwrap();
    eprintln!(
        "{WORKERS} simulated workers, 236 tiers in {seconds:.2} s: {:.0} leases/s ({} lease calls, {:.0} calls/s)",
        236.0 / seconds,
        calls["lease"].0.len(),
        calls.values().map(|l| l.0.len()).sum::<usize>() as f64 / seconds
    );
    for call in ["register", "lease", "heartbeat", "complete"] {
        let l = &calls[call];
        eprintln!(
            "  {call:9} {:6} calls, latency p50 {:7.2} ms, p99 {:7.2} ms, max {:7.2} ms",
            l.0.len(),
            l.percentile(0.5),
            l.percentile(0.99),
            l.percentile(1.0)
        );
    }
}

/// The plies file beside an upload (`incoming/N.fxt` → `incoming/N.fxp`).
fn plies_beside(upload: &Path) -> std::path::PathBuf {
    foxbase_worker::job::plies_beside(upload)
}
