//! The initial pass over a block, written once for one and two foxes:
//! the children outside the tier, game over, and the sideways sheep steps
//! the phases take from here. What depends on the placements' shape (a
//! plane is one row with one fox, `n` rows with two) is a [`Placements`]
//! type's: the captures, and where a sheep step leads for each placement.

use super::*;

/// How a block's placements of the foxes lie in its planes, and what the
/// initial pass does per placement: [`OneFox`] (a plane is one row, bit
/// `i` the fox on the `i`-th free point) or [`TwoFoxes`] (row `i`, bit
/// `j`: the foxes on the `i`-th and `j`-th free points, both halves).
/// Monomorphised into [`Ctx::init_block`]: the hooks inline.
pub(super) trait Placements {
    /// Foxes on the board.
    const FOXES: u32;

    /// A set of a block's placements: a `u32` with one fox (bit `i`),
    /// [`Rows`] with two (row `i`, bit `j`).
    type Marks: Copy;

    /// The empty set.
    const NONE: Self::Marks;

    /// Clears one side's planes.
    fn clear(planes: &mut [u32]);

    /// Marks every placement of one side's planes lost (a filled pen with
    /// the foxes to move, too few sheep with the sheep to move).
    fn all_lost(planes: &mut [u32], n: usize);

    /// The fox-to-move captures of a block whose every capture wins at
    /// once (`Ctx::captures_win_at_once`, values only): a fox with a jump has won.
    fn captures_win_at_once<const BMI2: bool>(ctx: &Ctx, view: &SetView, f: &mut [u32]);

    /// The fox-to-move captures into `f`, with plies into `scratch.plies`.
    fn captures<const BMI2: bool>(
        ctx: &Ctx,
        view: &SetView,
        f: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) -> Result<(), KernelError>;

    /// Adds to `has_move` the placements in which a sheep step to the
    /// free point of index `kt` is legal (no fox on it).
    fn step_is_legal(has_move: &mut Self::Marks, kt: usize, n: usize);

    /// Marks lost, in `s`, the placements with no legal sheep move
    /// (`has_move` holds those with one).
    fn no_move_lost(s: &mut [u32], has_move: &Self::Marks, n: usize);

    /// A sheep step (`step`: from, to; `keep`: its target with every fox)
    /// that traps a fox ([`Ctx::trapped_rows`], in `scratch.traps`): sets
    /// the planes of the placements it traps a fox in, from the child with
    /// the foxes left, and returns them (their child is not `keep`).
    fn trapped<const BMI2: bool>(
        ctx: &Ctx,
        view: &SetView,
        step: (u8, u8),
        keep: &Target,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) -> Result<Self::Marks, KernelError>;

    /// A sheep step to the free point of index `kt` into the child table
    /// `c` at `rank`, for every placement but those `trapped`.
    #[allow(clippy::too_many_arguments)]
    fn step_into_child<const BMI2: bool>(
        ctx: &Ctx,
        view: &SetView,
        kt: usize,
        child: (usize, &SetRank),
        moved: Bits,
        trapped: &Self::Marks,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    );

    /// The fox-to-move rows of a sheep step's child block (`won`, `lost`:
    /// 32- or 16-bit rows, in the coordinates of the child set at `rank`)
    /// into the sheep planes `s`, but for the placements `trapped` (valued
    /// apart) and those with a fox on the step's `to` (index `kt`); with
    /// plies, the children's (to the end: from child table `child`, which
    /// rows from [`ChildPlanes`](super::child_planes::ChildPlanes) never need: their solve has no plies to
    /// the end).
    #[allow(clippy::too_many_arguments)]
    fn child_rows<const BMI2: bool, R: Copy + Into<u32>>(
        ctx: &Ctx,
        view: &SetView,
        kt: usize,
        child: (Option<usize>, &SetRank),
        won_lost: (&[R], &[R]),
        trapped: &Self::Marks,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    );

