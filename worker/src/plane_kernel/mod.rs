//! The plane kernel: retrograde analysis of a Fox Game tier with the
//! values of a whole sheep set held as bit planes over its fox placements.
//!
//! A *block* is one canonical sheep set of the tier. With `n` free points,
//! its positions are the placements of the foxes, for each side to move. A
//! *plane* holds one bit per placement: with two foxes an `n`-row bit
//! matrix in the block's own coordinates (row `i`, bit `j`: foxes on the
//! `i`-th and `j`-th free points, counted from point 0, stored both ways
//! round, so a plane is symmetric and its diagonal is always clear); with
//! one fox a single row (bit `i`: the fox on the `i`-th free point). Each
//! side of a block has three planes: won, lost, and *cannot lose* (some
//! child outside the tier is a draw or a win for the mover, so "every
//! child is won for the opponent" can never hold).
//!
//! The moves become row operations:
//! - a fox step keeps the sheep set: the row of a fox is the OR (for wins)
//!   or the AND (for losses) of the rows of the points it can step to, and
//!   the other fox's moves are the transpose ([`transpose32`]);
//! - a sheep step keeps the foxes: the child block's rows map onto the
//!   parent's with one `pdep`/`pext` per row; a sideways step moves a sheep
//!   to the next point of its rank, so the coordinates agree (for a set
//!   stored mirrored, those of the parent's mirror image do) and the rows
//!   are used as they are;
//! - a capture leads to one row of the child block (the jumping fox's landing point).
//!
//! Solving a tier: an initial pass reads every child outside the tier once
//! per block (a child table's block is decoded into planes once per move
//! that leads to it; in a solve of values once per child block for the
//! sheep steps, [`child_planes`]) and records the block's sideways sheep
//! steps (the block each leads to, and the placements in which it traps a
//! fox, unless [`block_traps`] holds them per block), then
//! *phases* alternate: fox planes from the block's own sheep planes, then
//! sheep planes from the fox planes of the blocks its sideways sheep steps
//! lead to. A phase recomputes only the blocks whose inputs changed in the
//! phase before (a block whose fox planes changed, or one with a recorded
//! step into such a block), each block is
//! written by the one thread that computes it, and the phase reads only
//! planes the other phase writes: no atomics, and the same result for any
//! thread count. Each phase is one ply, so a position decided in phase `d`
//! is decided `d` plies into the tier's own propagation. Values only grow
//! (undecided to won or lost), so the fixpoint is the counter kernel's;
//! positions never decided are draws.
//! A solve of values only, which needs no plies, runs [`colours`] passes
//! instead: each block's sheep phase and then its fox phase in one visit,
//! the blocks of one colour at a time (every sideways step leads to a
//! block of the other colour), so a sheep phase reads what the pass before
//! decided.
//!
//! The few placements that need per-position care go through a scalar
//! path in the initial pass: a sheep step that traps a fox (which is then
//! removed, so the child is in a tier with one fox fewer; in a solve of
//! values found once per set the step leads to, [`block_traps`]) and
//! children in tiers without a table. The tables are byte-identical to the counter
//! kernel's (tested). [`check_tier`] re-derives a stored tier with the same
//! machinery for `foxbase verify`.
//!
//! The per-block functions of the passes are kept out of line
//! (`#[inline(never)]`) so that profiles attribute time to them.
//!
//! One idea a file: [`bits`] (pdep/pext, transposes, row and column maps),
//! [`decode`] (a child block into planes), [`children`] (where a move
//! leads, traps, captures, values read from children), [`init`] (the
//! initial pass over a block, written once over [`init::Placements`]),
//! [`two_foxes`] and [`one_fox`] (what each shape of placements does in
//! the passes over a block), [`colours`] (the phases of a solve of values
//! only), [`block_traps`] and [`child_planes`] (the
//! foxes a sheep step traps, found once per set it leads to instead of
//! once per step, in a solve of values), [`step_rows`] (a block's sheep
//! steps into those child blocks, sixteen rows at a time), [`plies`] (distances), [`solve`]
//! (a tier: initial pass, phases, packing), [`pack`] (planes to 2-bit
//! values), [`exact`] (exact distances to zeroing, for a no-progress
//! rule: a ply of each side at a time), [`check`] (`foxbase verify`'s
//! check) and [`derive`] (a published tier's fox-to-move values). This file holds the
//! shared types and the entry points.

use crate::kernel::{ChildTable, KernelError, Phases, SolvedTier, TierStats};
use foxbase_core::board::{mirror_bits, BitIter, Bits, ALL_POINTS, PEN, RANK_START, RANK_WIDTH};
use foxbase_core::cpu::bmi2_in_use;
use foxbase_core::foxgame::{FoxGame, FoxTier, SetRank, TierIndex};
use foxbase_core::tier::TierGame;
use foxbase_core::{Position, Side, Value};
use foxbase_tables::packed::PackedValues;
use foxbase_tables::plies::{Distance, Plies};
use rayon::prelude::*;

/// A sheep set a move leads to: where its positions are (this tier, a
/// child table, or nowhere: every such position is over) and the sheep part
/// of their indexes there.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    InTier(SetRank),
    Child(usize, SetRank),
    NoTable,
}

impl Target {
    /// Where `sheep` with `foxes` foxes goes from `tier` (whose index is
    /// `index`), with the child tables given as (tier, layout) pairs, in
    /// order, found by its tier: what the kernel's places by changed ranks
    /// are checked against.
    #[cfg(test)]
    pub(crate) fn among<'a>(
        tier: FoxTier,
        index: &TierIndex,
        children: impl Iterator<Item = (FoxTier, &'a TierIndex)>,
        sheep: Bits,
        foxes: u32,
    ) -> Target {
        let t = FoxTier::of(sheep, foxes);
        if t == tier {
            return Target::InTier(index.set_rank(sheep));
        }
        for (k, (child, child_index)) in children.enumerate() {
            if child == t {
                return Target::Child(k, child_index.set_rank(sheep));
            }
        }
        Target::NoTable
    }
}

