//! Dense ranking of Fox Game positions inside a tier, one index per mirror pair.
//!
//! A position is ranked as `(sheep_index * fox_slots + fox_index) * 2 + side`.
//!
//! *Sheep.* Each rank's sheep form a pattern of its 3 or 7 points. The mirror
//! reverses each pattern. A sheep set is canonical when, at the highest rank
//! whose pattern is not its own mirror, the pattern is the smaller of the two
//! (as an integer); this is exactly `sheep <= mirror(sheep)`. Canonical sets
//! are numbered in blocks, one per "highest asymmetric rank" r: the ranks
//! above r are symmetric, rank r holds the smaller pattern of its pair, the
//! ranks below are arbitrary. The fully symmetric sets form the last block.
//! Inside a block the index is mixed radix over per-rank pattern numbers.
//!
//! *Foxes.* Foxes stand on the 33 - s points without sheep; their index is
//! the combinatorial-number-system rank of their positions among those
//! points. For a symmetric sheep set, fox placements with `foxes >
//! mirror(foxes)` are not canonical: their slots are unused.

use super::key::FoxTier;
use crate::board::{mirror_bits, Bits, ALL_POINTS, RANK_START, RANK_WIDTH, REVERSE3, REVERSE7};
use crate::position::{Position, Side};

/// Numbering of the patterns of one rank width, by popcount.
struct Patterns {
    /// Per pattern: its number among all patterns of its popcount.
    full: [u8; 128],
    /// Per symmetric pattern: its number among symmetric patterns of its popcount.
    sym: [u8; 128],
    /// Per pattern smaller than its mirror: its number among those of its popcount.
    low: [u8; 128],
    /// Inverses: [popcount][number] -> pattern.
    full_inv: [[u8; 35]; 8],
    sym_inv: [[u8; 35]; 8],
    low_inv: [[u8; 35]; 8],
    /// Counts per popcount.
    n_full: [u8; 8],
    n_sym: [u8; 8],
    n_low: [u8; 8],
}

impl Patterns {
    const fn build(width: u32) -> Patterns {
        let mut p = Patterns {
            full: [0; 128],
            sym: [0; 128],
            low: [0; 128],
            full_inv: [[0; 35]; 8],
            sym_inv: [[0; 35]; 8],
            low_inv: [[0; 35]; 8],
            n_full: [0; 8],
            n_sym: [0; 8],
            n_low: [0; 8],
        };
        let mut pattern = 0usize;
        while pattern < (1 << width) {
            let k = (pattern as u32).count_ones() as usize;
            let rev = if width == 7 { REVERSE7[pattern] } else { REVERSE3[pattern] } as usize;
            p.full[pattern] = p.n_full[k];
            p.full_inv[k][p.n_full[k] as usize] = pattern as u8;
            p.n_full[k] += 1;
            if rev == pattern {
                p.sym[pattern] = p.n_sym[k];
                p.sym_inv[k][p.n_sym[k] as usize] = pattern as u8;
                p.n_sym[k] += 1;
            } else if pattern < rev {
                p.low[pattern] = p.n_low[k];
                p.low_inv[k][p.n_low[k] as usize] = pattern as u8;
                p.n_low[k] += 1;
            }
            pattern += 1;
        }
        p
    }
}

static PATTERNS3: Patterns = Patterns::build(3);
static PATTERNS7: Patterns = Patterns::build(7);

#[inline]
fn patterns(width: u8) -> &'static Patterns {
    if width == 7 {
        &PATTERNS7
    } else {
        &PATTERNS3
    }
}

/// Which rank (0 = rank 1) each point index lies on.
const RANK_OF_POINT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 33 {
        let mut y = 0;
        while RANK_START[y + 1] as usize <= i {
            y += 1;
        }
        t[i] = y as u8;
        i += 1;
    }
    t
};

