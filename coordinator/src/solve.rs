//! `foxbase solve`: plan, solve locally with progress, write the manifest, report.

use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::manifest::StartValue;
use foxbase_coordinator::plan::TierPlan;
use foxbase_coordinator::probe::FoxTables;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::format_position;
use foxbase_core::Variant;
use foxbase_worker::job::TierReport;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A progress bar on a terminal, plain log lines (at most one per 5 s) otherwise.
struct SolveProgress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Mutex<Instant>,
    tiers: Mutex<usize>,
}

impl SolveProgress {
    fn new(quiet: bool) -> SolveProgress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:30}] {human_pos}/{human_len} positions, {per_sec}, ETA {eta}",
                )
                .unwrap()
                .progress_chars("=> "),
            );
            bar
        });
        SolveProgress { bar, started: Instant::now(), last_line: Mutex::new(Instant::now()), tiers: Mutex::new(0) }
    }
}

impl Progress for SolveProgress {
    fn planned(&self, tiers: usize, slots: u64) {
        *self.tiers.lock().unwrap() = tiers;
        match &self.bar {
            Some(bar) => {
                bar.set_length(slots);
                bar.set_message(format!("tiers 0/{tiers}"));
            }
            None => eprintln!("foxbase: planned {tiers} tiers, {slots} positions"),
        }
    }

    fn tier_done(&self, report: &TierReport, tiers_done: usize, slots_done: u64) {
        let tiers = *self.tiers.lock().unwrap();
        match &self.bar {
            Some(bar) => {
                bar.set_position(slots_done);
                bar.set_message(format!("tiers {tiers_done}/{tiers}"));
            }
            None => {
                let mut last = self.last_line.lock().unwrap();
                if last.elapsed() >= Duration::from_secs(5) || tiers_done == tiers {
                    *last = Instant::now();
                    let secs = self.started.elapsed().as_secs_f64();
                    eprintln!(
                        "foxbase: tiers {tiers_done}/{tiers}, {slots_done} positions, {:.0} positions/s, last {} ({:.2}s)",
                        slots_done as f64 / secs.max(1e-9),
                        report.tier_name,
                        report.seconds
                    );
                }
            }
        }
    }
}

pub fn run_solve(variant: Variant, out: &Path, threads: usize, workers: usize, json_out: bool) -> Result<(), String> {
    let game = FoxGame::new(variant);
    let started = Instant::now();
    let plan = TierPlan::new(&game);
    let progress = SolveProgress::new(json_out);
    let options = LocalOptions { workers, threads_per_worker: (threads / workers).max(1) };
    let mut manifest = solve_local(&game, &plan, out, options, &progress)?;
    if let Some(bar) = &progress.bar {
        bar.finish_and_clear();
    }
    manifest.write(out)?;
    let tables = FoxTables::open(out)?;
    let start = variant.start;
    let value = tables.value(&start)?;
    manifest.start = Some(StartValue { position: format_position(&start), value: value.name().into() });
    manifest.write(out)?;
    let secs = started.elapsed().as_secs_f64();
    let slots = manifest.total_slots();
    let (largest, largest_slots) = plan.largest_tier().unwrap();
    if json_out {
        let out = json!({
            "variant": variant.to_json_value(), "start": format_position(&start), "value": value.name(),
            "side_to_move": start.side().name(), "tiers": manifest.tiers.len(), "positions": slots,
            "largest_tier": {"name": largest.name(), "positions": largest_slots},
            "seconds": secs, "threads": threads, "workers": workers, "table_bytes": manifest.total_bytes(),
            "out": out.display().to_string(),
        });
        println!("{out}");
    } else {
        println!("variant: {variant}");
        println!(
            "solved {} tiers, {slots} positions (largest tier {largest}: {largest_slots}) in {secs:.1}s ({:.2}M positions/s)",
            manifest.tiers.len(),
            slots as f64 / secs / 1e6
        );
        println!("tables: {} ({} bytes)", out.display(), manifest.total_bytes());
        let winner = match value {
            foxbase_core::Value::Win => format!("the {} win", plural(start.side().name())),
            foxbase_core::Value::Loss => format!("the {} win", plural(start.side().other().name())),
            foxbase_core::Value::Draw => "neither side can force a win: a draw".to_string(),
        };
        println!("start {}: {value} for the {} to move, so {winner}", format_position(&start), start.side());
    }
    Ok(())
}

fn plural(side: &str) -> &'static str {
    if side == "fox" {
        "foxes"
    } else {
        "sheep"
    }
}

/// `solve --plan-only`: the size of the work without doing it.
pub fn print_plan(variant: Variant, json_out: bool) {
    let game = FoxGame::new(variant);
    let plan = TierPlan::new(&game);
    let (largest, largest_slots) = plan.largest_tier().unwrap();
    let slots = plan.total_slots();
    if json_out {
        let out = json!({"variant": variant.to_json_value(), "tiers": plan.order.len(), "positions": slots,
            "largest_tier": {"name": largest.name(), "positions": largest_slots}});
        println!("{out}");
    } else {
        println!("variant: {variant}");
        println!("{} tiers, {slots} positions; largest tier {largest}: {largest_slots} positions", plan.order.len());
    }
}
