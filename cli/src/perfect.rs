//! Perfect play from the tables: `versus` (a game against the engine,
//! moves read from standard input so that it can be scripted) and
//! `puzzles` (positions with exactly one good move).

use crate::command::{CommandResult, Failure};
use crate::location::{self, TablesVisitor};
use crate::output::{json, line, text};
use crate::tables::who_wins;
use clap::Args;
use foxbase_core::notation::count;
use foxbase_core::play::{GameStatus, Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_tables::engine::engine_move_at;
use foxbase_tables::plies::Distance;
use foxbase_tables::puzzles::{find_puzzles, PuzzleOptions};
use foxbase_tables::Tablebase;
use serde_json::json;
use std::io::BufRead;

#[derive(Args)]
pub struct VersusArgs {
    /// Tablebase written by `foxbase solve` or `foxbase publish`, of any game: a directory or
    /// s3://BUCKET/PREFIX.
    #[arg(long)]
    tables: String,
    /// The side you play: fox, sheep, or none (the engine plays both); goat or tiger with Bagh-Chal
    /// tables, x or o with tic-tac-toe's. Default: the side to move at the start.
    #[arg(long)]
    side: Option<String>,
    /// Start position in the tables' game's notation (default: the tables' start); with tables solved
    /// under --no-progress N, its no-progress counter as a third field ('... f 12'), counted from there
    /// on, and the game drawn when it reaches N.
    #[arg(long)]
    start: Option<String>,
    /// Seed of the engine's random choice among equally good moves (the same seed replays the same game).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Stop after this many plies (the rules have no draw by repetition).
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
    /// MiB of decompressed tables kept for single values: three quarters whole blocks
    /// (2^18 values each, for positions near a recent one), a quarter pieces of 2,048 values around
    /// each value read (for scattered positions read again).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    read_cache_mib: u64,
}

/// `foxbase versus`: prints the board and its value before every move;
/// your moves come one per line from standard input (`c7-c6`, `e5xc3`,
/// Bagh-Chal's `c3`, tic-tac-toe's `b2`); an illegal one is reported and
/// asked for again. Ends when the game does, after `--max-plies`, or (with
/// an error) when standard input ends first. Written once for every game.
pub fn versus(args: VersusArgs) -> CommandResult {
    struct Versus<'a>(&'a VersusArgs);
    impl TablesVisitor for Versus<'_> {
        fn visit<T: Tablebase>(self, tables: T) -> CommandResult {
            play_versus(self.0, &tables)
        }
    }
    location::with_tables_keeping("--tables", &args.tables, Some(args.read_cache_mib << 20), Versus(&args))
}

fn play_versus<T: Tablebase>(args: &VersusArgs, tables: &T) -> CommandResult {
    let (game, rules) = (tables.game(), tables.game().rules());
    let names: Vec<&str> = rules.players().iter().map(|p| p.name).collect();
    // The person's side (`None`: the engine plays both).
    let human = match args.side.as_deref() {
        Some("none") => None,
        Some(name) => Some(Player::Side(rules.player_named(name).ok_or_else(|| {
            Failure::bad_input(format!(
                "--side {name}: a side of {} is {} or none",
                rules.game_title(),
                names.join(", ")
            ))
        })?)),
        None => Some(Player::Default),
    };
    // Under a no-progress rule of N plies the counter is the start's third field, then counted here.
    let n = tables.no_progress();
    let (mut pos, mut counter) = match &args.start {
        Some(text) => {
            rules.parse_position_at_counter(text).map_err(|e| Failure::bad_input(format!("--start '{text}': {e}")))?
        }
        None => (game.initial_position(), 0),
    };
    tables.check_position(&pos)?;
    tables.outcome(&pos)?;
    let human = match human {
        Some(Player::Default) => Some(rules.to_move(&pos)),
        Some(Player::Side(p)) => Some(p),
        None => None,
    };
    crate::tables::bound_line(tables.bound())?;
    let mut input = std::io::stdin().lock().lines();
    let mut ply = 0u32;
    loop {
        let now = tables.outcome_at(&pos, counter).map_err(Failure::failed)?;
        let side = rules.to_move(&pos);
        text(&rules.board_picture(&pos))?;
        let at = if n > 0 { format!(" {counter}") } else { String::new() };
        line(format_args!(
            "{}{at}: {} for {} to move{}",
            rules.format_position(&pos),
            now.value,
            side.team,
            who_wins(rules, &pos, now, tables.distance())
        ))?;
        if let GameStatus::Over { winner, .. } = rules.status(&pos) {
            let result = match winner {
                Some(w) => w.wins(),
                None => "a draw".to_string(),
            };
            return line(format_args!("game over after {}: {result}", count(ply, "ply", "plies")));
        }
        if ply >= args.max_plies {
            return line(format_args!("stopped after {ply} plies (--max-plies)"));
        }
        let mv = if human == Some(side) {
            loop {
                line(format_args!("your move ({}):", side.name))?;
                let Some(read) = input.next() else {
                    return Err(Failure::bad_input("standard input ended before the game did"));
                };
                let read = read.map_err(|e| Failure::failed(format!("reading standard input: {e}")))?;
                match rules.parse_move(&pos, read.trim()) {
                    Ok(mv) => break mv,
                    Err(e) => eprintln!("foxbase: {e}; try again"),
                }
            }
        } else {
            let choice = engine_move_at(tables, &pos, counter, args.seed.wrapping_add(ply as u64))
                .map_err(Failure::failed)?
                .expect("a position that is not over has a move");
            line(format_args!(
                "engine ({}) plays {}: {} for {}{}",
                side.name,
                choice.mv,
                choice.outcome.value,
                side.team,
                who_wins(rules, &pos, choice.outcome, tables.distance())
            ))?;
            choice.mv
        };
        let next = rules.play(&pos, mv);
        counter = if game.tier_of(&next) == game.tier_of(&pos) { counter + 1 } else { 0 };
        pos = next;
        ply += 1;
        if n > 0 && counter >= n && !rules.status(&pos).is_over() {
            return line(format_args!(
                "game over after {}: a draw ({n} plies without progress)",
                count(ply, "ply", "plies")
            ));
        }
    }
}