/// n choose 2, the only binomial above 1 the fox index needs.
#[inline]
fn choose2(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// The `j`-th (from 0) set bit of `mask`, as a one-bit set.
///
/// Uses BMI2 `pdep` where it is fast ([`crate::cpu`]), else a portable
/// loop; tests check that both agree.
#[inline]
pub fn select_bit(mask: Bits, j: u32) -> Bits {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::bmi2_in_use() {
            // SAFETY: the CPU supports BMI2 (`bmi2_in_use` checked it).
            return unsafe { select_bit_bmi2(mask, j) };
        }
    }
    select_bit_portable(mask, j)
}

/// Portable [`select_bit`]: clears the lowest set bit `j` times.
#[inline]
pub fn select_bit_portable(mut mask: Bits, j: u32) -> Bits {
    for _ in 0..j {
        mask &= mask.wrapping_sub(1);
    }
    mask & mask.wrapping_neg()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn select_bit_bmi2(mask: Bits, j: u32) -> Bits {
    if j >= 64 {
        return 0;
    }
    core::arch::x86_64::_pdep_u64(1u64 << j, mask)
}

/// Precomputed layout of one tier's index space.
#[derive(Clone)]
pub struct TierIndex {
    pub tier: FoxTier,
    counts: [u8; 7],
    foxes: u32,
    /// Fox placements per sheep set: C(33 - s, foxes).
    pub fox_slots: u64,
    /// Canonical sheep sets in the tier.
    pub sheep_sets: u64,
    /// First sheep index of each block: blocks 0..7 are "highest asymmetric
    /// rank is 7 - b" (rank 7 first), block 7 holds the symmetric sets.
    block_start: [u64; 8],
    /// Per rank (0 = rank 1): number of sym / low / full patterns with that rank's count.
    n_sym: [u64; 7],
    n_low: [u64; 7],
    n_full: [u64; 7],
    /// contribution[b][GROUP_OFFSET[g] + bits]: what the sheep pattern
    /// `bits` of group g adds to the index of a sheep set in block b (each
    /// rank's digit times its place value), so ranking is five lookups and
    /// a sum.
    contribution: Box<[[u32; 512]; 8]>,
}

impl std::fmt::Debug for TierIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TierIndex({}, {} sheep sets x {} fox slots x 2)", self.tier, self.sheep_sets, self.fox_slots)
    }
}

/// The sheep bits are read in five groups: ranks 1-2 (6 bits), 3, 4, 5 (7
/// bits each) and 6-7 (6 bits). Group g starts at bit GROUP_START[g].
const GROUP_START: [u32; 5] = [0, 6, 13, 20, 27];
const GROUP_BITS: [u32; 5] = [6, 7, 7, 7, 6];
const GROUP_OFFSET: [usize; 5] = [0, 64, 192, 320, 448];

/// The sheep part of the rank of the positions with one sheep set
/// ([`TierIndex::set_rank`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetRank {
    /// Slot of fox index 0, fox to move, of the canonical sheep set:
    /// `set` times the slots of a set.
    pub base: u64,
    /// Index of the canonical sheep set ([`TierIndex::sheep_index`]).
    pub set: u64,
    /// The sheep set is stored mirrored: the foxes are mirrored too.
    pub mirrored: bool,
    /// The sheep set is its own mirror: foxes take the smaller of them and their mirror.
    pub symmetric: bool,
    /// Points without sheep of the canonical sheep set.
    pub free: Bits,
}

impl SetRank {
    /// The slot of the position with these sheep, `foxes` (as they stand,
    /// before any mirroring) and `side`: `canonical_rank` of it.
    #[inline]
    pub fn slot(&self, foxes: Bits, side: Side) -> u64 {
        let mut f = if self.mirrored { mirror_bits(foxes) } else { foxes };
        if self.symmetric {
            f = f.min(mirror_bits(f));
        }
        self.base + fox_index_among(self.free, f) * 2 + (side == Side::Sheep) as u64
    }
}

