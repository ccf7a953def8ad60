//! Other games than the Fox Game through the commands that read tables
//! (`probe`, `versus`, `stats`, `export`): the game comes from the
//! tablebase's manifest. Tic-tac-toe tablebases are read whole into memory
//! ([`InMemory`]). `export` (the dataset of optimal moves) for both games.

use crate::command::{CommandResult, Failure};
use crate::output::{json, line, text};
use clap::Args;
use foxbase_core::game::GameKind;
use foxbase_core::notation::count;
use foxbase_core::notation::format_position;
use foxbase_core::tictactoe::{
    format_ttt, obvious, parse_square, parse_ttt, square_name, ttt_moves, TicTacToe, TttPosition,
};
use foxbase_core::tier::TierGame;
use foxbase_core::{Outcome, Position, Value};
use foxbase_tables::engine::{choose, preference};
use foxbase_tables::in_memory::InMemory;
use foxbase_tables::manifest::Manifest;
use foxbase_tables::TableDir;
use serde_json::json;
use std::collections::{HashSet, VecDeque};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// The game the tablebase in `dir` holds ([`crate::location::game_in`]).
pub fn game_of(dir: &Path) -> Result<GameKind, Failure> {
    crate::location::game_in("--tables", &foxbase_tables::source::DirLocation::new(dir))
}

pub fn open_ttt(dir: &Path) -> Result<InMemory<TicTacToe>, Failure> {
    InMemory::open(TicTacToe, dir).map_err(Failure::bad_input)
}

pub fn ttt_arg(text: &str) -> Result<TttPosition, Failure> {
    parse_ttt(text).map_err(Failure::bad_input)
}

/// Every move of a tic-tac-toe position with its outcome for the mover.
pub fn ttt_move_outcomes(t: &InMemory<TicTacToe>, pos: &TttPosition) -> Result<Vec<(u8, Outcome)>, Failure> {
    ttt_moves(pos).into_iter().map(|(c, after)| Ok((c, t.move_outcome(&after).map_err(Failure::failed)?))).collect()
}

fn side_name(pos: &TttPosition) -> &'static str {
    if pos.x_to_move() {
        "x"
    } else {
        "o"
    }
}

/// ": x wins in 5 plies" for an outcome of the side `side`; nothing for a draw or without plies.
fn ttt_who_wins(o: Outcome, side: &str) -> String {
    let winner = match o.value {
        Value::Win => side,
        Value::Loss => {
            if side == "x" {
                "o"
            } else {
                "x"
            }
        }
        Value::Draw => return String::new(),
    };
    match o.plies {
        Some(n) => format!(": {winner} wins in {}", count(n, "ply", "plies")),
        None => String::new(),
    }
}

/// `foxbase probe` on a tic-tac-toe tablebase.
pub fn ttt_probe(dir: &Path, position: &str, json_out: bool) -> CommandResult {
    let pos = ttt_arg(position)?;
    let t = open_ttt(dir)?;
    let o = t.outcome(&pos)?;
    let mut moves = ttt_move_outcomes(&t, &pos)?;
    foxbase_tables::engine::best_first(&mut moves);
    if json_out {
        let list: Vec<_> = moves
            .iter()
            .map(|(c, m)| json!({"move": square_name(*c), "value": m.value.name(), "plies": m.plies}))
            .collect();
        return json(&json!({"position": format_ttt(&pos), "value": o.value.name(), "plies": o.plies, "moves": list}));
    }
    let side = side_name(&pos);
    line(format_args!("{}: {} for {side} to move{}", format_ttt(&pos), o.value, ttt_who_wins(o, side)))?;
    for (c, m) in moves {
        line(format_args!("  {:3} {} for {side}{}", square_name(c), m.value, ttt_who_wins(m, side)))?;
    }
    Ok(())
}

fn picture(pos: &TttPosition) -> String {
    let f = format_ttt(pos);
    let rows: Vec<&str> = f.split(' ').next().unwrap_or("").split('/').collect();
    let mut s = String::new();
    for (r, row) in rows.iter().enumerate() {
        s.push_str(&format!("{} ", 3 - r));
        for c in row.chars() {
            s.push(' ');
            s.push(c);
        }
        s.push('\n');
    }
    s.push_str("   a b c\n");
    s
}

