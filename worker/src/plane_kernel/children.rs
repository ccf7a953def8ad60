//! What the moves that leave a block lead to: where a child position is
//! (in the tier, a child tier, no table), the foxes a sheep step traps,
//! captures, and the values and plies read from children.

use super::*;

impl<'a> Ctx<'a> {
    /// Where the positions with sheep `sheep` and `foxes` foxes are, after
    /// a move that took a sheep from `lost` and put one on `gained` (a
    /// sheep step) or none (a capture). `Target::among` says the same
    /// (a test checks they agree), from the set alone.
    #[inline]
    pub(super) fn target(&self, sheep: Bits, foxes: u32, lost: u8, gained: Option<u8>) -> Target {
        let ranks = &self.places.rank_of;
        let gained = gained.map_or(7, |p| ranks[p as usize] as usize);
        let fewer = (self.tier.foxes() - foxes) as usize;
        match self.places.by_change[fewer][ranks[lost as usize] as usize][gained] {
            Place::InTier => Target::InTier(self.index.set_rank(sheep)),
            Place::Child(c) => Target::Child(c, self.children[c].index.set_rank(sheep)),
            Place::NoTable => Target::NoTable,
        }
    }

    /// Asks for the cache line a sheep step into `target` reads when its
    /// trapped foxes are found once per set ([`ChildPlanes`](super::child_planes::ChildPlanes), [`BlockTraps`]).
    #[inline(always)]
    pub(super) fn prefetch_target(&self, target: &Target) {
        match *target {
            Target::Child(c, rank) => {
                if let Some(Some(planes)) = self.child_planes.get(c) {
                    planes.prefetch(rank.set);
                }
            }
            Target::InTier(rank) => {
                if let Some(traps) = &self.block_traps {
                    traps.prefetch(rank.set as usize, rank.mirrored);
                }
            }
            Target::NoTable => {}
        }
    }

    /// [`Ctx::target`] of the child of the sheep step `from` -> `to` (to
    /// the sheep `moved`) with one fox fewer, given `keep`, the target of
    /// the same step with every fox. The two tiers hold the same sheep per
    /// rank, so a sheep set ranks alike in both but for the factor of their
    /// fox slots: `keep`'s rank, scaled, instead of ranking the set again.
    #[inline]
    pub(super) fn fewer_target(&self, keep: &Target, moved: Bits, (from, to): (u8, u8)) -> Target {
        let ranks = &self.places.rank_of;
        match self.places.by_change[1][ranks[from as usize] as usize][ranks[to as usize] as usize] {
            Place::Child(c) => {
                let index = &self.children[c].index;
                let rank = match *keep {
                    Target::InTier(rank) | Target::Child(_, rank) => {
                        SetRank { base: rank.set * (index.fox_slots * 2), ..rank }
                    }
                    Target::NoTable => index.set_rank(moved),
                };
                debug_assert_eq!(rank, index.set_rank(moved), "sets rank alike in tiers of the same sheep");
                Target::Child(c, rank)
            }
            Place::NoTable => Target::NoTable,
            Place::InTier => unreachable!("a removed fox leaves the tier"),
        }
    }

    /// The foxes the sheep step `from` -> `to` traps (it leaves the sheep
    /// `moved`, the pen not filled), as matrices over the parent's free
    /// points: `traps.mine` row `i` holds the columns `j` such that a fox on
    /// the `i`-th free point is trapped when the other fox stands on the
    /// `j`-th (every other point when it has no step and no jump at all; the
    /// one point it could move to when that is the only one), and
    /// [`Traps::theirs`] its transpose (row `i`: the `j` whose fox is
    /// trapped with the other on `i`). With one fox, `mine[0]` holds the
    /// trapped points. Returns whether any fox is trapped.
    ///
    /// A fox on `a` with the other on `b` is trapped exactly when its
    /// options in `moved` with no other fox (free neighbours and jump
    /// landings) are at most `b`: the other fox fills `b` and is no sheep to
    /// jump. Only a fox on one of [`Cramped::candidates`] can be trapped by the step.
    pub(super) fn trapped_rows(
        &self,
        view: &SetView,
        cramped: &Cramped,
        moved: Bits,
        (from, to): (u8, u8),
        traps: &mut Traps,
    ) -> bool {
        let board = self.game.rules.board;
        let free_after = ALL_POINTS & !moved;
        let fox_points = view.free & !(1u64 << to);
        let everyone = row_mask(self.n) & !(1u32 << view.index_of(to));
        let Traps { mine, theirs, anywhere, rows } = traps;
        // Cleared at the first trapped fox: the rows are read only when one is.
        let mut any = false;
        // A lone fox is trapped with no option at all; one of two foxes
        // with at most one (the other fox's point).
        let most = cramped.most;
        for a in BitIter(cramped.candidates(self.game, from, to)) {
            let mut options = board.neighbours[a as usize] & free_after;
            debug_assert!(options.count_ones() <= most, "a candidate has at most `most` free neighbours");
            options |= cramped.landings_after(&self.jump_masks, a, moved, free_after, (from, to));
            if options.count_ones() > most {
                continue;
            }
            let ia = view.index_of(a);
            let trapped = options == 0 || (!self.one_fox && options & fox_points != 0);
            if trapped && !any {
                // Whole arrays: a fill of a constant length is a few stores,
                // one of `rows` a call to memset.
                if self.one_fox {
                    mine[0] = 0;
                } else {
                    *mine = [0; 32];
                    *theirs = [0; 32];
                    *anywhere = 0;
                    *rows = everyone;
                }
            }
            if options == 0 {
                if self.one_fox {
                    mine[0] |= 1 << ia;
                } else {
                    mine[ia] = everyone & !(1 << ia);
                    *anywhere |= 1 << ia;
                }
                any = true;
            } else if !self.one_fox && options & fox_points != 0 {
                let ib = view.index_of(options.trailing_zeros() as u8);
                mine[ia] = 1 << ib;
                theirs[ib] |= 1 << ia;
                any = true;
            }
        }
        any
    }

