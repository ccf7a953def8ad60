//! The crate's error types: one enum variant per distinct failure, with the
//! data of its message as fields.
//!
//! - [`ParseError`]: reading positions ([`crate::notation::parse_position`],
//!   and [`Position::new`](crate::Position::new)'s checks), points, geometries
//!   and moves ([`crate::notation::parse_move`]) from text;
//! - [`IllegalMove`]: a move that [`Rules::check_move`](crate::Rules::check_move) refuses;
//! - [`VariantError`]: building or reading a [`Variant`](crate::Variant)
//!   ([`Variant::new`](crate::Variant::new), its JSON and its text form);
//! - [`TooManyPositions`]: the reference solver's size limit.
//!
//! Their `Display` output is the message people and logs see.
//!
//! ```
//! use foxbase_core::{notation::parse_position, ParseError};
//! let err = parse_position("F.F/.../....../SSSSSSS/SSSSSSS/SSS/SSS f").unwrap_err();
//! assert_eq!(err, ParseError::RankWidth { rank: 5, found: 6, expected: 7 });
//! assert_eq!(err.to_string(), "rank 5 has 6 points, expected 7");
//! ```

use crate::board::{Geometry, Point};
use crate::position::{Side, MAX_FOXES, MAX_SHEEP};
use crate::rules::{EndReason, Move};
use std::num::ParseIntError;
use thiserror::Error;

/// Why a text (or, for [`Position::new`](crate::Position::new), a pair of
/// piece sets) is not a position, point, geometry or legal move.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum ParseError {
    /// A position without ` f` or ` s` after the board; `text` is the trimmed input.
    #[error("missing the side to move after the board (expected '{text} f' or '{text} s')")]
    MissingSide { text: String },
    /// The side to move is neither `f` nor `s`.
    #[error("side to move '{found}' is not f or s")]
    BadSide { found: String },
    /// The board does not have 7 ranks.
    #[error("expected 7 ranks separated by '/', found {found}")]
    RankCount { found: usize },
    /// Rank `rank` (1..=7) has the wrong number of points.
    #[error("rank {rank} has {found} points, expected {expected}")]
    RankWidth { rank: u8, found: usize, expected: usize },
    /// Character `character` (from 1) of rank `rank`, on `point`, is not `F`, `S` or `.`.
    #[error("rank {rank}, character {character} ({point}): '{found}' is not F, S or '.'")]
    BadPiece { rank: u8, character: usize, point: Point, found: char },
    /// A piece bit beyond the 33 points ([`Position::new`](crate::Position::new)).
    #[error("a piece stands outside the 33 points")]
    OutsideBoard,
    /// A point holds both a fox and a sheep ([`Position::new`](crate::Position::new)).
    #[error("a fox and a sheep share a point")]
    SharedPoint,
    /// More than [`MAX_FOXES`] foxes.
    #[error("{found} foxes (at most {})", MAX_FOXES)]
    TooManyFoxes { found: u32 },
    /// More than [`MAX_SHEEP`] sheep.
    #[error("{found} sheep (at most {})", MAX_SHEEP)]
    TooManySheep { found: u32 },
    /// Not a file letter and a rank digit.
    #[error("'{text}' is not a square (expected a file a-g and a rank 1-7, e.g. d4)")]
    NotASquare { text: String },
    /// A square such as `a1` that is off the cross.
    #[error("{text} is not a point of the board")]
    NotAPoint { text: String },
    /// Neither `classic` nor `orthogonal`.
    #[error("unknown geometry '{text}' (expected classic or orthogonal)")]
    UnknownGeometry { text: String },
    /// A move text with neither exactly one `-` nor exactly one `x`.
    #[error("'{text}' is not a move (expected a step like c7-c6 or a jump like e5xc3)")]
    NotAMove { text: String },
    /// One of the two squares of the move `text` is bad ([`ParseError::NotASquare`] or [`ParseError::NotAPoint`]).
    #[error("{text}: {error}")]
    MoveSquare {
        text: String,
        #[source]
        error: Box<ParseError>,
    },
    /// A jump (`x`) whose squares are not two points apart on a straight line.
    #[error("{text}: a jump goes exactly two points along a straight line")]
    BadJump { text: String },
    /// A well-formed move that is illegal in the position.
    #[error(transparent)]
    IllegalMove(#[from] IllegalMove),
}

