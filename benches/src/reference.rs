//! The tiered solver against the reference solver on one variant, each in
//! its own process so that peak memory is measured separately: speed, the
//! ratio and peak memory (informational; docs/results.md).

use crate::kernels::peak_rss;
use clap::ValueEnum;
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::parse_position;
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Variant};
use serde_json::{json, Value as Json};
use std::process::Command;
use std::time::Instant;

/// Fixed allowance for the program, thread stacks and allocator slack.
const BASE_MEMORY: u64 = 32 << 20;

#[derive(Clone, Copy, ValueEnum)]
pub enum Which {
    /// Two foxes, four sheep, K = 3, classic: about 6 million positions; the reference solver can do it.
    Mid,
    /// The README's main job (tiered solver only: too big for the reference solver's memory and patience).
    Readme,
}

impl Which {
    pub fn name(self) -> &'static str {
        match self {
            Which::Mid => "mid",
            Which::Readme => "readme",
        }
    }
}

pub fn variant(which: Which) -> Variant {
    let (start, k) = match which {
        Which::Mid => ("F.F/.../......./......./..SSSS./.../... f", 3),
        Which::Readme => (".F./.../......./......./SSSSSSS/.S./... f", 7),
    };
    Variant::new(Geometry::Classic, k, parse_position(start).unwrap()).unwrap()
}

pub(crate) struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &foxbase_worker::job::TierReport, _: usize, _: u64) {}
}

pub fn run_phase(phase: &str, v: &Variant, threads: usize, workers: usize) -> Json {
    match phase {
        "reference" => {
            let t = Instant::now();
            let sol = ReferenceSolution::solve(v, 200_000_000).unwrap();
            let secs = t.elapsed().as_secs_f64();
            json!({"seconds": secs, "positions": sol.len(), "value": sol.value(&v.start).unwrap().name(),
                   "peak_rss": peak_rss()})
        }
        "tiered" => {
            let dir = std::env::temp_dir().join(format!("foxbase-bench-{}", std::process::id()));
            let game = FoxGame::new(*v);
            let t = Instant::now();
            let plan = TierPlan::new(&game);
            let m = solve_local(
                &game,
                &plan,
                &dir,
                LocalOptions { workers, threads_per_worker: threads, ..Default::default() },
                &Quiet,
            )
            .unwrap();
            let secs = t.elapsed().as_secs_f64();
            let (m, value) = foxbase_tables::seal::seal(&dir, m).unwrap();
            let value = value.name();
            // Memory budget: 3 bytes per slot of the largest tier plus its children's packed tables.
            let (largest, largest_slots) = plan.largest_tier().unwrap();
            let child_bytes: u64 = game.child_tiers(largest).iter().map(|c| plan.slots[c].div_ceil(4)).sum();
            let _ = std::fs::remove_dir_all(&dir);
            json!({"seconds": secs, "positions": m.total_slots(), "tiers": m.tiers.len(), "value": value,
                   "largest_tier": largest.name(), "largest_tier_positions": largest_slots,
                   "memory_budget": 3 * largest_slots + child_bytes + BASE_MEMORY, "peak_rss": peak_rss()})
        }
        other => panic!("unknown phase {other}"),
    }
}

fn run_child(phase: &str, which: Which, threads: usize, workers: usize) -> Json {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["--phase", phase, "--reference", which.name(), "--threads", &threads.to_string()])
        .args(["--workers", &workers.to_string()])
        .output()
        .expect("cannot run the benchmark phase");
    assert!(out.status.success(), "phase {phase} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs both solvers (the reference one on `mid` only) and prints the report.
pub fn run(which: Which, threads: usize, workers: usize) {
    let v = variant(which);
    let tiered = run_child("tiered", which, threads, workers);
    let secs = tiered["seconds"].as_f64().unwrap();
    let positions = tiered["positions"].as_u64().unwrap();
    let cores = threads * workers;
    let per_core = positions as f64 / secs / cores as f64;
    let mut report = json!({"variant": v.to_string(), "threads": threads, "workers": workers,
        "cores_used": cores, "tiered": tiered, "positions_per_core_second": per_core});
    if matches!(which, Which::Mid) {
        let reference = run_child("reference", which, threads, workers);
        let ratio = reference["seconds"].as_f64().unwrap() / secs;
        assert_eq!(reference["value"], report["tiered"]["value"], "the two solvers disagree on the start");
        report["reference"] = reference;
        report["speedup_over_reference"] = json!(ratio);
    }
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}
