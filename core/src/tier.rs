//! The contract between a game and the tier solver.
//!
//! A game's positions are split into *tiers*. Every move either stays inside
//! its tier or leads to a *child tier*, and the child relation has no cycles,
//! so tiers can be solved one at a time, children first. Inside a tier each
//! position has a dense index (its *rank*) in `0..tier_size(tier)`; a table of
//! 2-bit values indexed by rank stores the solved tier. Symmetric positions
//! share one index: only *canonical* positions are ranked, and an index whose
//! slot holds no canonical position is *unused*.
//!
//! Each method states its preconditions. Violating one is a bug in the
//! caller: the method may panic (debug builds assert the cheap checks) or
//! return a meaningless answer, but it never causes undefined behaviour.
//! Implementations must be deterministic: the same arguments always give the
//! same answer, in the same order for the `for_each_*` methods.
//!
//! The Fox Game ([`crate::foxgame::FoxGame`]) is the flagship implementation;
//! tic-tac-toe ([`crate::tictactoe::TicTacToe`]) is a second, tiny one that
//! keeps the contract honest.

use crate::game::GameKind;
use crate::value::Value;
use std::fmt::Debug;
use std::hash::Hash;

/// A game the tier solver can solve. See the module documentation.
pub trait TierGame: Sync + Send {
    /// A tier's key. `Ord` gives a deterministic order for planning.
    type Tier: Copy + Eq + Ord + Hash + Debug + Send + Sync;
    /// A position, including the side to move.
    type Position: Copy + Eq + Hash + Debug + Send + Sync;

    /// The game's name, recorded in every table: a registered game's
    /// [`GameKind::name`]. A game outside the registry (a test's) works
    /// through every generic path under a name no registered game has; only
    /// what turns a name back into a game (`--game`, a manifest read by the
    /// command line) needs the registry.
    fn game_name(&self) -> &'static str;

    /// Which game of the registry this is; `None` for a game outside it.
    fn game_kind(&self) -> Option<GameKind> {
        self.game_name().parse().ok()
    }

