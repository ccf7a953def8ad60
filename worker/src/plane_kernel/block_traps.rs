//! The foxes trapped in each sheep set, found once per set.
//!
//! Whether a sheep step leaves a fox trapped depends on the set it leads
//! to alone: a fox is trapped when its options there (free neighbours and
//! jump landings, no other fox) are none at all, or only the other fox's
//! point, and the pen holds fewer than K sheep. A block of a crowded tier
//! is the target of many steps (most of them trapping a fox), so the
//! initial pass finds each target's trapped foxes and their values once
//! per block here instead of once per step ([`Ctx::trapped_rows`],
//! [`Ctx::trapped_children`]): [`BlockTraps`] for the blocks of the tier
//! itself (sideways steps), [`super::child_planes`] for the child blocks.
//! Values only, on tiers of at most [`ROWS_ONCE_PER_SET`] free points:
//! with plies a trapped fox's child has its own plies, which the initial
//! pass takes step by step.

use super::*;

/// The placements of a set with a trapped fox, in the set's own
/// coordinates (row `i`, bit `j`: foxes on the `i`-th and `j`-th free
/// points), and what the position is then: the one-fox child's (the other
/// fox left), or won by the sheep (both trapped).
pub(super) struct SetTraps {
    /// Some fox trapped.
    pub(super) trapped: Rows,
    /// Of those, lost for the foxes.
    pub(super) lost: Rows,
    /// Of those, won for the foxes.
    pub(super) won: Rows,
}

/// The trapped foxes of every block of the tier, for its sideways steps:
/// which placements the sheep phases leave to the initial pass
/// (`trapped`, kept through the phases), and their values there (lost and
/// drawn for the foxes, freed after the initial pass), in the block's
/// coordinates and in those of its mirror image. A sideways step moves a
/// sheep to the next point of its rank, so the set it leads to has its
/// free points where the parent has them but for those two, which have
/// the same index: rows in the coordinates of the set the step reaches
/// (the stored one, or its mirror image) are the parent's as they are.
pub(super) struct BlockTraps {
    rows: usize,
    trapped: Vec<TrappedRows>,
    /// Per block: in its coordinates, then in its mirror image's.
    lost_drawn: Vec<[Line; 2]>,
}

/// A block's placements with a trapped fox: `rows` (at most 16) rows, in
/// half a cache line.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct TrappedRows([u16; 16]);

impl BlockTraps {
    /// Block `b`'s placements with a trapped fox, `rows` rows.
    #[inline(always)]
    pub(super) fn trapped(&self, b: usize) -> &[u16] {
        &self.trapped[b].0[..self.rows]
    }

    /// Block `b`'s placements whose trapped fox leaves a position lost for
    /// the foxes, and those it leaves drawn, in the coordinates of its set
    /// or, `mirrored`, of that set's mirror image.
    #[inline(always)]
    pub(super) fn lost_drawn(&self, b: usize, mirrored: bool) -> (&[u16], &[u16]) {
        self.lost_drawn[b][mirrored as usize].planes(self.rows)
    }

    /// Asks for [`BlockTraps::lost_drawn`]'s line.
    #[inline(always)]
    pub(super) fn prefetch(&self, b: usize, mirrored: bool) {
        prefetch(&self.lost_drawn[b][mirrored as usize]);
    }

    /// Frees what only the initial pass reads.
    pub(super) fn initial_pass_done(&mut self) {
        self.lost_drawn = Vec::new();
    }
}

impl<'a> Ctx<'a> {
    /// A fox on `a` (free in `sheep`, with the free points `free`) has
    /// these options when alone: free neighbours and jump landings.
    #[inline(always)]
    pub(super) fn fox_options<const BMI2: bool>(&self, a: u8, sheep: Bits, free: Bits) -> Bits {
        (self.game.rules.board.neighbours[a as usize] & free) | self.jump_masks.landings::<BMI2>(a, sheep, free)
    }