    /// A sideways sheep step to the free point of index `kt`, from
    /// [`BlockTraps::lost_drawn`] of the block it leads to (rows as this
    /// block's, see [`BlockTraps`]): where a trapped fox leaves a position
    /// lost for the foxes (`lost`) or drawn (`drawn`); values only.
    fn sideways_rows(ctx: &Ctx, kt: usize, lost: &[u16], drawn: &[u16], s: &mut [u32]);

    /// A sheep step to the free point of index `kt` into a tier without
    /// a table (`keep`): every such position is over, valued alone.
    #[allow(clippy::too_many_arguments)]
    fn step_out(
        ctx: &Ctx,
        view: &SetView,
        kt: usize,
        keep: &Target,
        moved: Bits,
        trapped: &Self::Marks,
        s: &mut [u32],
        scratch: &mut Scratch,
        win_plane: usize,
    ) -> Result<(), KernelError>;
}

/// A tier with one fox.
pub(super) struct OneFox;

/// A tier with two foxes.
pub(super) struct TwoFoxes;

impl<'a> Ctx<'a> {
    /// The initial pass over one block: children outside the tier, game
    /// over, and the placements that need a scalar look. Writes both sides'
    /// planes (fox: `f`, sheep: `s`); with plies, what the children say
    /// about plies into `scratch.plies`, and wins from outside the tier
    /// only as "cannot lose" (they wait for their ply). `fox_only`: the fox
    /// side alone (the sheep planes are left clear).
    #[inline(never)]
    pub(super) fn init_block<P: Placements, const BMI2: bool>(
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
        P::clear(f);
        P::clear(s);
        let plies = self.plies;
        if plies {
            scratch.plies.clear(self.rows, n);
        }
        // With plies a win from outside waits for its ply: "cannot lose" for now.
        let win_plane = if plies { CANNOT_LOSE } else { WON };

        // Fox to move: over when the pen holds K sheep; else captures.
        if (sheep & PEN).count_ones() >= k {
            P::all_lost(f, n);
        } else if self.captures_win_at_once && !plies {
            P::captures_win_at_once::<BMI2>(self, view, f);
        } else {
            P::captures::<BMI2>(self, view, f, scratch, win_plane)?;
        }
        if fox_only {
            return Ok(());
        }

        // Sheep to move: over with fewer than K sheep; else forward steps
        // (and steps that trap a fox) lead out of the tier.
        if sheep.count_ones() < k {
            P::all_lost(s, n);
            return Ok(());
        }
        let board = rules.board;
        // Steps into child blocks of `child_planes` (values, plies to zeroing): sixteen rows at a time.
        let step_rows = self.traps_once_per_set() && (!plies || self.to_zeroing);
        if step_rows {
            scratch.step_rows.start(n);
        }
        // Found when a step first needs it (not for targets valued once per block).
        let mut cramped: Option<Cramped> = None;
        // Placements with a legal sheep move (a fox on `to` blocks a step).
        let mut has_move = P::NONE;
        // Where a step's target is read from a block's line ([`ChildPlanes`](super::child_planes::ChildPlanes),
        // [`BlockTraps`]: at random, so a miss a step), every step's target
        // first, each line fetched ahead, then the steps.
        if self.reads_lines {
            scratch.steps.clear();
            scratch.step_targets.clear();
            for from in BitIter(sheep) {
                for to in BitIter(board.sheep_steps[from as usize] & view.free) {
                    let keep = self.target(sheep ^ (1 << from) ^ (1 << to), P::FOXES, from, Some(to));
                    self.prefetch_target(&keep);
                    scratch.steps.push((from, to));
                    scratch.step_targets.push(keep);
                }
            }
            for at in 0..scratch.steps.len() {
                let (from, to) = scratch.steps[at];
                let step = (from, to, scratch.step_targets[at]);
                self.sheep_step::<P, BMI2>(view, step, s, scratch, sideways, &mut has_move, &mut cramped, win_plane)?;
            }
        } else {
            for from in BitIter(sheep) {
                for to in BitIter(board.sheep_steps[from as usize] & view.free) {
                    let keep = self.target(sheep ^ (1 << from) ^ (1 << to), P::FOXES, from, Some(to));
                    let step = (from, to, keep);
                    self.sheep_step::<P, BMI2>(
                        view,
                        step,
                        s,
                        scratch,
                        sideways,
                        &mut has_move,
                        &mut cramped,
                        win_plane,
                    )?;
                }
            }
        }
        if step_rows {
            let zeroing = plies.then_some(&mut scratch.plies);
            scratch.step_rows.add_to(view, s, win_plane, &mut scratch.mirror, zeroing);
        }
        if plies {
            // No legal sheep move: lost now, 0 plies (the phases would find it at ply 2).
            P::no_move_lost(s, &has_move, n);
        }
        Ok(())
    }

