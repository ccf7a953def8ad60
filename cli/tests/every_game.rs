//! Every command for every game, on a small variant of each: the Fox Game
//! (two foxes, three sheep, K = 2, orthogonal), Bagh-Chal with 2 goats and
//! tic-tac-toe. The commands are written once over the game contracts
//! (`Playable`, `Tablebase`); this checks that each one answers for each
//! game and that their answers agree with one another: `play` reaches the
//! position `moves` lists, `perft` is the sum of its `--divide`, `probe`'s
//! moves are `moves`' moves, `export` writes one line a position with a
//! move, `versus` plays to the end against a person (the first legal move,
//! typed on standard input) and against itself. (The coordinator and its
//! workers are run for each game in distributed.rs, baghchal_distributed.rs
//! and tictactoe_distributed.rs.)

mod common;

use common::{foxbase, TempDir};
use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

/// A game under test: its `--game`, its rule flags, a position with moves.
struct Game {
    name: &'static str,
    rules: &'static [&'static str],
    position: &'static str,
    /// A position whose game ends under perfect play (a win), for `versus`.
    decided: &'static str,
}

const GAMES: [Game; 3] = [
    Game {
        name: "fox",
        rules: &["--pen-target", "2", "--geometry", "orthogonal"],
        position: "F.F/.../......./......./..SSS../.../... f",
        decided: ".F./.../......./...F.../..SSS../.../... f",
    },
    Game {
        name: "baghchal",
        rules: &["--goats", "2", "--capture-target", "2"],
        position: "T...T/...../...../...../T...T g 2 0",
        decided: "T...T/...../...../...../T...T g 2 0",
    },
    Game { name: "tictactoe", rules: &[], position: "X../.O./... x", decided: "X../.../O.. x" },
];

