//! Bagh-Chal as a [`TierGame`].
//!
//! A variant ([`BaghChalVariant`]) fixes the goat total N (20 in the real
//! game, fewer for small test variants) and the capture target K. A tier
//! ([`BaghTier`]) is the pair (goats still to place p, goats captured c):
//! `p > 0` is a placing tier, `p = 0` the moving tier of c captures. A
//! placement leads from (p, c) to (p − 1, c), a jump to (p, c + 1); steps stay
//! in the tier (tiger steps only while placing, goat and tiger steps after).
//! So p never grows and c never shrinks: the tiers form a DAG. Tiers with
//! c ≥ K hold only game-over positions (the tigers have won); they are
//! never solved and never listed as child tiers: the kernel values such a
//! child with [`TierGame::primitive`].
//!
//! Ranking inside a tier: the tiger set's index among the *canonical* tiger
//! sets (those no symmetry maps below themselves; a canonical position's
//! tiger set is one, since [`canonical`] minimises the tigers first), times
//! the goats as a subset of the 21 other points with N − p − c goats
//! (combinatorial number system), times the side to move. A slot whose
//! position is not canonical (a symmetric tiger set with goats that some
//! symmetry lowers) is unused.
//!
//! ```
//! use foxbase_core::baghchal::{BaghChal, BaghChalVariant, BaghTier};
//! use foxbase_core::tier::TierGame;
//! let game = BaghChal::new(BaghChalVariant::new(3, 2).unwrap());
//! let start = game.initial_position();
//! assert_eq!(game.tier_of(&start), BaghTier { to_place: 3, captured: 0 });
//! // No goat on the board yet: the only way out is a placement.
//! assert_eq!(game.child_tiers(BaghTier { to_place: 3, captured: 0 }), [BaghTier { to_place: 2, captured: 0 }]);
//! assert_eq!(game.child_tiers(BaghTier { to_place: 2, captured: 0 }),
//!            [BaghTier { to_place: 1, captured: 0 }, BaghTier { to_place: 2, captured: 1 }]);
//! // One capture more would reach the target: those positions are over, with no table.
//! assert_eq!(game.child_tiers(BaghTier { to_place: 1, captured: 1 }), [BaghTier { to_place: 0, captured: 1 }]);
//! ```

use super::board::{Bits, ALL_POINTS, BOARD, NUM_POINTS};
use super::position::{Position, Side};
use super::rules::{Rules, Status};
use super::symmetry::{canonical, Symmetry};
use super::{DEFAULT_CAPTURE_TARGET, MAX_CAPTURE_TARGET, TOTAL_GOATS};
use crate::tier::TierGame;
use crate::value::Value;
use std::sync::OnceLock;

/// The rules a solve is for: the goat total and the capture target.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct BaghChalVariant {
    goats: u8,
    capture_target: u8,
}

impl Default for BaghChalVariant {
    /// 20 goats, capture target 5.
    fn default() -> BaghChalVariant {
        BaghChalVariant { goats: TOTAL_GOATS, capture_target: DEFAULT_CAPTURE_TARGET }
    }
}

/// Why a [`BaghChalVariant`] cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    #[error("{goats} goats: a variant has 1 to {TOTAL_GOATS}")]
    Goats { goats: u8 },
    #[error("capture target {target} with {goats} goats: it must be 1 to {MAX_CAPTURE_TARGET} and at most the goats")]
    CaptureTarget { target: u8, goats: u8 },
    /// The JSON form ([`BaghChal`]'s `variant_json`) could not be read: what is wrong with it.
    #[error("{0}")]
    Json(String),
}

impl BaghChalVariant {
    /// `goats` goats in all (1..=20) and capture target `capture_target`
    /// (1..=5, at most `goats`; the real game's readings are 4 and 5 with 20 goats).
    pub fn new(goats: u8, capture_target: u8) -> Result<BaghChalVariant, VariantError> {
        if !(1..=TOTAL_GOATS).contains(&goats) {
            return Err(VariantError::Goats { goats });
        }
        if capture_target == 0 || capture_target > MAX_CAPTURE_TARGET || capture_target > goats {
            return Err(VariantError::CaptureTarget { target: capture_target, goats });
        }
        Ok(BaghChalVariant { goats, capture_target })
    }

