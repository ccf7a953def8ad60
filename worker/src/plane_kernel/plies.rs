//! Plies in the plane kernel: the per-block scratch of the initial pass,
//! the ply a phase decides, and the per-slot ply arrays (one or two bytes a count).

use super::*;

/// What the initial pass of a solve with plies learns about one block from
/// the children outside the tier, per side and placement (`[i][j]`: the
/// foxes on the block's `i`-th and `j`-th free points, filled both ways
/// round; one fox: row 0): the earliest ply a child lost for the opponent
/// wins it at (`win_at`, 1 + that child's plies; 0: none) and the earliest
/// ply it can be lost at (`floor`, 1 + the most plies of a child won for
/// the opponent; 0: none). A position won from outside waits for its ply
/// instead of being decided at the start, so that positions are decided in
/// order of their plies.
///
/// A child of 0 plies (every child outside the tier with DTZ,
/// [`Ctx::child_plies`]; a game over with DTM) is kept as a bit of a row of
/// placements instead: `zeroing_lost[side][i]` bit `j`, a child lost for the
/// opponent (a win at ply 1); `zeroing_won`, one won for the opponent (a
/// floor of ply 1). A sheep step reaches a whole row of placements at once
/// ([`PlyScratch::zeroing_children`]). With DTZ every recorded child is
/// such a bit and [`Ctx::init_plies`] reads the rows alone; with DTM
/// [`PlyScratch::fold_zeroing`] moves them into `win_at` and `floor` first.
#[derive(Default)]
pub(super) struct PlyScratch {
    pub(super) win_at: [[[u16; 32]; 32]; 2],
    pub(super) floor: [[[u16; 32]; 32]; 2],
    zeroing_lost: [[u32; 32]; 2],
    zeroing_won: [[u32; 32]; 2],
}

impl PlyScratch {
    /// Clears the first `rows` rows of `n` entries (what a block of `n` free points uses).
    pub(super) fn clear(&mut self, rows: usize, n: usize) {
        for side in [FOX, SHEEP] {
            for i in 0..rows {
                self.win_at[side][i][..n].fill(0);
                self.floor[side][i][..n].fill(0);
            }
            self.zeroing_lost[side][..rows].fill(0);
            self.zeroing_won[side][..rows].fill(0);
        }
    }