    /// One sheep step of [`Ctx::init_block`] (`from`, `to`, and `keep`, its
    /// target with every fox): the placements it leads out of the tier
    /// from, the trapped foxes, or the sideways record.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn sheep_step<P: Placements, const BMI2: bool>(
        &self,
        view: &SetView,
        (from, to, keep): (u8, u8, Target),
        s: &mut [u32],
        scratch: &mut Scratch,
        sideways: &mut Sideways,
        has_move: &mut P::Marks,
        cramped: &mut Option<Cramped>,
        win_plane: usize,
    ) -> Result<(), KernelError> {
        let n = self.n;
        let moved = view.sheep ^ (1 << from) ^ (1 << to);
        let kt = view.index_of(to);
        if self.plies {
            P::step_is_legal(has_move, kt, n);
        }
        // Targets whose trapped foxes are valued once per block.
        if let Target::Child(c, rank) = &keep {
            if let Some(Some(planes)) = self.child_planes.get(*c) {
                // Sixteen rows at a time ([`StepRows`]), added to the planes at the block's end.
                let map = ColumnMap::new(rank.free, rank.mirrored, view.free);
                let kt_in_frame = if rank.mirrored {
                    (mirror_bits(view.free) & ((1u64 << mirror_point(to)) - 1)).count_ones() as usize
                } else {
                    kt
                };
                if scratch.step_rows.add(planes.line(rank.set), &map, kt_in_frame) {
                    return Ok(());
                }
                let rows = planes.won_lost(rank.set);
                P::child_rows::<BMI2, u16>(self, view, kt, (None, rank), rows, &P::NONE, s, scratch, win_plane);
                return Ok(());
            }
        }
        if let (Target::InTier(rank), Some(traps)) = (&keep, &self.block_traps) {
            let (lost, drawn) = traps.lost_drawn(rank.set as usize, rank.mirrored);
            P::sideways_rows(self, kt, lost, drawn, s);
            self.record_sideways(view, to, rank, None, sideways);
            return Ok(());
        }
        // A fox is removed only while the pen is short of K.
        let traps = (moved & PEN).count_ones() < self.game.rules.pen_target
            && self.trapped_rows(
                view,
                cramped.get_or_insert_with(|| Cramped::new::<BMI2>(self.game, &self.jump_masks, view, P::FOXES)),
                moved,
                (from, to),
                &mut scratch.traps,
            );
        let trapped =
            if traps { P::trapped::<BMI2>(self, view, (from, to), &keep, s, scratch, win_plane)? } else { P::NONE };
        match keep {
            // A sideways step: the sheep phases take it from here.
            Target::InTier(rank) => self.record_sideways(view, to, &rank, traps.then_some(&scratch.traps), sideways),
            Target::Child(c, rank) => {
                P::step_into_child::<BMI2>(self, view, kt, (c, &rank), moved, &trapped, s, scratch, win_plane)
            }
            Target::NoTable => P::step_out(self, view, kt, &keep, moved, &trapped, s, scratch, win_plane)?,
        }
        Ok(())
    }
}
