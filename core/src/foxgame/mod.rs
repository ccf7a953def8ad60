//! The Fox Game as a [`TierGame`]: tiers, ranking and un-moves.
//!
//! ```
//! use foxbase_core::{foxgame::FoxGame, tier::TierGame, Variant};
//! let game = FoxGame::new(Variant::default());
//! let start = game.initial_position();
//! let tier = game.tier_of(&start);
//! assert_eq!(game.tier_name(tier), "f2-3.3.7.7.0.0.0");
//! // one sheep set (all of ranks 1..4 is symmetric), C(13, 2) fox placements, 2 sides
//! let index = game.tier_index(tier);
//! assert_eq!(game.tier_size(&index), 1 * 78 * 2);
//! let i = game.rank(&index, &game.canonical(&start));
//! assert_eq!(game.unrank(&index, i), Some(game.canonical(&start)));
//! ```

mod index;
mod key;
mod unmoves;

pub use index::{bmi2_available, select_bit, select_bit_portable, TierIndex};
pub use key::FoxTier;

use crate::board::{Bits, RANK_WIDTH};
use crate::position::{Position, Side};
use crate::rules::Rules;
use crate::tier::TierGame;
use crate::value::Value;
use crate::variant::Variant;

/// The Fox Game of one variant.
pub struct FoxGame {
    pub variant: Variant,
    pub rules: Rules,
}

impl FoxGame {
    pub fn new(variant: Variant) -> FoxGame {
        FoxGame { rules: variant.rules(), variant }
    }

    /// Every predecessor of `pos`: positions `q`, not primitive, with a move
    /// leading to `pos`, in any tier. Un-steps, un-jumps (the jumped sheep is
    /// put back) and foxes that were removed after the last sheep move.
    pub fn for_each_parent(&self, pos: &Position, f: impl FnMut(Position)) {
        unmoves::for_each_parent(&self.rules, pos, false, f)
    }
}

impl TierGame for FoxGame {
    type Tier = FoxTier;
    type Position = Position;

    fn game_name(&self) -> &'static str {
        "fox"
    }

    fn variant_json(&self) -> String {
        self.variant.to_json()
    }

    fn initial_position(&self) -> Position {
        self.variant.start
    }

    #[inline]
    fn tier_of(&self, pos: &Position) -> FoxTier {
        FoxTier::of(pos.sheep(), pos.fox_count())
    }

    fn tier_name(&self, tier: FoxTier) -> String {
        tier.name()
    }

    fn parse_tier_name(&self, name: &str) -> Option<FoxTier> {
        FoxTier::parse(name)
    }

    type Index = TierIndex;

    fn tier_index(&self, tier: FoxTier) -> TierIndex {
        TierIndex::new(tier)
    }

    fn tier_size(&self, index: &TierIndex) -> u64 {
        index.size()
    }

    fn child_tiers(&self, tier: FoxTier) -> Vec<FoxTier> {
        let k = self.rules.pen_target;
        let counts = tier.counts();
        let mut sheep_moves = vec![counts];
        let mut out = Vec::new();
        for y in 0..7 {
            if counts[y] == 0 {
                continue;
            }
            if y < 6 && counts[y + 1] < RANK_WIDTH[y + 1] {
                let mut c = counts;
                c[y] -= 1;
                c[y + 1] += 1;
                sheep_moves.push(c);
            }
            // A capture leaves sheep to move; with fewer than K sheep that is over.
            if tier.sheep() > k {
                let mut c = counts;
                c[y] -= 1;
                out.push(FoxTier::new(tier.foxes() as u8, c).unwrap());
            }
        }
        // A sheep move may also remove trapped foxes; with no fox left the game is over.
        for c in sheep_moves {
            for foxes in 1..=tier.foxes() {
                out.push(FoxTier::new(foxes as u8, c).unwrap());
            }
        }
        out.sort();
        out.dedup();
        out.retain(|&t| t != tier);
        out
    }

    #[inline]
    fn canonical(&self, pos: &Position) -> Position {
        pos.canonical()
    }

    #[inline]
    fn rank(&self, index: &TierIndex, pos: &Position) -> u64 {
        index.rank(pos)
    }

    #[inline]
    fn canonical_rank(&self, index: &TierIndex, pos: &Position) -> u64 {
        index.canonical_rank(pos)
    }

    fn for_each_slot(&self, index: &TierIndex, range: std::ops::Range<u64>, f: impl FnMut(u64, Option<Position>)) {
        index.for_each_slot(range, f)
    }

    fn unrank(&self, index: &TierIndex, i: u64) -> Option<Position> {
        index.unrank(i)
    }

    #[inline]
    fn primitive(&self, pos: &Position) -> Option<Value> {
        if self.rules.ended_by_last_move(pos).is_some() || !self.rules.has_move(pos) {
            Some(Value::Loss)
        } else {
            None
        }
    }

    #[inline]
    fn for_each_child(&self, pos: &Position, mut f: impl FnMut(Position)) {
        self.rules.for_each_piece_move(pos, &mut |m| f(self.rules.play(pos, m)));
    }

    fn for_each_parent_in_tier(&self, pos: &Position, f: impl FnMut(Position)) {
        unmoves::for_each_parent(&self.rules, pos, true, f)
    }
}

/// Sheep and fox sets as a tuple, for tests and debugging.
pub fn parts(pos: &Position) -> (Bits, Bits, Side) {
    (pos.sheep(), pos.foxes(), pos.side())
}