/// `foxbase versus` on a tic-tac-toe tablebase: `human` is "x", "o" or
/// "none" (`None`: the side to move at the start).
pub fn ttt_versus(dir: &Path, human: Option<&str>, start: Option<&str>, seed: u64, max_plies: u32) -> CommandResult {
    let t = open_ttt(dir)?;
    let mut pos = match start {
        Some(s) => ttt_arg(s)?,
        None => TicTacToe.initial_position(),
    };
    let human = match human {
        None => side_name(&pos),
        Some(h @ ("x" | "o" | "none")) => h,
        Some(other) => {
            return Err(Failure::bad_input(format!("--side {other}: a tic-tac-toe side is x, o or none")));
        }
    };
    let mut input = std::io::stdin().lock().lines();
    let mut ply = 0u32;
    loop {
        let now = t.outcome(&pos)?;
        let side = side_name(&pos);
        text(&picture(&pos))?;
        line(format_args!("{}: {} for {side} to move{}", format_ttt(&pos), now.value, ttt_who_wins(now, side)))?;
        if TicTacToe.primitive(&pos).is_some() {
            let result = match now.value {
                Value::Draw => "a draw".to_string(),
                Value::Win => format!("{side} wins"),
                Value::Loss => format!("{} wins", if side == "x" { "o" } else { "x" }),
            };
            return line(format_args!("game over after {}: {result}", count(ply, "ply", "plies")));
        }
        if ply >= max_plies {
            return line(format_args!("stopped after {ply} plies (--max-plies)"));
        }
        let moves = ttt_move_outcomes(&t, &pos)?;
        let cell = if human == side {
            loop {
                line(format_args!("your move ({side}):"))?;
                let Some(read) = input.next() else {
                    return Err(Failure::bad_input("standard input ended before the game did"));
                };
                let read = read.map_err(|e| Failure::failed(format!("reading standard input: {e}")))?;
                match parse_square(&read) {
                    Ok(c) if moves.iter().any(|(m, _)| *m == c) => break c,
                    Ok(c) => eprintln!("foxbase: {} is not empty; try again", square_name(c)),
                    Err(e) => eprintln!("foxbase: {e}; try again"),
                }
            }
        } else {
            let (c, o) = choose(&moves, seed.wrapping_add(ply as u64) ^ (pos.x as u64) << 9 ^ pos.o as u64)
                .expect("a position that is not over has a move");
            line(format_args!(
                "engine ({side}) plays {}: {} for {side}{}",
                square_name(c),
                o.value,
                ttt_who_wins(o, side)
            ))?;
            c
        };
        pos = ttt_moves(&pos).into_iter().find(|(c, _)| *c == cell).expect("a legal move").1;
        ply += 1;
    }
}

/// `foxbase stats` on a tic-tac-toe tablebase: slots by marks and side to
/// move, and the longest win.
pub fn ttt_stats(dir: &Path, json_out: bool) -> CommandResult {
    let t = open_ttt(dir)?;
    let mut rows = Vec::new();
    let mut longest: Option<(u32, TttPosition)> = None;
    for tier in 0..=9u8 {
        let index = TicTacToe.tier_index(tier);
        let (mut w, mut d, mut l) = (0u64, 0u64, 0u64);
        let mut failure = None;
        TicTacToe.for_each_slot(&index, 0..TicTacToe.tier_size(&index), |_, p| {
            let Some(p) = p else { return };
            match t.outcome(&p) {
                Ok(o) => {
                    match o.value {
                        Value::Win => w += 1,
                        Value::Draw => d += 1,
                        Value::Loss => l += 1,
                    }
                    if o.value == Value::Win && o.plies.is_some_and(|n| longest.is_none_or(|(b, _)| n > b)) {
                        longest = Some((o.plies.unwrap(), p));
                    }
                }
                Err(e) => failure = Some(e),
            }
        });
        if let Some(e) = failure {
            return Err(Failure::failed(e));
        }
        let side = if tier % 2 == 0 { "x" } else { "o" };
        rows.push((tier, side, w, d, l));
    }
    if json_out {
        let material: Vec<_> = rows
            .iter()
            .map(|(m, s, w, d, l)| json!({"marks": m, "side": s, "wins": w, "draws": d, "losses": l}))
            .collect();
        let longest = longest.map(|(p, pos)| json!({"plies": p, "position": format_ttt(&pos)}));
        return json(&json!({"by_material": material, "longest_win": longest}));
    }
    line(format_args!(
        "table slots by marks (one per symmetry class; unused slots left out), values for the side to move:"
    ))?;
    line(format_args!("{:>5} {:>4} {:>6} {:>6} {:>6}", "marks", "side", "wins", "draws", "losses"))?;
    for (m, s, w, d, l) in rows {
        line(format_args!("{m:>5} {s:>4} {w:>6} {d:>6} {l:>6}"))?;
    }
    match longest {
        Some((p, pos)) => line(format_args!("longest win: {}, e.g. {}", count(p, "ply", "plies"), format_ttt(&pos))),
        None => line(format_args!("longest win: no plies in these tables")),
    }
}

