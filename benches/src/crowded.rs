//! The crowded-tier benchmark (`foxbase-bench --crowded`): the plane kernel
//! on real 20-sheep tiers, where the claims' and the full game's solves
//! spend their time (13 free points: 78 fox placements a side per block,
//! and nearly every sheep step traps a fox).
//!
//! The tiers are those reachable from [`START`] (pen target 9, sheep floor
//! 20 won by the foxes, classic): 1,226 tiers, 687,222,536 slots, all with
//! 20 sheep, largest f2-0.1.5.5.5.2.2 (19,505,772 slots). The benchmark
//! solves them itself, each run in its own child process with a fresh
//! directory:
//!
//! - `values`: the plane kernel, values only;
//! - `sweep`: the initial pass alone over every tier (each child value read
//!   once, no propagation), reading the `values` run's tables: the floor a
//!   solve's phases add to;
//! - `dtz`: the plane kernel with plies to zeroing, its tables equal
//!   (CRCs) to the `values` run's.
//!
//! With `--largest-from DIR` (a solve of the 20-sheep game under the same
//! floor, [`TWENTY_START`], such as the F = 20 solve of docs/results.md),
//! also the largest two-fox tier of that game, f2-2.2.4.4.4.2.2
//! (270,886,356 slots, every one of its 1,225,730 blocks), its children
//! read from DIR:
//!
//! - `largest`: the tier solved (values), its table compared byte for byte
//!   with DIR's;
//! - `largest-sweep`: its initial pass alone.
//!
//! The whole tier is run rather than a sample of its blocks: a block's
//! sideways steps lead to other blocks of the tier, so only the whole tier
//! is a solve whose table can be compared, and it takes under a minute.
//!
//! The summary gives `crowded_slots_per_core_s` (values),
//! `crowded_sweep_slots_per_core_s`, `crowded_dtz_slots_per_core_s` (slots
//! over wall time times threads), `solve_over_sweep`, `dtz_over_sweep` and
//! `dtz_over_values`, with `--largest-from` `largest_slots_per_core_s`,
//! `largest_sweep_slots_per_core_s`, `largest_solve_over_sweep` and
//! `largest_identical`, and the `pdep` path the kernel took ([`foxbase_core::cpu`]; set
//! `FOXBASE_PDEP` to measure the other).

use crate::kernels::peak_rss;
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::{FoxGame, FoxTier};
use foxbase_core::notation::parse_position;
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Side, Variant};
use foxbase_tables::manifest::Manifest;
use foxbase_tables::tier_files::table_path;
use foxbase_worker::job::{load_children, solve_to_file, TierReport};
use foxbase_worker::kernel::{thread_pool, Kernel, Output};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The crowded start: 20 sheep, the foxes below them.
pub const START: &str = ".../.../.SSSSS./SSSSSSS/SSSSSSS/.S./F.F f";
pub const PEN_TARGET: u32 = 9;
pub const SHEEP_FLOOR: u32 = 20;

pub fn variant() -> Variant {
    let start = parse_position(START).expect("the crowded start parses");
    Variant::new(Geometry::Classic, PEN_TARGET, start)
        .and_then(|v| v.with_sheep_floor(SHEEP_FLOOR, Side::Fox))
        .expect("the crowded variant is valid")
}

/// The 20-sheep game (classic, K = 9, F = 20 won by the foxes) whose
/// largest tier `--largest-from` solves.
pub const TWENTY_START: &str = "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f";

fn twenty_sheep_game() -> FoxGame {
    let start = parse_position(TWENTY_START).expect("the 20-sheep start parses");
    let variant = Variant::new(Geometry::Classic, PEN_TARGET, start)
        .and_then(|v| v.with_sheep_floor(SHEEP_FLOOR, Side::Fox))
        .expect("the 20-sheep variant is valid");
    FoxGame::new(variant)
}

/// The 20-sheep game and its largest tier, once `dir` is checked to hold a
/// solve of that game with the tier's table and its children's.
pub fn largest_in(dir: &Path) -> Result<(FoxGame, FoxTier, u64), String> {
    let game = twenty_sheep_game();
    let manifest = Manifest::read(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if manifest.variant != game.variant_json() {
        return Err(format!(
            "{}: not a solve of the 20-sheep game under F = 20 (`foxbase solve --start '{TWENTY_START}' \
             --pen-target 9 --sheep-floor 20 --no-distance`): its variant is {}",
            dir.display(),
            manifest.variant
        ));
    }
    let (tier, slots) = TierPlan::new(&game).largest_tier().expect("the 20-sheep game has tiers");
    for needed in std::iter::once(tier).chain(game.child_tiers(tier)) {
        let path = table_path(&game, dir, needed);
        if !path.is_file() {
            return Err(format!(
                "{}: no table of {} (the solve is not finished)",
                path.display(),
                game.tier_name(needed)
            ));
        }
    }
    Ok((game, tier, slots))
}

struct Quiet;

impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &TierReport, _: usize, _: u64) {}
}

