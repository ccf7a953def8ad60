//! The rules of RULES.md: legal moves, playing a move, and when the game is over.
//!
//! ```
//! use foxbase_core::{rules::Rules, Variant};
//! let v = Variant::default();
//! let rules = Rules::new(v.geometry, v.pen_target);
//! let mut n = 0;
//! rules.for_each_move(&v.start, |_| n += 1);
//! assert_eq!(n, 6); // each fox: a step sideways to d7, one down, one diagonal to d6
//! ```

use crate::board::{BitIter, Bits, Board, Geometry, Point, PEN};
use crate::error::IllegalMove;
use crate::position::{Position, Side};
use std::fmt;

/// A move of one piece. `jump` moves capture the sheep halfway between.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub from: Point,
    pub to: Point,
    pub jump: bool,
}

impl Move {
    /// The point jumped over, for a jump.
    pub fn over(&self) -> Option<Point> {
        if self.jump {
            self.from.midpoint(self.to)
        } else {
            None
        }
    }

    /// The mirrored move.
    pub fn mirror(&self) -> Move {
        Move { from: self.from.mirror(), to: self.to.mirror(), jump: self.jump }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&format!("{}{}{}", self.from, if self.jump { 'x' } else { '-' }, self.to))
    }
}

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EndReason {
    /// At least K sheep stand in the pen after a sheep move.
    PenFilled,
    /// Every fox was trapped and removed.
    NoFoxes,
    /// Fewer than K sheep remain after a fox move.
    TooFewSheep,
    /// Fewer than F sheep remain after a fox move, with K <= F (the
    /// `sheep_floor` switch); the floor's winner takes the game.
    BelowFloor,
    /// The side to move has no legal move.
    NoMoves,
}

impl EndReason {
    pub fn describe(self) -> &'static str {
        match self {
            EndReason::PenFilled => "the pen holds enough sheep",
            EndReason::NoFoxes => "no fox remains",
            EndReason::TooFewSheep => "too few sheep remain",
            EndReason::BelowFloor => "fewer sheep remain than the sheep floor",
            EndReason::NoMoves => "the side to move has no legal move",
        }
    }
}

/// Whether the game goes on, or who has won.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    Ongoing,
    Over { winner: Side, reason: EndReason },
}

/// The rules for one geometry, pen target K and sheep floor F.
///
/// A position's status depends only on the position: the end-of-move checks
/// of RULES.md are applied as if the side not to move had just moved. So a
/// fox-to-move position with at least K sheep in the pen, or with no fox, is
/// a sheep win; a sheep-to-move position with fewer than K sheep is a fox win,
/// and one with K..F-1 sheep is a win for the floor's winner
/// ([`Rules::too_few_sheep`]); otherwise a side with no legal move loses.
/// Set-up positions are judged the same way, which makes every value a
/// function of the position alone.
#[derive(Clone, Copy)]
pub struct Rules {
    pub board: &'static Board,
    pub pen_target: u32,
    /// F (RULES.md, "End of a fox move"): fewer sheep than this after a fox
    /// move end the game. Equal to `pen_target` unless a floor was set.
    pub sheep_floor: u32,
    /// Who wins when K <= sheep < F after a fox move (the foxes unless the
    /// variant says `floor_winner` `sheep`).
    pub floor_winner: Side,
    /// N (RULES.md, "Draws"): the game is a draw once N plies in a row were
    /// not progress (no sheep rank sum raised, no piece off the board); 0:
    /// no such rule. The counter is not part of a [`Position`]: a tablebase
    /// stores values at counter 0 with each position's exact distance to
    /// zeroing, from which the value at any counter follows.
    pub no_progress: u32,
}

impl Rules {
    /// The rules without a sheep floor (F = K).
    ///
    /// Precondition: `pen_target` is in 1..=9 (checked by [`crate::Variant`]).
    pub fn new(geometry: Geometry, pen_target: u32) -> Rules {
        Rules {
            board: Board::get(geometry),
            pen_target,
            sheep_floor: pen_target,
            floor_winner: Side::Fox,
            no_progress: 0,
        }
    }