mod bits;
mod block_traps;
mod check;
mod child_planes;
mod children;
mod colours;
mod decode;
mod derive;
mod exact;
mod init;
mod one_fox;
mod pack;
mod plies;
mod solve;
mod step_rows;
mod two_foxes;

use bits::*;
pub use bits::{transpose32, transpose_pair};
use block_traps::BlockTraps;
pub use check::{check_tier, CheckError, Contradiction, PlaneCheck};
use child_planes::HeldPlanes;
pub use child_planes::KeptPlanes;
use colours::*;
use decode::*;
pub use derive::{derive_fox_side, PlaneFoxSide};
use exact::*;
use init::*;
use pack::*;
use plies::*;
use solve::*;
use step_rows::StepRows;

/// The rows of one plane (at most 32 free points: a tier has a sheep).
type Rows = [u32; 32];

/// Planes of one side of a block, in this order, `n` rows each.
const WON: usize = 0;
const LOST: usize = 1;
const CANNOT_LOSE: usize = 2;
const PLANES: usize = 3;

/// Blocks per parallel work item (even, so that an item's slots fill whole bytes).
const BLOCKS_PER_ITEM: usize = 64;

/// The most free points of a block whose trapped foxes are found once per
/// set ([`block_traps`], [`child_planes`]): rows of at most 16 bits, so
/// that two rows of a block fit one cache line ([`Line`]). Crowded tiers
/// (17 sheep or more), where most sheep steps trap a fox.
const ROWS_ONCE_PER_SET: usize = 16;

impl Ctx<'_> {
    /// Whether the initial pass finds trapped foxes once per set
    /// ([`block_traps`], [`child_planes`]): on crowded two-fox tiers
    /// ([`ROWS_ONCE_PER_SET`]). With one fox a block is one row, which a
    /// step reads and maps in a few instructions: a cache line per child
    /// block, each decoded whether a step reaches it or not, cost more
    /// (docs/results.md, "Trapped foxes once per set").
    fn traps_once_per_set(&self) -> bool {
        !self.one_fox && self.n <= ROWS_ONCE_PER_SET
    }

    /// The trapped foxes of the child blocks and of the tier's own blocks
    /// (`set_bits`: each block's sheep set), found once per set where the
    /// initial pass reads them so.
    fn find_traps_per_set<const BMI2: bool>(&mut self, set_bits: &[Bits]) {
        self.child_planes = self.build_child_planes::<BMI2>();
        self.block_traps = self.build_block_traps::<BMI2>(set_bits);
        self.reads_lines = self.block_traps.is_some() || self.child_planes.iter().any(Option::is_some);
    }
}

/// Two planes of one block, `rows` (at most 16) rows each, in one cache
/// line: the first plane's rows from 0, the second's from 16. Read at
/// random by the steps into the block, so one line a read.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u16; 32]);

impl Line {
    const EMPTY: Line = Line([0; 32]);

    /// From the first `rows` rows of two planes.
    #[inline(always)]
    fn of(first: &[u32], second: &[u32], rows: usize) -> Line {
        let mut line = Line::EMPTY;
        for i in 0..rows {
            line.0[i] = first[i] as u16;
            line.0[16 + i] = second[i] as u16;
        }
        line
    }

    /// The two planes' first `rows` rows.
    #[inline(always)]
    fn planes(&self, rows: usize) -> (&[u16], &[u16]) {
        (&self.0[..rows], &self.0[16..16 + rows])
    }
}

const WIN_CODE: u8 = 1;
const LOSS_CODE: u8 = 2;

/// A sheep set and its free points, in order.
struct SetView {
    sheep: Bits,
    free: Bits,
    points: [u8; 32],
}

/// Where a sheep step can trap a fox: the free points by their number of
/// free neighbours (none, one, two), and the jump landings of the points a
/// step can leave cramped.
/// One sheep step fills one point (`to`) and frees another (`from`), so a
/// fox is left with at most one free neighbour only on a point these
/// counts and the step's two points name ([`Cramped::candidates`]), and
/// its jumps change only where they pass over or land on those two points
/// ([`Cramped::landings_after`]): the block's landings are found once, not
/// once for every step and candidate.
struct Cramped {
    none: Bits,
    one: Bits,
    two: Bits,
    /// The most options a trapped fox has: 0 with one fox (none at all),
    /// 1 with two (the other fox's point).
    most: u32,
    /// The jump landings of a fox on each point that can be a candidate
    /// (a free point with at most two free neighbours; at most one with
    /// one fox), in the block's sheep set with no fox elsewhere; 0 on the
    /// other points.
    landings: [Bits; 33],
}

impl Cramped {
    /// `foxes`: the foxes of the block's tier (1 or 2).
    fn new<const BMI2: bool>(game: &FoxGame, jump_masks: &JumpMasks, view: &SetView, foxes: u32) -> Cramped {
        let most = foxes - 1;
        let [none, one, two] = neighbour_counts(game, view.free);
        let mut landings = [0; 33];
        // A step takes at most one free neighbour away.
        let can_be_candidate = if most == 0 { none | one } else { none | one | two };
        for a in BitIter(can_be_candidate) {
            landings[a as usize] = jump_masks.landings::<BMI2>(a, view.sheep, view.free);
        }
        Cramped { none, one, two, most, landings }
    }