fn run(args: &[&str]) -> (bool, String, String) {
    let out = foxbase().args(args).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn ok(args: &[&str]) -> String {
    let (success, stdout, stderr) = run(args);
    assert!(success, "{args:?}: {stderr}");
    stdout
}

fn json_of(args: &[&str]) -> Json {
    serde_json::from_str(&ok(args)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// `command POSITION --game G RULES... EXTRA...`
fn rules_args<'a>(g: &'a Game, command: &'a str, position: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![command, position, "--game", g.name];
    args.extend_from_slice(g.rules);
    args.extend_from_slice(extra);
    args
}

/// `foxbase versus` with the person playing `side`: each time it asks,
/// the first legal move of the position it last showed (from `moves`).
fn versus_as(g: &Game, tables: &str, side: &str) -> String {
    let mut child = foxbase()
        .args(["versus", "--tables", tables, "--start", g.decided, "--side", side, "--seed", "3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut transcript = String::new();
    let mut shown = String::new();
    let mut typed = 0;
    for l in BufReader::new(child.stdout.take().unwrap()).lines() {
        let l = l.unwrap();
        transcript += &l;
        transcript.push('\n');
        // "POSITION: VALUE for SIDE to move...": the position now.
        if let Some((position, rest)) = l.split_once(": ") {
            if rest.contains(" to move") {
                shown = position.to_string();
            }
        }
        if l.starts_with("your move (") {
            let moves = json_of(&rules_args(g, "moves", &shown, &["--json"]));
            let first = moves["moves"][0]["move"].as_str().unwrap().to_string();
            writeln!(stdin, "{first}").unwrap();
            typed += 1;
        }
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "{}: versus --side {side}: {transcript}", g.name);
    assert!(typed > 0, "{}: the person was never asked: {transcript}", g.name);
    transcript
}

#[test]
fn every_command_answers_for_every_game() {
    let dir = TempDir::new("every-game");
    for g in &GAMES {
        let path = |name: &str| dir.0.join(format!("{}-{name}", g.name)).to_str().unwrap().to_string();
        let p = g.position;

        // show: the board and whether the game goes on.
        let shown = ok(&rules_args(g, "show", p, &[]));
        assert!(shown.trim_end().ends_with("game goes on"), "{}: {shown}", g.name);

        // moves: text and JSON agree; play reaches each listed position.
        let moves = json_of(&rules_args(g, "moves", p, &["--json"]));
        assert_eq!(moves["game"], g.name);
        assert_eq!(moves["position"], p);
        let list = moves["moves"].as_array().unwrap();
        assert!(!list.is_empty());
        let text = ok(&rules_args(g, "moves", p, &[]));
        assert!(text.lines().next().unwrap().contains(&format!("({} legal moves;", list.len())), "{text}");
        assert_eq!(text.lines().count(), list.len() + 1);
        for m in list {
            let mv = m["move"].as_str().unwrap();
            let played = ok(&rules_args(g, "play", p, &[mv]));
            assert_eq!(played.lines().next().unwrap(), m["position"].as_str().unwrap(), "{} {mv}", g.name);
        }

        // perft: the total is the sum of the divide, and depth 1 is the move count.
        let mut perft = vec!["perft", "--game", g.name, "--position", p, "--depth", "2", "--divide", "--json"];
        perft.extend_from_slice(g.rules);
        let divided = json_of(&perft);
        let parts: u64 = divided["divide"].as_array().unwrap().iter().map(|d| d["nodes"].as_u64().unwrap()).sum();
        assert_eq!(divided["nodes"].as_u64().unwrap(), parts);
        let mut one = vec!["perft", "--game", g.name, "--position", p, "--depth", "1"];
        one.extend_from_slice(g.rules);
        assert_eq!(ok(&one), format!("perft(1) = {}\n", list.len()));

        // solve, verify, stats, publish.
        let tables = path("tables");
        let mut solve = vec!["solve", "--game", g.name, "--threads", "1", "--out", &tables];
        if g.name == "fox" {
            solve.extend_from_slice(&["--start", p]);
        }
        solve.extend_from_slice(g.rules);
        ok(&solve);
        assert!(ok(&["verify", &tables]).starts_with("ok: "), "{}", g.name);
        assert!(!ok(&["stats", "--tables", &tables]).is_empty());
        let published = path("published");
        ok(&["publish", &tables, &published]);
        assert!(ok(&["verify", &published]).starts_with("ok: "), "{}", g.name);

        // probe: the same moves as `moves`, from solved and published tables alike.
        let probed = json_of(&["probe", p, "--tables", &tables, "--json"]);
        let mut probed_moves: Vec<&str> =
            probed["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap()).collect();
        let mut listed: Vec<&str> = list.iter().map(|m| m["move"].as_str().unwrap()).collect();
        probed_moves.sort();
        listed.sort();
        assert_eq!(probed_moves, listed, "{}", g.name);
        assert_eq!(json_of(&["probe", p, "--tables", &published, "--json"]), probed, "{}", g.name);
        let text = ok(&["probe", p, "--tables", &tables]);
        assert!(text.starts_with(&format!("{p}: {} for ", probed["value"].as_str().unwrap())), "{text}");

        // export: one JSON line per position with a move, each with its optimal moves.
        // (Tic-tac-toe's 4,520 positions whole, the others' 300 drawn at random.)
        let exported = match g.name {
            "tictactoe" => ok(&["export", "--tables", &tables]),
            _ => ok(&["export", "--tables", &tables, "--sample", "300"]),
        };
        let expected = if g.name == "tictactoe" { 4_520 } else { 300 };
        assert_eq!(exported.lines().count(), expected, "{}", g.name);
        for l in exported.lines() {
            let line: Json = serde_json::from_str(l).unwrap();
            assert!(!line["optimal"].as_array().unwrap().is_empty(), "{l}");
        }

        // puzzles answer (a small variant may have none: a note on stderr, and exit 0).
        let (success, _, stderr) = run(&["puzzles", "--tables", &tables, "--count", "1"]);
        assert!(success, "{}: {stderr}", g.name);

        // versus: the engine against itself, and against a person on standard input.
        let alone = ok(&["versus", "--tables", &tables, "--start", g.decided, "--side", "none"]);
        assert!(alone.lines().last().unwrap().starts_with("game over after "), "{alone}");
        let decided = json_of(&rules_args(g, "moves", g.decided, &["--json"]));
        let first = decided["side_to_move"].as_str().unwrap();
        let game = versus_as(g, &tables, first);
        assert!(game.lines().last().unwrap().starts_with("game over after "), "{game}");
    }
}
