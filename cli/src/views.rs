//! The JSON objects that `foxbase ... --json` prints and `foxbase serve`
//! answers with, written once for both.

use foxbase_core::board::{Board, Point, PEN};
use foxbase_core::game::GameKind;
use foxbase_core::notation::format_position;
use foxbase_core::play::{GameStatus, Playable};
use foxbase_core::variant::floor_winner_name;
use foxbase_core::variant::Bound;
use foxbase_core::Variant;
use foxbase_tables::probe::Probe;
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
pub fn moves_json<P: Playable>(rules: &P, pos: &P::Position) -> Json {
    let list: Vec<_> = rules
        .moves(pos)
        .into_iter()
        .map(|(m, child)| {
            json!({"move": m.to_string(), "position": rules.format_position(&child),
                "status": status_json(&rules.status(&child))})
        })
        .collect();
    json!({"game": rules.game_kind().name(), "position": rules.format_position(pos),
        "side_to_move": rules.to_move(pos).name, "status": status_json(&rules.status(pos)), "moves": list})
}

/// `foxbase probe --json`: the position's value and plies for the side to
/// move, and every move's (for the mover, plies counted from the position).
pub fn probe_json<P: Playable>(rules: &P, p: &Probe<P::Position, P::Move>) -> Json {
    let list: Vec<_> = p
        .moves
        .iter()
        .map(|(m, o)| json!({"move": m.to_string(), "value": o.value.name(), "plies": o.plies}))
        .collect();
    json!({"position": rules.format_position(&p.position), "value": p.outcome.value.name(),
        "plies": p.outcome.plies, "moves": list})
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

/// The variant with what a board drawing needs: the points (file `x` 1..7
/// for a..g, rank `y` 1..7), the lines of its geometry, the pen.
pub fn variant_json(variant: &Variant) -> Json {
    let board = Board::get(variant.geometry);
    let points: Vec<_> = Point::all().map(|p| json!({"name": p.to_string(), "x": p.x(), "y": p.y()})).collect();
    let mut lines = Vec::new();
    for a in Point::all() {
        for b in Point::all() {
            if a.index() < b.index() && board.is_line(a, b) {
                lines.push(json!([a.to_string(), b.to_string()]));
            }
        }
    }
    let pen: Vec<_> = Point::iter(PEN).map(|p| p.to_string()).collect();
    json!({
        "game": GameKind::Fox.name(),
        "geometry": variant.geometry.name(),
        "pen_target": variant.pen_target,
        "sheep_floor": variant.sheep_floor,
        "floor_winner": floor_winner_name(variant.floor_winner),
        "bound": variant.bound().as_ref().map(bound_json),
        "foxes": variant.start.foxes().count_ones(),
        "start": format_position(&variant.start),
        "first_mover": variant.start.side().name(),
        "board": {"points": points, "lines": lines, "pen": pen},
    })
}
