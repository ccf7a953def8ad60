//! `export` (the dataset of optimal moves), written once for every game.

use crate::command::{CommandResult, Failure};
use crate::location::{self, TablesVisitor};

use clap::Args;
use foxbase_core::game::GameKind;
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tictactoe::{format_ttt, obvious, ttt_moves, TicTacToe, TttPosition};
use foxbase_core::tier::TierGame;
use foxbase_core::Outcome;
use foxbase_tables::engine::preference;
use foxbase_tables::manifest::Manifest;
use foxbase_tables::reader::PositionOf;
use foxbase_tables::Tablebase;
use foxbase_tables::TierTables;
use serde_json::json;
use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The game the tablebase in `dir` holds ([`crate::location::game_in`]).
pub fn game_of(dir: &Path) -> Result<GameKind, Failure> {
    crate::location::game_in("--tables", &foxbase_tables::source::DirLocation::new(dir))
}

/// The tic-tac-toe tablebase in `dir`.
pub fn open_ttt(dir: &Path) -> Result<TierTables<TicTacToe>, Failure> {
    TierTables::<TicTacToe>::open(dir).map_err(Failure::bad_input)
}

#[derive(Args)]
pub struct ExportArgs {
    /// Directory written by `foxbase solve` (any game; the Fox Game's may also be published).
    #[arg(long)]
    tables: PathBuf,
    /// Write the JSON Lines here (default: standard output): to a temporary file beside it, renamed
    /// into place when complete. A whole Fox Game tablebase is large (about 300 bytes a position).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Export this many positions drawn at random (the Fox Game and Bagh-Chal; default: all of them).
    #[arg(long)]
    sample: Option<u64>,
    /// Seed of --sample's draw.
    #[arg(long, default_value_t = 0, requires = "sample")]
    seed: u64,
    /// Tic-tac-toe: leave out the positions a person plays without thinking, tested in this order:
    /// one legal move (222 positions), a win in one (2,216 more), a block of the opponent's win in
    /// one (1,444 more); 638 of the 4,520 are left.
    #[arg(long)]
    skip_obvious: bool,
}

/// One line of the dataset: a position with a move, its value and plies,
/// and its optimal moves (those that keep the best value), the ones with
/// the best plies among them marked `best`.
fn export_line(position: String, o: Outcome, moves: &[(String, Outcome)]) -> serde_json::Value {
    let best_value = moves.iter().map(|(_, m)| preference(m).0).max();
    let keep: Vec<&(String, Outcome)> = moves.iter().filter(|(_, m)| Some(preference(m).0) == best_value).collect();
    let best = keep.iter().map(|(_, m)| preference(m)).max();
    let optimal: Vec<_> =
        keep.iter().map(|(mv, m)| json!({"move": mv, "plies": m.plies, "best": Some(preference(m)) == best})).collect();
    json!({"position": position, "value": o.value.name(), "plies": o.plies, "optimal": optimal})
}

