//! Exact distances to zeroing, for a no-progress rule of N plies: one
//! ply decides both sides.
//!
//! The phases of [`super::solve`] alternate sides, so a side's positions
//! are decided at alternating plies: wins at odd, losses at even. That is
//! the parity-rounded DTZ, and it is exact for DTM. Under a no-progress
//! rule the distance to zeroing must be exact (a position with counter `c`
//! is won when its distance is at most `N - c`), and there a zeroing move
//! counts 1 ply whatever its child's value: a loss whose every move leaves
//! the tier into a win for the opponent is 1 ply from zeroing, the win
//! that moves to it 2, and the parities mix.
//!
//! So here ply `p` has a fox step and a sheep step, and both read the
//! planes as they were after ply `p - 1`:
//! - the fox step reads the block's own sheep planes, which the sheep step
//!   of ply `p` has not written yet;
//! - the sheep step reads other blocks' fox planes, which the fox step of
//!   ply `p` has just written, so it reads a copy of them taken after ply
//!   `p - 1` (`fox_before`, brought up to date block by block after each
//!   ply: one more set of fox planes in memory).
//!
//! A position is then decided in the ply of its exact distance: a win at
//! `p` when some child is lost at `p - 1` (or, at `p = 1`, a zeroing move
//! leads to a child lost for the opponent), a loss at `p` when every child
//! is won for the opponent and the last of them was decided at `p - 1` (a
//! zeroing child counts 0). The one exception is ply 0: a position with no
//! move at all is over (0 plies). The initial pass decides the sheep's;
//! the foxes' are found by a fox step over sheep planes with nothing in
//! them ([`Ctx::fox_no_move`]), where a loss with a zeroing move (its
//! floor of 1) waits for ply 1. The plies stop at N: what is not decided
//! by then is a draw at counter 0. The result equals the counter kernel's
//! ([`crate::plies_kernel`]) byte for byte (tested).

use super::*;

impl Ctx<'_> {
    /// Ply 0 of one block's foxes: the placements with no move at all are
    /// lost (over). Returns whether the planes changed.
    pub(super) fn fox_no_move<const BMI2: bool, P: Ply>(
        &self,
        view: &SetView,
        f: &mut [u32],
        pl: &mut [P],
        due: &mut u32,
    ) -> bool {
        let before = self.won_lost(f);
        // No sheep position decided: a fox "steps only into won positions"
        // exactly when it has no step, and a capture is "cannot lose" or a
        // floor of 1.
        let nothing = [0u32; PLANES * 32];
        self.fox_phase_any::<BMI2>(view, f, &nothing[..self.stride]);
        self.settle_exact(FOX, f, &before, pl, 0, due)
    }

    /// The plies of one side of a block after its step of ply `p` (see the
    /// module doc): new wins and losses get `p`; a new loss at ply 0 with a
    /// zeroing move (plies 1: its floor) is taken back and waits for ply 1;
    /// wins by a zeroing move (plies 1 on a "cannot lose" position) are
    /// decided when their ply comes. `before` holds the won and lost rows
    /// before the step; `due` is the first ply with something due. Returns
    /// whether the planes changed.
    pub(super) fn settle_exact<P: Ply>(
        &self,
        side: usize,
        planes: &mut [u32],
        before: &[u32; 64],
        pl: &mut [P],
        p: u32,
        due: &mut u32,
    ) -> bool {
        let rows = self.rows;
        let wins_due = *due <= p;
        let mut next_due = if wins_due { u32::MAX } else { *due };
        let mut changed = false;
        for h in 0..rows {
            let (w0, l0) = (before[h], before[32 + h]);
            let (mut w, mut l) = (planes[WON * rows + h], planes[LOST * rows + h]);
            if p == 0 {
                for j in BitIter((l & !l0) as u64) {
                    if pl[self.block_slot(h, j as usize, side)].get() > 0 {
                        l &= !(1 << j);
                        next_due = next_due.min(1);
                    }
                }
            }
            if wins_due {
                let valid = if self.one_fox { row_mask(self.n) } else { row_mask(self.n) & !(1 << h) };
                for j in BitIter((planes[CANNOT_LOSE * rows + h] & !w & !l & valid) as u64) {
                    let at = pl[self.block_slot(h, j as usize, side)].get();
                    if at == 0 {
                        continue;
                    }
                    if at <= p {
                        w |= 1 << j;
                    } else {
                        next_due = next_due.min(at);
                    }
                }
            }
            for j in BitIter(((w & !w0) | (l & !l0)) as u64) {
                pl[self.block_slot(h, j as usize, side)] = P::put(p);
            }
            changed |= w != w0 || l != l0;
            planes[WON * rows + h] = w;
            planes[LOST * rows + h] = l;
        }
        *due = next_due;
        changed
    }
}