/// The index of one or two foxes among the points of `free` (the
/// combinatorial number system; [`TierIndex::fox_index`] for a sheep set).
#[inline]
pub fn fox_index_among(free: Bits, foxes: Bits) -> u64 {
    let below = |f: Bits| (free & (f - 1)).count_ones() as u64;
    let lo = foxes & foxes.wrapping_neg();
    let hi = foxes ^ lo;
    if hi == 0 {
        below(lo)
    } else {
        choose2(below(hi)) + below(lo)
    }
}

/// Which digit a rank contributes in a block.
#[derive(Clone, Copy)]
enum Digit {
    Sym,
    Low,
    Full,
}

impl TierIndex {
    pub fn new(tier: FoxTier) -> TierIndex {
        let counts = tier.counts();
        let (mut n_sym, mut n_low, mut n_full) = ([0u64; 7], [0u64; 7], [0u64; 7]);
        for y in 0..7 {
            let p = patterns(RANK_WIDTH[y]);
            let k = counts[y] as usize;
            n_sym[y] = p.n_sym[k] as u64;
            n_low[y] = p.n_low[k] as u64;
            n_full[y] = p.n_full[k] as u64;
        }
        let empty = 33 - tier.sheep() as u64;
        let fox_slots = match tier.foxes() {
            0 => 1,
            1 => empty,
            _ => choose2(empty),
        };
        let mut block_start = [0u64; 8];
        let mut contribution = vec![[0u32; 512]; 8].into_boxed_slice();
        let mut total = 0;
        for b in 0..8 {
            block_start[b] = total;
            // Ranks above the highest asymmetric rank r are symmetric, r is low, the rest are free.
            let digit = |y: usize| -> Digit {
                match (b, y) {
                    (7, _) => Digit::Sym,
                    _ if y > 6 - b => Digit::Sym,
                    _ if y == 6 - b => Digit::Low,
                    _ => Digit::Full,
                }
            };
            let mut place = 1u64;
            let mut per_rank = [[0u64; 128]; 7];
            for y in 0..7 {
                let t = patterns(RANK_WIDTH[y]);
                let (table, radix) = match digit(y) {
                    Digit::Sym => (&t.sym, n_sym[y]),
                    Digit::Low => (&t.low, n_low[y]),
                    Digit::Full => (&t.full, n_full[y]),
                };
                for pattern in 0..1usize << RANK_WIDTH[y] {
                    per_rank[y][pattern] = table[pattern] as u64 * place;
                }
                place *= radix;
            }
            for g in 0..5 {
                for bits in 0..1usize << GROUP_BITS[g] {
                    let sheep = (bits as u64) << GROUP_START[g];
                    let sum: u64 = (0..7)
                        .filter(|&y| {
                            (RANK_START[y] as u32) >= GROUP_START[g]
                                && (RANK_START[y] as u32) < GROUP_START[g] + GROUP_BITS[g]
                        })
                        .map(|y| per_rank[y][((sheep >> RANK_START[y]) & ((1 << RANK_WIDTH[y]) - 1)) as usize])
                        .sum();
                    // Sums of valid digits stay below the tier size (< 2^32, asserted below);
                    // entries for patterns a tier never holds are meaningless and may wrap.
                    contribution[b][GROUP_OFFSET[g] + bits] = sum as u32;
                }
            }
            total += place;
        }
        let sheep_sets = total;
        assert!(
            sheep_sets * fox_slots * 2 < 1 << 32,
            "tier {tier} has 2^32 slots or more; the index holds 32-bit offsets (the full game's largest tier has 0.66e9)"
        );
        let contribution: Box<[[u32; 512]; 8]> = contribution.try_into().unwrap();
        TierIndex {
            tier,
            counts,
            foxes: tier.foxes(),
            fox_slots,
            sheep_sets,
            block_start,
            n_sym,
            n_low,
            n_full,
            contribution,
        }
    }

    /// Number of slots: canonical sheep sets x fox placements x 2 sides.
    pub fn size(&self) -> u64 {
        self.sheep_sets * self.fox_slots * 2
    }

