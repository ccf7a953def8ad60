//! Positions: where the tigers and goats stand, who moves, and the two counts
//! the board does not show (goats still to place, goats captured).

use super::board::{Bits, ALL_POINTS};
use super::error::ParseError;
use super::{MAX_CAPTURE_TARGET, TIGERS, TOTAL_GOATS};
use std::fmt;

/// The two players.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Side {
    Goat,
    Tiger,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Goat => Side::Tiger,
            Side::Tiger => Side::Goat,
        }
    }

    /// The notation letter: `g` or `t`.
    pub fn letter(self) -> char {
        match self {
            Side::Goat => 'g',
            Side::Tiger => 't',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::Goat => "goat",
            Side::Tiger => "tiger",
        }
    }

    pub fn plural(self) -> &'static str {
        match self {
            Side::Goat => "goats",
            Side::Tiger => "tigers",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Bagh-Chal position.
///
/// Always [`TIGERS`] tigers, and goats on the board + to place + captured =
/// [`TOTAL_GOATS`] (a small variant's total, with
/// [`Position::with_goat_total`]), with at most [`MAX_CAPTURE_TARGET`]
/// captured: [`Position::new`] refuses anything else. While goats remain to be placed
/// (`to_place > 0`) a goat move is a placement; after that it is a step.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Position {
    tigers: Bits,
    goats: Bits,
    side: Side,
    to_place: u8,
    captured: u8,
}

impl Position {
    /// The start: a tiger on each corner, all 20 goats to place, the goats to move.
    pub const START: Position = Position {
        tigers: 1 | 1 << 4 | 1 << 20 | 1 << 24,
        goats: 0,
        side: Side::Goat,
        to_place: TOTAL_GOATS,
        captured: 0,
    };

    /// A position from its parts, or the first thing wrong with them:
    /// [`ParseError::OutsideBoard`], [`ParseError::SharedPoint`],
    /// [`ParseError::TigerCount`], [`ParseError::TooManyCaptured`] or
    /// [`ParseError::GoatTotal`] (the checks
    /// [`parse_position`](super::parse_position) ends with).
    pub fn new(tigers: Bits, goats: Bits, side: Side, to_place: u8, captured: u8) -> Result<Position, ParseError> {
        Position::with_goat_total(tigers, goats, side, to_place, captured, TOTAL_GOATS)
    }

    /// [`Position::new`] for a game of `total` goats in all (a small
    /// variant, see [`BaghChalVariant`](super::BaghChalVariant)): the goats
    /// on the board, to place and captured must make `total`
    /// ([`ParseError::GoatTotal`] names the sum and `total`).
    pub fn with_goat_total(
        tigers: Bits,
        goats: Bits,
        side: Side,
        to_place: u8,
        captured: u8,
        total: u8,
    ) -> Result<Position, ParseError> {
        if (tigers | goats) & !ALL_POINTS != 0 {
            return Err(ParseError::OutsideBoard);
        }
        if tigers & goats != 0 {
            return Err(ParseError::SharedPoint);
        }
        if tigers.count_ones() != TIGERS {
            return Err(ParseError::TigerCount { found: tigers.count_ones() });
        }
        if captured > MAX_CAPTURE_TARGET {
            return Err(ParseError::TooManyCaptured { captured });
        }
        let on_board = goats.count_ones();
        if on_board + to_place as u32 + captured as u32 != total as u32 {
            return Err(ParseError::GoatTotal { on_board, to_place, captured, total });
        }
        Ok(Position { tigers, goats, side, to_place, captured })
    }

    /// Builds a position whose parts the caller has already checked.
    ///
    /// Precondition: the parts satisfy [`Position::new`]'s rules; debug builds assert it.
    ///
    /// A game with fewer goats (a small variant, see
    /// [`BaghChalVariant`](super::BaghChalVariant)) builds its positions here
    /// too: the goat total may then be below [`TOTAL_GOATS`].
    #[inline]
    pub fn from_parts_unchecked(tigers: Bits, goats: Bits, side: Side, to_place: u8, captured: u8) -> Position {
        debug_assert!(
            {
                let total = goats.count_ones() + to_place as u32 + captured as u32;
                let pad = TOTAL_GOATS as u32 - total.min(TOTAL_GOATS as u32);
                total <= TOTAL_GOATS as u32
                    && Position::new(tigers, goats, side, to_place + pad as u8, captured).is_ok()
            },
            "bad position parts"
        );
        Position { tigers, goats, side, to_place, captured }
    }

    #[inline]
    pub fn tigers(&self) -> Bits {
        self.tigers
    }

    #[inline]
    pub fn goats(&self) -> Bits {
        self.goats
    }

    #[inline]
    pub fn side(&self) -> Side {
        self.side
    }

    /// Goats not yet placed.
    #[inline]
    pub fn to_place(&self) -> u8 {
        self.to_place
    }

    /// Goats the tigers have captured.
    #[inline]
    pub fn captured(&self) -> u8 {
        self.captured
    }

    #[inline]
    pub fn empty(&self) -> Bits {
        ALL_POINTS & !(self.tigers | self.goats)
    }

    /// Whether goats remain to be placed, so that a goat move is a placement.
    #[inline]
    pub fn placing(&self) -> bool {
        self.to_place > 0
    }

    pub fn goats_on_board(&self) -> u32 {
        self.goats.count_ones()
    }
}
