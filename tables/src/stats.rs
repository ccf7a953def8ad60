//! `foxbase stats`: what a tablebase holds, counted, for every game: per
//! tier (in the manifest's order, children first) its positions (used
//! slots: one per symmetry class) and their values for the side to move,
//! and its longest win with a position that has it; the longest win of
//! all; and what the game counts besides ([`CountsMore`]: the Fox Game's
//! slots by material and side to move, and positions by fox square,
//! [`FoxCounts`]). Published tablebases are counted with their derived
//! values, as a reader reads them.

use crate::error::Error;
use crate::tier_tables::TierTables;
use crate::tiered::LocateChild;
use foxbase_core::board::BitIter;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::play::WithRules;
use foxbase_core::tier::TierGame;
use foxbase_core::{Position, Side, Value};
use rayon::prelude::*;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;

/// Counts of won, drawn and lost positions (or slots), for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    fn add(&mut self, v: Value, n: u64) {
        match v {
            Value::Win => self.wins += n,
            Value::Draw => self.draws += n,
            Value::Loss => self.losses += n,
        }
    }

    fn merge(&mut self, o: &Wdl) {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
    }

    pub fn total(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// What a game counts over its positions beside the per-tier counts,
/// and how `stats` shows it.
pub trait CountsMore: LocateChild + WithRules {
    /// The game's counts of one part of the tablebase, then of all of it.
    type More: Default + Send;

    /// Counts `pos` (a used slot's position) of value `value` into `more`.
    fn count_more(&self, more: &mut Self::More, pos: &Self::Position, value: Value);

    /// Adds `part` (counted apart) to `into`.
    fn merge_more(&self, into: &mut Self::More, part: Self::More);

    /// The counts' JSON fields, beside the per-tier ones.
    fn more_json(&self, more: &Self::More) -> Vec<(&'static str, Json)>;

    /// The counts' text, after the start's line; with `tier_rows` false the
    /// per-tier table is left out of the text (a game with many tiers shows
    /// its own grouping instead).
    fn more_lines(&self, more: &Self::More) -> Vec<String>;

    /// Whether the text lists every tier (its JSON always does).
    fn tier_rows(&self) -> bool {
        true
    }
}

/// One tier's counts.
#[derive(Clone, Debug, PartialEq)]
pub struct TierRow<P> {
    pub name: String,
    pub counts: Wdl,
    /// The tier's longest win and the first position with it (tables with plies, a tier with a win).
    pub longest_win: Option<(u32, P)>,
}

/// What [`stats`] counts.
pub struct Stats<G: CountsMore> {
    /// Every tier held, in the manifest's order.
    pub tiers: Vec<TierRow<G::Position>>,
    /// The longest win of all and the first position with it, in tier order.
    pub longest_win: Option<(u32, G::Position)>,
    pub more: G::More,
}

impl<G: CountsMore> Stats<G> {
    /// Positions counted (used slots).
    pub fn positions(&self) -> u64 {
        self.tiers.iter().map(|t| t.counts.total()).sum()
    }
}

/// One tier's row and what the game counted in it.
type TierPart<G> = (TierRow<<G as TierGame>::Position>, <G as CountsMore>::More);

/// Counts every tier `tables` holds, with its values as a reader gets
/// them (a published tier's derived ones included), in parallel over tiers.
pub fn stats<G: CountsMore>(tables: &TierTables<G>) -> Result<Stats<G>, Error> {
    let game = &tables.game;
    let parts: Vec<Result<TierPart<G>, Error>> = tables
        .tiers()?
        .into_par_iter()
        .map(|tier| {
            let whole = tables.complete(tier)?;
            let (mut counts, mut more, mut longest_win) = (Wdl::default(), G::More::default(), None);
            game.for_each_slot(&whole.index, 0..whole.values.len(), |i, pos| {
                let (Some(pos), Some(o)) = (pos, whole.outcome(i)) else { return };
                counts.add(o.value, 1);
                game.count_more(&mut more, &pos, o.value);
                if let (Value::Win, Some(p)) = (o.value, o.plies) {
                    // Ties: the first in slot order.
                    if longest_win.is_none_or(|(best, _)| p > best) {
                        longest_win = Some((p, pos));
                    }
                }
            });
            Ok((TierRow { name: game.tier_name(tier), counts, longest_win }, more))
        })
        .collect();
    let mut out = Stats { tiers: Vec::with_capacity(parts.len()), longest_win: None, more: G::More::default() };
    for part in parts {
        let (row, more) = part?;
        game.merge_more(&mut out.more, more);
        if let Some((p, pos)) = row.longest_win {
            if out.longest_win.is_none_or(|(best, _)| p > best) {
                out.longest_win = Some((p, pos));
            }
        }
        out.tiers.push(row);
    }
    Ok(out)
}

/// The Fox Game's counts: table slots by material and side to move (a
/// slot is a position and its mirror image), and per fox square and side
/// to move the positions with a fox there (every position counts, mirror
/// images apart, so that the squares of a mirror pair get the same figures).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoxCounts {
    /// Slots by (foxes, sheep, side to move).
    pub by_material: BTreeMap<(u32, u32, Side), Wdl>,
    /// Positions with a fox on a point (0..33), by point and side to move.
    pub by_fox_square: [[Wdl; 2]; 33],
}

impl Default for FoxCounts {
    fn default() -> FoxCounts {
        FoxCounts { by_material: BTreeMap::new(), by_fox_square: [[Wdl::default(); 2]; 33] }
    }
}

impl CountsMore for FoxGame {
    type More = FoxCounts;

    #[inline]
    fn count_more(&self, more: &mut FoxCounts, pos: &Position, value: Value) {
        more.by_material.entry((pos.fox_count(), pos.sheep_count(), pos.side())).or_default().add(value, 1);
        let mirror = pos.mirror();
        let copies = if mirror == *pos { 1 } else { 2 };
        // A mirror pair's foxes stand on mirrored points: count both.
        for q in [*pos, mirror].iter().take(copies) {
            for square in BitIter(q.foxes()) {
                more.by_fox_square[square as usize][q.side() as usize].add(value, 1);
            }
        }
    }

    fn merge_more(&self, into: &mut FoxCounts, part: FoxCounts) {
        for (k, w) in part.by_material {
            into.by_material.entry(k).or_default().merge(&w);
        }
        for (square, sides) in part.by_fox_square.iter().enumerate() {
            for (s, w) in sides.iter().enumerate() {
                into.by_fox_square[square][s].merge(w);
            }
        }
    }

    fn more_json(&self, more: &FoxCounts) -> Vec<(&'static str, Json)> {
        let material: Vec<_> = more
            .by_material
            .iter()
            .map(|((f, n, side), w)| {
                json!({"foxes": f, "sheep": n, "side": side.name(), "wins": w.wins, "draws": w.draws, "losses": w.losses})
            })
            .collect();
        let squares: Vec<_> = fox_squares(more)
            .map(|(square, side, w)| {
                json!({"square": square, "side": side.name(), "wins": w.wins, "draws": w.draws, "losses": w.losses})
            })
            .collect();
        vec![("by_material", json!(material)), ("by_fox_square", json!(squares))]
    }

    fn more_lines(&self, more: &FoxCounts) -> Vec<String> {
        let mut lines = vec![
            "table slots by material and side to move (a slot is a position and its mirror image; unused slots left out); values for the side to move:".to_string(),
            format!("{:>5} {:>5} {:>5} {:>14} {:>14} {:>14}", "foxes", "sheep", "side", "wins", "draws", "losses"),
        ];
        for ((f, n, side), w) in &more.by_material {
            lines.push(format!("{f:>5} {n:>5} {:>5} {:>14} {:>14} {:>14}", side.name(), w.wins, w.draws, w.losses));
        }
        lines.push(
            "positions with a fox on each square (mirror images counted apart), share won/drawn/lost for the side to move:"
                .to_string(),
        );
        for (square, side, w) in fox_squares(more) {
            let t = w.total().max(1) as f64;
            lines.push(format!(
                "  {square:>3} {:>5} to move: {:5.1}% won {:5.1}% drawn {:5.1}% lost ({} positions)",
                side.name(),
                100.0 * w.wins as f64 / t,
                100.0 * w.draws as f64 / t,
                100.0 * w.losses as f64 / t,
                w.total()
            ));
        }
        lines
    }

    /// The full game has 200,616 tiers: its text groups them by material.
    fn tier_rows(&self) -> bool {
        false
    }
}

/// The fox squares with positions, by point and side to move (foxes first).
fn fox_squares(more: &FoxCounts) -> impl Iterator<Item = (String, Side, Wdl)> + '_ {
    more.by_fox_square.iter().enumerate().flat_map(|(square, sides)| {
        [Side::Fox, Side::Sheep].into_iter().filter_map(move |side| {
            let w = sides[side as usize];
            (w.total() > 0).then(|| (foxbase_core::board::Point::new(square as u8).to_string(), side, w))
        })
    })
}

/// Games that count nothing besides the per-tier counts.
macro_rules! counts_nothing_more {
    ($($game:ty),*) => {$(
        impl CountsMore for $game {
            type More = ();
            fn count_more(&self, _: &mut (), _: &<$game as TierGame>::Position, _: Value) {}
            fn merge_more(&self, _: &mut (), _: ()) {}
            fn more_json(&self, _: &()) -> Vec<(&'static str, Json)> {
                Vec::new()
            }
            fn more_lines(&self, _: &()) -> Vec<String> {
                Vec::new()
            }
        }
    )*};
}

counts_nothing_more!(foxbase_core::baghchal::BaghChal, foxbase_core::tictactoe::TicTacToe);
