//! Solving a tier: the initial pass over every block, then fox and sheep
//! phases until nothing changes, then the values packed (and the plies).

use super::*;

pub(super) fn child_refs(children: &[ChildTable<FoxGame>]) -> Vec<ChildRef<'_>> {
    children
        .iter()
        .map(|c| ChildRef {
            tier: c.tier,
            index: &c.index,
            values: &c.values,
            plies: c.plies.as_ref(),
            planes: Some(&c.planes),
        })
        .collect()
}

impl<'a> Ctx<'a> {
    /// What the solve counts: plies with a `distance`, to zeroing for DTZ,
    /// and exactly up to the no-progress cap under that rule.
    fn set_distance(&mut self, distance: Option<Distance>) {
        self.plies = distance.is_some();
        self.to_zeroing = distance == Some(Distance::Dtz);
        // Under a no-progress rule the distances to zeroing are exact and stop at N.
        self.exact_cap = if self.to_zeroing { self.game.rules.no_progress } else { 0 };
    }

    pub(super) fn new(game: &'a FoxGame, tier: FoxTier, children: &'a [ChildRef<'a>]) -> Ctx<'a> {
        let index = game.tier_index(tier);
        let n = 33 - tier.sheep() as usize;
        let one_fox = tier.foxes() == 1;
        let rows = if one_fox { 1 } else { n };
        let capture_ends = game.rules.too_few_sheep(tier.sheep().saturating_sub(1));
        let places = Places::new(tier, &children.iter().map(|c| c.tier).collect::<Vec<_>>());
        let captures_win_at_once = matches!(capture_ends, Some((Side::Fox, _)))
            && places.by_change[0].iter().all(|by_gained| matches!(by_gained[7], Place::NoTable));
        Ctx {
            game,
            tier,
            jumps_over: JumpsOver::new(game),
            jump_masks: JumpMasks::new(game),
            n,
            one_fox,
            rows,
            stride: PLANES * rows,
            per_set: index.fox_slots * 2,
            index,
            children,
            plies: false,
            to_zeroing: false,
            exact_cap: 0,
            capture_out_wins: capture_ends.is_none_or(|(winner, _)| winner == Side::Fox),
            captures_win_at_once,
            places,
            child_planes: Vec::new(),
            block_traps: None,
            reads_lines: false,
        }
    }

    /// The initial pass over every block into `fox_planes` and
    /// `sheep_planes`; with `fox_phase`, each block's first fox phase right
    /// after it, while its planes are in cache (it reads only the block's
    /// own sheep planes, which are complete for that phase). Returns the
    /// positions the initial pass decided and whether that fox phase
    /// decided any. Each work item's sideways steps go to its `sideways`.
    pub(super) fn init_all<const BMI2: bool, P: Ply>(
        &self,
        fox_planes: &mut [u32],
        sheep_planes: &mut [u32],
        sideways: &mut [Sideways],
        set_bits: &[Bits],
        fox_phase: bool,
        ply: &mut PlyArrays<P>,
    ) -> Result<(u64, bool), KernelError> {
        let (stride, item) = (self.stride, BLOCKS_PER_ITEM * self.stride);
        let items = fox_planes.len().div_ceil(item);
        let slices = ply.item_slices(self, items);
        let parts: Vec<Result<(u64, bool), KernelError>> = fox_planes
            .par_chunks_mut(item)
            .zip(sheep_planes.par_chunks_mut(item))
            .zip(sideways.par_iter_mut())
            .zip(slices)
            .enumerate()
            .map(|(it, (((f, s), sideways), (pl, due_f, due_s)))| {
                let mut scratch = Scratch::default();
                sideways.clear();
                let (mut decided, mut changed) = (0, false);
                for (b, (fb, sb)) in f.chunks_mut(stride).zip(s.chunks_mut(stride)).enumerate() {
                    let view = SetView::new(set_bits[it * BLOCKS_PER_ITEM + b]);
                    self.init_block_any::<BMI2>(&view, fb, sb, &mut scratch, sideways)?;
                    decided += self.count_decided(&view, fb, sb);
                    let block_plies = if self.plies {
                        if !self.to_zeroing {
                            scratch.plies.fold_zeroing(FOX, self.rows);
                            scratch.plies.fold_zeroing(SHEEP, self.rows);
                        }
                        let pb = &mut pl[b * self.per_set as usize..(b + 1) * self.per_set as usize];
                        (due_f[b], due_s[b]) = self.init_plies(fb, sb, &scratch.plies, pb)?;
                        Some(pb)
                    } else {
                        None
                    };
                    if fox_phase && self.exact_cap > 0 {
                        // Ply 0 alone: the other plies have a fox step each.
                        let pb = block_plies.expect("exact plies are plies");
                        changed |= self.fox_no_move::<BMI2, P>(&view, fb, pb, &mut due_f[b]);
                    } else if fox_phase {
                        // What the phase changed matters with plies alone.
                        let before = block_plies.is_some().then(|| self.won_lost(fb));
                        changed |= self.fox_phase_any::<BMI2>(view.sheep, fb, sb);
                        if let (Some(pb), Some(before)) = (block_plies, before) {
                            changed = self.settle(FOX, fb, &before, pb, 1, &mut due_f[b]) || changed;
                        }
                    }
                }
                Ok((decided, changed))
            })
            .collect();
        let (mut decided, mut changed) = (0, false);
        for part in parts {
            let (d, c) = part?;
            decided += d;
            changed |= c;
        }
        Ok((decided, changed))
    }

    /// The slot of placement `[i][j]` (one fox: `j`) with `side` to move, counted in its block.
    #[inline]
    pub(super) fn block_slot(&self, i: usize, j: usize, side: usize) -> usize {
        if self.one_fox {
            2 * j + side
        } else {
            let (h, l) = (i.max(j), i.min(j));
            h * (h - 1) + 2 * l + side
        }
    }

    /// The won and lost rows of one side's planes (a copy, to see what a phase changed).
    #[inline]
    pub(super) fn won_lost(&self, planes: &[u32]) -> [u32; 64] {
        let rows = self.rows;
        let mut out = [0u32; 64];
        out[..rows].copy_from_slice(&planes[WON * rows..(WON + 1) * rows]);
        out[32..32 + rows].copy_from_slice(&planes[LOST * rows..(LOST + 1) * rows]);
        out
    }

    /// A block's plies after its initial pass (`ply`: what its children
    /// said): 0 for a position decided (over), the ply of its best win from
    /// outside for one that cannot lose (0: none), else its floor. Returns
    /// the first fox and sheep phases with a win due.
    pub(super) fn init_plies<P: Ply>(
        &self,
        f: &[u32],
        s: &[u32],
        ply: &PlyScratch,
        out: &mut [P],
    ) -> Result<(u32, u32), KernelError> {
        let rows = self.rows;
        let mut due = [u32::MAX; 2];
        if self.to_zeroing {
            // Every child outside the tier counts 0 plies, kept as rows: a
            // position that cannot lose with a won child outside waits for
            // ply 1, any other undecided one with a child outside has a floor of 1.
            for (side, planes) in [(FOX, f), (SHEEP, s)] {
                for h in 0..rows {
                    // Placement [h][j] for j < h (one fox: every j), at h(h - 1) + 2j + side.
                    let (base, len) = if self.one_fox { (0, self.n) } else { (h * h.saturating_sub(1), h) };
                    let decided = planes[WON * rows + h] | planes[LOST * rows + h];
                    let cannot_lose = planes[CANNOT_LOSE * rows + h];
                    let (lost, won) = ply.zeroing_rows(side, h);
                    let wins = lost & cannot_lose & !decided & row_mask(len);
                    let ones = wins | (won & !cannot_lose & !decided);
                    if wins != 0 {
                        due[side] = due[side].min(win_phase(1));
                    }
                    for (j, x) in out[base..base + 2 * len].chunks_exact_mut(2).enumerate() {
                        x[side] = P::put(ones >> j & 1);
                    }
                }
            }
            return Ok((due[FOX], due[SHEEP]));
        }
        let mut largest = 0u32;
        for (side, planes) in [(FOX, f), (SHEEP, s)] {
            let mut put = |i: usize, j: usize| {
                let bit = 1u32 << j;
                let at = self.block_slot(i, j, side);
                let value = if (planes[WON * rows + i] | planes[LOST * rows + i]) & bit != 0 {
                    0
                } else if planes[CANNOT_LOSE * rows + i] & bit != 0 {
                    let w = ply.win_at[side][i][j] as u32;
                    if w != 0 {
                        due[side] = due[side].min(win_phase(w));
                    }
                    w
                } else {
                    ply.floor[side][i][j] as u32
                };
                largest = largest.max(value);
                out[at] = P::put(value.min(P::MAX));
            };
            if self.one_fox {
                (0..self.n).for_each(|j| put(0, j));
            } else {
                for h in 1..self.n {
                    (0..h).for_each(|j| put(h, j));
                }
            }
        }
        if largest > P::MAX {
            return Err(KernelError::TooManyPlies { tier: self.tier.name(), limit: P::MAX });
        }
        Ok((due[FOX], due[SHEEP]))
    }

    /// The plies of one side of a block after its phase `k`: a new loss
    /// whose floor is later than this phase's ply is taken back and waits
    /// (`due`: the first phase with something due); wins from outside due
    /// now are decided; new wins and losses get this phase's plies. `before`
    /// holds the won and lost rows before the phase. Returns whether the
    /// planes changed.
    ///
    /// With exact plies ([`Ctx::exact_cap`], `plane_kernel::exact`) `k` is
    /// a ply, which decides both a side's wins and its losses; the only
    /// floor is 1 (a zeroing move), which holds back a loss at ply 0 alone.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn settle<P: Ply>(
        &self,
        side: usize,
        planes: &mut [u32],
        before: &[u32; 64],
        pl: &mut [P],
        k: u32,
        due: &mut u32,
    ) -> bool {
        let rows = self.rows;
        let exact = self.exact_cap > 0;
        let (level_win, level_loss) = if exact { (k, k) } else { levels(side, k) };
        // With DTZ no floor passes ply 1 (every child outside counts 0 plies).
        let floors_pass = !self.to_zeroing || level_loss == 0;
        let wins_due = *due <= k;
        let mut next_due = if wins_due { u32::MAX } else { *due };
        // A two-fox plane holds each placement twice, [h][j] and [j][h] in
        // one slot: it is settled from the row of its higher point, `h`, and
        // the bit of the row of the lower one (settled before) set to match.
        let two_foxes = !self.one_fox;
        for h in 0..rows {
            let (w0, l0) = (before[h], before[32 + h]);
            let (mut w, mut l) = (planes[WON * rows + h], planes[LOST * rows + h]);
            let (first, once) = if two_foxes { (h * h.saturating_sub(1), row_mask(h)) } else { (0, u32::MAX) };
            let new_losses = if floors_pass { l & !l0 & once } else { 0 };
            for j in BitIter(new_losses as u64) {
                let floor = pl[first + 2 * j as usize + side].get();
                if floor > level_loss {
                    l &= !(1 << j);
                    if two_foxes {
                        planes[LOST * rows + j as usize] &= !(1 << h);
                    }
                    next_due = next_due.min(if exact { floor } else { loss_phase(side, floor) });
                }
            }
            if wins_due {
                // `once` leaves out the diagonal (both foxes on one point).
                let valid = row_mask(self.n) & once;
                for j in BitIter((planes[CANNOT_LOSE * rows + h] & !w & !l & valid) as u64) {
                    let at = pl[first + 2 * j as usize + side].get();
                    if at == 0 {
                        continue;
                    }
                    if at <= level_win {
                        w |= 1 << j;
                        if two_foxes {
                            planes[WON * rows + j as usize] |= 1 << h;
                        }
                    } else {
                        next_due = next_due.min(if exact { at } else { win_phase(at) });
                    }
                }
            }
            for j in BitIter((w & !w0 & once) as u64) {
                pl[first + 2 * j as usize + side] = P::put(level_win);
            }
            for j in BitIter((l & !l0 & once) as u64) {
                pl[first + 2 * j as usize + side] = P::put(level_loss);
            }
            planes[WON * rows + h] = w;
            planes[LOST * rows + h] = l;
        }
        let changed =
            (0..rows).any(|h| planes[WON * rows + h] != before[h] || planes[LOST * rows + h] != before[32 + h]);
        *due = next_due;
        changed
    }

    /// The used positions of a block that its planes decide.
    pub(super) fn count_decided(&self, view: &SetView, f: &[u32], s: &[u32]) -> u64 {
        let rows = self.rows;
        let mut count = 0u64;
        self.for_each_row(view, |h, _, _, used| {
            count += ((f[WON * rows + h] | f[LOST * rows + h]) & used).count_ones() as u64;
            count += ((s[WON * rows + h] | s[LOST * rows + h]) & used).count_ones() as u64;
        });
        count
    }

    #[inline]
    pub(super) fn init_block_any<const BMI2: bool>(
        &self,
        view: &SetView,
        f: &mut [u32],
        s: &mut [u32],
        scratch: &mut Scratch,
        sideways: &mut Sideways,
    ) -> Result<(), KernelError> {
        if self.one_fox {
            self.init_block::<OneFox, BMI2>(view, f, s, scratch, sideways, false)?;
        } else {
            self.init_block::<TwoFoxes, BMI2>(view, f, s, scratch, sideways, false)?;
        }
        sideways.end_block();
        Ok(())
    }

    /// The initial pass's fox side alone of one block (into `f`; `s` is
    /// cleared): the captures and a pen already filled.
    #[inline]
    pub(super) fn init_fox_side<const BMI2: bool>(
        &self,
        view: &SetView,
        f: &mut [u32],
        s: &mut [u32],
        scratch: &mut Scratch,
    ) -> Result<(), KernelError> {
        let mut no_steps = Sideways::default();
        if self.one_fox {
            self.init_block::<OneFox, BMI2>(view, f, s, scratch, &mut no_steps, true)
        } else {
            self.init_block::<TwoFoxes, BMI2>(view, f, s, scratch, &mut no_steps, true)
        }
    }

    /// The fox phase of the block with sheep `sheep` (a one-fox block's
    /// needs no [`SetView`], so none is built for it).
    #[inline]
    pub(super) fn fox_phase_any<const BMI2: bool>(&self, sheep: Bits, f: &mut [u32], s: &[u32]) -> bool {
        if self.one_fox {
            self.fox_phase_one::<BMI2>(sheep, f, s)
        } else {
            self.fox_phase(&SetView::new(sheep), f, s)
        }
    }
}

/// Solves a tier; `children` (borrowed, or owned and then freed as soon as
/// the initial pass has read them) are the child tables.
/// Solves a tier with the plane kernel; with plies, one byte a count in
/// memory first and two if a count passes 255 (the children are kept for
/// that second solve).
pub(super) fn solve_any<const BMI2: bool, C: AsRef<[ChildTable<FoxGame>]>>(
    game: &FoxGame,
    tier: FoxTier,
    children: C,
    propagate: bool,
    distance: Option<Distance>,
) -> Result<SolvedTier, KernelError> {
    // FOXBASE_PLIES_BYTES=2 starts with two bytes (to test that path on small variants).
    if distance.is_some() && std::env::var("FOXBASE_PLIES_BYTES").is_ok_and(|v| v == "2") {
        return solve::<BMI2, u16, C>(game, tier, children, propagate, distance);
    }
    solve::<BMI2, u8, C>(game, tier, children, propagate, distance)
}

/// A tier after its initial pass: what the phases work on.
struct AfterInit<P: Ply> {
    fox_planes: Vec<u32>,
    sheep_planes: Vec<u32>,
    /// Each block's sheep set, unranked once for every pass.
    set_bits: Vec<Bits>,
    /// Per work item: the sideways steps of its blocks.
    sideways: Vec<Sideways>,
    /// The blocks' trapped foxes, for the sheep phases (values only).
    block_traps: Option<BlockTraps>,
    ply: PlyArrays<P>,
    decided_at_start: u64,
    decided_by_first_fox_phase: bool,
}

/// The plies a solve holds: in `P` while every count fits, else widened
/// to two bytes ([`Ply::widen`]).
enum Counts<P: Ply> {
    Narrow(PlyArrays<P>),
    Wide(PlyArrays<u16>),
}

/// Where the fox and sheep phases stand between two rounds; kept when the
/// plies are widened in the middle of a solve.
struct Rounds {
    /// The fox phase's input: blocks whose sheep planes changed.
    sheep_changed: Vec<bool>,
    /// The sheep phase's: blocks whose fox planes changed.
    fox_changed: Vec<bool>,
    /// The first round (the first of each phase looks at every block).
    first: bool,
    /// The phase number: sheep phase k follows fox phase k (fox phase 1 ran in the initial pass).
    k: u32,
    /// Propagation phases that decided something.
    levels: u32,
}

/// The initial pass of `tier` over its `children`, with plies in `P` when
/// `ctx_plies` says so. Fails with [`KernelError::TooManyPlies`] when a
/// count from the children (plies to the end) does not fit in `P`.
fn initial_pass<const BMI2: bool, P: Ply>(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildTable<FoxGame>],
    propagate: bool,
    distance: Option<Distance>,
) -> Result<AfterInit<P>, KernelError> {
    let refs = child_refs(children);
    let mut ctx = Ctx::new(game, tier, &refs);
    ctx.set_distance(distance);
    if ctx.plies && !ctx.to_zeroing && refs.iter().any(|c| c.plies.is_none()) {
        return Err(KernelError::Inconsistent(format!(
            "a child tier of {} has no plies (solved with --no-distance?)",
            tier.name()
        )));
    }
    let sets = ctx.index.sheep_sets as usize;
    let set_bits: Vec<Bits> = (0..sets as u64).into_par_iter().map(|c| ctx.index.sheep_set(c)).collect();
    ctx.find_traps_per_set::<BMI2>(&set_bits);
    let mut fox_planes = vec![0u32; sets * ctx.stride];
    let mut sheep_planes = vec![0u32; sets * ctx.stride];
    let mut ply = PlyArrays::<P>::new(&ctx);
    let mut sideways: Vec<Sideways> = (0..sets.div_ceil(BLOCKS_PER_ITEM)).map(|_| Sideways::default()).collect();
    let (decided_at_start, decided_by_first_fox_phase) =
        ctx.init_all::<BMI2, P>(&mut fox_planes, &mut sheep_planes, &mut sideways, &set_bits, propagate, &mut ply)?;
    let mut block_traps = ctx.block_traps.take();
    if let Some(traps) = &mut block_traps {
        traps.initial_pass_done();
    }
    Ok(AfterInit {
        fox_planes,
        sheep_planes,
        set_bits,
        sideways,
        block_traps,
        ply,
        decided_at_start,
        decided_by_first_fox_phase,
    })
}