    /// These rules with the sheep floor F and its winner.
    ///
    /// Precondition: `sheep_floor >= pen_target`, and `floor_winner` is
    /// [`Side::Fox`] unless `sheep_floor > pen_target` (checked by
    /// [`crate::Variant::with_sheep_floor`]).
    pub fn with_sheep_floor(self, sheep_floor: u32, floor_winner: Side) -> Rules {
        debug_assert!(sheep_floor >= self.pen_target);
        debug_assert!(floor_winner == Side::Fox || sheep_floor > self.pen_target);
        Rules { sheep_floor, floor_winner, ..self }
    }

    /// These rules with the no-progress draw after `no_progress` plies (0: none).
    pub fn with_no_progress(self, no_progress: u32) -> Rules {
        Rules { no_progress, ..self }
    }

    /// Whether the game is over with the sheep to move and `sheep` sheep on
    /// the board (the end of a fox move), and who has won: the foxes below
    /// K, the floor's winner below F.
    #[inline]
    pub fn too_few_sheep(&self, sheep: u32) -> Option<(Side, EndReason)> {
        if sheep < self.pen_target {
            Some((Side::Fox, EndReason::TooFewSheep))
        } else if sheep < self.sheep_floor {
            Some((self.floor_winner, EndReason::BelowFloor))
        } else {
            None
        }
    }

    pub fn geometry(&self) -> Geometry {
        self.board.geometry
    }

    /// Whether the fox on `fox` has neither a step nor a jump.
    #[inline]
    pub fn fox_trapped(&self, fox: u8, sheep: Bits, empty: Bits) -> bool {
        if self.board.neighbours[fox as usize] & empty != 0 {
            return false;
        }
        for j in self.board.jumps_from(fox) {
            if sheep & (1 << j.over) != 0 && empty & (1 << j.to) != 0 {
                return false;
            }
        }
        true
    }

    /// The foxes that have no legal move.
    #[inline]
    pub fn trapped_foxes(&self, sheep: Bits, foxes: Bits) -> Bits {
        let empty = crate::board::ALL_POINTS & !(sheep | foxes);
        let mut trapped = 0;
        for f in BitIter(foxes) {
            if self.fox_trapped(f, sheep, empty) {
                trapped |= 1 << f;
            }
        }
        trapped
    }

    /// The end-of-move checks alone (without the "no legal move" rule).
    #[inline]
    pub fn ended_by_last_move(&self, pos: &Position) -> Option<(Side, EndReason)> {
        match pos.side() {
            Side::Fox => {
                if (pos.sheep() & PEN).count_ones() >= self.pen_target {
                    Some((Side::Sheep, EndReason::PenFilled))
                } else if pos.foxes() == 0 {
                    Some((Side::Sheep, EndReason::NoFoxes))
                } else {
                    None
                }
            }
            Side::Sheep => self.too_few_sheep(pos.sheep_count()),
        }
    }

    /// The status of a position (see the type's documentation).
    pub fn status(&self, pos: &Position) -> Status {
        if let Some((winner, reason)) = self.ended_by_last_move(pos) {
            return Status::Over { winner, reason };
        }
        if !self.has_move(pos) {
            return Status::Over { winner: pos.side().other(), reason: EndReason::NoMoves };
        }
        Status::Ongoing
    }

    /// Whether the side to move has any legal move (ignores whether the game is over).
    #[inline]
    pub fn has_move(&self, pos: &Position) -> bool {
        let empty = pos.empty();
        match pos.side() {
            Side::Fox => BitIter(pos.foxes()).any(|f| !self.fox_trapped(f, pos.sheep(), empty)),
            Side::Sheep => BitIter(pos.sheep()).any(|s| self.board.sheep_steps[s as usize] & empty != 0),
        }
    }

    /// Calls `f` with every legal move of the side to move, in a fixed order.
    /// A position whose game is over has no moves.
    pub fn for_each_move(&self, pos: &Position, mut f: impl FnMut(Move)) {
        if self.ended_by_last_move(pos).is_some() {
            return;
        }
        self.for_each_piece_move(pos, &mut f);
    }

