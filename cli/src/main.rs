//! `foxbase`: the command-line tool. Parses the command line and dispatches
//! to the command modules, one per group, each owning its commands'
//! argument structs and running them: [`rules`] (show, moves, play, perft,
//! probe-ref), [`solve`], [`tables`] (probe, verify, publish, survey,
//! stats, serve), [`tier_stats`] (how `stats` prints), [`perfect`]
//! (versus, puzzles), [`games`] (export), [`strategy`] (check-strategy)
//! and [`cluster`] (coordinator, worker, status). Each is written once for
//! every game: [`game_commands`] is what the command line knows of each
//! game (its flags, its reports), reached through the registry's dispatch.
//! [`output`] is where text, JSON and progress reach the terminal;
//! [`serve`] and [`views`] are the board in a browser and the JSON views
//! it shares with the commands; [`command`] is what every command returns.

mod cluster;
mod command;
mod game_commands;
mod games;
mod location;
mod output;
mod perfect;
mod rules;
mod serve;
mod solve;
mod strategy;
mod tables;
mod tier_stats;
mod views;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use command::{Failure, EXIT_BAD_INPUT, EXIT_FAILED};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "foxbase",
    version,
    about = "Strongly solve the Fox Game (halatafl), Bagh-Chal and tic-tac-toe by retrograde analysis, and probe the results"
)]
#[command(long_about = "Strongly solve the Fox Game (halatafl), Bagh-Chal and tic-tac-toe by retrograde analysis, \
and probe the results. The game is --game fox (the default), baghchal or tictactoe; commands that read tables take \
the game from them.\n\n\
Positions, one argument each (quote them in the shell):\n  \
the Fox Game, as in RULES.md: ranks 7 down to 1 separated by '/', each rank's points left to right as F (fox), \
S (sheep) or . (empty), then the side to move, f or s:\n    \
foxbase show 'F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f'\n  \
Bagh-Chal: ranks 5 down to 1, T (tiger), G (goat) or . (empty), then the side to move (g or t), the goats still \
to place and the goats captured, which add up with the goats on the board to --goats (20 by default):\n    \
foxbase show --game baghchal 'T...T/...../...../...../T...T g 20 0'\n  \
tic-tac-toe: rows top to bottom, X, O or . (empty), then the side to move, x or o; squares are a..c from the \
left and 1..3 from the bottom (b2 is the centre):\n    \
foxbase probe 'X../.O./... x' --tables tictactoe-tables\n\n\
Bad input exits with status 2 and a message naming the problem; a command that fails (a table that does not \
read or check, the network) exits with status 1.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print a position as a board with coordinates.
    Show(rules::ShowArgs),
    /// List the legal moves of a position and the positions they lead to.
    Moves(rules::MovesArgs),
    /// Play a move and print the resulting position.
    Play(rules::PlayArgs),
    /// Count move sequences of a given length (a check on move generation).
    Perft(rules::PerftArgs),
    /// Solve a variant completely, tier by tier, and write its tables and manifest.
    Solve(solve::SolveArgs),
    /// The value of a position and of each of its moves, from solved or published tables.
    Probe(tables::ProbeArgs),
    /// Serve the board in a browser: explore the tables and play against perfect play.
    Serve(tables::ServeArgs),
    /// Check a table directory: manifest, tier index, file and block checksums, and every value against its children.
    Verify(tables::VerifyArgs),
    /// Run the coordinator of a distributed solve: hand tiers to `foxbase worker`s over gRPC until done.
    Coordinator(cluster::CoordinatorArgs),
    /// Run a worker of a distributed solve: lease tiers from a coordinator, solve them, upload the tables.
    Worker(cluster::WorkerArgs),
    /// Show a running coordinator's progress: tiers done/running/pending, positions/s, ETA, workers and leases.
    Status(cluster::StatusArgs),
    /// Turn the tables a solve wrote into the distributable tablebase in a new directory: checked,
    /// compressed harder, checked value by value; the Fox Game's with fox-to-move values left out
    /// (derived by one fox move when read), Bagh-Chal's and tic-tac-toe's with every position kept.
    Publish(tables::PublishArgs),
    /// Value every arrangement of N sheep on ranks 1..4 against the tables' foxes, from solved or published tables.
    Survey(tables::SurveyArgs),
    /// Play against perfect play from the tables: your moves from standard input, the engine's answers.
    Versus(perfect::VersusArgs),
    /// Positions reachable from the start where exactly one move keeps the win (or the draw), with solutions.
    Puzzles(perfect::PuzzlesArgs),
    /// The dataset of optimal moves: JSON Lines, one per position with a move (value, plies, optimal moves).
    Export(games::ExportArgs),
    /// Check a strategy against tic-tac-toe tables: every move (from a file, or a program's
    /// answers) that gives up a win or a draw, with the moves that keep it.
    CheckStrategy(strategy::CheckStrategyArgs),
    /// Counts of a tablebase: values by material and side, the longest win, values per fox square.
    Stats(tables::StatsArgs),
    /// Solve a small variant with the simple reference solver and print the value of a position.
    ProbeRef(rules::ProbeRefArgs),
}