pub(super) fn solve<const BMI2: bool, P: Ply, C: AsRef<[ChildTable<FoxGame>]>>(
    game: &FoxGame,
    tier: FoxTier,
    children: C,
    propagate: bool,
    distance: Option<Distance>,
) -> Result<SolvedTier, KernelError> {
    let started = std::time::Instant::now();
    let mut phases = Phases::default();
    let after = match initial_pass::<BMI2, P>(game, tier, children.as_ref(), propagate, distance) {
        Ok(after) => after,
        // Plies to the end from a child that need two bytes: the initial
        // pass again, in two bytes, while the children are still here.
        Err(KernelError::TooManyPlies { .. }) if P::MAX < u16::MAX as u32 => {
            return solve::<BMI2, u16, C>(game, tier, children, propagate, distance);
        }
        Err(e) => return Err(e),
    };
    // Only the initial pass reads the children: a solve that owns them
    // frees them here, before the phases and the output (a count that
    // outgrows `P` later widens the plies in place instead of solving
    // again, so nothing needs the children back).
    drop(children);
    let AfterInit {
        mut fox_planes,
        mut sheep_planes,
        set_bits,
        sideways,
        block_traps,
        ply,
        decided_at_start,
        decided_by_first_fox_phase,
    } = after;
    let mut ctx = Ctx::new(game, tier, &[]);
    ctx.set_distance(distance);
    ctx.block_traps = block_traps;
    let size = game.tier_size(&ctx.index);
    let sets = ctx.index.sheep_sets as usize;
    phases.init = started.elapsed().as_secs_f64();
    if !propagate {
        return Ok(SolvedTier { values: PackedValues::filled(0, 0), stats: TierStats::default(), phases, plies: None });
    }

    let started = std::time::Instant::now();
    let mut counts = Counts::Narrow(ply);
    let mut levels = decided_by_first_fox_phase as u32;
    if ctx.exact_cap > 0 {
        // The cap (at most 255) bounds every count: they fit in `P`.
        let Counts::Narrow(ply) = &mut counts else { unreachable!("not widened yet") };
        levels += propagate_exact::<BMI2, P>(
            &ctx,
            &mut fox_planes,
            &mut sheep_planes,
            &sideways,
            ply,
            &set_bits,
            ctx.exact_cap,
        );
    } else if !ctx.plies && sideways_steps_change_colour(game.rules.board) && sideways_steps_reverse(game.rules.board) {
        // Values only: no ply to keep apart, so the fewer visits of the colour passes.
        levels += colour_passes::<BMI2>(&ctx, &mut fox_planes, &mut sheep_planes, &sideways, &set_bits);
    } else {
        let mut rounds =
            Rounds { sheep_changed: vec![true; sets], fox_changed: vec![false; sets], first: true, k: 1, levels };
        let Counts::Narrow(ply) = &mut counts else { unreachable!("not widened yet") };
        let done = rounds_until_settled::<BMI2, P>(
            &ctx,
            &mut fox_planes,
            &mut sheep_planes,
            &sideways,
            ply,
            &set_bits,
            &mut rounds,
        );
        if !done {
            if P::MAX >= u16::MAX as u32 {
                return Err(KernelError::TooManyPlies { tier: tier.name(), limit: P::MAX });
            }
            let Counts::Narrow(narrow) = counts else { unreachable!("not widened yet") };
            let mut wide = narrow.widen();
            if !rounds_until_settled::<BMI2, u16>(
                &ctx,
                &mut fox_planes,
                &mut sheep_planes,
                &sideways,
                &mut wide,
                &set_bits,
                &mut rounds,
            ) {
                return Err(KernelError::TooManyPlies { tier: tier.name(), limit: u16::MAX as u32 });
            }
            counts = Counts::Wide(wide);
        }
        levels = rounds.levels;
    }
    phases.propagate = started.elapsed().as_secs_f64();

    let started = std::time::Instant::now();
    let (values, mut stats) = pack::<BMI2>(&ctx, &fox_planes, &sheep_planes, &set_bits, size);
    // The planes are not needed any more: freed before the plies are finished.
    drop(fox_planes);
    drop(sheep_planes);
    let plies = ctx.plies.then(|| match counts {
        Counts::Narrow(ply) => P::finish(ply.plies, &values),
        Counts::Wide(ply) => u16::finish(ply.plies, &values),
    });
    stats.levels = levels.max(1);
    stats.decided_at_start = decided_at_start;
    phases.pack = started.elapsed().as_secs_f64();
    Ok(SolvedTier { values, stats, phases, plies })
}

