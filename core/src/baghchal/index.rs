//! Slot arithmetic for kernels: the ranking of [`super::tier`] without
//! building positions or searching.
//!
//! A slot of a tier is `(tiger id × goat sets + goat rank) × 2 + side`
//! ([`super::tier`]). This module computes its parts with tables:
//!
//! - [`TigerMap`]: for each of the 12,650 tiger sets, the id of its
//!   canonical set and the symmetries that map it there (one for most
//!   sets, more for a set some symmetry keeps); per canonical id, its four
//!   points and its non-identity stabiliser.
//! - [`compress`] / [`expand`]: goats as a subset of the 21 points that are
//!   not tigers (the tiger bits squeezed out), and back.
//! - [`goat_rank`]: the colex rank of such a 21-bit subset, three table
//!   lookups; consecutive subsets in numeric order have consecutive ranks,
//!   so a kernel enumerates a tiger set's goat sets with Gosper's hack.
//!
//! The tests check every function against [`super::tier`]'s `rank` and
//! `unrank` and against [`super::canonical`].
//!
//! ```
//! use foxbase_core::baghchal::index::{compress, expand, goat_rank, TigerMap};
//! use foxbase_core::baghchal::Position;
//! let map = TigerMap::get();
//! let corners = Position::START.tigers();
//! let image = map.image(corners);
//! // The corners are kept by all 8 symmetries.
//! assert_eq!(image.symmetries().len(), 8);
//! let points = map.points(image.id);
//! let goats = 1 << 12; // c3
//! assert_eq!(expand(compress(goats, points), points), goats);
//! assert_eq!(goat_rank(compress(goats, points)), 10); // c3 is the 11th point that is not a corner
//! ```

use super::board::{Bits, NUM_POINTS};
use super::symmetry::Symmetry;
use super::tier::{canonical_tiger_sets, BINOMIAL};
use std::sync::OnceLock;

/// The goats' bits after [`compress`]: the 21 points without tigers.
pub const FREE_MASK: u32 = (1 << 21) - 1;

/// Up to 8 symmetries, kept inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymmetryList {
    len: u8,
    numbers: [u8; 8],
}

impl SymmetryList {
    const EMPTY: SymmetryList = SymmetryList { len: 0, numbers: [0; 8] };

    fn push(&mut self, s: Symmetry) {
        self.numbers[self.len as usize] = s.number();
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = Symmetry> + '_ {
        self.numbers[..self.len as usize].iter().map(|&n| Symmetry::new(n))
    }

    /// The smallest image of `b` under these symmetries (`u32::MAX` for an
    /// empty list; a [`TigerImage`]'s list is never empty).
    #[inline]
    pub fn min_image(&self, b: Bits) -> Bits {
        let mut best = u32::MAX;
        for &n in &self.numbers[..self.len as usize] {
            best = best.min(Symmetry::new(n).bits(b));
        }
        best
    }
}

/// Where a tiger set goes under canonicalisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TigerImage {
    /// Index of its canonical set in [`canonical_tiger_sets`].
    pub id: u16,
    /// Every symmetry that maps the set onto its canonical set (so a
    /// position's canonical goats are the smallest image under these).
    symmetries: SymmetryList,
}

impl TigerImage {
    pub fn symmetries(&self) -> &SymmetryList {
        &self.symmetries
    }
}

/// Canonicalisation and layout of tiger sets, built once.
pub struct TigerMap {
    /// By the colex rank of a 4-point set among all 4-point sets.
    images: Vec<TigerImage>,
    /// Per canonical id: its points, ascending.
    points: Vec<[u8; 4]>,
    /// Per canonical id: the symmetries other than the identity that keep it.
    stabilisers: Vec<SymmetryList>,
}

/// The colex rank of a 4-point set among the 12,650 of them.
#[inline]
fn tiger_set_rank(t: Bits) -> usize {
    // The k-th point p (k = 1..=4, ascending) adds C(p, k).
    let (rank, _) = (1..=4usize).fold((0usize, t), |(rank, rest), k| {
        (rank + BINOMIAL[rest.trailing_zeros() as usize][k] as usize, rest & (rest - 1))
    });
    rank
}

