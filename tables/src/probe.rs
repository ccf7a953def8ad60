//! Probing: the value of a position and of each of its moves, the answer
//! `foxbase probe` prints (and that a web board will serve).

use crate::dir::TableDir;
use crate::error::Error;
use foxbase_core::{Move, Outcome, Position};

/// A probed position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub position: Position,
    /// For the side to move, with its plies to the end.
    pub outcome: Outcome,
    /// Every legal move with its outcome for the player making it, plies
    /// counted from the probed position, best first
    /// ([`crate::engine::best_first`]).
    pub moves: Vec<(Move, Outcome)>,
}

/// Probes `pos` in `tables`. Fails for a position with more pieces than
/// the variant's start, one whose tier the tables do not hold, or a table
/// that cannot be read.
pub fn probe(tables: &TableDir, pos: &Position) -> Result<Probe, Error> {
    tables.check_position(pos)?;
    let mut moves = tables.move_outcomes(pos)?;
    crate::engine::best_first(&mut moves);
    Ok(Probe { position: *pos, outcome: tables.outcome(pos)?, moves })
}