    /// The jump landings of a fox on the candidate `a` (not `to`) after
    /// the sheep step `from` -> `to` (the sheep then `moved`, the free
    /// points `free_after`): the block's, less a landing on `to` and the
    /// jump over `from`, plus the jump over `to` and one landing on `from`.
    /// A landing point belongs to one jump from `a` (one direction), so
    /// the jump removed takes no other with it.
    #[inline(always)]
    fn landings_after(&self, jumps: &JumpMasks, a: u8, moved: Bits, free_after: Bits, (from, to): (u8, u8)) -> Bits {
        let (line_over, line_onto) = (&jumps.landing_over[a as usize], &jumps.over_onto[a as usize]);
        let kept = self.landings[a as usize] & !(1u64 << to) & !(1u64 << line_over[from as usize]);
        let over_to = (1u64 << line_over[to as usize]) & free_after;
        let onto_from = ((moved >> line_onto[from as usize]) & 1) << from;
        kept | over_to | onto_from
    }

    /// The points other than `to` left with at most [`Cramped::most`] free
    /// neighbours (0 or 1) by the sheep step `from` -> `to`: exactly those, since a
    /// point's count changes by -1 next to `to` and by +1 next to `from`.
    #[inline]
    fn candidates(&self, game: &FoxGame, from: u8, to: u8) -> Bits {
        let near = &game.rules.board.neighbours;
        let (next_to, next_from) = (near[to as usize], near[from as usize]);
        let left = if self.most == 0 {
            // A point next to `to` has `to` among its free ones: none left only from one.
            (self.none | (self.one & next_to)) & !next_from
        } else {
            self.none | (self.one & (next_to | !next_from)) | (self.two & next_to & !next_from)
        };
        left & !(1u64 << to)
    }
}

impl SetView {
    fn new(sheep: Bits) -> SetView {
        let free = ALL_POINTS & !sheep;
        let mut points = [0u8; 32];
        for (k, p) in BitIter(free).enumerate() {
            points[k] = p;
        }
        SetView { sheep, free, points }
    }

    /// Both points are free (a jump from `a` landing on `t` applies).
    #[inline]
    fn both_free(&self, a: u8, t: u8) -> bool {
        self.free & (1 << a) != 0 && self.free & (1 << t) != 0
    }

    /// The index of free point `p` among the free points.
    #[inline]
    fn index_of(&self, p: u8) -> usize {
        (self.free & ((1u64 << p) - 1)).count_ones() as usize
    }
}

/// The board's jumps over one point, as (from, to).
type Jumps<'a> = &'a [(u8, u8)];

/// Jumps of the board grouped by the point jumped over: `(from, to)`.
struct JumpsOver {
    list: [[(u8, u8); 8]; 33],
    len: [u8; 33],
}

impl JumpsOver {
    fn new(game: &FoxGame) -> JumpsOver {
        let mut j = JumpsOver { list: [[(0, 0); 8]; 33], len: [0; 33] };
        let board = game.rules.board;
        for from in 0..33u8 {
            for jump in board.jumps_from(from) {
                let o = jump.over as usize;
                j.list[o][j.len[o] as usize] = (from, jump.to);
                j.len[o] += 1;
            }
        }
        j
    }

    fn over(&self, o: u8) -> Jumps<'_> {
        &self.list[o as usize][..self.len[o as usize] as usize]
    }
}

/// The board's jumps from each point as two masks: the points jumped over
/// and the landing points. A jump's direction orders both the same way
/// (points are numbered rank by rank, so `a + d` and `a + 2d` compare as
/// `d` does), so the `k`-th point of one mask belongs with the `k`-th of
/// the other, and one `pext`/`pdep` round finds every jump that applies.
/// Without BMI2 the jumps are tried one by one (`pairs`: the point jumped
/// over and the landing point, as one-bit sets).
///
/// `landing_over[a][o]` is the landing point of the jump from `a` over `o`
/// and `over_onto[a][t]` the point jumped over by the jump from `a` onto
/// `t`, or [`NO_POINT`] where there is no such jump (bit 63 is no point of
/// the board, so a shift by it selects nothing).
struct JumpMasks {
    over: [Bits; 33],
    to: [Bits; 33],
    pairs: [[(Bits, Bits); 8]; 33],
    count: [u8; 33],
    landing_over: [[u8; 33]; 33],
    over_onto: [[u8; 33]; 33],
}

/// No point of the board, as a bit number outside [`ALL_POINTS`].
const NO_POINT: u8 = 63;

impl JumpMasks {
    fn new(game: &FoxGame) -> JumpMasks {
        let mut m = JumpMasks {
            over: [0; 33],
            to: [0; 33],
            pairs: [[(0, 0); 8]; 33],
            count: [0; 33],
            landing_over: [[NO_POINT; 33]; 33],
            over_onto: [[NO_POINT; 33]; 33],
        };
        let board = game.rules.board;
        for a in 0..33u8 {
            let mut jumps: Vec<(u8, u8)> = board.jumps_from(a).iter().map(|j| (j.over, j.to)).collect();
            jumps.sort_unstable();
            assert!(jumps.windows(2).all(|w| w[0].1 < w[1].1), "the jumps from {a} keep one order");
            for (over, to) in jumps {
                m.over[a as usize] |= 1 << over;
                m.to[a as usize] |= 1 << to;
                m.pairs[a as usize][m.count[a as usize] as usize] = (1 << over, 1 << to);
                m.count[a as usize] += 1;
                m.landing_over[a as usize][over as usize] = to;
                m.over_onto[a as usize][to as usize] = over;
            }
        }
        m
    }

    /// The landing points of the jumps from `a` over a sheep of `sheep` to a point of `free`.
    #[inline(always)]
    fn landings<const BMI2: bool>(&self, a: u8, sheep: Bits, free: Bits) -> Bits {
        if !BMI2 {
            let mut landings = 0;
            for &(over, to) in &self.pairs[a as usize][..self.count[a as usize] as usize] {
                landings |= to & ((sheep & over != 0) as u64).wrapping_neg() & free;
            }
            return landings;
        }
        let (over, to) = (self.over[a as usize], self.to[a as usize]);
        pdep::<BMI2>(pext::<BMI2>(sheep, over) & pext::<BMI2>(free, to), to)
    }
}

