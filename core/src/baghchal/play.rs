//! Bagh-Chal's rules of play for one variant, as a [`Playable`]: the
//! capture target and the goats in the game (a position's goats on the
//! board, to place and captured add up to them).

use super::notation::{board_picture, format_position, parse_move, parse_position_with_goats};
use super::{BaghChalVariant, Move, Point, Position, Rules, Side, Status, BOARD};
use crate::game::GameKind;
use crate::play::{BoardShape, Count, GameStatus, Playable, Player, ShapePoint, SidePieces};

/// The rules of one Bagh-Chal variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayRules {
    rules: Rules,
    variant: BaghChalVariant,
}

impl PlayRules {
    pub fn new(variant: BaghChalVariant) -> PlayRules {
        let rules = Rules::new(variant.capture_target()).expect("a variant's capture target is a reading");
        PlayRules { rules, variant }
    }

    /// The move generation and end of game of this variant's capture target.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn variant(&self) -> BaghChalVariant {
        self.variant
    }
}

impl Side {
    /// The side as [`crate::play`] writes it.
    pub fn player(self) -> Player {
        match self {
            Side::Goat => Player { name: "goat", team: "the goats", plural: true },
            Side::Tiger => Player { name: "tiger", team: "the tigers", plural: true },
        }
    }
}

impl Playable for PlayRules {
    type Position = Position;
    type Move = Move;

    fn game_name(&self) -> &'static str {
        GameKind::BaghChal.name()
    }

    fn players(&self) -> [Player; 2] {
        [Side::Goat.player(), Side::Tiger.player()]
    }

    fn to_move(&self, pos: &Position) -> Player {
        pos.side().player()
    }

    /// A position of this variant's goats, with no more goats captured than the capture target.
    fn parse_position(&self, text: &str) -> Result<Position, String> {
        let pos = parse_position_with_goats(text, self.variant.goats()).map_err(|e| e.to_string())?;
        self.rules.check_position(&pos).map_err(|e| e.to_string())?;
        Ok(pos)
    }

    fn format_position(&self, pos: &Position) -> String {
        format_position(pos)
    }

    fn board_picture(&self, pos: &Position) -> String {
        board_picture(pos)
    }

    /// The 5x5 board with its diagonals; the goats to place and captured after the side to move.
    fn board_shape(&self) -> BoardShape {
        let points = Point::all().map(|p| ShapePoint { name: p.to_string(), x: p.x() + 1, y: p.y() + 1 }).collect();
        let mut lines = Vec::new();
        for a in Point::all() {
            for b in Point::all().filter(|b| a.index() < b.index() && BOARD.is_line(a, *b)) {
                lines.push([a.to_string(), b.to_string()]);
            }
        }
        let side = |s: Side, piece, one| SidePieces { player: s.player(), piece, letter: s.letter(), one };
        BoardShape {
            points,
            lines,
            cells: false,
            region: None,
            sides: [side(Side::Goat, 'G', "the goat"), side(Side::Tiger, 'T', "the tiger")],
            counts: vec![
                Count { key: "to_place", words: "goats to place" },
                Count { key: "captured", words: "goats captured" },
            ],
        }
    }

    fn rule_switches(&self) -> serde_json::Value {
        serde_json::json!({"goats": self.variant.goats(), "capture_target": self.variant.capture_target()})
    }

    fn parse_move(&self, pos: &Position, text: &str) -> Result<Move, String> {
        parse_move(&self.rules, pos, text).map_err(|e| e.to_string())
    }

    fn status(&self, pos: &Position) -> GameStatus {
        match self.rules.status(pos) {
            Status::Ongoing => GameStatus::Ongoing,
            Status::Over { winner, reason } => {
                GameStatus::Over { winner: Some(winner.player()), reason: reason.describe() }
            }
        }
    }

    fn play(&self, pos: &Position, mv: Move) -> Position {
        self.rules.play(pos, mv)
    }

    fn for_each_move(&self, pos: &Position, mut f: impl FnMut(Move, Position)) {
        self.rules.for_each_move(pos, |m| f(m, self.rules.play(pos, m)));
    }
}