    /// Records a child with `plies` (lost for the opponent when `lost`) for side `side`'s placement `[i][j]`.
    #[inline]
    pub(super) fn child(&mut self, side: usize, i: usize, j: usize, lost: bool, plies: u32) {
        if plies == 0 {
            let bit = 1u32 << j;
            return self.zeroing_children(side, i, if lost { bit } else { 0 }, if lost { 0 } else { bit });
        }
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

impl PlyScratch {
    /// With DTZ: children outside the tier of side `side`'s placements
    /// `[i][j]` for the `j` in `lost` (lost for the opponent) and in `won`.
    #[inline]
    pub(super) fn zeroing_children(&mut self, side: usize, i: usize, lost: u32, won: u32) {
        self.zeroing_lost[side][i] |= lost;
        self.zeroing_won[side][i] |= won;
    }

    /// Moves side `side`'s rows of [`PlyScratch::zeroing_children`] (the
    /// first `rows`) into `win_at` and `floor`, as children of 0 plies.
    pub(super) fn fold_zeroing(&mut self, side: usize, rows: usize) {
        for i in 0..rows {
            let lost = std::mem::take(&mut self.zeroing_lost[side][i]);
            let won = std::mem::take(&mut self.zeroing_won[side][i]);
            for j in BitIter(lost as u64) {
                self.win_at[side][i][j as usize] = 1;
            }
            for j in BitIter(won as u64) {
                let f = &mut self.floor[side][i][j as usize];
                *f = (*f).max(1);
            }
        }
    }

    /// Makes side `side`'s rows of 0-plies children symmetric (a child of
    /// placement `[i][j]` is one of `[j][i]`): the captures of the other
    /// fox are recorded the other way round.
    pub(super) fn symmetric_zeroing(&mut self, side: usize, n: usize) {
        let (mut lost, mut won) = (self.zeroing_lost[side], self.zeroing_won[side]);
        transpose_pair(&mut lost, &mut won, n);
        for i in 0..n {
            self.zeroing_lost[side][i] |= lost[i];
            self.zeroing_won[side][i] |= won[i];
        }
    }

    /// The rows of 0-plies children of side `side`'s placements `[i][..]`: (lost, won).
    #[inline]
    pub(super) fn zeroing_rows(&self, side: usize, i: usize) -> (u32, u32) {
        (self.zeroing_lost[side][i], self.zeroing_won[side][i])
    }
}

/// Sides as [`PlyScratch`] indexes them.
pub(super) const FOX: usize = 0;
pub(super) const SHEEP: usize = 1;

/// The plies of the positions phase `k` of `side` decides: the initial
/// pass decides the game-over positions (0), then phases alternate, fox
/// first (the first fox phase runs inside the initial pass): fox phase `k`
/// decides fox wins at `2k - 1` and fox losses at `2k - 2`, sheep phase `k`
/// sheep wins at `2k - 1` and sheep losses at `2k` (a win for the side to
/// move always has odd plies, a loss even). Returns (win, loss) plies.
#[inline]
pub(super) fn levels(side: usize, k: u32) -> (u32, u32) {
    if side == FOX {
        (2 * k - 1, 2 * k - 2)
    } else {
        (2 * k - 1, 2 * k)
    }
}

/// The phase (of either side) that decides a win at `plies`.
#[inline]
pub(super) fn win_phase(plies: u32) -> u32 {
    plies.div_ceil(2)
}

/// The first phase of `side` whose losses are at `plies` or later.
#[inline]
pub(super) fn loss_phase(side: usize, plies: u32) -> u32 {
    if side == FOX {
        plies.div_ceil(2) + 1
    } else {
        plies.div_ceil(2).max(1)
    }
}

/// A plies count in memory while solving: one byte a slot where every
/// count of the tier fits (the memory budget of a solve with plies), else
/// two ([`solve_any`] solves again with two when one overflows).
pub(super) trait Ply: Copy + Default + Send + Sync {
    const MAX: u32;
    fn get(self) -> u32;
    /// Precondition: `v <= MAX`.
    fn put(v: u32) -> Self;
    /// The solve's plies as the tier's [`Plies`]: draws (pending floors,
    /// wins never due) and unused slots set to 0, in place.
    fn finish(mut plies: Vec<Self>, values: &PackedValues) -> Plies {
        debug_assert!(plies.len() as u64 <= values.len(), "a value for every count");
        // Four codes a byte, read a byte at a time: a code is a win (1) or
        // a loss (2) exactly when its two bits differ.
        const _: () = assert!(WIN_CODE == 1 && LOSS_CODE == 2);
        plies.par_chunks_mut(1 << 16).zip(values.bytes().par_chunks(1 << 14)).for_each(|(chunk, codes)| {
            for (four, &byte) in chunk.chunks_mut(4).zip(codes) {
                let decided = ((byte ^ (byte >> 1)) & 0b0101_0101) as u32;
                for (k, x) in four.iter_mut().enumerate() {
                    // All ones where decided, else 0: no branch per count.
                    let keep = 0u32.wrapping_sub(decided >> (2 * k) & 1);
                    *x = Self::put(x.get() & keep);
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
pub(super) struct PlyArrays<P: Ply> {
    pub(super) plies: Vec<P>,
    pub(super) due: [Vec<u32>; 2],
}

impl<P: Ply> PlyArrays<P> {
    pub(super) fn new(ctx: &Ctx) -> PlyArrays<P> {
        let sets = ctx.index.sheep_sets as usize;
        let slots = if ctx.plies { sets * ctx.per_set as usize } else { 0 };
        PlyArrays { plies: vec![P::default(); slots], due: [vec![u32::MAX; sets], vec![u32::MAX; sets]] }
    }

    /// Per work item of [`BLOCKS_PER_ITEM`] blocks: its plies (empty
    /// without plies) and its fox and sheep due phases.
    #[allow(clippy::type_complexity)]
    pub(super) fn item_slices(&mut self, ctx: &Ctx, items: usize) -> Vec<(&mut [P], &mut [u32], &mut [u32])> {
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

    /// The same plies and due phases, two bytes a count: for a solve whose
    /// next counts would outgrow `P` (every count so far fits). For a
    /// moment both copies are held: three bytes a slot.
    pub(super) fn widen(self) -> PlyArrays<u16> {
        let plies = self.plies.par_iter().map(|p| p.get() as u16).collect();
        drop(self.plies);
        PlyArrays { plies, due: self.due }
    }

    pub(super) fn pending(&self) -> bool {
        self.due.iter().any(|d| d.iter().any(|&x| x != u32::MAX))
    }
}