    /// Slot index of `(sheep, foxes, side)`, given `mirrored = mirror_bits(sheep)`.
    #[inline]
    fn slot(&self, sheep: Bits, mirrored: Bits, foxes: Bits, side: Side) -> u64 {
        self.set_index_given(sheep, mirrored) * self.fox_slots * 2
            + self.fox_index(sheep, foxes) * 2
            + (side == Side::Sheep) as u64
    }

    /// The index of a canonical sheep set, given `mirrored = mirror_bits(sheep)`.
    #[inline]
    fn set_index_given(&self, sheep: Bits, mirrored: Bits) -> u64 {
        let diff = sheep ^ mirrored;
        let b = if diff == 0 { 7 } else { 6 - RANK_OF_POINT[63 - diff.leading_zeros() as usize] as usize };
        let c = &self.contribution[b];
        let mut sum = 0u32;
        for g in 0..5 {
            sum = sum
                .wrapping_add(c[GROUP_OFFSET[g] + ((sheep >> GROUP_START[g]) & ((1 << GROUP_BITS[g]) - 1)) as usize]);
        }
        self.block_start[b] + sum as u64
    }

    /// The first slot of a canonical sheep set of this tier (fox index 0,
    /// fox to move): `sheep_index(sheep) * fox_slots * 2`.
    ///
    /// Precondition: `sheep` is a canonical sheep set of this tier.
    #[inline]
    pub fn set_base(&self, sheep: Bits) -> u64 {
        self.set_index_given(sheep, mirror_bits(sheep)) * self.fox_slots * 2
    }

    /// The sheep part of the index of every position of this tier with the
    /// sheep set `sheep` (canonical or not): computed once, it ranks any fox
    /// placement with two popcounts ([`SetRank::slot`]).
    ///
    /// Precondition: `sheep` is a sheep set of this tier.
    #[inline]
    pub fn set_rank(&self, sheep: Bits) -> SetRank {
        let mirror = mirror_bits(sheep);
        let canonical = sheep.min(mirror);
        // The canonical set's mirror image is the other of the two.
        let set = self.set_index_given(canonical, sheep.max(mirror));
        SetRank {
            base: set * self.fox_slots * 2,
            set,
            mirrored: mirror < sheep,
            symmetric: mirror == sheep,
            free: ALL_POINTS & !canonical,
        }
    }

    /// Index of a canonical sheep set of this tier.
    ///
    /// Precondition: `sheep` is a canonical sheep set of this tier.
    pub fn sheep_index(&self, sheep: Bits) -> u64 {
        self.set_index_given(sheep, mirror_bits(sheep))
    }

    /// The canonical sheep set with index `idx < sheep_sets`.
    pub fn sheep_set(&self, mut idx: u64) -> Bits {
        let mut pat = [0u64; 7];
        let block = (0..8).rev().find(|&b| self.block_start[b] <= idx).unwrap();
        idx -= self.block_start[block];
        if block == 7 {
            for y in 0..7 {
                let t = patterns(RANK_WIDTH[y]);
                pat[y] = t.sym_inv[self.counts[y] as usize][(idx % self.n_sym[y]) as usize] as u64;
                idx /= self.n_sym[y];
            }
        } else {
            let r = 6 - block;
            for y in 0..r {
                let t = patterns(RANK_WIDTH[y]);
                pat[y] = t.full_inv[self.counts[y] as usize][(idx % self.n_full[y]) as usize] as u64;
                idx /= self.n_full[y];
            }
            let t = patterns(RANK_WIDTH[r]);
            pat[r] = t.low_inv[self.counts[r] as usize][(idx % self.n_low[r]) as usize] as u64;
            idx /= self.n_low[r];
            for y in r + 1..7 {
                let t = patterns(RANK_WIDTH[y]);
                pat[y] = t.sym_inv[self.counts[y] as usize][(idx % self.n_sym[y]) as usize] as u64;
                idx /= self.n_sym[y];
            }
        }
        (0..7).map(|y| pat[y] << RANK_START[y]).sum()
    }

