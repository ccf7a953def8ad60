//! Bagh-Chal's error types: one enum variant per distinct failure, with the
//! data of its message as fields (the style of [`crate::error`]).
//!
//! - [`ParseError`]: reading positions, points and moves from text, and
//!   [`Position::new`](super::Position::new)'s checks;
//! - [`IllegalMove`]: a well-formed move that
//!   [`Rules::check_move`](super::Rules::check_move) refuses;
//! - [`RulesError`]: a rule switch out of range, or a position those rules
//!   cannot reach ([`Rules::check_position`](super::Rules::check_position)).
//!
//! ```
//! use foxbase_core::baghchal::{parse_position, ParseError};
//! let err = parse_position("T...T/...../...../...../T...T g 19 0").unwrap_err();
//! assert_eq!(err, ParseError::GoatTotal { on_board: 0, to_place: 19, captured: 0, total: 20 });
//! assert_eq!(err.to_string(), "goats on the board (0) + to place (19) + captured (0) make 19, not 20");
//! ```

use super::board::Point;
use super::rules::{EndReason, Move};
use super::{Side, MAX_CAPTURE_TARGET, TIGERS, TOTAL_GOATS};
use thiserror::Error;

/// Why a text is not a Bagh-Chal position, point or move (or, for
/// [`Position::new`](super::Position::new), why its parts are not a position).
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum ParseError {
    /// Not four fields separated by blanks.
    #[error(
        "expected 4 fields separated by spaces (the board, the side to move g or t, the goats still to place \
         and the goats captured, e.g. 'T...T/...../...../...../T...T g 20 0'), found {found}"
    )]
    FieldCount { found: usize },
    /// The board does not have 5 ranks.
    #[error("expected 5 ranks separated by '/', found {found}")]
    RankCount { found: usize },
    /// Rank `rank` (1..=5) does not have 5 points.
    #[error("rank {rank} has {found} points, expected 5")]
    RankWidth { rank: u8, found: usize },
    /// Character `character` (from 1) of rank `rank`, on `point`, is not `T`, `G` or `.`.
    #[error("rank {rank}, character {character} ({point}): '{found}' is not T, G or '.'")]
    BadPiece { rank: u8, character: usize, point: Point, found: char },
    /// The side to move is neither `g` nor `t`.
    #[error("side to move '{found}' is not g or t")]
    BadSide { found: String },
    /// A count field (`field` names it) that is not a whole number up to 20.
    #[error("{field} '{found}' is not a whole number from 0 to {}", TOTAL_GOATS)]
    BadCount { field: &'static str, found: String },
    /// A piece bit beyond the 25 points ([`Position::new`](super::Position::new)).
    #[error("a piece stands outside the 25 points")]
    OutsideBoard,
    /// A point holds both a tiger and a goat ([`Position::new`](super::Position::new)).
    #[error("a tiger and a goat share a point")]
    SharedPoint,
    /// Not exactly [`TIGERS`] tigers.
    #[error("{found} tigers (there are always {})", TIGERS)]
    TigerCount { found: u32 },
    /// The goats on the board, to place and captured do not add up to
    /// `total`, the game's goats ([`TOTAL_GOATS`], or a small variant's).
    #[error("goats on the board ({on_board}) + to place ({to_place}) + captured ({captured}) make {}, not {total}",
        .on_board + *.to_place as u32 + *.captured as u32)]
    GoatTotal { on_board: u32, to_place: u8, captured: u8, total: u8 },
    /// More goats captured than any capture target lets a game reach.
    #[error("{captured} goats captured (at most {}: the tigers have won by then)", MAX_CAPTURE_TARGET)]
    TooManyCaptured { captured: u8 },
    /// Not a file letter a-e and a rank digit 1-5.
    #[error("'{text}' is not a point (expected a file a-e and a rank 1-5, e.g. c3)")]
    NotASquare { text: String },
    /// A move text that is neither a point, nor two points joined by one `-` or one `x`.
    #[error("'{text}' is not a move (expected a placement like c3, a step like c3-c4 or a jump like a1xc3)")]
    NotAMove { text: String },
    /// One of the points of the move `text` is bad ([`ParseError::NotASquare`]).
    #[error("{text}: {error}")]
    MoveSquare {
        text: String,
        #[source]
        error: Box<ParseError>,
    },
    /// A jump (`x`) whose points are not two apart along a straight line.
    #[error("{text}: a jump goes exactly two points along a straight line")]
    BadJump { text: String },
    /// A well-formed move that is illegal in the position.
    #[error(transparent)]
    IllegalMove(#[from] IllegalMove),
}

/// Why [`Rules::check_move`](super::Rules::check_move) refuses a move; every
/// message starts with the move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Error)]
pub enum IllegalMove {
    /// The position's game is already over.
    #[error("{mv}: the game is over (the {} won: {})", .winner.plural(), .reason.describe())]
    GameOver { mv: Move, winner: Side, reason: EndReason },
    /// A placement with the tigers to move.
    #[error("{mv}: the tigers are to move, and only goats are placed")]
    TigerPlaces { mv: Move },
    /// A placement when every goat is placed already.
    #[error("{mv}: every goat is placed; goats now step along a line (e.g. c3-c4)")]
    NothingToPlace { mv: Move },
    /// A goat step or jump while goats remain to be placed.
    #[error("{mv}: {to_place} goats are still to be placed, and goats on the board move only once all are")]
    StillPlacing { mv: Move, to_place: u8 },
    /// No piece of the side to move on `from`.
    #[error("{mv}: no {} on {from} ({} to move)", .side.name(), .side.plural())]
    NoPiece { mv: Move, side: Side, from: Point },
    /// The point moved or placed to is not empty.
    #[error("{mv}: {to} is occupied")]
    Occupied { mv: Move, to: Point },
    /// A step between points that no line joins.
    #[error("{mv}: no line joins {from} and {to}")]
    NoLine { mv: Move, from: Point, to: Point },
    /// A goat move written as a jump.
    #[error("{mv}: goats cannot jump")]
    GoatJumps { mv: Move },
    /// A jump whose three points are not consecutive on one line of the board.
    #[error("{mv}: {from}, {over} and {to} are not consecutive points of one line")]
    NotAJump { mv: Move, from: Point, over: Point, to: Point },
    /// A jump over a point that holds no goat.
    #[error("{mv}: no goat on {over} to jump over")]
    NoGoatToJump { mv: Move, over: Point },
}

/// A rule switch out of range, or a position that the rules cannot reach.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Error)]
pub enum RulesError {
    /// The capture target is not in 1..=5.
    #[error("capture target {target} is not in 1..=5")]
    CaptureTarget { target: u8 },
    /// A position with more goats captured than the capture target: the game ended before.
    #[error("{captured} goats captured, but the tigers win on capturing {target}: no game gets there")]
    BeyondCaptureTarget { captured: u8, target: u8 },
}
