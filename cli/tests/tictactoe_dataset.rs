//! Tic-tac-toe's data set for people: `export --skip-obvious` leaves the
//! 638 positions that take thought, and `check-strategy` finds the moves of
//! a strategy that give up a win or a draw, from a file of moves and from a
//! program that answers positions.

mod common;

use common::{foxbase, TempDir};
use foxbase_core::tictactoe::{obvious, parse_ttt};
use serde_json::Value as Json;
use std::collections::HashSet;
use std::path::Path;

fn run(args: &[&str]) -> std::process::Output {
    foxbase().args(args).output().unwrap()
}

fn ok_stdout(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn solve(dir: &Path) -> String {
    let o = dir.join("t").to_str().unwrap().to_string();
    ok_stdout(&["solve", "--game", "tictactoe", "--out", &o]);
    o
}

fn positions(export: &str) -> Vec<Json> {
    export.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn export_skip_obvious_keeps_the_638_positions_that_take_thought() {
    let dir = TempDir::new("ttt-obvious");
    let o = solve(&dir.0);
    let all = positions(&ok_stdout(&["export", "--tables", &o]));
    let kept = positions(&ok_stdout(&["export", "--tables", &o, "--skip-obvious"]));
    assert_eq!((all.len(), kept.len()), (4_520, 638));
    // The same lines, in the same order, as the full export less the obvious positions.
    let thought: Vec<&Json> =
        all.iter().filter(|l| obvious(&parse_ttt(l["position"].as_str().unwrap()).unwrap()).is_none()).collect();
    assert_eq!(thought, kept.iter().collect::<Vec<_>>());
    assert!(kept.iter().any(|l| l["position"] == ".../.../... x"), "the empty board takes thought");
    // --skip-obvious is tic-tac-toe's.
    let fox = dir.0.join("fox");
    ok_stdout(&[
        "solve",
        "--start",
        "F../.../......./......./SS...../.../... f",
        "--pen-target",
        "1",
        "--out",
        fox.to_str().unwrap(),
    ]);
    let refused = run(&["export", "--tables", fox.to_str().unwrap(), "--skip-obvious"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--skip-obvious"), "{refused:?}");
}

#[test]
fn check_strategy_finds_the_mistakes_of_a_strategy() {
    let dir = TempDir::new("ttt-strategy");
    let o = solve(&dir.0);
    // The tables' own best moves: no mistake.
    let all = positions(&ok_stdout(&["export", "--tables", &o]));
    let best = |l: &Json| {
        let optimal = l["optimal"].as_array().unwrap();
        optimal.iter().find(|m| m["best"] == true).unwrap()["move"].as_str().unwrap().to_string()
    };
    let mut file: Vec<String> =
        all.iter().map(|l| format!("{} {}", l["position"].as_str().unwrap(), best(l))).collect();
    let perfect = dir.0.join("perfect.txt");
    std::fs::write(&perfect, file.join("\n")).unwrap();
    let j: Json = serde_json::from_str(&ok_stdout(&[
        "check-strategy",
        "--tables",
        &o,
        "--moves",
        perfect.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!((j["checked"].as_u64(), j["mistakes"].as_u64()), (Some(4_520), Some(0)), "{j}");

    // Three known mistakes: X throws away a win in one (and lets O win), O answers a corner
    // with the opposite corner, O answers the centre with an edge.
    let wrong = [
        ("XX./OO./... x", "a1", "win", "loss"),
        ("X../.../... o", "c1", "draw", "loss"),
        (".../.X./... o", "b3", "draw", "loss"),
    ];
    for (position, played, _, _) in wrong {
        let line = file.iter_mut().find(|l| l.starts_with(&format!("{position} "))).unwrap();
        *line = format!("# a comment line\n{position} {played}");
    }
    let flawed = dir.0.join("flawed.txt");
    std::fs::write(&flawed, file.join("\n")).unwrap();
    let j: Json = serde_json::from_str(&ok_stdout(&[
        "check-strategy",
        "--tables",
        &o,
        "--moves",
        flawed.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(
        (j["mistakes"].as_u64(), j["gave_up_win"].as_u64(), j["gave_up_draw"].as_u64()),
        (Some(3), Some(1), Some(2)),
        "{j}"
    );
    let found: HashSet<(String, String, String, String)> = j["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let s = |k: &str| m[k].as_str().unwrap().to_string();
            (s("position"), s("move"), s("value"), s("move_value"))
        })
        .collect();
    let want: HashSet<_> =
        wrong.iter().map(|(p, m, v, a)| (p.to_string(), m.to_string(), v.to_string(), a.to_string())).collect();
    assert_eq!(found, want);
    let centre = j["listed"].as_array().unwrap().iter().find(|m| m["position"] == ".../.X./... o").unwrap();
    assert_eq!(centre["keep"], serde_json::json!(["a3", "c3", "a1", "c1"]), "only the corners hold");
    let text = ok_stdout(&["check-strategy", "--tables", &o, "--moves", flawed.to_str().unwrap()]);
    assert!(text.contains("X../.../... o: draw for the side to move, but c1 is loss; b2 keep the draw"), "{text}");
    assert!(text.ends_with("4520 positions checked: 3 mistakes (1 giving up a win, 2 giving up a draw)\n"), "{text}");

    // A program that always fills the first empty cell, against the same strategy as a file.
    let first_empty = |position: &str| {
        let i = position.split(' ').next().unwrap().replace('/', "").find('.').unwrap();
        format!("{}{}", (b'a' + (i % 3) as u8) as char, 3 - i / 3)
    };
    let naive: Vec<String> = all
        .iter()
        .map(|l| {
            let p = l["position"].as_str().unwrap();
            format!("{p} {}", first_empty(p))
        })
        .collect();
    let naive_file = dir.0.join("naive.txt");
    std::fs::write(&naive_file, naive.join("\n")).unwrap();
    let from_file: Json = serde_json::from_str(&ok_stdout(&[
        "check-strategy",
        "--tables",
        &o,
        "--moves",
        naive_file.to_str().unwrap(),
        "--json",
        "--list",
        "0",
    ]))
    .unwrap();
    let program = r#"while read b s; do b=$(echo "$b" | tr -d /); p=${b%%.*}; i=${#p}; echo "$(echo abc | cut -c$((i % 3 + 1)))$((3 - i / 3))"; done"#;
    let asked: Json = serde_json::from_str(&ok_stdout(&[
        "check-strategy",
        "--tables",
        &o,
        "--program",
        program,
        "--json",
        "--list",
        "0",
    ]))
    .unwrap();
    assert_eq!(asked, from_file);
    assert!(asked["mistakes"].as_u64().unwrap() > 100, "{asked}");
    let thought: Json = serde_json::from_str(&ok_stdout(&[
        "check-strategy",
        "--tables",
        &o,
        "--program",
        program,
        "--skip-obvious",
        "--json",
        "--list",
        "0",
    ]))
    .unwrap();
    assert_eq!(thought["checked"], 638);

    // Bad input names the line; a program that stops answering fails.
    std::fs::write(&flawed, "X../.../... o\n").unwrap();
    let bad = run(&["check-strategy", "--tables", &o, "--moves", flawed.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(said.contains("flawed.txt:1: ") && said.contains("X../.../..."), "{said}");
    std::fs::write(&flawed, "X../.../... o a3\n").unwrap();
    let bad = run(&["check-strategy", "--tables", &o, "--moves", flawed.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(said.contains("flawed.txt:1: 'a3' is not a legal move of X../.../... o"), "{said}");
    // Answers one position, then stops reading and answering.
    let quits = run(&["check-strategy", "--tables", &o, "--program", "read p; echo b2"]);
    assert_eq!(quits.status.code(), Some(1), "{quits:?}");
    assert!(String::from_utf8_lossy(&quits.stderr).contains("--program 'read p; echo b2': "), "{quits:?}");
}
