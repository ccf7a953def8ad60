//! The `foxbase` command line, run as a program: outputs of show, moves, play,
//! perft and probe-ref, and exit status 2 with a message on stderr (and nothing
//! on stdout) for bad input.

use foxbase_core::notation::parse_position;
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::{Geometry, Variant};
use serde_json::{json, Value};
use std::process::{Command, Output};

const START: &str = "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f";
const SHEEP_FIRST: &str = "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS s";
/// Orthogonal: both foxes were just trapped by d6-d7 and removed.
const NO_FOXES: &str = ".S./S.S/..S.S../......./......./SSS/SSS f";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_foxbase")).args(args).output().expect("run foxbase")
}

/// Runs a command that must succeed quietly; returns its stdout.
fn ok(args: &[&str]) -> String {
    let out = run(args);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{args:?} failed: {:?} {stderr}", out.status);
    assert_eq!(stderr, "", "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn ok_json(args: &[&str]) -> Value {
    let text = ok(args);
    assert_eq!(text.lines().count(), 1, "one JSON object on one line: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

/// Runs a command that must fail as bad input; returns its stderr.
fn bad(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "", "{args:?} printed on stdout");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.is_empty(), "{args:?}");
    stderr
}

/// Each line with its runs of blanks squeezed to one.
fn squeeze(text: &str) -> String {
    text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") + "\n").collect()
}

// ---------------------------------------------------------------------------
// show

#[test]
fn show_prints_the_board_and_the_status() {
    let expected = "\
7      F + F    
6      + + +    
5  . . + + + . .
4  S S S S S S S
3  S S S S S S S
2      S S S    
1      S S S    
   a b c d e f g
fox to move; 2 foxes, 20 sheep, 0 in the pen ('+' marks empty pen points)
game goes on
";
    assert_eq!(ok(&["show", START]), expected);
}

#[test]
fn show_reports_a_finished_game() {
    let out = ok(&["show", NO_FOXES, "--geometry", "orthogonal"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "7      + S +    ");
    assert_eq!(lines[8], "fox to move; 0 foxes, 11 sheep, 5 in the pen ('+' marks empty pen points)");
    assert_eq!(lines[9], "game over: the sheep won (no fox remains)");
    assert_eq!(lines.len(), 10);
}

// ---------------------------------------------------------------------------
// moves

#[test]
fn moves_lists_moves_children_and_statuses() {
    // Compared with runs of blanks squeezed to one: the move column is meant
    // to be padded (`{m:7}`), which `Move`'s Display does not honour today.
    let expected = "\
F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f (6 legal moves; game goes on)
c7-c6 ..F/F../......./SSSSSSS/SSSSSSS/SSS/SSS s game goes on
c7-d6 ..F/.F./......./SSSSSSS/SSSSSSS/SSS/SSS s game goes on
c7-d7 .FF/.../......./SSSSSSS/SSSSSSS/SSS/SSS s game goes on
e7-d6 F../.F./......./SSSSSSS/SSSSSSS/SSS/SSS s game goes on
e7-e6 F../..F/......./SSSSSSS/SSSSSSS/SSS/SSS s game goes on
e7-d7 FF./.../......./SSSSSSS/SSSSSSS/SSS/SSS s game goes on
";
    assert_eq!(squeeze(&ok(&["moves", START])), expected);
    // Orthogonal: no diagonal c7-d6 / e7-d6.
    let out = ok(&["moves", START, "--geometry", "orthogonal"]);
    assert_eq!(out.lines().next().unwrap(), format!("{START} (4 legal moves; game goes on)"));
    let moves: Vec<&str> = out.lines().skip(1).map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(moves, ["c7-c6", "c7-d7", "e7-e6", "e7-d7"]);
}

#[test]
fn moves_json_of_the_start() {
    let v = ok_json(&["moves", "--json", START]);
    let expected = json!({
        "game": "fox",
        "position": START,
        "side_to_move": "fox",
        "rules": {"geometry": "classic", "pen_target": 9, "sheep_floor": 9, "floor_winner": "foxes", "no_progress": 0},
        "status": {"over": false},
        "moves": [
            {"move": "c7-c6", "position": "..F/F../......./SSSSSSS/SSSSSSS/SSS/SSS s", "status": {"over": false}},
            {"move": "c7-d6", "position": "..F/.F./......./SSSSSSS/SSSSSSS/SSS/SSS s", "status": {"over": false}},
            {"move": "c7-d7", "position": ".FF/.../......./SSSSSSS/SSSSSSS/SSS/SSS s", "status": {"over": false}},
            {"move": "e7-d6", "position": "F../.F./......./SSSSSSS/SSSSSSS/SSS/SSS s", "status": {"over": false}},
            {"move": "e7-e6", "position": "F../..F/......./SSSSSSS/SSSSSSS/SSS/SSS s", "status": {"over": false}},
            {"move": "e7-d7", "position": "FF./.../......./SSSSSSS/SSSSSSS/SSS/SSS s", "status": {"over": false}},
        ]
    });
    assert_eq!(v, expected);
    // Sheep first, classic: the 13 rank-4 steps.
    let v = ok_json(&["moves", "--json", SHEEP_FIRST]);
    assert_eq!(v["moves"].as_array().unwrap().len(), 13);
    assert_eq!(v["moves"][1]["move"], "b4-a5");
    assert_eq!(v["moves"][1]["position"], "F.F/.../S....../S.SSSSS/SSSSSSS/SSS/SSS f");
}

#[test]
fn moves_json_reports_endings() {
    // A finished game has no moves.
    let v = ok_json(&["moves", "--json", NO_FOXES, "--geometry", "orthogonal"]);
    assert_eq!(
        v,
        json!({"game": "fox", "position": NO_FOXES, "side_to_move": "fox", "moves": [], "rules": {"geometry": "orthogonal", "pen_target": 9, "sheep_floor": 9, "floor_winner": "foxes", "no_progress": 0},
               "status": {"over": true, "winner": "sheep", "reason": "no fox remains"}})
    );
    // Orthogonal, K = 2: fox d7, sheep c5 and d4. Moves in point order: d4-c4,
    // d4-e4, d4-d5 (d3 is lower), then c5-b5, c5-d5, c5-c6. Only d4-d5 leaves
    // two sheep in the pen (c5, d5); the others leave one or none.
    let p = ".F./.../..S..../...S.../......./.../... s";
    let v = ok_json(&["moves", "--json", p, "--geometry", "orthogonal", "--pen-target", "2"]);
    assert_eq!(v["status"], json!({"over": false}));
    let moves = v["moves"].as_array().unwrap();
    let names: Vec<&str> = moves.iter().map(|m| m["move"].as_str().unwrap()).collect();
    assert_eq!(names, ["d4-c4", "d4-e4", "d4-d5", "c5-b5", "c5-d5", "c5-c6"]);
    let pen = json!({"over": true, "winner": "sheep", "reason": "the pen holds enough sheep"});
    for m in moves {
        let expected = if m["move"] == "d4-d5" { pen.clone() } else { json!({"over": false}) };
        assert_eq!(m["status"], expected, "{}", m["move"]);
    }
    // A capture leaving too few sheep (K = 9, 9 sheep, a3xc3).
    let p = ".../.../S.....S/......./FS...../SSS/SSS f";
    let v = ok_json(&["moves", "--json", p, "--geometry", "orthogonal"]);
    let jump = v["moves"].as_array().unwrap().iter().find(|m| m["move"] == "a3xc3").unwrap();
    assert_eq!(jump["position"], ".../.../S.....S/......./..F..../SSS/SSS s");
    assert_eq!(jump["status"], json!({"over": true, "winner": "fox", "reason": "too few sheep remain"}));
}

// ---------------------------------------------------------------------------
// play

#[test]
fn play_prints_the_final_position_and_status() {
    assert_eq!(
        ok(&["play", START, "c7-d6", "d4-d5", "d6xd4"]),
        "..F/.../......./SSSFSSS/SSSSSSS/SSS/SSS s\ngame goes on\n"
    );
    assert_eq!(
        ok(&["play", "F.F/SSS/..S.S../......./......./SSS/SSS s", "d6-d7", "--geometry", "orthogonal"]),
        format!("{NO_FOXES}\ngame over: the sheep won (no fox remains)\n")
    );
    assert_eq!(
        ok(&["play", ".F./.../..S..../...S.../......./.../.S. s", "d4-d5", "--pen-target", "2"]),
        ".F./.../..SS.../......./......./.../.S. f\ngame over: the sheep won (the pen holds enough sheep)\n"
    );
}

// ---------------------------------------------------------------------------
// perft

#[test]
fn perft_json_and_text() {
    let v = ok_json(&["perft", "--depth", "3", "--json"]);
    assert_eq!(
        v,
        json!({"game": "fox", "depth": 3, "nodes": 482, "position": START, "rules": {"geometry": "classic", "pen_target": 9, "sheep_floor": 9, "floor_winner": "foxes", "no_progress": 0}})
    );
    let v = ok_json(&["perft", "--depth", "4", "--json", "--geometry", "orthogonal", "--position", SHEEP_FIRST]);
    assert_eq!(
        v,
        json!({"game": "fox", "depth": 4, "nodes": 1196, "position": SHEEP_FIRST, "rules": {"geometry": "orthogonal", "pen_target": 9, "sheep_floor": 9, "floor_winner": "foxes", "no_progress": 0}})
    );
    let v = ok_json(&["perft", "--depth", "0", "--json"]);
    assert_eq!(v["nodes"], 1);
    assert_eq!(ok(&["perft", "--depth", "2"]), "perft(2) = 78\n");
    assert_eq!(
        ok(&["perft", "--depth", "3", "--divide", "--geometry", "orthogonal"]),
        "c7-c6: 35\nc7-d7: 21\ne7-e6: 35\ne7-d7: 21\nperft(3) = 112\n"
    );
}

#[test]
fn perft_json_divide() {
    let v = ok_json(&["perft", "--depth", "2", "--json", "--divide"]);
    let divide: Vec<Value> = ["c7-c6", "c7-d6", "c7-d7", "e7-d6", "e7-e6", "e7-d7"]
        .iter()
        .map(|m| json!({"move": m, "nodes": 13}))
        .collect();
    assert_eq!(
        v,
        json!({"game": "fox", "depth": 2, "nodes": 78, "position": START, "rules": {"geometry": "classic", "pen_target": 9, "sheep_floor": 9, "floor_winner": "foxes", "no_progress": 0}, "divide": divide})
    );
    let v = ok_json(&["perft", "--depth", "5", "--json", "--divide", "--position", SHEEP_FIRST]);
    let sum: u64 = v["divide"].as_array().unwrap().iter().map(|d| d["nodes"].as_u64().unwrap()).sum();
    assert_eq!(sum, 128_948);
    assert_eq!(v["nodes"], 128_948);
}

// ---------------------------------------------------------------------------
// probe-ref

#[test]
fn probe_ref_json() {
    // K = 1, sheep d4 to move: d4-d5 puts it in the pen at once: a win.
    let p = ".F./.../......./...S.../......./.../... s";
    let v = ok_json(&["probe-ref", "--json", p, "--pen-target", "1"]);
    let solved =
        ReferenceSolution::solve(&Variant::new(Geometry::Classic, 1, parse_position(p).unwrap()).unwrap(), 1 << 20)
            .unwrap()
            .len();
    assert_eq!(
        v,
        json!({"position": p, "value": "win", "side_to_move": "sheep", "positions": solved,
               "variant": {"geometry": "classic", "pen_target": 1, "start": p}})
    );
    // With the fox to move it is a loss for the fox: whatever it does, the sheep
    // steps into the pen next (from d7 the fox can neither capture d4 nor block
    // c5, d5 and e5 at once).
    let q = ".F./.../......./...S.../......./.../... f";
    let v = ok_json(&["probe-ref", "--json", q, "--pen-target", "1"]);
    assert_eq!(v["value"], "loss");
    assert_eq!(v["side_to_move"], "fox");
    // A finished game is a single position: the pen already holds K = 2.
    let r = ".F./.../..S.S../......./......./.../... f";
    let v = ok_json(&["probe-ref", "--json", r, "--pen-target", "2", "--geometry", "orthogonal"]);
    assert_eq!(
        v,
        json!({"position": r, "value": "loss", "side_to_move": "fox", "positions": 1,
               "variant": {"geometry": "orthogonal", "pen_target": 2, "start": r}})
    );
    assert_eq!(
        ok(&["probe-ref", r, "--pen-target", "2"]),
        format!("{r}: loss for the fox to move (1 positions solved)\n")
    );
}

// ---------------------------------------------------------------------------
// Bad input: exit status 2, a message on stderr, nothing on stdout.

#[test]
fn bad_positions() {
    let e = bad(&["show", "F.F/.../....../SSSSSSS/SSSSSSS/SSS/SSS f"]);
    assert_eq!(
        e,
        "foxbase: bad position 'F.F/.../....../SSSSSSS/SSSSSSS/SSS/SSS f': rank 5 has 6 points, expected 7\n"
    );
    let e = bad(&["moves", "FFF/.../......./SSSSSSS/SSSSSSS/SSS/SSS f"]);
    assert!(e.contains("3 foxes (at most 2)"), "{e}");
    let e = bad(&["moves", "--json", "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS x"]);
    assert!(e.contains("side to move 'x' is not f or s"), "{e}");
    let e = bad(&["play", "F.F/.../...?.../SSSSSSS/SSSSSSS/SSS/SSS f", "c7-c6"]);
    assert!(e.contains("rank 5, character 4 (d5): '?' is not F, S or '.'"), "{e}");
    let e = bad(&["perft", "--depth", "1", "--position", "F.F/.../......./SSSSSSS/SSSSSSS/SSS f"]);
    assert!(e.contains("expected 7 ranks separated by '/', found 6"), "{e}");
    let e = bad(&["probe-ref", "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS"]);
    assert!(e.contains("missing the side to move"), "{e}");
}

#[test]
fn bad_moves() {
    let e = bad(&["play", START, "c7-c6", "d4-d6"]);
    assert_eq!(e, "foxbase: bad move: d4-d6: no line joins d4 and d6 in the classic geometry\n");
    let e = bad(&["play", START, "c7c6"]);
    assert!(e.contains("'c7c6' is not a move"), "{e}");
    let e = bad(&["play", START, "c7-c8"]);
    assert!(e.contains("c7-c8: c8 is not a point of the board"), "{e}");
    let e = bad(&["play", START, "d4-d5"]);
    assert!(e.contains("d4-d5: no fox on d4 (fox to move)"), "{e}");
    let e = bad(&["play", START, "c7-d6", "--geometry", "orthogonal"]);
    assert!(e.contains("c7-d6: no line joins c7 and d6 in the orthogonal geometry"), "{e}");
    let e = bad(&["play", NO_FOXES, "c6-c7", "--geometry", "orthogonal"]);
    assert!(e.contains("c6-c7: the game is over (sheep won: no fox remains)"), "{e}");
    let e = bad(&["play", ".../.../....F../......./......./.../... f", "e5xc3"]);
    assert!(e.contains("e5xc3: no sheep on d4"), "{e}");
}

#[test]
fn bad_flags() {
    let e = bad(&["moves", START, "--geometry", "hex"]);
    assert!(e.contains("unknown geometry 'hex' (expected classic or orthogonal)"), "{e}");
    for k in ["0", "10"] {
        let e = bad(&["moves", START, "--pen-target", k]);
        assert!(e.contains("--pen-target") && e.contains(&format!("{k} is not in 1..=9")), "{e}");
    }
    let e = bad(&["perft", "--depth", "x"]);
    assert!(e.contains("--depth"), "{e}");
    let e = bad(&["perft"]);
    assert!(e.contains("--depth"), "{e}");
    let e = bad(&["moves"]);
    assert!(e.contains("<POSITION>"), "{e}");
    let e = bad(&["play", START]);
    assert!(e.contains("<MOVES>"), "{e}");
    let e = bad(&["solve-everything"]);
    assert!(e.contains("solve-everything"), "{e}");
    for command in [&["verify", "t"][..], &["publish", "t", "p"]] {
        let e = bad(&[command, &["--memory", "2X"]].concat());
        assert!(e.contains("--memory") && e.contains("the suffix must be K, M, G or T"), "{e}");
        let e = bad(&[command, &["--spill-dir", "/no/such/dir"]].concat());
        assert!(e.contains("--spill-dir /no/such/dir: not a directory"), "{e}");
    }
    for command in ["versus", "serve"] {
        let e = bad(&[command, "--tables", "t", "--read-cache-mib", "0"]);
        assert!(e.contains("--read-cache-mib") && e.contains("0 is not in 1..=1048576"), "{e}");
    }
    bad(&[]);
}

#[test]
fn bad_reference_problems() {
    let e = bad(&["probe-ref", ".../.../......./...S.../......./.../... s"]);
    assert_eq!(e, "foxbase: start: the start position has no fox (1 or 2 are allowed)\n");
    let p = ".F./.../......./...S.../......./.../... s";
    let e = bad(&["probe-ref", p, "--pen-target", "1", "--max-positions", "10"]);
    assert_eq!(e, "foxbase: more than 10 positions are reachable from the start: too large for the reference solver\n");
}

#[test]
fn help_and_version_succeed() {
    let out = ok(&["--help"]);
    assert!(out.contains("perft") && out.contains("probe-ref"), "{out}");
    let out = ok(&["--version"]);
    assert!(out.starts_with("foxbase "), "{out}");
}

// ---------------------------------------------------------------------------
// output to a closed pipe

/// `foxbase moves POS | head -3` and the like: when the reader has gone, the
/// command stops quietly with success instead of panicking.
#[test]
fn output_to_a_closed_pipe_ends_quietly_with_success() {
    for args in [
        vec!["moves", START],
        vec!["moves", START, "--json"],
        vec!["show", START],
        vec!["perft", "--depth", "2", "--divide"],
        vec!["play", START, "c7-c6"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        // The read end is closed before the command writes anything.
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_foxbase"))
            .args(&args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("run foxbase");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
        assert_eq!(stderr, "", "{args:?}");
    }
}

/// `--kernel` takes `planes`, `counter` or `forward`, and says so.
#[test]
fn an_unknown_kernel_is_refused_by_name() {
    for cmd in [
        vec!["solve", "--kernel", "fast", "--plan-only"],
        vec!["worker", "--coordinator", "http://127.0.0.1:1", "--token-file", "/dev/null", "--kernel", "fast"],
    ] {
        let e = bad(&cmd);
        assert!(e.contains("unknown kernel 'fast' (planes, counter or forward)"), "{cmd:?}: {e}");
    }
    let plan = ok_json(&["solve", "--kernel", "counter", "--plan-only", "--json"]);
    assert_eq!(plan["tiers"], 1053);
}