    /// Reads the JSON form a manifest, journal or registration records
    /// (`{"goats":N,"capture_target":K}`, [`TierGame::variant_json`] of
    /// [`BaghChal`]): exactly that text for a playable variant, anything
    /// else refused with what is wrong ([`VariantError::Json`], or
    /// [`BaghChalVariant::new`]'s).
    pub fn from_json(text: &str) -> Result<BaghChalVariant, VariantError> {
        let fail = |problem: String| VariantError::Json(problem);
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| fail(format!("not JSON: {e}")))?;
        let field = |name: &str| -> Result<u8, VariantError> {
            let x = v.get(name).ok_or_else(|| fail(format!("no field '{name}'")))?;
            x.as_u64()
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(|| fail(format!("field '{name}' is {x}, not a small whole number")))
        };
        let variant = BaghChalVariant::new(field("goats")?, field("capture_target")?)?;
        // Equal text means equal rules: anything else in it is not this game's.
        let expected = BaghChal::new(variant).variant_json();
        if expected != text {
            return Err(fail(format!("expected exactly {expected}")));
        }
        Ok(variant)
    }

    pub fn goats(&self) -> u8 {
        self.goats
    }

    pub fn capture_target(&self) -> u8 {
        self.capture_target
    }

    /// The start: a tiger on each corner, every goat to place, the goats to move.
    pub fn start(&self) -> Position {
        let s = Position::START;
        Position::from_parts_unchecked(s.tigers(), 0, Side::Goat, self.goats, 0)
    }
}

/// A tier: goats still to place (0 in the moving phase) and goats captured.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct BaghTier {
    pub to_place: u8,
    pub captured: u8,
}

/// Bagh-Chal under one variant, as a [`TierGame`].
pub struct BaghChal {
    variant: BaghChalVariant,
    /// Move generation. Its capture target is the largest; this game stops
    /// at the variant's (positions with that many captures are primitive,
    /// and the contract never asks for their moves).
    rules: Rules,
    /// The rules of play of the variant ([`crate::play::WithRules`]).
    play: super::PlayRules,
}

/// A tier's layout.
pub struct BaghIndex {
    tier: BaghTier,
    /// Goats on the board in every position of the tier.
    goats_on_board: u32,
    /// Goat subsets per tiger set: C(21, goats_on_board).
    goat_sets: u64,
    size: u64,
}

/// Binomial coefficients C(n, k) for n, k ≤ 25.
pub(crate) const BINOMIAL: [[u64; NUM_POINTS + 1]; NUM_POINTS + 1] = binomials();

