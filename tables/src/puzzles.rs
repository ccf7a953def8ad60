//! Puzzles: positions reachable from the variant's start in which exactly
//! one move keeps the best result: the only move that keeps a win (a win
//! puzzle, with its solution line played out by the engine), or the only
//! move that keeps a draw when every other move loses (a defender's
//! puzzle). Found by seeded random walks from the start, so the same seed
//! gives the same puzzles; each one's uniqueness is read from the tables.

use crate::engine::{engine_move, SplitMix64};
use crate::error::Error;
use crate::reader::{MoveOf, PositionOf, Tablebase};
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_core::Value;
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

/// One puzzle, of a game whose positions are `P` and moves `M`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle<P, M> {
    pub position: P,
    pub kind: PuzzleKind,
    /// The position's value for the side to move.
    pub value: Value,
    /// Plies of a win: to the end, or to zeroing with DTZ tables (`None` for
    /// a draw, or tables without plies).
    pub plies: Option<u32>,
    /// The only good move first; for a win, the whole line to the end as the
    /// engine plays both sides (with plies to the end: the defence's longest
    /// resistance, as long as `plies`; with DTZ tables it goes on past the
    /// zeroing move, to the end).
    pub solution: Vec<M>,
}

/// What to look for.
#[derive(Clone, Debug)]
pub struct PuzzleOptions {
    pub count: usize,
    /// Wins longer than this many plies (as the tables count them) are skipped.
    pub max_plies: u32,
    /// Only puzzles with this side to move (its [`foxbase_core::play::Player::name`]).
    pub side: Option<&'static str>,
    pub seed: u64,
}

/// Random walks from the start stop after this many plies.
const WALK_PLIES: u32 = 80;
/// Walks tried before giving up on finding `count` puzzles.
const WALKS: u64 = 400;

/// Up to `options.count` puzzles, in the order the walks meet them.
#[allow(clippy::type_complexity)]
pub fn find_puzzles<T: Tablebase>(
    tables: &T,
    options: &PuzzleOptions,
) -> Result<Vec<Puzzle<PositionOf<T>, MoveOf<T>>>, Error> {
    let (game, rules) = (tables.game(), tables.game().rules());
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    let mut rng = SplitMix64(options.seed);
    for _ in 0..WALKS {
        let mut pos = game.initial_position();
        for _ in 0..WALK_PLIES {
            if rules.status(&pos).is_over() || found.len() >= options.count {
                break;
            }
            let moves = tables.move_outcomes_in_bulk(&pos)?;
            let canonical = game.canonical(&pos);
            if seen.insert(canonical) && options.side.is_none_or(|s| s == rules.to_move(&pos).name) {
                if let Some(p) = puzzle_at(tables, &pos, &moves, options.max_plies)? {
                    found.push(p);
                }
            }
            let mv = moves[(rng.next() % moves.len() as u64) as usize].0;
            pos = rules.play(&pos, mv);
        }
        if found.len() >= options.count {
            break;
        }
    }
    Ok(found)
}

/// The puzzle `pos` poses, if exactly one of its `moves` (with their
/// outcomes for the mover) keeps its value.
#[allow(clippy::type_complexity)]
fn puzzle_at<T: Tablebase>(
    tables: &T,
    pos: &PositionOf<T>,
    moves: &[(MoveOf<T>, foxbase_core::Outcome)],
    max_plies: u32,
) -> Result<Option<Puzzle<PositionOf<T>, MoveOf<T>>>, Error> {
    let rules = tables.game().rules();
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
        let mut at = rules.play(pos, only.0);
        while let Some(choice) = engine_move(tables, &at, 0)? {
            solution.push(choice.mv);
            at = rules.play(&at, choice.mv);
        }
    }
    Ok(Some(Puzzle { position: *pos, kind, value: only.1.value, plies, solution }))
}
