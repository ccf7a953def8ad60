//! The contract for playing a game: [`Playable`], beside the solving
//! contract [`TierGame`](crate::tier::TierGame).
//!
//! A command that shows, lists, plays or probes positions (`show`,
//! `moves`, `play`, `perft`, `probe`, `versus`, `export`, `serve`) is
//! written once over this trait and works for every game in the registry
//! ([`crate::game`]). A game's rules implement it: the Fox Game's
//! [`Rules`](crate::rules::Rules), Bagh-Chal's
//! [`PlayRules`](crate::baghchal::PlayRules) and
//! [`TicTacToe`](crate::tictactoe::TicTacToe); a tier game names its rules
//! through [`WithRules`].
//!
//! Implementations are deterministic: the same position always gives the
//! same moves in the same order.

use crate::game::GameKind;
use crate::tier::TierGame;
use std::fmt::{Debug, Display};
use std::hash::Hash;

/// One of a game's two sides, as people read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Player {
    /// The side's name in commands and JSON (`fox`, `sheep`, `goat`, `tiger`, `x`, `o`).
    pub name: &'static str,
    /// The side as the subject of a sentence: "the foxes", "the goats", "X".
    pub team: &'static str,
    /// Whether [`Player::team`] takes a plural verb ("the sheep win", "X wins").
    pub plural: bool,
}

impl Player {
    /// "the foxes win", "X wins".
    pub fn wins(&self) -> String {
        format!("{} {}", self.team, if self.plural { "win" } else { "wins" })
    }
}

/// Whether play goes on in a position, or how the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    Ongoing,
    /// The game is over: `winner` is `None` for a draw.
    Over {
        winner: Option<Player>,
        reason: &'static str,
    },
}

impl GameStatus {
    /// "game goes on", "game over: the foxes won (no fox remains)" or
    /// "game over: a draw (the board is full)".
    pub fn describe(&self) -> String {
        match self {
            GameStatus::Ongoing => "game goes on".into(),
            GameStatus::Over { winner: Some(w), reason } => format!("game over: {} won ({reason})", w.team),
            GameStatus::Over { winner: None, reason } => format!("game over: a draw ({reason})"),
        }
    }

    pub fn is_over(&self) -> bool {
        matches!(self, GameStatus::Over { .. })
    }
}

/// A point of a board drawing ([`BoardShape`]): its name in the move
/// notation and its place, file `x` counted from 1 at the left and rank `y`
/// from 1 at the bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapePoint {
    pub name: String,
    pub x: i32,
    pub y: i32,
}

/// Points a drawing shows set apart, with their name (the Fox Game's pen).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub name: &'static str,
    pub points: Vec<String>,
}

/// How a drawing reads one side's pieces from a position's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SidePieces {
    pub player: Player,
    /// The letter of its pieces on the board (`F`, `G`, `X`).
    pub piece: char,
    /// The letter naming it as the side to move (`f`, `g`, `x`).
    pub letter: char,
    /// The side as the subject of a sentence when it has a single piece
    /// ("the fox"; "X"), where [`Player::team`] names several.
    pub one: &'static str,
}

/// A number a position's text gives after the side to move, such as
/// Bagh-Chal's goats still to place: a key for programs and words for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    pub key: &'static str,
    pub words: &'static str,
}

/// A game's board as a drawing of it needs it (`foxbase serve`'s page):
/// data, so that one drawing serves every game.
///
/// A position's text is read by this shape the same way in every game:
/// first the board, rank by rank from the top, each rank's points from left
/// to right, one character a point (a side's [`SidePieces::piece`], or `.`
/// for an empty point), ranks separated by `/`; then a space and the
/// [`SidePieces::letter`] of the side to move; then the [`BoardShape::counts`],
/// each a number after a space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardShape {
    /// Every point, in the order of its index in the game.
    pub points: Vec<ShapePoint>,
    /// The lines pieces move along, each a pair of point names.
    pub lines: Vec<[String; 2]>,
    /// Whether pieces stand in the squares of a grid (tic-tac-toe) rather
    /// than on points joined by lines.
    pub cells: bool,
    /// Points set apart (the Fox Game's pen), if any.
    pub region: Option<Region>,
    /// The two sides' pieces, in the order of [`Playable::players`].
    pub sides: [SidePieces; 2],
    /// The numbers after the side to move, in their order.
    pub counts: Vec<Count>,
}

/// A game's rules of play. See the module documentation.
pub trait Playable: Send + Sync {
    /// A position, including the side to move.
    type Position: Copy + Eq + Hash + Debug + Send + Sync;
    /// A move of a position; `Display` writes it in the game's move notation.
    type Move: Copy + Eq + Debug + Display + Send + Sync;

    /// The game's name: a registered game's [`GameKind::name`]
    /// (`TierGame::game_name`'s, for the same game).
    fn game_name(&self) -> &'static str;

    /// Which game of the registry this is; `None` for a game outside it.
    fn game_kind(&self) -> Option<GameKind> {
        self.game_name().parse().ok()
    }

