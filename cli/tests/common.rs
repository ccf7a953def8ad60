//! Helpers shared by the coordinator's integration tests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A fresh, empty directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("foxbase-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn foxbase() -> Command {
    Command::new(env!("CARGO_BIN_EXE_foxbase"))
}

/// A file holding `token`, written once (processes read it while others start).
pub fn token_file(root: &Path, token: &str) -> PathBuf {
    let p = root.join(format!("token-{}", token.len()));
    if !p.exists() {
        let tmp = root.join(format!(".token-{}-{:?}", token.len(), std::thread::current().id()));
        std::fs::write(&tmp, format!("{token}\n")).unwrap();
        std::fs::rename(&tmp, &p).unwrap();
    }
    p
}

/// A running process whose stderr lines are collected.
pub struct Proc {
    pub child: Child,
    pub lines: Arc<Mutex<Vec<String>>>,
}

impl Proc {
    pub fn spawn(mut cmd: Command) -> Proc {
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let err = child.stderr.take().unwrap();
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Proc { child, lines }
    }

    /// Waits for a stderr line containing `needle` and returns it.
    pub fn wait_for_line(&self, needle: &str, limit: Duration) -> String {
        let until = Instant::now() + limit;
        loop {
            if let Some(l) = self.lines.lock().unwrap().iter().find(|l| l.contains(needle)) {
                return l.clone();
            }
            assert!(Instant::now() < until, "no line with '{needle}' in {limit:?}: {:?}", self.lines.lock().unwrap());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for exit; returns (status code, stdout). Stdout ends with the
    /// stderr lines when the process failed, for the test's message.
    pub fn finish(mut self, limit: Duration) -> (Option<i32>, String) {
        let until = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut out = String::new();
                std::io::Read::read_to_string(self.child.stdout.as_mut().unwrap(), &mut out).unwrap();
                if !status.success() {
                    std::thread::sleep(Duration::from_millis(100));
                    out += &format!("\nstderr: {:?}", self.lines.lock().unwrap());
                }
                return (status.code(), out);
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                panic!("still running after {limit:?}: {:?}", self.lines.lock().unwrap());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for a successful exit and returns stdout.
    pub fn finish_ok(self, limit: Duration) -> String {
        let (code, out) = self.finish(limit);
        assert_eq!(code, Some(0), "{out}");
        out
    }

    pub fn kill9(mut self) {
        self.child.kill().unwrap(); // SIGKILL
        self.child.wait().unwrap();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// The variant of the distributed tests: two foxes against three sheep,
/// K = 2 (100 tiers, 1,574,862 positions).
pub const DIST_START: &str = "F.F/.../......./......./SSS..../.../... f";
pub const DIST_K: &str = "2";

/// A coordinator of the distributed tests' variant on `store` (a directory
/// or a bucket URL), with the token file of `token`; returns it and the
/// address it listens on.
pub fn coordinator(
    root: &Path,
    token: &str,
    store: impl AsRef<std::ffi::OsStr>,
    listen: &str,
    lease_seconds: u32,
    extra: &[&str],
) -> (Proc, String) {
    let mut cmd = foxbase();
    cmd.args(["coordinator", "--start", DIST_START, "--pen-target", DIST_K, "--listen", listen, "--json"])
        .arg("--store")
        .arg(store)
        .arg("--token-file")
        .arg(token_file(root, token))
        .args(["--lease-seconds", &lease_seconds.to_string()])
        .args(extra);
    let p = Proc::spawn(cmd);
    let line = p.wait_for_line("listening on ", Duration::from_secs(30));
    let addr = line.split("listening on ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    (p, addr)
}

/// A worker of one thread named `name`, with its own cache under `root`.
pub fn worker(root: &Path, token: &str, url: &str, name: &str, extra: &[&str]) -> Proc {
    let mut cmd = foxbase();
    cmd.args(["worker", "--coordinator", url, "--threads", "1", "--name", name])
        .arg("--token-file")
        .arg(token_file(root, token))
        .arg("--cache")
        .arg(root.join(format!("cache-{name}")))
        .args(extra);
    Proc::spawn(cmd)
}

/// Spawns `cmd` as a child that lives as long as this test process and no
/// longer: it is forked by a thread that never ends, with
/// `PR_SET_PDEATHSIG` (which fires when the forking *thread* ends), so it
/// is killed when the process exits, even from a `static` that is never
/// dropped. For servers shared by the tests of one binary.
pub fn spawn_for_process_lifetime(mut cmd: Command) -> std::io::Result<Child> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::os::unix::process::CommandExt;
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let _ = tx.send(cmd.spawn());
        loop {
            std::thread::park();
        }
    });
    rx.recv().expect("the spawning thread answers")
}

/// Every file under `dir` (relative path, with `/`, to bytes).
pub fn files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut all = std::collections::BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for e in std::fs::read_dir(&folder).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                all.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    all
}