/// Why [`Rules::check_move`](crate::Rules::check_move) refuses a move; every
/// message starts with the move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Error)]
pub enum IllegalMove {
    /// The position's game is already over.
    #[error("{mv}: the game is over ({winner} won: {})", .reason.describe())]
    GameOver { mv: Move, winner: Side, reason: EndReason },
    /// No piece of the side to move on `mv.from`.
    #[error("{mv}: no {side} on {} ({side} to move)", .mv.from)]
    NoPiece { mv: Move, side: Side },
    /// `mv.to` is not empty.
    #[error("{mv}: {} is occupied", .mv.to)]
    Occupied { mv: Move },
    /// A sheep move written as a jump.
    #[error("{mv}: sheep cannot jump")]
    SheepJump { mv: Move },
    /// A fox jump whose ends are not two lines apart on one straight line.
    #[error("{mv}: {} and {} are not two lines apart on one straight line", .mv.from, .mv.to)]
    NotAJump { mv: Move },
    /// A fox jump over `over`, which holds no sheep.
    #[error("{mv}: no sheep on {over}")]
    NoSheepToJump { mv: Move, over: Point },
    /// A step between points that no line of `geometry` joins.
    #[error("{mv}: no line joins {} and {} in the {geometry} geometry", .mv.from, .mv.to)]
    NoLine { mv: Move, geometry: Geometry },
    /// A sheep step to a lower rank.
    #[error("{mv}: a sheep may not step to a lower rank")]
    SheepStepsBack { mv: Move },
}

/// Why a [`Variant`](crate::Variant) could not be built
/// ([`Variant::new`](crate::Variant::new)) or read from its JSON
/// ([`Variant::from_json`](crate::Variant::from_json)) or text (`str::parse`) form.
#[derive(Debug, Error)]
pub enum VariantError {
    /// The pen target K is not in 1..=9.
    #[error("pen_target {pen_target} is out of range (1..=9)")]
    PenTargetOutOfRange { pen_target: u32 },
    /// The sheep floor F is not in K..=the start's sheep count.
    #[error("sheep_floor {sheep_floor} is out of range: it must be from the pen target to the start's sheep count, here {low}..={high}")]
    SheepFloorOutOfRange { sheep_floor: u32, low: u32, high: u32 },
    /// `floor_winner` `sheep` without a floor above K.
    #[error(
        "floor_winner sheep needs a sheep_floor above the pen target ({pen_target}); sheep_floor is {sheep_floor}"
    )]
    FloorWinnerWithoutFloor { sheep_floor: u32, pen_target: u32 },
    /// A `floor_winner` that is neither `foxes` nor `sheep`.
    #[error("floor_winner '{value}' is neither 'foxes' nor 'sheep'")]
    FloorWinner { value: String },
    /// The JSON's `sheep_floor` is not a whole number that fits a `u32`.
    #[error("variant JSON: 'sheep_floor' is not a whole number in range")]
    JsonSheepFloor,
    /// The text form's `sheep_floor` value is not a number.
    #[error("variant: sheep_floor '{value}' is not a number")]
    SheepFloorNotANumber {
        value: String,
        #[source]
        error: ParseIntError,
    },
    /// A `no_progress` cap above the largest.
    #[error("no_progress {no_progress} is out of range: 1 to {max} plies, or 0 for no such rule")]
    NoProgressOutOfRange { no_progress: u32, max: u32 },
    /// The JSON's `no_progress` is not a whole number that fits a `u32`.
    #[error("variant JSON: 'no_progress' is not a whole number in range")]
    JsonNoProgress,
    /// The text form's `no_progress` value is not a number.
    #[error("variant: no_progress '{value}' is not a number")]
    NoProgressNotANumber {
        value: String,
        #[source]
        error: ParseIntError,
    },
    /// The start position has no fox.
    #[error("start: the start position has no fox (1 or 2 are allowed)")]
    NoFox,
    /// The geometry (JSON or text) is not a geometry ([`ParseError::UnknownGeometry`]).
    #[error(transparent)]
    Geometry(ParseError),
    /// The JSON does not parse.
    #[error("variant JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// The JSON lacks one of `geometry`, `pen_target`, `start`.
    #[error("variant JSON: missing field '{field}'")]
    JsonMissingField { field: &'static str },
    /// The JSON's `geometry` or `start` is not a string.
    #[error("variant JSON: '{field}' is not a string")]
    JsonNotAString { field: &'static str },
    /// The JSON's `pen_target` is not a whole number that fits a `u32`.
    #[error("variant JSON: 'pen_target' is not a whole number in range")]
    JsonPenTarget,
    /// The JSON's `start` is not a position.
    #[error("variant JSON: start: {0}")]
    JsonStart(#[source] ParseError),
    /// A `;`-separated part of the text form without `=`.
    #[error("variant: '{part}' is not key=value")]
    NotKeyValue { part: String },
    /// The text form's `pen_target` value is not a number.
    #[error("variant: pen_target '{value}' is not a number")]
    PenTargetNotANumber {
        value: String,
        #[source]
        error: ParseIntError,
    },
    /// The text form's `start` is not a position.
    #[error("variant: start: {0}")]
    Start(#[source] ParseError),
    /// A key of the text form other than `geometry`, `pen_target`, `start`.
    #[error("variant: unknown field '{field}'")]
    UnknownField { field: String },
    /// The text form lacks one of `geometry`, `pen_target`, `start`.
    #[error("variant: missing {field}")]
    MissingField { field: &'static str },
}

/// The reference solver found more than `limit` reachable positions.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Error)]
#[error("more than {limit} positions are reachable from the start: too large for the reference solver")]
pub struct TooManyPositions {
    pub limit: usize,
}
