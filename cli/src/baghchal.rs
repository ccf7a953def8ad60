//! Bagh-Chal tablebases through the commands that read tables: `probe`,
//! `verify` and `stats` (the game comes from the manifest, "baghchal";
//! the variant from its JSON, `{"goats":N,"capture_target":K}`). Tables
//! are read through the tier contract ([`TierTables`]): single values by
//! one block, whole tiers for `stats` and `verify`. Positions are written
//! as in [`foxbase_core::baghchal::notation`], with the variant's goat
//! total, and canonicalised before lookup; positions with the capture
//! target's goats captured (whose tiers have no table) are over.

use crate::command::{CommandResult, Failure};
use crate::output::{json, line};
use foxbase_core::baghchal::{
    format_position, parse_position_with_goats, BaghChal, BaghChalVariant, Move, ParseError, Position, Rules, Side,
    Status, MAX_CAPTURE_TARGET,
};
use foxbase_core::game::GameKind;
use foxbase_core::notation::count;
use foxbase_core::tier::TierGame;
use foxbase_core::{Outcome, Value};
use foxbase_tables::engine::best_first;
use foxbase_tables::manifest::Manifest;
use foxbase_tables::source::Location;
use foxbase_tables::tiered::TierTables;
use foxbase_tables::verify::{OnTier, Problem, Verified};
use serde_json::json;
use std::path::Path;

/// Why a Bagh-Chal command could not answer. Every message names the field,
/// position or tier at fault.
#[derive(Debug, thiserror::Error)]
pub enum BaghError {
    /// The manifest's variant is not `{"goats": N, "capture_target": K}` of a playable variant.
    #[error("{dir}: the manifest's variant '{variant}': {problem}")]
    Variant { dir: String, variant: String, problem: String },
    /// The position text is malformed, or its goats do not add up to the variant's.
    #[error("bad position '{text}' (these tables: {}, capture target {target}): {error}", count(*goats, "goat", "goats"))]
    Position {
        text: String,
        goats: u8,
        target: u8,
        #[source]
        error: ParseError,
    },
    /// More goats captured than the variant's capture target: no game gets there.
    #[error("{position}: {} captured, but in these tables the tigers win on capturing {target}", count(*captured, "goat", "goats"))]
    BeyondTarget { position: String, captured: u8, target: u8 },
    /// A position that is not over, in a tier the tablebase does not hold.
    #[error("{position} is in tier {tier}, which these tables do not hold (they hold {held})")]
    TierNotHeld { position: String, tier: String, held: String },
    /// The tablebase could not be opened (no manifest, another game, a bad tier).
    #[error("{0}")]
    Open(foxbase_tables::Error),
    /// A table could not be read while answering.
    #[error("{0}")]
    Read(foxbase_tables::Error),
}

impl From<BaghError> for Failure {
    /// A table that cannot be read is a failure (exit 1); everything else is bad input (exit 2).
    fn from(e: BaghError) -> Failure {
        match e {
            BaghError::Read(_) => Failure::failed(e),
            _ => Failure::bad_input(e),
        }
    }
}

/// The variant a manifest records: `{"goats": N, "capture_target": K}`.
pub fn variant_of(manifest: &Manifest, dir: &str) -> Result<BaghChalVariant, BaghError> {
    BaghChalVariant::from_json(&manifest.variant).map_err(|e| BaghError::Variant {
        dir: dir.to_string(),
        variant: manifest.variant.clone(),
        problem: e.to_string(),
    })
}

/// Opens the Bagh-Chal tablebase at `location` (its variant from its manifest).
pub fn open(location: Box<dyn Location>) -> Result<TierTables<BaghChal>, BaghError> {
    let manifest = Manifest::read_from(location.as_ref()).map_err(|e| BaghError::Open(e.into()))?;
    let variant = variant_of(&manifest, &location.describe())?;
    TierTables::open_at(BaghChal::new(variant), location).map_err(BaghError::Open)
}

/// Move generation: the largest capture target (the variant's is applied by
/// [`TierGame::primitive`], which is asked first).
fn rules() -> Rules {
    Rules::new(MAX_CAPTURE_TARGET).expect("the largest capture target is a reading")
}