/// `foxbase export`: JSON Lines, one per position that has a move: for
/// tic-tac-toe every such position reachable from the empty board,
/// symmetric copies included; for the other games one position of each
/// symmetry class of every tier (all, or `--sample N`).
pub fn export(args: ExportArgs) -> CommandResult {
    // To a temporary file renamed into place at the end, or to standard output.
    let temp = args
        .out
        .as_ref()
        .map(|p| p.with_file_name(format!(".{}.partial", p.file_name().unwrap_or_default().to_string_lossy())));
    let sink: Box<dyn Write> = match &temp {
        Some(t) => {
            Box::new(std::fs::File::create(t).map_err(|e| Failure::bad_input(format!("--out {}: {e}", t.display())))?)
        }
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = std::io::BufWriter::new(sink);
    let result = location::with_tables("--tables", &args.tables.to_string_lossy(), Export(&args, &mut out));
    let result = result.and_then(|()| out.flush().map_err(Failure::from));
    drop(out);
    match (&temp, &args.out) {
        (Some(t), Some(path)) => {
            if result.is_err() {
                let _ = std::fs::remove_file(t);
                return result;
            }
            std::fs::File::open(t)
                .and_then(|f| f.sync_all())
                .and_then(|()| foxbase_tables::durable::rename(t, path))
                .map_err(|e| Failure::failed(format!("{}: {e}", path.display())))
        }
        _ => result,
    }
}

/// Every tic-tac-toe position with a move reachable from the empty board
/// (symmetric copies included), breadth first from it: the 4,520 that
/// `export` writes; with `skip_obvious`, the 638 of them that are not
/// obvious to play ([`obvious`]).
pub fn ttt_positions_to_play(skip_obvious: bool) -> Vec<TttPosition> {
    let start = TicTacToe.initial_position();
    let (mut seen, mut queue) = (HashSet::from([start]), VecDeque::from([start]));
    let mut positions = Vec::new();
    while let Some(pos) = queue.pop_front() {
        let moves = ttt_moves(&pos);
        if moves.is_empty() {
            continue;
        }
        if !(skip_obvious && obvious(&pos).is_some()) {
            positions.push(pos);
        }
        for (_, after) in moves {
            if seen.insert(after) {
                queue.push_back(after);
            }
        }
    }
    positions
}

/// The lines of `export`, written to `out` as they are made.
struct Export<'a>(&'a ExportArgs, &'a mut dyn Write);

impl TablesVisitor for Export<'_> {
    fn visit<T: Tablebase>(self, tables: T) -> CommandResult {
        let Export(args, out) = self;
        let (game, rules) = (tables.game(), tables.game().rules());
        let tictactoe = game.game_kind() == TierGame::game_kind(&TicTacToe);
        if args.skip_obvious && !tictactoe {
            return Err(Failure::bad_input(format!(
                "--skip-obvious: obvious positions are defined for tic-tac-toe; these are tables of {}",
                game.game_title()
            )));
        }
        if args.sample.is_some() && tictactoe {
            return Err(Failure::bad_input("--sample: tic-tac-toe exports every position (4,520 of them)"));
        }
        let mut each = |pos: PositionOf<T>| -> CommandResult {
            let o = tables.outcome_in_bulk(&pos).map_err(Failure::failed)?;
            let mut named = Vec::new();
            for (m, after) in rules.moves(&pos) {
                let a = tables.outcome_in_bulk(&after).map_err(Failure::failed)?;
                named.push((m.to_string(), Outcome { value: a.value.for_mover(), plies: a.plies.map(|p| p + 1) }));
            }
            let line = export_line(rules.format_position(&pos), o, &named);
            writeln!(out, "{}", crate::views::with_bound(line, tables.bound()))?;
            Ok(())
        };
        if tictactoe {
            // The reachable positions, symmetric copies included: the data set people know.
            // (`T`'s positions are tic-tac-toe's here, read back from their notation.)
            for pos in ttt_positions_to_play(args.skip_obvious) {
                each(rules.parse_position(&format_ttt(&pos)).map_err(Failure::failed)?)?;
            }
            return Ok(());
        }
        let manifest = Manifest::read(&args.tables).map_err(Failure::bad_input)?;
        for_tier_positions(game, &manifest, args.sample, args.seed, &mut each)
    }
}

/// Calls `each` with the positions to export: every used slot's position
/// that is not over, tier by tier, or `sample` of them drawn at random.
fn for_tier_positions<G: WithRules>(
    game: &G,
    manifest: &Manifest,
    sample: Option<u64>,
    seed: u64,
    each: &mut dyn FnMut(G::Position) -> CommandResult,
) -> CommandResult {
    let rules = game.rules();
    let over = |p: &G::Position| rules.status(p).is_over();
    let tiers: Vec<(G::Tier, u64)> =
        manifest.tiers.iter().filter_map(|t| game.parse_tier_name(&t.name).map(|tier| (tier, t.slots))).collect();
    let total: u64 = tiers.iter().map(|t| t.1).sum();
    let Some(n) = sample else {
        for (tier, slots) in &tiers {
            let mut result = Ok(());
            game.for_each_slot(&game.tier_index(*tier), 0..*slots, |_, p| {
                if let Some(p) = p.filter(|p| result.is_ok() && !over(p)) {
                    result = each(p);
                }
            });
            result?;
        }
        return Ok(());
    };
    let mut rng = foxbase_tables::engine::SplitMix64(seed);
    let (mut chosen, mut seen) = (0u64, HashSet::new());
    let mut tries = 0u64;
    while chosen < n && tries < n.saturating_mul(100).max(1000) && total > 0 {
        tries += 1;
        let mut at = rng.next() % total;
        let &(tier, _) = tiers
            .iter()
            .find(|(_, slots)| {
                let here = at < *slots;
                if !here {
                    at -= slots;
                }
                here
            })
            .expect("a slot below the total");
        if let Some(p) = game.unrank(&game.tier_index(tier), at).filter(|p| !over(p)) {
            if seen.insert(p) {
                chosen += 1;
                each(p)?;
            }
        }
    }
    Ok(())
}
