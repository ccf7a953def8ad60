//! Retrying a shared store's transient failures: an object store that
//! restarts or answers 500/503 for a while, a connection cut, a disk that
//! is full until someone frees space.
//!
//! [`RetryingStore`] wraps any [`Store`]. An operation that fails with a
//! transient error ([`is_transient`]) is tried again after a wait drawn at
//! random from zero to the current backoff ("full jitter": many workers
//! that failed together do not come back together), the backoff doubling
//! from [`RetryPolicy::first`] up to [`RetryPolicy::longest`]; after
//! [`RetryPolicy::give_up_after`] of failures the last error is returned.
//! Every retry adds one to the shared [`RetryCount`] (a process's
//! `/metrics`), and an operation that needs retries is logged once when it
//! first fails and once when it succeeds, not once per attempt.
//!
//! Two operations are not idempotent, and a retry after a lost answer must
//! not turn success into failure:
//! - [`Store::put_new`]: if the first attempt stored the object but its
//!   answer was lost, the retry finds an object there; when that object is
//!   byte for byte what this call wrote, the call succeeded.
//! - [`Store::rename`]: if the object is gone from `from` on a retry and is
//!   at `to`, an earlier attempt moved it.

use crate::store::Store;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long and how often to retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The backoff after the first failure.
    pub first: Duration,
    /// The backoff stops doubling here.
    pub longest: Duration,
    /// Failing for longer than this is failure for good.
    pub give_up_after: Duration,
}

impl RetryPolicy {
    /// From 100 ms doubling to 5 s, for at most `give_up_after`.
    pub fn giving_up_after(give_up_after: Duration) -> RetryPolicy {
        RetryPolicy { first: Duration::from_millis(100), longest: Duration::from_secs(5), give_up_after }
    }
}

/// Retries of a process, shared by its stores (for `/metrics`).
#[derive(Debug, Default)]
pub struct RetryCount(AtomicU64);

