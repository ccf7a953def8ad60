//! `horse`: solve enclose.horse maps exactly (docs/horse.md).

use clap::{Parser, Subcommand, ValueEnum};
use horse::map::{Map, Tile};
use horse::milp::{self, Formulation, Limits, Outcome};
use horse::{brute, generate, mincut, svg};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "horse", about = "enclose.horse: the best walls, proven optimal (docs/horse.md)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The best score with at most K walls, proven optimal by HiGHS.
    Solve {
        /// The map file (docs/horse.md).
        map: PathBuf,
        /// Walls to place, instead of the map's `walls` line.
        #[arg(long)]
        walls: Option<usize>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Also draw the map, the walls and the region into this SVG file.
        #[arg(long, value_name = "OUT.svg")]
        svg: Option<PathBuf>,
        /// Stop after this many seconds; the answer is then marked not optimal.
        #[arg(long, value_name = "SECONDS")]
        time_limit: Option<f64>,
        /// The integer program: ours, or the write-up's (for comparison).
        #[arg(long, value_enum, default_value = "horse-flow")]
        formulation: FormulationArg,
    },
    /// The fewest walls that trap the horse at all (score ignored), by a
    /// minimum vertex cut, checked against the integer program.
    MinWalls {
        /// The map file (docs/horse.md).
        map: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print a random map from the benchmark's seeded generator.
    Random {
        /// Rows of the grid.
        rows: usize,
        /// Columns of the grid.
        cols: usize,
        /// The map's walls budget.
        #[arg(long, default_value_t = 10)]
        walls: usize,
        /// The generator's seed: the same seed gives the same map.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// The best score by trying every wall set (small maps only: about 30
    /// reachable grass tiles and a few walls).
    Brute {
        /// The map file (docs/horse.md).
        map: PathBuf,
        /// Walls to place, instead of the map's `walls` line.
        #[arg(long)]
        walls: Option<usize>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum FormulationArg {
    /// Region variables with a connectivity flow from the horse.
    HorseFlow,
    /// Region variables, connectivity by cuts added between HiGHS runs.
    HorseCuts,
    /// The write-up's escape variables with a proof-of-escape flow.
    WriteUp,
}

/// One line of a command's output, into its text.
macro_rules! say {
    ($out:ident, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

/// [`say!`] without the newline.
macro_rules! say_raw {
    ($out:ident, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = write!($out, $($arg)*);
    }};
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(text) => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                // A closed pipe (`horse random 400 400 | head`) ends quietly, as Unix filters do.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("horse: writing the output: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(message) => {
            eprintln!("horse: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a command; returns what it prints (written at once by `main`).
fn run(cli: Cli) -> Result<String, String> {
    let mut out = String::new();
    match cli.command {
        Command::Solve { map, walls, json, svg, time_limit, formulation } => {
            let board = load(&map, walls)?;
            let time_limit = match time_limit {
                Some(s) if !(s.is_finite() && s > 0.0) => {
                    return Err(format!("--time-limit: {s} is not a positive number of seconds"))
                }
                s => s.map(Duration::from_secs_f64),
            };
            let formulation = match formulation {
                FormulationArg::HorseFlow => Formulation::HorseFlow,
                FormulationArg::HorseCuts => Formulation::HorseCuts,
                FormulationArg::WriteUp => Formulation::WriteUp,
            };
            let outcome = milp::solve(&board, formulation, Limits { time_limit, ..Limits::default() })
                .map_err(|e| e.to_string())?;
            let (walls, region) = match &outcome {
                Outcome::Trapped(a) => (a.walls.clone(), a.enclosure.region.clone()),
                _ => (Vec::new(), Vec::new()),
            };
            if let Some(out) = &svg {
                write_atomically(out, svg::render(&board, &walls, &region).as_bytes())?;
            }
            match outcome {
                Outcome::Unknown => {
                    return Err("the time limit came before any placement that traps the horse was found".into())
                }
                Outcome::Untrappable if json => say!(out, r#"{{"trapped": false}}"#),
                Outcome::Untrappable => {
                    say!(out, "no placement of at most {} walls traps the horse (proven)", board.walls())
                }
                // The issue's key order (serde_json's map would sort the keys).
                Outcome::Trapped(a) if json => say!(
                    out,
                    r#"{{"trapped": true, "score": {}, "walls": {}, "region": {}, "optimal": {}}}"#,
                    a.enclosure.score,
                    json!(positions(&board, &a.walls)),
                    a.enclosure.region.len(),
                    a.optimal,
                ),
                Outcome::Trapped(a) => {
                    let proof = if a.optimal { "proven optimal" } else { "NOT proven optimal (time limit)" };
                    say!(out, "score {}, {proof}", a.enclosure.score);
                    if formulation == Formulation::WriteUp && a.objective != a.enclosure.score {
                        say!(out, "(the write-up's objective says {}: it counts sealed pockets)", a.objective);
                    }
                    say!(out, "{}: {}", plural(a.walls.len(), "wall"), listed(&board, &a.walls));
                    say!(out, "region: {} tiles", a.enclosure.region.len());
                    say_raw!(out, "{}", drawn(&board, &a.walls, &a.enclosure.region));
                }
            }
            Ok(out)
        }
        Command::MinWalls { map, json } => {
            let board = load(&map, None)?;
            let cut = mincut::min_walls(&board);
            let check = milp::min_walls(&board).map_err(|e| e.to_string())?;
            if cut.as_ref().map(Vec::len) != check.as_ref().map(Vec::len) {
                return Err(format!(
                    "the minimum cut ({:?} walls) and the integer program ({:?}) disagree",
                    cut.as_ref().map(Vec::len),
                    check.as_ref().map(Vec::len)
                ));
            }
            match cut {
                None if json => say!(out, "{}", json!({ "trappable": false })),
                None => say!(out, "no number of walls traps the horse"),
                Some(walls) if json => say!(
                    out,
                    "{}",
                    json!({ "trappable": true, "count": walls.len(), "walls": positions(&board, &walls) })
                ),
                Some(walls) => {
                    say!(out, "{} the horse: {}", plural(walls.len(), "wall traps"), listed(&board, &walls));
                    say!(out, "(the integer program with the score ignored agrees: {})", plural(walls.len(), "wall"));
                }
            }
            Ok(out)
        }
        Command::Random { rows, cols, walls, seed } => {
            if rows < 3 || cols < 3 || rows * cols > 1_000_000 {
                return Err(format!("{rows}x{cols}: rows and columns from 3, at most 1,000,000 tiles"));
            }
            let map = generate::random_map(rows, cols, walls, generate::Mix::BENCHMARK, seed);
            say!(out, "# horse random {rows} {cols} --walls {walls} --seed {seed}");
            say_raw!(out, "{map}");
            Ok(out)
        }
        Command::Brute { map, walls, json } => {
            let board = load(&map, walls)?;
            let grass = brute::reachable_grass(&board);
            if grass > 40 {
                return Err(format!("{grass} reachable grass tiles: too many for the brute force (at most 40)"));
            }
            match brute::best(&board) {
                None if json => say!(out, "{}", json!({ "trapped": false })),
                None => say!(out, "no placement of at most {} walls traps the horse", board.walls()),
                Some((score, walls)) if json => {
                    say!(out, "{}", json!({ "trapped": true, "score": score, "walls": positions(&board, &walls) }))
                }
                Some((score, walls)) => {
                    say!(out, "score {score}, {}: {}", plural(walls.len(), "wall"), listed(&board, &walls))
                }
            }
            Ok(out)
        }
    }
}

fn load(path: &Path, walls: Option<usize>) -> Result<Map, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let map = Map::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(match walls {
        Some(k) => map.with_walls(k),
        None => map,
    })
}

fn positions(map: &Map, tiles: &[usize]) -> Vec<[usize; 2]> {
    tiles.iter().map(|&t| map.position(t)).map(|(r, c)| [r, c]).collect()
}

fn listed(map: &Map, tiles: &[usize]) -> String {
    let words: Vec<String> = tiles.iter().map(|&t| map.position(t)).map(|(r, c)| format!("({r}, {c})")).collect();
    if words.is_empty() {
        "none".into()
    } else {
        words.join(" ")
    }
}

/// The map with walls as `W` and the region's plain grass as `+`.
fn drawn(map: &Map, walls: &[usize], region: &[usize]) -> String {
    let mut out = String::new();
    for r in 0..map.rows() {
        for c in 0..map.cols() {
            let i = r * map.cols() + c;
            out.push(if walls.contains(&i) {
                'W'
            } else if map.tile(i) == Tile::Grass && region.binary_search(&i).is_ok() {
                '+'
            } else {
                map.tile(i).to_char()
            });
        }
        out.push('\n');
    }
    out
}

/// Writes a file whole or not at all: a temporary file beside it, synced,
/// then renamed over it.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let name = path.file_name().ok_or_else(|| format!("--svg: {} is not a file name", path.display()))?;
    let tmp = path.with_file_name(format!(".{}.tmp", name.to_string_lossy()));
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("--svg {}: {e}", path.display())
    })
}

/// "1 wall", "2 walls"; "1 wall traps", "2 walls trap".
fn plural(n: usize, words: &str) -> String {
    match (n, words.split_once(' ')) {
        (1, _) => format!("1 {words}"),
        (_, Some((noun, verb))) => format!("{n} {noun}s {}", verb.strip_suffix('s').unwrap_or(verb)),
        (_, None) => format!("{n} {words}s"),
    }
}
