//! Probe latency over random positions (issue 26's target: a cold probe
//! in at most 1 ms beyond opening the index, a warm one in at most 20 µs).
//!
//! Opens the Fox Game tablebase DIR (solved or published) in this process,
//! draws N positions (default 10,000) uniformly over the used slots of all
//! its tiers (seeded: the same positions every run), evicts every file of
//! DIR from the page cache (`posix_fadvise(DONTNEED)`, no root needed),
//! then times `outcome` (the value and plies a probe prints) of each
//! position twice: the first pass cold, the second warm. Prints one JSON
//! object with p50 and p99 of each pass in microseconds, and exits 1
//! unless cold p99 <= 1,000 µs and warm p99 <= 20 µs.
//!
//! Run: `cargo run --release -p foxbase-benches --example probe_latency -- DIR [N]`

use foxbase_core::tier::TierGame;
use foxbase_tables::engine::SplitMix64;
use foxbase_tables::manifest::Manifest;
use foxbase_tables::TableDir;
use serde_json::json;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::Instant;

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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(1).expect("usage: probe_latency DIR [N]"));
    let n: usize = args.get(2).map_or(10_000, |s| s.parse().expect("N: a number"));
    let manifest = Manifest::read(dir).unwrap();
    let opened = Instant::now();
    let tables = TableDir::open(dir).unwrap();
    let open_ms = opened.elapsed().as_secs_f64() * 1e3;
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
    let ((cold50, cold99), (warm50, warm99)) = (percentiles(&mut cold), percentiles(&mut warm));
    let met = cold99 <= 1000.0 && warm99 <= 20.0;
    println!(
        "{}",
        json!({"dir": dir.display().to_string(), "layout": manifest.layout.name(), "positions": n,
            "open_index_ms": open_ms, "cold_p50_us": cold50, "cold_p99_us": cold99,
            "warm_p50_us": warm50, "warm_p99_us": warm99, "targets_met": met})
    );
    std::process::exit(if met { 0 } else { 1 });
}
