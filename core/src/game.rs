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

    /// The game a command plays without `--game`: the first game.
    pub const DEFAULT: GameKind = GameKind::Fox;

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

    /// The command-line flags that choose this game's variant (or the part
    /// of it a solve takes), as clap ids (`pen_target` for `--pen-target`):
    /// a command refuses them with another `--game`. A command has the
    /// ones it takes.
    pub const fn rule_flags(self) -> &'static [&'static str] {
        match self {
            GameKind::Fox => &["start", "geometry", "pen_target", "sheep_floor", "floor_winner", "no_progress"],
            GameKind::BaghChal => &["goats", "capture_target", "phase"],
            GameKind::TicTacToe => &[],
        }
    }

    /// The game's name before "flag" in a message ("a Fox Game flag"):
    /// its title without an article.
    pub fn flag_owner(self) -> &'static str {
        self.title().trim_start_matches("the ")
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

/// A variant's JSON text that is not one of its game's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} variant {variant}: {problem}", kind.title())]
pub struct BadVariant {
    pub kind: GameKind,
    pub variant: String,
    pub problem: String,
}

/// Evaluates `$body` with `$G` a local alias of the type of the game that
/// `$kind` (a [`GameKind`]) names: the one place a game's name becomes a
/// game's type. A macro, so that `$body` is checked against each game's
/// concrete type where it is written, with whatever traits that crate adds
/// (solving, publishing, the command line's flags). A new game is one arm
/// here; the match has no catch-all, so the compiler asks for it.
///
/// ```
/// use foxbase_core::game::GameKind;
/// use foxbase_core::tier::TierGame;
/// let size = foxbase_core::with_game_type!(GameKind::TicTacToe, G => std::mem::size_of::<G>());
/// assert_eq!(size, 0, "tic-tac-toe has one variant: its game is a unit struct");
/// // The body is checked against every game's type: here each one's `from_variant_json`.
/// let problem = foxbase_core::with_game_type!(GameKind::TicTacToe, G => G::from_variant_json("{}").err());
/// assert!(problem.unwrap().contains("one variant"));
/// ```
#[macro_export]
macro_rules! with_game_type {
    ($kind:expr, $G:ident => $body:expr) => {{
        let kind: $crate::game::GameKind = $kind;
        match kind {
            $crate::game::GameKind::Fox => {
                type $G = $crate::foxgame::FoxGame;
                $body
            }
            $crate::game::GameKind::BaghChal => {
                type $G = $crate::baghchal::BaghChal;
                $body
            }
            $crate::game::GameKind::TicTacToe => {
                type $G = $crate::tictactoe::TicTacToe;
                $body
            }
        }
    }};
}

/// Builds the game that `$kind` (a [`GameKind`]) names under `$variant`
/// (its `TierGame::variant_json` text) and evaluates `$body` with it
/// bound to `$game`, by value: `Ok(body)`, or the [`BadVariant`] the text
/// is ([`with_game_type`]'s game, [`TierGame::from_variant_json`]).
///
/// [`TierGame::from_variant_json`]: crate::tier::TierGame::from_variant_json
///
/// ```
/// use foxbase_core::game::GameKind;
/// use foxbase_core::tier::TierGame;
/// let v = foxbase_core::tictactoe::TicTacToe.variant_json();
/// let name = foxbase_core::with_game_kind!(GameKind::TicTacToe, &v, |game| game.game_name()).unwrap();
/// assert_eq!(name, "tictactoe");
/// assert!(foxbase_core::with_game_kind!(GameKind::Fox, "{}", |game| game.game_name()).is_err());
/// ```
#[macro_export]
macro_rules! with_game_kind {
    ($kind:expr, $variant:expr, |$game:ident| $body:expr) => {{
        let (kind, variant): ($crate::game::GameKind, &str) = ($kind, $variant);
        $crate::with_game_type!(kind, Game => $crate::game::game_of::<Game>(kind, variant).map(|$game| $body))
    }};
}

/// `G` under `variant` ([`TierGame::from_variant_json`]), or the
/// [`BadVariant`] naming `kind`: [`with_game_kind`]'s arms.
#[doc(hidden)]
pub fn game_of<G: crate::tier::TierGame>(kind: GameKind, variant: &str) -> Result<G, BadVariant> {
    G::from_variant_json(variant).map_err(|problem| bad_variant(kind, variant, problem))
}

fn bad_variant(kind: GameKind, variant: &str, problem: String) -> BadVariant {
    BadVariant { kind, variant: variant.to_string(), problem }
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
