//! Bagh-Chal (tigers and goats) on the same engine: its rules, notation,
//! move generation, symmetries, perft, and the game as a tiered
//! [`TierGame`](crate::tier::TierGame) ([`tier`]).
//!
//! The rules (the readings that differ between sources are
//! switches of [`Rules`], with these defaults):
//!
//! - The board is the 25 points of a 5×5 grid with lines along every rank
//!   and file, and diagonals through the points whose file and rank indices
//!   have an even sum ([`board`]).
//! - Four tigers start on the corners, 20 goats off the board; the goats move first.
//! - While goats remain to be placed, a goat move puts one on any empty
//!   point; the goats on the board do not move until all are placed.
//! - Afterwards a goat steps along a line to an adjacent empty point.
//! - A tiger steps likewise from the start, or jumps over one adjacent goat
//!   along a straight line to the empty point just beyond, capturing it
//!   (one capture a move, never over a tiger).
//! - The tigers win on capturing 5 goats (the capture target, 4 or 5); a
//!   side to move with no legal move loses (so the goats win by trapping
//!   every tiger). There is no repetition rule.
//!
//! ```
//! use foxbase_core::baghchal::{format_position, perft, Position, Rules};
//! let rules = Rules::default();
//! assert_eq!(format_position(&Position::START), "T...T/...../...../...../T...T g 20 0");
//! let counts: Vec<u64> = (1..=3).map(|d| perft(&rules, &Position::START, d)).collect();
//! assert_eq!(counts, [21, 252, 5_052]);
//! ```

pub mod board;
pub mod error;
pub mod index;
pub mod notation;
pub mod perft;
pub mod play;
pub mod position;
pub mod rules;
pub mod symmetry;
pub mod tier;

pub use board::{Bits, Point, BOARD};
pub use error::{IllegalMove, ParseError, RulesError};
pub use notation::{
    board_picture, format_position, goat_total, parse_move, parse_move_text, parse_position, parse_position_with_goats,
};
pub use perft::{distinct_positions, divide, perft, Layer};
pub use play::PlayRules;
pub use position::{Position, Side};
pub use rules::{EndReason, Move, Rules, Status};
pub use symmetry::{canonical, Symmetry};
pub use tier::{BaghChal, BaghChalVariant, BaghIndex, BaghTier, VariantError};

/// Goats in a game.
pub const TOTAL_GOATS: u8 = 20;

/// Tigers in a game.
pub const TIGERS: u32 = 4;

/// The default capture target: the tigers win on capturing this many goats.
pub const DEFAULT_CAPTURE_TARGET: u8 = 5;

/// The largest capture target any reading uses (the other is 4).
pub const MAX_CAPTURE_TARGET: u8 = 5;
