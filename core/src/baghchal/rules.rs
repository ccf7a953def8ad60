//! The rules: legal moves, playing a move, and when the game is over.
//!
//! ```
//! use foxbase_core::baghchal::{Position, Rules};
//! let rules = Rules::default();
//! let mut n = 0;
//! rules.for_each_move(&Position::START, |_| n += 1);
//! assert_eq!(n, 21); // a goat on any of the 21 empty points
//! ```

use super::board::{Bits, Point, BOARD};
use super::error::{IllegalMove, RulesError};
use super::position::{Position, Side};
use super::{DEFAULT_CAPTURE_TARGET, MAX_CAPTURE_TARGET};
use crate::board::BitIter;
use std::fmt;

/// A move: a goat placed, a piece stepping along a line, or a tiger jumping
/// over a goat (from, over, to), which captures it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Move {
    Place(Point),
    Step(Point, Point),
    Jump(Point, Point, Point),
}

impl Move {
    /// The point a piece leaves; `None` for a placement.
    pub fn from(&self) -> Option<Point> {
        match *self {
            Move::Place(_) => None,
            Move::Step(from, _) | Move::Jump(from, _, _) => Some(from),
        }
    }

    /// The point a piece arrives on.
    pub fn to(&self) -> Point {
        match *self {
            Move::Place(to) | Move::Step(_, to) | Move::Jump(_, _, to) => to,
        }
    }
}

impl fmt::Display for Move {
    /// `c3` for a placement, `c3-c4` for a step, `a1xc3` for a jump.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&match self {
            Move::Place(p) => p.to_string(),
            Move::Step(from, to) => format!("{from}-{to}"),
            Move::Jump(from, _, to) => format!("{from}x{to}"),
        })
    }
}

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EndReason {
    /// The tigers have captured the capture target's number of goats.
    CaptureTarget,
    /// The tigers are to move and none of them can.
    TigersTrapped,
    /// The goats are to move and none of them can (only after placing: a
    /// goat can always be placed).
    GoatsBlocked,
}

impl EndReason {
    pub fn describe(self) -> &'static str {
        match self {
            EndReason::CaptureTarget => "the tigers captured enough goats",
            EndReason::TigersTrapped => "no tiger can move",
            EndReason::GoatsBlocked => "no goat can move",
        }
    }
}

/// Whether the game goes on, or who has won.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    Ongoing,
    Over { winner: Side, reason: EndReason },
}

/// The rules with one capture target (4 or 5).
///
/// A position's status depends only on the position: the capture target
/// counts first (a position with that many goats captured is a tiger win,
/// whoever is to move), then a side to move without a legal move loses.
/// There is no repetition rule.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Rules {
    capture_target: u8,
}

impl Default for Rules {
    /// Capture target 5.
    fn default() -> Rules {
        Rules { capture_target: DEFAULT_CAPTURE_TARGET }
    }
}

impl Rules {
    /// The rules with this capture target; [`RulesError::CaptureTarget`]
    /// unless it is 1..=5. The real game's is 5 or 4 (docs/perft.md);
    /// smaller ones go with the small variants (fewer goats).
    pub fn new(capture_target: u8) -> Result<Rules, RulesError> {
        match capture_target {
            1..=MAX_CAPTURE_TARGET => Ok(Rules { capture_target }),
            target => Err(RulesError::CaptureTarget { target }),
        }
    }

    /// The number of captures that wins for the tigers.
    pub fn capture_target(&self) -> u8 {
        self.capture_target
    }

    /// [`RulesError::BeyondCaptureTarget`] for a position with more goats
    /// captured than the target: a game under these rules ended before.
    pub fn check_position(&self, pos: &Position) -> Result<(), RulesError> {
        if pos.captured() > self.capture_target {
            return Err(RulesError::BeyondCaptureTarget { captured: pos.captured(), target: self.capture_target });
        }
        Ok(())
    }

    /// The status of a position (see the type's documentation).
    pub fn status(&self, pos: &Position) -> Status {
        if pos.captured() >= self.capture_target {
            return Status::Over { winner: Side::Tiger, reason: EndReason::CaptureTarget };
        }
        if !self.has_move(pos) {
            let reason = match pos.side() {
                Side::Tiger => EndReason::TigersTrapped,
                Side::Goat => EndReason::GoatsBlocked,
            };
            return Status::Over { winner: pos.side().other(), reason };
        }
        Status::Ongoing
    }

    /// Whether the side to move has any legal move (ignores the capture target).
    pub fn has_move(&self, pos: &Position) -> bool {
        let empty = pos.empty();
        match pos.side() {
            Side::Goat if pos.placing() => empty != 0,
            Side::Goat => BitIter(pos.goats().into()).any(|g| BOARD.neighbours[g as usize] & empty != 0),
            Side::Tiger => BitIter(pos.tigers().into()).any(|t| tiger_can_move(t, pos.goats(), empty)),
        }
    }

    /// Calls `f` with every legal move of the side to move, in a fixed order:
    /// placements by point; otherwise piece by piece (by point), each
    /// piece's steps and then its jumps in [`DIRECTIONS`](super::board::DIRECTIONS) order.
    /// A position whose game is over has no moves. Allocates nothing.
    pub fn for_each_move(&self, pos: &Position, mut f: impl FnMut(Move)) {
        if pos.captured() >= self.capture_target {
            return;
        }
        let empty = pos.empty();
        match pos.side() {
            Side::Goat if pos.placing() => {
                for p in Point::iter(empty) {
                    f(Move::Place(p));
                }
            }
            Side::Goat => {
                for from in Point::iter(pos.goats()) {
                    for to in Point::iter(BOARD.neighbours[from.index() as usize] & empty) {
                        f(Move::Step(from, to));
                    }
                }
            }
            Side::Tiger => {
                for from in Point::iter(pos.tigers()) {
                    for to in Point::iter(BOARD.neighbours[from.index() as usize] & empty) {
                        f(Move::Step(from, to));
                    }
                    for j in BOARD.jumps_from(from.index()) {
                        if pos.goats() & (1 << j.over) != 0 && empty & (1 << j.to) != 0 {
                            f(Move::Jump(from, Point::new(j.over), Point::new(j.to)));
                        }
                    }
                }
            }
        }
    }