/// Plies 1 to `cap` of a tier after its initial pass (which decided ply
/// 0): see the module doc. Returns the plies that decided something.
pub(super) fn propagate_exact<const BMI2: bool, P: Ply>(
    ctx: &Ctx,
    fox_planes: &mut [u32],
    sheep_planes: &mut [u32],
    sideways: &[Sideways],
    ply: &mut PlyArrays<P>,
    set_bits: &[Bits],
    cap: u32,
) -> u32 {
    debug_assert!(cap <= P::MAX, "a ply count must fit");
    let (stride, sets) = (ctx.stride, set_bits.len());
    let item = BLOCKS_PER_ITEM * stride;
    let items = sets.div_ceil(BLOCKS_PER_ITEM);
    // The fox planes after the ply before: what the sheep step reads.
    let mut fox_before = fox_planes.to_vec();
    // Blocks whose sheep planes changed in the ply before (ply 1: all), and
    // whose fox planes changed in the ply before and in this one.
    let mut sheep_changed = vec![true; sets];
    let mut fox_changed_before = vec![false; sets];
    let mut fox_changed = vec![false; sets];
    let mut levels = 0u32;
    for p in 1..=cap {
        // Foxes: fox steps into the block's own sheep planes (of ply p - 1).
        let slices = ply.item_slices(ctx, items);
        let any_fox = fox_planes
            .par_chunks_mut(item)
            .zip(sheep_changed.par_chunks(BLOCKS_PER_ITEM))
            .zip(fox_changed.par_chunks_mut(BLOCKS_PER_ITEM))
            .zip(slices)
            .enumerate()
            .map(|(it, (((f, todo), out), (pl, due_f, _)))| {
                let mut any = false;
                for (b, fb) in f.chunks_mut(stride).enumerate() {
                    out[b] = false;
                    if !todo[b] && due_f[b] > p {
                        continue;
                    }
                    let set = it * BLOCKS_PER_ITEM + b;
                    let view = SetView::new(set_bits[set]);
                    let s = &sheep_planes[set * stride..(set + 1) * stride];
                    let before = ctx.won_lost(fb);
                    ctx.fox_phase_any::<BMI2>(&view, fb, s);
                    let pb = &mut pl[b * ctx.per_set as usize..(b + 1) * ctx.per_set as usize];
                    out[b] = ctx.settle_exact(FOX, fb, &before, pb, p, &mut due_f[b]);
                    any |= out[b];
                }
                any
            })
            .reduce(|| false, |a, b| a || b);
        // Sheep: sideways steps into other blocks' fox planes of ply p - 1.
        let slices = ply.item_slices(ctx, items);
        let any_sheep = sheep_planes
            .par_chunks_mut(item)
            .zip(sheep_changed.par_chunks_mut(BLOCKS_PER_ITEM))
            .zip(slices)
            .zip(sideways)
            .enumerate()
            .map(|(it, (((s, changed), (pl, _, due_s)), sideways))| {
                let mut any = false;
                let blocks = sideways.first.len() - 1;
                for (b, sb) in s.chunks_mut(stride).enumerate() {
                    changed[b] = false;
                    if b + 1 < blocks {
                        for step in sideways.block(b + 1) {
                            let planes = &fox_before[step.child as usize * stride..][..stride];
                            prefetch(&planes[WON * ctx.rows]);
                            prefetch(&planes[LOST * ctx.rows]);
                            prefetch(&planes[(LOST + 1) * ctx.rows - 1]);
                        }
                    }
                    let steps = sideways.block(b);
                    // Ply 1 looks at every block (one without sideways
                    // steps may be lost by its zeroing moves alone).
                    let todo = p == 1 || steps.iter().any(|step| fox_changed_before[step.child as usize]);
                    if !todo && due_s[b] > p {
                        continue;
                    }
                    let set = it * BLOCKS_PER_ITEM + b;
                    let view = SetView::new(set_bits[set]);
                    let before = ctx.won_lost(sb);
                    ctx.sheep_phase::<BMI2>(&view, sb, &fox_before, steps, sideways);
                    let pb = &mut pl[b * ctx.per_set as usize..(b + 1) * ctx.per_set as usize];
                    changed[b] = ctx.settle_exact(SHEEP, sb, &before, pb, p, &mut due_s[b]);
                    any |= changed[b];
                }
                any
            })
            .reduce(|| false, |a, b| a || b);
        // The sheep step of the next ply reads the fox planes of this one.
        fox_before
            .par_chunks_mut(item)
            .zip(fox_planes.par_chunks(item))
            .zip(fox_changed.par_chunks(BLOCKS_PER_ITEM))
            .for_each(|((to, from), changed)| {
                for (b, _) in changed.iter().enumerate().filter(|(_, &c)| c) {
                    to[b * stride..(b + 1) * stride].copy_from_slice(&from[b * stride..(b + 1) * stride]);
                }
            });
        std::mem::swap(&mut fox_changed_before, &mut fox_changed);
        levels += (any_fox || any_sheep) as u32;
        if !any_fox && !any_sheep && !ply.pending() {
            break;
        }
    }
    levels
}