impl TigerMap {
    /// The map, built on first use.
    pub fn get() -> &'static TigerMap {
        static MAP: OnceLock<TigerMap> = OnceLock::new();
        MAP.get_or_init(TigerMap::build)
    }

    fn build() -> TigerMap {
        let sets = canonical_tiger_sets();
        let mut images = vec![TigerImage { id: 0, symmetries: SymmetryList::EMPTY }; BINOMIAL[NUM_POINTS][4] as usize];
        for a in 0..NUM_POINTS {
            for b in a + 1..NUM_POINTS {
                for c in b + 1..NUM_POINTS {
                    for d in c + 1..NUM_POINTS {
                        let t: Bits = 1 << a | 1 << b | 1 << c | 1 << d;
                        let min = Symmetry::ALL.iter().map(|s| s.bits(t)).min().expect("8 symmetries");
                        let id = sets.binary_search(&min).expect("the smallest image is canonical") as u16;
                        let mut symmetries = SymmetryList::EMPTY;
                        for s in Symmetry::ALL {
                            if s.bits(t) == min {
                                symmetries.push(s);
                            }
                        }
                        images[tiger_set_rank(t)] = TigerImage { id, symmetries };
                    }
                }
            }
        }
        let points = sets
            .iter()
            .map(|&t| {
                let mut p = [0u8; 4];
                let mut rest = t;
                for q in &mut p {
                    *q = rest.trailing_zeros() as u8;
                    rest &= rest - 1;
                }
                p
            })
            .collect();
        let stabilisers = sets
            .iter()
            .map(|&t| {
                let mut list = SymmetryList::EMPTY;
                for s in &Symmetry::ALL[1..] {
                    if s.bits(t) == t {
                        list.push(*s);
                    }
                }
                list
            })
            .collect();
        TigerMap { images, points, stabilisers }
    }

    /// The canonical id of tiger set `t` and the symmetries that take it there.
    ///
    /// Precondition: `t` has exactly 4 points.
    #[inline]
    pub fn image(&self, t: Bits) -> TigerImage {
        debug_assert_eq!(t.count_ones(), 4);
        self.images[tiger_set_rank(t)]
    }

    /// The points of canonical tiger set `id`, ascending.
    #[inline]
    pub fn points(&self, id: u16) -> [u8; 4] {
        self.points[id as usize]
    }

    /// The symmetries other than the identity that keep canonical tiger set `id`.
    #[inline]
    pub fn stabiliser(&self, id: u16) -> &SymmetryList {
        &self.stabilisers[id as usize]
    }

    /// Number of canonical tiger sets (1,666).
    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

/// The goats `goats` as a subset of the 21 points other than `tigers`
/// (ascending), the tiger bits squeezed out.
///
/// Precondition: no goat on a tiger's point.
#[inline]
pub fn compress(goats: Bits, tigers: [u8; 4]) -> u32 {
    let mut x = goats;
    // Highest first, so the lower tigers' positions still hold.
    for &p in tigers.iter().rev() {
        let low = (1u32 << p) - 1;
        x = (x & low) | ((x >> 1) & !low);
    }
    x
}

/// The inverse of [`compress`]: a 21-bit subset back onto the board.
#[inline]
pub fn expand(free: u32, tigers: [u8; 4]) -> Bits {
    let mut x = free;
    for &p in &tigers {
        let low = (1u32 << p) - 1;
        x = (x & low) | ((x & !low) << 1);
    }
    x
}

/// `RANK_CHUNKS[c][k][pattern]`: the colex-rank terms of the 7 bits
/// `pattern` at points 7c..7c+7 of a 21-bit subset with `k` elements below them.
static RANK_CHUNKS: OnceLock<Vec<u32>> = OnceLock::new();

const CHUNK_BITS: u32 = 7;
const KS: usize = 22;

fn rank_chunks() -> &'static [u32] {
    RANK_CHUNKS.get_or_init(|| {
        let mut t = vec![0u32; 3 * KS * 128];
        for c in 0..3usize {
            for k in 0..KS {
                for pattern in 0..128usize {
                    let (mut sum, mut m) = (0u32, 0usize);
                    for b in 0..7usize {
                        if pattern & (1 << b) != 0 {
                            let (n, kk) = (7 * c + b, k + m + 1);
                            sum += if kk <= NUM_POINTS { BINOMIAL[n][kk] as u32 } else { 0 };
                            m += 1;
                        }
                    }
                    t[(c * KS + k) * 128 + pattern] = sum;
                }
            }
        }
        t
    })
}

/// The rank tables, for a hot loop to fetch once ([`goat_rank_with`]).
pub fn rank_tables() -> &'static [u32] {
    rank_chunks()
}

/// The colex rank of a 21-bit subset among the subsets of its size (the
/// goat part of a slot).
#[inline]
pub fn goat_rank(free: u32) -> u64 {
    goat_rank_with(rank_chunks(), free)
}

