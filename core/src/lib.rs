//! foxbase-core: the Fox Game (halatafl) as data and rules.
//!
//! One idea a module: [`board`] (the cross, its lines and jumps),
//! [`position`], [`rules`] (moves, play, end of game), [`notation`],
//! [`variant`], [`value`], [`perft`], [`reference`](mod@reference) (the oracle solver),
//! [`tier`] (the game contract the tier solver runs on), [`play`] (the
//! contract of play every command is written over) and its three
//! games, [`foxgame`], [`baghchal`] and [`tictactoe`], listed in the registry
//! [`game`]; [`error`] holds the error types, [`cpu`] the choice of
//! `pdep`/`pext` on this CPU.

pub mod baghchal;
pub mod board;
pub mod cpu;
pub mod error;
pub mod foxgame;
pub mod game;
pub mod notation;
pub mod perft;
pub mod play;
pub mod position;
pub mod reference;
pub mod rules;
pub mod tictactoe;
pub mod tier;
pub mod value;
pub mod variant;

pub use board::{Geometry, Point};
pub use error::{IllegalMove, ParseError, TooManyPositions, VariantError};
pub use position::{Position, Side};
pub use rules::{Move, Rules, Status};
pub use value::{Outcome, Value};
pub use variant::Variant;