    /// The won and lost rows, in the parent's columns, of the fox-to-move
    /// positions with one fox and the sheep `moved` (where a sheep step of
    /// a two-fox block that traps one fox leads).
    pub(super) fn fewer_row<const BMI2: bool>(
        &self,
        target: &Target,
        view: &SetView,
        moved: Bits,
        mirror: &mut MirrorTable,
    ) -> Result<(u32, u32), KernelError> {
        match *target {
            Target::Child(c, rank) => {
                let (w, l) =
                    decode_child_one::<BMI2>(self.children[c].values, rank.base, self.n, 0, rank.symmetric, rank.free);
                if rank.mirrored {
                    mirror.set_free(view.free);
                }
                let map = ColumnMap::new(rank.free, rank.mirrored, view.free);
                Ok((map.apply(w, mirror), map.apply(l, mirror)))
            }
            Target::NoTable => {
                let (mut w, mut l) = (0u32, 0u32);
                for (i, &p) in view.points[..self.n].iter().enumerate() {
                    if moved & (1 << p) != 0 {
                        continue;
                    }
                    match self.outside_value(target, moved, 1u64 << p, Side::Fox)? {
                        Value::Win => w |= 1 << i,
                        Value::Loss => l |= 1 << i,
                        Value::Draw => {}
                    }
                }
                Ok((w, l))
            }
            Target::InTier(_) => unreachable!("a removed fox leaves the tier"),
        }
    }

    /// The sheep-to-move placements of a two-fox block whose step (`step`:
    /// from, to; `keep`: its target with both foxes) traps a fox
    /// ([`Ctx::trapped_rows`], in `scratch.trapped`):
    /// marks them in `trap_rows` (their child is not the step's own block)
    /// and sets their planes in `s` from the child with the foxes left: none
    /// (the sheep have won), or one, whose row is read once for the step.
    #[inline(never)]
    pub(super) fn trapped_children<const BMI2: bool>(
        &self,
        view: &SetView,
        step: (u8, u8),
        keep: &Target,
        trap_rows: &mut Rows,
        s: &mut [u32],
        scratch: &mut Scratch,
    ) -> Result<(), KernelError> {
        let n = self.n;
        let moved = view.sheep ^ (1 << step.0) ^ (1 << step.1);
        let win_plane = if self.plies { CANNOT_LOSE } else { WON };
        let fewer = self.fewer_target(keep, moved, step);
        let (child_won, child_lost) = self.fewer_row::<BMI2>(&fewer, view, moved, &mut scratch.mirror)?;
        let child_drawn = !(child_won | child_lost);
        // Row i, bit j: the fox on i is trapped (`mine`), the fox on j is (`theirs`).
        let traps = &scratch.traps;
        // Row i: the placements with a trapped fox, those of them where both
        // are trapped and where only the fox on i is, and which of them are
        // lost and drawn for the foxes. Only the fox on i trapped leaves the
        // one on j, and the other way round.
        let outcome = |i: usize| {
            let (mine, theirs) = (traps.mine[i], traps.theirs(i));
            let (both, left_j, left_i) = (mine & theirs, mine & !theirs, theirs & !mine);
            let at_i = |row: u32| left_i & (((row & BIT[i]) != 0) as u32).wrapping_neg();
            let lost = both | (left_j & child_lost) | at_i(child_lost);
            let drawn = (left_j & child_drawn) | at_i(child_drawn);
            (mine | theirs, both, left_j, lost, drawn)
        };
        // Every row, without a branch (a row with no trapped fox adds nothing), so it vectorises.
        for i in 0..n {
            let (pairs, _, _, lost, drawn) = outcome(i);
            trap_rows[i] = pairs;
            s[win_plane * n + i] |= lost;
            s[CANNOT_LOSE * n + i] |= drawn;
        }
        if !self.plies {
            return Ok(());
        }
        for i in 0..n {
            let (pairs, both, left_j, lost, drawn) = outcome(i);
            if pairs == 0 {
                continue;
            }
            if self.to_zeroing {
                scratch.plies.zeroing_children(SHEEP, i, pairs & !drawn & lost, pairs & !drawn & !lost);
                continue;
            }
            for j in BitIter((pairs & !drawn) as u64) {
                let j = j as usize;
                let p = if both >> j & 1 != 0 {
                    0
                } else {
                    let left = if left_j >> j & 1 != 0 { j } else { i };
                    self.outside_plies(&fewer, 1u64 << view.points[left], Side::Fox)
                };
                scratch.plies.child(SHEEP, i, j, lost >> j & 1 != 0, p);
            }
        }
        Ok(())
    }