/// Fox and sheep phases from where `rounds` stands until nothing changes
/// and nothing is due (true), or until the next round could decide a
/// count past `P::MAX` (false: `rounds` says where to go on from, with
/// wider plies; every count so far fits).
fn rounds_until_settled<const BMI2: bool, P: Ply>(
    ctx: &Ctx,
    fox_planes: &mut [u32],
    sheep_planes: &mut [u32],
    sideways: &[Sideways],
    ply: &mut PlyArrays<P>,
    set_bits: &[Bits],
    rounds: &mut Rounds,
) -> bool {
    // With plies, a phase also looks at the blocks with a win from outside
    // (or a waiting loss) due.
    let settle = if ctx.plies { Settle::Plies } else { Settle::Values };
    loop {
        // The next phases decide at up to 2k plies.
        if ctx.plies && 2 * rounds.k > P::MAX {
            return false;
        }
        // Fox phase: fox steps, within each block (the first ran in the initial pass).
        let any_fox_changed = !rounds.first
            && fox_pass::<BMI2, P>(
                ctx,
                fox_planes,
                sheep_planes,
                &rounds.sheep_changed,
                &mut rounds.fox_changed,
                ply,
                set_bits,
                rounds.k,
                settle,
            );
        rounds.levels += any_fox_changed as u32;
        if !rounds.first && !any_fox_changed && !ply.pending() {
            return true;
        }
        // Sheep phase: sideways sheep steps into other blocks' fox planes.
        let any_sheep_changed = sheep_pass::<BMI2, P>(
            ctx,
            sheep_planes,
            fox_planes,
            sideways,
            &mut rounds.sheep_changed,
            ply,
            set_bits,
            rounds.k,
            (rounds.first, &rounds.fox_changed),
            settle,
        );
        rounds.first = false;
        rounds.k += 1;
        if !any_sheep_changed && !ply.pending() {
            return true;
        }
        rounds.levels += 1;
    }
}

