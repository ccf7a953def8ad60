//! A tier in memory ([`WholeTier`], of any game) and the one-step
//! valuation: a position's outcome from its children's
//! ([`outcome_by_one_step`]), with which a reader fills in what a
//! published layout leaves out ([`fill_derived`]) and verify checks a
//! table. [`crate::tier_tables::TierTables`] reads tablebases into them.

use crate::error::Error;
use crate::packed::PackedValues;
use crate::plies::Distance;
use crate::plies::Plies;
use crate::table::Layout;
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_core::{Outcome, Value};
use rayon::prelude::*;

/// A whole tier in memory, of any game: its values and, in a tablebase
/// with plies, its plies, as its files store them or with what their
/// layout leaves out derived ([`fill_derived`]).
pub struct WholeTier<G: TierGame> {
    pub tier: G::Tier,
    pub index: G::Index,
    pub values: PackedValues,
    /// Which slots of `values` hold values ([`Layout::Published`]: the odd ones).
    pub layout: Layout,
    pub plies: Option<Plies>,
    /// Which slots of `plies` hold counts: those of `layout`, or the odd
    /// ones alone where a solved table's DTZ file stores them alone
    /// ([`Layout::holds_plies`]).
    pub plies_layout: Layout,
}

impl<G: TierGame> WholeTier<G> {
    /// The outcome stored at slot `i` (`None` for an unused slot); plies
    /// `None` for a draw or without plies.
    #[inline]
    pub fn outcome(&self, i: u64) -> Option<Outcome> {
        crate::plies::outcome_at(&self.values, self.plies.as_ref(), i)
    }

    /// Bytes held in memory.
    pub fn bytes(&self) -> u64 {
        crate::plies::held_bytes(&self.values, self.plies.as_ref())
    }

    /// Whether every slot's value and plies count is present (none left
    /// for [`fill_derived`]).
    pub fn is_complete(&self) -> bool {
        self.layout == Layout::Solved && self.plies_layout == Layout::Solved
    }
}

/// The outcome of a position that is over, in a tablebase with plies
/// (`plies`) or without: its value, and 0 plies for a win or a loss.
pub fn game_over<G: TierGame>(game: &G, pos: &G::Position, plies: bool) -> Option<Outcome> {
    let v = game.primitive(pos)?;
    Some(Outcome { value: v, plies: (v != Value::Draw && plies).then_some(0) })
}

/// Fills in what the files of `own` leave out (read as stored: a
/// published table's even slots, a plies file's even counts where it
/// stores the odd ones alone) by one move from the odd slots of `own` and
/// `children` (every child tier of `own.tier` the tablebase holds, as
/// stored), for plies to `distance`; an even slot that holds no position
/// gets the unused code. Values stored in every slot stay as stored. Then
/// `own` is complete. [`crate::tier_tables::TierTables::complete`]'s derivation, and that of a
/// solve checking a tier it publishes ([`crate::retire`]).
///
/// Precondition (the published layout's, which `publish` checks value by
/// value): every child of an even slot's position is over or sits in an
/// odd slot, so that only stored slots are read.
pub fn fill_derived<G: LocateChild + WithRules>(
    game: &G,
    distance: Option<Distance>,
    own: &mut WholeTier<G>,
    children: &[&WholeTier<G>],
) -> Result<(), Error> {
    let size = own.values.len();
    let chunk = 1u64 << 16;
    let values_stored = own.layout == Layout::Solved;
    let filled: Vec<Result<Vec<DerivedSlot>, Error>> = {
        let mut all: Vec<&WholeTier<G>> = vec![own];
        all.extend_from_slice(children);
        let all = &all;
        (0..size.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut codes = Vec::with_capacity(chunk as usize / 2);
                let mut scratch = StepScratch::default();
                let mut first = Ok(());
                game.for_each_slot(&all[0].index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                    if i % 2 != 0 || first.is_err() {
                        return;
                    }
                    let Some(pos) = pos else {
                        codes.push((i, crate::packed::UNUSED, 0));
                        return;
                    };
                    match outcome_by_one_step(game, &pos, all, distance, &mut scratch) {
                        Ok(o) => codes.push((i, o.value.code(), o.plies.unwrap_or(0) as u16)),
                        Err(source) => {
                            let position = game.rules().format_position(&pos);
                            let file = crate::tier_files::table_key(game, all[0].tier);
                            first = Err(Error::Derive { file, source: DeriveError { position, source } });
                        }
                    }
                });
                first.map(|_| codes)
            })
            .collect()
    };
    for codes in filled {
        for (i, code, plies) in codes? {
            if !values_stored {
                own.values.set_code(i, code);
            }
            if let Some(p) = own.plies.as_mut() {
                p.set(i, plies);
            }
        }
    }
    own.layout = Layout::Solved;
    own.plies_layout = Layout::Solved;
    Ok(())
}