    /// The trapped foxes of the set `sheep` (canonical, as its table
    /// stores it; `symmetric`: its own mirror image) with two foxes, valued
    /// from `twin`, the one-fox tier of the same sheep (at the set's index
    /// there). `None` when no fox can be trapped there.
    #[inline(always)]
    pub(super) fn set_traps<const BMI2: bool>(
        &self,
        sheep: Bits,
        symmetric: bool,
        (twin, set): (&ChildRef, u64),
    ) -> Option<SetTraps> {
        // A fox is removed only while the pen is short of K.
        if (sheep & PEN).count_ones() >= self.game.rules.pen_target {
            return None;
        }
        let free = ALL_POINTS & !sheep;
        let mut traps = SetTraps { trapped: [0; 32], lost: [0; 32], won: [0; 32] };
        let n = self.n;
        let full = row_mask(n);
        // Row i, bit j: the fox on i is trapped with the other on j
        // (`mine`), the fox on j with the other on i (`theirs`, but for the
        // foxes trapped wherever the other stands: `anywhere`).
        let (mut mine, mut theirs, mut anywhere) = ([0u32; 32], [0u32; 32], 0u32);
        for (ia, a) in BitIter(free).enumerate() {
            let options = self.fox_options::<BMI2>(a, sheep, free);
            if options == 0 {
                mine[ia] = full & !(1 << ia);
                anywhere |= 1 << ia;
            } else if options.is_power_of_two() {
                let ib = (free & (options - 1)).count_ones();
                mine[ia] = 1 << ib;
                theirs[ib as usize] |= 1 << ia;
            }
        }
        let base = set * twin.index.fox_slots * 2;
        let (one_won, one_lost) = decode_child_one::<BMI2>(twin.values, base, n, 0, symmetric, free);
        for i in 0..n {
            let (m, t) = (mine[i], theirs[i] | (anywhere & !(1 << i)));
            let (both, left_j, left_i) = (m & t, m & !t, t & !m);
            // Only the fox on j trapped: the fox on i is left, one value for the row.
            let at_i = |row: u32| left_i & ((row >> i) & 1).wrapping_neg();
            traps.trapped[i] = m | t;
            traps.lost[i] = both | (left_j & one_lost) | at_i(one_lost);
            traps.won[i] = (left_j & one_won) | at_i(one_won);
        }
        Some(traps)
    }

    /// The one-fox tier of this tier's sheep (where a sideways step that
    /// traps a fox leads), among the children.
    fn own_twin(&self) -> Option<usize> {
        (0..7).find_map(|rank| match self.places.by_change[1][rank][rank] {
            Place::Child(t) => Some(t),
            _ => None,
        })
    }

    /// The [`BlockTraps`] of every block of the tier (`set_bits`: each
    /// block's sheep set), for a solve of values with at most
    /// [`ROWS_ONCE_PER_SET`] free points and two foxes
    /// ([`Ctx::traps_once_per_set`]); `None` elsewhere, or when the one-fox
    /// twin is not among the children.
    pub(super) fn build_block_traps<const BMI2: bool>(&self, set_bits: &[Bits]) -> Option<BlockTraps> {
        if self.plies || !self.traps_once_per_set() {
            return None;
        }
        let twin = &self.children[self.own_twin()?];
        let rows = self.rows;
        let mut trapped = vec![TrappedRows([0; 16]); set_bits.len()];
        let mut lost_drawn = vec![[Line::EMPTY; 2]; set_bits.len()];
        trapped.par_chunks_mut(BLOCKS_PER_ITEM).zip(lost_drawn.par_chunks_mut(BLOCKS_PER_ITEM)).enumerate().for_each(
            |(item, (trapped, lost_drawn))| {
                let mut mirror = MirrorTable::default();
                for (b, (t, ld)) in trapped.iter_mut().zip(lost_drawn.iter_mut()).enumerate() {
                    let set = item * BLOCKS_PER_ITEM + b;
                    let sheep = set_bits[set];
                    let symmetric = mirror_bits(sheep) == sheep;
                    let Some(traps) = self.set_traps::<BMI2>(sheep, symmetric, (twin, set as u64)) else {
                        continue;
                    };
                    let mut drawn = [0u32; 32];
                    for (i, d) in drawn.iter_mut().enumerate().take(rows) {
                        t.0[i] = traps.trapped[i] as u16;
                        *d = traps.trapped[i] & !traps.lost[i] & !traps.won[i];
                    }
                    // The mirror image's rows: the fox on a point there is the
                    // fox on its mirror here, columns mirrored alike.
                    let (free, image_free) = (ALL_POINTS & !sheep, ALL_POINTS & !mirror_bits(sheep));
                    mirror.set_free(image_free);
                    let (mut lost_m, mut drawn_m) = ([0u32; 32], [0u32; 32]);
                    for (j, q) in BitIter(free).enumerate() {
                        let i = (image_free & ((1u64 << mirror_point(q)) - 1)).count_ones() as usize;
                        lost_m[i] = mirror.apply(traps.lost[j]);
                        drawn_m[i] = mirror.apply(drawn[j]);
                    }
                    *ld = [Line::of(&traps.lost, &drawn, rows), Line::of(&lost_m, &drawn_m, rows)];
                }
            },
        );
        Some(BlockTraps { rows, trapped, lost_drawn })
    }
}