/// How a pass settles a block after its phase: values only (nothing to
/// settle) or with plies ([`Ctx::settle`]).
#[derive(Clone, Copy)]
pub(super) enum Settle {
    Values,
    Plies,
}

impl Ctx<'_> {
    /// The won and lost rows of a block's side before its phase, when `how` settles with them.
    #[inline]
    fn before_phase(&self, how: Settle, planes: &[u32]) -> Option<[u32; 64]> {
        match how {
            Settle::Values => None,
            Settle::Plies => Some(self.won_lost(planes)),
        }
    }

    /// Settles side `side` of a block after its phase at `at` (a phase
    /// number, or with exact plies a ply) as `how` says. `changed`:
    /// whether the phase changed the planes; `before`: the block's
    /// [`Ctx::before_phase`]. Returns whether they changed once settled.
    #[allow(clippy::too_many_arguments)]
    fn settle_as<P: Ply>(
        &self,
        how: Settle,
        side: usize,
        planes: &mut [u32],
        before: Option<[u32; 64]>,
        block: usize,
        slices: (&mut [P], &mut [u32]),
        at: u32,
        changed: bool,
    ) -> bool {
        let (pl, due) = slices;
        let per_set = self.per_set as usize;
        match (how, before) {
            // Nothing new and nothing due: settling would change nothing.
            (Settle::Plies, Some(_)) if !changed && due[block] > at => false,
            (Settle::Plies, Some(before)) => {
                self.settle(side, planes, &before, &mut pl[block * per_set..(block + 1) * per_set], at, &mut due[block])
            }
            _ => changed,
        }
    }
}

