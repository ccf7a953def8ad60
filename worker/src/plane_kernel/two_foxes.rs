//! The passes over a block of a two-fox tier: its part of the initial
//! pass ([`TwoFoxes`]), the fox phase, the sideways steps the initial pass
//! records and the sheep phase.

use super::*;

impl Placements for TwoFoxes {
    const FOXES: u32 = 2;
    type Marks = Rows;
    const NONE: Rows = [0; 32];

    #[inline]
    fn clear(planes: &mut [u32]) {
        planes.fill(0);
    }

    #[inline]
    fn all_lost(planes: &mut [u32], n: usize) {
        let full = row_mask(n);
        for i in 0..n {
            planes[LOST * n + i] = full & !(1 << i);
        }
    }

    /// The other fox must not stand on the jumping fox's only landing
    /// point, as the general path ([`TwoFoxes::captures`]) would find one
    /// jump at a time.
    #[inline]
    fn captures_win_at_once<const BMI2: bool>(ctx: &Ctx, view: &SetView, f: &mut [u32]) {
        let n = ctx.n;
        let full = row_mask(n);
        let mut x_won = [0u32; 32];
        for (ia, &a) in view.points[..n].iter().enumerate() {
            let landings = ctx.jump_masks.landings::<BMI2>(a, view.sheep, view.free);
            if landings != 0 {
                let mut row = full & !(1 << ia);
                if landings.count_ones() == 1 {
                    row &= !(1 << view.index_of(landings.trailing_zeros() as u8));
                }
                x_won[ia] = row;
            }
        }
        let mut won_t = x_won;
        transpose32(&mut won_t);
        for i in 0..n {
            let won = x_won[i] | won_t[i];
            f[WON * n + i] = won;
            f[CANNOT_LOSE * n + i] = won;
        }
    }

