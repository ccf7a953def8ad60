//! [`Tablebase`]: the one reading API over a tablebase of any game, that
//! `probe`, the engine (`versus`, the board in the browser) and `export`
//! are written against once.
//!
//! The one reader, [`TierTables`], implements it for every game.
//! Positions are given as played (not canonicalised); a position that is
//! over gets its game-over value; moves come from the game's rules of play
//! ([`foxbase_core::play::Playable`]).

use crate::error::Error;
use crate::plies::Distance;
use crate::table::Layout;
use crate::tiered::LocateChild;
use crate::TierTables;
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_core::variant::Bound;
use foxbase_core::Outcome;

/// A position of a tablebase's game.
pub type PositionOf<T> = <<T as Tablebase>::Game as TierGame>::Position;
/// A move of a tablebase's game.
pub type MoveOf<T> = <<<T as Tablebase>::Game as WithRules>::Rules as Playable>::Move;

/// A tablebase opened for reading. See the module documentation.
pub trait Tablebase: Send + Sync {
    type Game: WithRules;

    /// The game and variant the tables were solved for.
    fn game(&self) -> &Self::Game;

    /// Where the tablebase is, for messages.
    fn describe(&self) -> String;

    /// What the tables' plies count: to the end or to zeroing
    /// ([`Distance`]); `None` for tables solved with `--no-distance`.
    fn distance(&self) -> Option<Distance>;

    /// Whether the tables hold plies of either kind.
    fn has_plies(&self) -> bool {
        self.distance().is_some()
    }

    /// The layout of the tables: as solved, or published (`foxbase publish`).
    fn layout(&self) -> Layout {
        Layout::Solved
    }

    /// What the values of these tables are when they are not the game's
    /// own (tables solved under a sheep floor are bounds), which every view
    /// of a value shows; `None` for exact tables.
    fn bound(&self) -> Option<Bound> {
        None
    }

    /// Checks that `pos` belongs to the tables' variant (its pieces, its
    /// solved tiers), before anything is read; [`Error::TooManyPieces`]
    /// and the like otherwise.
    fn check_position(&self, _pos: &PositionOf<Self>) -> Result<(), Error> {
        Ok(())
    }

    /// The outcome of `pos` for the side to move: its game-over value, or
    /// the stored one (plies `None` for a draw or without plies).
    fn outcome(&self, pos: &PositionOf<Self>) -> Result<Outcome, Error>;

    /// [`Tablebase::outcome`] for work over many positions of a few tiers
    /// (`export`): a reader may hold whole tables in memory for it.
    fn outcome_in_bulk(&self, pos: &PositionOf<Self>) -> Result<Outcome, Error> {
        self.outcome(pos)
    }

    /// Every legal move of `pos` with its outcome for the player making it,
    /// plies counted from `pos`, in the game's generation order.
    fn move_outcomes(&self, pos: &PositionOf<Self>) -> Result<Vec<(MoveOf<Self>, Outcome)>, Error> {
        moves_valued(self, pos, 0, |after| self.outcome(after))
    }

    /// [`Tablebase::move_outcomes`] through [`Tablebase::outcome_in_bulk`].
    fn move_outcomes_in_bulk(&self, pos: &PositionOf<Self>) -> Result<Vec<(MoveOf<Self>, Outcome)>, Error> {
        moves_valued(self, pos, 0, |after| self.outcome_in_bulk(after))
    }

    /// The no-progress rule's N of the tables' variant (0: none; [`TierGame::no_progress`]).
    fn no_progress(&self) -> u32 {
        self.game().no_progress()
    }

    /// [`Tablebase::outcome`] at no-progress counter `counter` (plies since
    /// the last move out of a tier): a draw unless the stored distance to
    /// zeroing is at most N - counter ([`crate::plies::at_counter`]).
    fn outcome_at(&self, pos: &PositionOf<Self>, counter: u32) -> Result<Outcome, Error> {
        Ok(crate::plies::at_counter(self.outcome(pos)?, counter, self.no_progress()))
    }

    /// [`Tablebase::move_outcomes`] at no-progress counter `counter`: a
    /// move out of the tier leads to counter 0, any other to `counter + 1`.
    fn move_outcomes_at(&self, pos: &PositionOf<Self>, counter: u32) -> Result<Vec<(MoveOf<Self>, Outcome)>, Error> {
        moves_valued(self, pos, counter, |after| self.outcome(after))
    }
}

impl<G: LocateChild + WithRules> Tablebase for TierTables<G> {
    type Game = G;

    fn game(&self) -> &G {
        &self.game
    }

    fn describe(&self) -> String {
        TierTables::describe(self)
    }

    fn distance(&self) -> Option<Distance> {
        TierTables::distance(self)
    }

    fn layout(&self) -> Layout {
        TierTables::layout(self)
    }

    fn bound(&self) -> Option<Bound> {
        self.game.bound()
    }

    fn check_position(&self, pos: &G::Position) -> Result<(), Error> {
        TierTables::check_position(self, pos)
    }

    fn outcome(&self, pos: &G::Position) -> Result<Outcome, Error> {
        TierTables::outcome(self, pos)
    }

    fn outcome_in_bulk(&self, pos: &G::Position) -> Result<Outcome, Error> {
        self.outcome_in_memory(pos)
    }
}

/// Every legal move of `pos` with `outcome` of the position it leads to, for the mover.
#[allow(clippy::type_complexity)]
fn moves_valued<T: Tablebase + ?Sized>(
    tables: &T,
    pos: &PositionOf<T>,
    counter: u32,
    outcome: impl Fn(&PositionOf<T>) -> Result<Outcome, Error>,
) -> Result<Vec<(MoveOf<T>, Outcome)>, Error> {
    let mut moves = Vec::new();
    tables.game().rules().for_each_move(pos, |m, after| moves.push((m, after)));
    let (game, distance, n) = (tables.game(), tables.distance(), tables.no_progress());
    moves
        .into_iter()
        .map(|(m, after)| {
            // Under a no-progress rule the child is valued at its own counter.
            let next = if game.tier_of(&after) == game.tier_of(pos) { counter + 1 } else { 0 };
            let o = crate::plies::at_counter(outcome(&after)?, next, n);
            let o = as_child(game, distance, pos, &after, o);
            Ok((m, Outcome { value: o.value.for_mover(), plies: o.plies.map(|p| p + 1) }))
        })
        .collect()
}

/// The outcome of `child` (a position one move from `parent`) as the
/// parent's distance counts it: with DTZ, a child in another tier (the
/// move was zeroing) counts [`Distance::zeroing_child_plies`], whatever its own.
pub(crate) fn as_child<G: TierGame>(
    game: &G,
    distance: Option<Distance>,
    parent: &G::Position,
    child: &G::Position,
    outcome: Outcome,
) -> Outcome {
    if distance == Some(Distance::Dtz) && outcome.plies.is_some() && game.tier_of(child) != game.tier_of(parent) {
        return Outcome { plies: Distance::zeroing_child_plies(outcome.value, game.no_progress() > 0), ..outcome };
    }
    outcome
}
