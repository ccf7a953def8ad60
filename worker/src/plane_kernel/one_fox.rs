//! The passes over a block of a one-fox tier: each plane is one row.

use super::*;

impl<'a> Ctx<'a> {
    /// [`Ctx::init_block`] for a one-fox tier: each plane is one row.
    #[inline(never)]
    pub(super) fn init_block_one<const BMI2: bool>(
        &self,
        view: &SetView,
        f: &mut [u32],
        s: &mut [u32],
        scratch: &mut Scratch,
        sideways: &mut Sideways,
        fox_only: bool,
    ) -> Result<(), KernelError> {
        let n = self.n;
        let sheep = view.sheep;
        let rules = &self.game.rules;
        let k = rules.pen_target;
        let full = row_mask(n);
        // One row a plane: a constant length, not a call to memset.
        f.copy_from_slice(&[0; PLANES]);
        s.copy_from_slice(&[0; PLANES]);
        let plies = self.plies;
        if plies {
            scratch.plies.clear(self.rows, n);
        }
        let win_plane = if plies { CANNOT_LOSE } else { WON };
        if (sheep & PEN).count_ones() >= k {
            f[LOST] = full;
        } else if self.captures_win_at_once && !plies {
            // A fox with a jump has won (`Ctx::init_block`).
            for (ia, &a) in view.points[..n].iter().enumerate() {
                if self.jump_masks.landings::<BMI2>(a, sheep, view.free) != 0 {
                    f[WON] |= 1 << ia;
                }
            }
        } else {
            for o in BitIter(sheep) {
                let Some((jumps, target)) = self.captures_over(view, o, 1)? else { continue };
                let (mut won, mut lost) = (0, 0);
                match target {
                    Target::Child(c, rank) => {
                        let (w, l) = decode_child_one::<BMI2>(
                            self.children[c].values,
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
                    let wins = (no_table && self.capture_out_wins) || lost & bit_t != 0;
                    if wins {
                        f[win_plane] |= 1 << ia;
                    }
                    if !no_table && won & bit_t == 0 {
                        f[CANNOT_LOSE] |= 1 << ia;
                    }
                    if plies && (no_table || (won | lost) & bit_t != 0) {
                        let p = self.outside_plies(&target, 1u64 << t, Side::Sheep);
                        scratch.plies.child(FOX, 0, ia, wins, p);
                    }
                }
            }
        }
        if fox_only {
            return Ok(());
        }
        if sheep.count_ones() < k {
            s[LOST] = full;
            return Ok(());
        }
        let board = rules.board;
        let cramped = Cramped::new(self.game, view);
        let mut has_move = 0u32;
        for from in BitIter(sheep) {
            for to in BitIter(board.sheep_steps[from as usize] & view.free) {
                let moved = sheep ^ (1 << from) ^ (1 << to);
                let mut trapped = 0u32;
                let traps = (moved & PEN).count_ones() < k
                    && self.trapped_rows::<BMI2>(view, cramped, moved, (from, to), &mut scratch.traps);
                if traps {
                    // A trapped fox is removed: no fox left, the sheep have won.
                    trapped = scratch.traps.mine[0];
                    s[win_plane] |= trapped;
                    if plies {
                        s[CANNOT_LOSE] |= trapped;
                        for i in BitIter(trapped as u64) {
                            scratch.plies.child(SHEEP, 0, i as usize, true, 0);
                        }
                    }
                }
                let kt = view.index_of(to);
                has_move |= full & !(1 << kt);
                let ok = full & !(1 << kt) & !trapped;
                match self.target(moved, 1, from, Some(to)) {
                    // A sideways step: the sheep phases take it from here.
                    Target::InTier(rank) => {
                        self.record_sideways(view, to, &rank, traps.then_some(&scratch.traps), sideways)
                    }
                    Target::Child(c, rank) => {
                        let (w, l) = decode_child_one::<BMI2>(
                            self.children[c].values,
                            rank.base,
                            n,
                            0,
                            rank.symmetric,
                            rank.free,
                        );
                        let (w, l) = (
                            map_columns::<BMI2>(w, rank.free, rank.mirrored, view.free),
                            map_columns::<BMI2>(l, rank.free, rank.mirrored, view.free),
                        );
                        s[win_plane] |= l & ok;
                        s[CANNOT_LOSE] |= !w & ok;
                        if plies && self.to_zeroing {
                            scratch.plies.zeroing_children(SHEEP, 0, l & ok, w & ok);
                        } else if plies {
                            for i in BitIter(((w | l) & ok) as u64) {
                                let fox = 1u64 << view.points[i as usize];
                                let p = self.child_plies(c, &rank, fox, Side::Fox);
                                scratch.plies.child(SHEEP, 0, i as usize, l & (1 << i) != 0, p);
                            }
                        }
                    }
                    keep @ Target::NoTable => {
                        for i in BitIter(ok as u64) {
                            let fox = 1u64 << view.points[i as usize];
                            let value = self.outside_value(&keep, moved, fox, Side::Fox)?;
                            if plies && value != Value::Draw {
                                scratch.plies.child(SHEEP, 0, i as usize, value == Value::Loss, 0);
                            }
                            match value {
                                Value::Loss => s[win_plane] |= 1 << i,
                                Value::Draw => s[CANNOT_LOSE] |= 1 << i,
                                Value::Win => {}
                            }
                        }
                    }
                }
            }
        }
        if plies {
            // No legal sheep move: lost now, 0 plies.
            s[LOST] |= full & !has_move;
        }
        Ok(())
    }

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