/// One run in this process: `run` is "values", "dtz" or "sweep" (which
/// reads the tables in `children`), or "largest" or "largest-sweep" (the
/// 20-sheep game's largest tier, its children read from `children`); a
/// solve writes its tables to `out`.
pub fn run_one(run: &str, threads: usize, out: &Path, children: Option<&Path>) -> Json {
    if run.starts_with("largest") {
        return run_largest(run, threads, out, children.expect("the largest tier's run reads a solve"));
    }
    let game = FoxGame::new(variant());
    let plan = TierPlan::new(&game);
    let started = Instant::now();
    let cpu_before = crate::kernels::cpu_seconds();
    match run {
        "sweep" => {
            let dir = children.expect("a sweep reads the tables of a solve");
            let child_path = |c| table_path(&game, dir, c);
            thread_pool(threads).unwrap().install(|| {
                for &tier in &plan.order {
                    let tables = load_children(&game, tier, &child_path, false, None).unwrap();
                    foxbase_worker::plane_kernel::sweep_planes_in_pool(&game, tier, &tables).unwrap();
                }
            });
        }
        "values" | "dtz" => {
            let output = if run == "dtz" { Output::Dtz } else { Output::Values };
            let options = LocalOptions {
                workers: 1,
                threads_per_worker: threads,
                kernel: Kernel::Planes,
                output,
                ..Default::default()
            };
            solve_local(&game, &plan, out, options, &Quiet).unwrap().write(out).unwrap();
        }
        other => panic!("no crowded run {other}"),
    }
    let wall = started.elapsed().as_secs_f64();
    let slots = plan.total_slots();
    json!({"crowded": run, "threads": threads, "tiers": plan.order.len(), "slots": slots, "wall_s": wall,
        "cpu_s": crate::kernels::cpu_seconds() - cpu_before,
        "slots_per_core_second": slots as f64 / (wall * threads as f64), "peak_rss_bytes": peak_rss(),
        "pdep": foxbase_core::cpu::pdep_path().name()})
}

/// The largest tier's run: "largest" (solved into `out`, compared with
/// `dir`'s table) or "largest-sweep".
fn run_largest(run: &str, threads: usize, out: &Path, dir: &Path) -> Json {
    let (game, tier, slots) = largest_in(dir).unwrap_or_else(|e| panic!("{e}"));
    let child_path = |c| table_path(&game, dir, c);
    let started = Instant::now();
    let cpu_before = crate::kernels::cpu_seconds();
    let identical = match run {
        "largest" => {
            std::fs::create_dir_all(out).unwrap();
            let table = out.join("largest.fbt");
            solve_to_file(&game, tier, &child_path, &table, threads, Kernel::Planes, Output::Values).unwrap();
            let same = std::fs::read(&table).unwrap() == std::fs::read(table_path(&game, dir, tier)).unwrap();
            Some(same)
        }
        "largest-sweep" => {
            thread_pool(threads).unwrap().install(|| {
                let tables = load_children(&game, tier, &child_path, false, None).unwrap();
                foxbase_worker::plane_kernel::sweep_planes_in_pool(&game, tier, &tables).unwrap();
            });
            None
        }
        other => panic!("no crowded run {other}"),
    };
    let wall = started.elapsed().as_secs_f64();
    json!({"crowded": run, "tier": game.tier_name(tier), "threads": threads, "tiers": 1, "slots": slots,
        "wall_s": wall, "cpu_s": crate::kernels::cpu_seconds() - cpu_before,
        "slots_per_core_second": slots as f64 / (wall * threads as f64), "peak_rss_bytes": peak_rss(),
        "pdep": foxbase_core::cpu::pdep_path().name(), "identical": identical})
}

