//! `foxbase check-strategy`: a strategy's moves against the tables. The
//! strategy is a file of (position, move) pairs or a program that answers
//! positions with moves; every move that gives up value (a win thrown to a
//! draw or a loss, a draw to a loss) is reported with the moves that keep
//! it. Tic-tac-toe tablebases: the positions asked of a program are those
//! `export` writes (all 4,520, or with `--skip-obvious` the 638 that take
//! thought).

use crate::command::{CommandResult, Failure};
use crate::games::{open_ttt, ttt_positions_to_play};
use crate::output::{json, line};
use clap::Args;
use foxbase_core::play::Playable;
use foxbase_core::tictactoe::{format_ttt, parse_ttt, TicTacToe, TttPosition};
use foxbase_core::{Outcome, Value};
use foxbase_tables::engine::preference;
use foxbase_tables::Tablebase;
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

#[derive(Args)]
#[command(group = clap::ArgGroup::new("strategy").required(true).args(["moves", "program"]))]
pub struct CheckStrategyArgs {
    /// Directory written by `foxbase solve --game tictactoe`.
    #[arg(long)]
    tables: PathBuf,
    /// The strategy as a file of moves, one per line: a position, a space and the move played there
    /// (`X../.O./... x c1`); blank lines and lines starting with '#' are skipped.
    #[arg(long)]
    moves: Option<PathBuf>,
    /// The strategy as a program, run once with `sh -c`: foxbase writes one position per line to
    /// its standard input and reads the move it plays there, one line each, from its standard output.
    #[arg(long)]
    program: Option<String>,
    /// Ask the program only the positions that take thought (`export --skip-obvious`: 638).
    #[arg(long, requires = "program")]
    skip_obvious: bool,
    /// List at most this many mistakes (0: counts only).
    #[arg(long, default_value_t = 50)]
    list: usize,
    /// Print one JSON object: {"checked", "mistakes", "gave_up_win", "gave_up_draw", "listed": [...]}.
    #[arg(long)]
    json: bool,
}

/// A move that gives up value.
struct Mistake {
    position: TttPosition,
    played: String,
    value: Outcome,
    after: Outcome,
    keep: Vec<String>,
}

pub fn check_strategy(args: CheckStrategyArgs) -> CommandResult {
    let game = crate::games::game_of(&args.tables)?;
    if Some(game) != foxbase_core::tier::TierGame::game_kind(&TicTacToe) {
        return Err(Failure::bad_input(format!(
            "--tables {}: tables of {}; check-strategy takes tic-tac-toe's",
            args.tables.display(),
            game.title()
        )));
    }
    let tables = open_ttt(&args.tables)?;
    let pairs = match (&args.moves, &args.program) {
        (Some(file), _) => read_moves(file)?,
        (None, Some(program)) => ask_program(program, &ttt_positions_to_play(args.skip_obvious))?,
        (None, None) => unreachable!("clap requires one of --moves and --program"),
    };
    let mut mistakes = Vec::new();
    for (where_, position, played) in &pairs {
        let moves = tables.move_outcomes(position)?;
        if moves.is_empty() {
            return Err(Failure::bad_input(format!(
                "{where_}: {} is over: there is no move to play",
                format_ttt(position)
            )));
        }
        let cell = TicTacToe.parse_move(position, played).map_err(|e| {
            Failure::bad_input(format!("{where_}: '{played}' is not a legal move of {}: {e}", format_ttt(position)))
        })?;
        let value = tables.outcome(position)?;
        let after = moves.iter().find(|(m, _)| *m == cell).expect("a legal move").1;
        // The value alone (the first part of the engine's preference): a slower win is no mistake.
        if preference(&after).0 < preference(&value).0 {
            let keep = moves.iter().filter(|(_, o)| o.value == value.value).map(|(m, _)| m.to_string()).collect();
            mistakes.push(Mistake { position: *position, played: cell.to_string(), value, after, keep });
        }
    }
    let gave_up_win = mistakes.iter().filter(|m| m.value.value == Value::Win).count();
    let gave_up_draw = mistakes.len() - gave_up_win;
    if args.json {
        let listed: Vec<_> = mistakes
            .iter()
            .take(args.list)
            .map(|m| {
                json!({"position": format_ttt(&m.position), "value": m.value.value.name(), "move": m.played,
                    "move_value": m.after.value.name(), "keep": m.keep})
            })
            .collect();
        return json(&json!({"checked": pairs.len(), "mistakes": mistakes.len(), "gave_up_win": gave_up_win,
            "gave_up_draw": gave_up_draw, "listed": listed}));
    }
    for m in mistakes.iter().take(args.list) {
        line(format_args!(
            "{}: {} for the side to move, but {} is {}; {} keep the {}",
            format_ttt(&m.position),
            m.value.value,
            m.played,
            m.after.value,
            m.keep.join(", "),
            m.value.value
        ))?;
    }
    line(format_args!(
        "{} {} checked: {} {} ({} giving up a win, {} giving up a draw)",
        pairs.len(),
        if pairs.len() == 1 { "position" } else { "positions" },
        mistakes.len(),
        if mistakes.len() == 1 { "mistake" } else { "mistakes" },
        gave_up_win,
        gave_up_draw
    ))
}

/// The (where, position, move) triples of a moves file; `where` is `FILE:LINE`.
fn read_moves(file: &std::path::Path) -> Result<Vec<(String, TttPosition, String)>, Failure> {
    let text =
        std::fs::read_to_string(file).map_err(|e| Failure::bad_input(format!("--moves {}: {e}", file.display())))?;
    let mut pairs = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let where_ = format!("{}:{}", file.display(), n + 1);
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let (position, played) = l
            .rsplit_once(char::is_whitespace)
            .ok_or_else(|| Failure::bad_input(format!("{where_}: '{l}' is not a position and a move")))?;
        let position = parse_ttt(position).map_err(|e| Failure::bad_input(format!("{where_}: {e}")))?;
        pairs.push((where_, position, played.trim().to_string()));
    }
    Ok(pairs)
}

/// Asks `program` (run with `sh -c`) the move of each of `positions`, one
/// line each way; the triples as [`read_moves`] gives them.
fn ask_program(program: &str, positions: &[TttPosition]) -> Result<Vec<(String, TttPosition, String)>, Failure> {
    let failed = |what: &str, e: &dyn std::fmt::Display| Failure::failed(format!("--program '{program}': {what}: {e}"));
    let mut child = Command::new("sh")
        .args(["-c", program])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| failed("starting it", &e))?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut pairs = Vec::new();
    for (n, pos) in positions.iter().enumerate() {
        writeln!(stdin, "{}", format_ttt(pos)).and_then(|()| stdin.flush()).map_err(|e| failed("writing", &e))?;
        let mut answer = String::new();
        if stdout.read_line(&mut answer).map_err(|e| failed("reading", &e))? == 0 {
            let _ = child.kill();
            return Err(Failure::failed(format!(
                "--program '{program}': its output ended after {n} answers, at {}",
                format_ttt(pos)
            )));
        }
        pairs.push((format!("the answer to {}", format_ttt(pos)), *pos, answer.trim().to_string()));
    }
    drop(stdin);
    let status = child.wait().map_err(|e| failed("waiting for it", &e))?;
    if !status.success() {
        return Err(Failure::failed(format!("--program '{program}': exited with {status}")));
    }
    Ok(pairs)
}