/// Has the allocator map buffers of 1 MiB and more (a tier's planes and
/// plies, the child tables) apart and give them back to the system when
/// they are freed. glibc otherwise raises that threshold after the first
/// such buffer is freed and keeps later ones in its heap, where freed
/// memory stays resident: a one-worker DTZ solve of two foxes against nine
/// sheep peaked 1.5 bytes a slot of its largest tier above the values-only
/// solve by RSS with the default, 1.0 with this, as its allocations do
/// (docs/results.md, "Distances (DTZ and DTM)").
fn return_large_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it is called before
    // any other thread exists, and glibc takes its own lock for it anyway.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

fn main() -> ExitCode {
    return_large_buffers();
    // Whole published tables get their fox-to-move values from the plane kernel.
    foxbase_tables::fox_tables::install_fox_side_deriver(&foxbase_worker::plane_kernel::PlaneFoxSide);
    foxbase_tables::fox_tables::install_fox_tier_check(&foxbase_worker::plane_kernel::PlaneCheck);
    // The matches too, so a command can tell a flag given from a default.
    let parsed = Cli::command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let (cli, matches) = match parsed {
        Ok(both) => both,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_BAD_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let sub = |name: &str| matches.subcommand_matches(name).cloned().unwrap_or_default();
    let result = match cli.command {
        Command::Show(a) => rules::show(a),
        Command::Moves(a) => rules::moves(a),
        Command::Play(a) => rules::play(a),
        Command::Perft(a) => rules::perft_command(a),
        Command::ProbeRef(a) => rules::probe_ref(a),
        Command::Solve(a) => solve::solve(a, &sub("solve")),
        Command::Probe(a) => tables::probe_command(a),
        Command::Serve(a) => tables::serve(a),
        Command::Verify(a) => tables::verify(a),
        Command::Publish(a) => tables::publish(a),
        Command::Survey(a) => tables::survey(a),
        Command::Versus(a) => perfect::versus(a),
        Command::Puzzles(a) => perfect::puzzles(a),
        Command::Stats(a) => tables::stats(a),
        Command::Export(a) => games::export(a),
        Command::CheckStrategy(a) => strategy::check_strategy(a),
        Command::Coordinator(a) => cluster::coordinator(a, &sub("coordinator")),
        Command::Worker(a) => cluster::worker(a),
        Command::Status(a) => cluster::status(a),
    };
    match result {
        Ok(()) | Err(Failure::ClosedOutput) => ExitCode::SUCCESS,
        Err(Failure::BadInput(message)) => {
            eprintln!("foxbase: {message}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
        Err(Failure::Failed(message)) => {
            eprintln!("foxbase: {message}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}
