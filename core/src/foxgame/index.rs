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
use std::sync::OnceLock;

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
    fn build(width: u32) -> Patterns {
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
        for pattern in 0..(1u32 << width) {
            let k = pattern.count_ones() as usize;
            let rev = reverse(pattern, width);
            p.full[pattern as usize] = p.n_full[k];
            p.full_inv[k][p.n_full[k] as usize] = pattern as u8;
            p.n_full[k] += 1;
            if rev == pattern {
                p.sym[pattern as usize] = p.n_sym[k];
                p.sym_inv[k][p.n_sym[k] as usize] = pattern as u8;
                p.n_sym[k] += 1;
            } else if pattern < rev {
                p.low[pattern as usize] = p.n_low[k];
                p.low_inv[k][p.n_low[k] as usize] = pattern as u8;
                p.n_low[k] += 1;
            }
        }
        p
    }
}

fn reverse(v: u32, width: u32) -> u32 {
    (0..width).filter(|i| v & (1 << i) != 0).map(|i| 1 << (width - 1 - i)).sum()
}

#[inline]
fn reverse_pattern(pattern: usize, width: u8) -> usize {
    if width == 7 {
        REVERSE7[pattern] as usize
    } else {
        REVERSE3[pattern] as usize
    }
}

fn patterns(width: u8) -> &'static Patterns {
    static P3: OnceLock<Patterns> = OnceLock::new();
    static P7: OnceLock<Patterns> = OnceLock::new();
    if width == 7 {
        P7.get_or_init(|| Patterns::build(7))
    } else {
        P3.get_or_init(|| Patterns::build(3))
    }
}

/// n choose 2, the only binomial above 1 the fox index needs.
#[inline]
fn choose2(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// The `j`-th (from 0) set bit of `mask`, as a one-bit set.
///
/// Uses BMI2 `pdep` when the CPU has it, else a portable loop; tests check
/// that both agree.
#[inline]
pub fn select_bit(mask: Bits, j: u32) -> Bits {
    #[cfg(target_arch = "x86_64")]
    {
        if bmi2_available() {
            // SAFETY: the CPU supports BMI2, checked at run time just above.
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

/// Whether the BMI2 fast path is in use on this CPU.
pub fn bmi2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| std::is_x86_feature_detected!("bmi2"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Precomputed layout of one tier's index space.
#[derive(Clone, Debug)]
pub struct TierIndex {
    pub tier: FoxTier,
    counts: [u8; 7],
    foxes: u32,
    /// Fox placements per sheep set: C(33 - s, foxes).
    pub fox_slots: u64,
    /// Canonical sheep sets in the tier.
    pub sheep_sets: u64,
    /// block_start[r] for r = 7..1 at positions 0..7 (highest rank first), then the symmetric block.
    block_start: [u64; 8],
    /// Per rank (0 = rank 1): number of sym / low / full patterns with that rank's count.
    n_sym: [u64; 7],
    n_low: [u64; 7],
    n_full: [u64; 7],
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
        let mut block_start = [0u64; 8];
        let mut total = 0;
        for (b, y) in (0..7).rev().enumerate() {
            block_start[b] = total;
            let above: u64 = (y + 1..7).map(|q| n_sym[q]).product();
            let below: u64 = (0..y).map(|q| n_full[q]).product();
            total += above * n_low[y] * below;
        }
        block_start[7] = total;
        let sheep_sets = total + n_sym.iter().product::<u64>();
        let empty = 33 - tier.sheep() as u64;
        let fox_slots = match tier.foxes() {
            0 => 1,
            1 => empty,
            _ => choose2(empty),
        };
        TierIndex { tier, counts, foxes: tier.foxes(), fox_slots, sheep_sets, block_start, n_sym, n_low, n_full }
    }

    /// Number of slots: canonical sheep sets x fox placements x 2 sides.
    pub fn size(&self) -> u64 {
        self.sheep_sets * self.fox_slots * 2
    }

    /// Index of a canonical sheep set of this tier.
    #[inline]
    pub fn sheep_index(&self, sheep: Bits) -> u64 {
        let mut pat = [0usize; 7];
        for (y, p) in pat.iter_mut().enumerate() {
            *p = ((sheep >> RANK_START[y]) & ((1 << RANK_WIDTH[y]) - 1)) as usize;
        }
        // Highest rank whose pattern is not its own mirror.
        let asym = (0..7).rev().find(|&y| reverse_pattern(pat[y], RANK_WIDTH[y]) != pat[y]);
        let mut idx = 0u64;
        match asym {
            None => {
                for y in (0..7).rev() {
                    idx = idx * self.n_sym[y] + patterns(RANK_WIDTH[y]).sym[pat[y]] as u64;
                }
                self.block_start[7] + idx
            }
            Some(r) => {
                for y in (r + 1..7).rev() {
                    idx = idx * self.n_sym[y] + patterns(RANK_WIDTH[y]).sym[pat[y]] as u64;
                }
                debug_assert!(pat[r] < reverse_pattern(pat[r], RANK_WIDTH[r]), "sheep set is not canonical");
                idx = idx * self.n_low[r] + patterns(RANK_WIDTH[r]).low[pat[r]] as u64;
                for y in (0..r).rev() {
                    idx = idx * self.n_full[y] + patterns(RANK_WIDTH[y]).full[pat[y]] as u64;
                }
                self.block_start[6 - r] + idx
            }
        }
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
        let s = self.sheep_index(pos.sheep());
        let f = self.fox_index(pos.sheep(), pos.foxes());
        (s * self.fox_slots + f) * 2 + (pos.side() == Side::Sheep) as u64
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
