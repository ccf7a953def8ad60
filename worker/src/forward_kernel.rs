//! The forward kernel: Bagh-Chal's placing tiers in two passes, with no
//! retrograde analysis.
//!
//! In a placing tier (p > 0 goats to place, c captured) no position is
//! reached again: a goat move is a placement, which leaves the tier for
//! (p − 1, c); a tiger move is a step, to a goats-to-move position of the
//! same tier, or a jump, which leaves it for (p, c + 1). So the tier's graph
//! has two layers and each position's value follows from its children:
//!
//! 1. goats to move: every child is in the child tier (p − 1, c), tigers to
//!    move, already solved;
//! 2. tigers to move: children are goats-to-move positions of this tier
//!    (pass 1) or of (p, c + 1) (solved), or over (a jump that reaches the
//!    capture target wins at once; tigers with no move lose).
//!
//! A position with a child lost for the opponent is won (plies 1 + the
//! fewest among those children), else one with a drawn child is drawn,
//! else it is lost (plies 1 + the most). That is the counter kernel's
//! answer ([`crate::plies_kernel`]), and the tests compare the two byte for
//! byte. Work goes per canonical tiger set: its goat sets are enumerated in
//! rank order ([`foxbase_core::baghchal::index`]), its tiger moves and their
//! targets' canonical ids computed once, and a child's slot is a few table
//! lookups, not a canonicalised position. Memory: two bytes a slot (the
//! value's code and the plies, together so that a child is one read), plus
//! the child tables.
//!
//! The moving tiers (p = 0) have cycles; the counter kernel solves them.

use crate::kernel::{ChildTable, KernelError, Phases, SolvedTier, TierStats};
use foxbase_core::baghchal::board::{Bits, BOARD};
use foxbase_core::baghchal::index::{compress, expand, goat_rank_with, rank_tables, TigerMap, FREE_MASK};
use foxbase_core::baghchal::{BaghChal, BaghIndex, BaghTier, Symmetry};
use foxbase_core::tier::TierGame;
use foxbase_tables::packed::{PackedValues, UNUSED};
use foxbase_tables::plies::{Distance, Plies};
use rayon::prelude::*;

/// The tables' 2-bit codes ([`foxbase_core::Value::code`], [`UNUSED`]; a test checks them).
const DRAW: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;

/// Whether the forward kernel solves `tier`: a placing tier of a tier the
/// variant solves.
pub fn handles(game: &BaghChal, tier: BaghTier) -> bool {
    tier.to_place > 0 && tier.captured < game.variant().capture_target()
}

/// A child tier's table as the kernel reads it.
struct Child<'a> {
    goat_sets: u64,
    values: &'a PackedValues,
    plies: Option<&'a Plies>,
    /// The solve counts plies to zeroing: every move into a child tier is zeroing.
    to_zeroing: bool,
}

impl Child<'_> {
    /// The code and plies at `slot` (with DTZ, [`Distance::zeroing_child_plies`]).
    #[inline]
    fn at(&self, slot: u64) -> (u8, u16) {
        let code = self.values.code(slot);
        if self.to_zeroing {
            return (code, (code == WIN) as u16);
        }
        (code, self.plies.map_or(0, |p| p.get(slot)))
    }
}

/// A position's children folded into its value: the best for the side to move.
#[derive(Clone, Copy)]
struct Fold {
    /// Fewest plies among children lost for the opponent (u16::MAX: none).
    win: u16,
    /// Whether a child is drawn.
    draw: bool,
    /// Most plies among children won for the opponent.
    loss: u16,
    /// A child slot that is unused: a contradiction.
    unused: bool,
}

impl Fold {
    const NEW: Fold = Fold { win: u16::MAX, draw: false, loss: 0, unused: false };

    #[inline]
    fn add(&mut self, code: u8, plies: u16) {
        match code {
            LOSS => self.win = self.win.min(plies),
            WIN => self.loss = self.loss.max(plies),
            DRAW => self.draw = true,
            _ => self.unused = true,
        }
    }

    /// The code and plies of the position.
    #[inline]
    fn result(self) -> (u8, u16) {
        if self.win != u16::MAX {
            (WIN, self.win + 1)
        } else if self.draw {
            (DRAW, 0)
        } else {
            (LOSS, self.loss + 1)
        }
    }
}