    /// Index of the foxes among the points without sheep.
    #[inline]
    pub fn fox_index(&self, sheep: Bits, foxes: Bits) -> u64 {
        let free = ALL_POINTS & !sheep;
        let below = |f: Bits| (free & (f - 1)).count_ones() as u64;
        match self.foxes {
            0 => 0,
            1 => below(foxes),
            _ => {
                let lo = foxes & foxes.wrapping_neg();
                let hi = foxes ^ lo;
                choose2(below(hi)) + below(lo)
            }
        }
    }

    /// The foxes with index `idx` among the points without sheep.
    #[inline]
    pub fn fox_set(&self, sheep: Bits, idx: u64) -> Bits {
        let free = ALL_POINTS & !sheep;
        match self.foxes {
            0 => 0,
            1 => select_bit(free, idx as u32),
            _ => {
                // Largest h with C(h, 2) <= idx.
                let mut h = (((8 * idx + 1) as f64).sqrt() as u64).div_ceil(2) + 1;
                while choose2(h) > idx {
                    h -= 1;
                }
                select_bit(free, h as u32) | select_bit(free, (idx - choose2(h)) as u32)
            }
        }
    }

    /// The index of a canonical position of this tier.
    ///
    /// Precondition: the position is in this tier and canonical (debug-asserted).
    #[inline]
    pub fn rank(&self, pos: &Position) -> u64 {
        debug_assert_eq!(FoxTier::of(pos.sheep(), pos.fox_count()), self.tier);
        debug_assert_eq!(pos.canonical(), *pos);
        self.slot(pos.sheep(), mirror_bits(pos.sheep()), pos.foxes(), pos.side())
    }

    /// The index of the canonical form of a position of this tier.
    ///
    /// Precondition: the position is in this tier (debug-asserted).
    #[inline]
    pub fn canonical_rank(&self, pos: &Position) -> u64 {
        debug_assert_eq!(FoxTier::of(pos.sheep(), pos.fox_count()), self.tier);
        let (sheep, foxes) = (pos.sheep(), pos.foxes());
        let mirrored = mirror_bits(sheep);
        if mirrored < sheep {
            self.slot(mirrored, sheep, mirror_bits(foxes), pos.side())
        } else if mirrored > sheep {
            self.slot(sheep, mirrored, foxes, pos.side())
        } else {
            self.slot(sheep, mirrored, foxes.min(mirror_bits(foxes)), pos.side())
        }
    }

    /// Calls `f(i, unrank(i))` for every `i` in `range`, decoding each sheep set once.
    pub fn for_each_slot(&self, range: std::ops::Range<u64>, mut f: impl FnMut(u64, Option<Position>)) {
        let per_set = self.fox_slots * 2;
        let mut current = u64::MAX;
        let (mut sheep, mut symmetric) = (0, false);
        for i in range {
            let set = i / per_set;
            if set != current {
                current = set;
                sheep = self.sheep_set(set);
                symmetric = sheep == mirror_bits(sheep);
            }
            let foxes = self.fox_set(sheep, (i % per_set) >> 1);
            if symmetric && mirror_bits(foxes) < foxes {
                f(i, None);
            } else {
                let side = if i & 1 == 1 { Side::Sheep } else { Side::Fox };
                f(i, Some(Position::from_parts_unchecked(sheep, foxes, side)));
            }
        }
    }

    /// The canonical position at `index`, or `None` for an unused slot.
    pub fn unrank(&self, index: u64) -> Option<Position> {
        let side = if index & 1 == 1 { Side::Sheep } else { Side::Fox };
        let rest = index >> 1;
        let sheep = self.sheep_set(rest / self.fox_slots);
        let foxes = self.fox_set(sheep, rest % self.fox_slots);
        if sheep == mirror_bits(sheep) && mirror_bits(foxes) < foxes {
            return None;
        }
        Some(Position::from_parts_unchecked(sheep, foxes, side))
    }
}
