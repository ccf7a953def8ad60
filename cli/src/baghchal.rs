//! Bagh-Chal tablebases through `verify` and `stats` (the game comes from
//! the manifest; the variant from its JSON, `{"goats":N,"capture_target":K}`).
//! Tables are read through the tier contract ([`TierTables`]), whole tiers
//! at a time. (`probe`, `versus`, `puzzles` and `export` are written once
//! for every game.)

use crate::command::{CommandResult, Failure};
use crate::output::{json, line};
use foxbase_core::baghchal::{format_position, BaghChal, BaghChalVariant, Position};
use foxbase_core::game::GameKind;
use foxbase_core::notation::count;
use foxbase_core::play::WithRules;
use foxbase_core::tier::TierGame;
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
            "start {}: {} for {} to move{}",
            format_position(&start),
            o.value,
            start.side().player().team,
            crate::tables::who_wins(game.rules(), &start, o)
        ))?,
        None => line(format_args!(
            "start {}: not in these tables (they hold {})",
            format_position(&start),
            tables.held_names()
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
