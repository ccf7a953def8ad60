//! Perfect play from the tables: `versus` (a game against the engine,
//! moves read from standard input so that it can be scripted) and
//! `puzzles` (positions with exactly one good move).

use crate::command::{position_arg, CommandResult, Failure};
use crate::output::{json, line, text};
use crate::tables::who_wins;
use clap::Args;
use foxbase_core::game::GameKind;
use foxbase_core::notation::{board_picture, count, format_position, parse_move};
use foxbase_core::tier::TierGame;
use foxbase_core::Side;
use foxbase_tables::engine::engine_move;
use foxbase_tables::puzzles::{find_puzzles, PuzzleOptions};
use foxbase_tables::TableDir;
use serde_json::json;
use std::io::BufRead;
use std::path::PathBuf;

/// Who the person at the terminal plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    Side(Side),
    /// The engine plays both sides.
    None,
}

/// `--side`: fox, sheep or none (tic-tac-toe tables: x, o or none).
fn parse_player(s: &str) -> Result<String, String> {
    match s {
        "none" | "x" | "o" => Ok(s.to_string()),
        _ if Side::from_name(s).is_some() => Ok(s.to_string()),
        _ => Err(format!("'{s}' is not a side: fox, sheep or none (x, o or none for tic-tac-toe)")),
    }
}

fn parse_side(s: &str) -> Result<Side, String> {
    Side::from_name(s).ok_or_else(|| format!("'{s}' is not a side: fox or sheep"))
}

#[derive(Args)]
pub struct VersusArgs {
    /// Directory written by `foxbase solve` or `foxbase publish`.
    #[arg(long)]
    tables: PathBuf,
    /// The side you play: fox, sheep, or none (the engine plays both); x, o or none with tic-tac-toe
    /// tables. Default: the side to move at the start.
    #[arg(long, value_parser = parse_player)]
    side: Option<String>,
    /// Start position in RULES.md notation (default: the tables' start).
    #[arg(long)]
    start: Option<String>,
    /// Seed of the engine's random choice among equally good moves (the same seed replays the same game).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Stop after this many plies (the rules have no draw by repetition).
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
}

/// `foxbase versus`: prints the board and its value before every move;
/// your moves come one per line from standard input (`c7-c6`, `e5xc3`); an
/// illegal one is reported and asked for again. Ends when the game does,
/// after `--max-plies`, or (with an error) when standard input ends first.
pub fn versus(args: VersusArgs) -> CommandResult {
    if crate::games::game_of(&args.tables)? == GameKind::TicTacToe {
        return crate::games::ttt_versus(
            &args.tables,
            args.side.as_deref(),
            args.start.as_deref(),
            args.seed,
            args.max_plies,
        );
    }
    let side = match args.side.as_deref() {
        None => None,
        Some("none") => Some(Player::None),
        Some(name) => match Side::from_name(name) {
            Some(side) => Some(Player::Side(side)),
            None => return Err(Failure::bad_input(format!("--side {name}: a Fox Game side is fox, sheep or none"))),
        },
    };
    let tables = TableDir::open(&args.tables).map_err(Failure::bad_input)?;
    let mut pos = match &args.start {
        Some(s) => position_arg(s)?,
        None => tables.game.variant.start,
    };
    tables.check_position(&pos)?;
    tables.outcome(&pos)?;
    let human = side.unwrap_or(Player::Side(pos.side()));
    let rules = tables.game.rules;
    crate::tables::bound_line(&tables.game.variant)?;
    let mut input = std::io::stdin().lock().lines();
    let mut ply = 0u32;
    loop {
        let now = tables.outcome(&pos).map_err(Failure::failed)?;
        text(&board_picture(&pos))?;
        line(format_args!(
            "{}: {} for the {} to move{}",
            format_position(&pos),
            now.value,
            pos.side(),
            who_wins(now, pos.side())
        ))?;
        if tables.game.primitive(&pos).is_some() {
            let winner = if now.value == foxbase_core::Value::Win { pos.side() } else { pos.side().other() };
            return line(format_args!("game over after {}: the {} win", count(ply, "ply", "plies"), plural(winner)));
        }
        if ply >= args.max_plies {
            return line(format_args!("stopped after {ply} plies (--max-plies)"));
        }
        let mv = if human == Player::Side(pos.side()) {
            loop {
                line(format_args!("your move ({}):", pos.side()))?;
                let Some(read) = input.next() else {
                    return Err(Failure::bad_input("standard input ended before the game did"));
                };
                let read = read.map_err(|e| Failure::failed(format!("reading standard input: {e}")))?;
                match parse_move(&rules, &pos, read.trim()) {
                    Ok(mv) => break mv,
                    Err(e) => eprintln!("foxbase: {e}; try again"),
                }
            }
        } else {
            let choice = engine_move(&tables, &pos, args.seed.wrapping_add(ply as u64))
                .map_err(Failure::failed)?
                .expect("a position that is not over has a move");
            line(format_args!(
                "engine ({}) plays {}: {} for the {}{}",
                pos.side(),
                choice.mv,
                choice.outcome.value,
                pos.side(),
                who_wins(choice.outcome, pos.side())
            ))?;
            choice.mv
        };
        pos = rules.play(&pos, mv);
        ply += 1;
    }
}