/// Goat sets of `k` of the 21 free points, in rank order.
#[inline]
fn next_subset(s: u32) -> u32 {
    // Gosper's hack: the next larger number with as many bits.
    let c = s & s.wrapping_neg();
    let r = s + c;
    (((r ^ s) >> 2) / c) | r
}

/// Solves placing tier `tier` of `game` on the calling thread's rayon pool,
/// with plies when `distance` is given (with DTZ a placement or a capture
/// leaves the tier: it counts 1 ply and the children's plies are not read).
///
/// Preconditions: [`handles`]`(game, tier)`, and `children` holds the
/// tables of [`TierGame::child_tiers`]`(tier)` (with plies for DTM).
pub fn solve_forward_in_pool(
    game: &BaghChal,
    tier: BaghTier,
    children: &[ChildTable<BaghChal>],
    distance: Option<Distance>,
) -> Result<SolvedTier, KernelError> {
    let with_plies = distance.is_some();
    let children_plies = distance == Some(Distance::Dtm);
    if !handles(game, tier) {
        return Err(KernelError::Inconsistent(format!(
            "the forward kernel solves placing tiers; {} is not one",
            game.tier_name(tier)
        )));
    }
    let started = std::time::Instant::now();
    let index = game.tier_index(tier);
    let size = game.tier_size(&index);
    let child = |t: BaghTier| -> Result<Child<'_>, KernelError> {
        let table = children
            .iter()
            .find(|c| c.tier == t)
            .ok_or_else(|| KernelError::Inconsistent(format!("child tier {} is not loaded", game.tier_name(t))))?;
        if children_plies && table.plies.is_none() {
            return Err(KernelError::Inconsistent(format!(
                "child tier {} has no plies (solved with --no-distance?)",
                game.tier_name(t)
            )));
        }
        Ok(Child {
            goat_sets: table.index.goat_sets(),
            values: &table.values,
            plies: if children_plies { table.plies.as_ref() } else { None },
            to_zeroing: distance == Some(Distance::Dtz),
        })
    };
    let placed = child(BaghTier { to_place: tier.to_place - 1, captured: tier.captured })?;
    let capture_ends = tier.captured + 1 >= game.variant().capture_target();
    let captured = if capture_ends || index.goats_on_board() == 0 {
        None
    } else {
        Some(child(BaghTier { to_place: tier.to_place, captured: tier.captured + 1 })?)
    };
    let shape = Shape { index: &index, placed: &placed, captured: captured.as_ref(), capture_ends };
    let goat_sets = index.goat_sets() as usize;
    let tiger_sets = TigerMap::get().len();
    let len = goat_sets * tiger_sets;

    // Pass 1: goats to move.
    let mut goat_cells = vec![0u16; len];
    goat_cells.par_chunks_mut(goat_sets).enumerate().try_for_each(|(t, cells)| shape.goats_block(t, cells))?;
    let goats_done = started.elapsed().as_secs_f64();

    // Pass 2: tigers to move, reading pass 1.
    let mut tiger_cells = vec![0u16; len];
    tiger_cells
        .par_chunks_mut(goat_sets)
        .enumerate()
        .try_for_each(|(t, cells)| shape.tigers_block(t, &goat_cells, cells))?;
    let propagate = started.elapsed().as_secs_f64() - goats_done;

    // Interleave the sides into slots (index × 2 + side).
    let pack_started = std::time::Instant::now();
    let mut values = PackedValues::filled(size, 0);
    let counts: Vec<[u64; 4]> = values
        .bytes_mut()
        .par_chunks_mut(1 << 16)
        .enumerate()
        .map(|(c, bytes)| {
            let mut counts = [0u64; 4];
            for (k, byte) in bytes.iter_mut().enumerate() {
                // Byte b holds slots 4b..4b+4: indices 2b and 2b + 1, each goats then tigers.
                let i = (c << 16) + k;
                let mut packed = 0u8;
                for (j, a) in [2 * i, 2 * i + 1].into_iter().enumerate() {
                    // The last byte of an odd number of indices has one.
                    if a < len {
                        let (g, t) = (code_of(goat_cells[a]), code_of(tiger_cells[a]));
                        counts[g as usize] += 1;
                        counts[t as usize] += 1;
                        packed |= (g | t << 2) << (4 * j);
                    }
                }
                *byte = packed;
            }
            counts
        })
        .collect();
    let plies = with_plies.then(|| interleave_plies(&goat_cells, &tiger_cells));
    let mut stats = TierStats::from_code_counts(size, counts);
    // Two passes decide everything; no propagation.
    stats.levels = 2;
    stats.decided_at_start = size - stats.unused;
    let phases =
        Phases { init: goats_done, propagate, pack: pack_started.elapsed().as_secs_f64(), ..Phases::default() };
    Ok(SolvedTier { values, plies, stats, phases })
}

