//! `foxbase`: the command-line tool. A thin layer over the foxbase libraries.

use clap::{Args, Parser, Subcommand};
use foxbase_coordinator::probe::FoxTables;
use foxbase_core::notation::{board_picture, format_position, parse_move, parse_position};
use foxbase_core::perft::{divide, perft};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::{Geometry, Position, Rules, Status, Variant};

mod cluster;
mod solve;
use serde_json::json;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Exit code for bad input (a malformed position, move, flag or file).
const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser)]
#[command(
    name = "foxbase",
    version,
    about = "Strongly solve the Fox Game (halatafl) by retrograde analysis, and probe the results"
)]
#[command(long_about = "Strongly solve the Fox Game (halatafl) by retrograde analysis, and probe the results.\n\n\
Positions are written as in RULES.md: ranks 7 down to 1 separated by '/', each rank's points left to right as \
F (fox), S (sheep) or . (empty), then a space and the side to move (f or s). Quote them in the shell, e.g.\n  \
foxbase show 'F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f'\n\nBad input exits with status 2 and a message naming the problem.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Rule switches shared by every command that plays moves.
#[derive(Args, Clone, Copy)]
struct RuleArgs {
    /// Board lines: `classic` (orthogonal lines plus the alternating diagonals) or `orthogonal` (no diagonals).
    #[arg(long, default_value = "classic", value_parser = parse_geometry)]
    geometry: Geometry,
    /// Pen target K (1..=9): K sheep in the pen win for the sheep, fewer than K sheep left win for the foxes.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=9))]
    pen_target: u32,
}

impl RuleArgs {
    fn rules(&self) -> Rules {
        Rules::new(self.geometry, self.pen_target)
    }
}

/// Rule switches for `solve`, whose defaults are the README's main job.
#[derive(Args, Clone, Copy)]
struct SolveRuleArgs {
    /// Board lines: `classic` (orthogonal lines plus the alternating diagonals) or `orthogonal` (no diagonals).
    #[arg(long, default_value = "classic", value_parser = parse_geometry)]
    geometry: Geometry,
    /// Pen target K (1..=9): K sheep in the pen win for the sheep, fewer than K sheep left win for the foxes.
    /// Default 7 here, to go with the default start; use 9 for the full rules.
    #[arg(long, default_value_t = DEFAULT_SOLVE_PEN_TARGET, value_parser = clap::value_parser!(u32).range(1..=9))]
    pen_target: u32,
}

/// The default `solve` variant (docs/results.md says why it was chosen).
const DEFAULT_SOLVE_START: &str = ".F./.../......./......./SSSSSSS/.S./... f";
const DEFAULT_SOLVE_PEN_TARGET: u32 = 7;

fn parse_geometry(s: &str) -> Result<Geometry, String> {
    s.parse()
}

