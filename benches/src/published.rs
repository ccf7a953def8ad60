//! `foxbase-bench --published [DIR ...]`: the size and latency targets on
//! published Fox Game tablebases. For each DIR (a published tablebase, or
//! a solved one, which is published first at `foxbase publish`'s default levels
//! into a scratch directory), or without DIR for the README's main job
//! (solved with distances to zeroing, then published): the bits per
//! position of the tables and of the plies files, and the probe latencies
//! ([`crate::latency`]). Prints one JSON object (or line of text) per
//! tablebase and a summary; `run` returns false, and the binary exits 1,
//! unless every tablebase meets every target: at most 0.1 bit per position
//! for the values, 0.3 for the distances, and the latency targets.

use crate::latency;
use foxbase_coordinator::local::{solve_local, LocalOptions};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::FoxGame;
use foxbase_tables::manifest::Manifest;
use foxbase_tables::table::Layout;
use foxbase_worker::kernel::Output;
use serde_json::json;
use std::path::{Path, PathBuf};

/// The most a published table may take, in bits per position (a slot).
pub const VALUES_BITS_PER_POSITION: f64 = 0.1;
/// The most a published plies file may take, in bits per position.
pub const PLIES_BITS_PER_POSITION: f64 = 0.3;

/// The README's main job solved with distances to zeroing into `out`.
fn solve_readme(out: &Path) {
    let game = FoxGame::new(crate::reference::variant(crate::reference::Which::Readme));
    let plan = TierPlan::new(&game);
    let options = LocalOptions { workers: 2, threads_per_worker: 1, output: Output::Dtz, ..Default::default() };
    let manifest = solve_local(&game, &plan, out, options, &crate::reference::Quiet).expect("solve the README's job");
    foxbase_tables::seal::seal(out, manifest).expect("seal the README's job");
}

/// Measures every tablebase of `dirs` (none: the README's main job): true
/// when all meet the targets; an error names a DIR that holds no Fox Game
/// tablebase, before anything is measured.
pub fn run(dirs: &[PathBuf], positions: usize, json: bool) -> Result<bool, String> {
    for dir in dirs {
        // The Fox Game's reader opens only the Fox Game's tables, and says whose these are.
        foxbase_tables::FoxTables::open(dir).map_err(|e| format!("{e}; only the Fox Game's are measured"))?;
    }
    let scratch = std::env::temp_dir().join(format!("foxbase-bench-published-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let sources: Vec<PathBuf> = if dirs.is_empty() {
        let readme = scratch.join("readme");
        solve_readme(&readme);
        vec![readme]
    } else {
        dirs.to_vec()
    };
    let mut all_met = true;
    for (k, source) in sources.iter().enumerate() {
        let manifest = Manifest::read(source).unwrap();
        let published = if manifest.layout == Layout::Published {
            source.clone()
        } else {
            let out = scratch.join(format!("published-{k}"));
            let levels = foxbase_tables::publish::Levels::default();
            foxbase_tables::publish::publish(
                source,
                &out,
                levels,
                &foxbase_tables::tier_walk::WalkMemory::default(),
                &|_| {},
            )
            .expect("publish");
            out
        };
        let manifest = Manifest::read(&published).unwrap();
        let slots: u64 = manifest.tiers.iter().map(|t| t.slots).sum();
        let values_bytes: u64 = manifest.tiers.iter().map(|t| t.bytes).sum();
        let plies_bytes: Option<u64> = manifest
            .tiers
            .iter()
            .map(|t| t.plies.as_ref().map(|p| p.bytes))
            .try_fold(0, |sum, bytes| bytes.map(|b| sum + b));
        let values_bits = values_bytes as f64 * 8.0 / slots as f64;
        let plies_bits = plies_bytes.map(|b| b as f64 * 8.0 / slots as f64);
        let measured = latency::measure(&published, positions);
        // The targets this tablebase misses, by name.
        let missed: Vec<&str> = [
            (values_bits > VALUES_BITS_PER_POSITION, "values bits"),
            (plies_bits.is_some_and(|b| b > PLIES_BITS_PER_POSITION), "plies bits"),
            (measured.cold_p99_us > latency::COLD_P99_US, "cold p99"),
            (measured.warm_p99_us > latency::WARM_P99_US, "warm p99"),
        ]
        .into_iter()
        .filter_map(|(miss, name)| miss.then_some(name))
        .collect();
        let met = missed.is_empty();
        all_met &= met;
        let mut view = json!({"source": source.display().to_string(), "variant": manifest.variant,
            "positions": slots, "values_bytes": values_bytes, "values_bits_per_position": values_bits,
            "plies_bytes": plies_bytes, "plies_bits_per_position": plies_bits, "targets_met": met,
            "targets_missed": missed});
        for (key, value) in measured.to_json().as_object().unwrap() {
            view[key] = value.clone();
        }
        if json {
            println!("{view}");
        } else {
            println!(
                "{}: {slots} positions; values {values_bits:.3} bit per position (target {VALUES_BITS_PER_POSITION}), plies {} (target {PLIES_BITS_PER_POSITION}); probe cold p50/p99 {:.0}/{:.0} µs (target {}), warm {:.1}/{:.1} µs (target {}); {}",
                source.display(),
                plies_bits.map_or("none".to_string(), |b| format!("{b:.3} bit per position")),
                measured.cold_p50_us,
                measured.cold_p99_us,
                latency::COLD_P99_US,
                measured.warm_p50_us,
                measured.warm_p99_us,
                latency::WARM_P99_US,
                if met { "targets met".to_string() } else { format!("targets missed: {}", missed.join(", ")) }
            );
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if json {
        println!("{}", json!({"summary": true, "tablebases": sources.len(), "targets_met": all_met}));
    }
    Ok(all_met)
}
