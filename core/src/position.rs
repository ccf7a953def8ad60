//! Positions: two sets of points and the side to move.

use crate::board::{mirror_bits, Bits, ALL_POINTS};
use crate::error::ParseError;
use std::fmt;

/// The two players.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Side {
    Fox,
    Sheep,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Fox => Side::Sheep,
            Side::Sheep => Side::Fox,
        }
    }

    /// The notation letter: `f` or `s`.
    pub fn letter(self) -> char {
        match self {
            Side::Fox => 'f',
            Side::Sheep => 's',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::Fox => "fox",
            Side::Sheep => "sheep",
        }
    }

    /// The side as [`crate::play`] writes it.
    pub fn player(self) -> crate::play::Player {
        match self {
            Side::Fox => crate::play::Player { name: self.name(), team: "the foxes", plural: true },
            Side::Sheep => crate::play::Player { name: self.name(), team: "the sheep", plural: true },
        }
    }

    /// The side whose [`Side::name`] is `name`.
    pub fn from_name(name: &str) -> Option<Side> {
        [Side::Fox, Side::Sheep].into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Most foxes a position may hold.
pub const MAX_FOXES: u32 = 2;
/// Most sheep a position may hold.
pub const MAX_SHEEP: u32 = 20;

/// A board position: where the sheep and foxes stand, and who moves.
///
/// The two sets never overlap and hold at most [`MAX_FOXES`] foxes and
/// [`MAX_SHEEP`] sheep; [`Position::new`] refuses anything else.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Position {
    sheep: Bits,
    foxes: Bits,
    side: Side,
}

impl Position {
    /// A position from its parts, or what is wrong with them: one of
    /// [`ParseError::OutsideBoard`], [`ParseError::SharedPoint`],
    /// [`ParseError::TooManyFoxes`] and [`ParseError::TooManySheep`] (the
    /// checks [`crate::notation::parse_position`] ends with).
    pub fn new(sheep: Bits, foxes: Bits, side: Side) -> Result<Position, ParseError> {
        if (sheep | foxes) & !ALL_POINTS != 0 {
            return Err(ParseError::OutsideBoard);
        }
        if sheep & foxes != 0 {
            return Err(ParseError::SharedPoint);
        }
        if foxes.count_ones() > MAX_FOXES {
            return Err(ParseError::TooManyFoxes { found: foxes.count_ones() });
        }
        if sheep.count_ones() > MAX_SHEEP {
            return Err(ParseError::TooManySheep { found: sheep.count_ones() });
        }
        Ok(Position { sheep, foxes, side })
    }

    /// Builds a position whose parts the caller has already checked.
    ///
    /// Precondition: the parts satisfy [`Position::new`]'s rules; debug builds assert it.
    #[inline]
    pub fn from_parts_unchecked(sheep: Bits, foxes: Bits, side: Side) -> Position {
        debug_assert!(Position::new(sheep, foxes, side).is_ok(), "bad position parts");
        Position { sheep, foxes, side }
    }

    #[inline]
    pub fn sheep(&self) -> Bits {
        self.sheep
    }
    #[inline]
    pub fn foxes(&self) -> Bits {
        self.foxes
    }
    #[inline]
    pub fn side(&self) -> Side {
        self.side
    }
    #[inline]
    pub fn empty(&self) -> Bits {
        ALL_POINTS & !(self.sheep | self.foxes)
    }
    pub fn sheep_count(&self) -> u32 {
        self.sheep.count_ones()
    }
    pub fn fox_count(&self) -> u32 {
        self.foxes.count_ones()
    }

    /// The same position with the other side to move.
    pub fn with_side(self, side: Side) -> Position {
        Position { side, ..self }
    }

    /// The left-right mirror image.
    #[inline]
    pub fn mirror(&self) -> Position {
        Position { sheep: mirror_bits(self.sheep), foxes: mirror_bits(self.foxes), side: self.side }
    }

    /// The representative of `{self, self.mirror()}`: the one with the smaller
    /// (sheep, foxes) pair, compared as integers.
    #[inline]
    pub fn canonical(&self) -> Position {
        let m = self.mirror();
        if (m.sheep, m.foxes) < (self.sheep, self.foxes) {
            m
        } else {
            *self
        }
    }
}
