//! `foxbase-bench`: solves one fixed variant with the tiered solver and with
//! the reference solver, each in its own process so that peak memory is
//! measured separately, and reports speed, the ratio and peak memory
//! against the targets of the tiered-solver issue:
//!
//! - at least 2 million positions per core-second (tiered solver);
//! - at least 20 times faster than the reference solver on the same variant;
//! - peak memory at most about 3 bytes per position of the largest tier plus
//!   the packed tables of its children (plus a fixed allowance for the
//!   program itself).
//!
//! Run: `cargo run --release -p foxbase-benches -- [--workers W] [--threads T] [--variant mid|readme]`
//! (default: 2 workers of 1 thread, the 2 cores of the machines here).
//! It exits with status 1 when a target is missed.

use clap::{Parser, ValueEnum};
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

mod compression;

/// Fixed allowance for the program, thread stacks and allocator slack.
const BASE_MEMORY: u64 = 32 << 20;

#[derive(Clone, Copy, ValueEnum)]
enum Which {
    /// Two foxes, four sheep, K = 3, classic: about 6 million positions; the reference solver can do it.
    Mid,
    /// The README's main job (tiered solver only: too big for the reference solver's memory and patience).
    Readme,
}

#[derive(Parser)]
#[command(about = "Benchmark the tiered solver against the reference solver")]
struct Args {
    /// Which variant to run.
    #[arg(long, value_enum, default_value = "mid")]
    variant: Which,
    /// Kernel threads per worker for the tiered solver (the reference solver is single-threaded).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// In-process workers for the tiered solver (each solves one tier at a time).
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Instead of solving: measure compression of the tables in this solved directory.
    #[arg(long)]
    compression: Option<std::path::PathBuf>,
    /// Internal: run one phase ("tiered" or "reference") and print its JSON.
    #[arg(long, hide = true)]
    phase: Option<String>,
}

fn variant(which: Which) -> Variant {
    let (start, k) = match which {
        Which::Mid => ("F.F/.../......./......./..SSSS./.../... f", 3),
        Which::Readme => (".F./.../......./......./SSSSSSS/.S./... f", 7),
    };
    Variant::new(Geometry::Classic, k, parse_position(start).unwrap()).unwrap()
}

/// Peak resident set size of this process, from /proc (0 where unavailable).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &foxbase_worker::job::TierReport, _: usize, _: u64) {}
}

fn run_phase(phase: &str, v: &Variant, threads: usize, workers: usize) -> Json {
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
            let m =
                solve_local(&game, &plan, &dir, LocalOptions { workers, threads_per_worker: threads }, &Quiet).unwrap();
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

fn run_child(phase: &str, args: &Args) -> Json {
    let exe = std::env::current_exe().unwrap();
    let which = match args.variant {
        Which::Mid => "mid",
        Which::Readme => "readme",
    };
    let out = Command::new(exe)
        .args(["--phase", phase, "--variant", which, "--threads", &args.threads.to_string()])
        .args(["--workers", &args.workers.to_string()])
        .output()
        .expect("cannot run the benchmark phase");
    assert!(out.status.success(), "phase {phase} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn main() {
    let args = Args::parse();
    if let Some(dir) = &args.compression {
        let report = compression::measure(dir, &[1 << 14, 1 << 16, 1 << 18, 1 << 20], &[3, 9, 19]);
        println!("{}", serde_json::to_string_pretty(&report).unwrap());
        return;
    }
    let v = variant(args.variant);
    if let Some(phase) = &args.phase {
        println!("{}", run_phase(phase, &v, args.threads, args.workers));
        return;
    }
    let tiered = run_child("tiered", &args);
    let secs = tiered["seconds"].as_f64().unwrap();
    let positions = tiered["positions"].as_u64().unwrap();
    let cores = args.threads * args.workers;
    let per_core = positions as f64 / secs / cores as f64;
    let rss = tiered["peak_rss"].as_u64().unwrap();
    let budget = tiered["memory_budget"].as_u64().unwrap();
    let mut report = json!({"variant": v.to_string(), "threads": args.threads, "workers": args.workers,
        "cores_used": cores, "tiered": tiered,
        "positions_per_core_second": per_core});
    let mut ok = per_core >= 2e6 && rss <= budget;
    if matches!(args.variant, Which::Mid) {
        let reference = run_child("reference", &args);
        let ratio = reference["seconds"].as_f64().unwrap() / secs;
        assert_eq!(reference["value"], report["tiered"]["value"], "the two solvers disagree on the start");
        report["reference"] = reference;
        report["speedup_over_reference"] = json!(ratio);
        ok &= ratio >= 20.0;
    }
    report["targets_met"] = json!(ok);
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
    if !ok {
        eprintln!("foxbase-bench: a target was missed (2M positions/core-s, 20x the reference, memory budget)");
        std::process::exit(1);
    }
}