/// A position's result in the passes' arrays: its 2-bit code, and its
/// plies above it (one 16-bit read per child instead of two).
#[inline]
fn cell(code: u8, plies: u16) -> u16 {
    code as u16 | plies << 2
}

#[inline]
fn code_of(cell: u16) -> u8 {
    (cell & 3) as u8
}

#[inline]
fn plies_of(cell: u16) -> u16 {
    cell >> 2
}

/// The most plies a cell holds.
const MAX_CELL_PLIES: u16 = u16::MAX >> 2;

/// Both sides' plies as one array of slots, a byte a slot when they fit.
fn interleave_plies(goats: &[u16], tigers: &[u16]) -> Plies {
    let most = goats.par_iter().chain(tigers).map(|&c| plies_of(c)).max().unwrap_or(0);
    if most <= u8::MAX as u16 {
        let mut out = vec![0u8; goats.len() * 2];
        out.par_chunks_mut(2).zip(goats.par_iter().zip(tigers)).for_each(|(o, (&g, &t))| {
            o[0] = plies_of(g) as u8;
            o[1] = plies_of(t) as u8;
        });
        Plies::from_bytes(out)
    } else {
        let mut out = vec![0u16; goats.len() * 2];
        out.par_chunks_mut(2).zip(goats.par_iter().zip(tigers)).for_each(|(o, (&g, &t))| {
            o[0] = plies_of(g);
            o[1] = plies_of(t);
        });
        Plies::from_vec(out)
    }
}

/// What both passes need to know about the tier.
struct Shape<'a> {
    index: &'a BaghIndex,
    /// (p − 1, c), tigers to move after a placement.
    placed: &'a Child<'a>,
    /// (p, c + 1), goats to move after a jump; `None` when a jump ends the
    /// game (`capture_ends`) or no goat is on the board.
    captured: Option<&'a Child<'a>>,
    capture_ends: bool,
}

/// A tiger move of a tiger set, with where it leads.
#[derive(Clone, Copy)]
struct TigerMove {
    /// The point the tiger moves to (must be free of goats).
    to: Bits,
    /// For a jump, the goat jumped over; 0 for a step.
    over: Bits,
    /// The tiger set after the move, canonicalised.
    image: foxbase_core::baghchal::index::TigerImage,
    /// Whether the identity alone canonicalises the target (the goats stay as they are).
    plain: bool,
    points: [u8; 4],
}

