//! A distributed solve under the faults a cloud run meets, each ending in
//! the tables of a local solve, byte for byte (every file the manifest
//! names, the tier index, the start's value):
//! - the S3 server (SeaweedFS) killed and restarted mid-run, once and
//!   repeatedly;
//! - a proxy between the processes and the store that answers 500 or 503, or cuts
//!   connections for a stretch, or slows every chunk down (the links'
//!   delay and loss: `tc netem` is not in these machines' kernel, so the
//!   proxy makes them);
//! - a worker's cache on a full disk until space comes back, and a
//!   directory store on a full disk;
//! - a worker's cached child tables flipped, truncated or replaced by
//!   another tier's: found by their CRC, fetched again;
//! - a worker's cache kept under `--cache-max`;
//! - the coordinator killed while a worker's upload waits in `incoming/`,
//!   and started again with `--resume-if-journaled`;
//! - a worker cut off from the coordinator mid-tier, whose lease expires
//!   and whose tier another worker solves too: one result stands;
//! - (ignored, a soak of two minutes) 50 random faults of all these kinds
//!   over one solve of the kernel benchmark's variant.
//!
//! When a fault strikes comes from a seeded generator (the number of tiers
//! journaled first), several seeds per fault. The tests that use the S3
//! server take turns ([`serial`]): one kills it.

mod common;
mod s3_server;

use common::{coordinator, foxbase, worker, Proc, TempDir, DIST_K as K, DIST_START as START};
use foxbase_coordinator::grpc::client::{Credentials, GrpcLink};
use s3_server::{assert_same_files, direct_bucket, endpoint, S3Server, BUCKET};
use serde_json::Value as Json;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

const TOKEN: &str = "faults-test-token";
/// Tiers of the distributed tests' variant.
const TIERS: usize = 100;

/// The S3 server, started by the first test that needs it; holding the
/// guard is a test's turn with it.
fn serial() -> MutexGuard<'static, Option<S3Server>> {
    static SERVER: Mutex<Option<S3Server>> = Mutex::new(None);
    let mut guard = SERVER.lock().unwrap_or_else(|p| p.into_inner());
    if guard.is_none() {
        *guard = Some(S3Server::start());
    }
    guard
}

/// The local solve every faulty run must reproduce.
fn reference() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("foxbase-test-faults-reference-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = foxbase()
            .args(["solve", "--start", START, "--pen-target", K, "--threads", "1", "--json", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        dir
    })
}

/// SplitMix64: when each fault strikes, from a seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        foxbase_worker::retry::splitmix64(&mut self.0) % n
    }
}

/// A run's folder of the bucket, unique to the test and seed.
fn run_prefix(tag: &str, seed: u64) -> (String, String) {
    let prefix = format!("{tag}-{seed}-{}", std::process::id());
    (format!("s3://{BUCKET}/{prefix}"), prefix)
}

