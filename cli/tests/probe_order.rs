//! `probe` lists a position's moves best first for every game, the same in
//! text and in JSON: wins by fewest plies, then draws, then losses by most
//! plies; equal moves in the game's move generation order. The game comes
//! from the tier index, not the manifest.

mod common;

use common::{foxbase, TempDir};
use serde_json::Value as Json;

fn ok(args: &[&str]) -> String {
    let out = foxbase().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// (value rank, plies) for the mover: greater is better.
fn preference(m: &Json) -> (u8, i64) {
    let plies = m["plies"].as_i64().unwrap_or(0);
    match m["value"].as_str().unwrap() {
        "win" => (2, -plies),
        "draw" => (1, 0),
        "loss" => (0, plies),
        other => panic!("{other}"),
    }
}

/// Probes `position` in `tables` as JSON and as text, checks that the moves
/// come best first in both and in the same order; returns their values.
fn probed(tables: &str, position: &str) -> Vec<String> {
    let j: Json = serde_json::from_str(&ok(&["probe", position, "--tables", tables, "--json"])).unwrap();
    let moves = j["moves"].as_array().unwrap();
    assert!(moves.len() > 1, "{j}");
    for pair in moves.windows(2) {
        assert!(preference(&pair[0]) >= preference(&pair[1]), "{position}: {} before {}", pair[0], pair[1]);
    }
    let in_json: Vec<&str> = moves.iter().map(|m| m["move"].as_str().unwrap()).collect();
    let text = ok(&["probe", position, "--tables", tables]);
    let in_text: Vec<&str> =
        text.lines().filter(|l| l.starts_with("  ")).map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(in_text, in_json, "{text}");
    moves.iter().map(|m| m["value"].as_str().unwrap().to_string()).collect()
}

#[test]
fn probe_lists_moves_best_first_for_every_game() {
    let dir = TempDir::new("probe-order");
    let path = |name: &str| dir.0.join(name).to_str().unwrap().to_string();
    let (fox, ttt, bc) = (path("fox"), path("ttt"), path("bc"));
    ok(&[
        "solve",
        "--start",
        "F.F/.../......./......./..SSS../.../... f",
        "--pen-target",
        "2",
        "--geometry",
        "orthogonal",
        "--out",
        &fox,
    ]);
    ok(&["solve", "--game", "tictactoe", "--out", &ttt]);
    ok(&["solve", "--game", "baghchal", "--goats", "2", "--capture-target", "2", "--threads", "1", "--out", &bc]);

    // The Fox Game (plies to zeroing, the default): the foxes' wins, quickest first (a capture
    // first, itself the zeroing move, then the slower ones), and the sheep's losses, slowest first.
    assert!(probed(&fox, ".F./.../......./...F.../..SSS../.../... f").iter().all(|v| v == "win"));
    let text = ok(&["probe", ".F./.../......./...F.../..SSS../.../... f", "--tables", &fox]);
    assert!(
        text.lines().nth(1).unwrap().starts_with("  d4xd2   win for the foxes: the foxes win, 1 ply to zeroing"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("d4-d5   win for the foxes: the foxes win, 11 plies to zeroing"), "{text}");
    assert!(probed(&fox, ".F./.../......./..F..../..SSS../.../... s").iter().all(|v| v == "loss"));
    // The game comes from the tier index: the Fox Game's probe reads no manifest.json (tens of
    // MB for the full game).
    std::fs::write(dir.0.join("fox/manifest.json"), "not a manifest").unwrap();
    assert_eq!(ok(&["probe", ".F./.../......./...F.../..SSS../.../... f", "--tables", &fox]), text);
    // Tic-tac-toe: after X in a corner, the centre draws and the other 7 lose, in cell order.
    let j: Json = serde_json::from_str(&ok(&["probe", "X../.../... o", "--tables", &ttt, "--json"])).unwrap();
    let order: Vec<&str> = j["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap()).collect();
    assert_eq!(order[0], "b2");
    assert_eq!(probed(&ttt, "X../.../... o"), ["draw", "loss", "loss", "loss", "loss", "loss", "loss", "loss"]);
    // Bagh-Chal: the 2-goat start, all losses, the slowest first.
    let values = probed(&bc, "T...T/...../...../...../T...T g 2 0");
    assert!(values.iter().all(|v| v == "loss"));
}