impl Shape<'_> {
    /// The goats' positions of canonical tiger set `t`: `cells[r]` for goat rank r.
    fn goats_block(&self, t: usize, cells: &mut [u16]) -> Result<(), KernelError> {
        let map = TigerMap::get();
        let ranks = rank_tables();
        let id = t as u16;
        let points = map.points(id);
        let stabiliser = map.stabiliser(id);
        let child_base = t as u64 * self.placed.goat_sets;
        self.fill_block(t, cells, "a placement", |free, _| {
            let mut fold = Fold::NEW;
            let mut empty = !free & FREE_MASK;
            while empty != 0 {
                let e = empty & empty.wrapping_neg();
                empty ^= e;
                let after = if stabiliser.is_empty() {
                    free | e
                } else {
                    let g = expand(free | e, points);
                    compress(stabiliser.iter().fold(g, |m, s| m.min(s.bits(g))), points)
                };
                let slot = (child_base + goat_rank_with(ranks, after)) * 2 + 1;
                let (code, p) = self.placed.at(slot);
                fold.add(code, p);
            }
            Some(fold)
        })
    }

    /// The tigers' positions of canonical tiger set `t`, reading the
    /// goats' pass of this tier (`goat_cells`).
    fn tigers_block(&self, t: usize, goat_cells: &[u16], cells: &mut [u16]) -> Result<(), KernelError> {
        let map = TigerMap::get();
        let ranks = rank_tables();
        let id = t as u16;
        let points = map.points(id);
        let tigers: Bits = points.iter().fold(0, |b, &p| b | 1 << p);
        // The tiger set's moves, each with its target's canonical set.
        // Once per tiger set, not per position: at most 4 tigers × (8 steps + 8 jumps).
        let mut moves: Vec<TigerMove> = Vec::with_capacity(64);
        for &from in &points {
            let at = |to: Bits, over: Bits| {
                let after = tigers ^ (1 << from) ^ to;
                let image = map.image(after);
                let plain = image.symmetries().len() == 1 && image.symmetries().iter().all(|s| s == Symmetry::IDENTITY);
                TigerMove { to, over, image, plain, points: map.points(image.id) }
            };
            let mut steps = BOARD.neighbours[from as usize] & !tigers;
            while steps != 0 {
                let to = steps & steps.wrapping_neg();
                steps ^= to;
                moves.push(at(to, 0));
            }
            for j in BOARD.jumps_from(from) {
                let (over, to) = (1 << j.over, 1 << j.to);
                if (over | to) & tigers == 0 {
                    moves.push(at(to, over));
                }
            }
        }
        let this_sets = self.index.goat_sets();
        self.fill_block(t, cells, "a tiger move", |_, goats| {
            let mut fold = Fold::NEW;
            let mut moved = false;
            for m in &moves {
                if goats & m.to != 0 {
                    continue;
                }
                let after = if m.over == 0 {
                    goats
                } else if goats & m.over != 0 {
                    goats ^ m.over
                } else {
                    continue;
                };
                moved = true;
                if m.over != 0 && self.capture_ends {
                    // The goats are to move with the target reached: lost at 0 plies.
                    fold.add(LOSS, 0);
                    continue;
                }
                let canon = if m.plain { after } else { m.image.symmetries().min_image(after) };
                let rank = goat_rank_with(ranks, compress(canon, m.points));
                let (code, p) = if m.over == 0 {
                    let c = goat_cells[(m.image.id as u64 * this_sets + rank) as usize];
                    (code_of(c), plies_of(c))
                } else {
                    let child = self.captured.expect("a jump needs a goat, so a capture tier");
                    child.at((m.image.id as u64 * child.goat_sets + rank) * 2)
                };
                fold.add(code, p);
            }
            // Tigers with no move have lost (see fill_block).
            moved.then_some(fold)
        })
    }

    /// Fills `cells`, canonical tiger set `t`'s goat sets in rank order:
    /// unused for a slot whose position is not canonical, else the result
    /// of `value(goats as 21 bits, goats on the board)`, the folded
    /// children, or `None` when the side to move has no move (lost at 0
    /// plies). `what` names the moves in an error.
    fn fill_block(
        &self,
        t: usize,
        cells: &mut [u16],
        what: &str,
        mut value: impl FnMut(u32, Bits) -> Option<Fold>,
    ) -> Result<(), KernelError> {
        let map = TigerMap::get();
        let points = map.points(t as u16);
        let stabiliser = map.stabiliser(t as u16);
        let k = self.index.goats_on_board();
        let mut free: u32 = if k == 0 { 0 } else { (1 << k) - 1 };
        let (mut unused_child, mut too_long) = (false, false);
        for (r, out) in cells.iter_mut().enumerate() {
            if r > 0 {
                free = next_subset(free);
            }
            let goats = expand(free, points);
            if !stabiliser.is_empty() && stabiliser.iter().any(|s| s.bits(goats) < goats) {
                *out = cell(UNUSED, 0);
                continue;
            }
            let (code, p) = match value(free, goats) {
                Some(fold) => {
                    unused_child |= fold.unused;
                    fold.result()
                }
                None => (LOSS, 0),
            };
            too_long |= p > MAX_CELL_PLIES;
            *out = cell(code, p);
        }
        if unused_child {
            return Err(self.unused_child(what));
        }
        if too_long {
            return Err(self.too_long());
        }
        Ok(())
    }

    fn too_long(&self) -> KernelError {
        let tier = self.index.tier();
        KernelError::TooManyPlies {
            tier: format!("p{}-c{}", tier.to_place, tier.captured),
            limit: MAX_CELL_PLIES as u32,
        }
    }

    fn unused_child(&self, what: &str) -> KernelError {
        KernelError::Inconsistent(format!(
            "in tier p{}-c{}, {what} leads to an unused slot of a child table",
            self.index.tier().to_place,
            self.index.tier().captured
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foxbase_core::Value;

    #[test]
    fn codes_are_the_tables_codes() {
        assert_eq!([DRAW, WIN, LOSS, UNUSED], [Value::Draw.code(), Value::Win.code(), Value::Loss.code(), 3]);
    }
}