    /// The captures over the sheep on `o` with `foxes` foxes: the board's
    /// jumps over it (those whose from and landing points are both free
    /// apply) and where the children are. `None` when no
    /// jump applies. A capture into a tier without a table must leave fewer
    /// than K sheep, or than the floor F: the game is over, won by the fox
    /// or, below a floor the sheep win, by the sheep (`capture_out_wins`).
    pub(super) fn captures_over(
        &self,
        view: &SetView,
        o: u8,
        foxes: u32,
    ) -> Result<Option<(Jumps<'_>, Target)>, KernelError> {
        let jumps = self.jumps_over.over(o);
        if !jumps.iter().any(|&(a, t)| view.both_free(a, t)) {
            return Ok(None);
        }
        let after = view.sheep ^ (1 << o);
        let target = self.target(after, foxes, o, None);
        if matches!(target, Target::NoTable) && self.game.rules.too_few_sheep(after.count_ones()).is_none() {
            return Err(KernelError::Inconsistent(format!(
                "a capture from tier {} leads to a tier without a table that is not over",
                self.tier.name()
            )));
        }
        Ok(Some((jumps, target)))
    }

    /// The value of a child outside the tier (`Target::Child` or `Target::NoTable`).
    pub(super) fn outside_value(
        &self,
        target: &Target,
        sheep: Bits,
        foxes: Bits,
        side: Side,
    ) -> Result<Value, KernelError> {
        match *target {
            Target::Child(k, rank) => {
                let i = rank.slot(foxes, side);
                self.children[k].values.value(i).ok_or_else(|| {
                    KernelError::Inconsistent(format!(
                        "child tier {} has an unused slot at {i}, where {:?} belongs",
                        self.children[k].tier.name(),
                        Position::from_parts_unchecked(sheep, foxes, side)
                    ))
                })
            }
            Target::NoTable => {
                let child = Position::from_parts_unchecked(sheep, foxes, side);
                self.game.primitive(&child).ok_or_else(|| {
                    KernelError::Inconsistent(format!(
                        "child {child:?} is in tier {}, which is not loaded (missing from child_tiers?)",
                        self.game.tier_of(&child).name()
                    ))
                })
            }
            Target::InTier(_) => unreachable!("in-tier children are propagated, not looked up"),
        }
    }

    /// The plies of the position with `foxes` and `side` to move in child
    /// table `c` at `rank`, as this tier counts them: 0 with DTZ (the move
    /// there is zeroing; a won child's loss floor of 1 waits for the next
    /// even ply as every loss does here, which is the parity rule of
    /// [`Distance::zeroing_child_plies`]).
    #[inline]
    pub(super) fn child_plies(&self, c: usize, rank: &SetRank, foxes: Bits, side: Side) -> u32 {
        if self.to_zeroing {
            return 0;
        }
        let plies = self.children[c].plies.expect("a solve with plies has its children's plies");
        plies.get(rank.slot(foxes, side)) as u32
    }

    /// The plies of a child outside the tier: from its table, or 0 for a
    /// position that is over (a tier without a table) and with DTZ.
    pub(super) fn outside_plies(&self, target: &Target, foxes: Bits, side: Side) -> u32 {
        match target {
            Target::Child(c, rank) => self.child_plies(*c, rank, foxes, side),
            _ => 0,
        }
    }
}
