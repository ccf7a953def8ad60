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

/// A game's rules of play. See the module documentation.
pub trait Playable: Send + Sync {
    /// A position, including the side to move.
    type Position: Copy + Eq + Hash + Debug + Send + Sync;
    /// A move of a position; `Display` writes it in the game's move notation.
    type Move: Copy + Eq + Debug + Display + Send + Sync;

    /// Which game this is.
    fn game_kind(&self) -> GameKind;

    /// The two sides, the one that moves first in the standard start first.
    fn players(&self) -> [Player; 2];

    /// The side to move in `pos`.
    fn to_move(&self, pos: &Self::Position) -> Player;

    /// Reads a position in the game's notation; the error says what is wrong with it.
    fn parse_position(&self, text: &str) -> Result<Self::Position, String>;

    /// Writes a position in the game's notation ([`Playable::parse_position`]'s inverse).
    fn format_position(&self, pos: &Self::Position) -> String;

    /// The board as text, with coordinates, for a terminal.
    fn board_picture(&self, pos: &Self::Position) -> String;

    /// Reads a move of `pos`; an illegal or malformed move is an error saying why.
    fn parse_move(&self, pos: &Self::Position, text: &str) -> Result<Self::Move, String>;

    /// Whether the game is over in `pos`, and how.
    fn status(&self, pos: &Self::Position) -> GameStatus;

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
}
