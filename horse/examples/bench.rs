//! The solver benchmark (docs/horse.md): random maps of 20x20, 40x40 and
//! 60x60 (20 each by default, walls 8 to 20 in turn, every tile kind, from
//! the crate's seeded generator), each solved by our formulation and by
//! the write-up's with the same HiGHS, timed to the proven optimum; and by
//! ours with lazy connectivity cuts instead of the flow.
//!
//! ```text
//! cargo run --release -p horse --example bench -- [--sizes 20,40,60] [--maps 20] [--seed 1] [--time-limit 300] [--only horse-flow|horse-cuts|write-up] [--no-heuristic]
//! ```
//!
//! `--no-heuristic` solves ours without the search's first placement and
//! dropped candidates (`Limits::skip_heuristic`), to measure what it saves.
//!
//! Prints one JSON line a map (with each formulation's linear relaxation
//! bound, the measure of its tightness), then one a size with the median and worst
//! times, how many solves hit the time limit, and on how many maps the
//! write-up's objective differs from the flood-filled score.

use horse::generate::{benchmark_map, benchmark_seed};
use horse::milp::{lp_bound, solve, Formulation, Limits, Outcome};
use serde_json::json;
use std::time::Duration;

fn main() {
    let mut sizes = vec![20usize, 40, 60];
    let mut maps = 20usize;
    let mut seed = 1u64;
    let mut limit = 300.0f64;
    let mut only: Option<String> = None;
    let mut skip_heuristic = false;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--no-heuristic" {
            skip_heuristic = true;
            continue;
        }
        let value = it.next().unwrap_or_else(|| die(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--sizes" => {
                sizes = value.split(',').map(|s| s.parse().unwrap_or_else(|_| die("--sizes: numbers"))).collect()
            }
            "--maps" => maps = value.parse().unwrap_or_else(|_| die("--maps: a number")),
            "--seed" => seed = value.parse().unwrap_or_else(|_| die("--seed: a number")),
            "--time-limit" => limit = value.parse().unwrap_or_else(|_| die("--time-limit: seconds")),
            "--only" => {
                if !NAMES.contains(&value.replace('-', "_").as_str()) {
                    die("--only: horse-flow, horse-cuts or write-up")
                }
                only = Some(value.replace('-', "_"))
            }
            _ => die(&format!("unknown flag {flag}")),
        }
    }
    let limits = Limits { time_limit: Some(Duration::from_secs_f64(limit)), skip_heuristic };
    for &size in &sizes {
        let mut times: [Vec<f64>; 3] = Default::default();
        let mut timeouts = [0usize; 3];
        let mut overcounts = 0;
        let mut disagreements = 0;
        for m in 0..maps {
            let map = benchmark_map(size, seed, m);
            let seed_of_map = benchmark_seed(size, seed, m);
            let mut line = json!({ "size": size, "map": m, "walls": map.walls(), "seed": seed_of_map });
            let mut scores = [None, None, None];
            for (f, formulation) in FORMULATIONS.into_iter().enumerate() {
                let name = NAMES[f];
                if only.as_ref().is_some_and(|o| o != name) {
                    continue;
                }
                let outcome = solve(&map, formulation, limits).unwrap_or_else(|e| die(&e.to_string()));
                let (seconds, optimal, value) = match &outcome {
                    Outcome::Trapped(a) => {
                        if formulation == Formulation::WriteUp && a.objective != a.enclosure.score {
                            overcounts += 1;
                        }
                        scores[f] = Some(a.enclosure.score);
                        (
                            a.elapsed.as_secs_f64(),
                            a.optimal,
                            json!({ "score": a.enclosure.score, "objective": a.objective }),
                        )
                    }
                    Outcome::Untrappable => (0.0, true, json!("untrappable")),
                    Outcome::Unknown => (limit, false, json!("unknown")),
                };
                if !optimal {
                    timeouts[f] += 1;
                }
                if !matches!(outcome, Outcome::Untrappable) {
                    times[f].push(seconds);
                }
                let bound = lp_bound(&map, formulation);
                line[name] = json!({ "seconds": seconds, "optimal": optimal, "value": value, "lp_bound": bound });
            }
            if only.is_none() && scores[0] != scores[2] {
                disagreements += 1;
            }
            println!("{line}");
        }
        let summary = |t: &mut Vec<f64>| {
            t.sort_by(f64::total_cmp);
            let median = if t.is_empty() { 0.0 } else { t[t.len() / 2] };
            json!({ "median_s": median, "worst_s": t.last().copied().unwrap_or(0.0), "solved": t.len() })
        };
        println!(
            "{}",
            json!({
                "size": size, "maps": maps, "time_limit_s": limit,
                "horse_flow": summary(&mut times[0]), "horse_cuts": summary(&mut times[1]),
                "write_up": summary(&mut times[2]),
                "timeouts": { "horse_flow": timeouts[0], "horse_cuts": timeouts[1], "write_up": timeouts[2] },
                "write_up_objective_overcounts": overcounts,
                "maps_where_the_scores_differ": disagreements,
            })
        );
    }
}

const FORMULATIONS: [Formulation; 3] = [Formulation::HorseFlow, Formulation::HorseCuts, Formulation::WriteUp];
const NAMES: [&str; 3] = ["horse_flow", "horse_cuts", "write_up"];

fn die(message: &str) -> ! {
    eprintln!("bench: {message}");
    std::process::exit(2)
}
