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
        self.fox_phase_any::<BMI2>(view.sheep, f, &nothing[..self.stride]);
        self.settle(FOX, f, &before, pl, 0, due)
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
        let any_fox = fox_pass::<BMI2, P>(
            ctx,
            fox_planes,
            sheep_planes,
            &sheep_changed,
            &mut fox_changed,
            ply,
            set_bits,
            p,
            Settle::Plies,
        );
        // Sheep: sideways steps into other blocks' fox planes of ply p - 1
        // (ply 1 looks at every block: one without sideways steps may be
        // lost by its zeroing moves alone).
        let any_sheep = sheep_pass::<BMI2, P>(
            ctx,
            sheep_planes,
            &fox_before,
            sideways,
            &mut sheep_changed,
            ply,
            set_bits,
            p,
            (p == 1, &fox_changed_before),
            Settle::Plies,
        );
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
