//! The JSON objects that `foxbase ... --json` prints and `foxbase serve`
//! answers with, written once for both.

use foxbase_core::play::{BoardShape, GameStatus, Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_core::variant::floor_winner_name;
use foxbase_core::variant::Bound;
use foxbase_tables::plies::Distance;
use foxbase_tables::probe::Probe;
use foxbase_tables::reader::{MoveOf, PositionOf};
use foxbase_tables::Tablebase;
use serde_json::{json, Value as Json};

/// Whether the game is over, and who won and why: `{"over": false}` or
/// `{"over": true, "winner": "fox"|...|null (a draw), "reason"}`.
pub fn status_json(status: &GameStatus) -> Json {
    match status {
        GameStatus::Ongoing => json!({"over": false}),
        GameStatus::Over { winner, reason } => {
            json!({"over": true, "winner": winner.map(|w| w.name), "reason": reason})
        }
    }
}

/// `foxbase moves --json`: every legal move with the position it leads to.
/// Under a no-progress rule positions carry their counters (`"position":
/// "... f 12"`, `pos` being at `counter`) and the statuses are at those
/// counters, a position drawn by the rule having no moves; without one the
/// counter is 0 and positions and statuses are the rules' alone.
pub fn moves_json<P: Playable>(rules: &P, pos: &P::Position, counter: u32) -> Json {
    let at = |p: &P::Position, c: u32| (rules.format_position_at_counter(p, c), rules.status_at(p, c));
    let (position, status) = at(pos, counter);
    let moves = if status.is_over() { Vec::new() } else { rules.moves(pos) };
    let list: Vec<_> = moves
        .into_iter()
        .map(|(m, child)| {
            let (position, status) = at(&child, rules.counter_after(pos, &child, counter));
            json!({"move": m.to_string(), "position": position, "status": status_json(&status)})
        })
        .collect();
    json!({"game": rules.game_name(), "position": position,
        "side_to_move": rules.to_move(pos).name, "status": status_json(&status), "moves": list})
}

/// `foxbase probe --json`: the position's value and plies for the side to
/// move, and every move's (for the mover, plies counted from the position),
/// with what the plies count (`"distance"`: `"dtm"`, `"dtz"` or null).
pub fn probe_json<P: Playable>(rules: &P, p: &Probe<P::Position, P::Move>, distance: Option<Distance>) -> Json {
    let list: Vec<_> = p
        .moves
        .iter()
        .map(|(m, o)| json!({"move": m.to_string(), "value": o.value.name(), "plies": o.plies}))
        .collect();
    json!({"position": rules.format_position(&p.position), "value": p.outcome.value.name(),
        "plies": p.outcome.plies, "distance": distance.map(|d| d.name()), "moves": list})
}

/// `foxbase probe --json` of `pos` at no-progress counter `counter` (0
/// for tables without the rule), as [`probe_json`] writes `probe` (its
/// [`probe_at`](foxbase_tables::probe::probe_at)), with the tables' bound
/// and, under the rule, `"no_progress": {"plies": N, "counter",
/// "value_at_counter_0", "plies_at_counter_0"}`, from which the value at
/// every counter follows (a win or loss while the counter is at most N
/// minus the plies, else a draw). Fails where the tables cannot be read.
pub fn probe_view<T: Tablebase>(
    tables: &T,
    probe: &Probe<PositionOf<T>, MoveOf<T>>,
    counter: u32,
) -> Result<Json, foxbase_tables::Error> {
    let mut view = probe_json(tables.game().rules(), probe, tables.distance());
    let n = tables.no_progress();
    if n > 0 {
        let at_zero = tables.outcome(&probe.position)?;
        view["no_progress"] = json!({"plies": n, "counter": counter,
            "value_at_counter_0": at_zero.value.name(), "plies_at_counter_0": at_zero.plies});
    }
    Ok(with_bound(view, tables.bound()))
}

/// A bound's JSON, `{"sheep_floor", "floor_winner", "note"}`: every JSON
/// view of a value of floored tables carries it as `"bound"`.
pub fn bound_json(bound: &Bound) -> Json {
    json!({"sheep_floor": bound.sheep_floor, "floor_winner": floor_winner_name(bound.floor_winner),
        "note": bound.note})
}

/// `view` (a JSON object) with [`bound_json`] as its `"bound"` field, where there is a bound.
pub fn with_bound(mut view: Json, bound: Option<Bound>) -> Json {
    if let Some(bound) = bound {
        view["bound"] = bound_json(&bound);
    }
    view
}

/// A board drawing's shape ([`BoardShape`]): `{"points": [{"name", "x",
/// "y"}], "lines": [[a, b]], "cells", "counts": [{"key", "words"}], "region":
/// NAME or null}`, and the region's points under its name (the Fox Game's `"pen"`).
pub fn board_json(shape: &BoardShape) -> Json {
    let points: Vec<_> = shape.points.iter().map(|p| json!({"name": p.name, "x": p.x, "y": p.y})).collect();
    let counts: Vec<_> = shape.counts.iter().map(|c| json!({"key": c.key, "words": c.words})).collect();
    let mut board = json!({"points": points, "lines": shape.lines, "cells": shape.cells, "counts": counts,
        "region": shape.region.as_ref().map(|r| r.name)});
    if let Some(region) = &shape.region {
        board[region.name] = json!(region.points);
    }
    board
}

/// What the board page needs of a tablebase (`foxbase serve`'s
/// `/api/variant`): the game (`"game"`, `"title"`), the start and its first
/// mover, the two sides with their pieces' letters (`"sides"`), the board
/// ([`board_json`]), the variant in words (`"words"`), the tables' layout,
/// plies and bound, and the variant's own fields ([`WithRules::variant_fields`]:
/// the Fox Game's geometry, pen target, sheep floor and foxes, Bagh-Chal's
/// goats and capture target).
pub fn variant_json<T: Tablebase>(tables: &T) -> Json {
    let game = tables.game();
    let rules = game.rules();
    let start = game.initial_position();
    let shape = rules.board_shape();
    let sides: Vec<_> = shape
        .sides
        .iter()
        .map(|s| {
            json!({"name": s.player.name, "team": s.player.team, "plural": s.player.plural, "one": s.one,
                "piece": s.piece.to_string(), "letter": s.letter.to_string()})
        })
        .collect();
    let mut v = game.variant_fields();
    if !v.is_object() {
        v = json!({});
    }
    for (key, value) in [
        ("game", json!(game.game_name())),
        ("title", json!(game.game_title())),
        ("start", json!(rules.format_position(&start))),
        ("first_mover", json!(rules.to_move(&start).name)),
        ("sides", json!(sides)),
        ("board", board_json(&shape)),
        ("words", json!(game.variant_words())),
        ("layout", json!(tables.layout().name())),
        ("plies", json!(tables.has_plies())),
        ("distance", json!(tables.distance().map(|d| d.name()))),
        ("bound", tables.bound().as_ref().map_or(Json::Null, bound_json)),
    ] {
        v[key] = value;
    }
    v
}