/// A child tier's table, borrowed: the kernel's children, or tables a
/// verification has loaded.
#[derive(Clone, Copy)]
pub struct ChildRef<'a> {
    pub tier: FoxTier,
    pub index: &'a TierIndex,
    pub values: &'a PackedValues,
    /// Its plies, for a solve with plies.
    pub plies: Option<&'a Plies>,
    /// Where its [`ChildPlanes`](child_planes::ChildPlanes) are kept for later parents ([`KeptPlanes`]);
    /// `None`: built for this solve alone.
    pub planes: Option<&'a KeptPlanes>,
}

impl<'a> ChildRef<'a> {
    /// The values of tables a verification has loaded, as children (no plies).
    pub fn values_of(loaded: &[&'a foxbase_tables::tiered::WholeTier<FoxGame>]) -> Vec<ChildRef<'a>> {
        loaded
            .iter()
            .map(|c| ChildRef { tier: c.tier, index: &c.index, values: &c.values, plies: None, planes: None })
            .collect()
    }
}

/// What a solve needs everywhere.
struct Ctx<'a> {
    game: &'a FoxGame,
    tier: FoxTier,
    index: TierIndex,
    children: &'a [ChildRef<'a>],
    jumps_over: JumpsOver,
    jump_masks: JumpMasks,
    /// Free points per sheep set (every set of the tier has as many sheep).
    n: usize,
    /// The tier has one fox: a plane is one row (bit `i`: the fox on the
    /// `i`-th free point) instead of `n`.
    one_fox: bool,
    /// Rows per plane, and `u32`s per side of a block.
    rows: usize,
    stride: usize,
    /// Slots per sheep set.
    per_set: u64,
    /// The solve computes plies: wins from outside the tier wait for their
    /// ply (see [`PlyScratch`]) instead of being decided at the start.
    plies: bool,
    /// The plies are to zeroing (DTZ): a move out of the tier counts 1 ply
    /// (its child 0), and the children's plies are not read.
    to_zeroing: bool,
    /// The plies to zeroing are exact, and stop at this many plies: a
    /// no-progress rule of N plies (0: none). See [`exact`].
    exact_cap: u32,
    /// A capture into a tier without a table (fewer than F sheep left, or
    /// K) wins for the fox; false below a sheep floor won by the sheep.
    capture_out_wins: bool,
    /// Every capture from this tier ends the game, won by the fox (a floor
    /// F won by the foxes at this tier's sheep count, or K): a fox to move
    /// with a jump has won, whatever its children would say.
    captures_win_at_once: bool,
    /// Where the sheep sets a move leads to are ([`Ctx::target`]).
    places: Places,
    /// Per child (as `children`): its blocks' fox-to-move planes with
    /// trapped foxes valued, for the sheep steps into it
    /// ([`ChildPlanes`](child_planes::ChildPlanes); a solve of values only). Empty elsewhere: every
    /// step then finds its trapped foxes and decodes its child itself.
    child_planes: Vec<Option<HeldPlanes<'a>>>,
    /// The trapped foxes of every block of the tier, for the sideways
    /// steps into it ([`BlockTraps`]; a solve of values only). `None`
    /// elsewhere: each sideways step then records the foxes it traps.
    block_traps: Option<BlockTraps>,
    /// Some sheep step's target is read from a block's line
    /// ([`ChildPlanes`](child_planes::ChildPlanes), [`BlockTraps`]): the initial pass fetches them ahead.
    reads_lines: bool,
}

/// Where the sheep sets after a move are, by the ranks the move changes:
/// worked out once per tier, so that a move's target costs one lookup and
/// the ranking of its set, instead of the set's tier and a search of the
/// children for it.
struct Places {
    /// `[f][lost][gained]`: with `f` foxes fewer (0 or 1), a sheep gone
    /// from rank `lost` and one come to rank `gained` (7: none, a capture).
    by_change: [[[Place; 8]; 7]; 2],
    /// The rank of each point.
    rank_of: [u8; 33],
}

/// [`Target`] without the set's rank.
#[derive(Clone, Copy)]
enum Place {
    InTier,
    Child(usize),
    NoTable,
}

impl Places {
    /// The places of `tier`'s moves, given its child tiers in order.
    fn new(tier: FoxTier, children: &[FoxTier]) -> Places {
        let mut rank_of = [0u8; 33];
        for (y, (&start, &width)) in RANK_START.iter().zip(&RANK_WIDTH).enumerate() {
            for p in start..start + width {
                rank_of[p as usize] = y as u8;
            }
        }
        let mut by_change = [[[Place::NoTable; 8]; 7]; 2];
        for (fewer, per_fewer) in by_change.iter_mut().enumerate() {
            let Some(foxes) = tier.foxes().checked_sub(fewer as u32) else { continue };
            for (lost, per_lost) in per_fewer.iter_mut().enumerate() {
                for (gained, place) in per_lost.iter_mut().enumerate() {
                    let mut counts = tier.counts();
                    let Some(c) = counts[lost].checked_sub(1) else { continue };
                    counts[lost] = c;
                    if gained < 7 {
                        counts[gained] += 1;
                    }
                    let Some(t) = FoxTier::new(foxes as u8, counts) else { continue };
                    *place = if t == tier {
                        Place::InTier
                    } else {
                        children.iter().position(|&c| c == t).map_or(Place::NoTable, Place::Child)
                    };
                }
            }
        }
        Places { by_change, rank_of }
    }
}