fn plural(side: Side) -> &'static str {
    match side {
        Side::Fox => "foxes",
        Side::Sheep => "sheep",
    }
}

#[derive(Args)]
pub struct PuzzlesArgs {
    /// Directory written by `foxbase solve` (with plies) or `foxbase publish`.
    #[arg(long)]
    tables: PathBuf,
    /// Number of puzzles.
    #[arg(long, default_value_t = 10)]
    count: usize,
    /// Longest solution, in plies of the solver's side and the defence together (a win's plies to the end).
    #[arg(long, default_value_t = 15)]
    max_plies: u32,
    /// Only puzzles for this side to move: fox or sheep.
    #[arg(long, value_parser = parse_side)]
    side: Option<Side>,
    /// Seed of the walk from the start that finds the puzzles (the same seed gives the same puzzles).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object per line: {"position", "side", "kind", "value", "plies", "solution": [...]}.
    #[arg(long)]
    json: bool,
}

/// `foxbase puzzles`: positions reachable from the tables' start in which
/// exactly one move keeps the win (or, for a defender, the draw).
pub fn puzzles(args: PuzzlesArgs) -> CommandResult {
    let tables = TableDir::open(&args.tables).map_err(Failure::bad_input)?;
    if args.count == 0 {
        return Err(Failure::bad_input("--count must be at least 1"));
    }
    let options = PuzzleOptions { count: args.count, max_plies: args.max_plies, side: args.side, seed: args.seed };
    let found = find_puzzles(&tables, &options).map_err(Failure::failed)?;
    let variant = &tables.game.variant;
    if !args.json {
        crate::tables::bound_line(variant)?;
    }
    for p in &found {
        let solution: Vec<String> = p.solution.iter().map(|m| m.to_string()).collect();
        if args.json {
            let view = json!({"position": format_position(&p.position), "side": p.position.side().name(),
                "kind": p.kind.name(), "value": p.value.name(), "plies": p.plies, "solution": solution});
            json(&crate::views::with_bound(view, variant))?;
        } else {
            let goal = match p.plies {
                Some(n) => format!("{} to {} in {}", p.position.side(), p.kind.goal(), count(n, "ply", "plies")),
                None => format!("{} to {}", p.position.side(), p.kind.goal()),
            };
            line(format_args!("{}  ({goal}; only {} does)", format_position(&p.position), p.solution[0]))?;
            line(format_args!("  solution: {}", solution.join(" ")))?;
        }
    }
    if found.len() < args.count {
        eprintln!(
            "foxbase: found {} of {} puzzles (try a larger --max-plies or another --seed)",
            found.len(),
            args.count
        );
    }
    Ok(())
}
