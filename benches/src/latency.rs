//! Probe latency over random positions of a Fox Game tablebase (the
//! targets: a cold probe in at most 1 ms beyond opening the index, a warm
//! one in at most 20 µs), for `foxbase-bench --published` and the
//! `probe_latency` example.
//!
//! Opens the tablebase DIR (solved or published) in this process, draws N
//! positions uniformly over the used slots of all its tiers (seeded: the
//! same positions every run), evicts every file of DIR from the page cache
//! (`posix_fadvise(DONTNEED)`, no root needed), then times `outcome` (the
//! value and plies a probe prints) of each position twice: the first pass
//! cold, the second warm.

use foxbase_core::tier::TierGame;
use foxbase_tables::engine::SplitMix64;
use foxbase_tables::manifest::Manifest;
use foxbase_tables::FoxTables;
use serde_json::{json, Value as Json};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::Instant;

/// The most a cold probe's 99th percentile may take, in microseconds.
pub const COLD_P99_US: f64 = 1000.0;
/// The most a warm probe's 99th percentile may take, in microseconds.
pub const WARM_P99_US: f64 = 20.0;

/// What [`measure`] found.
pub struct Latency {
    pub positions: usize,
    pub open_index_ms: f64,
    pub cold_p50_us: f64,
    pub cold_p99_us: f64,
    pub warm_p50_us: f64,
    pub warm_p99_us: f64,
}

impl Latency {
    /// Whether both 99th percentiles are within their targets.
    pub fn met(&self) -> bool {
        self.cold_p99_us <= COLD_P99_US && self.warm_p99_us <= WARM_P99_US
    }

    pub fn to_json(&self) -> Json {
        json!({"probed_positions": self.positions, "open_index_ms": self.open_index_ms,
            "cold_p50_us": self.cold_p50_us, "cold_p99_us": self.cold_p99_us,
            "warm_p50_us": self.warm_p50_us, "warm_p99_us": self.warm_p99_us, "latency_met": self.met()})
    }
}

/// Drops every file under `dir` from the page cache.
fn evict(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            evict(&path);
        } else if let Ok(f) = std::fs::File::open(&path) {
            // SAFETY: a valid open descriptor; offset 0 and length 0 mean the whole file.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
    }
}

/// (p50, p99) of `micros`.
fn percentiles(micros: &mut [f64]) -> (f64, f64) {
    micros.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| micros[((micros.len() as f64 * q) as usize).min(micros.len() - 1)];
    (at(0.50), at(0.99))
}

/// The probe latencies of `n` random positions of the tablebase in `dir`.
pub fn measure(dir: &Path, n: usize) -> Latency {
    let manifest = Manifest::read(dir).unwrap();
    let opened = Instant::now();
    let tables = FoxTables::open(dir).unwrap();
    let open_index_ms = opened.elapsed().as_secs_f64() * 1e3;
    let game = &tables.game;
    // Positions uniform over the slots (unused slots drawn again).
    let total: u64 = manifest.tiers.iter().map(|t| t.slots).sum();
    let mut rng = SplitMix64(26);
    let mut positions = Vec::with_capacity(n);
    while positions.len() < n {
        let mut slot = rng.next() % total;
        let mut tiers = manifest.tiers.iter();
        let mut entry = tiers.next().unwrap();
        while slot >= entry.slots {
            slot -= entry.slots;
            entry = tiers.next().unwrap();
        }
        let tier = game.parse_tier_name(&entry.name).unwrap();
        if let Some(pos) = game.unrank(&game.tier_index(tier), slot) {
            positions.push(pos);
        }
    }
    evict(dir);
    let pass = || -> Vec<f64> {
        positions
            .iter()
            .map(|pos| {
                let t = Instant::now();
                std::hint::black_box(tables.outcome(pos).unwrap());
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect()
    };
    let (mut cold, mut warm) = (pass(), pass());
    let ((cold_p50_us, cold_p99_us), (warm_p50_us, warm_p99_us)) = (percentiles(&mut cold), percentiles(&mut warm));
    Latency { positions: n, open_index_ms, cold_p50_us, cold_p99_us, warm_p50_us, warm_p99_us }
}