#[derive(Subcommand)]
enum Command {
    /// Print a position as a board with coordinates.
    Show {
        /// The position, in RULES.md notation (quote it).
        position: String,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// List the legal moves of a position and the positions they lead to.
    Moves {
        /// The position, in RULES.md notation (quote it).
        position: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Play a move and print the resulting position.
    Play {
        /// The position, in RULES.md notation (quote it).
        position: String,
        /// The moves to play in order, e.g. c7-c6 or e5xc3.
        #[arg(required = true)]
        moves: Vec<String>,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Count move sequences of a given length (a check on move generation).
    Perft {
        /// Number of plies.
        #[arg(long)]
        depth: u32,
        /// Start position (default: the default start, foxes to move).
        #[arg(long, default_value = foxbase_core::variant::DEFAULT_START)]
        position: String,
        /// Also print the count below each first move.
        #[arg(long)]
        divide: bool,
        /// Print one JSON object: {"depth", "nodes", "position", "geometry", "pen_target"[, "divide"]}.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Solve a variant completely, tier by tier, and write its tables and manifest.
    Solve {
        /// Start position in RULES.md notation; its side to move moves first. The default (with
        /// --pen-target 7) is the README's main job: one fox on d7 against 8 sheep on rank 3 and d2.
        #[arg(long, default_value = DEFAULT_SOLVE_START)]
        start: String,
        #[command(flatten)]
        rules: SolveRuleArgs,
        /// Directory for the tables and manifest.json (created if missing; existing tables there are overwritten).
        #[arg(long, default_value = "foxbase-tables")]
        out: std::path::PathBuf,
        /// Kernel threads per worker (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// In-process workers solving independent tiers at the same time.
        #[arg(long, default_value_t = 1)]
        workers: usize,
        /// Print one JSON summary object at the end instead of text.
        #[arg(long)]
        json: bool,
        /// Only plan: print the number of tiers, positions and the largest tier, and solve nothing.
        #[arg(long)]
        plan_only: bool,
    },
    /// The value of a position and of each of its moves, from solved tables.
    Probe {
        /// The position, in RULES.md notation (quote it).
        position: String,
        /// Directory written by `foxbase solve`.
        #[arg(long)]
        tables: std::path::PathBuf,
        /// Print {"value": "win"|"draw"|"loss", "moves": [{"move", "value"}]} (move values for the mover).
        #[arg(long)]
        json: bool,
    },
    /// Check a table directory: manifest, file and block checksums, and every value against its children.
    Verify {
        /// Directory written by `foxbase solve`.
        dir: std::path::PathBuf,
        /// Print one JSON object: {"ok", "tiers", "positions", "problem"}.
        #[arg(long)]
        json: bool,
    },
    /// Run the coordinator of a distributed solve: hand tiers to `foxbase worker`s over gRPC until done.
    Coordinator {
        /// Start position in RULES.md notation (as for `solve`).
        #[arg(long, default_value = DEFAULT_SOLVE_START)]
        start: String,
        #[command(flatten)]
        rules: SolveRuleArgs,
        /// Shared store directory for the tables and manifest.json (every worker must reach it).
        #[arg(long)]
        store: std::path::PathBuf,
        /// Address to listen on (port 0 picks a free port; the chosen address is logged).
        #[arg(long, default_value = "127.0.0.1:7341")]
        listen: std::net::SocketAddr,
        /// Continue the run journaled in the store instead of starting a new one.
        #[arg(long)]
        resume: bool,
        /// Journal of finished tiers (default: STORE/journal.log).
        #[arg(long)]
        journal: Option<std::path::PathBuf>,
        #[command(flatten)]
        auth: cluster::ServerAuthArgs,
        /// Seconds a lease lasts without a heartbeat before its tier is handed to another worker.
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(2..=86400))]
        lease_seconds: u64,
        /// Print one JSON summary object at the end instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run a worker of a distributed solve: lease tiers from a coordinator, solve them, upload the tables.
    Worker {
        /// The coordinator's URL, e.g. http://10.0.0.5:7341 (https://… with --tls-ca).
        #[arg(long)]
        coordinator: String,
        #[command(flatten)]
        auth: cluster::ClientAuthArgs,
        /// Kernel threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Local directory for fetched child tables and tables before upload.
        #[arg(long, default_value = "foxbase-cache")]
        cache: std::path::PathBuf,
        /// The shared store as mounted on this machine (default: where the coordinator says it is).
        #[arg(long)]
        store: Option<std::path::PathBuf>,
        /// Name shown by `foxbase status` (default: host name and process id).
        #[arg(long)]
        name: Option<String>,
        /// Give up after the coordinator has been unreachable this many seconds.
        #[arg(long, default_value_t = 600)]
        give_up_after: u64,
        /// Hold each lease this many milliseconds before solving (for tests of failures mid-tier).
        #[arg(long, default_value_t = 0, hide = true)]
        hold_ms: u64,
    },
    /// Show a running coordinator's progress: tiers done/running/pending, positions/s, ETA, workers and leases.
    Status {
        /// The coordinator's URL, e.g. http://10.0.0.5:7341.
        url: String,
        #[command(flatten)]
        auth: cluster::ClientAuthArgs,
        /// Print the status as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Turn the tables a solve wrote into the distributable tablebase in a new directory: fox-to-move
    /// values left out (derived by one fox move when read), harder compression, checked value by value.
    Publish {
        /// Directory written by `foxbase solve`.
        src: std::path::PathBuf,
        /// New directory for the published tablebase (must not exist; it appears only when complete).
        out: std::path::PathBuf,
        /// zstd level of the published blocks, 1..=22 (higher: smaller and slower; docs/format.md).
        #[arg(long, default_value_t = foxbase_worker::table::PUBLISH_ZSTD_LEVEL)]
        level: i32,
        /// Print one JSON object: {"tiers", "positions", "source_bytes", "bytes", "bits_per_position", "seconds"}.
        #[arg(long)]
        json: bool,
    },
    /// Value every arrangement of N sheep on ranks 1..4 against the tables' foxes, from solved tables.
    Survey {
        /// Directory written by `foxbase solve`.
        #[arg(long)]
        tables: std::path::PathBuf,
        /// Number of sheep to arrange on the 20 points of ranks 1..4.
        #[arg(long)]
        sheep: u32,
        /// Fox squares, comma-separated (default: the foxes of the tables' start position).
        #[arg(long, value_delimiter = ',')]
        foxes: Vec<String>,
        /// Side to move, f or s (default: the tables' first mover).
        #[arg(long)]
        side: Option<String>,
        /// List at most this many arrangements of each value (0: counts only).
        #[arg(long, default_value_t = 20)]
        list: usize,
        /// Print one JSON object with the counts and the listed arrangements.
        #[arg(long)]
        json: bool,
    },
    /// Solve a small variant with the simple reference solver and print the value of a position.
    ProbeRef {
        /// The position to solve from, in RULES.md notation (quote it); it is also the variant's start.
        position: String,
        /// Refuse to explore more than this many positions.
        #[arg(long, default_value_t = 20_000_000)]
        max_positions: usize,
        /// Print one JSON object with a "value" field: "win", "draw" or "loss" for the side to move.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        rules: RuleArgs,
    },
}

/// A failure: a message and the exit status to leave with.
struct Failure {
    message: String,
    code: u8,
}

fn bad_input(message: impl Into<String>) -> Failure {
    Failure { message: message.into(), code: EXIT_BAD_INPUT }
}

fn position_arg(text: &str) -> Result<Position, Failure> {
    parse_position(text).map_err(|e| bad_input(format!("bad position '{text}': {e}")))
}

fn status_json(rules: &Rules, pos: &Position) -> serde_json::Value {
    match rules.status(pos) {
        Status::Ongoing => json!({"over": false}),
        Status::Over { winner, reason } => {
            json!({"over": true, "winner": winner.name(), "reason": reason.describe()})
        }
    }
}

fn status_text(rules: &Rules, pos: &Position) -> String {
    match rules.status(pos) {
        Status::Ongoing => "game goes on".into(),
        Status::Over { winner, reason } => format!("game over: {winner} won ({})", reason.describe()),
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Show { position, rules } => {
            let pos = position_arg(&position)?;
            print!("{}", board_picture(&pos));
            println!("{}", status_text(&rules.rules(), &pos));
        }
        Command::Moves { position, json, rules } => {
            let pos = position_arg(&position)?;
            let rules = rules.rules();
            let moves = rules.moves(&pos);
            if json {
                let list: Vec<_> = moves
                    .iter()
                    .map(|&m| {
                        let child = rules.play(&pos, m);
                        json!({"move": m.to_string(), "position": format_position(&child), "status": status_json(&rules, &child)})
                    })
                    .collect();
                let out =
                    json!({"position": format_position(&pos), "status": status_json(&rules, &pos), "moves": list});
                println!("{out}");
            } else {
                println!("{} ({} legal moves; {})", format_position(&pos), moves.len(), status_text(&rules, &pos));
                for m in moves {
                    let child = rules.play(&pos, m);
                    println!("{m:7} {}  {}", format_position(&child), status_text(&rules, &child));
                }
            }
        }
        Command::Play { position, moves, rules } => {
            let mut pos = position_arg(&position)?;
            let rules = rules.rules();
            for text in &moves {
                let m = parse_move(&rules, &pos, text).map_err(|e| bad_input(format!("bad move: {e}")))?;
                pos = rules.play(&pos, m);
            }
            println!("{}", format_position(&pos));
            println!("{}", status_text(&rules, &pos));
        }
        Command::Perft { depth, position, divide: split, json, rules } => {
            let pos = position_arg(&position)?;
            let r = rules.rules();
            let (nodes, parts) = if split && depth > 0 {
                let parts = divide(&r, &pos, depth);
                (parts.iter().map(|p| p.1).sum(), parts)
            } else {
                (perft(&r, &pos, depth), Vec::new())
            };
            if json {
                let mut out = json!({"depth": depth, "nodes": nodes, "position": format_position(&pos),
                    "geometry": rules.geometry.name(), "pen_target": rules.pen_target});
                if split {
                    out["divide"] = parts.iter().map(|(m, n)| json!({"move": m.to_string(), "nodes": n})).collect();
                }
                println!("{out}");
            } else {
                for (m, n) in &parts {
                    println!("{m}: {n}");
                }
                println!("perft({depth}) = {nodes}");
            }
        }
        Command::Solve { start, rules, out, threads, workers, json, plan_only } => {
            let pos = position_arg(&start)?;
            let variant = Variant::new(rules.geometry, rules.pen_target, pos).map_err(bad_input)?;
            let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            if threads == 0 || workers == 0 {
                return Err(bad_input("--threads and --workers must be at least 1"));
            }
            if plan_only {
                solve::print_plan(variant, json);
            } else {
                solve::run_solve(variant, &out, threads, workers, json).map_err(|e| Failure { message: e, code: 1 })?;
            }
        }
        Command::Probe { position, tables, json } => {
            let pos = position_arg(&position)?;
            let t = FoxTables::open(&tables).map_err(bad_input)?;
            t.check_position(&pos).map_err(bad_input)?;
            let value = t.value(&pos).map_err(bad_input)?;
            let moves = t.move_values(&pos).map_err(bad_input)?;
            if json {
                let list: Vec<_> =
                    moves.iter().map(|(m, v)| json!({"move": m.to_string(), "value": v.name()})).collect();
                println!("{}", json!({"position": format_position(&pos), "value": value.name(), "moves": list}));
            } else {
                println!("{}: {} for the {} to move", format_position(&pos), value, pos.side());
                for (m, v) in moves {
                    println!("  {m:7} {v} for the {}", pos.side());
                }
            }
        }
        Command::Verify { dir, json } => {
            let bar = (!json && std::io::stderr().is_terminal()).then(|| indicatif::ProgressBar::new(0));
            let on_tier = |done: usize, total: usize| {
                if let Some(b) = &bar {
                    b.set_length(total as u64);
                    b.set_position(done as u64);
                }
            };
            let result = foxbase_coordinator::verify::verify(&dir, &on_tier);
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            match result {
                Ok(v) => {
                    if json {
                        println!(
                            "{}",
                            json!({"ok": true, "tiers": v.tiers, "positions": v.positions_checked, "problem": null})
                        );
                    } else {
                        println!(
                            "ok: {} tiers, {} positions checked against their children",
                            v.tiers, v.positions_checked
                        );
                    }
                }
                Err(p) => {
                    if json {
                        println!(
                            "{}",
                            json!({"ok": false, "problem": {"file": p.file, "block": p.block, "position": p.position,
                                "message": p.message, "text": p.to_string()}})
                        );
                    }
                    return Err(Failure { message: format!("verify failed: {p}"), code: 1 });
                }
            }
        }
        Command::Coordinator { start, rules, store, listen, resume, journal, auth, lease_seconds, json } => {
            let pos = position_arg(&start)?;
            let variant = Variant::new(rules.geometry, rules.pen_target, pos).map_err(bad_input)?;
            let config =
                cluster::coordinator_config(store, listen, resume, journal, &auth, lease_seconds).map_err(bad_input)?;
            cluster::run_coordinator(variant, &config, json).map_err(|e| Failure { message: e, code: 1 })?;
        }
        Command::Worker { coordinator, auth, threads, cache, store, name, give_up_after, hold_ms } => {
            let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            if threads == 0 {
                return Err(bad_input("--threads must be at least 1"));
            }
            let link = cluster::connect(&coordinator, &auth).map_err(bad_input)?;
            let options = foxbase_worker::lease_loop::WorkerOptions {
                name: name.unwrap_or_else(cluster::default_worker_name),
                threads,
                cache,
                give_up_after: std::time::Duration::from_secs(give_up_after),
                hold_before_solving: std::time::Duration::from_millis(hold_ms),
                refusal_is_fatal: false,
            };
            cluster::run_worker(&link, store, &options).map_err(|e| Failure { message: e, code: 1 })?;
        }
        Command::Status { url, auth, json } => {
            let link = cluster::connect(&url, &auth).map_err(bad_input)?;
            cluster::print_status(&link, json).map_err(|e| Failure { message: e, code: 1 })?;
        }
        Command::Publish { src, out, level, json } => {
            if !(1..=22).contains(&level) {
                return Err(bad_input(format!("--level {level}: zstd levels run from 1 to 22")));
            }
            let started = std::time::Instant::now();
            let bar = (!json && std::io::stderr().is_terminal()).then(|| indicatif::ProgressBar::new(0));
            let on_tier = |done: usize, total: usize| {
                if let Some(b) = &bar {
                    b.set_length(total as u64);
                    b.set_position(done as u64);
                }
            };
            let result = foxbase_coordinator::publish::publish(&src, &out, level, &on_tier);
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            let p = result.map_err(|e| Failure { message: format!("publish failed: {e}"), code: 1 })?;
            let bits = p.bytes as f64 * 8.0 / p.slots as f64;
            let seconds = started.elapsed().as_secs_f64();
            if json {
                println!(
                    "{}",
                    json!({"tiers": p.tiers, "positions": p.slots, "source_bytes": p.source_bytes, "bytes": p.bytes,
                           "bits_per_position": bits, "seconds": seconds})
                );
            } else {
                println!(
                    "published {} tiers, {} positions: {} bytes ({bits:.3} bit per position; the solve's tables: {} bytes) in {seconds:.1} s",
                    p.tiers, p.slots, p.bytes, p.source_bytes
                );
            }
        }
        Command::Survey { tables, sheep, foxes, side, list, json } => {
            let t = FoxTables::open(&tables).map_err(bad_input)?;
            let start = t.game.variant.start;
            let fox_bits = if foxes.is_empty() {
                start.foxes()
            } else {
                let mut bits = 0;
                for f in &foxes {
                    let p: foxbase_core::Point = f.parse().map_err(|e| bad_input(format!("--foxes: {e}")))?;
                    bits |= p.bit();
                }
                bits
            };
            let side = match side.as_deref() {
                None => start.side(),
                Some("f") => foxbase_core::Side::Fox,
                Some("s") => foxbase_core::Side::Sheep,
                Some(other) => return Err(bad_input(format!("--side '{other}' is not f or s"))),
            };
            let s = foxbase_coordinator::survey::survey(&t, sheep, fox_bits, side).map_err(bad_input)?;
            let count = |v: foxbase_core::Value| s.by_value.get(&v).map_or(0, |l| l.len());
            let listed = |v: foxbase_core::Value| -> Vec<String> {
                s.by_value.get(&v).map_or(vec![], |l| l.iter().take(list).map(format_position).collect())
            };
            use foxbase_core::Value::{Draw, Loss, Win};
            if json {
                println!(
                    "{}",
                    json!({"arrangements": s.arrangements, "side_to_move": side.name(),
                        "win": count(Win), "draw": count(Draw), "loss": count(Loss),
                        "listed": {"win": listed(Win), "draw": listed(Draw), "loss": listed(Loss)}})
                );
            } else {
                println!(
                    "{} arrangements of {sheep} sheep, {} to move: {} win, {} draw, {} loss (for the {} to move)",
                    s.arrangements,
                    side,
                    count(Win),
                    count(Draw),
                    count(Loss),
                    side
                );
                for v in [Win, Draw, Loss] {
                    for p in listed(v) {
                        println!("  {v:4} {p}");
                    }
                }
            }
        }
        Command::ProbeRef { position, max_positions, json, rules } => {
            let pos = position_arg(&position)?;
            let variant = Variant::new(rules.geometry, rules.pen_target, pos).map_err(bad_input)?;
            let sol = ReferenceSolution::solve(&variant, max_positions).map_err(bad_input)?;
            let value = sol.value(&pos).expect("the start is always solved");
            if json {
                let out = json!({"position": format_position(&pos), "value": value.name(),
                    "side_to_move": pos.side().name(), "variant": variant.to_json_value(),
                    "positions": sol.len()});
                println!("{out}");
            } else {
                println!(
                    "{}: {} for the {} to move ({} positions solved)",
                    format_position(&pos),
                    value,
                    pos.side(),
                    sol.len()
                );
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_BAD_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("foxbase: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