fn child(run: &str, threads: usize, out: &Path, children: Option<&Path>) -> Json {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args(["--crowded-phase", run, "--threads", &threads.to_string(), "--out", out.to_str().unwrap()]);
    if let Some(c) = children {
        cmd.args(["--children", c.to_str().unwrap()]);
    }
    let o = cmd.output().expect("cannot run the benchmark");
    assert!(o.status.success(), "the crowded {run} run failed: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn crcs(dir: &Path) -> Vec<(String, String)> {
    Manifest::read(dir).unwrap().tiers.into_iter().map(|t| (t.name, t.crc32)).collect()
}

/// Runs the three runs (and with `largest_from` the largest tier's two)
/// with `threads` kernel threads and prints each and the summary (JSON
/// lines with `json_out`). Returns whether the DTZ run's tables equal the
/// values run's and the largest tier's table equals `largest_from`'s.
pub fn run(threads: usize, json_out: bool, largest_from: Option<&Path>) -> bool {
    let root: PathBuf = std::env::temp_dir().join(format!("foxbase-crowded-bench-{}", std::process::id()));
    let (values_dir, dtz_dir) = (root.join("values"), root.join("dtz"));
    let say = |j: &Json| {
        if json_out {
            println!("{j}");
        } else if j["summary"] == true {
            println!(
                "crowded tiers, {} thread(s), pdep {}: values {:.2} M slots/core-s, sweep {:.2}, DTZ {:.2}; solve {:.2}x the sweep, DTZ {:.2}x the values; tables identical: {}",
                j["threads"],
                j["pdep"].as_str().unwrap(),
                j["crowded_slots_per_core_s"].as_f64().unwrap() / 1e6,
                j["crowded_sweep_slots_per_core_s"].as_f64().unwrap() / 1e6,
                j["crowded_dtz_slots_per_core_s"].as_f64().unwrap() / 1e6,
                j["solve_over_sweep"].as_f64().unwrap(),
                j["dtz_over_values"].as_f64().unwrap(),
                j["tables_identical"]
            );
            if let Some(rate) = j["largest_slots_per_core_s"].as_f64() {
                println!(
                    "largest tier {}: {:.2} M slots/core-s, sweep {:.2}; solve {:.2}x the sweep; table identical: {}",
                    j["largest_tier"].as_str().unwrap(),
                    rate / 1e6,
                    j["largest_sweep_slots_per_core_s"].as_f64().unwrap() / 1e6,
                    j["largest_solve_over_sweep"].as_f64().unwrap(),
                    j["largest_identical"]
                );
            }
        } else {
            println!(
                "{:6} threads {}: {:7.2} s wall, {:7.2} s CPU, {:6.2} M slots/core-s, peak {} MB",
                j["crowded"].as_str().unwrap(),
                j["threads"],
                j["wall_s"].as_f64().unwrap(),
                j["cpu_s"].as_f64().unwrap(),
                j["slots_per_core_second"].as_f64().unwrap() / 1e6,
                j["peak_rss_bytes"].as_u64().unwrap() >> 20
            );
        }
    };
    let values = child("values", threads, &values_dir, None);
    say(&values);
    let sweep = child("sweep", threads, &root.join("sweep"), Some(&values_dir));
    say(&sweep);
    let dtz = child("dtz", threads, &dtz_dir, None);
    say(&dtz);
    let mut identical = crcs(&values_dir) == crcs(&dtz_dir);
    let rate = |j: &Json| j["slots_per_core_second"].as_f64().unwrap();
    let wall = |j: &Json| j["wall_s"].as_f64().unwrap();
    let mut summary = json!({"summary": true, "crowded": true, "threads": threads, "pdep": values["pdep"],
        "slots": values["slots"], "tiers": values["tiers"],
        "crowded_slots_per_core_s": rate(&values), "crowded_sweep_slots_per_core_s": rate(&sweep),
        "crowded_dtz_slots_per_core_s": rate(&dtz), "solve_over_sweep": wall(&values) / wall(&sweep),
        "dtz_over_sweep": wall(&dtz) / wall(&sweep),
        "dtz_over_values": wall(&dtz) / wall(&values), "tables_identical": identical});
    if let Some(dir) = largest_from {
        let largest = child("largest", threads, &root.join("largest"), Some(dir));
        say(&largest);
        let largest_sweep = child("largest-sweep", threads, &root.join("largest-sweep"), Some(dir));
        say(&largest_sweep);
        let same = largest["identical"] == true;
        identical &= same;
        let extra = json!({"largest_tier": largest["tier"], "largest_slots": largest["slots"],
            "largest_slots_per_core_s": rate(&largest), "largest_sweep_slots_per_core_s": rate(&largest_sweep),
            "largest_solve_over_sweep": wall(&largest) / wall(&largest_sweep), "largest_identical": same});
        summary.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    }
    say(&summary);
    let _ = std::fs::remove_dir_all(&root);
    identical
}
