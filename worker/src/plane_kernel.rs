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
//! that leads to it) and records the block's sideways sheep steps (the
//! block each leads to, and the placements in which it traps a fox), then
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
//!
//! The few placements that need per-position care go through a scalar
//! path in the initial pass: a sheep step that traps a fox (which is then
//! removed, so the child is in a tier with one fox fewer) and children in
//! tiers without a table. The tables are byte-identical to the counter
//! kernel's (tested). [`check_tier`] re-derives a stored tier with the same
//! machinery for `foxbase verify`.
//!
//! The per-block functions of the passes are kept out of line
//! (`#[inline(never)]`) so that profiles attribute time to them.

use crate::fox_kernel::Target;
use crate::kernel::{ChildTable, KernelError, Phases, SolvedTier, TierStats};
use foxbase_core::board::{mirror_bits, BitIter, Bits, ALL_POINTS, PEN, RANK_START, RANK_WIDTH};
use foxbase_core::foxgame::{bmi2_available, FoxGame, FoxTier, SetRank, TierIndex};
use foxbase_core::tier::TierGame;
use foxbase_core::{Position, Side, Value};
use foxbase_tables::packed::PackedValues;
use foxbase_tables::plies::Plies;
use rayon::prelude::*;

/// The rows of one plane (at most 32 free points: a tier has a sheep).
type Rows = [u32; 32];

/// Planes of one side of a block, in this order, `n` rows each.
const WON: usize = 0;
const LOST: usize = 1;
const CANNOT_LOSE: usize = 2;
const PLANES: usize = 3;

/// Blocks per parallel work item (even, so that an item's slots fill whole bytes).
const BLOCKS_PER_ITEM: usize = 64;

const WIN_CODE: u8 = 1;
const LOSS_CODE: u8 = 2;

/// `pdep`/`pext`: BMI2 instructions where the CPU has them, portable loops
/// elsewhere. The kernel is instantiated for both; [`bmi2_available`]
/// picks one per solve.
mod bitops {
    use foxbase_core::board::Bits;

    /// Deposits the low bits of `x` at the set bits of `mask`, in order.
    #[inline(always)]
    pub fn pdep<const BMI2: bool>(x: Bits, mask: Bits) -> Bits {
        #[cfg(target_arch = "x86_64")]
        if BMI2 {
            let r: u64;
            // SAFETY: `pdep` only reads and writes the registers named here.
            // The kernel is instantiated with BMI2 = true only after
            // `bmi2_available()` found the instruction on this CPU.
            unsafe {
                core::arch::asm!("pdep {r}, {x}, {m}", r = lateout(reg) r, x = in(reg) x, m = in(reg) mask,
                    options(pure, nomem, nostack, preserves_flags));
            }
            return r;
        }
        pdep_portable(x, mask)
    }

    /// Gathers the bits of `x` at the set bits of `mask` into the low bits, in order.
    #[inline(always)]
    pub fn pext<const BMI2: bool>(x: Bits, mask: Bits) -> Bits {
        #[cfg(target_arch = "x86_64")]
        if BMI2 {
            let r: u64;
            // SAFETY: as in `pdep`.
            unsafe {
                core::arch::asm!("pext {r}, {x}, {m}", r = lateout(reg) r, x = in(reg) x, m = in(reg) mask,
                    options(pure, nomem, nostack, preserves_flags));
            }
            return r;
        }
        pext_portable(x, mask)
    }

    /// [`pdep`] without BMI2.
    #[inline]
    pub fn pdep_portable(x: Bits, mut mask: Bits) -> Bits {
        let (mut r, mut k) = (0, 1u64);
        while mask != 0 {
            let low = mask & mask.wrapping_neg();
            if x & k != 0 {
                r |= low;
            }
            mask ^= low;
            k <<= 1;
        }
        r
    }

    /// [`pext`] without BMI2.
    #[inline]
    pub fn pext_portable(x: Bits, mut mask: Bits) -> Bits {
        let (mut r, mut k) = (0, 1u64);
        while mask != 0 {
            let low = mask & mask.wrapping_neg();
            if x & low != 0 {
                r |= k;
            }
            mask ^= low;
            k <<= 1;
        }
        r
    }
}

use bitops::{pdep, pext};

/// Transposes a 32 x 32 bit matrix (row `i`, bit `j`) in place.
#[inline]
pub fn transpose32(a: &mut Rows) {
    transpose_rounds(a, 16, 0x0000_FFFF);
}