const fn binomials() -> [[u64; NUM_POINTS + 1]; NUM_POINTS + 1] {
    let mut t = [[0u64; NUM_POINTS + 1]; NUM_POINTS + 1];
    let mut n = 0;
    while n <= NUM_POINTS {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + t[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    t
}

/// The tiger sets (4 of 25 points) that no symmetry maps to a smaller set, ascending.
pub fn canonical_tiger_sets() -> &'static [Bits] {
    static SETS: OnceLock<Vec<Bits>> = OnceLock::new();
    SETS.get_or_init(|| {
        let mut v = Vec::new();
        for_each_subset(NUM_POINTS as u32, super::TIGERS, |t| {
            if Symmetry::ALL.iter().all(|s| s.bits(t) >= t) {
                v.push(t);
            }
        });
        v.sort_unstable();
        v
    })
}

/// Calls `f` with every `k`-subset of the first `n` points.
fn for_each_subset(n: u32, k: u32, mut f: impl FnMut(Bits)) {
    if k == 0 {
        f(0);
        return;
    }
    if k > n {
        return;
    }
    let mut s: u32 = (1 << k) - 1;
    while s < 1 << n {
        f(s);
        // Gosper's hack: the next larger number with k bits.
        let c = s & s.wrapping_neg();
        let r = s + c;
        s = (((r ^ s) >> 2) / c) | r;
    }
}

/// The colex rank of `subset` among the subsets of its size of the points in `free`.
#[inline]
fn subset_rank(free: Bits, subset: Bits) -> u64 {
    let (mut rank, mut j, mut k) = (0u64, 0usize, 0usize);
    let mut f = free;
    while f != 0 {
        let bit = f & f.wrapping_neg();
        if subset & bit != 0 {
            k += 1;
            rank += BINOMIAL[j][k];
        }
        j += 1;
        f ^= bit;
    }
    rank
}

/// The `k`-subset of the points in `free` with colex rank `rank` ([`subset_rank`]'s inverse).
#[inline]
fn subset_unrank(free: Bits, k: u32, mut rank: u64) -> Bits {
    let mut points = [0u8; NUM_POINTS];
    let mut len = 0;
    let mut f = free;
    while f != 0 {
        points[len] = f.trailing_zeros() as u8;
        len += 1;
        f &= f - 1;
    }
    let mut out = 0;
    let mut k = k as usize;
    let mut j = len;
    while k > 0 {
        // The largest j with C(j, k) <= rank marks the k-th element.
        j -= 1;
        while BINOMIAL[j][k] > rank {
            j -= 1;
        }
        out |= 1 << points[j];
        rank -= BINOMIAL[j][k];
        k -= 1;
    }
    out
}

impl BaghIndex {
    /// The tier this layout is of.
    pub fn tier(&self) -> BaghTier {
        self.tier
    }

    /// Goats on the board in every position of the tier.
    pub fn goats_on_board(&self) -> u32 {
        self.goats_on_board
    }

    /// Goat subsets per tiger set, C(21, goats on the board): a slot is
    /// `(tiger id × goat_sets + goat rank) × 2 + side` ([`super::index`]).
    pub fn goat_sets(&self) -> u64 {
        self.goat_sets
    }
}

impl BaghChal {
    pub fn new(variant: BaghChalVariant) -> BaghChal {
        BaghChal {
            variant,
            rules: Rules::new(MAX_CAPTURE_TARGET).expect("the largest capture target is a reading"),
            play: super::PlayRules::new(variant),
        }
    }

    pub fn variant(&self) -> BaghChalVariant {
        self.variant
    }

    /// Every tier of the variant that is ever solved (c below the capture target), ascending.
    pub fn tiers(&self) -> Vec<BaghTier> {
        let (n, k) = (self.variant.goats, self.variant.capture_target);
        let mut v = Vec::new();
        for to_place in 0..=n {
            for captured in 0..k.min(n - to_place + 1) {
                v.push(BaghTier { to_place, captured });
            }
        }
        v
    }

    /// Goats on the board in the positions of `tier`, or `None` if it has none.
    fn goats_on_board(&self, tier: BaghTier) -> Option<u32> {
        (self.variant.goats as u32).checked_sub(tier.to_place as u32 + tier.captured as u32)
    }

    fn is_over_by_captures(&self, pos: &Position) -> bool {
        pos.captured() >= self.variant.capture_target
    }
}

impl crate::play::WithRules for BaghChal {
    type Rules = super::PlayRules;

    fn rules(&self) -> &super::PlayRules {
        &self.play
    }

    fn variant_words(&self) -> Vec<String> {
        let goats = crate::notation::count(self.variant.goats(), "goat", "goats");
        vec![goats, format!("capture target {}", self.variant.capture_target())]
    }
}

impl TierGame for BaghChal {
    type Tier = BaghTier;
    type Position = Position;
    type Index = BaghIndex;

    fn game_name(&self) -> &'static str {
        crate::game::GameKind::BaghChal.name()
    }

    fn about(&self) -> String {
        let goats = crate::notation::count(self.variant.goats(), "goat", "goats");
        format!("Bagh-Chal, {goats}, capture target {}", self.variant.capture_target())
    }

    fn variant_json(&self) -> String {
        format!("{{\"goats\":{},\"capture_target\":{}}}", self.variant.goats, self.variant.capture_target)
    }

    fn from_variant_json(variant: &str) -> Result<BaghChal, String> {
        BaghChalVariant::from_json(variant).map(BaghChal::new).map_err(|e| e.to_string())
    }

    fn initial_position(&self) -> Position {
        self.variant.start()
    }

    fn tier_of(&self, pos: &Position) -> BaghTier {
        BaghTier { to_place: pos.to_place(), captured: pos.captured() }
    }

    /// `p3-c1`: 3 goats to place, 1 captured; `p0-c2` is the moving phase with 2 captured.
    fn tier_name(&self, tier: BaghTier) -> String {
        format!("p{}-c{}", tier.to_place, tier.captured)
    }

    fn parse_tier_name(&self, name: &str) -> Option<BaghTier> {
        let (p, c) = name.strip_prefix('p')?.split_once("-c")?;
        let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(p) || !digits(c) {
            return None;
        }
        let tier = BaghTier { to_place: p.parse().ok()?, captured: c.parse().ok()? };
        // Only the canonical spelling of a tier of this variant.
        (self.tier_name(tier) == name
            && tier.captured <= self.variant.capture_target
            && self.goats_on_board(tier).is_some())
        .then_some(tier)
    }

    fn tier_index(&self, tier: BaghTier) -> BaghIndex {
        let goats_on_board = self.goats_on_board(tier).unwrap_or(0);
        let exists = self.goats_on_board(tier).is_some();
        let goat_sets = BINOMIAL[NUM_POINTS - super::TIGERS as usize][goats_on_board as usize];
        let size = if exists { canonical_tiger_sets().len() as u64 * goat_sets * 2 } else { 0 };
        BaghIndex { tier, goats_on_board, goat_sets, size }
    }

    fn tier_size(&self, index: &BaghIndex) -> u64 {
        index.size
    }

    fn child_tiers(&self, tier: BaghTier) -> Vec<BaghTier> {
        let k = self.variant.capture_target;
        if tier.captured >= k || self.goats_on_board(tier).is_none() {
            return Vec::new();
        }
        let mut v = Vec::new();
        if tier.to_place > 0 {
            v.push(BaghTier { to_place: tier.to_place - 1, captured: tier.captured });
        }
        // A jump needs a goat on the board (after a placement there is one,
        // but the jump is then from the next tier).
        if tier.captured + 1 < k && self.goats_on_board(tier).unwrap_or(0) > 0 {
            v.push(BaghTier { to_place: tier.to_place, captured: tier.captured + 1 });
        }
        v.sort_unstable();
        v
    }

    fn canonical(&self, pos: &Position) -> Position {
        canonical(pos)
    }

    fn rank(&self, index: &BaghIndex, pos: &Position) -> u64 {
        debug_assert_eq!(self.tier_of(pos), index.tier, "position outside the tier");
        let sets = canonical_tiger_sets();
        let t = sets.binary_search(&pos.tigers()).expect("a canonical position has a canonical tiger set") as u64;
        let g = subset_rank(ALL_POINTS & !pos.tigers(), pos.goats());
        (t * index.goat_sets + g) * 2 + (pos.side() == Side::Tiger) as u64
    }

    fn unrank(&self, index: &BaghIndex, i: u64) -> Option<Position> {
        debug_assert!(i < index.size);
        let side = if i & 1 == 1 { Side::Tiger } else { Side::Goat };
        let rest = i >> 1;
        let tigers = canonical_tiger_sets()[(rest / index.goat_sets) as usize];
        let goats = subset_unrank(ALL_POINTS & !tigers, index.goats_on_board, rest % index.goat_sets);
        let pos = Position::from_parts_unchecked(tigers, goats, side, index.tier.to_place, index.tier.captured);
        (canonical(&pos) == pos).then_some(pos)
    }

    fn primitive(&self, pos: &Position) -> Option<Value> {
        if self.is_over_by_captures(pos) {
            return Some(if pos.side() == Side::Tiger { Value::Win } else { Value::Loss });
        }
        match self.rules.status(pos) {
            Status::Ongoing => None,
            Status::Over { winner, .. } => Some(if winner == pos.side() { Value::Win } else { Value::Loss }),
        }
    }

    fn for_each_child(&self, pos: &Position, mut f: impl FnMut(Position)) {
        debug_assert!(!self.is_over_by_captures(pos), "for_each_child of a game-over position");
        self.rules.for_each_move(pos, |m| f(self.rules.play(pos, m)));
    }

    fn for_each_parent_in_tier(&self, pos: &Position, mut f: impl FnMut(Position)) {
        if self.is_over_by_captures(pos) {
            // Its in-tier parents would be over as well.
            return;
        }
        let empty = pos.empty();
        let (tp, c) = (pos.to_place(), pos.captured());
        match pos.side() {
            // The tigers moved last: a tiger stepped from an empty neighbour.
            Side::Goat => {
                for t in super::board::Point::iter(pos.tigers()) {
                    for from in super::board::Point::iter(BOARD.neighbours[t.index() as usize] & empty) {
                        let tigers = pos.tigers() ^ t.bit() ^ from.bit();
                        f(Position::from_parts_unchecked(tigers, pos.goats(), Side::Tiger, tp, c));
                    }
                }
            }
            // The goats moved last: in the moving phase a goat stepped (a
            // placement comes from another tier).
            Side::Tiger => {
                if tp > 0 {
                    return;
                }
                for g in super::board::Point::iter(pos.goats()) {
                    for from in super::board::Point::iter(BOARD.neighbours[g.index() as usize] & empty) {
                        let goats = pos.goats() ^ g.bit() ^ from.bit();
                        f(Position::from_parts_unchecked(pos.tigers(), goats, Side::Goat, tp, c));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_rank_densely_and_round_trip() {
        let free = ALL_POINTS & !(1 | 1 << 7 | 1 << 12 | 1 << 24);
        for k in 0..=3u32 {
            let mut seen = Vec::new();
            for_each_subset(25, k, |s| {
                if s & !free == 0 {
                    let r = subset_rank(free, s);
                    assert_eq!(subset_unrank(free, k, r), s);
                    seen.push(r);
                }
            });
            seen.sort_unstable();
            assert_eq!(seen, (0..BINOMIAL[21][k as usize]).collect::<Vec<_>>());
        }
    }

    #[test]
    fn canonical_tiger_sets_cover_every_orbit() {
        let sets = canonical_tiger_sets();
        let mut orbits = 0;
        for_each_subset(25, 4, |t| {
            let min = Symmetry::ALL.iter().map(|s| s.bits(t)).min().unwrap();
            assert!(sets.binary_search(&min).is_ok());
            orbits += (min == t) as usize;
        });
        assert_eq!(orbits, sets.len());
        assert!(sets.len() > 12650 / 8 && sets.len() < 12650 / 4, "{}", sets.len());
    }

    #[test]
    fn variants_read_back_from_their_json_and_nothing_else_is_taken() {
        let v = BaghChalVariant::new(3, 2).unwrap();
        assert_eq!(BaghChalVariant::from_json(&BaghChal::new(v).variant_json()), Ok(v));
        for (text, says) in [
            ("{\"goats\":3}", "no field 'capture_target'"),
            ("{\"goats\":3,\"capture_target\":-1}", "not a small whole number"),
            ("{\"goats\":2,\"capture_target\":3}", "at most the goats"),
            ("{\"goats\":3,\"capture_target\":2,\"x\":1}", "expected exactly"),
            ("[1]", "no field"),
            ("goats", "not JSON"),
        ] {
            let e = BaghChalVariant::from_json(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
