//! The JSON objects that `foxbase ... --json` prints and `foxbase serve`
//! answers with, written once for both.

use foxbase_core::board::{Board, Point, PEN};
use foxbase_core::game::GameKind;
use foxbase_core::notation::format_position;
use foxbase_core::rules::{Rules, Status};
use foxbase_core::variant::floor_winner_name;
use foxbase_core::{Outcome, Position, Variant};
use foxbase_tables::probe::Probe;
use serde_json::{json, Value as Json};

/// Whether the game is over in `pos`, and who won and why.
pub fn status_json(rules: &Rules, pos: &Position) -> Json {
    match rules.status(pos) {
        Status::Ongoing => json!({"over": false}),
        Status::Over { winner, reason } => {
            json!({"over": true, "winner": winner.name(), "reason": reason.describe()})
        }
    }
}

/// `foxbase moves --json`: every legal move with the position it leads to.
pub fn moves_json(rules: &Rules, pos: &Position) -> Json {
    let list: Vec<_> = rules
        .moves(pos)
        .into_iter()
        .map(|m| {
            let child = rules.play(pos, m);
            json!({"move": m.to_string(), "position": format_position(&child), "status": status_json(rules, &child)})
        })
        .collect();
    json!({"position": format_position(pos), "status": status_json(rules, pos), "moves": list})
}

/// An outcome for the side it belongs to: `{"value", "plies"}` fields.
fn outcome_fields(o: &Outcome) -> (&'static str, Option<u32>) {
    (o.value.name(), o.plies)
}

/// `foxbase probe --json`: the position's value and plies for the side to
/// move, and every move's (for the mover, plies counted from the position).
pub fn probe_json(pos: &Position, p: &Probe) -> Json {
    let list: Vec<_> = p
        .moves
        .iter()
        .map(|(m, o)| {
            let (value, plies) = outcome_fields(o);
            json!({"move": m.to_string(), "value": value, "plies": plies})
        })
        .collect();
    let (value, plies) = outcome_fields(&p.outcome);
    json!({"position": format_position(pos), "value": value, "plies": plies, "moves": list})
}

/// What a sheep floor makes of the values of `variant`'s tables:
/// `{"sheep_floor", "floor_winner", "note"}`, or `None` without a floor.
/// Every JSON view of a value of floored tables carries it as `"bound"`.
pub fn bound_json(variant: &Variant) -> Option<Json> {
    let note = variant.floor_note()?;
    Some(json!({"sheep_floor": variant.sheep_floor, "floor_winner": floor_winner_name(variant.floor_winner),
        "note": note}))
}

/// `view` (a JSON object) with [`bound_json`] as its `"bound"` field, where the variant has a floor.
pub fn with_bound(mut view: Json, variant: &Variant) -> Json {
    if let Some(bound) = bound_json(variant) {
        view["bound"] = bound;
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
        "bound": bound_json(variant),
        "foxes": variant.start.foxes().count_ones(),
        "start": format_position(&variant.start),
        "first_mover": variant.start.side().name(),
        "board": {"points": points, "lines": lines, "pen": pen},
    })
}