/// A fox phase at `at` over the blocks with work: those whose sheep planes
/// changed (`todo`) or with something due by `at`. Each block's fox planes
/// are computed from its own `sheep_planes`, then settled as `settle` says;
/// `changed[b]` says whether block `b`'s fox planes changed. Returns
/// whether any did.
#[allow(clippy::too_many_arguments)]
pub(super) fn fox_pass<const BMI2: bool, P: Ply>(
    ctx: &Ctx,
    fox_planes: &mut [u32],
    sheep_planes: &[u32],
    todo: &[bool],
    changed: &mut [bool],
    ply: &mut PlyArrays<P>,
    set_bits: &[Bits],
    at: u32,
    settle: Settle,
) -> bool {
    let stride = ctx.stride;
    let item = BLOCKS_PER_ITEM * stride;
    let slices = ply.item_slices(ctx, set_bits.len().div_ceil(BLOCKS_PER_ITEM));
    fox_planes
        .par_chunks_mut(item)
        .zip(todo.par_chunks(BLOCKS_PER_ITEM))
        .zip(changed.par_chunks_mut(BLOCKS_PER_ITEM))
        .zip(slices)
        .enumerate()
        .map(|(it, (((f, todo), out), (pl, due_f, _)))| {
            let mut any = false;
            for (b, fb) in f.chunks_mut(stride).enumerate() {
                out[b] = false;
                if !todo[b] && due_f[b] > at {
                    continue;
                }
                let set = it * BLOCKS_PER_ITEM + b;
                let s = &sheep_planes[set * stride..(set + 1) * stride];
                let before = ctx.before_phase(settle, fb);
                let phase_changed = ctx.fox_phase_any::<BMI2>(set_bits[set], fb, s);
                out[b] = ctx.settle_as(settle, FOX, fb, before, b, (&mut *pl, &mut *due_f), at, phase_changed);
                any |= out[b];
            }
            any
        })
        .reduce(|| false, |a, b| a || b)
}