/// Which foxes a sheep step traps ([`Ctx::trapped_rows`]). With two foxes,
/// row `i` of `mine`, bit `j`: the fox on the `i`-th free point is trapped
/// with the other on the `j`-th; the transpose, "the fox on `j` is trapped
/// with the other on `i`", is [`Traps::theirs`]. A fox trapped wherever the
/// other stands fills a whole row of `mine` and is kept in `anywhere`, not
/// as a bit in every row of the transpose.
#[derive(Default)]
struct Traps {
    mine: Rows,
    /// The transpose of the rows of foxes trapped with one partner.
    theirs: Rows,
    /// The points whose fox is trapped wherever the other stands.
    anywhere: u32,
    /// The rows of placements with a fox on them (every free point but the step's `to`).
    rows: u32,
}

impl Traps {
    /// Row `i` of the transpose of `mine`.
    #[inline(always)]
    fn theirs(&self, i: usize) -> u32 {
        let row_is_placed = (((self.rows & BIT[i]) != 0) as u32).wrapping_neg();
        self.theirs[i] | (self.anywhere & !BIT[i] & row_is_placed)
    }
}

/// Per-thread scratch.
#[derive(Default)]
struct Scratch {
    /// [`Ctx::trapped_rows`] of the sheep step at hand.
    traps: Traps,
    plies: PlyScratch,
    /// The block's [`MirrorTable`], for children stored mirrored.
    mirror: MirrorTable,
    /// The initial pass's sheep steps of the block at hand: from and to,
    /// and apart, each one's target. (A vector of the three together was
    /// filled through a copy on the stack whose 16-byte reads straddled
    /// its writes, which stalls the loads: on the crowded stand-in
    /// `perf annotate` put a sixth of `init_block`'s own samples there,
    /// and its initial pass takes 2 % less time without it.)
    steps: Vec<(u8, u8)>,
    step_targets: Vec<Target>,
    /// The block's sheep steps into child blocks of [`child_planes`], in a
    /// solve of values or of plies to zeroing.
    step_rows: StepRows,
}

/// A sideways sheep step of a block, as the initial pass found it, so that
/// the sheep phases (which read it again in every phase the block is
/// recomputed in) neither rank the set it leads to nor look for trapped
/// foxes again.
#[derive(Clone, Copy)]
struct SidewaysStep {
    /// The block (sheep set of this tier) the step leads to.
    child: u32,
    /// The points (as `kt` counts them) of the foxes the step traps
    /// whoever the other fox is: no move left at all (with one fox, every
    /// trapped fox).
    anywhere: u32,
    /// The pairs of foxes of which the step traps one ([`Trapped`]):
    /// `trap_count` entries of [`Sideways::traps`] from here on.
    traps: u32,
    trap_count: u8,
    /// The index of the point the sheep steps to, among the free points of
    /// the coordinates the child is read in (this set's, or its mirror
    /// image's when `mirrored`): a fox there blocks the step.
    kt: u8,
    /// The set the step leads to is stored mirrored.
    mirrored: bool,
}

/// Where a sheep phase reads the fox planes of the blocks its sideways
/// steps lead to: every block's ([`AllBlocks`]), or in a colour pass
/// those of the other colour ([`colours`]).
trait FoxPlanes {
    /// Block `b`'s fox planes ([`Ctx::stride`] `u32`s).
    fn block(&self, b: usize) -> &[u32];

    /// Block `b`'s won and lost rows, its trapped foxes taken out, in one
    /// line, where they are kept (in colour passes over a tier with
    /// [`BlockTraps`]).
    fn line(&self, _b: usize) -> Option<&Line> {
        None
    }
}

/// The fox planes of every block of a tier, `stride` `u32`s a block.
struct AllBlocks<'a> {
    planes: &'a [u32],
    stride: usize,
}

impl FoxPlanes for AllBlocks<'_> {
    #[inline]
    fn block(&self, b: usize) -> &[u32] {
        &self.planes[b * self.stride..][..self.stride]
    }
}

/// Two foxes of which a sideways step traps the first, in the coordinates
/// the step's child is read in: the fox on the `.0`-th free point, when the
/// other fox stands on the `.1`-th (the one point left to it). A fox with
/// no move left at all is in [`SidewaysStep::anywhere`] instead.
type Trapped = (u8, u8);

/// The sideways sheep steps of consecutive blocks (one work item's, or
/// one block's), from the initial pass.
#[derive(Default)]
struct Sideways {
    /// Block `b`'s steps are `steps[first[b]..first[b + 1]]`.
    first: Vec<u32>,
    steps: Vec<SidewaysStep>,
    /// The foxes the steps trap: in those placements a step's child is
    /// not its block (the initial pass valued it).
    traps: Vec<Trapped>,
}

impl Sideways {
    fn clear(&mut self) {
        self.first.clear();
        self.first.push(0);
        self.steps.clear();
        self.traps.clear();
    }

    /// Closes the block whose steps were pushed since the last one.
    fn end_block(&mut self) {
        self.first.push(self.steps.len() as u32);
    }

    /// The `b`-th block's steps.
    fn block(&self, b: usize) -> &[SidewaysStep] {
        &self.steps[self.first[b] as usize..self.first[b + 1] as usize]
    }

    /// Sets in `pairs` (clear before) row `i`, bit `j` for the foxes on
    /// `i` and `j` when the step traps one of them only there.
    #[inline]
    fn trap_pairs(&self, step: &SidewaysStep, pairs: &mut Rows) {
        for &(a, b) in &self.traps[step.traps as usize..][..step.trap_count as usize] {
            pairs[a as usize] |= 1 << b;
            pairs[b as usize] |= 1 << a;
        }
    }
}

/// Solves a Fox Game tier with the plane kernel, on the calling thread's rayon pool.
/// Same preconditions and results as [`crate::kernel::solve_in_pool`].
pub fn solve_planes_in_pool(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildTable<FoxGame>],
) -> Result<SolvedTier, KernelError> {
    if bmi2_in_use() {
        solve_any::<true, _>(game, tier, children, true, None)
    } else {
        solve_any::<false, _>(game, tier, children, true, None)
    }
}

