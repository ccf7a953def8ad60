//! The rules commands: `show`, `moves`, `play`, `perft` and `probe-ref`
//! (the reference solver). None of them needs tables.

use super::output::{json, line, text};
use super::{position_arg, CommandResult, Failure};
use clap::Args;
use foxbase_core::notation::{board_picture, format_position, parse_move};
use foxbase_core::perft::{divide, perft};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::{Geometry, Position, Rules, Status, Variant};
use serde_json::json;

/// Rule switches shared by every command that plays moves.
#[derive(Args, Clone, Copy)]
pub struct RuleArgs {
    /// Board lines: `classic` (orthogonal lines plus the alternating diagonals) or `orthogonal` (no diagonals).
    #[arg(long, default_value = "classic", value_parser = parse_geometry)]
    pub geometry: Geometry,
    /// Pen target K (1..=9): K sheep in the pen win for the sheep, fewer than K sheep left win for the foxes.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=9))]
    pub pen_target: u32,
}

impl RuleArgs {
    pub fn rules(&self) -> Rules {
        Rules::new(self.geometry, self.pen_target)
    }
}

pub fn parse_geometry(s: &str) -> Result<Geometry, foxbase_core::ParseError> {
    s.parse()
}

#[derive(Args)]
pub struct ShowArgs {
    /// The position, in RULES.md notation (quote it).
    position: String,
    #[command(flatten)]
    rules: RuleArgs,
}

#[derive(Args)]
pub struct MovesArgs {
    /// The position, in RULES.md notation (quote it).
    position: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    rules: RuleArgs,
}

#[derive(Args)]
pub struct PlayArgs {
    /// The position, in RULES.md notation (quote it).
    position: String,
    /// The moves to play in order, e.g. c7-c6 or e5xc3.
    #[arg(required = true)]
    moves: Vec<String>,
    #[command(flatten)]
    rules: RuleArgs,
}

#[derive(Args)]
pub struct PerftArgs {
    /// Number of plies.
    #[arg(long)]
    depth: u32,
    /// Start position (default: the default start, foxes to move).
    #[arg(long, default_value = foxbase_core::variant::DEFAULT_START)]
    position: String,
    /// Also print the count below each first move.
    #[arg(long)]
    divide: bool,
    /// Print one JSON object: {"depth", "nodes", "position", "geometry", "pen_target"[, "divide"]}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    rules: RuleArgs,
}

#[derive(Args)]
pub struct ProbeRefArgs {
    /// The position to solve from, in RULES.md notation (quote it); it is also the variant's start.
    position: String,
    /// Refuse to explore more than this many positions.
    #[arg(long, default_value_t = 20_000_000)]
    max_positions: usize,
    /// Print one JSON object with a "value" field: "win", "draw" or "loss" for the side to move.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    rules: RuleArgs,
}

fn status_text(rules: &Rules, pos: &Position) -> String {
    match rules.status(pos) {
        Status::Ongoing => "game goes on".into(),
        Status::Over { winner, reason } => format!("game over: {winner} won ({})", reason.describe()),
    }
}

pub fn show(args: ShowArgs) -> CommandResult {
    let pos = position_arg(&args.position)?;
    text(&board_picture(&pos))?;
    line(status_text(&args.rules.rules(), &pos))
}

pub fn moves(args: MovesArgs) -> CommandResult {
    let pos = position_arg(&args.position)?;
    let rules = args.rules.rules();
    let moves = rules.moves(&pos);
    if args.json {
        return json(&foxbase_coordinator::views::moves_json(&rules, &pos));
    }
    line(format_args!("{} ({} legal moves; {})", format_position(&pos), moves.len(), status_text(&rules, &pos)))?;
    for m in moves {
        let child = rules.play(&pos, m);
        line(format_args!("{m:7} {}  {}", format_position(&child), status_text(&rules, &child)))?;
    }
    Ok(())
}

pub fn play(args: PlayArgs) -> CommandResult {
    let mut pos = position_arg(&args.position)?;
    let rules = args.rules.rules();
    for text in &args.moves {
        let m = parse_move(&rules, &pos, text).map_err(|e| Failure::bad_input(format!("bad move: {e}")))?;
        pos = rules.play(&pos, m);
    }
    line(format_position(&pos))?;
    line(status_text(&rules, &pos))
}

pub fn perft_command(args: PerftArgs) -> CommandResult {
    let pos = position_arg(&args.position)?;
    let r = args.rules.rules();
    let depth = args.depth;
    let (nodes, parts) = if args.divide && depth > 0 {
        let parts = divide(&r, &pos, depth);
        (parts.iter().map(|p| p.1).sum(), parts)
    } else {
        (perft(&r, &pos, depth), Vec::new())
    };
    if args.json {
        let mut out = json!({"depth": depth, "nodes": nodes, "position": format_position(&pos),
            "geometry": args.rules.geometry.name(), "pen_target": args.rules.pen_target});
        if args.divide {
            out["divide"] = parts.iter().map(|(m, n)| json!({"move": m.to_string(), "nodes": n})).collect();
        }
        return json(&out);
    }
    for (m, n) in &parts {
        line(format_args!("{m}: {n}"))?;
    }
    line(format_args!("perft({depth}) = {nodes}"))
}

pub fn probe_ref(args: ProbeRefArgs) -> CommandResult {
    let pos = position_arg(&args.position)?;
    let variant = Variant::new(args.rules.geometry, args.rules.pen_target, pos).map_err(Failure::bad_input)?;
    let sol = ReferenceSolution::solve(&variant, args.max_positions).map_err(Failure::bad_input)?;
    let value = sol.value(&pos).expect("the start is always solved");
    if args.json {
        return json(&json!({"position": format_position(&pos), "value": value.name(),
            "side_to_move": pos.side().name(), "variant": variant.to_json_value(),
            "positions": sol.len()}));
    }
    line(format_args!(
        "{}: {} for the {} to move ({} positions solved)",
        format_position(&pos),
        value,
        pos.side(),
        sol.len()
    ))
}