/// Waits until `count()` reaches `n`, ignoring failures (the store may be down).
fn wait_until(what: &str, n: usize, count: impl Fn() -> Option<usize>) {
    let until = Instant::now() + Duration::from_secs(120);
    while count().is_none_or(|c| c < n) {
        assert!(Instant::now() < until, "{what} did not reach {n}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts a coordinator and one worker of the test variant on the store
/// `store`, both reaching S3 at `s3_endpoint`.
fn start_run(root: &Path, store: &str, s3_endpoint: &str, worker_extra: &[&str]) -> (Proc, Proc) {
    std::env::set_var("AWS_ENDPOINT_URL", s3_endpoint);
    let (c, addr) = coordinator(root, TOKEN, store, "127.0.0.1:0", 10, &[]);
    let w = worker(root, TOKEN, &format!("http://{addr}"), "w", worker_extra);
    std::env::set_var("AWS_ENDPOINT_URL", endpoint());
    (c, w)
}

/// Waits for the run to finish and checks its tables against the local solve's.
fn finish_run(c: Proc, w: Proc, prefix: &str) -> (Vec<String>, Vec<String>) {
    let c_lines = c.lines.clone();
    let s: Json = serde_json::from_str(c.finish_ok(Duration::from_secs(300)).trim()).unwrap();
    assert_eq!(s["value"], "win");
    let w_lines = w.lines.clone();
    w.finish_ok(Duration::from_secs(60));
    let bucket = direct_bucket(prefix);
    assert_same_files(&bucket, reference());
    use foxbase_worker::store::Store;
    assert_eq!(bucket.list("journal/tiers").unwrap().len(), TIERS);
    let lines = |l: Arc<Mutex<Vec<String>>>| l.lock().unwrap().clone();
    (lines(c_lines), lines(w_lines))
}

fn count_lines(lines: &[String], needle: &str) -> usize {
    lines.iter().filter(|l| l.contains(needle)).count()
}

#[test]
fn an_s3_server_killed_and_restarted_mid_run_changes_no_table() {
    let mut server = serial();
    // Seed 1: one restart; seed 2: three.
    for (seed, restarts) in [(1, 1), (2, 3)] {
        let root = TempDir::new("s3-restart");
        let mut rng = Rng(seed);
        let (store, prefix) = run_prefix("restart", seed);
        let (c, w) = start_run(&root.0, &store, &endpoint(), &[]);
        let journal = direct_bucket(&prefix);
        use foxbase_worker::store::Store;
        let mut at = 0;
        for _ in 0..restarts {
            at += 5 + rng.below(20) as usize;
            wait_until("the journal", at, || journal.list("journal/tiers").ok().map(|k| k.len()));
            let s = server.as_mut().unwrap();
            s.kill();
            std::thread::sleep(Duration::from_millis(500 + rng.below(2000)));
            s.restart();
        }
        let (c_lines, w_lines) = finish_run(c, w, &prefix);
        let retried = count_lines(&c_lines, "retrying with backoff") + count_lines(&w_lines, "retrying with backoff");
        assert!(retried >= 1, "seed {seed}: no retry logged: {c_lines:?} {w_lines:?}");
    }
}

/// What the proxy does with a connection.
const PASS: u8 = 0;
const ANSWER_503: u8 = 1;
const CUT: u8 = 2;
const ANSWER_500: u8 = 3;

/// A TCP proxy in front of the S3 server that passes connections through,
/// answers `503 Slow Down` or `500 Internal Server Error` to every request,
/// or cuts connections; and
/// delays every chunk it passes by `delay_ms`.
struct Proxy {
    addr: SocketAddr,
    mode: Arc<AtomicU8>,
    delay_ms: Arc<AtomicU64>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    /// A proxy to the S3 server.
    fn start() -> Proxy {
        Proxy::start_to(s3_server::S3_PORT)
    }

    /// A proxy to the loopback port `upstream`.
    fn start_to(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (mode, delay_ms, open) = (Arc::new(AtomicU8::new(PASS)), Arc::new(AtomicU64::new(0)), Arc::default());
        let proxy = Proxy { addr, mode, delay_ms, open };
        let (mode, delay_ms, open): (Arc<AtomicU8>, Arc<AtomicU64>, Arc<Mutex<Vec<TcpStream>>>) =
            (proxy.mode.clone(), proxy.delay_ms.clone(), proxy.open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                match mode.load(Ordering::SeqCst) {
                    ANSWER_503 => {
                        std::thread::spawn(move || answer_error(client, "503 Slow Down", "SlowDown"));
                    }
                    ANSWER_500 => {
                        std::thread::spawn(move || answer_error(client, "500 Internal Server Error", "InternalError"));
                    }
                    CUT => drop(client),
                    _ => {
                        let Ok(upstream) = TcpStream::connect(("127.0.0.1", upstream)) else { continue };
                        open.lock().unwrap().extend([client.try_clone().unwrap(), upstream.try_clone().unwrap()]);
                        for (from, to) in
                            [(client.try_clone().unwrap(), upstream.try_clone().unwrap()), (upstream, client)]
                        {
                            let delay = delay_ms.clone();
                            std::thread::spawn(move || pipe(from, to, &delay));
                        }
                    }
                }
            }
        });
        proxy
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Sets what new connections get; a fault cuts the open ones too.
    fn set(&self, mode: u8) {
        self.mode.store(mode, Ordering::SeqCst);
        if mode != PASS {
            for s in self.open.lock().unwrap().drain(..) {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
        }
    }
}

fn pipe(mut from: TcpStream, mut to: TcpStream, delay_ms: &AtomicU64) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let d = delay_ms.load(Ordering::Relaxed);
                if d > 0 {
                    std::thread::sleep(Duration::from_millis(d));
                }
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Write);
}

/// Reads a request's head and answers `status` (an S3 error `code`), closing the connection.
fn answer_error(mut client: TcpStream, status: &str, code: &str) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && client.read(&mut byte).is_ok_and(|n| n == 1) {
        head.push(byte[0]);
    }
    let body = format!("<?xml version=\"1.0\"?><Error><Code>{code}</Code><Message>injected</Message></Error>");
    let _ = write!(
        client,
        "HTTP/1.1 {status}\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

#[test]
fn a_store_answering_500_or_503_or_cutting_connections_for_a_while_changes_no_table() {
    let _server = serial();
    let proxy = Proxy::start();
    // Each seed: a fault, when it starts (tiers journaled) and how long it lasts.
    for (seed, fault) in [(3, ANSWER_503), (4, CUT), (5, ANSWER_500), (6, CUT)] {
        let root = TempDir::new("s3-proxy");
        let mut rng = Rng(seed);
        let (store, prefix) = run_prefix("proxy", seed);
        proxy.set(PASS);
        // Slow links: every chunk through the proxy waits 0 to 3 ms.
        proxy.delay_ms.store(rng.below(4), Ordering::Relaxed);
        let (c, w) = start_run(&root.0, &store, &proxy.url(), &["--metrics-listen", "127.0.0.1:0"]);
        let metrics = w.wait_for_line("metrics on http://", Duration::from_secs(30));
        let metrics = metrics.split("http://").nth(1).unwrap().split('/').next().unwrap().to_string();
        let journal = direct_bucket(&prefix);
        use foxbase_worker::store::Store;
        let at = 5 + rng.below(40) as usize;
        wait_until("the journal", at, || journal.list("journal/tiers").ok().map(|k| k.len()));
        proxy.set(fault);
        std::thread::sleep(Duration::from_millis(500 + rng.below(2500)));
        proxy.set(PASS);
        // The worker's retries are in its /metrics while it runs.
        let retries = scrape(&metrics, "foxbase_retries_total ");
        let (c_lines, w_lines) = finish_run(c, w, &prefix);
        let recovered = count_lines(&c_lines, "succeeded after") + count_lines(&w_lines, "succeeded after");
        assert!(recovered >= 1, "seed {seed}: no recovery logged: {c_lines:?} {w_lines:?}");
        let logged_first = count_lines(&w_lines, "retrying with backoff");
        assert!(
            retries.is_some_and(|r| r >= 1.0) || logged_first == 0,
            "seed {seed}: the worker retried ({logged_first} operations) but its /metrics says {retries:?}"
        );
    }
}

/// The value of the sample starting with `name` at `http://addr/metrics`,
/// or `None` if the worker is gone.
fn scrape(addr: &str, name: &str) -> Option<f64> {
    let mut stream = TcpStream::connect(addr).ok()?;
    write!(stream, "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    text.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().parse().unwrap())
}

#[test]
fn cached_child_tables_flipped_truncated_or_replaced_are_fetched_again() {
    let _server = serial();
    let root = TempDir::new("s3-cache-rot");
    // A first run fills the worker's cache with child tables.
    let (store, prefix) = run_prefix("rot-first", 7);
    let (c, w) = start_run(&root.0, &store, &endpoint(), &[]);
    finish_run(c, w, &prefix);
    let cache = root.0.join("cache-w/tiers");
    let pristine: Vec<(PathBuf, Vec<u8>)> = {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().path()).collect();
        files.retain(|p| p.extension().is_some_and(|e| e == "fxt"));
        files.sort();
        files.into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
    };
    assert!(pristine.len() >= 10, "{} cached tables", pristine.len());
    for seed in [7, 8] {
        // The cache as the first run left it, then three tables rotten, chosen by the seed.
        for (path, bytes) in &pristine {
            std::fs::write(path, bytes).unwrap();
        }
        let mut cached: Vec<PathBuf> = pristine.iter().map(|(p, _)| p.clone()).collect();
        let mut rng = Rng(seed);
        let mut pick = || cached.remove(rng.below(cached.len() as u64) as usize);
        let (flipped, truncated, replaced, other) = (pick(), pick(), pick(), pick());
        let mut bytes = std::fs::read(&flipped).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x10;
        std::fs::write(&flipped, bytes).unwrap();
        let bytes = std::fs::read(&truncated).unwrap();
        std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
        std::fs::copy(&other, &replaced).unwrap();
        // A run with that cache: the rotten copies are fetched again.
        let (store, prefix) = run_prefix("rot-second", seed);
        let (c, w) = start_run(&root.0, &store, &endpoint(), &[]);
        let (_, w_lines) = finish_run(c, w, &prefix);
        for rotten in [&flipped, &truncated, &replaced] {
            let name = rotten.file_name().unwrap().to_string_lossy().into_owned();
            let told =
                w_lines.iter().any(|l| l.contains(&name) && l.contains("does not match the coordinator's record"));
            assert!(told, "seed {seed}: {name} was not fetched again: {w_lines:?}");
        }
        assert_eq!(count_lines(&w_lines, "does not match the coordinator's record"), 3, "seed {seed}: {w_lines:?}");
    }
}

/// Bytes of the files under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| if e.path().is_dir() { bytes_under(&e.path()) } else { e.metadata().map_or(0, |m| m.len()) })
        .sum()
}

#[test]
fn a_worker_keeps_its_cache_under_cache_max() {
    let _server = serial();
    let root = TempDir::new("s3-cache-max");
    let manifest = foxbase_tables::manifest::Manifest::read(reference()).unwrap();
    let total: u64 = manifest.tiers.iter().map(|t| t.bytes + t.plies.as_ref().map_or(0, |p| p.bytes)).sum();
    let largest = manifest.tiers.iter().map(|t| t.bytes + t.plies.as_ref().map_or(0, |p| p.bytes)).max().unwrap();
    let max = total / 4;
    let (store, prefix) = run_prefix("cache-max", 8);
    let (c, w) = start_run(&root.0, &store, &endpoint(), &["--cache-max", &max.to_string()]);
    // The cache's size, watched while the run goes on.
    let cache = root.0.join("cache-w");
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (cache, done) = (cache.clone(), done.clone());
        std::thread::spawn(move || {
            let mut most = 0;
            while !done.load(Ordering::Relaxed) {
                most = most.max(bytes_under(&cache));
                std::thread::sleep(Duration::from_millis(5));
            }
            most
        })
    };
    finish_run(c, w, &prefix);
    done.store(true, Ordering::Relaxed);
    let most = watcher.join().unwrap();
    // The limit, plus the table being written before its upload.
    assert!(most <= max + largest, "the cache held {most} bytes, over {max} + {largest}");
    assert!(bytes_under(&cache) <= max, "{} bytes left, over {max}", bytes_under(&cache));
    assert!(total > 2 * max, "the tables ({total} bytes) exceed the limit ({max})");
}

