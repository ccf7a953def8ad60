//! What every command shares: its result ([`Failure`], [`CommandResult`])
//! with the exit statuses it maps to, and the parsing of a position argument
//! and a thread count.

use foxbase_core::game::GameKind;
use foxbase_core::notation::parse_position;
use foxbase_core::Position;

/// Exit status for bad input (a malformed position, move, flag or file).
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit status for a command that failed (a solve, a check, the network).
pub const EXIT_FAILED: u8 = 1;

/// Why a command did not succeed.
#[derive(Debug)]
pub enum Failure {
    /// The input was wrong: exit status 2.
    BadInput(String),
    /// The work failed: exit status 1.
    Failed(String),
    /// Standard output was closed (e.g. `foxbase moves ... | head -3`): stop
    /// quietly with success, as Unix filters do.
    ClosedOutput,
}

impl Failure {
    pub fn bad_input(message: impl std::fmt::Display) -> Failure {
        Failure::BadInput(message.to_string())
    }

    pub fn failed(message: impl std::fmt::Display) -> Failure {
        Failure::Failed(message.to_string())
    }
}

impl From<std::io::Error> for Failure {
    /// Writing the output failed: a closed pipe ends quietly, anything else is a failure.
    fn from(e: std::io::Error) -> Failure {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::ClosedOutput
        } else {
            Failure::Failed(format!("writing the output: {e}"))
        }
    }
}

impl From<foxbase_tables::Error> for Failure {
    /// The exit status follows what went wrong, not the command: a question
    /// the tables cannot answer (a position they do not hold, bad survey
    /// counts, an output that exists) is bad input; a table that cannot be
    /// read or fails its checks is a failure. (Opening the directory a
    /// command names is checked apart, as bad input: `location::open_tables`.)
    fn from(e: foxbase_tables::Error) -> Failure {
        use foxbase_tables::Error as E;
        let bad_input = matches!(
            &e,
            E::TierNotHeld { .. }
                | E::TierNotAmong { .. }
                | E::TooManyPieces { .. }
                | E::BelowSheepFloor { .. }
                | E::NotGame { .. }
                | E::NotPublishable { .. }
                | E::OutputExists(_)
                | E::AlreadyPublished(_)
                | E::NotADirectoryName(_)
                | E::Query(_)
        );
        if bad_input {
            Failure::BadInput(e.to_string())
        } else {
            Failure::Failed(e.to_string())
        }
    }
}

impl From<foxbase_tables::TableError> for Failure {
    fn from(e: foxbase_tables::TableError) -> Failure {
        foxbase_tables::Error::from(e).into()
    }
}

/// What a command returns.
pub type CommandResult = Result<(), Failure>;

/// Parses a position argument; the error names the text and what is wrong.
pub fn position_arg(text: &str) -> Result<Position, Failure> {
    parse_position(text).map_err(|e| Failure::bad_input(format!("bad position '{text}': {e}")))
}

/// `--game`'s parser: a name of the registry ([`GameKind`]).
pub fn parse_game(s: &str) -> Result<GameKind, foxbase_core::game::UnknownGame> {
    s.parse()
}

/// Refuses a rule flag of another game than `game` ([`GameKind::rule_flags`],
/// the one list of which flag is whose): `has(id)` says whether this command
/// has the flag `id`, `given(id)` whether its command line gives it. The
/// message names the flag, its game, and the flags `--game GAME` takes in
/// this command.
pub fn refuse_other_games_flags(
    game: GameKind,
    has: impl Fn(&str) -> bool,
    given: impl Fn(&str) -> bool,
) -> Result<(), Failure> {
    let flag = |id: &str| format!("--{}", id.replace('_', "-"));
    for other in GameKind::ALL.into_iter().filter(|k| *k != game) {
        if let Some(id) = other.rule_flags().iter().find(|id| has(id) && given(id)) {
            let takes: Vec<String> = game.rule_flags().iter().filter(|id| has(id)).map(|id| flag(id)).collect();
            let takes = match takes.as_slice() {
                [] => "none".to_string(),
                [one] => one.clone(),
                [first @ .., last] => format!("{} and {last}", first.join(", ")),
            };
            return Err(Failure::bad_input(format!(
                "{} is a {} flag; --game {game} takes {takes}",
                flag(id),
                other.flag_owner()
            )));
        }
    }
    Ok(())
}

/// [`refuse_other_games_flags`] for a command's parsed arguments.
pub fn refuse_other_games_flags_in(matches: &clap::ArgMatches, game: GameKind) -> Result<(), Failure> {
    use clap::parser::ValueSource;
    refuse_other_games_flags(
        game,
        |id| matches.try_contains_id(id).is_ok(),
        |id| matches.try_contains_id(id).is_ok() && matches.value_source(id) == Some(ValueSource::CommandLine),
    )
}

/// The thread count to use: the flag, else every core.
pub fn threads_or_all(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
