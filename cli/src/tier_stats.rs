//! `foxbase stats` for the games read through the tier contract
//! (Bagh-Chal, tic-tac-toe), written once: per tier (in the manifest's
//! order, children first) its positions up to symmetry and their values
//! for the side to move, its longest win; the start's value and the
//! longest win of all. (The Fox Game's stats, by material and fox square,
//! are `foxbase_tables::stats`.)

use crate::command::{CommandResult, Failure};
use crate::output::{json, line};
use foxbase_core::notation::count;
use foxbase_core::play::{Playable, WithRules};
use foxbase_tables::tiered::{LocateChild, TierTables};
use foxbase_tables::Tablebase;
use serde_json::{json, Value as Json};

/// One tier's counts.
struct TierRow<P> {
    name: String,
    wins: u64,
    draws: u64,
    losses: u64,
    /// The longest win of the tier and a position with it (tables with plies).
    longest_win: Option<(u32, P)>,
}

impl<P> TierRow<P> {
    fn positions(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// Prints the stats of `tables`, as text or (`json_out`) one JSON object:
/// `{"game", ...the variant's fields, "positions", "start", "tiers": [{"tier",
/// "positions", "wins", "draws", "losses", "longest_win"}], "longest_win"}`.
pub fn tier_stats<G: LocateChild + WithRules>(tables: &TierTables<G>, json_out: bool) -> CommandResult {
    let (game, rules) = (&tables.game, tables.game.rules());
    let mut rows = Vec::new();
    for tier in tables.tiers() {
        let whole = tables.load(tier).map_err(Failure::failed)?;
        let n = whole.counts(game);
        let longest_win = n.longest_win.and_then(|(p, i)| Some((p, game.unrank(&whole.index, i)?)));
        rows.push(TierRow { name: game.tier_name(tier), wins: n.wins, draws: n.draws, losses: n.losses, longest_win });
    }
    let longest = rows.iter().filter_map(|r| r.longest_win).max_by_key(|(p, _)| *p);
    let start = game.initial_position();
    let start_outcome = match tables.check_position(&start) {
        Ok(()) => Some(Tablebase::outcome(tables, &start).map_err(Failure::failed)?),
        Err(_) => None,
    };
    let positions: u64 = rows.iter().map(TierRow::positions).sum();
    if json_out {
        let tiers: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({"tier": r.name, "positions": r.positions(), "wins": r.wins, "draws": r.draws,
                    "losses": r.losses, "longest_win": r.longest_win.map(|(p, _)| p)})
            })
            .collect();
        let start_json = start_outcome
            .map(|o| json!({"position": rules.format_position(&start), "value": o.value.name(), "plies": o.plies}));
        let longest = longest.map(|(p, pos)| json!({"plies": p, "position": rules.format_position(&pos)}));
        // The variant's own fields ({"goats", "capture_target"} for Bagh-Chal) beside the counts.
        let mut out = match serde_json::from_str::<Json>(&game.variant_json()) {
            Ok(Json::Object(fields)) => Json::Object(fields),
            _ => json!({}),
        };
        out["game"] = json!(game.game_name());
        out["positions"] = json!(positions);
        out["start"] = start_json.unwrap_or(Json::Null);
        out["tiers"] = json!(tiers);
        out["longest_win"] = longest.unwrap_or(Json::Null);
        return json(&out);
    }
    line(format_args!(
        "{}: {}, {positions} positions up to symmetry",
        game.about(),
        count(rows.len() as u64, "tier", "tiers")
    ))?;
    match start_outcome {
        Some(o) => line(format_args!(
            "start {}: {} for {} to move{}",
            rules.format_position(&start),
            o.value,
            rules.to_move(&start).team,
            crate::tables::who_wins(rules, &start, o, tables.distance())
        ))?,
        None => line(format_args!(
            "start {}: not in these tables (they hold {})",
            rules.format_position(&start),
            tables.held_names()
        ))?,
    }
    line(format_args!("positions by tier (one per symmetry class), values for the side to move:"))?;
    line(format_args!(
        "{:>7} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "tier", "positions", "wins", "draws", "losses", "longest win"
    ))?;
    for r in &rows {
        line(format_args!(
            "{:>7} {:>12} {:>12} {:>12} {:>12} {:>12}",
            r.name,
            r.positions(),
            r.wins,
            r.draws,
            r.losses,
            r.longest_win.map_or("-".to_string(), |(p, _)| p.to_string())
        ))?;
    }
    match longest {
        Some((p, pos)) => line(format_args!(
            "longest win: {}{}, e.g. {}",
            count(p, "ply", "plies"),
            crate::tables::to_zeroing(tables.distance()),
            rules.format_position(&pos)
        )),
        None if tables.has_plies() => line(format_args!("longest win: none (no position is won)")),
        None => line(format_args!("longest win: no plies in these tables (solved with --no-distance)")),
    }
}