impl RetryCount {
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    pub fn add(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// A failure worth trying again: anything but an answer that will not
/// change (no such object, one already there, refused credentials, a bad
/// key or bad data). A full disk is transient: space can come back.
pub fn is_transient(error: &io::Error) -> bool {
    use io::ErrorKind as K;
    !matches!(
        error.kind(),
        K::NotFound | K::AlreadyExists | K::PermissionDenied | K::InvalidInput | K::InvalidData | K::Unsupported
    )
}

/// The error is a full disk (ENOSPC, or a quota: EDQUOT), anywhere in its chain of sources.
pub fn is_disk_full(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut at = Some(error);
    while let Some(e) = at {
        if let Some(io) = e.downcast_ref::<io::Error>() {
            if io.kind() == io::ErrorKind::StorageFull
                || io.kind() == io::ErrorKind::QuotaExceeded
                || matches!(io.raw_os_error(), Some(28 | 122))
            {
                return true;
            }
        }
        at = e.source();
    }
    false
}

/// Waits between attempts: full jitter over a doubling backoff.
pub struct Backoff {
    policy: RetryPolicy,
    started: Instant,
    current: Duration,
    state: u64,
}

impl Backoff {
    pub fn new(policy: RetryPolicy) -> Backoff {
        static SEEDS: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let state = nanos as u64 ^ (u64::from(std::process::id()) << 32) ^ SEEDS.fetch_add(1, Ordering::Relaxed);
        Backoff { policy, started: Instant::now(), current: policy.first, state }
    }

    /// The policy's time is up: no more attempts.
    pub fn expired(&self) -> bool {
        self.started.elapsed() >= self.policy.give_up_after
    }

    /// Sleeps before the next attempt.
    pub fn sleep(&mut self) {
        let limit = self.current.as_micros() as u64;
        let micros = if limit == 0 { 0 } else { splitmix64(&mut self.state) % (limit + 1) };
        std::thread::sleep(Duration::from_micros(micros));
        self.current = (self.current * 2).min(self.policy.longest);
    }
}

/// One step of SplitMix64: enough randomness for jitter (and for the fault
/// tests' seeded schedules), no dependency.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Calls `attempt` until it succeeds, fails with an error that is not
/// transient, or the policy's time is up; counts each retry in `count` and
/// logs the first failure and the success after it. `attempt` is told
/// whether an earlier attempt failed.
pub fn retry<T>(
    policy: RetryPolicy,
    count: &RetryCount,
    log: &(dyn Fn(&str) + Send + Sync),
    what: &dyn Fn() -> String,
    mut attempt: impl FnMut(bool) -> io::Result<T>,
) -> io::Result<T> {
    let mut backoff = Backoff::new(policy);
    let mut retries = 0u64;
    loop {
        match attempt(retries > 0) {
            Err(e) if is_transient(&e) => {
                if retries == 0 {
                    log(&format!("{}: {e}; retrying with backoff", what()));
                }
                if backoff.expired() {
                    log(&format!("{}: gave up after {retries} retries in {:.0?}", what(), policy.give_up_after));
                    return Err(e);
                }
                // Counted before the wait, so that /metrics shows it at once.
                retries += 1;
                count.add();
                backoff.sleep();
            }
            result => {
                if retries > 0 && result.is_ok() {
                    log(&format!("{}: succeeded after {retries} retries", what()));
                }
                return result;
            }
        }
    }
}

/// A store whose transient failures are retried (see the module documentation).
pub struct RetryingStore {
    inner: Box<dyn Store>,
    policy: RetryPolicy,
    count: Arc<RetryCount>,
    log: Arc<dyn Fn(&str) + Send + Sync>,
}

impl RetryingStore {
    pub fn new(
        inner: Box<dyn Store>,
        policy: RetryPolicy,
        count: Arc<RetryCount>,
        log: Arc<dyn Fn(&str) + Send + Sync>,
    ) -> RetryingStore {
        RetryingStore { inner, policy, count, log }
    }

    fn run<T>(&self, what: &dyn Fn() -> String, attempt: impl FnMut(bool) -> io::Result<T>) -> io::Result<T> {
        retry(self.policy, &self.count, self.log.as_ref(), what, attempt)
    }
}

impl Store for RetryingStore {
    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn url(&self) -> String {
        self.inner.url()
    }

    fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.inner.local_path(key)
    }

    fn put_file(&self, key: &str, from: &Path) -> io::Result<()> {
        self.run(&|| format!("store {}: put {key}", self.describe()), |_| self.inner.put_file(key, from))
    }

    fn put_bytes(&self, key: &str, bytes: &[u8]) -> io::Result<()> {
        self.run(&|| format!("store {}: put {key}", self.describe()), |_| self.inner.put_bytes(key, bytes))
    }

    fn get_file(&self, key: &str, to: &Path) -> io::Result<()> {
        self.run(&|| format!("store {}: get {key}", self.describe()), |_| self.inner.get_file(key, to))
    }

    fn get_bytes(&self, key: &str) -> io::Result<Vec<u8>> {
        self.run(&|| format!("store {}: get {key}", self.describe()), |_| self.inner.get_bytes(key))
    }

    fn size(&self, key: &str) -> io::Result<Option<u64>> {
        self.run(&|| format!("store {}: size of {key}", self.describe()), |_| self.inner.size(key))
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        self.run(&|| format!("store {}: rename {from} to {to}", self.describe()), |retried| {
            match self.inner.rename(from, to) {
                // An earlier attempt moved it and its answer was lost.
                Err(e) if retried && e.kind() == io::ErrorKind::NotFound => match self.inner.size(to)? {
                    Some(_) => Ok(()),
                    None => Err(e),
                },
                other => other,
            }
        })
    }

    fn delete(&self, key: &str) -> io::Result<()> {
        self.run(&|| format!("store {}: delete {key}", self.describe()), |_| self.inner.delete(key))
    }

    fn put_new(&self, key: &str, bytes: &[u8]) -> io::Result<bool> {
        self.run(&|| format!("store {}: put {key} if new", self.describe()), |retried| {
            match self.inner.put_new(key, bytes)? {
                // An earlier attempt stored it and its answer was lost.
                false if retried => Ok(self.inner.get_bytes(key)? == bytes),
                stored => Ok(stored),
            }
        })
    }

    fn list(&self, prefix: &str) -> io::Result<Vec<String>> {
        self.run(&|| format!("store {}: list {prefix}", self.describe()), |_| self.inner.list(prefix))
    }

    fn sync_all(&self) -> io::Result<()> {
        self.run(&|| format!("store {}: sync", self.describe()), |_| self.inner.sync_all())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::DirStore;
    use std::sync::Mutex;

    /// A directory store whose next `fail` operations fail with `kind`, and
    /// whose renames and conditional puts can succeed and then report a
    /// failure (an answer lost on the way back).
    struct Flaky {
        inner: DirStore,
        fail: Arc<Mutex<u32>>,
        kind: io::ErrorKind,
        lose_answer: Arc<Mutex<bool>>,
    }

    impl Flaky {
        fn step(&self) -> io::Result<()> {
            let mut fail = self.fail.lock().unwrap();
            if *fail > 0 {
                *fail -= 1;
                return Err(io::Error::new(self.kind, "injected"));
            }
            Ok(())
        }
        fn answer_lost(&self) -> bool {
            std::mem::take(&mut *self.lose_answer.lock().unwrap())
        }
    }

    impl Store for Flaky {
        fn describe(&self) -> String {
            "flaky".into()
        }
        fn url(&self) -> String {
            self.inner.url()
        }
        fn local_path(&self, _: &str) -> Option<PathBuf> {
            None
        }
        fn put_file(&self, key: &str, from: &Path) -> io::Result<()> {
            self.step()?;
            self.inner.put_file(key, from)
        }
        fn put_bytes(&self, key: &str, bytes: &[u8]) -> io::Result<()> {
            self.step()?;
            self.inner.put_bytes(key, bytes)
        }
        fn get_file(&self, key: &str, to: &Path) -> io::Result<()> {
            self.step()?;
            self.inner.get_file(key, to)
        }
        fn get_bytes(&self, key: &str) -> io::Result<Vec<u8>> {
            self.step()?;
            self.inner.get_bytes(key)
        }
        fn size(&self, key: &str) -> io::Result<Option<u64>> {
            self.step()?;
            self.inner.size(key)
        }
        fn rename(&self, from: &str, to: &str) -> io::Result<()> {
            self.step()?;
            self.inner.rename(from, to)?;
            if self.answer_lost() {
                return Err(io::Error::new(io::ErrorKind::ConnectionReset, "answer lost"));
            }
            Ok(())
        }
        fn delete(&self, key: &str) -> io::Result<()> {
            self.step()?;
            self.inner.delete(key)
        }
        fn put_new(&self, key: &str, bytes: &[u8]) -> io::Result<bool> {
            self.step()?;
            let stored = self.inner.put_new(key, bytes)?;
            if self.answer_lost() {
                return Err(io::Error::new(io::ErrorKind::ConnectionReset, "answer lost"));
            }
            Ok(stored)
        }
        fn list(&self, prefix: &str) -> io::Result<Vec<String>> {
            self.step()?;
            self.inner.list(prefix)
        }
    }

    fn fast(give_up_after: Duration) -> RetryPolicy {
        RetryPolicy { first: Duration::from_millis(1), longest: Duration::from_millis(4), give_up_after }
    }

    /// The faults to inject into a [`Flaky`] after it is boxed.
    struct Faults {
        fail: Arc<Mutex<u32>>,
        lose_answer: Arc<Mutex<bool>>,
    }

    fn setup(tag: &str, kind: io::ErrorKind) -> (PathBuf, Box<Flaky>, Faults) {
        let root = std::env::temp_dir().join(format!("foxbase-retry-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let faults = Faults { fail: Arc::default(), lose_answer: Arc::default() };
        let flaky = Flaky {
            inner: DirStore::new(&root),
            fail: faults.fail.clone(),
            kind,
            lose_answer: faults.lose_answer.clone(),
        };
        (root, Box::new(flaky), faults)
    }

    #[test]
    fn transient_failures_are_retried_counted_and_logged_once() {
        let (root, flaky, faults) = setup("transient", io::ErrorKind::Other);
        let (count, lines) = (Arc::new(RetryCount::default()), Arc::new(Mutex::new(Vec::<String>::new())));
        let l = lines.clone();
        let store = RetryingStore::new(
            flaky,
            fast(Duration::from_secs(10)),
            count.clone(),
            Arc::new(move |s: &str| l.lock().unwrap().push(s.to_string())),
        );
        *faults.fail.lock().unwrap() = 5;
        store.put_bytes("tiers/a", b"abc").unwrap();
        assert_eq!(count.get(), 5);
        assert_eq!(store.get_bytes("tiers/a").unwrap(), b"abc");
        assert_eq!(count.get(), 5, "no retry when nothing fails");
        let lines = lines.lock().unwrap().clone();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains("put tiers/a: injected; retrying"), "{}", lines[0]);
        assert!(lines[1].contains("succeeded after 5 retries"), "{}", lines[1]);
        // Answers that will not change are not retried.
        let missing = store.get_bytes("tiers/none").unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        assert_eq!(count.get(), 5);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_store_down_for_good_fails_after_the_policy_time() {
        let (root, flaky, faults) = setup("down", io::ErrorKind::ConnectionRefused);
        let count = Arc::new(RetryCount::default());
        let store = RetryingStore::new(flaky, fast(Duration::from_millis(60)), count.clone(), Arc::new(|_: &str| {}));
        *faults.fail.lock().unwrap() = u32::MAX;
        let started = Instant::now();
        let e = store.size("tiers/a").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::ConnectionRefused);
        assert!(started.elapsed() >= Duration::from_millis(60));
        assert!(count.get() >= 10, "{} retries", count.get());
        let _ = std::fs::remove_dir_all(root); // nothing was written
    }

    #[test]
    fn a_lost_answer_to_put_new_or_rename_is_not_a_failure() {
        let (root, flaky, faults) = setup("lost", io::ErrorKind::Other);
        let count = Arc::new(RetryCount::default());
        let store = RetryingStore::new(flaky, fast(Duration::from_secs(10)), count.clone(), Arc::new(|_: &str| {}));
        *faults.lose_answer.lock().unwrap() = true;
        assert!(store.put_new("journal/x", b"mine").unwrap(), "stored by the attempt whose answer was lost");
        assert_eq!(count.get(), 1);
        assert!(!store.put_new("journal/x", b"other").unwrap(), "another writer's object is still refused");
        *faults.lose_answer.lock().unwrap() = true;
        store.put_bytes("incoming/t", b"t").unwrap();
        store.rename("incoming/t", "tiers/t").unwrap();
        assert_eq!(count.get(), 2);
        assert_eq!(store.get_bytes("tiers/t").unwrap(), b"t");
        assert_eq!(store.rename("incoming/t", "tiers/u").unwrap_err().kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_full_disk_is_found_in_an_error_chain() {
        #[derive(Debug, thiserror::Error)]
        #[error("writing the table")]
        struct Outer(#[source] io::Error);
        assert!(is_disk_full(&Outer(io::Error::from_raw_os_error(28))));
        assert!(is_disk_full(&io::Error::from(io::ErrorKind::StorageFull)));
        assert!(!is_disk_full(&Outer(io::Error::from(io::ErrorKind::NotFound))));
        assert!(is_transient(&io::Error::from_raw_os_error(28)));
    }

    #[test]
    fn the_jitter_stays_within_the_backoff() {
        let mut state = 7;
        let draws: Vec<u64> = (0..1000).map(|_| splitmix64(&mut state) % 101).collect();
        assert!(draws.iter().all(|&d| d <= 100));
        assert!(draws.iter().any(|&d| d < 10) && draws.iter().any(|&d| d > 90), "spread over the range");
    }
}
