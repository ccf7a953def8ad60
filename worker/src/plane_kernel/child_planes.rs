//! The fox-to-move planes of the child blocks that sheep steps lead to,
//! decoded once per child block instead of once per step, with the foxes
//! a step into the block traps already valued.
//!
//! Several sheep steps of a tier lead into each block of a child tier
//! (every sheep of the child set that stepped forward from a free point
//! behind it), and what a parent needs from the child block depends on
//! the child's sheep set alone: its fox-to-move values, and which fox the
//! step left trapped. A fox is trapped when its options in the child set
//! (free neighbours and jump landings, no other fox) are none at all, or
//! only the other fox's point; it is then removed, and the position is the
//! one-fox child's (with both foxes trapped the sheep have won).
//! [`ChildPlanes`] holds, per child block, the won and lost rows of the
//! position the step really reaches: a sheep step into it is then a column
//! map and an OR, as a sideways step is in the phases.
//!
//! For values and plies to zeroing (every child counts 0 plies), on
//! two-fox tiers of at most [`ROWS_ONCE_PER_SET`] free points
//! ([`Ctx::traps_once_per_set`]): with plies to the end a
//! trapped fox's child has its own plies, which the initial pass takes
//! from the one-fox child step by step. The trapped foxes are found as
//! [`Ctx::set_traps`] finds them.

use super::*;
use std::sync::OnceLock;

/// A child table's [`ChildPlanes`], built by the first parent whose sheep
/// steps lead into it and shared with its later parents while a
/// [`crate::table_cache::TableCache`] keeps the table. They depend on the
/// child's values and those of its one-fox twin alone, both fixed for a
/// solve, so each parent would build the same (a 20-sheep tier is read by
/// three to four parents). Empty until a parent builds them, and for
/// tables no crowded two-fox tier reads.
#[derive(Default)]
pub struct KeptPlanes(OnceLock<ChildPlanes>);

impl KeptPlanes {
    /// Bytes held: 0 until built.
    pub fn bytes(&self) -> u64 {
        self.0.get().map_or(0, |p| std::mem::size_of_val(p.planes.as_slice()) as u64)
    }

    /// Fills the slot with `blocks` empty lines (for the cache's tests).
    #[cfg(test)]
    pub(crate) fn fill_for_test(&self, blocks: usize) {
        let planes = ChildPlanes { rows: 13, planes: vec![Line::EMPTY; blocks] };
        assert!(self.0.set(planes).is_ok(), "filled once");
    }
}

/// A child's [`ChildPlanes`] as a solve holds them: kept with the child
/// table ([`KeptPlanes`]), or built for this solve alone (children without
/// a slot, as a verification passes them).
pub(super) enum HeldPlanes<'a> {
    Kept(&'a ChildPlanes),
    Own(ChildPlanes),
}

impl std::ops::Deref for HeldPlanes<'_> {
    type Target = ChildPlanes;

    fn deref(&self) -> &ChildPlanes {
        match self {
            HeldPlanes::Kept(planes) => planes,
            HeldPlanes::Own(planes) => planes,
        }
    }
}

/// The won and lost rows (fox to move, in the canonical set's own
/// coordinates, `n` rows each) of every
/// block of a child tier, a trapped fox taken off as the step does: one
/// [`Line`] a block.
pub(super) struct ChildPlanes {
    rows: usize,
    planes: Vec<Line>,
}

impl ChildPlanes {
    /// The won and lost rows of the child block of set `set`.
    #[inline(always)]
    pub(super) fn won_lost(&self, set: u64) -> (&[u16], &[u16]) {
        self.planes[set as usize].planes(self.rows)
    }

    /// The line of the child block of set `set`.
    #[inline(always)]
    pub(super) fn line(&self, set: u64) -> &Line {
        &self.planes[set as usize]
    }

    /// Asks for [`ChildPlanes::won_lost`]'s line.
    #[inline(always)]
    pub(super) fn prefetch(&self, set: u64) {
        prefetch(&self.planes[set as usize]);
    }
}

impl<'a> Ctx<'a> {
    /// The [`ChildPlanes`] of every child a sheep step leads to (indexed
    /// as `children`; `None` for the others), for a solve of values or of
    /// plies to zeroing. A child also needs its one-fox twin (the same
    /// sheep, a trapped fox removed) among the children; without it the
    /// steps into that child take the step-by-step path, as every step
    /// does with plies to the end.
    /// A child whose table has a [`KeptPlanes`] slot takes them from there,
    /// built there by the first parent that needs them.
    pub(super) fn build_child_planes<const BMI2: bool>(&self) -> Vec<Option<HeldPlanes<'a>>> {
        let mut planes: Vec<Option<HeldPlanes<'a>>> = (0..self.children.len()).map(|_| None).collect();
        if (self.plies && !self.to_zeroing) || !self.traps_once_per_set() {
            return planes;
        }
        for lost in 0..7 {
            for gained in 0..7 {
                let Place::Child(c) = self.places.by_change[0][lost][gained] else { continue };
                if planes[c].is_some() {
                    continue;
                }
                if let Place::Child(twin) = self.places.by_change[1][lost][gained] {
                    let kept: Option<&'a KeptPlanes> = self.children[c].planes;
                    planes[c] = Some(match kept {
                        Some(kept) => HeldPlanes::Kept(kept.0.get_or_init(|| self.child_planes::<BMI2>(c, twin))),
                        None => HeldPlanes::Own(self.child_planes::<BMI2>(c, twin)),
                    });
                }
            }
        }
        planes
    }

    /// The planes of child `c`, with `twin` its one-fox twin.
    fn child_planes<const BMI2: bool>(&self, c: usize, twin: usize) -> ChildPlanes {
        let (rows, child, twin) = (self.rows, &self.children[c], &self.children[twin]);
        let mut planes = vec![Line::EMPTY; child.index.sheep_sets as usize];
        planes.par_chunks_mut(BLOCKS_PER_ITEM).enumerate().for_each(|(item, chunk)| {
            for (b, line) in chunk.iter_mut().enumerate() {
                let set = (item * BLOCKS_PER_ITEM + b) as u64;
                *line = self.child_block::<BMI2>(child, twin, set);
            }
        });
        ChildPlanes { rows, planes }
    }

    /// One block of [`Ctx::child_planes`]: the set of index `set` of `child`.
    #[inline(never)]
    fn child_block<const BMI2: bool>(&self, child: &ChildRef, twin: &ChildRef, set: u64) -> Line {
        let n = self.n;
        let sheep = child.index.sheep_set(set);
        let free = ALL_POINTS & !sheep;
        let symmetric = mirror_bits(sheep) == sheep;
        let base = set * child.index.fox_slots * 2;
        let (mut won, mut lost) = ([0u32; 32], [0u32; 32]);
        decode_child::<BMI2>(child.values, base, n, 0, symmetric, free, &mut won, &mut lost);
        if let Some(traps) = self.set_traps::<BMI2>(sheep, symmetric, (twin, set)) {
            for i in 0..n {
                won[i] = (won[i] & !traps.trapped[i]) | traps.won[i];
                lost[i] = (lost[i] & !traps.trapped[i]) | traps.lost[i];
            }
        }
        Line::of(&won, &lost, n)
    }
}
