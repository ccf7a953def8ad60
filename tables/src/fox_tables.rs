//! What the Fox Game adds to reading its tables ([`FoxTables`], the one
//! reader [`TierTables`] of this game): its fast child search for the
//! one-step valuation ([`SheepSetRanks`]), its check that a position
//! belongs to the variant, and the kernel's whole-tier derivation of the
//! fox-to-move values of published tables and its check of whole tiers
//! for `verify`, installed by the programs that link a kernel
//! ([`install_fox_side_deriver`], [`install_fox_tier_check`]).

use crate::error::Error;
use crate::tier_tables::{DeriveWhole, TierTables};
use crate::tiered::{LocateChild, WholeTier};
use crate::verify::TierCheck;
use foxbase_core::board::Bits;
use foxbase_core::foxgame::{FoxGame, FoxTier, SetRank};
use foxbase_core::notation::format_position;
use foxbase_core::{Position, Side};

/// The Fox Game's tablebase reader.
pub type FoxTables = TierTables<FoxGame>;

static FOX_SIDE_DERIVER: std::sync::OnceLock<&'static dyn DeriveWhole<FoxGame>> = std::sync::OnceLock::new();

/// Makes `deriver` the derivation of the fox-to-move values of published
/// Fox Game tables for every reader opened from now on (the first call
/// wins; later ones are ignored).
pub fn install_fox_side_deriver(deriver: &'static dyn DeriveWhole<FoxGame>) {
    let _ = FOX_SIDE_DERIVER.set(deriver);
}

static FOX_TIER_CHECK: std::sync::OnceLock<&'static dyn TierCheck<FoxGame>> = std::sync::OnceLock::new();

/// Makes `check` verify's check of whole Fox Game tiers from now on (the
/// first call wins; later ones are ignored).
pub fn install_fox_tier_check(check: &'static dyn TierCheck<FoxGame>) {
    let _ = FOX_TIER_CHECK.set(check);
}

/// The installed derivation, if any.
pub fn fox_side_deriver() -> Option<&'static dyn DeriveWhole<FoxGame>> {
    FOX_SIDE_DERIVER.get().copied()
}

/// The Fox Game's child search for the one-step valuation: the table and
/// [`SetRank`] of a child's sheep set and fox count, remembered, since the
/// children of neighbouring positions share a few sheep sets; the slot
/// then follows from the foxes and the side to move alone.
impl LocateChild for FoxGame {
    type Memo = SheepSetRanks;

    /// No more foxes or sheep than the start; a fox-to-move position has
    /// at least the sheep floor's sheep (its tiers below it are not solved).
    fn check_position(&self, pos: &Position) -> Result<(), Error> {
        let start = &self.variant.start;
        if pos.fox_count() > start.fox_count() || pos.sheep_count() > start.sheep_count() {
            return Err(Error::TooManyPieces {
                position: format_position(pos),
                foxes: pos.fox_count(),
                sheep: pos.sheep_count(),
                start_foxes: start.fox_count(),
                start_sheep: start.sheep_count(),
            });
        }
        let rules = &self.rules;
        let floored = rules.sheep_floor > rules.pen_target;
        if floored && pos.side() == Side::Fox && pos.sheep_count() < rules.sheep_floor {
            return Err(Error::BelowSheepFloor {
                position: format_position(pos),
                sheep: pos.sheep_count(),
                floor: rules.sheep_floor,
            });
        }
        Ok(())
    }

    fn installed_deriver() -> Option<&'static dyn DeriveWhole<FoxGame>> {
        FOX_SIDE_DERIVER.get().copied()
    }

    fn installed_check() -> Option<&'static dyn TierCheck<FoxGame>> {
        FOX_TIER_CHECK.get().copied()
    }

    #[inline]
    fn locate(
        &self,
        memo: &mut SheepSetRanks,
        loaded: &[&WholeTier<FoxGame>],
        child: &Position,
    ) -> Option<(usize, u64)> {
        let (k, rank) = memo.rank(loaded, child.sheep(), child.fox_count())?;
        Some((k, rank.slot(child.foxes(), child.side())))
    }
}

/// Recently ranked sheep sets by sheep and fox count, hashed into 256
/// entries ([`LocateChild::locate`] for the Fox Game).
pub struct SheepSetRanks(Vec<Option<RankEntry>>);

/// A remembered child rank: sheep, fox count, and the table and sheep rank
/// of their positions (`None` when their tier is not loaded).
type RankEntry = (Bits, u32, Option<(usize, SetRank)>);

impl Default for SheepSetRanks {
    fn default() -> SheepSetRanks {
        SheepSetRanks(vec![None; 256])
    }
}

impl SheepSetRanks {
    /// The table (index into `loaded`) and sheep rank of the positions with
    /// `sheep` and `foxes` foxes; `None` when their tier is not loaded.
    #[inline]
    fn rank(&mut self, loaded: &[&WholeTier<FoxGame>], sheep: Bits, foxes: u32) -> Option<(usize, SetRank)> {
        let h = ((sheep ^ foxes as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize;
        if let Some((s, f, found)) = self.0[h] {
            if s == sheep && f == foxes {
                return found;
            }
        }
        let t = FoxTier::of(sheep, foxes);
        let found = loaded.iter().position(|l| l.tier == t).map(|k| (k, loaded[k].index.set_rank(sheep)));
        self.0[h] = Some((sheep, foxes, found));
        found
    }
}