    /// Every piece move of the side to move, whether or not the game is over.
    #[inline]
    pub fn for_each_piece_move(&self, pos: &Position, f: &mut impl FnMut(Move)) {
        let empty = pos.empty();
        match pos.side() {
            Side::Fox => {
                for from in BitIter(pos.foxes()) {
                    for to in BitIter(self.board.neighbours[from as usize] & empty) {
                        f(Move { from: Point::new(from), to: Point::new(to), jump: false });
                    }
                    for j in self.board.jumps_from(from) {
                        if pos.sheep() & (1 << j.over) != 0 && empty & (1 << j.to) != 0 {
                            f(Move { from: Point::new(from), to: Point::new(j.to), jump: true });
                        }
                    }
                }
            }
            Side::Sheep => {
                for from in BitIter(pos.sheep()) {
                    for to in BitIter(self.board.sheep_steps[from as usize] & empty) {
                        f(Move { from: Point::new(from), to: Point::new(to), jump: false });
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

    /// Plays a move and applies the end-of-sheep-move removal of trapped foxes.
    ///
    /// Precondition: `mv` is legal in `pos`; debug builds assert the piece is there.
    /// After a sheep move that fills the pen the game is over and no fox is removed.
    #[inline]
    pub fn play(&self, pos: &Position, mv: Move) -> Position {
        let (from, to) = (mv.from.bit(), mv.to.bit());
        match pos.side() {
            Side::Fox => {
                debug_assert!(pos.foxes() & from != 0);
                let mut sheep = pos.sheep();
                if mv.jump {
                    sheep &= !mv.over().unwrap().bit();
                }
                Position::from_parts_unchecked(sheep, pos.foxes() ^ from ^ to, Side::Sheep)
            }
            Side::Sheep => {
                debug_assert!(pos.sheep() & from != 0);
                let sheep = pos.sheep() ^ from ^ to;
                let mut foxes = pos.foxes();
                if (sheep & PEN).count_ones() < self.pen_target {
                    foxes &= !self.trapped_foxes(sheep, foxes);
                }
                Position::from_parts_unchecked(sheep, foxes, Side::Fox)
            }
        }
    }

    /// Checks a move against a position; the error names the move and why it is illegal.
    pub fn check_move(&self, pos: &Position, mv: Move) -> Result<(), IllegalMove> {
        if let Some((winner, reason)) = self.ended_by_last_move(pos) {
            return Err(IllegalMove::GameOver { mv, winner, reason });
        }
        let side = pos.side();
        let mine = if side == Side::Fox { pos.foxes() } else { pos.sheep() };
        if mine & mv.from.bit() == 0 {
            return Err(IllegalMove::NoPiece { mv, side });
        }
        if pos.empty() & mv.to.bit() == 0 {
            return Err(IllegalMove::Occupied { mv });
        }
        if mv.jump {
            if side == Side::Sheep {
                return Err(IllegalMove::SheepJump { mv });
            }
            let ok = self.board.jumps_from(mv.from.index()).iter().any(|j| j.to == mv.to.index());
            if !ok {
                return Err(IllegalMove::NotAJump { mv });
            }
            let over = mv.over().unwrap();
            if pos.sheep() & over.bit() == 0 {
                return Err(IllegalMove::NoSheepToJump { mv, over });
            }
        } else {
            if !self.board.is_line(mv.from, mv.to) {
                return Err(IllegalMove::NoLine { mv, geometry: self.geometry() });
            }
            if side == Side::Sheep && mv.to.y() < mv.from.y() {
                return Err(IllegalMove::SheepStepsBack { mv });
            }
        }
        Ok(())
    }
}

impl crate::play::Playable for Rules {
    type Position = Position;
    type Move = Move;

    fn game_name(&self) -> &'static str {
        crate::game::GameKind::Fox.name()
    }

    fn players(&self) -> [crate::play::Player; 2] {
        [Side::Fox.player(), Side::Sheep.player()]
    }

    fn to_move(&self, pos: &Position) -> crate::play::Player {
        pos.side().player()
    }

    fn parse_position(&self, text: &str) -> Result<Position, String> {
        crate::notation::parse_position(text).map_err(|e| e.to_string())
    }

    /// `RANKS SIDE [COUNTER]`: the counter (plies since the last progress
    /// move) is allowed under a no-progress rule of N plies, from 0 to N
    /// (at N the game is drawn).
    fn parse_position_at_counter(&self, text: &str) -> Result<(Position, u32), String> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 3 {
            return Ok((self.parse_position(text)?, 0));
        }
        let pos = self.parse_position(&fields[..2].join(" "))?;
        let counter = fields[2].parse::<u32>().map_err(|_| {
            format!("the third field '{}' is not a no-progress counter (a whole number of plies)", fields[2])
        })?;
        if self.no_progress == 0 {
            return Err(format!(
                "the third field {counter} is a no-progress counter, and these rules have no no-progress rule"
            ));
        }
        if counter > self.no_progress {
            return Err(format!(
                "the no-progress counter {counter} is out of range: 0 to {} plies (at {} the game is drawn)",
                self.no_progress, self.no_progress
            ));
        }
        Ok((pos, counter))
    }

    fn format_position(&self, pos: &Position) -> String {
        crate::notation::format_position(pos)
    }

    fn no_progress(&self) -> u32 {
        self.no_progress
    }

    /// RULES.md, "Draws": the sheep's rank sum rose, or a piece left the
    /// board (a sheep jumped, a fox removed): exactly a move out of the tier.
    fn is_progress(&self, pos: &Position, child: &Position) -> bool {
        let rank_sum = |p: &Position| Point::iter(p.sheep()).map(|q| q.y()).sum::<i32>();
        child.sheep_count() < pos.sheep_count()
            || child.fox_count() < pos.fox_count()
            || rank_sum(child) > rank_sum(pos)
    }

    fn board_picture(&self, pos: &Position) -> String {
        crate::notation::board_picture(pos)
    }

    /// The 33 points, the lines of the geometry, the pen; under the
    /// no-progress rule the counter as the position's one count.
    fn board_shape(&self) -> crate::play::BoardShape {
        use crate::play::{BoardShape, Region, ShapePoint, SidePieces};
        let points = Point::all().map(|p| ShapePoint { name: p.to_string(), x: p.x(), y: p.y() }).collect();
        let mut lines = Vec::new();
        for a in Point::all() {
            for b in Point::all().filter(|b| a.index() < b.index() && self.board.is_line(a, *b)) {
                lines.push([a.to_string(), b.to_string()]);
            }
        }
        let pen = Point::iter(PEN).map(|p| p.to_string()).collect();
        let side = |s: Side, piece, one| SidePieces { player: s.player(), piece, letter: s.letter(), one };
        BoardShape {
            points,
            lines,
            cells: false,
            region: Some(Region { name: "pen", points: pen }),
            sides: [side(Side::Fox, 'F', "the fox"), side(Side::Sheep, 'S', "the sheep")],
            // Under the no-progress rule a position's third field is its counter.
            counts: match self.no_progress {
                0 => Vec::new(),
                _ => vec![crate::play::Count { key: "no_progress", words: "plies without progress" }],
            },
        }
    }

    fn rule_switches(&self) -> serde_json::Value {
        serde_json::json!({"geometry": self.geometry().name(), "pen_target": self.pen_target,
            "sheep_floor": self.sheep_floor, "floor_winner": crate::variant::floor_winner_name(self.floor_winner),
            "no_progress": self.no_progress})
    }

    fn parse_move(&self, pos: &Position, text: &str) -> Result<Move, String> {
        crate::notation::parse_move(self, pos, text).map_err(|e| e.to_string())
    }

    fn status(&self, pos: &Position) -> crate::play::GameStatus {
        match Rules::status(self, pos) {
            Status::Ongoing => crate::play::GameStatus::Ongoing,
            Status::Over { winner, reason } => {
                crate::play::GameStatus::Over { winner: Some(winner.player()), reason: reason.describe() }
            }
        }
    }

    fn play(&self, pos: &Position, mv: Move) -> Position {
        Rules::play(self, pos, mv)
    }

    fn for_each_move(&self, pos: &Position, mut f: impl FnMut(Move, Position)) {
        Rules::for_each_move(self, pos, |m| f(m, Rules::play(self, pos, m)));
    }
}