/// A derived slot as [`fill_derived`] fills it: slot, value code, plies.
type DerivedSlot = (u64, u8, u16);

/// Finds a child's slot among whole tiers in memory, for the one-step
/// valuation ([`outcome_by_one_step`]). A game without a faster search
/// than its tier and canonical rank implements it with [`locate_by_tier`]
/// and a `Memo` of `()`.
pub trait LocateChild: TierGame + Sized + 'static {
    /// What the search remembers from one child to the next (a loop over
    /// a tier keeps one, in its [`StepScratch`]).
    type Memo: Default + Send;

    /// The index in `loaded` of the tier holding `child` and the slot of
    /// its canonical form there; `None` when no tier of `loaded` holds it.
    fn locate(
        &self,
        memo: &mut Self::Memo,
        loaded: &[&WholeTier<Self>],
        child: &Self::Position,
    ) -> Option<(usize, u64)>;

    /// Checks that `pos` belongs to this game's variant before a reader
    /// reads anything for it (the Fox Game: no more pieces than its start,
    /// not below its sheep floor), with the error that says why not;
    /// nothing by default. The reader checks the tier is held after it.
    fn check_position(&self, _pos: &Self::Position) -> Result<(), Error> {
        Ok(())
    }

    /// The faster whole-tier derivation of published tiers that a program
    /// installed for this game ([`crate::tier_tables::DeriveWhole`]), which
    /// readers opened from then on use; `None` by default (one move per
    /// slot, [`fill_derived`]).
    fn installed_deriver() -> Option<&'static dyn crate::tier_tables::DeriveWhole<Self>> {
        None
    }

    /// The check of whole tiers' values that a program installed for
    /// this game ([`crate::verify::TierCheck`]), which `verify` uses in
    /// place of one move per slot; `None` by default.
    fn installed_check() -> Option<&'static dyn crate::verify::TierCheck<Self>> {
        None
    }
}

/// [`LocateChild::locate`] by the child's tier and canonical rank.
pub fn locate_by_tier<G: TierGame>(game: &G, loaded: &[&WholeTier<G>], child: &G::Position) -> Option<(usize, u64)> {
    let tier = game.tier_of(child);
    let k = loaded.iter().position(|l| l.tier == tier)?;
    Some((k, game.canonical_rank(&loaded[k].index, child)))
}

/// Scratch of [`outcome_by_one_step`], reused between calls so that loops
/// over a tier allocate nothing: the children's outcomes and the game's
/// [`LocateChild::Memo`].
pub struct StepScratch<G: LocateChild> {
    outcomes: Vec<Outcome>,
    memo: G::Memo,
}

impl<G: LocateChild> Default for StepScratch<G> {
    fn default() -> StepScratch<G> {
        StepScratch { outcomes: Vec::with_capacity(64), memo: G::Memo::default() }
    }
}

/// Why one forward step could not value a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    #[error("a child is in tier {tier}, which the directory does not hold")]
    MissingTier { tier: String },
    #[error("its child {child} holds the unused code 3")]
    UnusedChild { child: String },
}

/// Why what a table's layout leaves out could not be derived.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("deriving {position}: {source}")]
pub struct DeriveError {
    pub position: String,
    #[source]
    pub source: StepError,
}

