//! The distributed solve on loopback, with real processes: a coordinator
//! and workers solve a small variant to the same tables as `foxbase solve`;
//! a worker killed with SIGKILL mid-tier loses its lease and the tier is
//! redone elsewhere; a coordinator killed with SIGKILL resumes from its
//! journal without redoing finished tiers; calls without the token, with a
//! wrong one or another protocol version are refused; malformed
//! completions are rejected without harming the run; TLS works.

mod common;

use common::{coordinator, foxbase, token_file, worker, Proc, TempDir, DIST_K as K, DIST_START as START};
use foxbase_coordinator::grpc::client::{Credentials, GrpcLink};
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::parse_position;
use foxbase_core::{Geometry, Variant};
use foxbase_proto::v1::coordinator_client::CoordinatorClient;
use foxbase_proto::v1::RegisterRequest;
use foxbase_tables::manifest::Manifest;
use foxbase_worker::job::TierReport;
use foxbase_worker::kernel::TierStats;
use foxbase_worker::protocol::{Completion, LeaseAnswer, Link, LinkError};
use serde_json::Value as Json;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const TOKEN: &str = "s3cret-token";

struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &foxbase_worker::job::TierReport, _: usize, _: u64) {}
}

fn game() -> FoxGame {
    FoxGame::new(Variant::new(Geometry::Classic, 2, parse_position(START).unwrap()).unwrap())
}

/// (tier, crc32) of `foxbase solve`'s tables for the variant, in manifest order.
/// Per tier, the CRCs of its table and plies file from a local solve with
/// plies to zeroing (the coordinator's default distance).
fn local_checksums(root: &Path) -> Vec<(String, String)> {
    local_checksums_of(root, foxbase_worker::kernel::Output::Dtz)
}

/// [`local_checksums`] of a solve writing `output`.
fn local_checksums_of(root: &Path, output: foxbase_worker::kernel::Output) -> Vec<(String, String)> {
    let dir = root.join("local");
    let game = game();
    let options = LocalOptions {
        workers: 1,
        threads_per_worker: 1,
        kernel: foxbase_worker::kernel::Kernel::Planes,
        output,
        ..Default::default()
    };
    let m = solve_local(&game, &TierPlan::new(&game), &dir, options, &Quiet).unwrap();
    m.tiers.into_iter().map(crcs_of).collect()
}

/// A tier's name and the CRCs of its table and plies file.
fn crcs_of(t: foxbase_tables::manifest::TierEntry) -> (String, String) {
    let plies = t.plies.map_or("none".to_string(), |p| p.crc32);
    (t.name, format!("{} {plies}", t.crc32))
}

fn checksums(store: &Path) -> Vec<(String, String)> {
    Manifest::read(store).unwrap().tiers.into_iter().map(crcs_of).collect()
}

fn link(url: &str, token: &str) -> GrpcLink {
    GrpcLink::new(url, Credentials::new(token).unwrap(), None).unwrap()
}

