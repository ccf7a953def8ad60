//! Puzzles: positions reachable from the variant's start in which exactly
//! one move keeps the best result: the only move that keeps a win (a win
//! puzzle, with its solution line played out by the engine), or the only
//! move that keeps a draw when every other move loses (a defender's
//! puzzle). Found by seeded random walks from the start, so the same seed
//! gives the same puzzles; each one's uniqueness is read from the tables.

use crate::dir::TableDir;
use crate::engine::{engine_move, SplitMix64};
use crate::error::Error;
use foxbase_core::tier::TierGame;
use foxbase_core::{Move, Position, Side, Value};
use std::collections::HashSet;

/// What a puzzle asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PuzzleKind {
    /// Win: exactly one move keeps the win.
    Win,
    /// Hold the draw: exactly one move does not lose.
    Draw,
}

impl PuzzleKind {
    pub fn name(self) -> &'static str {
        match self {
            PuzzleKind::Win => "win",
            PuzzleKind::Draw => "draw",
        }
    }

    /// What the side to move must do, in words.
    pub fn goal(self) -> &'static str {
        match self {
            PuzzleKind::Win => "win",
            PuzzleKind::Draw => "hold the draw",
        }
    }
}

/// One puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    pub position: Position,
    pub kind: PuzzleKind,
    /// The position's value for the side to move.
    pub value: Value,
    /// Plies to the end of a win (`None` for a draw, or tables without plies).
    pub plies: Option<u32>,
    /// The only good move first; for a win, the whole line to the end with
    /// the defence's longest resistance (as long as `plies`).
    pub solution: Vec<Move>,
}

/// What to look for.
#[derive(Clone, Debug)]
pub struct PuzzleOptions {
    pub count: usize,
    /// Wins longer than this many plies are skipped.
    pub max_plies: u32,
    /// Only puzzles with this side to move.
    pub side: Option<Side>,
    pub seed: u64,
}

/// Random walks from the start stop after this many plies.
const WALK_PLIES: u32 = 80;
/// Walks tried before giving up on finding `count` puzzles.
const WALKS: u64 = 400;

/// Up to `options.count` puzzles, in the order the walks meet them.
pub fn find_puzzles(tables: &TableDir, options: &PuzzleOptions) -> Result<Vec<Puzzle>, Error> {
    let rules = tables.game.rules;
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    let mut rng = SplitMix64(options.seed);
    for _ in 0..WALKS {
        let mut pos = tables.game.variant.start;
        for _ in 0..WALK_PLIES {
            if tables.game.primitive(&pos).is_some() || found.len() >= options.count {
                break;
            }
            let moves = tables.move_outcomes(&pos)?;
            if seen.insert(pos.canonical()) && options.side.is_none_or(|s| s == pos.side()) {
                if let Some(p) = puzzle_at(tables, &pos, &moves, options.max_plies)? {
                    found.push(p);
                }
            }
            pos = rules.play(&pos, moves[(rng.next() % moves.len() as u64) as usize].0);
        }
        if found.len() >= options.count {
            break;
        }
    }
    Ok(found)
}

/// The puzzle `pos` poses, if exactly one of its `moves` (with their
/// outcomes for the mover) keeps its value.
fn puzzle_at(
    tables: &TableDir,
    pos: &Position,
    moves: &[(Move, foxbase_core::Outcome)],
    max_plies: u32,
) -> Result<Option<Puzzle>, Error> {
    let keeping = |v: Value| moves.iter().filter(|(_, o)| o.value == v).collect::<Vec<_>>();
    let wins = keeping(Value::Win);
    let draws = keeping(Value::Draw);
    let (kind, only) = if wins.len() == 1 && moves.len() > 1 {
        (PuzzleKind::Win, wins[0])
    } else if wins.is_empty() && draws.len() == 1 && moves.len() > 1 {
        (PuzzleKind::Draw, draws[0])
    } else {
        return Ok(None);
    };
    let plies = only.1.plies;
    if kind == PuzzleKind::Win && plies.is_some_and(|p| p > max_plies) {
        return Ok(None);
    }
    let mut solution = vec![only.0];
    if kind == PuzzleKind::Win && plies.is_some() {
        // The rest of the line: both sides play perfectly to the end.
        let mut at = tables.game.rules.play(pos, only.0);
        while let Some(choice) = engine_move(tables, &at, 0)? {
            solution.push(choice.mv);
            at = tables.game.rules.play(&at, choice.mv);
        }
    }
    Ok(Some(Puzzle { position: *pos, kind, value: only.1.value, plies, solution }))
}