#[derive(Args)]
pub struct ExportArgs {
    /// Directory written by `foxbase solve` (any game; the Fox Game's may also be published).
    #[arg(long)]
    tables: PathBuf,
    /// Write the JSON Lines here (default: standard output): to a temporary file beside it, renamed
    /// into place when complete. A whole Fox Game tablebase is large (about 300 bytes a position).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Export this many positions drawn at random (Fox Game only; default: all of them).
    #[arg(long)]
    sample: Option<u64>,
    /// Seed of --sample's draw.
    #[arg(long, default_value_t = 0, requires = "sample")]
    seed: u64,
    /// Tic-tac-toe: leave out the positions a person plays without thinking, tested in this order:
    /// one legal move (222 positions), a win in one (2,216 more), a block of the opponent's win in
    /// one (1,444 more); 638 of the 4,520 are left.
    #[arg(long)]
    skip_obvious: bool,
}

/// One line of the dataset: a position with a move, its value and plies,
/// and its optimal moves (those that keep the best value), the ones with
/// the best plies among them marked `best`.
fn export_line(position: String, o: Outcome, moves: &[(String, Outcome)]) -> serde_json::Value {
    let best_value = moves.iter().map(|(_, m)| preference(m).0).max();
    let keep: Vec<&(String, Outcome)> = moves.iter().filter(|(_, m)| Some(preference(m).0) == best_value).collect();
    let best = keep.iter().map(|(_, m)| preference(m)).max();
    let optimal: Vec<_> =
        keep.iter().map(|(mv, m)| json!({"move": mv, "plies": m.plies, "best": Some(preference(m)) == best})).collect();
    json!({"position": position, "value": o.value.name(), "plies": o.plies, "optimal": optimal})
}