    #[inline]
    fn captures<const BMI2: bool>(
        ctx: &Ctx,
        view: &SetView,
        f: &mut [u32],
        scratch: &mut Scratch,
        _win_plane: usize,
    ) -> Result<(), KernelError> {
        let n = ctx.n;
        let full = row_mask(n);
        let plies = ctx.plies;
        let (mut x_won, mut x_open) = ([0u32; 32], [0u32; 32]);
        let (mut won, mut lost) = ([0u32; 32], [0u32; 32]);
        for o in BitIter(view.sheep) {
            let Some((jumps, target)) = ctx.captures_over(view, o, 2)? else { continue };
            // A set that is its own mirror image is decoded whole (its
            // mirror images' slots are filled from the stored ones); any
            // other has the rows of the jumps' landings read alone.
            if let Target::Child(c, rank) = target {
                if rank.symmetric {
                    let child = &ctx.children[c];
                    decode_child::<BMI2>(child.values, rank.base, n + 1, 1, true, rank.free, &mut won, &mut lost);
                }
            }
            let map = match target {
                Target::Child(_, rank) => {
                    if rank.mirrored {
                        scratch.mirror.set_free(view.free);
                    }
                    Some(ColumnMap::new(rank.free, rank.mirrored, view.free))
                }
                _ => None,
            };
            for &(a, t) in jumps {
                if !view.both_free(a, t) {
                    continue;
                }
                let (ia, it) = (view.index_of(a), view.index_of(t));
                let ok = full & !(1 << ia) & !(1 << it);
                match target {
                    Target::Child(c, rank) => {
                        let map = map.as_ref().expect("a child's map");
                        let (row_won, row_lost) = if rank.symmetric {
                            (map.row(&won, t, &scratch.mirror), map.row(&lost, t, &scratch.mirror))
                        } else {
                            let (w, l) =
                                decode_child_row::<BMI2>(ctx.children[c].values, rank.base, n + 1, 1, map.child_row(t));
                            (map.apply(w, &scratch.mirror), map.apply(l, &scratch.mirror))
                        };
                        x_won[ia] |= row_lost & ok;
                        x_open[ia] |= !row_won & ok;
                        if plies && ctx.to_zeroing {
                            scratch.plies.zeroing_children(FOX, ia, row_lost & ok, row_won & ok);
                        } else if plies {
                            for j in BitIter((ok & (row_won | row_lost)) as u64) {
                                let foxes = (1u64 << t) | (1u64 << view.points[j as usize]);
                                let p = ctx.child_plies(c, &rank, foxes, Side::Sheep);
                                scratch.plies.child(FOX, ia, j as usize, row_lost & (1 << j) != 0, p);
                            }
                        }
                    }
                    // The sheep to move there have lost (`captures_over`).
                    Target::NoTable if ctx.capture_out_wins => {
                        x_won[ia] |= ok;
                        x_open[ia] |= ok;
                        if plies {
                            for j in BitIter(ok as u64) {
                                scratch.plies.child(FOX, ia, j as usize, true, 0);
                            }
                        }
                    }
                    // The sheep to move there have won: a child lost for the fox.
                    Target::NoTable => {
                        if plies {
                            for j in BitIter(ok as u64) {
                                scratch.plies.child(FOX, ia, j as usize, false, 0);
                            }
                        }
                    }
                    Target::InTier(_) => unreachable!("a capture leaves the tier"),
                }
            }
        }
        // The other fox's captures: the transpose.
        let (mut won_t, mut open_t) = (x_won, x_open);
        transpose_pair(&mut won_t, &mut open_t, n);
        for (plane, x, t) in [(WON, x_won, won_t), (CANNOT_LOSE, x_open, open_t)] {
            if plies && plane == WON {
                continue;
            }
            for i in 0..n {
                f[plane * n + i] = x[i] | t[i];
            }
        }
        if plies {
            // Likewise: a capture by the other fox was recorded the other way round.
            let ply = &mut scratch.plies;
            ply.symmetric_zeroing(FOX, n);
            for i in (0..n).filter(|_| !ctx.to_zeroing) {
                for j in 0..i {
                    let (a, b) = (ply.win_at[FOX][i][j], ply.win_at[FOX][j][i]);
                    let w = if a == 0 || (b != 0 && b < a) { b } else { a };
                    let fl = ply.floor[FOX][i][j].max(ply.floor[FOX][j][i]);
                    (ply.win_at[FOX][i][j], ply.win_at[FOX][j][i]) = (w, w);
                    (ply.floor[FOX][i][j], ply.floor[FOX][j][i]) = (fl, fl);
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn step_is_legal(has_move: &mut Rows, kt: usize, n: usize) {
        let full = row_mask(n);
        for (i, m) in has_move.iter_mut().enumerate().take(n) {
            if i != kt {
                *m |= full & !(1 << i) & !(1 << kt);
            }
        }
    }

    #[inline]
    fn no_move_lost(s: &mut [u32], has_move: &Rows, n: usize) {
        let full = row_mask(n);
        for (i, m) in has_move.iter().enumerate().take(n) {
            s[LOST * n + i] |= full & !(1 << i) & !m;
        }
    }

    #[inline]
    fn trapped<const BMI2: bool>(
        ctx: &Ctx,
        view: &SetView,
        step: (u8, u8),
        keep: &Target,
        s: &mut [u32],
        scratch: &mut Scratch,
        _win_plane: usize,
    ) -> Result<Rows, KernelError> {
        let mut trap_rows = [0u32; 32];
        ctx.trapped_children::<BMI2>(view, step, keep, &mut trap_rows, s, scratch)?;
        Ok(trap_rows)
    }

    #[inline]
    fn step_into_child<const BMI2: bool>(
        ctx: &Ctx,
        view: &SetView,
        kt: usize,
        (c, rank): (usize, &SetRank),
        moved: Bits,
        trap_rows: &Rows,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) {
        let (mut won, mut lost) = ([0u32; 32], [0u32; 32]);
        let child = &ctx.children[c];
        let cn = 33 - moved.count_ones() as usize;
        decode_child::<BMI2>(child.values, rank.base, cn, 0, rank.symmetric, rank.free, &mut won, &mut lost);
        let rows = (&won[..], &lost[..]);
        TwoFoxes::child_rows::<BMI2, u32>(ctx, view, kt, (Some(c), rank), rows, trap_rows, s, scratch, win_plane);
    }

    #[inline(always)]
    fn child_rows<const BMI2: bool, R: Copy + Into<u32>>(
        ctx: &Ctx,
        view: &SetView,
        kt: usize,
        (child, rank): (Option<usize>, &SetRank),
        (won, lost): (&[R], &[R]),
        trap_rows: &Rows,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) {
        let n = ctx.n;
        let full = row_mask(n);
        if rank.mirrored {
            scratch.mirror.set_free(view.free);
        }
        let map = ColumnMap::new(rank.free, rank.mirrored, view.free);
        for i in 0..n {
            if i == kt {
                continue;
            }
            let p = view.points[i];
            let ok = full & !(1 << i) & !(1 << kt) & !trap_rows[i];
            let row_won = map.row(won, p, &scratch.mirror);
            let row_lost = map.row(lost, p, &scratch.mirror);
            s[win_plane * n + i] |= row_lost & ok;
            s[CANNOT_LOSE * n + i] |= !row_won & ok;
            if ctx.plies && ctx.to_zeroing {
                scratch.plies.zeroing_children(SHEEP, i, row_lost & ok, row_won & ok);
            } else if ctx.plies {
                let c = child.expect("plies to the end are read from the child table");
                for j in BitIter((ok & (row_won | row_lost)) as u64) {
                    let foxes = (1u64 << p) | (1u64 << view.points[j as usize]);
                    let q = ctx.child_plies(c, rank, foxes, Side::Fox);
                    scratch.plies.child(SHEEP, i, j as usize, row_lost & (1 << j) != 0, q);
                }
            }
        }
    }

    #[inline]
    fn sideways_rows(ctx: &Ctx, kt: usize, lost: &[u16], drawn: &[u16], s: &mut [u32]) {
        let n = ctx.n;
        let others = row_mask(n) & !(1 << kt);
        for i in 0..n {
            let ok = others & !(1 << i) & (((i != kt) as u32).wrapping_neg());
            s[WON * n + i] |= lost[i] as u32 & ok;
            s[CANNOT_LOSE * n + i] |= drawn[i] as u32 & ok;
        }
    }

    #[inline]
    fn step_out(
        ctx: &Ctx,
        view: &SetView,
        kt: usize,
        keep: &Target,
        moved: Bits,
        trap_rows: &Rows,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) -> Result<(), KernelError> {
        for i in 0..ctx.n {
            for j in 0..i {
                if i == kt || j == kt || trap_rows[i] & (1 << j) != 0 {
                    continue;
                }
                let foxes = (1u64 << view.points[i]) | (1u64 << view.points[j]);
                let value = ctx.outside_value(keep, moved, foxes, Side::Fox)?;
                if ctx.plies && value != Value::Draw {
                    scratch.plies.child(SHEEP, i, j, value == Value::Loss, 0);
                    scratch.plies.child(SHEEP, j, i, value == Value::Loss, 0);
                }
                let plane = match value {
                    Value::Loss => win_plane,
                    Value::Draw => CANNOT_LOSE,
                    Value::Win => continue,
                };
                s[plane * ctx.n + i] |= 1 << j;
                s[plane * ctx.n + j] |= 1 << i;
            }
        }
        Ok(())
    }
}

impl<'a> Ctx<'a> {
    /// The fox phase for one block: fox steps into the block's own sheep
    /// planes. Returns whether the fox planes changed.
    pub(super) fn fox_phase(&self, view: &SetView, f: &mut [u32], s: &[u32]) -> bool {
        let n = self.n;
        if (view.sheep & PEN).count_ones() >= self.game.rules.pen_target {
            return false; // every fox-to-move position is over, decided at the start
        }
        let board = self.game.rules.board;
        let full = row_mask(n);
        // steps_to_lost[i]: placements where the fox on point i can step
        // to a position lost for the sheep; steps_all_won[i]: where every
        // step of that fox leads to a position won for the sheep.
        let (mut steps_to_lost, mut steps_all_won) = ([0u32; 32], [0u32; 32]);
        for i in 0..n {
            let (mut any_lost, mut all_won) = (0u32, full);
            for q in BitIter(board.neighbours[view.points[i] as usize] & view.free) {
                let j = view.index_of(q);
                any_lost |= s[LOST * n + j];
                // A step onto the other fox is no move.
                all_won &= s[WON * n + j] | (1 << j);
            }
            steps_to_lost[i] = any_lost;
            steps_all_won[i] = all_won;
        }
        let (mut other_lost, mut other_won) = (steps_to_lost, steps_all_won);
        transpose_pair(&mut other_lost, &mut other_won, n);
        let mut changed = false;
        for i in 0..n {
            let valid = full & !(1 << i);
            let won = f[WON * n + i] | ((steps_to_lost[i] | other_lost[i]) & valid);
            let lost = f[LOST * n + i] | (steps_all_won[i] & other_won[i] & !f[CANNOT_LOSE * n + i] & !won & valid);
            changed |= won != f[WON * n + i] || lost != f[LOST * n + i];
            f[WON * n + i] = won;
            f[LOST * n + i] = lost;
        }
        changed
    }

    /// Records the sideways sheep step to `to` (into the set `rank`) in
    /// `out`, with the placements in which it traps a fox (`traps`, from
    /// [`Ctx::trapped_rows`]) in the coordinates the child is read in.
    pub(super) fn record_sideways(
        &self,
        view: &SetView,
        to: u8,
        rank: &SetRank,
        traps: Option<&Traps>,
        out: &mut Sideways,
    ) {
        // The child is read in this set's coordinates, or (stored mirrored)
        // in those of this set's mirror image; see `sheep_phase`.
        let mirror_free = mirror_bits(view.free);
        let (free, to_there) = if rank.mirrored { (mirror_free, mirror_point(to)) } else { (view.free, to) };
        let index_of = |p: u8| (free & ((1u64 << p) - 1)).count_ones() as usize;
        let at = out.traps.len();
        let mut anywhere = 0u32;
        if let Some(Traps { mine, .. }) = traps {
            let reading_index = |i: usize| {
                let p = view.points[i];
                if rank.mirrored {
                    index_of(mirror_point(p)) as u8
                } else {
                    i as u8
                }
            };
            if self.one_fox {
                for i in BitIter(mine[0] as u64) {
                    anywhere |= 1 << reading_index(i as usize);
                }
            } else {
                // Row `i` of `mine`: every other point (no move left) or the one partner.
                for (i, &row) in mine[..self.n].iter().enumerate() {
                    if row.count_ones() == 1 {
                        out.traps.push((reading_index(i), reading_index(row.trailing_zeros() as usize)));
                    } else if row != 0 {
                        anywhere |= 1 << reading_index(i);
                    }
                }
            }
        }
        out.steps.push(SidewaysStep {
            child: rank.set as u32,
            anywhere,
            traps: at as u32,
            trap_count: (out.traps.len() - at) as u8,
            kt: index_of(to_there) as u8,
            mirrored: rank.mirrored,
        });
    }

    /// The sheep phase for one block: its sideways sheep steps (`steps`,
    /// of `sideways`, from the initial pass) into the
    /// fox planes of blocks of this tier (`fox_planes`). Returns whether
    /// the sheep planes changed.
    ///
    /// A sideways step moves a sheep to the next point of its rank, so the
    /// free points of the parent and of the child agree but for `to` there
    /// and `from` here, which have the same index: the child's rows are
    /// used as they are, but for that index (a fox on `to` blocks the
    /// step). For a child stored mirrored this holds in the coordinates of
    /// this set's mirror image, which the same step, mirrored, turns into
    /// the stored set: those contributions are gathered there and mirrored
    /// back once.
    #[inline(never)]
    pub(super) fn sheep_phase<const BMI2: bool, F: FoxPlanes>(
        &self,
        sheep: Bits,
        s: &mut [u32],
        fox_planes: &F,
        steps: &[SidewaysStep],
        sideways: &Sideways,
        mirror: &mut MirrorTable,
    ) -> bool {
        let (n, rows) = (self.n, self.rows);
        // The block's sheep set alone: a phase needs no [`SetView`] here.
        let free = ALL_POINTS & !sheep;
        if sheep.count_ones() < self.game.rules.pen_target {
            return false; // over, decided at the start
        }
        let full = row_mask(n);
        // The placements of row `i` (two foxes: the other fox is not on `i` too).
        let valid = |i: usize| if self.one_fox { full } else { full & !(1 << i) };
        // What this phase can still decide: a win where undecided, a loss
        // where also no move leaves the tier to a draw or a win.
        let (mut open_win, mut open_loss) = (0u32, 0u32);
        for i in 0..rows {
            let undecided = valid(i) & !s[WON * rows + i] & !s[LOST * rows + i];
            open_win |= undecided;
            open_loss |= undecided & !s[CANNOT_LOSE * rows + i];
        }
        if open_win == 0 {
            return false;
        }
        // The rows a step reads: with two foxes not the row of a fox on
        // `to` (with one fox the blocked bit does it).
        let all_rows = row_mask(rows);
        let rows_read = |kt: usize| if self.one_fox { all_rows } else { all_rows & !(1 << kt) };
        let (mut any_lost, mut all_won) = ([0u32; 32], [full; 32]);
        let (mut any_lost_m, mut all_won_m) = ([0u32; 32], [full; 32]);
        let mut any_mirrored = false;
        for step in steps {
            let (lost_acc, won_acc) =
                if step.mirrored { (&mut any_lost_m, &mut all_won_m) } else { (&mut any_lost, &mut all_won) };
            any_mirrored |= step.mirrored;
            let kt = step.kt as usize;
            let (blocked, read) = (1u32 << kt, rows_read(kt));
            // Rows not read are masked rather than skipped: no branch per
            // row (and a mask from a table of bits, not a shift by the row's
            // number, which SSE has no instruction for).
            let row_in = |read: u32, i: usize| (((read & BIT[i]) != 0) as u32).wrapping_neg();
            if let Some(line) = fox_planes.line(step.child as usize) {
                // The child's trapped foxes are out of its line already.
                let (child_won, child_lost) = line.planes(rows);
                for i in 0..rows {
                    lost_acc[i] |= child_lost[i] as u32 & !blocked & row_in(read, i);
                    won_acc[i] &= child_won[i] as u32 | blocked | !row_in(read, i);
                }
                continue;
            }
            let planes = fox_planes.block(step.child as usize);
            let (child_won, child_lost) = (&planes[WON * rows..][..rows], &planes[LOST * rows..][..rows]);
            if let Some(traps) = &self.block_traps {
                // The child's placements with a trapped fox are elsewhere
                // (valued by the initial pass): they drop out.
                let trapped = traps.trapped(step.child as usize);
                for i in 0..rows {
                    let trapped = trapped[i] as u32;
                    lost_acc[i] |= child_lost[i] & !blocked & !trapped & row_in(read, i);
                    won_acc[i] &= child_won[i] | blocked | trapped | !row_in(read, i);
                }
            } else if step.trap_count == 0 && step.anywhere == 0 {
                for i in 0..rows {
                    lost_acc[i] |= child_lost[i] & !blocked & row_in(read, i);
                    won_acc[i] &= child_won[i] | blocked | !row_in(read, i);
                }
            } else {
                // Where the step traps a fox its child is elsewhere (valued
                // by the initial pass): a fox trapped whatever its partner is
                // drops out like a fox on `to` (its column, and with two
                // foxes its row).
                let mut pairs = [0u32; 32];
                sideways.trap_pairs(step, &mut pairs);
                let anywhere = step.anywhere;
                let read = if self.one_fox { read } else { read & !anywhere };
                let out = blocked | anywhere;
                for i in 0..rows {
                    lost_acc[i] |= child_lost[i] & !out & !pairs[i] & row_in(read, i);
                    won_acc[i] &= child_won[i] | out | pairs[i] | !row_in(read, i);
                }
            }
        }
        if any_mirrored {
            mirror.set_free(free);
            if self.one_fox {
                any_lost[0] |= mirror.apply(any_lost_m[0]);
                all_won[0] &= mirror.apply(all_won_m[0]);
            } else {
                // Row `i` of the mirror image is the fox on the mirror of its point.
                for (j, q) in BitIter(mirror_bits(free)).enumerate() {
                    let i = (free & ((1u64 << mirror_point(q)) - 1)).count_ones() as usize;
                    any_lost[i] |= mirror.apply(any_lost_m[j]);
                    all_won[i] &= mirror.apply(all_won_m[j]);
                }
            }
        }
        let mut changed = false;
        for i in 0..rows {
            let w = s[WON * rows + i] | (any_lost[i] & valid(i));
            changed |= w != s[WON * rows + i];
            s[WON * rows + i] = w;
            if open_loss != 0 {
                let l = s[LOST * rows + i] | (all_won[i] & !s[CANNOT_LOSE * rows + i] & !w & valid(i));
                changed |= l != s[LOST * rows + i];
                s[LOST * rows + i] = l;
            }
        }
        changed
    }
}