/// `--side` before the start is known: a side, or (not given) the start's side to move.
enum Player {
    Side(foxbase_core::play::Player),
    Default,
}

#[derive(Args)]
pub struct PuzzlesArgs {
    /// Tablebase written by `foxbase solve` (with plies) or `foxbase publish`, of any game: a directory
    /// or s3://BUCKET/PREFIX.
    #[arg(long)]
    tables: String,
    /// Number of puzzles.
    #[arg(long, default_value_t = 10)]
    count: usize,
    /// Longest win, in plies of the solver's side and the defence together: plies to the end with
    /// tables solved with --distance dtm, plies to zeroing (to the next sheep advance, capture or fox
    /// removed) with DTZ tables.
    #[arg(long, default_value_t = 15)]
    max_plies: u32,
    /// Only puzzles for this side to move: fox or sheep (Bagh-Chal: goat or tiger; tic-tac-toe: x or o).
    #[arg(long)]
    side: Option<String>,
    /// Seed of the walk from the start that finds the puzzles (the same seed gives the same puzzles).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object per line: {"position", "side", "kind", "value", "plies", "distance",
    /// "solution": [...]}, where "distance" says what "plies" counts ("dtz", "dtm" or null).
    #[arg(long)]
    json: bool,
}

/// `foxbase puzzles`: positions reachable from the tables' start in which
/// exactly one move keeps the win (or, for a defender, the draw).
pub fn puzzles(args: PuzzlesArgs) -> CommandResult {
    if args.count == 0 {
        return Err(Failure::bad_input("--count must be at least 1"));
    }
    struct Puzzles<'a>(&'a PuzzlesArgs);
    impl TablesVisitor for Puzzles<'_> {
        fn visit<T: Tablebase>(self, tables: T) -> CommandResult {
            write_puzzles(self.0, &tables)
        }
    }
    location::with_tables("--tables", &args.tables, Puzzles(&args))
}

fn write_puzzles<T: Tablebase>(args: &PuzzlesArgs, tables: &T) -> CommandResult {
    let rules = tables.game().rules();
    let side = match args.side.as_deref() {
        None => None,
        Some(name) => Some(rules.player_named(name).map(|p| p.name).ok_or_else(|| {
            let names: Vec<&str> = rules.players().iter().map(|p| p.name).collect();
            Failure::bad_input(format!("--side {name}: a side of {} is {}", rules.game_title(), names.join(" or ")))
        })?),
    };
    let options = PuzzleOptions { count: args.count, max_plies: args.max_plies, side, seed: args.seed };
    let found = find_puzzles(tables, &options).map_err(Failure::failed)?;
    if !args.json {
        crate::tables::bound_line(tables.bound())?;
    }
    for p in &found {
        let solution: Vec<String> = p.solution.iter().map(|m| m.to_string()).collect();
        let side = rules.to_move(&p.position);
        if args.json {
            let view = json!({"position": rules.format_position(&p.position), "side": side.name,
                "kind": p.kind.name(), "value": p.value.name(), "plies": p.plies,
                "distance": tables.distance().map(|d| d.name()), "solution": solution});
            json(&crate::views::with_bound(view, tables.bound()))?;
        } else {
            let goal = match p.plies {
                Some(n) => match tables.distance() {
                    Some(Distance::Dtz) => {
                        format!("{} to {}, {} to zeroing", side.team, p.kind.goal(), count(n, "ply", "plies"))
                    }
                    _ => format!("{} to {} in {}", side.team, p.kind.goal(), count(n, "ply", "plies")),
                },
                None => format!("{} to {}", side.team, p.kind.goal()),
            };
            line(format_args!("{}  ({goal}; only {} does)", rules.format_position(&p.position), p.solution[0]))?;
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
