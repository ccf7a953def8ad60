//! The passes over a block of a one-fox tier, where each plane is one row:
//! its part of the initial pass ([`OneFox`]) and its fox phase.

use super::*;

impl Placements for OneFox {
    const FOXES: u32 = 1;
    type Marks = u32;
    const NONE: u32 = 0;

    #[inline]
    fn clear(planes: &mut [u32]) {
        // One row a plane: a constant length, not a call to memset.
        planes.copy_from_slice(&[0; PLANES]);
    }

    #[inline]
    fn all_lost(planes: &mut [u32], n: usize) {
        planes[LOST] = row_mask(n);
    }

    #[inline]
    fn captures_win_at_once<const BMI2: bool>(ctx: &Ctx, view: &SetView, f: &mut [u32]) {
        for (ia, &a) in view.points[..ctx.n].iter().enumerate() {
            if ctx.jump_masks.landings::<BMI2>(a, view.sheep, view.free) != 0 {
                f[WON] |= 1 << ia;
            }
        }
    }

    #[inline]
    fn captures<const BMI2: bool>(
        ctx: &Ctx,
        view: &SetView,
        f: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) -> Result<(), KernelError> {
        let n = ctx.n;
        for o in BitIter(view.sheep) {
            let Some((jumps, target)) = ctx.captures_over(view, o, 1)? else { continue };
            let (mut won, mut lost) = (0, 0);
            match target {
                Target::Child(c, rank) => {
                    let (w, l) = decode_child_one::<BMI2>(
                        ctx.children[c].values,
                        rank.base,
                        n + 1,
                        1,
                        rank.symmetric,
                        rank.free,
                    );
                    won = map_columns::<BMI2>(w, rank.free, rank.mirrored, view.free | 1 << o);
                    lost = map_columns::<BMI2>(l, rank.free, rank.mirrored, view.free | 1 << o);
                }
                // Over: see `capture_out_wins`.
                Target::NoTable => {}
                Target::InTier(_) => unreachable!("a capture leaves the tier"),
            }
            // Columns over the free points of `after` (this set's and `o`).
            let after_free = view.free | 1 << o;
            for &(a, t) in jumps {
                if !view.both_free(a, t) {
                    continue;
                }
                let ia = view.index_of(a);
                let bit_t = 1u32 << (after_free & ((1u64 << t) - 1)).count_ones();
                let no_table = matches!(target, Target::NoTable);
                let wins = (no_table && ctx.capture_out_wins) || lost & bit_t != 0;
                if wins {
                    f[win_plane] |= 1 << ia;
                }
                if !no_table && won & bit_t == 0 {
                    f[CANNOT_LOSE] |= 1 << ia;
                }
                if ctx.plies && (no_table || (won | lost) & bit_t != 0) {
                    let p = ctx.outside_plies(&target, 1u64 << t, Side::Sheep);
                    scratch.plies.child(FOX, 0, ia, wins, p);
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn step_is_legal(has_move: &mut u32, kt: usize, n: usize) {
        *has_move |= row_mask(n) & !(1 << kt);
    }

    #[inline]
    fn no_move_lost(s: &mut [u32], has_move: &u32, n: usize) {
        s[LOST] |= row_mask(n) & !has_move;
    }

    #[inline]
    fn trapped<const BMI2: bool>(
        ctx: &Ctx,
        _view: &SetView,
        _step: (u8, u8),
        _keep: &Target,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) -> Result<u32, KernelError> {
        // A trapped fox is removed: no fox left, the sheep have won.
        let trapped = scratch.traps.mine[0];
        s[win_plane] |= trapped;
        if ctx.plies {
            s[CANNOT_LOSE] |= trapped;
            for i in BitIter(trapped as u64) {
                scratch.plies.child(SHEEP, 0, i as usize, true, 0);
            }
        }
        Ok(trapped)
    }

    #[inline]
    fn step_into_child<const BMI2: bool>(
        ctx: &Ctx,
        view: &SetView,
        kt: usize,
        (c, rank): (usize, &SetRank),
        _moved: Bits,
        trapped: &u32,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) {
        let (w, l) = decode_child_one::<BMI2>(ctx.children[c].values, rank.base, ctx.n, 0, rank.symmetric, rank.free);
        OneFox::child_rows::<BMI2, u32>(ctx, view, kt, (Some(c), rank), (&[w], &[l]), trapped, s, scratch, win_plane);
    }

    #[inline(always)]
    fn child_rows<const BMI2: bool, R: Copy + Into<u32>>(
        ctx: &Ctx,
        view: &SetView,
        kt: usize,
        (child, rank): (Option<usize>, &SetRank),
        (won, lost): (&[R], &[R]),
        trapped: &u32,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) {
        let ok = row_mask(ctx.n) & !(1 << kt) & !trapped;
        let w = map_columns::<BMI2>(won[0].into(), rank.free, rank.mirrored, view.free);
        let l = map_columns::<BMI2>(lost[0].into(), rank.free, rank.mirrored, view.free);
        s[win_plane] |= l & ok;
        s[CANNOT_LOSE] |= !w & ok;
        if ctx.plies && ctx.to_zeroing {
            scratch.plies.zeroing_children(SHEEP, 0, l & ok, w & ok);
        } else if ctx.plies {
            let c = child.expect("plies to the end are read from the child table");
            for i in BitIter(((w | l) & ok) as u64) {
                let fox = 1u64 << view.points[i as usize];
                let p = ctx.child_plies(c, rank, fox, Side::Fox);
                scratch.plies.child(SHEEP, 0, i as usize, l & (1 << i) != 0, p);
            }
        }
    }

    #[inline]
    fn sideways_rows(ctx: &Ctx, kt: usize, lost: &[u16], drawn: &[u16], s: &mut [u32]) {
        let ok = row_mask(ctx.n) & !(1 << kt);
        s[WON] |= lost[0] as u32 & ok;
        s[CANNOT_LOSE] |= drawn[0] as u32 & ok;
    }

    #[inline]
    fn step_out(
        ctx: &Ctx,
        view: &SetView,
        kt: usize,
        keep: &Target,
        moved: Bits,
        trapped: &u32,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) -> Result<(), KernelError> {
        let ok = row_mask(ctx.n) & !(1 << kt) & !trapped;
        for i in BitIter(ok as u64) {
            let fox = 1u64 << view.points[i as usize];
            let value = ctx.outside_value(keep, moved, fox, Side::Fox)?;
            if ctx.plies && value != Value::Draw {
                scratch.plies.child(SHEEP, 0, i as usize, value == Value::Loss, 0);
            }
            match value {
                Value::Loss => s[win_plane] |= 1 << i,
                Value::Draw => s[CANNOT_LOSE] |= 1 << i,
                Value::Win => {}
            }
        }
        Ok(())
    }
}

impl<'a> Ctx<'a> {
    /// [`Ctx::fox_phase`] for a one-fox tier, from the block's sheep set
    /// alone (a block's whole work in a phase is a few rows: no [`SetView`]).
    #[inline(never)]
    pub(super) fn fox_phase_one<const BMI2: bool>(&self, sheep: Bits, f: &mut [u32], s: &[u32]) -> bool {
        if (sheep & PEN).count_ones() >= self.game.rules.pen_target {
            return false;
        }
        let board = self.game.rules.board;
        let free = ALL_POINTS & !sheep;
        let (mut won, mut all_won) = (0u32, 0u32);
        for (i, p) in BitIter(free).enumerate() {
            let steps = pext::<BMI2>(board.neighbours[p as usize] & free, free) as u32;
            won |= ((s[LOST] & steps != 0) as u32) << i;
            all_won |= ((steps & !s[WON] == 0) as u32) << i;
        }
        let w = f[WON] | won;
        let l = f[LOST] | (all_won & !f[CANNOT_LOSE] & !w);
        let changed = w != f[WON] || l != f[LOST];
        f[WON] = w;
        f[LOST] = l;
        changed
    }

    /// Calls `f(row, first_slot, len, used)` for every row of a block's
    /// table slots: the placements with bits `0..len` of plane row `row`
    /// fill the slots from `first_slot` (fox to move; sheep to move next
    /// to it) on, in order. Two foxes: row `h` holds the placements with
    /// the other fox below it (`len = h`); one fox: one row. `used` clears
    /// the mirror images a symmetric sheep set does not store.
    #[inline]
    pub(super) fn for_each_row(&self, view: &SetView, mut f: impl FnMut(usize, u64, usize, u32)) {
        let symmetric = view.sheep == mirror_bits(view.sheep);
        let used = |h: usize, len: usize| -> u32 {
            if !symmetric {
                return row_mask(len);
            }
            let mut used = 0u32;
            for j in 0..len {
                let foxes = if self.one_fox {
                    1u64 << view.points[j]
                } else {
                    (1u64 << view.points[h]) | (1u64 << view.points[j])
                };
                used |= ((mirror_bits(foxes) >= foxes) as u32) << j;
            }
            used
        };
        if self.one_fox {
            f(0, 0, self.n, used(0, self.n));
        } else {
            for h in 1..self.n {
                f(h, (h * (h - 1)) as u64, h, used(h, h));
            }
        }
    }
}