    /// The game's name in a sentence: its registry title, else its name.
    fn game_title(&self) -> &'static str {
        self.game_kind().map_or(self.game_name(), GameKind::title)
    }

    /// The two sides, the one that moves first in the standard start first.
    fn players(&self) -> [Player; 2];

    /// The side to move in `pos`.
    fn to_move(&self, pos: &Self::Position) -> Player;

    /// Reads a position in the game's notation; the error says what is wrong with it.
    fn parse_position(&self, text: &str) -> Result<Self::Position, String>;

    /// Writes a position in the game's notation ([`Playable::parse_position`]'s inverse).
    fn format_position(&self, pos: &Self::Position) -> String;

    /// Reads a position that may carry a no-progress counter as one more
    /// field (RULES.md, "Draws": `... f 12`), with the counter (0 when
    /// absent). By default a game has no such rule and reads positions alone.
    fn parse_position_at_counter(&self, text: &str) -> Result<(Self::Position, u32), String> {
        Ok((self.parse_position(text)?, 0))
    }

    /// The board as text, with coordinates, for a terminal.
    fn board_picture(&self, pos: &Self::Position) -> String;

    /// The board as a drawing needs it: its points, lines and pieces ([`BoardShape`]).
    fn board_shape(&self) -> BoardShape;

    /// The rule switches of this variant, as `foxbase moves --json` writes
    /// them (`"rules"`): none by default.
    fn rule_switches(&self) -> serde_json::Value {
        serde_json::json!({})
    }

    /// Reads a move of `pos`; an illegal or malformed move is an error saying why.
    fn parse_move(&self, pos: &Self::Position, text: &str) -> Result<Self::Move, String>;

    /// Whether the game is over in `pos`, and how.
    fn status(&self, pos: &Self::Position) -> GameStatus;

    /// The no-progress rule's N in plies (RULES.md, "Draws"): the game is
    /// drawn once N plies in a row made no progress; 0 (the default): no
    /// such rule.
    fn no_progress(&self) -> u32 {
        0
    }

    /// Whether the move from `pos` to `child` is progress, which sets the
    /// no-progress counter back to 0. By default every move is.
    fn is_progress(&self, _pos: &Self::Position, _child: &Self::Position) -> bool {
        true
    }

    /// The no-progress counter after the move from `pos` (at `counter`) to
    /// `child`: 0 after progress, else one more.
    fn counter_after(&self, pos: &Self::Position, child: &Self::Position, counter: u32) -> u32 {
        if self.is_progress(pos, child) {
            0
        } else {
            counter + 1
        }
    }

    /// [`Playable::status`] at no-progress counter `counter`: a game that
    /// is not over otherwise is drawn once the counter reaches
    /// [`Playable::no_progress`].
    fn status_at(&self, pos: &Self::Position, counter: u32) -> GameStatus {
        match self.status(pos) {
            GameStatus::Ongoing if self.no_progress() > 0 && counter >= self.no_progress() => {
                GameStatus::Over { winner: None, reason: "no progress for the rule's plies" }
            }
            status => status,
        }
    }

    /// A position in the notation with its no-progress counter as a third
    /// field under the rule (`... f 12`), alone without it.
    fn format_position_at_counter(&self, pos: &Self::Position, counter: u32) -> String {
        match self.no_progress() {
            0 => self.format_position(pos),
            _ => format!("{} {counter}", self.format_position(pos)),
        }
    }

    /// Calls `f(move, position after it)` for each legal move of `pos`, in
    /// the game's generation order; nothing when the game is over.
    fn for_each_move(&self, pos: &Self::Position, f: impl FnMut(Self::Move, Self::Position));

    /// The position after `mv`, a legal move of `pos` (one of those
    /// [`Playable::for_each_move`] gives; another is a bug of the caller, which
    /// may panic or give a meaningless position).
    fn play(&self, pos: &Self::Position, mv: Self::Move) -> Self::Position;

    /// Every legal move of `pos` with the position after it.
    fn moves(&self, pos: &Self::Position) -> Vec<(Self::Move, Self::Position)> {
        let mut out = Vec::new();
        self.for_each_move(pos, |m, after| out.push((m, after)));
        out
    }

    /// The side named `name` ([`Player::name`]), if the game has it.
    fn player_named(&self, name: &str) -> Option<Player> {
        self.players().into_iter().find(|p| p.name == name)
    }
}

/// A tier game and the rules its positions are played by: what a command
/// that reads a game's tables needs of it.
pub trait WithRules: TierGame {
    type Rules: Playable<Position = Self::Position>;

    /// The rules of this game's variant.
    fn rules(&self) -> &Self::Rules;

    /// The variant's own fields for a page (`foxbase serve`'s
    /// `/api/variant`): its rule switches ([`Playable::rule_switches`]) by default.
    fn variant_fields(&self) -> serde_json::Value {
        self.rules().rule_switches()
    }

    /// The variant in a few words for people (`classic board`, `1 fox`,
    /// `pen target 3`); none by default.
    fn variant_words(&self) -> Vec<String> {
        Vec::new()
    }
}