/// [`goat_rank`] with the tables passed in.
#[inline]
pub fn goat_rank_with(tables: &[u32], free: u32) -> u64 {
    debug_assert!(free <= FREE_MASK);
    let mask = (1u32 << CHUNK_BITS) - 1;
    let (c0, c1, c2) = (free & mask, (free >> CHUNK_BITS) & mask, free >> (2 * CHUNK_BITS));
    let k1 = c0.count_ones() as usize;
    let k2 = k1 + c1.count_ones() as usize;
    (tables[c0 as usize] + tables[(KS + k1) * 128 + c1 as usize] + tables[(2 * KS + k2) * 128 + c2 as usize]) as u64
}

#[cfg(test)]
mod tests {
    use super::super::board::ALL_POINTS;
    use super::super::position::{Position, Side};
    use super::super::symmetry::canonical;
    use super::super::tier::{BaghChal, BaghChalVariant, BaghTier};
    use super::*;
    use crate::tier::TierGame;

    /// A deterministic stream of pseudo-random numbers (xorshift).
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    fn random_subset(state: &mut u64, from: Bits, k: u32) -> Bits {
        let mut s: Bits = 0;
        while s.count_ones() < k {
            let p = (next(state) % 25) as u32;
            if from & (1 << p) != 0 {
                s |= 1 << p;
            }
        }
        s
    }

    #[test]
    fn tiger_map_agrees_with_brute_force() {
        let map = TigerMap::get();
        assert_eq!(map.len(), canonical_tiger_sets().len());
        let mut seen = 0;
        for a in 0..25u32 {
            for b in a + 1..25 {
                for c in b + 1..25 {
                    for d in c + 1..25 {
                        let t = 1 << a | 1 << b | 1 << c | 1 << d;
                        let image = map.image(t);
                        let canon = canonical_tiger_sets()[image.id as usize];
                        assert!(!image.symmetries().is_empty());
                        for s in Symmetry::ALL {
                            assert_eq!(image.symmetries().iter().any(|x| x == s), s.bits(t) == canon, "{t:b}");
                        }
                        seen += 1;
                    }
                }
            }
        }
        assert_eq!(seen, 12_650);
        for (id, &t) in canonical_tiger_sets().iter().enumerate() {
            let pts = map.points(id as u16);
            assert_eq!(pts.iter().fold(0, |b, &p| b | 1 << p), t);
            let stab: Vec<Symmetry> = map.stabiliser(id as u16).iter().collect();
            let expect: Vec<Symmetry> = Symmetry::ALL[1..].iter().copied().filter(|s| s.bits(t) == t).collect();
            assert_eq!(stab, expect);
        }
    }

    #[test]
    fn compress_expand_and_rank_agree_with_the_tier_ranking() {
        let game = BaghChal::new(BaghChalVariant::new(20, 5).unwrap());
        let map = TigerMap::get();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for goats_on_board in [0u32, 1, 5, 10, 11, 17, 20] {
            let tier = BaghTier { to_place: (20 - goats_on_board) as u8, captured: 0 };
            let index = game.tier_index(tier);
            for _ in 0..2_000 {
                let t = random_subset(&mut state, ALL_POINTS, 4);
                let g = random_subset(&mut state, ALL_POINTS & !t, goats_on_board);
                let side = if next(&mut state) & 1 == 0 { Side::Goat } else { Side::Tiger };
                let pos = Position::from_parts_unchecked(t, g, side, tier.to_place, 0);
                let canon = canonical(&pos);
                // Canonical goats: the smallest image under the tiger set's symmetries.
                let image = map.image(t);
                let pts = map.points(image.id);
                let goats = image.symmetries().min_image(g);
                assert_eq!(goats, canon.goats());
                assert_eq!(expand(compress(goats, pts), pts), goats);
                let slot = ((image.id as u64) * index.goat_sets() + goat_rank(compress(goats, pts))) * 2
                    + (side == Side::Tiger) as u64;
                assert_eq!(slot, game.rank(&index, &canon));
                // On a canonical tiger set, the stabiliser says whether a slot is used.
                if canonical_tiger_sets()[image.id as usize] == t {
                    let used = map.stabiliser(image.id).iter().all(|s| s.bits(g) >= g);
                    assert_eq!(used, canonical(&pos) == pos);
                }
            }
        }
    }

    #[test]
    fn consecutive_subsets_have_consecutive_ranks() {
        for k in [0u32, 1, 3, 10, 21] {
            let mut s: u32 = if k == 0 { 0 } else { (1 << k) - 1 };
            let mut r = 0;
            loop {
                assert_eq!(goat_rank(s), r);
                r += 1;
                if k == 0 {
                    break;
                }
                let c = s & s.wrapping_neg();
                let n = s + c;
                s = (((n ^ s) >> 2) / c) | n;
                if s > FREE_MASK {
                    break;
                }
            }
            assert_eq!(r, BINOMIAL[21][k as usize]);
        }
    }
}