/// [`solve_planes_in_pool`] that frees the child tables as soon as the
/// initial pass has read them (a worker's solve: lower peak memory), and
/// with a `distance` computes plies too (for DTM the children then hold
/// plies; the result equals [`crate::plies_kernel`]'s).
pub fn solve_planes_owning(
    game: &FoxGame,
    tier: FoxTier,
    children: Vec<ChildTable<FoxGame>>,
    distance: Option<Distance>,
) -> Result<SolvedTier, KernelError> {
    if bmi2_in_use() {
        solve_any::<true, _>(game, tier, children, true, distance)
    } else {
        solve_any::<false, _>(game, tier, children, true, distance)
    }
}

/// [`solve_planes_in_pool`] with plies (`distance`; borrowed children that hold plies for DTM).
pub fn solve_planes_with_plies(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildTable<FoxGame>],
    distance: Distance,
) -> Result<SolvedTier, KernelError> {
    if bmi2_in_use() {
        solve_any::<true, _>(game, tier, children, true, Some(distance))
    } else {
        solve_any::<false, _>(game, tier, children, true, Some(distance))
    }
}

/// The benchmark's floor for the plane kernel: its initial pass alone over
/// a tier (every child read once, no phases, nothing kept). Returns the
/// seconds it took.
pub fn sweep_planes_in_pool(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildTable<FoxGame>],
) -> Result<f64, KernelError> {
    let started = std::time::Instant::now();
    if bmi2_in_use() {
        solve_any::<true, _>(game, tier, children, false, None)?;
    } else {
        solve_any::<false, _>(game, tier, children, false, None)?;
    }
    Ok(started.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A move's place by the ranks it changes is where `Target::among`
    /// finds its set, for every sheep step and capture of every set of the
    /// tiers of a small variant (both geometries; with the foxes kept and
    /// one removed), whatever children a tier has loaded.
    #[test]
    fn places_by_rank_change_agree_with_target_among() {
        use foxbase_core::notation::parse_position;
        use foxbase_core::{Geometry, Variant};
        for geometry in [Geometry::Classic, Geometry::Orthogonal] {
            let start = parse_position("F.F/.../......./......./.SSSS../S.S/.S. f").unwrap();
            let game = FoxGame::new(Variant::new(geometry, 3, start).unwrap());
            let board = game.rules.board;
            let mut checked = 0u64;
            for tier in game.child_tiers(game.tier_of(&start)).into_iter().chain([game.tier_of(&start)]) {
                let index = game.tier_index(tier);
                // All children, and every other one: a missing child is no table.
                let all = game.child_tiers(tier);
                let some: Vec<FoxTier> = all.iter().copied().step_by(2).collect();
                for children in [&all, &some] {
                    let places = Places::new(tier, children);
                    let indexes: Vec<TierIndex> = children.iter().map(|&c| game.tier_index(c)).collect();
                    let kind = |t: Target| match t {
                        Target::InTier(_) => (0, 0),
                        Target::Child(c, _) => (1, c),
                        Target::NoTable => (2, 0),
                    };
                    let place = |p: Place| match p {
                        Place::InTier => (0, 0),
                        Place::Child(c) => (1, c),
                        Place::NoTable => (2, 0),
                    };
                    for set in 0..index.sheep_sets {
                        let sheep = index.sheep_set(set);
                        for foxes in [tier.foxes(), tier.foxes() - 1] {
                            let among = |after: Bits| {
                                let kids = children.iter().copied().zip(indexes.iter());
                                kind(Target::among(tier, &index, kids, after, foxes))
                            };
                            let fewer = (tier.foxes() - foxes) as usize;
                            let rank = |p: u8| places.rank_of[p as usize] as usize;
                            for from in BitIter(sheep) {
                                for to in BitIter(board.sheep_steps[from as usize] & !sheep) {
                                    let moved = sheep ^ (1 << from) ^ (1 << to);
                                    let by_change = places.by_change[fewer][rank(from)][rank(to)];
                                    assert_eq!(place(by_change), among(moved), "{tier:?} {from}->{to}");
                                    checked += 1;
                                }
                                let after = sheep ^ (1 << from);
                                assert_eq!(place(places.by_change[fewer][rank(from)][7]), among(after));
                            }
                        }
                    }
                }
            }
            assert!(checked > 10_000, "{checked}");
        }
    }

    #[test]
    fn transpose32_matches_the_definition() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..200 {
            let mut a: Rows = [0; 32];
            for r in a.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *r = x as u32;
            }
            let mut t = a;
            transpose32(&mut t);
            for (i, row) in t.iter().enumerate() {
                for (j, column) in a.iter().enumerate() {
                    assert_eq!((row >> j) & 1, (column >> i) & 1, "{round}: {i} {j}");
                }
            }
            let mut rounds = a;
            transpose_rounds(&mut rounds, 16, 0x0000_FFFF);
            assert_eq!(rounds, t, "{round}: the scalar rounds");
        }
    }

    #[test]
    fn a_child_row_decoded_alone_is_that_row_of_the_whole_block() {
        use foxbase_tables::packed::PackedValues;
        let mut x = 0x0123_4567_89AB_CDEFu64;
        for n in [2, 13, 17, 21, 26, 31] {
            let per_set = (n * (n - 1)) as u64;
            let mut values = PackedValues::filled(3 * per_set + 5, 0);
            for i in 0..3 * per_set + 5 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                values.set_code(i, (x % 4) as u8);
            }
            for (base, side) in [(0, 0), (per_set, 1), (2 * per_set + 5 - per_set % 2, 0)] {
                let (mut won, mut lost): (Rows, Rows) = ([0; 32], [0; 32]);
                decode_child::<false>(&values, base, n, side, false, 0, &mut won, &mut lost);
                for r in 0..n {
                    let want = (won[r], lost[r]);
                    assert_eq!(decode_child_row::<false>(&values, base, n, side, r), want, "{n} {base} {side} {r}");
                    if bmi2_in_use() {
                        assert_eq!(decode_child_row::<true>(&values, base, n, side, r), want, "{n} {base} {side} {r}");
                    }
                }
            }
        }
    }

    #[test]
    fn transpose_pair_matches_transpose32() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        };
        for n in [1, 2, 13, 15, 16, 17, 24, 31] {
            for _ in 0..50 {
                let (mut a, mut b): (Rows, Rows) = ([0; 32], [0; 32]);
                for i in 0..n {
                    a[i] = next() & row_mask(n);
                    b[i] = next() & row_mask(n);
                }
                let (mut ta, mut tb) = (a, b);
                transpose32(&mut ta);
                transpose32(&mut tb);
                transpose_pair(&mut a, &mut b, n);
                assert_eq!((a, b), (ta, tb), "{n} rows");
            }
        }
    }

    #[test]
    fn neighbour_counts_count_free_neighbours() {
        for geometry in foxbase_core::Geometry::ALL {
            let game = FoxGame::new(foxbase_core::Variant { geometry, ..foxbase_core::Variant::default() });
            let mut x = 0x0123_4567_89AB_CDEFu64;
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let free = x & (x >> 3) & ALL_POINTS;
                let counts = neighbour_counts(&game, free);
                for p in BitIter(free) {
                    let count = (game.rules.board.neighbours[p as usize] & free).count_ones() as usize;
                    for (c, mask) in counts.iter().enumerate() {
                        assert_eq!(mask & (1 << p) != 0, count == c, "{free:x} {p}");
                    }
                }
                assert_eq!((counts[0] | counts[1] | counts[2]) & !free, 0);
            }
        }
    }

    /// The trap candidates of a sheep step are exactly the free points
    /// (but `to`) left with at most 0 or 1 free neighbours, and the jump
    /// landings after the step from the block's are those found afresh, on
    /// random boards and steps of both geometries.
    #[test]
    fn trap_candidates_are_the_points_left_cramped() {
        for geometry in foxbase_core::Geometry::ALL {
            let game = FoxGame::new(foxbase_core::Variant { geometry, ..foxbase_core::Variant::default() });
            let board = game.rules.board;
            let masks = JumpMasks::new(&game);
            let mut x = 0x0F1E_2D3C_4B5A_6978u64;
            let mut checked = 0;
            for _ in 0..3000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let sheep = x & (x >> 5 | x >> 11) & ALL_POINTS;
                let view = SetView::new(sheep);
                let cramped = [1, 2].map(|foxes| Cramped::new::<false>(&game, &masks, &view, foxes));
                for from in BitIter(sheep) {
                    for to in BitIter(board.sheep_steps[from as usize] & view.free) {
                        let free_after = view.free ^ (1 << from) ^ (1 << to);
                        for most in [0, 1] {
                            let mut want = 0;
                            for p in BitIter(view.free & !(1 << to)) {
                                if (board.neighbours[p as usize] & free_after).count_ones() <= most {
                                    want |= 1 << p;
                                }
                            }
                            let cramped = &cramped[most as usize];
                            let candidates = cramped.candidates(&game, from, to);
                            assert_eq!(candidates, want, "{sheep:x} {from}->{to}");
                            let moved = sheep ^ (1 << from) ^ (1 << to);
                            for a in BitIter(candidates) {
                                assert_eq!(
                                    cramped.landings_after(&masks, a, moved, free_after, (from, to)),
                                    masks.landings::<false>(a, moved, free_after),
                                    "{sheep:x} {from}->{to}, fox on {a}"
                                );
                            }
                            checked += 1;
                        }
                    }
                }
            }
            assert!(checked > 10_000, "{checked}");
        }
    }

    #[test]
    fn jump_masks_find_the_jumps_the_board_lists() {
        use foxbase_core::{Geometry, Variant};
        for geometry in Geometry::ALL {
            let game = FoxGame::new(Variant::new(geometry, 9, Variant::default().start).unwrap());
            let masks = JumpMasks::new(&game);
            let board = game.rules.board;
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..20_000 {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let (sheep, free) = (state & ALL_POINTS, (state >> 31) & ALL_POINTS & !state);
                let a = (state >> 58) as u8 % 33;
                let mut want = 0;
                for j in board.jumps_from(a) {
                    if sheep & (1 << j.over) != 0 && free & (1 << j.to) != 0 {
                        want |= 1u64 << j.to;
                    }
                }
                assert_eq!(masks.landings::<false>(a, sheep, free), want, "{geometry} from {a}");
                if bmi2_in_use() {
                    assert_eq!(masks.landings::<true>(a, sheep, free), want, "{geometry} from {a}");
                }
            }
        }
    }

    /// The shift-and-table column maps equal `pdep`, `mirror_bits` and
    /// `pext` on the maps the kernel makes: every sheep step (child with
    /// the step's set, mirrored or not) and every capture (child with one
    /// sheep fewer) of random sets; and the nibble gathers and spreads
    /// equal `pext`/`pdep` with their masks.
    #[test]
    fn column_maps_and_nibble_rounds_equal_pdep_and_pext() {
        let game = FoxGame::new(foxbase_core::Variant::default());
        let board = game.rules.board;
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut mirror, mut checked, mut mirrored) = (MirrorTable::default(), 0, 0);
        for _ in 0..3000 {
            let r = next();
            let sheep = r & (r >> 7 | r >> 19) & ALL_POINTS;
            let view = SetView::new(sheep);
            let n = view.free.count_ones() as usize;
            if n > 32 || n == 0 {
                continue;
            }
            let mut children: Vec<Bits> = Vec::new();
            for from in BitIter(sheep) {
                children.push(sheep ^ (1 << from));
                for to in BitIter(board.sheep_steps[from as usize] & view.free) {
                    children.push(sheep ^ (1 << from) ^ (1 << to));
                }
            }
            for child in children {
                let canonical = child.min(mirror_bits(child));
                let (child_free, is_mirrored) = (ALL_POINTS & !canonical, canonical != child);
                let map = ColumnMap::new(child_free, is_mirrored, view.free);
                mirror.set_free(view.free);
                let rows: Vec<u32> =
                    (0..32).map(|_| next() as u32 & row_mask(child_free.count_ones() as usize)).collect();
                for &p in &view.points[..n] {
                    let q = if is_mirrored { mirror_point(p) } else { p };
                    let ic = (child_free & ((1u64 << q) - 1)).count_ones() as usize;
                    let want = map_columns::<false>(rows[ic], child_free, is_mirrored, view.free);
                    assert_eq!(map.row(&rows, p, &mirror), want, "{sheep:x} -> {child:x}, fox on {p}");
                    checked += 1;
                }
                mirrored += is_mirrored as usize;
            }
        }
        assert!(checked > 100_000 && mirrored > 1000, "{checked} rows, {mirrored} mirrored children");
        for _ in 0..10_000 {
            let v = next();
            for shift in 0..4 {
                assert_eq!(nibble_gather::<false>(v, shift) as u64, pext::<false>(v, 0x1111_1111_1111_1111 << shift));
            }
            assert_eq!(nibble_spread::<false>(v as u32), pdep::<false>(v & 0xFFFF, 0x1111_1111_1111_1111));
        }
    }

    #[test]
    fn the_bmi2_and_portable_bit_operations_agree() {
        let mut x = 0x0123_4567_89AB_CDEFu64;
        let mut m = 0xF0F0_0FF0_1234_8001u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            m = m.rotate_left(7) ^ x;
            let mask = m & ALL_POINTS;
            assert_eq!(pext::<false>(pdep::<false>(x, mask), mask), x & ((1u64 << mask.count_ones()) - 1));
            if bmi2_in_use() {
                assert_eq!(pdep::<true>(x, mask), bitops::pdep_portable(x, mask));
                assert_eq!(pext::<true>(x, mask), bitops::pext_portable(x, mask));
            }
        }
        // Known values.
        assert_eq!(bitops::pdep_portable(0b101, 0b1101_0000), 0b1001_0000);
        assert_eq!(bitops::pext_portable(0b1001_0000, 0b1101_0000), 0b101);
    }

    /// Plies that outgrow their bytes go on in two: a solve with counts
    /// held in a type of at most 7 plies (widened in the middle of its
    /// phases for plies to zeroing, solved again in two bytes when a
    /// child's plies to the end do not fit) writes what a solve in two
    /// bytes writes, tier by tier, on a variant whose counts pass 7.
    #[test]
    fn plies_that_outgrow_their_bytes_are_widened_to_the_same_counts() {
        use foxbase_core::notation::parse_position;
        use std::collections::{BTreeMap, BTreeSet};

        #[derive(Clone, Copy, Default)]
        struct Tiny(u8);
        impl Ply for Tiny {
            const MAX: u32 = 7;
            fn get(self) -> u32 {
                self.0 as u32
            }
            fn put(v: u32) -> Tiny {
                Tiny(v as u8)
            }
            fn into_plies(plies: Vec<Tiny>) -> Plies {
                Plies::from_bytes(plies.into_iter().map(|t| t.0).collect())
            }
        }

        fn plan(game: &FoxGame, t: FoxTier, done: &mut BTreeSet<FoxTier>, order: &mut Vec<FoxTier>) {
            if done.insert(t) {
                for c in game.child_tiers(t) {
                    plan(game, c, done, order);
                }
                order.push(t);
            }
        }
        let start = parse_position(".F./.../......./......./SSS..../.../... f").unwrap();
        let game = FoxGame::new(foxbase_core::Variant::new(foxbase_core::board::Geometry::Classic, 2, start).unwrap());
        let mut order = Vec::new();
        plan(&game, game.tier_of(&start), &mut BTreeSet::new(), &mut order);
        for distance in [Distance::Dtz, Distance::Dtm] {
            let mut solved: BTreeMap<FoxTier, SolvedTier> = BTreeMap::new();
            let mut past_tiny = 0;
            for &t in &order {
                let children = || -> Vec<ChildTable<FoxGame>> {
                    game.child_tiers(t)
                        .into_iter()
                        .map(|c| {
                            ChildTable::new(
                                c,
                                game.tier_index(c),
                                solved[&c].values.clone().into(),
                                solved[&c].plies.clone(),
                            )
                        })
                        .collect()
                };
                let narrow = solve::<false, Tiny, _>(&game, t, children(), true, Some(distance)).unwrap();
                let wide = solve::<false, u16, _>(&game, t, children(), true, Some(distance)).unwrap();
                assert_eq!(narrow.values.bytes(), wide.values.bytes(), "{distance} {}", t.name());
                // By count: a widened solve holds two bytes a count where the other may hold one.
                let counts = |s: &SolvedTier| {
                    let p = s.plies.as_ref().unwrap();
                    (0..p.len()).map(|i| p.get(i)).collect::<Vec<u16>>()
                };
                assert_eq!(counts(&narrow), counts(&wide), "{distance} {}", t.name());
                assert_eq!(narrow.stats, wide.stats, "{distance} {}", t.name());
                past_tiny += (wide.plies.as_ref().unwrap().max() > 7) as usize;
                solved.insert(t, wide);
            }
            assert!(past_tiny > 3, "{distance}: {past_tiny} of {} tiers count past 7 plies", order.len());
            eprintln!("{distance}: {past_tiny} of {} tiers count past 7 plies", order.len());
        }
    }
}