fn summary(out: &str) -> Json {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

#[test]
fn a_coordinator_and_two_workers_make_the_tables_of_a_local_solve() {
    let root = TempDir::new("dist-two");
    let expected = local_checksums(&root.0);
    let store = root.0.join("store");
    let (c, addr) = coordinator(&root.0, TOKEN, &store, "127.0.0.1:0", 30, &[]);
    let url = format!("http://{addr}");
    let w1 = worker(&root.0, TOKEN, &url, "one", &[]);
    let w2 = worker(&root.0, TOKEN, &url, "two", &[]);
    let out = c.finish_ok(Duration::from_secs(60));
    let s = summary(&out);
    assert_eq!(s["tiers"], 100);
    assert_eq!(s["value"], "win");
    assert_eq!(s["leases_issued"], 100);
    assert_eq!(checksums(&store), expected);
    assert!(!store.join("incoming").exists(), "uploads are all moved or deleted");
    for w in [w1, w2] {
        w.finish_ok(Duration::from_secs(20));
    }
    // The store publishes like a local solve's directory.
    let v = foxbase().arg("verify").arg(&store).output().unwrap();
    assert_eq!(v.status.code(), Some(0), "{}", String::from_utf8_lossy(&v.stderr));
}

/// With plies to the end the workers fetch each child's plies file with its
/// table, and the store holds a local solve's files.
#[test]
fn a_coordinator_and_two_workers_make_a_local_solves_dtm_files() {
    let root = TempDir::new("dist-dtm");
    let expected = local_checksums_of(&root.0, foxbase_worker::kernel::Output::Dtm);
    let store = root.0.join("store");
    let (c, addr) = coordinator(&root.0, TOKEN, &store, "127.0.0.1:0", 30, &["--distance", "dtm"]);
    let url = format!("http://{addr}");
    let w1 = worker(&root.0, TOKEN, &url, "one", &[]);
    let w2 = worker(&root.0, TOKEN, &url, "two", &[]);
    let s = summary(&c.finish_ok(Duration::from_secs(60)));
    assert_eq!((s["tiers"].as_u64(), s["value"].as_str()), (Some(100), Some("win")));
    assert_eq!(checksums(&store), expected);
    for w in [w1, w2] {
        w.finish_ok(Duration::from_secs(20));
    }
    let v = foxbase().arg("verify").arg(&store).output().unwrap();
    assert_eq!(v.status.code(), Some(0), "{}", String::from_utf8_lossy(&v.stderr));
}

#[test]
fn a_worker_killed_mid_tier_loses_its_lease_and_the_tier_is_redone() {
    let root = TempDir::new("dist-kill-worker");
    let expected = local_checksums(&root.0);
    let store = root.0.join("store");
    let (c, addr) = coordinator(&root.0, TOKEN, &store, "127.0.0.1:0", 2, &[]);
    let url = format!("http://{addr}");
    // This worker takes a lease and sits on it, heartbeating, until killed.
    let stuck = worker(&root.0, TOKEN, &url, "stuck", &["--hold-ms", "600000"]);
    let status = link(&url, TOKEN);
    let until = Instant::now() + Duration::from_secs(20);
    let held = loop {
        let s = status.status().unwrap();
        if let Some(w) = s.workers.iter().find(|w| !w.leased_tiers.is_empty()) {
            break w.leased_tiers[0].clone();
        }
        assert!(Instant::now() < until, "the worker never leased a tier");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Heartbeats keep the 2 s lease alive past its first expiry.
    std::thread::sleep(Duration::from_millis(3000));
    let s = status.status().unwrap();
    assert_eq!(s.leases_expired, 0, "a heartbeating worker keeps its lease");
    assert!(s.workers.iter().any(|w| w.leased_tiers == vec![held.clone()]));
    stuck.kill9();
    let helper = worker(&root.0, TOKEN, &url, "helper", &[]);
    let out = c.finish_ok(Duration::from_secs(60));
    let s = summary(&out);
    assert_eq!(s["leases_expired"], 1, "{s}");
    assert_eq!(s["leases_issued"], 101, "the held tier was leased twice: {s}");
    assert_eq!(checksums(&store), expected);
    helper.finish_ok(Duration::from_secs(20));
}

#[test]
fn a_coordinator_killed_mid_run_resumes_without_redoing_finished_tiers() {
    let root = TempDir::new("dist-kill-coordinator");
    let expected = local_checksums(&root.0);
    let store = root.0.join("store");
    // A fixed port, so the worker finds the restarted coordinator.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let url = format!("http://{listen}");
    let (c1, _) = coordinator(&root.0, TOKEN, &store, &listen, 10, &[]);
    // 150 ms per tier: the run takes about 15 s, plenty of time to kill it.
    let w = worker(&root.0, TOKEN, &url, "patient", &["--hold-ms", "150"]);
    let journal = store.join("journal.log");
    // Whole lines only: a kill can leave a last line without its newline, which resume drops.
    let entries = || std::fs::read_to_string(&journal).map_or(0, |t| t.matches('\n').count().saturating_sub(1));
    let until = Instant::now() + Duration::from_secs(30);
    while entries() < 20 {
        assert!(Instant::now() < until, "the run did not get going");
        std::thread::sleep(Duration::from_millis(10));
    }
    c1.kill9();
    let journaled = entries();
    assert!((20..100).contains(&journaled), "{journaled}");
    // Without --resume the journal is not touched.
    let (code, _) = {
        let mut cmd = foxbase();
        cmd.args(["coordinator", "--start", START, "--pen-target", K, "--listen", "127.0.0.1:0"])
            .arg("--store")
            .arg(&store)
            .arg("--token-file")
            .arg(token_file(&root.0, TOKEN));
        let p = Proc::spawn(cmd);
        p.wait_for_line("pass --resume", Duration::from_secs(20));
        p.finish(Duration::from_secs(10))
    };
    assert_eq!(code, Some(1));
    assert_eq!(entries(), journaled);

    let (c2, _) = coordinator(&root.0, TOKEN, &store, &listen, 10, &["--resume"]);
    c2.wait_for_line(&format!("resumed: {journaled} of 100 tiers were finished"), Duration::from_secs(5));
    let out = c2.finish_ok(Duration::from_secs(60));
    let s = summary(&out);
    assert_eq!(s["tiers_resumed"], journaled);
    // Journaled tiers are never leased again; the tier in the worker's hands
    // when the first coordinator died may be completed without a new lease.
    let issued = s["leases_issued"].as_u64().unwrap() as usize;
    assert!(issued <= 100 - journaled && issued + 1 >= 100 - journaled, "{issued} leases after {journaled} journaled");
    assert_eq!(checksums(&store), expected);
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut names: Vec<&str> = text.lines().skip(1).map(|l| l.split("\"name\":\"").nth(1).unwrap()).collect();
    assert_eq!(names.len(), 100);
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 100, "each tier journaled once");
    w.finish_ok(Duration::from_secs(20));
}

#[test]
fn calls_without_the_token_or_with_another_protocol_and_bad_completions_are_refused() {
    let root = TempDir::new("dist-refuse");
    let expected = local_checksums(&root.0);
    let store = root.0.join("store");
    // A short lease: at the end the coordinator waits at most that long for
    // mallory, who never asks for work again, to hear that the run is over.
    let (c, addr) = coordinator(&root.0, TOKEN, &store, "127.0.0.1:0", 3, &[]);
    let url = format!("http://{addr}");

    // A wrong token, no token, another protocol version.
    match link(&url, "not-the-token").register("x", 1) {
        Err(LinkError::Refused(m)) => assert!(m.contains("wrong token"), "{m}"),
        other => panic!("{other:?}"),
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let code = rt.block_on(async {
        let mut raw = CoordinatorClient::connect(url.clone()).await.unwrap();
        let bare = raw.register(RegisterRequest { worker_name: "x".into(), threads: 1 }).await.unwrap_err();
        assert_eq!(bare.message(), "protocol version missing, this coordinator speaks 2");
        let mut req = tonic::Request::new(RegisterRequest { worker_name: "x".into(), threads: 1 });
        req.metadata_mut().insert("foxbase-protocol", "2".parse().unwrap());
        let e = raw.register(req).await.unwrap_err();
        assert_eq!(e.message(), "no token");
        let mut req = tonic::Request::new(RegisterRequest { worker_name: "x".into(), threads: 1 });
        req.metadata_mut().insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
        req.metadata_mut().insert("foxbase-protocol", "999".parse().unwrap());
        let v = raw.register(req).await.unwrap_err();
        assert!(v.message().contains("protocol version 999, this coordinator speaks 2"), "{v:?}");
        (e.code(), v.code())
    });
    assert_eq!(code, (tonic::Code::Unauthenticated, tonic::Code::FailedPrecondition));

    // Malformed completions from a registered worker holding a lease.
    let l = link(&url, TOKEN);
    let me = l.register("mallory", 1).unwrap();
    let LeaseAnswer::Assigned(a) = l.lease(&me.worker_id).unwrap() else { panic!("a tier is ready") };
    let good = Completion {
        worker_id: me.worker_id.clone(),
        lease_id: a.lease_id,
        upload_key: a.upload_key.clone(),
        report: TierReport {
            tier_name: a.tier.clone(),
            stats: TierStats::default(),
            crc32: 0,
            bytes: 0,
            seconds: 0.0,
            phases: Default::default(),
            plies: None,
        },
    };
    let refused = |req: Completion, want: &str| match l.complete(&req) {
        Err(LinkError::Refused(m)) => assert!(m.contains(want), "'{m}' should say '{want}'"),
        other => panic!("{other:?}"),
    };
    let edit = |from: &Completion, f: &dyn Fn(&mut Completion)| {
        let mut c = from.clone();
        f(&mut c);
        c
    };
    refused(edit(&good, &|c| c.report.tier_name = "f9-9.9.9.9.9.9.9".into()), "no such tier in this run");
    let slots = a.tier.len() as u64; // anything but the tier's size
    refused(edit(&good, &|c| c.report.stats.slots = slots), "slots claimed, the tier has");
    // Garbage uploaded under the key: a wrong checksum, then a right checksum of a non-table.
    let upload = store.join(&a.upload_key);
    let game = game();
    let plan = TierPlan::new(&game);
    let tier = foxbase_core::tier::TierGame::parse_tier_name(&game, &a.tier).unwrap();
    let size = plan.slots[&tier];
    // (Claiming a plies file: the claims are judged before the uploads are read.)
    let good = edit(&good, &|c| {
        c.report.stats.slots = size;
        c.report.stats.wins = size;
        c.report.plies = Some(foxbase_worker::job::PliesReport { crc32: 0, bytes: 0, longest: 0 });
    });
    refused(good.clone(), "0 bytes claimed, the store holds no upload");
    std::fs::create_dir_all(upload.parent().unwrap()).unwrap();
    std::fs::write(&upload, b"not a table at all").unwrap();
    refused(
        edit(&good, &|c| {
            c.report.bytes = 18;
            c.report.crc32 = 1;
        }),
        "checksum 00000001 claimed",
    );
    std::fs::write(&upload, b"not a table at all").unwrap();
    let crc = crc32fast::hash(b"not a table at all");
    refused(
        edit(&good, &|c| {
            c.report.bytes = 18;
            c.report.crc32 = crc;
        }),
        "too short for a table header",
    );
    // A real table without its plies file, in a run with plies.
    let child_path = |_| unreachable!("the first tier leased has no children");
    let report = foxbase_worker::job::solve_to_file(
        &game,
        tier,
        &child_path,
        &upload,
        1,
        foxbase_worker::kernel::Kernel::Planes,
        foxbase_worker::kernel::Output::Values,
    )
    .unwrap();
    refused(edit(&good, &|c| c.report = report.clone()), "it brings no plies to a run with plies");
    std::fs::write(&upload, b"x").unwrap();
    refused(
        edit(&good, &|c| {
            c.upload_key = "tiers/x.fxt".into();
            c.report.bytes = 1;
        }),
        "not an upload key",
    );
    let s = l.status().unwrap();
    assert_eq!(s.completions_rejected, 7);
    assert_eq!(s.tiers_done, 0, "nothing was accepted");

    // The run goes on and ends with the right tables.
    let w = worker(&root.0, TOKEN, &url, "honest", &[]);
    l.release(&me.worker_id, a.lease_id).unwrap();
    let out = c.finish_ok(Duration::from_secs(60));
    assert_eq!(summary(&out)["completions_rejected"], 7);
    assert_eq!(checksums(&store), expected);
    w.finish_ok(Duration::from_secs(20));
}

#[test]
fn tls_solves_the_same_and_a_plain_client_is_turned_away() {
    let root = TempDir::new("dist-tls");
    let expected = local_checksums(&root.0);
    let store = root.0.join("store");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let cert = data.join("server.pem");
    let key = data.join("server.key");
    let (c, addr) = coordinator(
        &root.0,
        TOKEN,
        &store,
        "127.0.0.1:0",
        30,
        &["--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()],
    );
    c.wait_for_line("(TLS)", Duration::from_secs(5));
    let port = addr.rsplit(':').next().unwrap();
    // Plain HTTP/2 to a TLS port never gets an answer it can use.
    match link(&format!("http://127.0.0.1:{port}"), TOKEN).register("plain", 1) {
        Err(LinkError::Unavailable(_)) | Err(LinkError::Refused(_)) => {}
        other => panic!("{other:?}"),
    }
    let ca = data.join("ca.pem");
    let w = worker(&root.0, TOKEN, &format!("https://localhost:{port}"), "tls", &["--tls-ca", ca.to_str().unwrap()]);
    c.finish_ok(Duration::from_secs(60));
    assert_eq!(checksums(&store), expected);
    w.finish_ok(Duration::from_secs(20));
}

#[test]
fn sigterm_makes_a_worker_give_its_lease_back_and_status_shows_it() {
    let root = TempDir::new("dist-sigterm");
    let store = root.0.join("store");
    let (c, addr) = coordinator(&root.0, TOKEN, &store, "127.0.0.1:0", 30, &[]);
    let url = format!("http://{addr}");
    let holder = worker(&root.0, TOKEN, &url, "holder", &["--hold-ms", "600000"]);
    let status = || {
        let out = foxbase().args(["status", &url, "--json", "--token-file"]).arg(token_file(&root.0, TOKEN)).output();
        let out = out.unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        summary(&String::from_utf8(out.stdout).unwrap())
    };
    let until = Instant::now() + Duration::from_secs(20);
    while status()["tiers"]["running"] != 1 {
        assert!(Instant::now() < until, "no lease taken");
        std::thread::sleep(Duration::from_millis(50));
    }
    let s = status();
    assert_eq!(s["tiers"]["total"], 100);
    assert_eq!(s["workers"][0]["name"], "holder");
    assert_eq!(s["workers"][0]["leases"].as_array().unwrap().len(), 1, "{s}");
    let pid = holder.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    holder.finish_ok(Duration::from_secs(10));
    let s = status();
    assert_eq!(s["tiers"]["running"], 0, "released, not left to expire: {s}");
    assert_eq!(s["leases_expired"], 0);
    let helper = worker(&root.0, TOKEN, &url, "helper", &[]);
    let out = c.finish_ok(Duration::from_secs(60));
    let s = summary(&out);
    assert_eq!((s["leases_issued"].as_u64(), s["leases_expired"].as_u64()), (Some(101), Some(0)), "{s}");
    helper.finish_ok(Duration::from_secs(20));
}

/// The body of `GET /metrics` at `addr`.
fn scrape(addr: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: test\r\n\r\n").unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
    reply.split("\r\n\r\n").nth(1).unwrap().to_string()
}

/// The value of the sample `name` (with its labels, as written) in `text`.
fn sample(text: &str, name: &str) -> f64 {
    let line =
        text.lines().find(|l| l.split(' ').next() == Some(name)).unwrap_or_else(|| panic!("no {name} in {text}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// The metrics address a process logged, from its JSON log lines.
fn metrics_addr(p: &Proc) -> String {
    let line = p.wait_for_line("metrics on http://", Duration::from_secs(20));
    let log: Json = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a JSON log line ({e}): {line}"));
    assert_eq!(log["level"], "INFO");
    let message = log["fields"]["message"].as_str().unwrap();
    message.strip_prefix("metrics on http://").unwrap().strip_suffix("/metrics").unwrap().to_string()
}

#[test]
fn metrics_are_scraped_during_a_run_and_logs_are_json_lines() {
    let root = TempDir::new("dist-metrics");
    let store = root.0.join("store");
    // (--resume-if-journaled with no journal yet: a new run.)
    let json_logs = ["--metrics-listen", "127.0.0.1:0", "--log-format", "json", "--resume-if-journaled"];
    let (c, addr) = coordinator(&root.0, TOKEN, &store, "127.0.0.1:0", 30, &json_logs);
    let coordinator_metrics = metrics_addr(&c);
    let before = scrape(&coordinator_metrics);
    assert_eq!(sample(&before, "foxbase_tiers{state=\"pending\"}"), 100.0);
    assert_eq!(sample(&before, "foxbase_workers"), 0.0);
    assert!(before.contains("# TYPE foxbase_leases_issued_total counter\n"), "{before}");
    // 100 ms a tier: about 10 s, to scrape mid-run.
    let w = worker(
        &root.0,
        TOKEN,
        &format!("http://{addr}"),
        "metered",
        &["--hold-ms", "100", "--metrics-listen", "127.0.0.1:0"],
    );
    let worker_metrics = {
        let line = w.wait_for_line("metrics on http://", Duration::from_secs(20));
        // Text lines: time, level, message, then the fields (role="worker").
        assert!(line.contains(" INFO ") && line.ends_with("role=\"worker\""), "{line}");
        line.split("metrics on http://").nth(1).unwrap().split("/metrics").next().unwrap().to_string()
    };
    let until = Instant::now() + Duration::from_secs(60);
    let mid = loop {
        let m = scrape(&coordinator_metrics);
        if sample(&m, "foxbase_tiers{state=\"done\"}") >= 20.0 {
            break m;
        }
        assert!(Instant::now() < until, "no progress: {m}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let state = |s: &str| sample(&mid, &format!("foxbase_tiers{{state=\"{s}\"}}"));
    assert_eq!(state("done") + state("running") + state("pending"), 100.0, "{mid}");
    assert!(state("done") < 100.0, "{mid}");
    assert_eq!(sample(&mid, "foxbase_workers"), 1.0);
    assert!(sample(&mid, "foxbase_leases_issued_total") >= state("done"));
    assert_eq!(sample(&mid, "foxbase_leases_expired_total"), 0.0);
    assert_eq!(sample(&mid, "foxbase_completions_rejected_total"), 0.0);
    assert!(sample(&mid, "foxbase_slots_solved_total") > 0.0);
    assert!(sample(&mid, "foxbase_store_bytes_written_total") > 0.0);
    let wm = scrape(&worker_metrics);
    assert!(sample(&wm, "foxbase_worker_tiers_solved_total") >= 1.0, "{wm}");
    assert!(sample(&wm, "foxbase_store_bytes_written_total") > 0.0, "{wm}");
    assert!(sample(&wm, "foxbase_worker_phase_seconds_total{phase=\"propagate\"}") >= 0.0, "{wm}");
    let logged = c.lines.clone();
    let s = summary(&c.finish_ok(Duration::from_secs(60)));
    assert_eq!(s["tiers"], 100);
    let manifest = Manifest::read(&store).unwrap();
    let written: u64 = manifest.tiers.iter().map(|t| t.bytes + t.plies.as_ref().map_or(0, |p| p.bytes)).sum();
    assert!(sample(&mid, "foxbase_store_bytes_written_total") < written as f64);
    w.finish_ok(Duration::from_secs(20));
    // Every log line of the coordinator is one JSON object with its role.
    let logged = logged.lock().unwrap();
    assert!(logged.len() >= 3, "{logged:?}");
    for line in logged.iter() {
        let log: Json = serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON log line ({e}): {line}"));
        assert_eq!(log["fields"]["role"], "coordinator", "{line}");
    }
}