/// `foxbase export`: JSON Lines, one per position that has a move: for
/// tic-tac-toe every such position reachable from the empty board,
/// symmetric copies included; for the Fox Game one position of each mirror
/// pair of every tier (all, or `--sample N`).
pub fn export(args: ExportArgs) -> CommandResult {
    let game = game_of(&args.tables)?;
    // To a temporary file renamed into place at the end, or to standard output.
    let temp = args
        .out
        .as_ref()
        .map(|p| p.with_file_name(format!(".{}.partial", p.file_name().unwrap_or_default().to_string_lossy())));
    let sink: Box<dyn Write> = match &temp {
        Some(t) => {
            Box::new(std::fs::File::create(t).map_err(|e| Failure::bad_input(format!("--out {}: {e}", t.display())))?)
        }
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = std::io::BufWriter::new(sink);
    let result = write_export(&args, game, &mut out);
    let result = result.and_then(|()| out.flush().map_err(Failure::from));
    drop(out);
    match (&temp, &args.out) {
        (Some(t), Some(path)) => {
            if result.is_err() {
                let _ = std::fs::remove_file(t);
                return result;
            }
            std::fs::File::open(t)
                .and_then(|f| f.sync_all())
                .and_then(|()| foxbase_tables::durable::rename(t, path))
                .map_err(|e| Failure::failed(format!("{}: {e}", path.display())))
        }
        _ => result,
    }
}

/// Every tic-tac-toe position with a move reachable from the empty board
/// (symmetric copies included), breadth first from it: the 4,520 that
/// `export` writes; with `skip_obvious`, the 638 of them that are not
/// obvious to play ([`obvious`]).
pub fn ttt_positions_to_play(skip_obvious: bool) -> Vec<TttPosition> {
    let start = TicTacToe.initial_position();
    let (mut seen, mut queue) = (HashSet::from([start]), VecDeque::from([start]));
    let mut positions = Vec::new();
    while let Some(pos) = queue.pop_front() {
        let moves = ttt_moves(&pos);
        if moves.is_empty() {
            continue;
        }
        if !(skip_obvious && obvious(&pos).is_some()) {
            positions.push(pos);
        }
        for (_, after) in moves {
            if seen.insert(after) {
                queue.push_back(after);
            }
        }
    }
    positions
}

/// The lines of `export`, written to `out` as they are made.
fn write_export(args: &ExportArgs, game: GameKind, out: &mut dyn Write) -> CommandResult {
    if args.skip_obvious && game != GameKind::TicTacToe {
        return Err(Failure::bad_input(format!(
            "--skip-obvious: obvious positions are defined for tic-tac-toe; these are tables of {}",
            game.title()
        )));
    }
    match game {
        GameKind::TicTacToe => {
            if args.sample.is_some() {
                return Err(Failure::bad_input("--sample applies to the Fox Game; tic-tac-toe exports everything"));
            }
            let t = open_ttt(&args.tables)?;
            for pos in ttt_positions_to_play(args.skip_obvious) {
                let moves = ttt_move_outcomes(&t, &pos)?;
                let o = t.outcome(&pos).map_err(Failure::failed)?;
                let named: Vec<(String, Outcome)> = moves.iter().map(|(c, m)| (square_name(*c), *m)).collect();
                writeln!(out, "{}", export_line(format_ttt(&pos), o, &named))?;
            }
            Ok(())
        }
        GameKind::Fox => {
            let tables = TableDir::open(&args.tables).map_err(Failure::bad_input)?;
            let manifest = Manifest::read(&args.tables).map_err(Failure::bad_input)?;
            let rules = tables.game.rules;
            let mut each = |pos: Position| -> CommandResult {
                let o = tables.outcome_in_memory(&pos).map_err(Failure::failed)?;
                let mut named = Vec::new();
                for m in rules.moves(&pos) {
                    let after = tables.outcome_in_memory(&rules.play(&pos, m)).map_err(Failure::failed)?;
                    named.push((
                        m.to_string(),
                        Outcome { value: after.value.for_mover(), plies: after.plies.map(|p| p + 1) },
                    ));
                }
                let line = export_line(format_position(&pos), o, &named);
                writeln!(out, "{}", crate::views::with_bound(line, &tables.game.variant))?;
                Ok(())
            };
            for_fox_positions(&tables, &manifest, args.sample, args.seed, &mut each)
        }
        GameKind::BaghChal => Err(Failure::bad_input(format!(
            "{}: tables of {}: export takes the Fox Game's and tic-tac-toe's",
            args.tables.display(),
            game.title()
        ))),
    }
}

/// Calls `each` with the Fox Game positions to export: every used slot's
/// position that is not over, tier by tier, or `sample` of them drawn at random.
fn for_fox_positions(
    tables: &TableDir,
    manifest: &Manifest,
    sample: Option<u64>,
    seed: u64,
    each: &mut dyn FnMut(Position) -> CommandResult,
) -> CommandResult {
    let game = &tables.game;
    let tiers: Vec<(foxbase_core::foxgame::FoxTier, u64)> =
        manifest.tiers.iter().filter_map(|t| game.parse_tier_name(&t.name).map(|tier| (tier, t.slots))).collect();
    let total: u64 = tiers.iter().map(|t| t.1).sum();
    let Some(n) = sample else {
        for (tier, slots) in &tiers {
            let mut result = Ok(());
            game.for_each_slot(&game.tier_index(*tier), 0..*slots, |_, p| {
                if let Some(p) = p.filter(|p| result.is_ok() && game.primitive(p).is_none()) {
                    result = each(p);
                }
            });
            result?;
        }
        return Ok(());
    };
    let mut rng = foxbase_tables::engine::SplitMix64(seed);
    let (mut chosen, mut seen) = (0u64, HashSet::new());
    let mut tries = 0u64;
    while chosen < n && tries < n.saturating_mul(100).max(1000) && total > 0 {
        tries += 1;
        let mut at = rng.next() % total;
        let &(tier, _) = tiers
            .iter()
            .find(|(_, slots)| {
                let here = at < *slots;
                if !here {
                    at -= slots;
                }
                here
            })
            .expect("a slot below the total");
        if let Some(p) = game.unrank(&game.tier_index(tier), at).filter(|p| game.primitive(p).is_none()) {
            if seen.insert(p) {
                chosen += 1;
                each(p)?;
            }
        }
    }
    Ok(())
}
