//! Un-moves: the predecessors of a position.

use crate::board::{BitIter, Bits, PEN};
use crate::position::{Position, Side, MAX_FOXES, MAX_SHEEP};
use crate::rules::Rules;

/// Calls `f` with each non-primitive `q` with a move leading to `pos`, once
/// per such move. With `same_tier`, only those in `pos`'s tier: fox
/// un-steps and sideways sheep un-steps without a removed fox.
pub(super) fn for_each_parent(rules: &Rules, pos: &Position, same_tier: bool, mut f: impl FnMut(Position)) {
    let board = rules.board;
    let (sheep, foxes) = (pos.sheep(), pos.foxes());
    let empty = pos.empty();
    let k = rules.pen_target;
    match pos.side() {
        Side::Sheep => {
            // A fox moved last. Its parent has the fox to move, which is over
            // if the pen already held K sheep (the fox has a move, the one we undo).
            if (sheep & PEN).count_ones() >= k {
                return;
            }
            for to in BitIter(foxes) {
                let rest = foxes & !(1 << to);
                for from in BitIter(board.neighbours[to as usize] & empty) {
                    f(Position::from_parts_unchecked(sheep, rest | 1 << from, Side::Fox));
                }
                if same_tier || sheep.count_ones() >= MAX_SHEEP {
                    continue;
                }
                // Jumps are symmetric: a jump from `to` over m to `from` mirrors one from `from` to `to`.
                for j in board.jumps_from(to) {
                    let (over, from) = (1u64 << j.over, 1u64 << j.to);
                    if empty & over != 0 && empty & from != 0 && ((sheep | over) & PEN).count_ones() < k {
                        f(Position::from_parts_unchecked(sheep | over, rest | from, Side::Fox));
                    }
                }
            }
        }
        Side::Fox => {
            // A sheep moved last; its parent has sheep to move, over if
            // fewer than K sheep, or than the sheep floor F.
            if rules.too_few_sheep(sheep.count_ones()).is_some() {
                return;
            }
            let pen_filled = (sheep & PEN).count_ones() >= k;
            if same_tier {
                // In the tier: sideways un-steps, and no fox was removed, so
                // none of the foxes may be trapped now (unless the pen is full).
                if !pen_filled && rules.trapped_foxes(sheep, foxes) != 0 {
                    return;
                }
                for to in BitIter(sheep) {
                    let froms =
                        board.sheep_unsteps[to as usize] & empty & crate::board::RANK_MASK_OF_POINT[to as usize];
                    for from in BitIter(froms) {
                        f(Position::from_parts_unchecked((sheep & !(1 << to)) | 1 << from, foxes, Side::Sheep));
                    }
                }
                return;
            }
            // Foxes removed after the sheep move: sets R of empty points such
            // that, with R restored, exactly the foxes of R are trapped.
            let mut removed: [Bits; 128] = [0; 128];
            let mut n_removed = 0;
            if pen_filled || rules.trapped_foxes(sheep, foxes) == 0 {
                removed[0] = 0;
                n_removed = 1;
            }
            if !pen_filled {
                let room = MAX_FOXES - foxes.count_ones();
                let candidates = trapped_spots(rules, empty);
                if room >= 1 {
                    for r in BitIter(candidates) {
                        let r = 1u64 << r;
                        if rules.trapped_foxes(sheep, foxes | r) == r {
                            push(&mut removed, &mut n_removed, r);
                        }
                    }
                }
                if room >= 2 {
                    for a in BitIter(candidates) {
                        for b in BitIter(candidates & !((2u64 << a) - 1)) {
                            let r = (1u64 << a) | (1u64 << b);
                            if rules.trapped_foxes(sheep, foxes | r) == r {
                                push(&mut removed, &mut n_removed, r);
                            }
                        }
                    }
                }
            }
            if n_removed == 0 {
                return;
            }
            for to in BitIter(sheep) {
                for from in BitIter(board.sheep_unsteps[to as usize] & empty) {
                    let q_sheep = (sheep & !(1 << to)) | 1 << from;
                    for &r in &removed[..n_removed] {
                        if r & (1 << from) == 0 {
                            f(Position::from_parts_unchecked(q_sheep, foxes | r, Side::Sheep));
                        }
                    }
                }
            }
        }
    }
}

fn push(list: &mut [Bits; 128], n: &mut usize, r: Bits) {
    list[*n] = r;
    *n += 1;
}

/// Empty points where a fox would have no step of its own to an empty point:
/// the only places a removed fox can have stood. (Whether it also lacks a
/// jump is checked with the full position.)
fn trapped_spots(rules: &Rules, empty: Bits) -> Bits {
    let mut spots = 0;
    for p in BitIter(empty) {
        // Its neighbours are all occupied, except possibly by another restored fox.
        let free = rules.board.neighbours[p as usize] & empty;
        if free.count_ones() <= 1 {
            spots |= 1 << p;
        }
    }
    spots
}