/// The outcome one forward step gives `pos`, from the values (and plies)
/// of its children in `loaded` ([`Outcome::from_children`]; a game-over
/// position gets its game-over value and 0 plies). A child in a loaded
/// tier is read from its table, which holds game-over positions too (and
/// is checked against the rules when its own tier is verified); a child in
/// a tier without a table must be over. Plies are `None` where a child
/// that counts has none (tables without plies).
///
/// With [`Distance::Dtz`] a child in another tier than `pos` (a zeroing
/// move) counts [`Distance::zeroing_child_plies`], whatever its own.
///
/// Errors name a child whose tier is not in `loaded` and which is not over,
/// or whose slot holds the unused code.
pub fn outcome_by_one_step<G: LocateChild + WithRules>(
    game: &G,
    pos: &G::Position,
    loaded: &[&WholeTier<G>],
    distance: Option<Distance>,
    scratch: &mut StepScratch<G>,
) -> Result<Outcome, StepError> {
    if let Some(o) = game_over(game, pos, true) {
        return Ok(o);
    }
    let own_tier = (distance == Some(Distance::Dtz)).then(|| game.tier_of(pos));
    let zeroing_plies = |v| Distance::zeroing_child_plies(v, game.no_progress() > 0);
    let StepScratch { outcomes, memo } = scratch;
    outcomes.clear();
    let mut failure = None;
    game.for_each_child(pos, |child| {
        if failure.is_some() {
            return;
        }
        let o = match game.locate(memo, loaded, &child) {
            Some((k, slot)) => match loaded[k].outcome(slot) {
                Some(o) if own_tier.is_some_and(|t| t != loaded[k].tier) => {
                    Outcome { plies: zeroing_plies(o.value), ..o }
                }
                Some(o) => o,
                None => {
                    failure = Some(StepError::UnusedChild { child: game.rules().format_position(&child) });
                    return;
                }
            },
            None => match game_over(game, &child, true) {
                Some(o) => o,
                None => {
                    failure = Some(StepError::MissingTier { tier: game.tier_name(game.tier_of(&child)) });
                    return;
                }
            },
        };
        outcomes.push(o);
    });
    match failure {
        Some(f) => Err(f),
        None => Ok(crate::plies::capped(Outcome::from_children(outcomes), game.no_progress())),
    }
}

/// The values of a tier's positions (its used slots; an unused slot holds
/// a don't-care code, docs/format.md), for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierCounts {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The most plies of a won position and its slot (tables with plies, a tier with a win).
    pub longest_win: Option<(u32, u64)>,
}

impl TierCounts {
    /// Positions counted.
    pub fn positions(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    fn add(mut self, other: TierCounts) -> TierCounts {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        // The longest; among equals the lowest slot, whatever the order of the parts.
        self.longest_win = match (self.longest_win, other.longest_win) {
            (Some(a), Some(b)) => {
                Some(if (b.0, std::cmp::Reverse(b.1)) > (a.0, std::cmp::Reverse(a.1)) { b } else { a })
            }
            (a, b) => a.or(b),
        };
        self
    }
}

impl<G: TierGame> WholeTier<G> {
    /// Counts the values of every used slot (a position of `game`, whose tier this is).
    pub fn counts(&self, game: &G) -> TierCounts {
        let size = self.values.len();
        let chunk = 1u64 << 16;
        (0..size.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut n = TierCounts::default();
                game.for_each_slot(&self.index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                    if pos.is_none() {
                        return;
                    }
                    match self.values.value(i) {
                        Some(Value::Win) => {
                            n.wins += 1;
                            if let Some(p) = &self.plies {
                                let p = p.get(i) as u32;
                                if n.longest_win.is_none_or(|(b, _)| p > b) {
                                    n.longest_win = Some((p, i));
                                }
                            }
                        }
                        Some(Value::Draw) => n.draws += 1,
                        Some(Value::Loss) => n.losses += 1,
                        None => {}
                    }
                });
                n
            })
            .reduce(TierCounts::default, TierCounts::add)
    }
}
