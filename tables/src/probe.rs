//! Probing: the value of a position and of each of its moves, the answer
//! `foxbase probe` prints (and that a web board will serve).

use crate::dir::TableDir;
use crate::error::Error;
use foxbase_core::{Move, Position, Value};

/// A probed position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub position: Position,
    /// For the side to move.
    pub value: Value,
    /// Every legal move with its value for the player making it.
    pub moves: Vec<(Move, Value)>,
}

/// Probes `pos` in `tables`. Fails for a position with more pieces than
/// the variant's start, one whose tier the tables do not hold, or a table
/// that cannot be read.
pub fn probe(tables: &TableDir, pos: &Position) -> Result<Probe, Error> {
    tables.check_position(pos)?;
    Ok(Probe { position: *pos, value: tables.value(pos)?, moves: tables.move_values(pos)? })
}