    /// The game's name in a sentence: its registry title
    /// ([`GameKind::title`]), else its name.
    fn game_title(&self) -> &'static str {
        self.game_kind().map_or(self.game_name(), GameKind::title)
    }

    /// The game and its variant in words, for people (logs, messages).
    fn about(&self) -> String {
        self.game_title().to_string()
    }

    /// The variant as JSON text, recorded in every table; equal text means equal rules.
    fn variant_json(&self) -> String;

    /// The game under the variant a table records ([`TierGame::variant_json`]
    /// read back), so that a reader opens a tablebase from what it says;
    /// why not, in words, for text that is no variant of this game.
    fn from_variant_json(variant: &str) -> Result<Self, String>
    where
        Self: Sized;

    /// The keys of [`TierGame::variant_json`] (a JSON object) that choose
    /// where play starts but change no tier's table: a tier solved under a
    /// variant that differs from this one only in these keys has the same
    /// values and plies, slot for slot (`foxbase solve --tables-from` takes
    /// such tables instead of solving them again). None by default.
    fn play_only_variant_keys(&self) -> &'static [&'static str] {
        &[]
    }

    /// The position play starts from.
    fn initial_position(&self) -> Self::Position;

    /// What the values of this variant's tables are when they are not the
    /// game's own (the Fox Game under a sheep floor: bounds), which every
    /// view of a value shows; `None`, the default, for exact values.
    fn bound(&self) -> Option<crate::variant::Bound> {
        None
    }

    /// N of a no-progress rule (a draw after N plies in a row without a
    /// move out of the tier), 0 for none, the default. Under it a tier's
    /// values are those at counter 0 and its plies the exact distance to
    /// zeroing, at most N (a solve stops there): the value at counter c is
    /// the stored one when its distance is at most N - c, else a draw.
    fn no_progress(&self) -> u32 {
        0
    }

    /// The tier holding `pos`. No precondition: every position has a tier,
    /// although tiers of positions that are all primitive are never solved.
    fn tier_of(&self, pos: &Self::Position) -> Self::Tier;

    /// A stable, file-name-safe name for a tier, e.g. `f2-3.3.7.7.0.0.0`.
    fn tier_name(&self, tier: Self::Tier) -> String;

    /// The inverse of [`TierGame::tier_name`]; `None` for a name that is not a tier of this game.
    fn parse_tier_name(&self, name: &str) -> Option<Self::Tier>;

    /// A tier's index layout, built once per tier by [`TierGame::tier_index`]
    /// and passed to the ranking methods, so that hot loops pay no lookup.
    type Index: Send + Sync;

    /// The index layout of `tier`.
    fn tier_index(&self, tier: Self::Tier) -> Self::Index;

    /// Number of indices in the tier (used and unused slots together).
    fn tier_size(&self, index: &Self::Index) -> u64;

    /// Every tier that can hold a non-primitive position reached by one move
    /// from a position of `tier` and that is not `tier` itself, each once, in
    /// ascending order. Extra tiers are allowed (they cost time, not
    /// correctness); a missing one is a bug the solver reports when it meets it.
    fn child_tiers(&self, tier: Self::Tier) -> Vec<Self::Tier>;

    /// Among tiers ready to solve, those of the lowest priority are solved
    /// first (then in `Ord` order). Any order of ready tiers gives the same
    /// tables; this one decides how long a finished tier's table waits for
    /// the last tier that reads it, so how much a solve keeps on disk
    /// under a disk budget. 0 for every tier by default.
    fn solve_priority(&self, _tier: Self::Tier) -> u32 {
        0
    }

    /// The representative of `pos`'s symmetry class. Idempotent.
    fn canonical(&self, pos: &Self::Position) -> Self::Position;

    /// The index of `pos` in the tier of `index`.
    ///
    /// Preconditions: `pos` is in that tier and `canonical(pos) == pos`.
    /// The result is `< tier_size(index)` and `unrank(index, result) == Some(*pos)`.
    fn rank(&self, index: &Self::Index, pos: &Self::Position) -> u64;

    /// `rank(index, &canonical(pos))`, which a game may compute faster.
    ///
    /// Precondition: `pos` is in the tier of `index`.
    fn canonical_rank(&self, index: &Self::Index, pos: &Self::Position) -> u64 {
        self.rank(index, &self.canonical(pos))
    }

    /// Calls `f(i, unrank(index, i))` for each `i` in `range`, in order; a
    /// game may decode consecutive slots faster than one at a time.
    ///
    /// Precondition: `range.end <= tier_size(index)`.
    fn for_each_slot(
        &self,
        index: &Self::Index,
        range: std::ops::Range<u64>,
        mut f: impl FnMut(u64, Option<Self::Position>),
    ) {
        for i in range {
            f(i, self.unrank(index, i));
        }
    }

    /// The canonical position at slot `i`, or `None` if the slot is unused.
    ///
    /// Precondition: `i < tier_size(index)`.
    fn unrank(&self, index: &Self::Index, i: u64) -> Option<Self::Position>;

    /// The value for the side to move if the game is over in `pos`, else `None`.
    fn primitive(&self, pos: &Self::Position) -> Option<Value>;

    /// Calls `f` with the position after each legal move of `pos`.
    ///
    /// Precondition: `primitive(pos)` is `None`. Children are not canonicalised.
    fn for_each_child(&self, pos: &Self::Position, f: impl FnMut(Self::Position));

    /// Calls `f` with every position `q` in the same tier as `pos` such that
    /// `q` is not primitive and one move of `q` leads to `pos`. Each such `q`
    /// is reported once per move of `q` that leads to `pos`. Not canonicalised.
    ///
    /// Precondition: none; a position without such parents reports nothing.
    fn for_each_parent_in_tier(&self, pos: &Self::Position, f: impl FnMut(Self::Position));
}