/// Parses `text` as a position of `tables`' variant and checks that the
/// tables can value it: its captures within the target, and its tier held
/// unless it is over.
pub fn position_in(tables: &TierTables<BaghChal>, text: &str) -> Result<Position, BaghError> {
    let v = tables.game.variant();
    let pos = parse_position_with_goats(text, v.goats()).map_err(|error| BaghError::Position {
        text: text.to_string(),
        goats: v.goats(),
        target: v.capture_target(),
        error,
    })?;
    if pos.captured() > v.capture_target() {
        return Err(BaghError::BeyondTarget {
            position: format_position(&pos),
            captured: pos.captured(),
            target: v.capture_target(),
        });
    }
    let tier = tables.game.tier_of(&pos);
    if tables.game_over(&pos).is_none() && !tables.holds(tier) {
        return Err(BaghError::TierNotHeld {
            position: format_position(&pos),
            tier: tables.game.tier_name(tier),
            held: held_tiers(tables),
        });
    }
    Ok(pos)
}

/// The held tiers, for messages: "p0-c0, p0-c1" (the first ten, then how many more).
fn held_tiers(tables: &TierTables<BaghChal>) -> String {
    let names: Vec<&str> = tables.manifest.tiers.iter().map(|t| t.name.as_str()).collect();
    match names.len() {
        0 => "no tier".to_string(),
        n if n <= 10 => format!("tiers {}", names.join(", ")),
        n => format!("tiers {} and {} more", names[..10].join(", "), n - 10),
    }
}

/// A probed position: its outcome for the side to move, and every legal
/// move with its outcome for the mover (plies counted from the position),
/// best first: the fastest wins, the draws, the slowest losses (ties in
/// move generation order). A position that is over has no moves.
pub struct Probed {
    pub outcome: Outcome,
    pub over: bool,
    pub moves: Vec<(Move, Outcome)>,
}

/// Probes `pos` (checked by [`position_in`]) in `tables`.
pub fn probe(tables: &TierTables<BaghChal>, pos: &Position) -> Result<Probed, BaghError> {
    let outcome = tables.outcome(pos).map_err(BaghError::Read)?;
    let over = tables.game_over(pos).is_some();
    let mut moves = Vec::new();
    if !over {
        let rules = rules();
        for m in rules.moves(pos) {
            moves.push((m, tables.move_outcome(&rules.play(pos, m)).map_err(BaghError::Read)?));
        }
        best_first(&mut moves);
    }
    Ok(Probed { outcome, over, moves })
}

/// ": the tigers win in 12 plies" for an outcome of `side` (to move, or
/// making a move); nothing for a draw or without plies.
pub fn who_wins(o: Outcome, side: Side) -> String {
    let winner = match o.value {
        Value::Win => side,
        Value::Loss => side.other(),
        Value::Draw => return String::new(),
    };
    match o.plies {
        Some(n) => format!(": the {} win in {}", winner.plural(), count(n, "ply", "plies")),
        None => String::new(),
    }
}

/// Why a position that is over is over, under the variant's capture target.
fn end_reason(variant: BaghChalVariant, pos: &Position) -> String {
    if pos.captured() >= variant.capture_target() {
        return format!("the tigers captured {}", count(pos.captured(), "goat", "goats"));
    }
    match rules().status(pos) {
        Status::Over { reason, .. } => reason.describe().to_string(),
        Status::Ongoing => "over".to_string(),
    }
}

/// `foxbase probe` on a Bagh-Chal tablebase at `location`.
pub fn probe_command(location: Box<dyn Location>, text: &str, json_out: bool) -> CommandResult {
    let tables = open(location)?;
    let pos = position_in(&tables, text)?;
    let p = probe(&tables, &pos)?;
    if json_out {
        let list: Vec<_> = p
            .moves
            .iter()
            .map(|(m, o)| json!({"move": m.to_string(), "value": o.value.name(), "plies": o.plies}))
            .collect();
        return json(&json!({"position": format_position(&pos), "value": p.outcome.value.name(),
            "plies": p.outcome.plies, "moves": list}));
    }
    let side = pos.side();
    line(format_args!(
        "{}: {} for the {} to move{}",
        format_position(&pos),
        p.outcome.value,
        side.plural(),
        who_wins(p.outcome, side)
    ))?;
    if p.over {
        return line(format_args!("  the game is over: {}", end_reason(tables.game.variant(), &pos)));
    }
    for (m, o) in p.moves {
        line(format_args!("  {:7} {} for the {}{}", m.to_string(), o.value, side.plural(), who_wins(o, side)))?;
    }
    Ok(())
}

