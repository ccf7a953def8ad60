//! `foxbase stats`, written once for every game: the counts of
//! [`foxbase_tables::stats::stats`] (per tier in the manifest's order, the
//! longest win, and what the game counts besides), the start's value, as
//! text or one JSON object.

use crate::command::{CommandResult, Failure};
use crate::output::{json, line};
use foxbase_core::notation::count;
use foxbase_core::play::Playable;
use foxbase_tables::stats::CountsMore;
use foxbase_tables::{Tablebase, TierTables};
use serde_json::{json, Value as Json};

/// Prints the stats of `tables`, as text or (`json_out`) one JSON object:
/// `{"game", ...the variant's fields, "positions", "start", "tiers": [{"tier",
/// "positions", "wins", "draws", "losses", "longest_win"}], "longest_win",
/// "distance", ...what the game counts besides, "bound" where the values are bounds}`.
pub fn print_stats<G: CountsMore>(tables: &TierTables<G>, json_out: bool) -> CommandResult {
    let (game, rules) = (&tables.game, tables.game.rules());
    let s = foxbase_tables::stats::stats(tables).map_err(Failure::failed)?;
    let start = game.initial_position();
    let start_outcome = match Tablebase::check_position(tables, &start) {
        Ok(()) => Some(Tablebase::outcome(tables, &start).map_err(Failure::failed)?),
        Err(_) => None,
    };
    let positions = s.positions();
    if json_out {
        let tiers: Vec<_> = s
            .tiers
            .iter()
            .map(|r| {
                json!({"tier": r.name, "positions": r.counts.total(), "wins": r.counts.wins, "draws": r.counts.draws,
                    "losses": r.counts.losses, "longest_win": r.longest_win.map(|(p, _)| p)})
            })
            .collect();
        let start_json = start_outcome
            .map(|o| json!({"position": rules.format_position(&start), "value": o.value.name(), "plies": o.plies}));
        let longest = s.longest_win.map(|(p, pos)| json!({"plies": p, "position": rules.format_position(&pos)}));
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
        out["distance"] = json!(tables.distance().map(|d| d.name()));
        for (key, value) in game.more_json(&s.more) {
            out[key] = value;
        }
        return json(&crate::views::with_bound(out, game.bound()));
    }
    line(format_args!(
        "{}: {}, {positions} positions up to symmetry",
        game.about(),
        count(s.tiers.len() as u64, "tier", "tiers")
    ))?;
    crate::tables::bound_line(game.bound())?;
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
    if game.tier_rows() {
        line(format_args!("positions by tier (one per symmetry class), values for the side to move:"))?;
        line(format_args!(
            "{:>7} {:>12} {:>12} {:>12} {:>12} {:>12}",
            "tier", "positions", "wins", "draws", "losses", "longest win"
        ))?;
        for r in &s.tiers {
            line(format_args!(
                "{:>7} {:>12} {:>12} {:>12} {:>12} {:>12}",
                r.name,
                r.counts.total(),
                r.counts.wins,
                r.counts.draws,
                r.counts.losses,
                r.longest_win.map_or("-".to_string(), |(p, _)| p.to_string())
            ))?;
        }
    }
    for l in game.more_lines(&s.more) {
        line(format_args!("{l}"))?;
    }
    match s.longest_win {
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
