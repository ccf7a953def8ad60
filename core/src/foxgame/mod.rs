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

pub use index::{fox_index_among, select_bit, select_bit_portable, SetRank, TierIndex};
pub use key::FoxTier;

use crate::board::{BitIter, PEN, RANK_WIDTH};
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

impl crate::play::WithRules for FoxGame {
    type Rules = Rules;

    fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The rule switches and the start's foxes (`"foxes"`).
    fn variant_fields(&self) -> serde_json::Value {
        use crate::play::Playable;
        let mut fields = self.rules.rule_switches();
        fields["foxes"] = self.variant.start.fox_count().into();
        fields
    }

    fn variant_words(&self) -> Vec<String> {
        let foxes = crate::notation::count(self.variant.start.fox_count(), "fox", "foxes");
        let mut words = vec![
            format!("{} board", self.variant.geometry.name()),
            foxes,
            format!("pen target {}", self.variant.pen_target),
        ];
        if self.rules.no_progress > 0 {
            words.push(format!("a draw after {} plies without progress", self.rules.no_progress));
        }
        words
    }
}

impl TierGame for FoxGame {
    type Tier = FoxTier;
    type Position = Position;

    fn no_progress(&self) -> u32 {
        self.rules.no_progress
    }

    fn game_name(&self) -> &'static str {
        crate::game::GameKind::Fox.name()
    }

    /// The variant's text form (`geometry=classic;pen_target=9;start=...`).
    fn about(&self) -> String {
        self.variant.to_string()
    }

    fn variant_json(&self) -> String {
        self.variant.to_json()
    }

    fn bound(&self) -> Option<crate::variant::Bound> {
        self.variant.bound()
    }

    fn from_variant_json(variant: &str) -> Result<FoxGame, String> {
        crate::variant::Variant::from_json(variant).map(FoxGame::new).map_err(|e| e.to_string())
    }

    /// The start (its position and first mover) picks which tiers a solve
    /// plans, not what a tier holds: every tier is solved whole, both
    /// sides to move, under the rules of the other keys.
    fn play_only_variant_keys(&self) -> &'static [&'static str] {
        &["start"]
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

    /// Fewer sheep first, then fewer foxes: a tier is read by tiers of its
    /// own sheep count and of one sheep more (a capture), so solving count
    /// by count keeps about two counts' solved tables on disk at a time.
    fn solve_priority(&self, tier: FoxTier) -> u32 {
        tier.sheep() * 4 + tier.foxes()
    }

    fn child_tiers(&self, tier: FoxTier) -> Vec<FoxTier> {
        // A capture leaves the sheep to move; with fewer than F sheep
        // (K without a floor) that position is over, its tier never solved.
        let floor = self.rules.sheep_floor;
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
            if tier.sheep() > floor {
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

    /// A loss for the side to move, except below a sheep floor won by the
    /// sheep, where the sheep to move have won.
    #[inline]
    fn primitive(&self, pos: &Position) -> Option<Value> {
        if let Some((winner, _)) = self.rules.ended_by_last_move(pos) {
            Some(if winner == pos.side() { Value::Win } else { Value::Loss })
        } else if !self.rules.has_move(pos) {
            Some(Value::Loss)
        } else {
            None
        }
    }

    /// The children of `rules.play` for every piece move, built with bit
    /// operations and in the order the kernel wants them: captures before
    /// fox steps, so that a winning capture ends the search early. (Tests
    /// check that this is the multiset of `play` over `moves`.)
    #[inline]
    fn for_each_child(&self, pos: &Position, mut f: impl FnMut(Position)) {
        let board = self.rules.board;
        let (sheep, foxes, empty) = (pos.sheep(), pos.foxes(), pos.empty());
        match pos.side() {
            Side::Fox => {
                for from in BitIter(foxes) {
                    let rest = foxes ^ (1 << from);
                    for j in board.jumps_from(from) {
                        if sheep & (1 << j.over) != 0 && empty & (1 << j.to) != 0 {
                            f(Position::from_parts_unchecked(sheep ^ (1 << j.over), rest | (1 << j.to), Side::Sheep));
                        }
                    }
                }
                for from in BitIter(foxes) {
                    let rest = foxes ^ (1 << from);
                    for to in BitIter(board.neighbours[from as usize] & empty) {
                        f(Position::from_parts_unchecked(sheep, rest | (1 << to), Side::Sheep));
                    }
                }
            }
            Side::Sheep => {
                for from in BitIter(sheep) {
                    for to in BitIter(board.sheep_steps[from as usize] & empty) {
                        let moved = sheep ^ (1 << from) ^ (1 << to);
                        let mut left = foxes;
                        if (moved & PEN).count_ones() < self.rules.pen_target {
                            left &= !self.rules.trapped_foxes(moved, foxes);
                        }
                        f(Position::from_parts_unchecked(moved, left, Side::Fox));
                    }
                }
            }
        }
    }

    fn for_each_parent_in_tier(&self, pos: &Position, f: impl FnMut(Position)) {
        unmoves::for_each_parent(&self.rules, pos, true, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_position;

    /// `for_each_child` is `play` over `moves`, as multisets.
    #[test]
    fn children_are_the_played_moves() {
        let cases = [
            ("F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f", 9),
            ("F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS s", 9),
            ("S.S/SFS/SSS.S../..F..S./SS.S.SS/S.S/... s", 3),
            ("..S/S.S/.S.F.S./SSSS.SS/.S.F.../.S./S.S f", 4),
            (".F./SSS/.SS.SS./..S.S../......./.../... s", 7),
        ];
        for geometry in crate::board::Geometry::ALL {
            for (text, k) in cases {
                let pos = parse_position(text).unwrap();
                let game = FoxGame::new(
                    Variant::new(geometry, k, parse_position("F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f").unwrap())
                        .unwrap(),
                );
                let mut want: Vec<Position> = Vec::new();
                game.rules.for_each_piece_move(&pos, &mut |m| want.push(game.rules.play(&pos, m)));
                let mut got = Vec::new();
                game.for_each_child(&pos, |c| got.push(c));
                want.sort();
                got.sort();
                assert!(!want.is_empty());
                assert_eq!(got, want, "{text} {geometry} K={k}");
            }
        }
    }
}
