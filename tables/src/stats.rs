//! `foxbase stats`: what a tablebase holds, counted. Win/draw/loss counts
//! of table slots (a slot is one position and its mirror image, or one
//! symmetric position; unused slots are left out) by fox count, sheep count
//! and side to move; the longest win with a position that has it; and per
//! fox square the won/drawn/lost positions with a fox there (here every
//! position counts, mirror images apart, so that the squares of a mirror
//! pair get the same figures).

use crate::dir::TableDir;
use crate::error::Error;
use crate::manifest::Manifest;
use crate::source::Location;
use foxbase_core::foxgame::FoxTier;
use foxbase_core::tier::TierGame;
use foxbase_core::{Position, Side, Value};
use rayon::prelude::*;
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

/// What [`stats`] counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Slots by (foxes, sheep, side to move).
    pub by_material: BTreeMap<(u32, u32, Side), Wdl>,
    /// The longest win (plies) and one position with it; `None` without plies or wins.
    pub longest_win: Option<(u32, Position)>,
    /// Per fox square (point index 0..33) and side to move: positions with a fox there.
    pub by_fox_square: BTreeMap<(u8, Side), Wdl>,
}

struct Part {
    by_material: BTreeMap<(u32, u32, Side), Wdl>,
    longest_win: Option<(u32, Position)>,
    squares: [[Wdl; 2]; 33],
}

impl Default for Part {
    fn default() -> Part {
        Part { by_material: BTreeMap::new(), longest_win: None, squares: [[Wdl::default(); 2]; 33] }
    }
}

/// Counts every tier of the tablebase in `location`'s manifest (fox-to-move
/// values of a published tablebase derived as a reader does).
pub fn stats(tables: &TableDir, location: &dyn Location) -> Result<Stats, Error> {
    let manifest = Manifest::read_from(location)?;
    let tiers: Vec<FoxTier> = manifest.tiers.iter().filter_map(|t| tables.game.parse_tier_name(&t.name)).collect();
    let game = &tables.game;
    let parts: Vec<Result<Part, Error>> = tiers
        .par_iter()
        .map(|&tier| {
            let loaded = tables.complete(tier)?;
            let mut part = Part::default();
            let size = game.tier_size(&loaded.index);
            game.for_each_slot(&loaded.index, 0..size, |i, pos| {
                let Some(pos) = pos else { return };
                let Some(o) = loaded.outcome(i) else { return };
                part.by_material.entry((pos.fox_count(), pos.sheep_count(), pos.side())).or_default().add(o.value, 1);
                if o.value == Value::Win {
                    if let Some(p) = o.plies {
                        // Ties: the first in tier order, whatever order the tiers are counted in.
                        if part.longest_win.is_none_or(|(best, _)| p > best) {
                            part.longest_win = Some((p, pos));
                        }
                    }
                }
                let mirror = pos.mirror();
                for q in if mirror == pos { vec![pos] } else { vec![pos, mirror] } {
                    for square in foxbase_core::board::BitIter(q.foxes()) {
                        part.squares[square as usize][q.side() as usize].add(o.value, 1);
                    }
                }
            });
            Ok(part)
        })
        .collect();
    let mut out = Stats::default();
    for part in parts {
        let part = part?;
        for (k, w) in part.by_material {
            out.by_material.entry(k).or_default().merge(&w);
        }
        if let Some((p, pos)) = part.longest_win {
            if out.longest_win.is_none_or(|(best, _)| p > best) {
                out.longest_win = Some((p, pos));
            }
        }
        for (square, sides) in part.squares.iter().enumerate() {
            for (s, w) in sides.iter().enumerate() {
                if w.total() > 0 {
                    let side = if s == Side::Fox as usize { Side::Fox } else { Side::Sheep };
                    out.by_fox_square.entry((square as u8, side)).or_default().merge(w);
                }
            }
        }
    }
    Ok(out)
}