/// `foxbase verify` on the Bagh-Chal tablebase in `dir`: files and
/// checksums, then every position's value and plies against its children
/// after one move ([`foxbase_tables::verify::verify_game`]).
pub fn verify(dir: &Path, on_tier: OnTier) -> Result<Verified, Problem> {
    let problem =
        |message: String| Problem { file: Some("manifest.json".into()), block: None, position: None, message };
    let manifest = Manifest::read(dir).map_err(|e| problem(e.to_string()))?;
    let variant = variant_of(&manifest, &dir.display().to_string()).map_err(|e| problem(e.to_string()))?;
    foxbase_tables::verify::verify_game(BaghChal::new(variant), dir, on_tier, &format_position)
}

/// One tier's counts for `stats`.
struct TierRow {
    name: String,
    to_place: u8,
    captured: u8,
    wins: u64,
    draws: u64,
    losses: u64,
    /// The longest win of the tier and a position with it (tables with plies).
    longest_win: Option<(u32, Position)>,
}

/// `foxbase stats` on the Bagh-Chal tablebase in `dir`: per tier (in the
/// manifest's order, children first) its positions up to symmetry and
/// their values for the side to move, its longest win, and the start's value.
pub fn stats(dir: &Path, json_out: bool) -> CommandResult {
    let tables = open(Box::new(foxbase_tables::source::DirLocation::new(dir)))?;
    let game = &tables.game;
    let mut rows = Vec::new();
    for tier in tables.tiers() {
        let whole = tables.load(tier).map_err(BaghError::Read)?;
        let n = whole.counts(game);
        let longest_win = n.longest_win.and_then(|(p, i)| Some((p, game.unrank(&whole.index, i)?)));
        let (wins, draws, losses) = (n.wins, n.draws, n.losses);
        rows.push(TierRow {
            name: game.tier_name(tier),
            to_place: tier.to_place,
            captured: tier.captured,
            wins,
            draws,
            losses,
            longest_win,
        });
    }
    let longest = rows.iter().filter_map(|r| r.longest_win).max_by_key(|(p, _)| *p);
    let start = game.initial_position();
    let start_outcome =
        if tables.holds(game.tier_of(&start)) { Some(tables.outcome(&start).map_err(BaghError::Read)?) } else { None };
    let v = game.variant();
    let positions: u64 = rows.iter().map(|r| r.wins + r.draws + r.losses).sum();
    if json_out {
        let tiers: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({"tier": r.name, "to_place": r.to_place, "captured": r.captured,
                    "positions": r.wins + r.draws + r.losses, "wins": r.wins, "draws": r.draws, "losses": r.losses,
                    "longest_win": r.longest_win.map(|(p, _)| p)})
            })
            .collect();
        let start_json = start_outcome
            .map(|o| json!({"position": format_position(&start), "value": o.value.name(), "plies": o.plies}));
        let longest = longest.map(|(p, pos)| json!({"plies": p, "position": format_position(&pos)}));
        return json(
            &json!({"game": GameKind::BaghChal.name(), "goats": v.goats(), "capture_target": v.capture_target(),
            "positions": positions, "start": start_json, "tiers": tiers, "longest_win": longest}),
        );
    }
    line(format_args!(
        "Bagh-Chal, {} goats, capture target {}: {} tiers, {positions} positions up to symmetry",
        v.goats(),
        v.capture_target(),
        rows.len()
    ))?;
    match start_outcome {
        Some(o) => line(format_args!(
            "start {}: {} for the {} to move{}",
            format_position(&start),
            o.value,
            start.side().plural(),
            who_wins(o, start.side())
        ))?,
        None => line(format_args!(
            "start {}: not in these tables (they hold {})",
            format_position(&start),
            held_tiers(&tables)
        ))?,
    }
    line(format_args!("positions by tier (one per symmetry class), values for the side to move:"))?;
    line(format_args!(
        "{:>7} {:>8} {:>8} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "tier", "to place", "captured", "positions", "wins", "draws", "losses", "longest win"
    ))?;
    for r in &rows {
        line(format_args!(
            "{:>7} {:>8} {:>8} {:>12} {:>12} {:>12} {:>12} {:>12}",
            r.name,
            r.to_place,
            r.captured,
            r.wins + r.draws + r.losses,
            r.wins,
            r.draws,
            r.losses,
            r.longest_win.map_or("-".to_string(), |(p, _)| p.to_string())
        ))?;
    }
    match longest {
        Some((p, pos)) => {
            line(format_args!("longest win: {}, e.g. {}", count(p, "ply", "plies"), format_position(&pos)))
        }
        None if tables.has_plies() => line(format_args!("longest win: none (no position is won)")),
        None => line(format_args!("longest win: no plies in these tables (solved with --no-distance)")),
    }
}