/// A sheep phase at `at` over the blocks with work: every block when
/// `look.0`, else those with a sideways step into a block whose fox planes
/// changed (`look.1`), and those with something due by `at`. Each block's
/// sheep planes are computed from the `fox_planes` its steps lead to, then
/// settled as `settle` says; `changed[b]` says whether block `b`'s sheep
/// planes changed. Returns whether any did.
#[allow(clippy::too_many_arguments)]
pub(super) fn sheep_pass<const BMI2: bool, P: Ply>(
    ctx: &Ctx,
    sheep_planes: &mut [u32],
    fox_planes: &[u32],
    sideways: &[Sideways],
    changed: &mut [bool],
    ply: &mut PlyArrays<P>,
    set_bits: &[Bits],
    at: u32,
    look: (bool, &[bool]),
    settle: Settle,
) -> bool {
    let (every_block, fox_changed) = look;
    let stride = ctx.stride;
    let item = BLOCKS_PER_ITEM * stride;
    let slices = ply.item_slices(ctx, set_bits.len().div_ceil(BLOCKS_PER_ITEM));
    sheep_planes
        .par_chunks_mut(item)
        .zip(changed.par_chunks_mut(BLOCKS_PER_ITEM))
        .zip(slices)
        .zip(sideways)
        .enumerate()
        .map(|(it, (((s, changed), (pl, _, due_s)), sideways))| {
            let mut any = false;
            let mut mirror = MirrorTable::default();
            let blocks = sideways.first.len() - 1;
            // The first phase looks at every block (one without sideways
            // steps may be lost already); then only where a step leads to a
            // block whose fox planes changed.
            let todo = |b: usize| every_block || sideways.block(b).iter().any(|step| fox_changed[step.child as usize]);
            let mut todo_next = blocks > 0 && todo(0);
            for (b, sb) in s.chunks_mut(stride).enumerate() {
                changed[b] = false;
                let todo_here = todo_next;
                todo_next = b + 1 < blocks && todo(b + 1);
                if todo_next {
                    // The next block's children, while this one is worked on.
                    for step in sideways.block(b + 1) {
                        let planes = &fox_planes[step.child as usize * stride..][..stride];
                        prefetch(&planes[WON * ctx.rows]);
                        prefetch(&planes[LOST * ctx.rows]);
                        prefetch(&planes[(LOST + 1) * ctx.rows - 1]);
                        if let Some(traps) = &ctx.block_traps {
                            // Half a cache line.
                            prefetch(&traps.trapped(step.child as usize)[0]);
                        }
                    }
                }
                if !todo_here && due_s[b] > at {
                    continue;
                }
                let steps = sideways.block(b);
                let before = ctx.before_phase(settle, sb);
                let sheep = set_bits[it * BLOCKS_PER_ITEM + b];
                let all = AllBlocks { planes: fox_planes, stride };
                let phase_changed = ctx.sheep_phase::<BMI2, _>(sheep, sb, &all, steps, sideways, &mut mirror);
                changed[b] = ctx.settle_as(settle, SHEEP, sb, before, b, (&mut *pl, &mut *due_s), at, phase_changed);
                any |= changed[b];
            }
            any
        })
        .reduce(|| false, |a, b| a || b)
}