/// The swap rounds of a bit-matrix transpose over `c.len()` rows, from
/// swapping `j`-bit blocks (`m`: the low `j` bits of each `2j`-bit group)
/// down to single bits.
#[inline(always)]
fn transpose_rounds(c: &mut [u32], mut j: usize, mut m: u32) {
    while j != 0 {
        let mut k = 0;
        while k < c.len() {
            let t = ((c[k] >> j) ^ c[k + j]) & m;
            c[k + j] ^= t;
            c[k] ^= t << j;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// Transposes two bit matrices of `n` rows and columns at once: when both
/// fit 16 x 16 (the crowded tiers, with 13 free points), as the two halves
/// of one 16-row matrix of `u32`s, one round cheaper and half the rows of
/// [`transpose32`] for both; else each with [`transpose32`]. Rows and
/// columns from `n` on must be clear.
#[inline]
pub fn transpose_pair(a: &mut Rows, b: &mut Rows, n: usize) {
    if n > 16 {
        transpose32(a);
        transpose32(b);
        return;
    }
    let mut c = [0u32; 16];
    for (i, x) in c.iter_mut().enumerate() {
        *x = a[i] | b[i] << 16;
    }
    // transpose32's rounds from the 8-bit one on, each mask repeated in both halves.
    transpose_rounds(&mut c, 8, 0x00FF_00FF);
    for (i, x) in c.iter().enumerate() {
        a[i] = x & 0xFFFF;
        b[i] = x >> 16;
    }
}

/// Asks the CPU to bring `x`'s cache line closer ahead of its use: a hint
/// (the sheep phases read other blocks' planes, scattered over the tier).
#[inline(always)]
fn prefetch(x: &u32) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and writes nothing; `x` is a valid reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const u32).cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// The bits of rows `0..n` (a row of an `n`-point block).
#[inline]
fn row_mask(n: usize) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// The point a point's mirror image is.
#[inline]
fn mirror_point(p: u8) -> u8 {
    mirror_bits(1 << p).trailing_zeros() as u8
}

/// The points of `free` with at most one free neighbour, and with exactly two.
#[inline]
fn neighbour_counts(game: &FoxGame, free: Bits) -> (Bits, Bits) {
    // Bit-sliced counters over all points at once: ones, twos, and "three or more".
    let (mut ones, mut twos, mut more) = (0u64, 0u64, 0u64);
    for q in BitIter(free) {
        let near = game.rules.board.neighbours[q as usize];
        let (o, t, m) = (ones, twos, more);
        more = m | (t & near);
        twos = (t & !near) | (o & near);
        ones = (o & !near) | (near & !(o | t | m));
    }
    (free & !(twos | more), free & twos)
}

/// A sheep set and its free points, in order.
struct SetView {
    sheep: Bits,
    free: Bits,
    points: [u8; 32],
}

/// Where a sheep step can trap a fox: the free points with at most one
/// free neighbour, and with exactly two. One sheep step fills one point
/// and frees another, so only a fox on one of these can be left with at
/// most one free neighbour by it.
#[derive(Clone, Copy)]
struct Cramped {
    tight: Bits,
    two_free: Bits,
}

impl Cramped {
    fn new(game: &FoxGame, view: &SetView) -> Cramped {
        let (tight, two_free) = neighbour_counts(game, view.free);
        Cramped { tight, two_free }
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

/// The row of a child block's plane (`rows`, in the coordinates of the
/// canonical set with free points `child_free`) for a fox on the parent's
/// point `p`, in the parent's columns (`parent_free`). `mirrored`: the
/// child's sheep set is the mirror image of the canonical one.
#[inline(always)]
fn child_row<const BMI2: bool>(rows: &[u32], child_free: Bits, mirrored: bool, p: u8, parent_free: Bits) -> u32 {
    let q = if mirrored { mirror_point(p) } else { p };
    let ic = (child_free & ((1u64 << q) - 1)).count_ones() as usize;
    map_columns::<BMI2>(rows[ic], child_free, mirrored, parent_free)
}

/// `m |= mirror(m)` for a plane of a symmetric sheep set with free points `free`.
fn fill_mirror<const BMI2: bool>(m: &mut Rows, free: Bits, n: usize) {
    let src = *m;
    for (i, p) in BitIter(free).enumerate().take(n) {
        let q = mirror_point(p);
        let j = (free & ((1u64 << q) - 1)).count_ones() as usize;
        m[j] |= pext::<BMI2>(mirror_bits(pdep::<BMI2>(src[i] as u64, free)), free) as u32;
    }
}

/// The won and lost bits of `len` consecutive placements of one side (0:
/// fox to move, 1: sheep to move) from the table slot `first_slot` (a fox
/// to move slot) on.
#[inline(always)]
fn row_codes<const BMI2: bool>(bytes: &[u8], first_slot: u64, len: usize, side: u64) -> (u32, u32) {
    if BMI2 {
        // The row's slots are contiguous (both sides interleaved, 4 bits per placement).
        let (low_mask, high_mask) = if side == 0 {
            (0x1111_1111_1111_1111u64, 0x2222_2222_2222_2222u64)
        } else {
            (0x4444_4444_4444_4444, 0x8888_8888_8888_8888)
        };
        let first_bit = 2 * first_slot;
        let (x0, x1) = (bits_at(bytes, first_bit), if len > 16 { bits_at(bytes, first_bit + 64) } else { 0 });
        let low = (pext::<BMI2>(x0, low_mask) | pext::<BMI2>(x1, low_mask) << 16) as u32;
        let high = (pext::<BMI2>(x0, high_mask) | pext::<BMI2>(x1, high_mask) << 16) as u32;
        // Codes: 1 win (low bit), 2 loss (high bit), 3 unused (both).
        let row = row_mask(len);
        (low & !high & row, high & !low & row)
    } else {
        let (mut w, mut l) = (0u32, 0u32);
        let mut slot = first_slot + side;
        for j in 0..len {
            let code = (bytes[(slot >> 2) as usize] >> ((slot & 3) * 2)) & 3;
            w |= ((code == WIN_CODE) as u32) << j;
            l |= ((code == LOSS_CODE) as u32) << j;
            slot += 2;
        }
        (w, l)
    }
}

/// The won and lost planes of one side (0: fox to move, 1: sheep to move)
/// of a canonical sheep set in a child table with two foxes, in that set's
/// coordinates.
#[allow(clippy::too_many_arguments)]
fn decode_child<const BMI2: bool>(
    values: &PackedValues,
    base: u64,
    n: usize,
    side: u64,
    symmetric: bool,
    free: Bits,
    won: &mut Rows,
    lost: &mut Rows,
) {
    *won = [0; 32];
    *lost = [0; 32];
    let bytes = values.bytes();
    let mut points = [0u8; 33];
    if symmetric {
        for (k, p) in BitIter(free).enumerate() {
            points[k] = p;
        }
    }
    for h in 1..n {
        let (mut w, mut l) = row_codes::<BMI2>(bytes, base + (h * (h - 1)) as u64, h, side);
        if symmetric {
            // Slots of mirror images hold whatever compressed best (a table
            // read from a file does not mark them unused): keep the stored ones.
            let mut used = 0u32;
            for j in 0..h {
                let foxes = (1u64 << points[h]) | (1u64 << points[j]);
                used |= ((mirror_bits(foxes) >= foxes) as u32) << j;
            }
            w &= used;
            l &= used;
        }
        won[h] = w;
        lost[h] = l;
    }
    // The table holds each placement once (higher point first): add the other half.
    let (mut won_t, mut lost_t) = (*won, *lost);
    transpose_pair(&mut won_t, &mut lost_t, n);
    for (m, t) in [(&mut *won, won_t), (&mut *lost, lost_t)] {
        for (r, x) in m.iter_mut().zip(t).take(n) {
            *r |= x;
        }
        if symmetric {
            fill_mirror::<BMI2>(m, free, n);
        }
    }
}

/// The won and lost rows of one side of a canonical sheep set in a child
/// table with one fox (bit `i`: the fox on the `i`-th free point).
fn decode_child_one<const BMI2: bool>(
    values: &PackedValues,
    base: u64,
    n: usize,
    side: u64,
    symmetric: bool,
    free: Bits,
) -> (u32, u32) {
    let (mut w, mut l) = row_codes::<BMI2>(values.bytes(), base, n, side);
    if symmetric {
        // Keep the stored half (see `decode_child`), then mirror it.
        let mut used = 0u32;
        for (j, p) in BitIter(free).enumerate() {
            used |= ((mirror_bits(1 << p) >= 1 << p) as u32) << j;
        }
        w &= used;
        l &= used;
        w |= map_columns::<BMI2>(w, free, true, free);
        l |= map_columns::<BMI2>(l, free, true, free);
    }
    (w, l)
}

/// A row over the free points `child_free` (of a canonical set) as a row
/// over `parent_free`; `mirrored`: the set the move leads to is the mirror
/// image of the canonical one.
#[inline(always)]
fn map_columns<const BMI2: bool>(row: u32, child_free: Bits, mirrored: bool, parent_free: Bits) -> u32 {
    let mut board = pdep::<BMI2>(row as u64, child_free);
    if mirrored {
        board = mirror_bits(board);
    }
    pext::<BMI2>(board, parent_free) as u32
}

/// The 64 bits of `bytes` (little-endian bit order) from bit `bit` on,
/// zeros past the end.
#[inline(always)]
fn bits_at(bytes: &[u8], bit: u64) -> u64 {
    let i = (bit >> 3) as usize;
    let mut word = [0u8; 16];
    if i + 16 <= bytes.len() {
        word.copy_from_slice(&bytes[i..i + 16]);
    } else if i < bytes.len() {
        word[..bytes.len() - i].copy_from_slice(&bytes[i..]);
    }
    (u128::from_le_bytes(word) >> (bit & 7)) as u64
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
struct JumpMasks {
    over: [Bits; 33],
    to: [Bits; 33],
}

impl JumpMasks {
    fn new(game: &FoxGame) -> JumpMasks {
        let mut m = JumpMasks { over: [0; 33], to: [0; 33] };
        let board = game.rules.board;
        for a in 0..33u8 {
            let mut jumps: Vec<(u8, u8)> = board.jumps_from(a).iter().map(|j| (j.over, j.to)).collect();
            jumps.sort_unstable();
            assert!(jumps.windows(2).all(|w| w[0].1 < w[1].1), "the jumps from {a} keep one order");
            for (over, to) in jumps {
                m.over[a as usize] |= 1 << over;
                m.to[a as usize] |= 1 << to;
            }
        }
        m
    }

    /// The landing points of the jumps from `a` over a sheep of `sheep` to a point of `free`.
    #[inline(always)]
    fn landings<const BMI2: bool>(&self, a: u8, sheep: Bits, free: Bits) -> Bits {
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
    /// A capture into a tier without a table (fewer than F sheep left, or
    /// K) wins for the fox; false below a sheep floor won by the sheep.
    capture_out_wins: bool,
    /// Where the sheep sets a move leads to are ([`Ctx::target`]).
    places: Places,
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

/// Which foxes a sheep step traps ([`Ctx::trapped_rows`]).
#[derive(Default)]
struct Traps {
    mine: Rows,
    theirs: Rows,
}

/// Per-thread scratch.
#[derive(Default)]
struct Scratch {
    /// [`Ctx::trapped_rows`] of the sheep step at hand.
    traps: Traps,
    plies: PlyScratch,
}

/// A sideways sheep step of a block, as the initial pass found it, so that
/// the sheep phases (which read it again in every phase the block is
/// recomputed in) neither rank the set it leads to nor look for trapped
/// foxes again.
#[derive(Clone, Copy)]
struct SidewaysStep {
    /// The block (sheep set of this tier) the step leads to.
    child: u32,
    /// Its trapped foxes: `trap_count` entries of [`Sideways::traps`] from here on.
    traps: u32,
    trap_count: u8,
    /// The index of the point the sheep steps to, among the free points of
    /// the coordinates the child is read in (this set's, or its mirror
    /// image's when `mirrored`): a fox there blocks the step.
    kt: u8,
    /// The set the step leads to is stored mirrored.
    mirrored: bool,
}

/// A fox the step traps whoever its partner is ([`Trapped`]).
const ANY_PARTNER: u8 = u8::MAX;

/// A fox a sideways step traps, in the coordinates the step's child is
/// read in: the fox on the `.0`-th free point, when the other fox stands
/// on the `.1`-th (the one point left to it) or anywhere ([`ANY_PARTNER`]:
/// no move left at all; always so with one fox).
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

    /// The placements in which `step` traps a fox: returns the points on
    /// which a fox is trapped whoever its partner is (all of them with one
    /// fox), and sets in `pairs` (clear before) row `i`, bit `j` for the
    /// foxes on `i` and `j` when one of them is trapped only there.
    #[inline]
    fn trap_masks(&self, step: &SidewaysStep, one_fox: bool, pairs: &mut Rows) -> u32 {
        let mut anywhere = 0u32;
        for &(a, b) in &self.traps[step.traps as usize..][..step.trap_count as usize] {
            if one_fox || b == ANY_PARTNER {
                anywhere |= 1 << a;
            } else {
                pairs[a as usize] |= 1 << b;
                pairs[b as usize] |= 1 << a;
            }
        }
        anywhere
    }
}

/// What the initial pass of a solve with plies learns about one block from
/// the children outside the tier, per side and placement (`[i][j]`: the
/// foxes on the block's `i`-th and `j`-th free points, filled both ways
/// round; one fox: row 0): the earliest ply a child lost for the opponent
/// wins it at (`win_at`, 1 + that child's plies; 0: none) and the earliest
/// ply it can be lost at (`floor`, 1 + the most plies of a child won for
/// the opponent; 0: none). A position won from outside waits for its ply
/// instead of being decided at the start, so that positions are decided in
/// order of their plies.
#[derive(Default)]
struct PlyScratch {
    win_at: [[[u16; 32]; 32]; 2],
    floor: [[[u16; 32]; 32]; 2],
}

impl PlyScratch {
    /// Clears the first `rows` rows of `n` entries (what a block of `n` free points uses).
    fn clear(&mut self, rows: usize, n: usize) {
        for side in [FOX, SHEEP] {
            for i in 0..rows {
                self.win_at[side][i][..n].fill(0);
                self.floor[side][i][..n].fill(0);
            }
        }
    }

    /// Records a child with `plies` (lost for the opponent when `lost`) for side `side`'s placement `[i][j]`.
    #[inline]
    fn child(&mut self, side: usize, i: usize, j: usize, lost: bool, plies: u32) {
        let at = (plies + 1).min(u16::MAX as u32) as u16;
        if lost {
            let w = &mut self.win_at[side][i][j];
            if *w == 0 || at < *w {
                *w = at;
            }
        } else {
            let f = &mut self.floor[side][i][j];
            *f = (*f).max(at);
        }
    }
}

/// Sides as [`PlyScratch`] indexes them.
const FOX: usize = 0;
const SHEEP: usize = 1;

/// The plies of the positions phase `k` of `side` decides: the initial
/// pass decides the game-over positions (0), then phases alternate, fox
/// first (the first fox phase runs inside the initial pass): fox phase `k`
/// decides fox wins at `2k - 1` and fox losses at `2k - 2`, sheep phase `k`
/// sheep wins at `2k - 1` and sheep losses at `2k` (a win for the side to
/// move always has odd plies, a loss even). Returns (win, loss) plies.
#[inline]
fn levels(side: usize, k: u32) -> (u32, u32) {
    if side == FOX {
        (2 * k - 1, 2 * k - 2)
    } else {
        (2 * k - 1, 2 * k)
    }
}

/// The phase (of either side) that decides a win at `plies`.
#[inline]
fn win_phase(plies: u32) -> u32 {
    plies.div_ceil(2)
}

/// The first phase of `side` whose losses are at `plies` or later.
#[inline]
fn loss_phase(side: usize, plies: u32) -> u32 {
    if side == FOX {
        plies.div_ceil(2) + 1
    } else {
        plies.div_ceil(2).max(1)
    }
}

/// A plies count in memory while solving: one byte a slot where every
/// count of the tier fits (the memory budget of a solve with plies), else
/// two ([`solve_any`] solves again with two when one overflows).
trait Ply: Copy + Default + Send + Sync {
    const MAX: u32;
    fn get(self) -> u32;
    /// Precondition: `v <= MAX`.
    fn put(v: u32) -> Self;
    /// The solve's plies as the tier's [`Plies`]: draws (pending floors,
    /// wins never due) and unused slots set to 0, in place.
    fn finish(mut plies: Vec<Self>, values: &PackedValues) -> Plies {
        plies.par_chunks_mut(1 << 16).enumerate().for_each(|(c, chunk)| {
            for (k, x) in chunk.iter_mut().enumerate() {
                let code = values.code(((c as u64) << 16) + k as u64);
                if code != WIN_CODE && code != LOSS_CODE {
                    *x = Self::default();
                }
            }
        });
        Self::into_plies(plies)
    }
    fn into_plies(plies: Vec<Self>) -> Plies;
}

macro_rules! ply_impl {
    ($t:ty, $into:path) => {
        impl Ply for $t {
            const MAX: u32 = <$t>::MAX as u32;
            #[inline]
            fn get(self) -> u32 {
                self as u32
            }
            #[inline]
            fn put(v: u32) -> $t {
                v as $t
            }
            fn into_plies(plies: Vec<$t>) -> Plies {
                $into(plies)
            }
        }
    };
}
ply_impl!(u8, Plies::from_bytes);
ply_impl!(u16, Plies::from_vec);

/// The plies of a solve with plies (one per slot, tier order; empty
/// without plies) and per block and side the first phase with something
/// due (`u32::MAX`: nothing).
struct PlyArrays<P: Ply> {
    plies: Vec<P>,
    due: [Vec<u32>; 2],
}

impl<P: Ply> PlyArrays<P> {
    fn new(ctx: &Ctx) -> PlyArrays<P> {
        let sets = ctx.index.sheep_sets as usize;
        let slots = if ctx.plies { sets * ctx.per_set as usize } else { 0 };
        PlyArrays { plies: vec![P::default(); slots], due: [vec![u32::MAX; sets], vec![u32::MAX; sets]] }
    }

    /// Per work item of [`BLOCKS_PER_ITEM`] blocks: its plies (empty
    /// without plies) and its fox and sheep due phases.
    #[allow(clippy::type_complexity)]
    fn item_slices(&mut self, ctx: &Ctx, items: usize) -> Vec<(&mut [P], &mut [u32], &mut [u32])> {
        let per_item = BLOCKS_PER_ITEM * ctx.per_set as usize;
        let mut plies: Vec<&mut [P]> = self.plies.chunks_mut(per_item.max(1)).collect();
        plies.resize_with(items, Default::default);
        let [due_f, due_s] = &mut self.due;
        plies
            .into_iter()
            .zip(due_f.chunks_mut(BLOCKS_PER_ITEM))
            .zip(due_s.chunks_mut(BLOCKS_PER_ITEM))
            .map(|((p, f), s)| (p, f, s))
            .collect()
    }

    fn pending(&self) -> bool {
        self.due.iter().any(|d| d.iter().any(|&x| x != u32::MAX))
    }
}

impl<'a> Ctx<'a> {
    /// Where the positions with sheep `sheep` and `foxes` foxes are, after
    /// a move that took a sheep from `lost` and put one on `gained` (a
    /// sheep step) or none (a capture). `Target::among` says the same
    /// (a test checks they agree), from the set alone.
    #[inline]
    fn target(&self, sheep: Bits, foxes: u32, lost: u8, gained: Option<u8>) -> Target {
        let ranks = &self.places.rank_of;
        let gained = gained.map_or(7, |p| ranks[p as usize] as usize);
        let fewer = (self.tier.foxes() - foxes) as usize;
        match self.places.by_change[fewer][ranks[lost as usize] as usize][gained] {
            Place::InTier => Target::InTier(self.index.set_rank(sheep)),
            Place::Child(c) => Target::Child(c, self.children[c].index.set_rank(sheep)),
            Place::NoTable => Target::NoTable,
        }
    }

    /// The foxes the sheep step to `to` traps (it leaves the sheep
    /// `moved`, the pen not filled), as matrices over the parent's free
    /// points: `traps.mine` row `i` holds the columns `j` such that a fox on
    /// the `i`-th free point is trapped when the other fox stands on the
    /// `j`-th (every other point when it has no step and no jump at all; the
    /// one point it could move to when that is the only one), and
    /// `traps.theirs` is its transpose (row `i`: the `j` whose fox is
    /// trapped with the other on `i`). With one fox, `mine[0]` holds the
    /// trapped points. Returns whether any fox is trapped.
    ///
    /// A fox on `a` with the other on `b` is trapped exactly when its
    /// options in `moved` with no other fox (free neighbours and jump
    /// landings) are at most `b`: the other fox fills `b` and is no sheep to
    /// jump. Only a fox on a [`Cramped`] point can be trapped by one step.
    fn trapped_rows<const BMI2: bool>(
        &self,
        view: &SetView,
        cramped: Cramped,
        moved: Bits,
        to: u8,
        traps: &mut Traps,
    ) -> bool {
        let board = self.game.rules.board;
        let free_after = ALL_POINTS & !moved;
        let fox_points = view.free & !(1u64 << to);
        let everyone = row_mask(self.n) & !(1u32 << view.index_of(to));
        let Traps { mine, theirs } = traps;
        // Cleared at the first trapped fox: the rows are read only when one is.
        let mut any = false;
        let candidates = (cramped.tight | (cramped.two_free & board.neighbours[to as usize])) & !(1u64 << to);
        // A lone fox is trapped with no option at all; one of two foxes
        // with at most one (the other fox's point).
        let most = if self.one_fox { 0 } else { 1 };
        for a in BitIter(candidates) {
            let mut options = board.neighbours[a as usize] & free_after;
            if options.count_ones() > most {
                continue;
            }
            options |= self.jump_masks.landings::<BMI2>(a, moved, free_after);
            if options.count_ones() > most {
                continue;
            }
            let ia = view.index_of(a);
            let trapped = options == 0 || (!self.one_fox && options & fox_points != 0);
            if trapped && !any {
                mine[..self.rows].fill(0);
                theirs[..self.rows].fill(0);
            }
            if options == 0 {
                if self.one_fox {
                    mine[0] |= 1 << ia;
                } else {
                    let others = everyone & !(1 << ia);
                    mine[ia] = others;
                    for i in BitIter(others as u64) {
                        theirs[i as usize] |= 1 << ia;
                    }
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
    fn fewer_row<const BMI2: bool>(
        &self,
        target: &Target,
        view: &SetView,
        moved: Bits,
    ) -> Result<(u32, u32), KernelError> {
        match *target {
            Target::Child(c, rank) => {
                let (w, l) =
                    decode_child_one::<BMI2>(self.children[c].values, rank.base, self.n, 0, rank.symmetric, rank.free);
                Ok((
                    map_columns::<BMI2>(w, rank.free, rank.mirrored, view.free),
                    map_columns::<BMI2>(l, rank.free, rank.mirrored, view.free),
                ))
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
    /// from, to) to `moved` traps a fox ([`Ctx::trapped_rows`], in `scratch.trapped`):
    /// marks them in `trap_rows` (their child is not the step's own block)
    /// and sets their planes in `s` from the child with the foxes left: none
    /// (the sheep have won), or one, whose row is read once for the step.
    #[inline(never)]
    fn trapped_children<const BMI2: bool>(
        &self,
        view: &SetView,
        moved: Bits,
        step: (u8, u8),
        trap_rows: &mut Rows,
        s: &mut [u32],
        scratch: &mut Scratch,
    ) -> Result<(), KernelError> {
        let n = self.n;
        let win_plane = if self.plies { CANNOT_LOSE } else { WON };
        let fewer = self.target(moved, 1, step.0, Some(step.1));
        let (child_won, child_lost) = self.fewer_row::<BMI2>(&fewer, view, moved)?;
        let child_drawn = !(child_won | child_lost);
        // Row i, bit j: the fox on i is trapped (`mine`), the fox on j is (`theirs`).
        let Traps { mine, theirs } = scratch.traps;
        for i in 0..n {
            let pairs = mine[i] | theirs[i];
            if pairs == 0 {
                continue;
            }
            trap_rows[i] = pairs;
            let both = mine[i] & theirs[i];
            // Only the fox on i is trapped: the one on j is left, and the
            // other way round.
            let left_j = mine[i] & !theirs[i];
            let left_i = theirs[i] & !mine[i];
            let at_i = |row: u32| if row >> i & 1 != 0 { left_i } else { 0 };
            let lost = both | (left_j & child_lost) | at_i(child_lost);
            let drawn = (left_j & child_drawn) | at_i(child_drawn);
            s[win_plane * n + i] |= lost;
            s[CANNOT_LOSE * n + i] |= drawn;
            if self.plies {
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
        }
        Ok(())
    }

    /// The captures over the sheep on `o` with `foxes` foxes: the board's
    /// jumps over it (those whose from and landing points are both free
    /// apply) and where the children are. `None` when no
    /// jump applies. A capture into a tier without a table must leave fewer
    /// than K sheep, or than the floor F: the game is over, won by the fox
    /// or, below a floor the sheep win, by the sheep (`capture_out_wins`).
    fn captures_over(&self, view: &SetView, o: u8, foxes: u32) -> Result<Option<(Jumps<'_>, Target)>, KernelError> {
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
    fn outside_value(&self, target: &Target, sheep: Bits, foxes: Bits, side: Side) -> Result<Value, KernelError> {
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

    /// The plies of the position with `foxes` and `side` to move in child table `c` at `rank`.
    #[inline]
    fn child_plies(&self, c: usize, rank: &SetRank, foxes: Bits, side: Side) -> u32 {
        let plies = self.children[c].plies.expect("a solve with plies has its children's plies");
        plies.get(rank.slot(foxes, side)) as u32
    }

    /// The plies of a child outside the tier: from its table, or 0 for a
    /// position that is over (a tier without a table).
    fn outside_plies(&self, target: &Target, foxes: Bits, side: Side) -> u32 {
        match target {
            Target::Child(c, rank) => self.child_plies(*c, rank, foxes, side),
            _ => 0,
        }
    }

    /// The initial pass over one block: children outside the tier, game
    /// over, and the placements that need a scalar look. Writes both sides'
    /// planes (fox: `f`, sheep: `s`); with plies, what the children say
    /// about plies into `scratch.plies`, and wins from outside the tier
    /// only as "cannot lose" (they wait for their ply).
    #[inline(never)]
    fn init_block<const BMI2: bool>(
        &self,
        view: &SetView,
        f: &mut [u32],
        s: &mut [u32],
        scratch: &mut Scratch,
        sideways: &mut Sideways,
    ) -> Result<(), KernelError> {
        let n = self.n;
        let sheep = view.sheep;
        let rules = &self.game.rules;
        let k = rules.pen_target;
        let full = row_mask(n);
        f.fill(0);
        s.fill(0);
        let plies = self.plies;
        if plies {
            scratch.plies.clear(self.rows, n);
        }
        // With plies a win from outside waits for its ply: "cannot lose" for now.
        let win_plane = if plies { CANNOT_LOSE } else { WON };

        // Fox to move: over when the pen holds K sheep; else captures.
        if (sheep & PEN).count_ones() >= k {
            for i in 0..n {
                f[LOST * n + i] = full & !(1 << i);
            }
        } else {
            let (mut x_won, mut x_open) = ([0u32; 32], [0u32; 32]);
            let (mut won, mut lost) = ([0u32; 32], [0u32; 32]);
            for o in BitIter(sheep) {
                let Some((jumps, target)) = self.captures_over(view, o, 2)? else { continue };
                if let Target::Child(c, rank) = target {
                    let child = &self.children[c];
                    decode_child::<BMI2>(
                        child.values,
                        rank.base,
                        n + 1,
                        1,
                        rank.symmetric,
                        rank.free,
                        &mut won,
                        &mut lost,
                    );
                }
                for &(a, t) in jumps {
                    if !view.both_free(a, t) {
                        continue;
                    }
                    let (ia, it) = (view.index_of(a), view.index_of(t));
                    let ok = full & !(1 << ia) & !(1 << it);
                    match target {
                        Target::Child(c, rank) => {
                            let row_won = child_row::<BMI2>(&won, rank.free, rank.mirrored, t, view.free);
                            let row_lost = child_row::<BMI2>(&lost, rank.free, rank.mirrored, t, view.free);
                            x_won[ia] |= row_lost & ok;
                            x_open[ia] |= !row_won & ok;
                            if plies {
                                for j in BitIter((ok & (row_won | row_lost)) as u64) {
                                    let foxes = (1u64 << t) | (1u64 << view.points[j as usize]);
                                    let p = self.child_plies(c, &rank, foxes, Side::Sheep);
                                    scratch.plies.child(FOX, ia, j as usize, row_lost & (1 << j) != 0, p);
                                }
                            }
                        }
                        // The sheep to move there have lost (`captures_over`).
                        Target::NoTable if self.capture_out_wins => {
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
                for i in 0..n {
                    for j in 0..i {
                        let (a, b) = (ply.win_at[FOX][i][j], ply.win_at[FOX][j][i]);
                        let w = if a == 0 || (b != 0 && b < a) { b } else { a };
                        let fl = ply.floor[FOX][i][j].max(ply.floor[FOX][j][i]);
                        (ply.win_at[FOX][i][j], ply.win_at[FOX][j][i]) = (w, w);
                        (ply.floor[FOX][i][j], ply.floor[FOX][j][i]) = (fl, fl);
                    }
                }
            }
        }

        // Sheep to move: over with fewer than K sheep; else forward steps
        // (and steps that trap a fox) lead out of the tier.
        if sheep.count_ones() < k {
            for i in 0..n {
                s[LOST * n + i] = full & !(1 << i);
            }
            return Ok(());
        }
        let board = rules.board;
        let cramped = Cramped::new(self.game, view);
        let (mut won, mut lost) = ([0u32; 32], [0u32; 32]);
        let mut trap_rows = [0u32; 32];
        // Placements with a legal sheep move (a fox on `to` blocks a step).
        let mut has_move = [0u32; 32];
        for from in BitIter(sheep) {
            for to in BitIter(board.sheep_steps[from as usize] & view.free) {
                let moved = sheep ^ (1 << from) ^ (1 << to);
                let removes = (moved & PEN).count_ones() < k;
                trap_rows[..n].fill(0);
                if plies {
                    let kt_move = view.index_of(to);
                    for (i, m) in has_move.iter_mut().enumerate().take(n) {
                        if i != kt_move {
                            *m |= full & !(1 << i) & !(1 << kt_move);
                        }
                    }
                }
                let traps = removes && self.trapped_rows::<BMI2>(view, cramped, moved, to, &mut scratch.traps);
                if traps {
                    self.trapped_children::<BMI2>(view, moved, (from, to), &mut trap_rows, s, scratch)?;
                }
                let keep = self.target(moved, 2, from, Some(to));
                let kt = view.index_of(to);
                match keep {
                    // A sideways step: the sheep phases take it from here.
                    Target::InTier(rank) => {
                        self.record_sideways(view, to, &rank, traps.then_some(&scratch.traps), sideways)
                    }
                    Target::Child(c, rank) => {
                        let child = &self.children[c];
                        let cn = 33 - moved.count_ones() as usize;
                        decode_child::<BMI2>(
                            child.values,
                            rank.base,
                            cn,
                            0,
                            rank.symmetric,
                            rank.free,
                            &mut won,
                            &mut lost,
                        );
                        for i in 0..n {
                            if i == kt {
                                continue;
                            }
                            let p = view.points[i];
                            let ok = full & !(1 << i) & !(1 << kt) & !trap_rows[i];
                            let row_won = child_row::<BMI2>(&won, rank.free, rank.mirrored, p, view.free);
                            let row_lost = child_row::<BMI2>(&lost, rank.free, rank.mirrored, p, view.free);
                            s[win_plane * n + i] |= row_lost & ok;
                            s[CANNOT_LOSE * n + i] |= !row_won & ok;
                            if plies {
                                for j in BitIter((ok & (row_won | row_lost)) as u64) {
                                    let foxes = (1u64 << p) | (1u64 << view.points[j as usize]);
                                    let q = self.child_plies(c, &rank, foxes, Side::Fox);
                                    scratch.plies.child(SHEEP, i, j as usize, row_lost & (1 << j) != 0, q);
                                }
                            }
                        }
                    }
                    Target::NoTable => {
                        for i in 0..n {
                            for j in 0..i {
                                if i == kt || j == kt || trap_rows[i] & (1 << j) != 0 {
                                    continue;
                                }
                                let foxes = (1u64 << view.points[i]) | (1u64 << view.points[j]);
                                let value = self.outside_value(&keep, moved, foxes, Side::Fox)?;
                                if plies && value != Value::Draw {
                                    scratch.plies.child(SHEEP, i, j, value == Value::Loss, 0);
                                    scratch.plies.child(SHEEP, j, i, value == Value::Loss, 0);
                                }
                                let plane = match value {
                                    Value::Loss => win_plane,
                                    Value::Draw => CANNOT_LOSE,
                                    Value::Win => continue,
                                };
                                s[plane * n + i] |= 1 << j;
                                s[plane * n + j] |= 1 << i;
                            }
                        }
                    }
                }
            }
        }
        if plies {
            // No legal sheep move: lost now, 0 plies (the phases would find it at ply 2).
            for (i, m) in has_move.iter().enumerate().take(n) {
                s[LOST * n + i] |= full & !(1 << i) & !m;
            }
        }
        Ok(())
    }

    /// The fox phase for one block: fox steps into the block's own sheep
    /// planes. Returns whether the fox planes changed.
    fn fox_phase(&self, view: &SetView, f: &mut [u32], s: &[u32]) -> bool {
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
    fn record_sideways(&self, view: &SetView, to: u8, rank: &SetRank, traps: Option<&Traps>, out: &mut Sideways) {
        // The child is read in this set's coordinates, or (stored mirrored)
        // in those of this set's mirror image; see `sheep_phase`.
        let mirror_free = mirror_bits(view.free);
        let (free, to_there) = if rank.mirrored { (mirror_free, mirror_point(to)) } else { (view.free, to) };
        let index_of = |p: u8| (free & ((1u64 << p) - 1)).count_ones() as usize;
        let at = out.traps.len();
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
                    out.traps.push((reading_index(i as usize), ANY_PARTNER));
                }
            } else {
                // Row `i` of `mine`: every other point (no move left) or the one partner.
                for (i, &row) in mine[..self.n].iter().enumerate() {
                    if row != 0 {
                        let partner = if row.count_ones() == 1 {
                            reading_index(row.trailing_zeros() as usize)
                        } else {
                            ANY_PARTNER
                        };
                        out.traps.push((reading_index(i), partner));
                    }
                }
            }
        }
        out.steps.push(SidewaysStep {
            child: (rank.base / self.per_set) as u32,
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
    fn sheep_phase<const BMI2: bool>(
        &self,
        view: &SetView,
        s: &mut [u32],
        fox_planes: &[u32],
        steps: &[SidewaysStep],
        sideways: &Sideways,
    ) -> bool {
        let (n, rows, stride) = (self.n, self.rows, self.stride);
        if view.sheep.count_ones() < self.game.rules.pen_target {
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
        // With one fox the row is never skipped: the blocked bit does it.
        let skip_row = |kt: usize| if self.one_fox { usize::MAX } else { kt };
        let (mut any_lost, mut all_won) = ([0u32; 32], [full; 32]);
        let (mut any_lost_m, mut all_won_m) = ([0u32; 32], [full; 32]);
        let mut any_mirrored = false;
        for step in steps {
            let planes = &fox_planes[step.child as usize * stride..][..stride];
            let (child_won, child_lost) = (&planes[WON * rows..][..rows], &planes[LOST * rows..][..rows]);
            let (lost_acc, won_acc) =
                if step.mirrored { (&mut any_lost_m, &mut all_won_m) } else { (&mut any_lost, &mut all_won) };
            any_mirrored |= step.mirrored;
            let kt = step.kt as usize;
            let (blocked, skip) = (1u32 << kt, skip_row(kt));
            if step.trap_count == 0 {
                for i in 0..rows {
                    if i != skip {
                        lost_acc[i] |= child_lost[i] & !blocked;
                        won_acc[i] &= child_won[i] | blocked;
                    }
                }
            } else {
                // Where the step traps a fox its child is elsewhere (valued
                // by the initial pass): a fox trapped whatever its partner is
                // drops out like a fox on `to` (its column, and with two
                // foxes its row).
                let mut pairs = [0u32; 32];
                let anywhere = sideways.trap_masks(step, self.one_fox, &mut pairs);
                let rows_out = if self.one_fox { 0 } else { anywhere };
                let out = blocked | anywhere;
                for i in 0..rows {
                    if i != skip && rows_out >> i & 1 == 0 {
                        lost_acc[i] |= child_lost[i] & !out & !pairs[i];
                        won_acc[i] &= child_won[i] | out | pairs[i];
                    }
                }
            }
        }
        if any_mirrored {
            let mirror_free = mirror_bits(view.free);
            if self.one_fox {
                any_lost[0] |= map_columns::<BMI2>(any_lost_m[0], mirror_free, true, view.free);
                all_won[0] &= map_columns::<BMI2>(all_won_m[0], mirror_free, true, view.free);
            } else {
                // Row `i` of the mirror image is the fox on the mirror of its point.
                for (j, q) in BitIter(mirror_free).enumerate() {
                    let i = view.index_of(mirror_point(q));
                    any_lost[i] |= map_columns::<BMI2>(any_lost_m[j], mirror_free, true, view.free);
                    all_won[i] &= map_columns::<BMI2>(all_won_m[j], mirror_free, true, view.free);
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

    /// [`Ctx::init_block`] for a one-fox tier: each plane is one row.
    #[inline(never)]
    fn init_block_one<const BMI2: bool>(
        &self,
        view: &SetView,
        f: &mut [u32],
        s: &mut [u32],
        scratch: &mut Scratch,
        sideways: &mut Sideways,
    ) -> Result<(), KernelError> {
        let n = self.n;
        let sheep = view.sheep;
        let rules = &self.game.rules;
        let k = rules.pen_target;
        let full = row_mask(n);
        f.fill(0);
        s.fill(0);
        let plies = self.plies;
        if plies {
            scratch.plies.clear(self.rows, n);
        }
        let win_plane = if plies { CANNOT_LOSE } else { WON };
        if (sheep & PEN).count_ones() >= k {
            f[LOST] = full;
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
                    && self.trapped_rows::<BMI2>(view, cramped, moved, to, &mut scratch.traps);
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
                        if plies {
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

    /// [`Ctx::fox_phase`] for a one-fox tier.
    #[inline(never)]
    fn fox_phase_one<const BMI2: bool>(&self, view: &SetView, f: &mut [u32], s: &[u32]) -> bool {
        if (view.sheep & PEN).count_ones() >= self.game.rules.pen_target {
            return false;
        }
        let board = self.game.rules.board;
        let (mut won, mut all_won) = (0u32, 0u32);
        for i in 0..self.n {
            let steps = pext::<BMI2>(board.neighbours[view.points[i] as usize] & view.free, view.free) as u32;
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
    fn for_each_row(&self, view: &SetView, mut f: impl FnMut(usize, u64, usize, u32)) {
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

/// Solves a Fox Game tier with the plane kernel (two-fox tiers; one-fox
/// tiers go to the block kernel), on the calling thread's rayon pool.
/// Same preconditions and results as [`crate::kernel::solve_in_pool`].
pub fn solve_planes_in_pool(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildTable<FoxGame>],
) -> Result<SolvedTier, KernelError> {
    if bmi2_available() {
        solve_any::<true, _>(game, tier, children, true, false)
    } else {
        solve_any::<false, _>(game, tier, children, true, false)
    }
}

/// [`solve_planes_in_pool`] that frees the child tables as soon as the
/// initial pass has read them (a worker's solve: lower peak memory), and
/// with `plies` computes plies to the end too (the children then hold
/// plies; the result equals [`crate::plies_kernel`]'s).
pub fn solve_planes_owning(
    game: &FoxGame,
    tier: FoxTier,
    children: Vec<ChildTable<FoxGame>>,
    plies: bool,
) -> Result<SolvedTier, KernelError> {
    if bmi2_available() {
        solve_any::<true, _>(game, tier, children, true, plies)
    } else {
        solve_any::<false, _>(game, tier, children, true, plies)
    }
}

/// [`solve_planes_in_pool`] with plies to the end (borrowed children that hold plies).
pub fn solve_planes_with_plies(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildTable<FoxGame>],
) -> Result<SolvedTier, KernelError> {
    if bmi2_available() {
        solve_any::<true, _>(game, tier, children, true, true)
    } else {
        solve_any::<false, _>(game, tier, children, true, true)
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
    if bmi2_available() {
        solve_any::<true, _>(game, tier, children, false, false)?;
    } else {
        solve_any::<false, _>(game, tier, children, false, false)?;
    }
    Ok(started.elapsed().as_secs_f64())
}

fn child_refs(children: &[ChildTable<FoxGame>]) -> Vec<ChildRef<'_>> {
    children
        .iter()
        .map(|c| ChildRef { tier: c.tier, index: &c.index, values: &c.values, plies: c.plies.as_ref() })
        .collect()
}

impl<'a> Ctx<'a> {
    fn new(game: &'a FoxGame, tier: FoxTier, children: &'a [ChildRef<'a>]) -> Ctx<'a> {
        let index = game.tier_index(tier);
        let n = 33 - tier.sheep() as usize;
        let one_fox = tier.foxes() == 1;
        let rows = if one_fox { 1 } else { n };
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
            capture_out_wins: game
                .rules
                .too_few_sheep(tier.sheep().saturating_sub(1))
                .is_none_or(|(w, _)| w == Side::Fox),
            places: Places::new(tier, &children.iter().map(|c| c.tier).collect::<Vec<_>>()),
        }
    }

    /// The initial pass over every block into `fox_planes` and
    /// `sheep_planes`; with `fox_phase`, each block's first fox phase right
    /// after it, while its planes are in cache (it reads only the block's
    /// own sheep planes, which are complete for that phase). Returns the
    /// positions the initial pass decided and whether that fox phase
    /// decided any. Each work item's sideways steps go to its `sideways`.
    fn init_all<const BMI2: bool, P: Ply>(
        &self,
        fox_planes: &mut [u32],
        sheep_planes: &mut [u32],
        sideways: &mut [Sideways],
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
                    let set = (it * BLOCKS_PER_ITEM + b) as u64;
                    let view = SetView::new(self.index.sheep_set(set));
                    self.init_block_any::<BMI2>(&view, fb, sb, &mut scratch, sideways)?;
                    decided += self.count_decided(&view, fb, sb);
                    let block_plies = if self.plies {
                        let pb = &mut pl[b * self.per_set as usize..(b + 1) * self.per_set as usize];
                        (due_f[b], due_s[b]) = self.init_plies(fb, sb, &scratch.plies, pb)?;
                        Some(pb)
                    } else {
                        None
                    };
                    if fox_phase {
                        let before = self.won_lost(fb);
                        changed |= self.fox_phase_any::<BMI2>(&view, fb, sb);
                        if let Some(pb) = block_plies {
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
    fn block_slot(&self, i: usize, j: usize, side: usize) -> usize {
        if self.one_fox {
            2 * j + side
        } else {
            let (h, l) = (i.max(j), i.min(j));
            h * (h - 1) + 2 * l + side
        }
    }

    /// The won and lost rows of one side's planes (a copy, to see what a phase changed).
    #[inline]
    fn won_lost(&self, planes: &[u32]) -> [u32; 64] {
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
    fn init_plies<P: Ply>(
        &self,
        f: &[u32],
        s: &[u32],
        ply: &PlyScratch,
        out: &mut [P],
    ) -> Result<(u32, u32), KernelError> {
        let rows = self.rows;
        let mut due = [u32::MAX; 2];
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
    #[allow(clippy::too_many_arguments)]
    fn settle<P: Ply>(
        &self,
        side: usize,
        planes: &mut [u32],
        before: &[u32; 64],
        pl: &mut [P],
        k: u32,
        due: &mut u32,
    ) -> bool {
        let rows = self.rows;
        let (level_win, level_loss) = levels(side, k);
        let wins_due = *due <= k;
        let mut next_due = if wins_due { u32::MAX } else { *due };
        let mut changed = false;
        for h in 0..rows {
            let (w0, l0) = (before[h], before[32 + h]);
            let (mut w, mut l) = (planes[WON * rows + h], planes[LOST * rows + h]);
            for j in BitIter((l & !l0) as u64) {
                let floor = pl[self.block_slot(h, j as usize, side)].get();
                if floor > level_loss {
                    l &= !(1 << j);
                    next_due = next_due.min(loss_phase(side, floor));
                }
            }
            if wins_due {
                let valid = if self.one_fox { row_mask(self.n) } else { row_mask(self.n) & !(1 << h) };
                for j in BitIter((planes[CANNOT_LOSE * rows + h] & !w & !l & valid) as u64) {
                    let at = pl[self.block_slot(h, j as usize, side)].get();
                    if at == 0 {
                        continue;
                    }
                    if at <= level_win {
                        w |= 1 << j;
                    } else {
                        next_due = next_due.min(win_phase(at));
                    }
                }
            }
            for j in BitIter((w & !w0) as u64) {
                pl[self.block_slot(h, j as usize, side)] = P::put(level_win);
            }
            for j in BitIter((l & !l0) as u64) {
                pl[self.block_slot(h, j as usize, side)] = P::put(level_loss);
            }
            changed |= w != w0 || l != l0;
            planes[WON * rows + h] = w;
            planes[LOST * rows + h] = l;
        }
        *due = next_due;
        changed
    }

    /// The used positions of a block that its planes decide.
    fn count_decided(&self, view: &SetView, f: &[u32], s: &[u32]) -> u64 {
        let rows = self.rows;
        let mut count = 0u64;
        self.for_each_row(view, |h, _, _, used| {
            count += ((f[WON * rows + h] | f[LOST * rows + h]) & used).count_ones() as u64;
            count += ((s[WON * rows + h] | s[LOST * rows + h]) & used).count_ones() as u64;
        });
        count
    }

    #[inline]
    fn init_block_any<const BMI2: bool>(
        &self,
        view: &SetView,
        f: &mut [u32],
        s: &mut [u32],
        scratch: &mut Scratch,
        sideways: &mut Sideways,
    ) -> Result<(), KernelError> {
        if self.one_fox {
            self.init_block_one::<BMI2>(view, f, s, scratch, sideways)?;
        } else {
            self.init_block::<BMI2>(view, f, s, scratch, sideways)?;
        }
        sideways.end_block();
        Ok(())
    }

    #[inline]
    fn fox_phase_any<const BMI2: bool>(&self, view: &SetView, f: &mut [u32], s: &[u32]) -> bool {
        if self.one_fox {
            self.fox_phase_one::<BMI2>(view, f, s)
        } else {
            self.fox_phase(view, f, s)
        }
    }
}

/// Solves a tier; `children` (borrowed, or owned and then freed as soon as
/// the initial pass has read them) are the child tables.
/// Solves a tier with the plane kernel; with plies, one byte a count in
/// memory first and two if a count passes 255 (the children are kept for
/// that second solve).
fn solve_any<const BMI2: bool, C: AsRef<[ChildTable<FoxGame>]>>(
    game: &FoxGame,
    tier: FoxTier,
    children: C,
    propagate: bool,
    plies: bool,
) -> Result<SolvedTier, KernelError> {
    if !plies {
        return solve::<BMI2, u8, C>(game, tier, children, propagate, false);
    }
    // FOXBASE_PLIES_BYTES=2 starts with two bytes (to test that path on small variants).
    if std::env::var("FOXBASE_PLIES_BYTES").is_ok_and(|v| v == "2") {
        return solve::<BMI2, u16, C>(game, tier, children, propagate, true);
    }
    match solve::<BMI2, u8, _>(game, tier, children.as_ref(), propagate, true) {
        Err(KernelError::TooManyPlies { limit, .. }) if limit == u8::MAX as u32 => {
            solve::<BMI2, u16, C>(game, tier, children, propagate, true)
        }
        other => other,
    }
}

fn solve<const BMI2: bool, P: Ply, C: AsRef<[ChildTable<FoxGame>]>>(
    game: &FoxGame,
    tier: FoxTier,
    children: C,
    propagate: bool,
    plies: bool,
) -> Result<SolvedTier, KernelError> {
    let started = std::time::Instant::now();
    let mut phases = Phases::default();
    let (mut fox_planes, mut sheep_planes, decided_at_start, decided_by_first_fox_phase, mut ply);
    // Per work item: the sideways steps of its blocks.
    let mut sideways: Vec<Sideways>;
    {
        let refs = child_refs(children.as_ref());
        let mut ctx = Ctx::new(game, tier, &refs);
        ctx.plies = plies;
        if plies && refs.iter().any(|c| c.plies.is_none()) {
            return Err(KernelError::Inconsistent(format!(
                "a child tier of {} has no plies (solved with --no-distance?)",
                tier.name()
            )));
        }
        let sets = ctx.index.sheep_sets as usize;
        fox_planes = vec![0u32; sets * ctx.stride];
        sheep_planes = vec![0u32; sets * ctx.stride];
        ply = PlyArrays::<P>::new(&ctx);
        sideways = (0..sets.div_ceil(BLOCKS_PER_ITEM)).map(|_| Sideways::default()).collect();
        (decided_at_start, decided_by_first_fox_phase) =
            ctx.init_all::<BMI2, P>(&mut fox_planes, &mut sheep_planes, &mut sideways, propagate, &mut ply)?;
    }
    // Only the initial pass reads the children: a solve that owns them
    // frees them here, before the output is allocated.
    drop(children);
    let mut ctx = Ctx::new(game, tier, &[]);
    ctx.plies = plies;
    let (size, stride) = (game.tier_size(&ctx.index), ctx.stride);
    let sets = ctx.index.sheep_sets as usize;
    let item = BLOCKS_PER_ITEM * stride;
    let items = sets.div_ceil(BLOCKS_PER_ITEM);
    phases.init = started.elapsed().as_secs_f64();
    if !propagate {
        return Ok(SolvedTier { values: PackedValues::filled(0, 0), stats: TierStats::default(), phases, plies: None });
    }

    let started = std::time::Instant::now();
    // Propagation phases that decided something.
    let mut levels = 0u32;
    // The fox phase's input: blocks whose sheep planes changed. The sheep
    // phase's: blocks with a sideways step into a block whose fox planes
    // changed. The first of each looks at every block. With plies, also
    // the blocks with a win from outside (or a waiting loss) due.
    let mut sheep_changed = vec![true; sets];
    let mut fox_changed = vec![false; sets];
    // Each block's sheep set, unranked once.
    let set_bits: Vec<Bits> = (0..sets as u64).into_par_iter().map(|c| ctx.index.sheep_set(c)).collect();
    let mut first = true;
    // The phase number: sheep phase k follows fox phase k (fox phase 1 ran in the initial pass).
    let mut k = 1u32;
    levels += decided_by_first_fox_phase as u32;
    loop {
        // Fox phase: fox steps, within each block (the first ran in the initial pass).
        let any_fox_changed = if first {
            false
        } else {
            let slices = ply.item_slices(&ctx, items);
            fox_planes
                .par_chunks_mut(item)
                .zip(sheep_changed.par_chunks(BLOCKS_PER_ITEM))
                .zip(fox_changed.par_chunks_mut(BLOCKS_PER_ITEM))
                .zip(slices)
                .enumerate()
                .map(|(it, (((f, todo), out), (pl, due_f, _)))| {
                    let mut any = false;
                    for (b, fb) in f.chunks_mut(stride).enumerate() {
                        out[b] = false;
                        if !todo[b] && due_f[b] > k {
                            continue;
                        }
                        let set = it * BLOCKS_PER_ITEM + b;
                        let view = SetView::new(set_bits[set]);
                        let s = &sheep_planes[set * stride..(set + 1) * stride];
                        let before = ctx.won_lost(fb);
                        let mut changed = ctx.fox_phase_any::<BMI2>(&view, fb, s);
                        if plies {
                            let pb = &mut pl[b * ctx.per_set as usize..(b + 1) * ctx.per_set as usize];
                            changed = ctx.settle(FOX, fb, &before, pb, k, &mut due_f[b]);
                        }
                        out[b] = changed;
                        any |= changed;
                    }
                    any
                })
                .reduce(|| false, |a, b| a || b)
        };
        levels += any_fox_changed as u32;
        if !first && !any_fox_changed && !ply.pending() {
            break;
        }
        // Sheep phase: sideways sheep steps into other blocks' fox planes.
        let slices = ply.item_slices(&ctx, items);
        sheep_planes
            .par_chunks_mut(item)
            .zip(sheep_changed.par_chunks_mut(BLOCKS_PER_ITEM))
            .zip(slices)
            .zip(&sideways)
            .enumerate()
            .for_each(|(it, (((s, changed), (pl, _, due_s)), sideways))| {
                let blocks = sideways.first.len() - 1;
                for (b, sb) in s.chunks_mut(stride).enumerate() {
                    changed[b] = false;
                    if b + 1 < blocks {
                        // The next block's children, while this one is worked on.
                        for step in sideways.block(b + 1) {
                            let planes = &fox_planes[step.child as usize * stride..][..stride];
                            prefetch(&planes[WON * ctx.rows]);
                            prefetch(&planes[LOST * ctx.rows]);
                            prefetch(&planes[(LOST + 1) * ctx.rows - 1]);
                        }
                    }
                    let steps = sideways.block(b);
                    // The first phase looks at every block (one without
                    // sideways steps may be lost already); then only where
                    // a step leads to a block whose fox planes changed.
                    let todo = first || steps.iter().any(|step| fox_changed[step.child as usize]);
                    if !todo && due_s[b] > k {
                        continue;
                    }
                    let set = it * BLOCKS_PER_ITEM + b;
                    let view = SetView::new(set_bits[set]);
                    let before = ctx.won_lost(sb);
                    changed[b] = ctx.sheep_phase::<BMI2>(&view, sb, &fox_planes, steps, sideways);
                    if plies {
                        let pb = &mut pl[b * ctx.per_set as usize..(b + 1) * ctx.per_set as usize];
                        changed[b] = ctx.settle(SHEEP, sb, &before, pb, k, &mut due_s[b]);
                    }
                }
            });
        first = false;
        k += 1;
        if !sheep_changed.iter().any(|&c| c) && !ply.pending() {
            break;
        }
        levels += 1;
        // The next phases decide at up to 2k plies.
        if plies && 2 * k > P::MAX {
            return Err(KernelError::TooManyPlies { tier: tier.name(), limit: P::MAX });
        }
    }
    phases.propagate = started.elapsed().as_secs_f64();

    let started = std::time::Instant::now();
    let (values, mut stats) = pack::<BMI2>(&ctx, &fox_planes, &sheep_planes, size);
    // The planes are not needed any more: freed before the plies are finished.
    drop(fox_planes);
    drop(sheep_planes);
    let plies = plies.then(|| P::finish(std::mem::take(&mut ply.plies), &values));
    stats.levels = levels.max(1);
    stats.decided_at_start = decided_at_start;
    phases.pack = started.elapsed().as_secs_f64();
    Ok(SolvedTier { values, stats, phases, plies })
}

/// The first stored value of a tier that its children contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contradiction {
    pub slot: u64,
    pub stored: Value,
    pub derived: Value,
}

/// Why [`check_tier`] failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("slot {}: stored {}, but its children say {}", .0.slot, .0.stored, .0.derived)]
    Contradiction(Contradiction),
    #[error(transparent)]
    Kernel(#[from] KernelError),
}

/// `foxbase verify`'s value check of a whole tier with the plane kernel's
/// machinery: every stored value is derived again, one step, from its
/// children's stored values (the tier's own for moves inside it) and
/// compared. The initial pass reads the children, one fox phase and one
/// sheep phase (run on the stored planes) give the rest. `fox_side`:
/// check the fox-to-move values too (a published table derives them).
/// Returns the number of positions checked, or the contradiction with
/// the lowest slot.
pub fn check_tier(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildRef],
    own: &PackedValues,
    fox_side: bool,
) -> Result<u64, CheckError> {
    if bmi2_available() {
        check::<true>(game, tier, children, own, fox_side)
    } else {
        check::<false>(game, tier, children, own, fox_side)
    }
}

fn check<const BMI2: bool>(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildRef],
    own: &PackedValues,
    fox_side: bool,
) -> Result<u64, CheckError> {
    let ctx = Ctx::new(game, tier, children);
    let (n, rows, stride) = (ctx.n, ctx.rows, ctx.stride);
    let sets = ctx.index.sheep_sets as usize;
    if own.len() != game.tier_size(&ctx.index) {
        return Err(KernelError::Inconsistent(format!(
            "tier {} has {} values, not {}",
            tier.name(),
            own.len(),
            game.tier_size(&ctx.index)
        ))
        .into());
    }
    let item = BLOCKS_PER_ITEM * stride;
    // The stored values as planes.
    let mut stored_fox = vec![0u32; sets * stride];
    let mut stored_sheep = vec![0u32; sets * stride];
    stored_fox.par_chunks_mut(item).zip(stored_sheep.par_chunks_mut(item)).enumerate().for_each(|(it, (f, s))| {
        for (b, (fb, sb)) in f.chunks_mut(stride).zip(s.chunks_mut(stride)).enumerate() {
            let set = (it * BLOCKS_PER_ITEM + b) as u64;
            let view = SetView::new(ctx.index.sheep_set(set));
            let symmetric = view.sheep == mirror_bits(view.sheep);
            let base = set * ctx.per_set;
            for (side, planes) in [(0, fb), (1, sb)] {
                if ctx.one_fox {
                    let (w, l) = decode_child_one::<BMI2>(own, base, n, side, symmetric, view.free);
                    planes[WON] = w;
                    planes[LOST] = l;
                } else {
                    let (mut w, mut l) = ([0u32; 32], [0u32; 32]);
                    decode_child::<BMI2>(own, base, n, side, symmetric, view.free, &mut w, &mut l);
                    planes[WON * n..(WON + 1) * n].copy_from_slice(&w[..n]);
                    planes[LOST * n..(LOST + 1) * n].copy_from_slice(&l[..n]);
                }
            }
        }
    });
    // Derive every block again and compare.
    let results: Vec<Result<(u64, Option<Contradiction>), KernelError>> = (0..sets.div_ceil(BLOCKS_PER_ITEM))
        .into_par_iter()
        .map(|it| {
            let mut scratch = Scratch::default();
            let mut sideways = Sideways::default();
            let (mut f, mut s) = (vec![0u32; stride], vec![0u32; stride]);
            let mut checked = 0u64;
            for set in it * BLOCKS_PER_ITEM..((it + 1) * BLOCKS_PER_ITEM).min(sets) {
                let view = SetView::new(ctx.index.sheep_set(set as u64));
                sideways.clear();
                ctx.init_block_any::<BMI2>(&view, &mut f, &mut s, &mut scratch, &mut sideways)?;
                let own_fox = &stored_fox[set * stride..(set + 1) * stride];
                let own_sheep = &stored_sheep[set * stride..(set + 1) * stride];
                ctx.fox_phase_any::<BMI2>(&view, &mut f, own_sheep);
                ctx.sheep_phase::<BMI2>(&view, &mut s, &stored_fox, sideways.block(0), &sideways);
                let mut first: Option<Contradiction> = None;
                ctx.for_each_row(&view, |h, first_slot, _, used| {
                    for (side, derived, stored) in [(0u64, &f, own_fox), (1, &s, own_sheep)] {
                        if side == 0 && !fox_side {
                            continue;
                        }
                        checked += used.count_ones() as u64;
                        let (dw, dl) = (derived[WON * rows + h] & used, derived[LOST * rows + h] & used);
                        let (sw, sl) = (stored[WON * rows + h] & used, stored[LOST * rows + h] & used);
                        let differ = (dw ^ sw) | (dl ^ sl);
                        if differ == 0 {
                            continue;
                        }
                        let j = differ.trailing_zeros();
                        let value = |w: u32, l: u32| {
                            if w >> j & 1 == 1 {
                                Value::Win
                            } else if l >> j & 1 == 1 {
                                Value::Loss
                            } else {
                                Value::Draw
                            }
                        };
                        let slot = set as u64 * ctx.per_set + first_slot + 2 * j as u64 + side;
                        if first.as_ref().is_none_or(|c| slot < c.slot) {
                            first = Some(Contradiction { slot, stored: value(sw, sl), derived: value(dw, dl) });
                        }
                    }
                });
                if first.is_some() {
                    return Ok((checked, first));
                }
            }
            Ok((checked, None))
        })
        .collect();
    let mut checked = 0;
    for r in results {
        let (count, contradiction) = r?;
        if let Some(c) = contradiction {
            return Err(CheckError::Contradiction(c));
        }
        checked += count;
    }
    Ok(checked)
}

/// [`check_tier`] as `foxbase verify`'s step 3 (see [`foxbase_tables::verify::TierCheck`]).
pub struct PlaneCheck;

impl foxbase_tables::verify::TierCheck for PlaneCheck {
    fn check(
        &self,
        game: &FoxGame,
        tier: FoxTier,
        own: &foxbase_tables::dir::Loaded,
        children: &[&foxbase_tables::dir::Loaded],
        fox_side: bool,
    ) -> Option<Result<u64, foxbase_tables::verify::TierCheckError>> {
        use foxbase_tables::verify::TierCheckError;
        let refs: Vec<ChildRef> = children
            .iter()
            .map(|c| ChildRef { tier: c.tier, index: &c.index, values: &c.values, plies: None })
            .collect();
        Some(check_tier(game, tier, &refs, &own.values, fox_side).map_err(|e| match e {
            CheckError::Contradiction(c) => {
                TierCheckError::Contradiction { slot: c.slot, stored: c.stored, derived: c.derived }
            }
            CheckError::Kernel(e) => TierCheckError::Other(e.to_string()),
        }))
    }
}

/// ORs the low `len` (at most 64) bits of `value` into `bytes` from bit `bit` on.
#[inline(always)]
fn or_bits(bytes: &mut [u8], bit: u64, value: u64) {
    let at = (bit >> 3) as usize;
    let wide = (value as u128) << (bit & 7);
    if at + 16 <= bytes.len() {
        let window: &mut [u8; 16] = (&mut bytes[at..at + 16]).try_into().expect("sixteen bytes");
        *window = (u128::from_le_bytes(*window) | wide).to_le_bytes();
    } else {
        for (k, b) in bytes[at..].iter_mut().enumerate() {
            *b |= (wide >> (8 * k)) as u8;
        }
    }
}

/// Four bits per placement (fox to move, then sheep to move, 2 bits each)
/// for 16 placements: `fw`, `fl`, `sw`, `sl` their won and lost bits, `unused` all four bits set.
#[inline(always)]
fn codes16<const BMI2: bool>(fw: u32, fl: u32, sw: u32, sl: u32, unused: u32) -> u64 {
    let spread = |x: u32, mask: u64| pdep::<BMI2>((x & 0xFFFF) as u64, mask);
    spread(fw, 0x1111_1111_1111_1111)
        | spread(fl, 0x2222_2222_2222_2222)
        | spread(sw, 0x4444_4444_4444_4444)
        | spread(sl, 0x8888_8888_8888_8888)
        | (spread(unused, 0x1111_1111_1111_1111) * 0xF)
}

/// The planes as 2-bit values (undecided positions are draws) and counts.
fn pack<const BMI2: bool>(ctx: &Ctx, fox_planes: &[u32], sheep_planes: &[u32], size: u64) -> (PackedValues, TierStats) {
    let (rows, stride) = (ctx.rows, ctx.stride);
    // Zeros past the last slot, as the other kernels leave them.
    let mut values = PackedValues::filled(size, 0);
    let bytes_per_item = BLOCKS_PER_ITEM * ctx.per_set as usize / 4;
    let counts: Vec<[u64; 4]> = values
        .bytes_mut()
        .par_chunks_mut(bytes_per_item)
        .enumerate()
        .map(|(it, bytes)| {
            // draws, wins, losses, unused
            let mut counts = [0u64; 4];
            let first = it * BLOCKS_PER_ITEM;
            let last = (first + BLOCKS_PER_ITEM).min(ctx.index.sheep_sets as usize);
            for set in first..last {
                let view = SetView::new(ctx.index.sheep_set(set as u64));
                let (f, s) = (&fox_planes[set * stride..], &sheep_planes[set * stride..]);
                let block_slot = (set - first) as u64 * ctx.per_set;
                ctx.for_each_row(&view, |h, first_slot, len, used| {
                    let (fw, fl) = (f[WON * rows + h] & used, f[LOST * rows + h] & used);
                    let (sw, sl) = (s[WON * rows + h] & used, s[LOST * rows + h] & used);
                    let unused = row_mask(len) & !used;
                    let live = used.count_ones() as u64;
                    counts[1] += (fw.count_ones() + sw.count_ones()) as u64;
                    counts[2] += (fl.count_ones() + sl.count_ones()) as u64;
                    counts[3] += 2 * unused.count_ones() as u64;
                    counts[0] += 2 * live - (fw | fl).count_ones() as u64 - (sw | sl).count_ones() as u64;
                    let bit = 2 * (block_slot + first_slot);
                    for part in 0..len.div_ceil(16) {
                        let shift = 16 * part;
                        let codes =
                            codes16::<BMI2>(fw >> shift, fl >> shift, sw >> shift, sl >> shift, unused >> shift);
                        or_bits(bytes, bit + 64 * part as u64, codes);
                    }
                });
            }
            counts
        })
        .collect();
    (values, TierStats::from_code_counts(size, counts))
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
        let mut a: Rows = [0; 32];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
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
                assert_eq!((row >> j) & 1, (column >> i) & 1, "{i} {j}");
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
                let (tight, two) = neighbour_counts(&game, free);
                for p in BitIter(free) {
                    let count = (game.rules.board.neighbours[p as usize] & free).count_ones();
                    assert_eq!(tight & (1 << p) != 0, count <= 1, "{free:x} {p}");
                    assert_eq!(two & (1 << p) != 0, count == 2, "{free:x} {p}");
                }
                assert_eq!((tight | two) & !free, 0);
            }
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
                if bmi2_available() {
                    assert_eq!(masks.landings::<true>(a, sheep, free), want, "{geometry} from {a}");
                }
            }
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
            if bmi2_available() {
                assert_eq!(pdep::<true>(x, mask), bitops::pdep_portable(x, mask));
                assert_eq!(pext::<true>(x, mask), bitops::pext_portable(x, mask));
            }
        }
        // Known values.
        assert_eq!(bitops::pdep_portable(0b101, 0b1101_0000), 0b1001_0000);
        assert_eq!(bitops::pext_portable(0b1001_0000, 0b1101_0000), 0b101);
    }
}