/// A small tmpfs mounted for a test (these tests run as root), unmounted on drop.
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(at: &Path, bytes: u64) -> SmallDisk {
        std::fs::create_dir_all(at).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(at)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "mounting a {bytes}-byte tmpfs at {} failed: the full-disk tests need root", at.display());
        SmallDisk(at.to_path_buf())
    }

    /// Fills the disk but for `spare` bytes with a ballast file.
    fn fill(&self, spare: u64) -> PathBuf {
        let ballast = self.0.join("ballast");
        let free = {
            let out = std::process::Command::new("df").args(["-B1", "--output=avail"]).arg(&self.0).output().unwrap();
            String::from_utf8(out.stdout).unwrap().lines().nth(1).unwrap().trim().parse::<u64>().unwrap()
        };
        let mut f = std::fs::File::create(&ballast).unwrap();
        let chunk = vec![0xa5u8; 4096];
        let mut left = free.saturating_sub(spare);
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            if f.write_all(&chunk[..n]).is_err() {
                break;
            }
            left -= n as u64;
        }
        f.sync_all().unwrap();
        ballast
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_worker_whose_cache_disk_is_full_waits_for_space_and_changes_no_table() {
    let _server = serial();
    for seed in [9, 10] {
        let root = TempDir::new("s3-enospc");
        let mut rng = Rng(seed);
        let disk = SmallDisk::mount(&root.0.join("cache-w"), 16 << 20);
        let (store, prefix) = run_prefix("enospc", seed);
        let (c, w) = start_run(&root.0, &store, &endpoint(), &[]);
        let journal = direct_bucket(&prefix);
        use foxbase_worker::store::Store;
        let at = 5 + rng.below(30) as usize;
        wait_until("the journal", at, || journal.list("journal/tiers").ok().map(|k| k.len()));
        let ballast = disk.fill(rng.below(2048));
        let lines = w.lines.clone();
        let until = Instant::now() + Duration::from_secs(60);
        while !lines.lock().unwrap().iter().any(|l| l.contains("No space left") || l.contains("storage full")) {
            assert!(
                Instant::now() < until,
                "seed {seed}: the worker never met the full disk: {:?}",
                lines.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let stuck = journal.list("journal/tiers").unwrap().len();
        std::thread::sleep(Duration::from_millis(300 + rng.below(1000)));
        assert!(journal.list("journal/tiers").unwrap().len() <= stuck + 1, "seed {seed}: tiers went on without space");
        std::fs::remove_file(ballast).unwrap();
        let (_, w_lines) = finish_run(c, w, &prefix);
        assert!(count_lines(&w_lines, "retr") >= 1, "seed {seed}: {w_lines:?}");
        drop(disk);
    }
}

#[test]
fn a_directory_store_on_a_full_disk_waits_for_space_and_changes_no_table() {
    for seed in [16, 17] {
        let mut rng = Rng(seed);
        let root = TempDir::new("dir-enospc");
        let disk = SmallDisk::mount(&root.0.join("store"), 16 << 20);
        let store = disk.0.join("tables");
        let (c, addr) = coordinator(&root.0, TOKEN, &store, "127.0.0.1:0", 10, &[]);
        let w = worker(&root.0, TOKEN, &format!("http://{addr}"), "w", &[]);
        let journal = || std::fs::read_to_string(store.join("journal.log")).ok().map(|j| j.lines().count());
        wait_until("the journal", 5 + rng.below(40) as usize, journal);
        let ballast = disk.fill(rng.below(2048));
        let lines = w.lines.clone();
        let until = Instant::now() + Duration::from_secs(60);
        while !lines.lock().unwrap().iter().any(|l| l.contains("No space left")) {
            assert!(
                Instant::now() < until,
                "seed {seed}: the worker never met the full disk: {:?}",
                lines.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(200 + rng.below(1000)));
        std::fs::remove_file(ballast).unwrap();
        let s: Json = serde_json::from_str(c.finish_ok(Duration::from_secs(300)).trim()).unwrap();
        assert_eq!(s["value"], "win");
        w.finish_ok(Duration::from_secs(60));
        let expected = foxbase_tables::manifest::Manifest::read(reference()).unwrap();
        let solved = foxbase_tables::manifest::Manifest::read(&store).unwrap();
        assert_eq!(solved.tiers, expected.tiers);
        assert_eq!(solved.start, expected.start);
        for t in &expected.tiers {
            let (ours, theirs) = (store.join(&t.file), reference().join(&t.file));
            assert_eq!(std::fs::read(ours).unwrap(), std::fs::read(theirs).unwrap(), "seed {seed}: {}", t.file);
        }
        drop(disk);
    }
}

#[test]
fn a_coordinator_killed_while_a_worker_uploads_resumes_and_changes_no_table() {
    let _server = serial();
    let proxy = Proxy::start();
    for seed in [13, 14] {
        let root = TempDir::new("s3-kill-upload");
        let mut rng = Rng(seed);
        let (store, prefix) = run_prefix("kill-upload", seed);
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let listen = format!("127.0.0.1:{port}");
        let (c1, _) = coordinator(&root.0, TOKEN, &store, &listen, 10, &[]);
        // The worker's link to the store is slow: its uploads take a while.
        proxy.set(PASS);
        proxy.delay_ms.store(20 + rng.below(40), Ordering::Relaxed);
        std::env::set_var("AWS_ENDPOINT_URL", proxy.url());
        let w = worker(&root.0, TOKEN, &format!("http://{listen}"), "w", &[]);
        std::env::set_var("AWS_ENDPOINT_URL", endpoint());
        let bucket = direct_bucket(&prefix);
        use foxbase_worker::store::Store;
        wait_until("the journal", 5 + rng.below(20) as usize, || bucket.list("journal/tiers").ok().map(|k| k.len()));
        // An upload has landed and is not yet accepted: kill the coordinator now.
        wait_until("an upload", 1, || bucket.list("incoming").ok().map(|k| k.len()));
        c1.kill9();
        proxy.delay_ms.store(0, Ordering::Relaxed);
        let done = bucket.list("journal/tiers").unwrap().len();
        assert!(done < TIERS, "seed {seed}: the run was over");
        std::thread::sleep(Duration::from_millis(200 + rng.below(1500)));
        let (c2, _) = coordinator(&root.0, TOKEN, &store, &listen, 10, &["--resume-if-journaled"]);
        let (_, w_lines) = finish_run(c2, w, &prefix);
        assert!(
            count_lines(&w_lines, "registering again") + count_lines(&w_lines, "coordinator unavailable") >= 1,
            "seed {seed}: {w_lines:?}"
        );
        assert_eq!(bucket.list("incoming").unwrap(), Vec::<String>::new(), "seed {seed}: uploads left behind");
    }
}

/// The kernel benchmark's variant: two foxes against six sheep, K = 5
/// (592 tiers, 145,115,936 slots).
const SOAK_START: &str = "F.F/.../......./......./SSSSSS./.../... f";
const SOAK_K: &str = "5";
const SOAK_TIERS: u64 = 592;

/// A worker of the soak's run, reaching S3 through `endpoint`.
fn soak_worker(root: &Path, url: &str, name: &str, endpoint: &str) -> Proc {
    std::env::set_var("AWS_ENDPOINT_URL", endpoint);
    let w = worker(root, TOKEN, url, name, &["--give-up-after", "120"]);
    std::env::set_var("AWS_ENDPOINT_URL", s3_server::endpoint());
    w
}

/// 50 random faults of every kind above over one solve of the kernel
/// benchmark's variant on the S3 store, two workers: the tables must be a
/// local solve's. Prints the counts (faults by kind, retries, tiers
/// redone). About two minutes here; run it with
/// `cargo test --release -p foxbase --test faults -- --ignored --nocapture soak`
/// (SOAK_SEED picks another sequence of faults).
#[test]
#[ignore = "a soak of a few minutes, outside CI's time budget"]
fn soak_fifty_random_faults_over_one_solve() {
    let mut server = serial();
    let seed: u64 = std::env::var("SOAK_SEED").map_or(11, |s| s.parse().unwrap());
    let mut rng = Rng(seed);
    let root = TempDir::new("soak");
    let reference = root.0.join("reference");
    let out = foxbase()
        .args(["solve", "--start", SOAK_START, "--pen-target", SOAK_K, "--json", "--out"])
        .arg(&reference)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let proxy = Proxy::start();
    let disks: Vec<SmallDisk> =
        ["w1", "w2"].iter().map(|n| SmallDisk::mount(&root.0.join(format!("cache-{n}")), 256 << 20)).collect();
    let (store, prefix) = run_prefix("soak", seed);
    std::env::set_var("AWS_ENDPOINT_URL", proxy.url());
    let mut cmd = foxbase();
    cmd.args(["coordinator", "--start", SOAK_START, "--pen-target", SOAK_K, "--listen", "127.0.0.1:0", "--json"])
        .args(["--store", &store, "--lease-seconds", "5"])
        .arg("--token-file")
        .arg(common::token_file(&root.0, TOKEN));
    let mut c = Proc::spawn(cmd);
    std::env::set_var("AWS_ENDPOINT_URL", s3_server::endpoint());
    let line = c.wait_for_line("listening on ", Duration::from_secs(30));
    let url = format!("http://{}", line.split("listening on ").nth(1).unwrap().split_whitespace().next().unwrap());
    let mut workers: Vec<Proc> = ["w1", "w2"].iter().map(|n| soak_worker(&root.0, &url, n, &proxy.url())).collect();
    let mut old_lines: Vec<Arc<Mutex<Vec<String>>>> = Vec::new();
    const KINDS: [&str; 7] =
        ["store restart", "500/503", "cut links", "slow links", "cache rot", "worker kill", "full disk"];
    let mut injected = [0u32; KINDS.len()];
    let started = Instant::now();
    while injected.iter().sum::<u32>() < 50 {
        std::thread::sleep(Duration::from_millis(100 + rng.below(500)));
        let kind = rng.below(KINDS.len() as u64) as usize;
        let stretch = Duration::from_millis(200 + rng.below(1300));
        match kind {
            0 => {
                let s = server.as_mut().unwrap();
                s.kill();
                std::thread::sleep(stretch);
                s.restart();
            }
            1 | 2 => {
                proxy.set(match kind {
                    2 => CUT,
                    _ if rng.below(2) == 0 => ANSWER_500,
                    _ => ANSWER_503,
                });
                std::thread::sleep(stretch);
                proxy.set(PASS);
            }
            3 => {
                proxy.delay_ms.store(5 + rng.below(20), Ordering::Relaxed);
                std::thread::sleep(stretch);
                proxy.delay_ms.store(0, Ordering::Relaxed);
            }
            4 => {
                let disk = &disks[rng.below(2) as usize];
                let mut files: Vec<PathBuf> = std::fs::read_dir(disk.0.join("tiers"))
                    .map(|d| {
                        d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "fxt")).collect()
                    })
                    .unwrap_or_default();
                files.sort();
                if files.is_empty() {
                    continue;
                }
                let victim = &files[rng.below(files.len() as u64) as usize];
                if let Ok(mut bytes) = std::fs::read(victim) {
                    let at = rng.below(bytes.len() as u64) as usize;
                    bytes[at] ^= 0x01;
                    let _ = std::fs::write(victim, bytes);
                }
            }
            5 => {
                let i = rng.below(2) as usize;
                let name = ["w1", "w2"][i];
                let old = std::mem::replace(&mut workers[i], soak_worker(&root.0, &url, name, &proxy.url()));
                old_lines.push(old.lines.clone());
                old.kill9();
            }
            _ => {
                let ballast = disks[rng.below(2) as usize].fill(rng.below(8192));
                std::thread::sleep(stretch);
                std::fs::remove_file(ballast).unwrap();
            }
        }
        injected[kind] += 1;
        if c.child.try_wait().unwrap().is_some() {
            break; // the solve is over
        }
    }
    let faulting = started.elapsed();
    let c_lines = c.lines.clone();
    let s: Json = serde_json::from_str(c.finish_ok(Duration::from_secs(600)).trim()).unwrap();
    for w in workers {
        old_lines.push(w.lines.clone());
        w.finish_ok(Duration::from_secs(120));
    }
    let bucket = direct_bucket(&prefix);
    assert_same_files(&bucket, &reference);
    let mut all: Vec<String> = c_lines.lock().unwrap().clone();
    for l in &old_lines {
        all.extend(l.lock().unwrap().iter().cloned());
    }
    let retries: u64 = all
        .iter()
        .filter_map(|l| l.split("succeeded after ").nth(1).or_else(|| l.split("written after ").nth(1)))
        .map(|rest| rest.split(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    let refetched = count_lines(&all, "does not match the coordinator's record");
    let total: u32 = injected.iter().sum();
    eprintln!(
        "soak, seed {seed}: {total} faults in {faulting:.0?} ({}); {retries} retries of operations that recovered, \
         {} operations that failed at first, {refetched} cached tables fetched again; {} leases for {SOAK_TIERS} \
         tiers ({} redone), {} expired, {} completions rejected; the start {}; every table and plies file the local \
         solve's",
        KINDS.iter().zip(injected).map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", "),
        count_lines(&all, "retrying with backoff") + count_lines(&all, "solving it again when there is space"),
        s["leases_issued"],
        s["leases_issued"].as_u64().unwrap() - SOAK_TIERS,
        s["leases_expired"],
        s["completions_rejected"],
        s["value"],
    );
    assert_eq!(total, 50, "the solve ended before 50 faults: make it longer");
}

/// The tiers `worker` (by name) holds leases on, as the coordinator's status says.
fn leases_of(link: &GrpcLink, worker: &str) -> Vec<String> {
    let s = link.status().unwrap();
    s.workers.iter().filter(|w| w.name == worker).flat_map(|w| w.leased_tiers.clone()).collect()
}

#[test]
fn a_worker_whose_lease_expires_mid_tier_and_another_worker_on_that_tier_change_no_table() {
    // Every step waits for the state it needs (a lease held, a line
    // logged), not for a fixed time, so that a loaded machine only makes
    // it slower.
    let _server = serial();
    let root = TempDir::new("s3-expired");
    let (store, prefix) = run_prefix("expired", 15);
    let (c, addr) = coordinator(&root.0, TOKEN, &store, "127.0.0.1:0", 2, &[]);
    let url = format!("http://{addr}");
    let status = GrpcLink::new(&url, Credentials::new(TOKEN).unwrap(), None).unwrap();
    let coordinator_port: u16 = addr.rsplit(':').next().unwrap().parse().unwrap();
    let limit = Duration::from_secs(120);
    // Workers A and B each hold a lease until a heartbeat says it is lost.
    let holding = ["--hold-ms", "600000", "--hold-until-lost"];
    // A reaches the coordinator through a proxy and leases the first tier
    // (the plan's only tier ready at the start).
    let link = Proxy::start_to(coordinator_port);
    let a = worker(&root.0, TOKEN, &link.url(), "a", &holding);
    let line = a.wait_for_line("holding the lease of ", limit);
    let tier = line.split("holding the lease of ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    // A's link goes down: no heartbeats, its 2 s lease expires, B leases the tier.
    link.set(CUT);
    let b = worker(&root.0, TOKEN, &url, "b", &holding);
    b.wait_for_line(&format!("holding the lease of {tier} "), limit);
    assert_eq!(leases_of(&status, "b"), vec![tier.clone()]);
    // A's link comes back: its lease is lost, it finishes the tier anyway and
    // its table is taken; then B's lease is lost, B finishes the tier too,
    // and its table is not taken.
    link.set(PASS);
    a.wait_for_line(&format!("lease of {tier} lost; finishing it anyway"), limit);
    b.wait_for_line(&format!("lease of {tier} lost; finishing it anyway"), limit);
    b.wait_for_line(&format!("{tier}: solved again; another worker's table was taken first"), limit);
    // Both hold their next lease: stopped, they give it back, and C solves the rest.
    let (a_lines, b_lines) = (a.lines.clone(), b.lines.clone());
    for w in [&a, &b] {
        assert!(unsafe { libc::kill(w.child.id() as i32, libc::SIGTERM) } == 0);
    }
    a.finish_ok(limit);
    b.finish_ok(limit);
    let c_worker = worker(&root.0, TOKEN, &url, "c", &[]);
    let s: Json = serde_json::from_str(c.finish_ok(Duration::from_secs(300)).trim()).unwrap();
    assert_eq!(s["value"], "win");
    assert!(s["leases_expired"].as_u64().unwrap() >= 1, "{s}");
    assert_eq!(s["completions_rejected"], 0, "{s}");
    c_worker.finish_ok(limit);
    assert_same_files(&direct_bucket(&prefix), reference());
    let (a_lines, b_lines) = (a_lines.lock().unwrap().clone(), b_lines.lock().unwrap().clone());
    assert_eq!(count_lines(&a_lines, "already done elsewhere"), 0, "{a_lines:?}");
    assert_eq!(count_lines(&b_lines, "(1 already done elsewhere)"), 1, "{b_lines:?}");
}