    /// All legal moves, in the order of [`Rules::for_each_move`].
    pub fn moves(&self, pos: &Position) -> Vec<Move> {
        let mut v = Vec::new();
        self.for_each_move(pos, |m| v.push(m));
        v
    }

    /// The number of legal moves, counted without generating them (perft's last ply).
    pub fn move_count(&self, pos: &Position) -> u64 {
        if pos.captured() >= self.capture_target {
            return 0;
        }
        let empty = pos.empty();
        let steps = |pieces: Bits| -> u64 {
            BitIter(pieces.into()).map(|p| (BOARD.neighbours[p as usize] & empty).count_ones() as u64).sum()
        };
        match pos.side() {
            Side::Goat if pos.placing() => empty.count_ones() as u64,
            Side::Goat => steps(pos.goats()),
            Side::Tiger => {
                let jumps: u64 = BitIter(pos.tigers().into())
                    .flat_map(|t| BOARD.jumps_from(t))
                    .filter(|j| pos.goats() & (1 << j.over) != 0 && empty & (1 << j.to) != 0)
                    .count() as u64;
                steps(pos.tigers()) + jumps
            }
        }
    }

    /// Plays a move: the side to move changes, a placement takes a goat from
    /// those to place, a jump removes the goat jumped over and counts it captured.
    ///
    /// Precondition: `mv` is legal in `pos`; debug builds assert the pieces are there.
    #[inline]
    pub fn play(&self, pos: &Position, mv: Move) -> Position {
        let (tigers, goats) = (pos.tigers(), pos.goats());
        let (to_place, captured) = (pos.to_place(), pos.captured());
        let side = pos.side().other();
        match mv {
            Move::Place(p) => {
                debug_assert!(pos.side() == Side::Goat && pos.placing() && pos.empty() & p.bit() != 0);
                Position::from_parts_unchecked(tigers, goats | p.bit(), side, to_place - 1, captured)
            }
            Move::Step(from, to) if pos.side() == Side::Goat => {
                debug_assert!(goats & from.bit() != 0 && pos.empty() & to.bit() != 0);
                Position::from_parts_unchecked(tigers, goats ^ from.bit() ^ to.bit(), side, to_place, captured)
            }
            Move::Step(from, to) => {
                debug_assert!(tigers & from.bit() != 0 && pos.empty() & to.bit() != 0);
                Position::from_parts_unchecked(tigers ^ from.bit() ^ to.bit(), goats, side, to_place, captured)
            }
            Move::Jump(from, over, to) => {
                debug_assert!(tigers & from.bit() != 0 && goats & over.bit() != 0 && pos.empty() & to.bit() != 0);
                let tigers = tigers ^ from.bit() ^ to.bit();
                Position::from_parts_unchecked(tigers, goats & !over.bit(), side, to_place, captured + 1)
            }
        }
    }

    /// Checks a move against a position; the error names the move and why it is illegal.
    pub fn check_move(&self, pos: &Position, mv: Move) -> Result<(), IllegalMove> {
        if let Status::Over { winner, reason } = self.status(pos) {
            return Err(IllegalMove::GameOver { mv, winner, reason });
        }
        let side = pos.side();
        match (mv, side) {
            (Move::Place(_), Side::Tiger) => return Err(IllegalMove::TigerPlaces { mv }),
            (Move::Place(_), Side::Goat) if !pos.placing() => return Err(IllegalMove::NothingToPlace { mv }),
            (Move::Jump(..), Side::Goat) => return Err(IllegalMove::GoatJumps { mv }),
            (Move::Step(..), Side::Goat) if pos.placing() => {
                return Err(IllegalMove::StillPlacing { mv, to_place: pos.to_place() })
            }
            _ => {}
        }
        if let Some(from) = mv.from() {
            let mine = if side == Side::Tiger { pos.tigers() } else { pos.goats() };
            if mine & from.bit() == 0 {
                return Err(IllegalMove::NoPiece { mv, side, from });
            }
        }
        if pos.empty() & mv.to().bit() == 0 {
            return Err(IllegalMove::Occupied { mv, to: mv.to() });
        }
        match mv {
            Move::Place(_) => {}
            Move::Step(from, to) => {
                if !BOARD.is_line(from, to) {
                    return Err(IllegalMove::NoLine { mv, from, to });
                }
            }
            Move::Jump(from, over, to) => {
                if BOARD.jump_over(from, to) != Some(over) {
                    return Err(IllegalMove::NotAJump { mv, from, over, to });
                }
                if pos.goats() & over.bit() == 0 {
                    return Err(IllegalMove::NoGoatToJump { mv, over });
                }
            }
        }
        Ok(())
    }
}

/// Whether the tiger on `t` has a step or a jump.
#[inline]
fn tiger_can_move(t: u8, goats: Bits, empty: Bits) -> bool {
    BOARD.neighbours[t as usize] & empty != 0
        || BOARD.jumps_from(t).iter().any(|j| goats & (1 << j.over) != 0 && empty & (1 << j.to) != 0)
}
