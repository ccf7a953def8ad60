//! The registry of games: every game foxbase solves, by the name its tables
//! record. This is the one place a game's name is written; everything else
//! compares [`GameKind`]s.
//!
//! ```
//! use foxbase_core::game::GameKind;
//! assert_eq!("baghchal".parse::<GameKind>(), Ok(GameKind::BaghChal));
//! assert_eq!(GameKind::Fox.name(), "fox");
//! let err = "chess".parse::<GameKind>().unwrap_err().to_string();
//! assert_eq!(err, "unknown game 'chess' (the games: fox, baghchal, tictactoe)");
//! ```

use std::fmt;
use std::str::FromStr;

/// A game foxbase knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameKind {
    /// The Fox Game (halatafl): [`crate::foxgame::FoxGame`].
    Fox,
    /// Bagh-Chal, tigers and goats: [`crate::baghchal::BaghChal`].
    BaghChal,
    /// Tic-tac-toe: [`crate::tictactoe::TicTacToe`].
    TicTacToe,
}

impl GameKind {
    /// Every game, in the order `--help` lists them.
    pub const ALL: [GameKind; 3] = [GameKind::Fox, GameKind::BaghChal, GameKind::TicTacToe];

    /// The name recorded in tables and manifests and taken by `--game`.
    pub const fn name(self) -> &'static str {
        match self {
            GameKind::Fox => "fox",
            GameKind::BaghChal => "baghchal",
            GameKind::TicTacToe => "tictactoe",
        }
    }

    /// The game's name in a sentence ("tables of the Fox Game").
    pub const fn title(self) -> &'static str {
        match self {
            GameKind::Fox => "the Fox Game",
            GameKind::BaghChal => "Bagh-Chal",
            GameKind::TicTacToe => "tic-tac-toe",
        }
    }

    /// The names of [`GameKind::ALL`], comma-separated, for messages.
    pub fn names() -> String {
        GameKind::ALL.map(GameKind::name).join(", ")
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a game's ([`GameKind::name`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game '{0}' (the games: {names})", names = GameKind::names())]
pub struct UnknownGame(pub String);

impl FromStr for GameKind {
    type Err = UnknownGame;

    fn from_str(name: &str) -> Result<GameKind, UnknownGame> {
        GameKind::ALL.into_iter().find(|g| g.name() == name).ok_or_else(|| UnknownGame(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back() {
        for g in GameKind::ALL {
            assert_eq!(g.name().parse::<GameKind>(), Ok(g));
            assert_eq!(g.to_string(), g.name());
        }
        assert!("Fox".parse::<GameKind>().is_err(), "names are exact");
    }
}
