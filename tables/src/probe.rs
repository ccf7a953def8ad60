//! Probing: the value of a position and of each of its moves, the answer
//! `foxbase probe` prints and the board in the browser shows, for every
//! game ([`Tablebase`]).

use crate::error::Error;
use crate::reader::{MoveOf, PositionOf, Tablebase};
use foxbase_core::Outcome;

/// A probed position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe<P, M> {
    pub position: P,
    /// For the side to move, with its plies to the end.
    pub outcome: Outcome,
    /// Every legal move with its outcome for the player making it, plies
    /// counted from the probed position, best first
    /// ([`crate::engine::best_first`]).
    pub moves: Vec<(M, Outcome)>,
}

/// Probes `pos` in `tables`. Fails for a position that does not belong to
/// the tables' variant ([`Tablebase::check_position`]), one whose tier the
/// tables do not hold, or a table that cannot be read.
pub fn probe<T: Tablebase>(tables: &T, pos: &PositionOf<T>) -> Result<Probe<PositionOf<T>, MoveOf<T>>, Error> {
    probe_at(tables, pos, 0)
}

/// [`probe`] at no-progress counter `counter` (tables solved under a
/// no-progress rule; 0 for any other): the position's value there and each
/// move's at the counter it leads to ([`Tablebase::move_outcomes_at`]).
pub fn probe_at<T: Tablebase>(
    tables: &T,
    pos: &PositionOf<T>,
    counter: u32,
) -> Result<Probe<PositionOf<T>, MoveOf<T>>, Error> {
    tables.check_position(pos)?;
    let mut moves = tables.move_outcomes_at(pos, counter)?;
    crate::engine::best_first(&mut moves);
    Ok(Probe { position: *pos, outcome: tables.outcome_at(pos, counter)?, moves })
}
