//! Tables solved under a sheep floor through the command line: the floor
//! flags and their refusals, the bound shown wherever a value is, and
//! probe, verify, survey and stats from solved and from published tables
//! (values against the reference solver, plies against their children).

mod common;

use common::TempDir;
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::rules::Status;
use foxbase_core::{Geometry, Side, Value as GameValue, Variant};
use foxbase_tables::engine::engine_move;
use foxbase_tables::FoxTables;
use serde_json::Value;
use std::collections::HashSet;
use std::process::{Command, Output};

/// Two foxes against three sheep on rank 1; every capture ends the game
/// under a floor of 3 (K = 2).
const START: &str = "F.F/.../......./......./......./.../SSS f";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_foxbase")).args(args).output().expect("run foxbase")
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?} failed: {:?} {stderr}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

fn ok_json(args: &[&str]) -> Value {
    let text = ok(args);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

/// A command refused as bad input: exit 2, nothing on stdout; its stderr.
fn bad(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "", "{args:?} printed on stdout");
    String::from_utf8(out.stderr).unwrap()
}

fn solve(dir: &std::path::Path, winner: &str, extra: &[&str]) -> String {
    let out = dir.to_str().unwrap();
    let mut args = vec![
        "solve",
        "--start",
        START,
        "--pen-target",
        "2",
        "--sheep-floor",
        "3",
        "--floor-winner",
        winner,
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    ok(&args)
}

#[test]
fn floor_flags_out_of_range_are_refused_and_nothing_is_written() {
    let dir = TempDir::new("refused");
    let out = dir.0.join("t");
    let out = out.to_str().unwrap();
    let base = ["solve", "--start", START, "--pen-target", "2", "--out", out];
    let with = |extra: &[&'static str]| -> Vec<&str> { base.iter().copied().chain(extra.iter().copied()).collect() };
    assert_eq!(
        bad(&with(&["--sheep-floor", "1"])),
        "foxbase: --sheep-floor 1 is out of range: it must be from the pen target to the start's sheep count, here 2..=3\n"
    );
    assert!(bad(&with(&["--sheep-floor", "4"])).contains("--sheep-floor 4 is out of range"));
    assert_eq!(
        bad(&with(&["--floor-winner", "sheep"])),
        "foxbase: --floor-winner sheep needs a --sheep-floor above the pen target 2 (and at most the start's 3 sheep)\n"
    );
    assert!(bad(&with(&["--sheep-floor", "2", "--floor-winner", "sheep"])).contains("--floor-winner sheep needs"));
    assert!(bad(&with(&["--sheep-floor", "3", "--floor-winner", "wolves"])).contains("neither 'foxes' nor 'sheep'"));
    assert!(!dir.0.join("t").exists(), "a refused solve writes nothing");
    // The same rule for the coordinator and the rules commands; Bagh-Chal takes no floor.
    assert!(bad(&["show", START, "--pen-target", "2", "--sheep-floor", "4"]).contains("here 2..=3"));
    assert!(bad(&["probe-ref", START, "--floor-winner", "sheep"]).contains("above the pen target 9"));
    assert!(bad(&["solve", "--game", "baghchal", "--sheep-floor", "20"]).contains("--sheep-floor is a Fox Game flag"));
    assert!(bad(&["show", "T...T/...../...../...../T...T g 20 0", "--game", "baghchal", "--sheep-floor", "20"])
        .contains("--sheep-floor is a Fox Game flag"));
}

#[test]
fn the_rules_commands_play_under_the_floor() {
    // The capture c3xc1 leaves two sheep: below the floor of 3, won by its winner.
    let pos = "..F/.../......./......./..F..../S../.SS f";
    let floor = ["--pen-target", "2", "--sheep-floor", "3"];
    let play = |extra: &[&str]| ok(&[&["play", pos], &floor[..], extra, &["c3xc1"]].concat());
    assert_eq!(
        play(&[]),
        "..F/.../......./......./......./.../FSS s\ngame over: the foxes won (fewer sheep remain than the sheep floor)\n"
    );
    assert_eq!(
        play(&["--floor-winner", "sheep"]),
        "..F/.../......./......./......./.../FSS s\ngame over: the sheep won (fewer sheep remain than the sheep floor)\n"
    );
    assert_eq!(
        ok(&["play", pos, "--pen-target", "2", "c3xc1"]),
        "..F/.../......./......./......./.../FSS s\ngame goes on\n"
    );
    let moves = ok(&[&["moves", pos], &floor[..], &["--json"]].concat());
    let moves: Value = serde_json::from_str(&moves).unwrap();
    let capture = moves["moves"].as_array().unwrap().iter().find(|m| m["move"] == "c3xc1").unwrap();
    assert_eq!(capture["status"]["winner"], "fox");
    assert_eq!(capture["status"]["reason"], "fewer sheep remain than the sheep floor");
}

#[test]
fn floored_tables_say_so_and_agree_with_the_reference_solved_and_published() {
    let dir = TempDir::new("floor");
    let (solved, published) = (dir.0.join("solved"), dir.0.join("published"));
    let text = solve(&solved, "foxes", &[]);
    assert!(
        text.contains("bound: sheep floor 3: the foxes win once fewer than 3 sheep remain, so a sheep win is a sheep win of the real game (losing at most 0 sheep)"),
        "{text}"
    );
    let (s, p) = (solved.to_str().unwrap(), published.to_str().unwrap());
    // The start's value is the reference solver's under the same floor.
    let reference = ok_json(&["probe-ref", START, "--pen-target", "2", "--sheep-floor", "3", "--json"]);
    let probed = ok_json(&["probe", START, "--tables", s, "--json"]);
    assert_eq!(probed["value"], reference["value"]);
    assert_eq!(probed["bound"]["sheep_floor"], 3);
    assert_eq!(probed["bound"]["floor_winner"], "foxes");
    assert!(ok(&["probe", START, "--tables", s]).starts_with("bound: sheep floor 3"));
    // Every value and plies checked against its children.
    assert!(ok(&["verify", s]).starts_with("ok: "));
    assert_eq!(ok_json(&["verify", s, "--json"])["bound"]["sheep_floor"], 3);
    assert_eq!(ok_json(&["stats", "--tables", s, "--json"])["bound"]["floor_winner"], "foxes");
    let exported = ok(&["export", "--tables", s, "--sample", "5", "--seed", "1"]);
    assert_eq!(exported.lines().count(), 5);
    for l in exported.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["bound"]["floor_winner"], "foxes", "{l}");
    }
    ok(&["publish", s, p]);
    assert!(ok(&["verify", p]).starts_with("ok: "));
    // Every arrangement of the survey against the reference solver (those it reaches from the start).
    let variant = Variant::new(Geometry::Classic, 2, parse_position(START).unwrap())
        .unwrap()
        .with_sheep_floor(3, Side::Fox)
        .unwrap();
    let reference = ReferenceSolution::solve(&variant, 20_000_000).unwrap();
    let mut compared = 0;
    for side in ["f", "s"] {
        let survey = |dir: &str| {
            ok_json(&["survey", "--tables", dir, "--sheep", "3", "--side", side, "--list", "1140", "--json"])
        };
        let from_solved = survey(s);
        assert_eq!(from_solved, survey(p), "survey from the published tables");
        assert_eq!(from_solved["arrangements"], 1140);
        assert_eq!(from_solved["bound"]["sheep_floor"], 3);
        for value in ["win", "draw", "loss"] {
            for pos in from_solved["listed"][value].as_array().unwrap() {
                let pos = parse_position(pos.as_str().unwrap()).unwrap();
                if let Some(want) = reference.value(&pos) {
                    assert_eq!(want.name(), value, "{}", format_position(&pos));
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, 2279, "arrangements the reference solver reaches");
    // Below the floor, the foxes to move are in no table.
    let below = "F.F/.../......./......./......./.../S.S f";
    assert!(bad(&["probe", below, "--tables", s]).contains("below these tables' sheep floor 3"));
}

#[test]
fn an_upper_bound_solve_keeps_its_plies_consistent_with_its_children() {
    let dir = TempDir::new("upper");
    let text = solve(&dir.0, "sheep", &[]);
    assert!(text.contains("bound: sheep floor 3 won by the sheep"), "{text}");
    let s = dir.0.to_str().unwrap();
    let reference =
        ok_json(&["probe-ref", START, "--pen-target", "2", "--sheep-floor", "3", "--floor-winner", "sheep", "--json"]);
    assert_eq!(ok_json(&["probe", START, "--tables", s, "--json"])["value"], reference["value"]);
    // verify derives every value and every plies count again from the children.
    assert!(ok(&["verify", s, "--one-step"]).starts_with("ok: "));
    assert!(ok(&["verify", s]).starts_with("ok: "));
}

/// What the note of each floor winner says of strategies.
const SHEEP_STRATEGY: &str =
    "the sheep's winning moves are a winning strategy in the real game, the foxes' moves are not a strategy of it";
const FOX_STRATEGY: &str = "the foxes' moves that hold a draw or a win are a strategy for it in the real game, \
                            the sheep's moves are not a strategy of it";

#[test]
fn probe_and_versus_on_bounded_tables_say_whose_moves_are_a_real_game_strategy() {
    for (winner, says, not) in [("foxes", SHEEP_STRATEGY, FOX_STRATEGY), ("sheep", FOX_STRATEGY, SHEEP_STRATEGY)] {
        let dir = TempDir::new(&format!("strategy-{winner}"));
        solve(&dir.0, winner, &["--no-distance"]);
        let s = dir.0.to_str().unwrap();
        let probed = ok(&["probe", START, "--tables", s]);
        let first = probed.lines().next().unwrap();
        assert!(first.starts_with("bound: sheep floor 3") && first.ends_with(says), "{winner}: {first}");
        assert!(!probed.contains(not), "{winner}: {probed}");
        assert!(ok_json(&["probe", START, "--tables", s, "--json"])["bound"]["note"].as_str().unwrap().ends_with(says));
        let played = ok(&["versus", "--tables", s, "--side", "none", "--start", START, "--seed", "1"]);
        assert!(played.lines().next().unwrap().ends_with(says), "{winner}: {played}");
    }
}

/// The sheep's moves of floored tables are a strategy of the real game:
/// from a start the sheep win under the floor (one fox against four
/// sheep, K = 2, F = 3: a win giving up at most one sheep), the engine's
/// sheep win the exact game (F = K) against every fox reply, every
/// position on the way a sheep win of the exact game (the reference
/// solver's), and the game ends within the start's plies to the end.
#[test]
fn the_engines_sheep_from_floored_tables_win_the_exact_game_against_every_fox_reply() {
    const ONE_FOX: &str = ".F./.../......./......./SSSS.../.../... f";
    let dir = TempDir::new("floor-strategy");
    let d = dir.0.to_str().unwrap();
    ok(&["solve", "--start", ONE_FOX, "--pen-target", "2", "--sheep-floor", "3", "--distance", "dtm", "--out", d]);
    let tables = FoxTables::open(&dir.0).unwrap();
    let start = parse_position(ONE_FOX).unwrap();
    let exact_variant = Variant::new(Geometry::Classic, 2, start).unwrap();
    let exact = ReferenceSolution::solve_with_plies(&exact_variant, 5_000_000).unwrap();
    let rules = exact_variant.rules();
    let bound = tables.outcome(&start).unwrap();
    assert_eq!(bound.value, GameValue::Loss, "the foxes to move lose under the floor");
    let bound = bound.plies.unwrap();
    // The engine's move depends on the position alone (its seed is mixed
    // with the position), so its sheep are a strategy: every fox reply is
    // followed once per position, and the plies to the end falling at every
    // ply bounds every game by the start's.
    let (mut seen, mut stack) = (HashSet::new(), vec![start]);
    let (mut ends, mut fox_replies, mut captures) = (0, 0, 0);
    while let Some(pos) = stack.pop() {
        if !seen.insert(pos) {
            continue;
        }
        let shown = format_position(&pos);
        let sheep_win = if pos.side() == Side::Sheep { GameValue::Win } else { GameValue::Loss };
        let here = tables.outcome(&pos).unwrap();
        assert_eq!(here.value, sheep_win, "{shown}: not a sheep win under the floor");
        assert_eq!(exact.value(&pos), Some(sheep_win), "{shown}: not a sheep win of the exact game");
        let plies = here.plies.unwrap();
        assert!(exact.plies(&pos).unwrap() <= plies, "{shown}: the exact game's win is longer");
        if let Status::Over { winner, .. } = rules.status(&pos) {
            assert_eq!((winner, plies), (Side::Sheep, 0), "{shown}: over in the exact game");
            ends += 1;
            continue;
        }
        let next: Vec<_> = if pos.side() == Side::Sheep {
            let choice = engine_move(&tables, &pos, 1).unwrap().unwrap_or_else(|| panic!("{shown}: no move"));
            vec![rules.play(&pos, choice.mv)]
        } else {
            let replies = rules.moves(&pos);
            fox_replies += replies.len();
            captures += replies.iter().filter(|m| m.jump).count();
            replies.into_iter().map(|m| rules.play(&pos, m)).collect()
        };
        for after in next {
            let later = tables.outcome(&after).unwrap().plies.unwrap();
            assert!(later < plies, "{shown} -> {}: {later} plies after {plies}", format_position(&after));
            stack.push(after);
        }
    }
    // A 14-ply win; 57 of the foxes' replies capture a sheep (the one the floor allows).
    assert_eq!((bound, seen.len(), ends, fox_replies, captures), (14, 1519, 472, 1044, 57));
}

/// The kernels' two `pdep`/`pext` paths (`FOXBASE_PDEP`, which the CPU
/// picks otherwise) write byte-identical tables, under a floor won by
/// either side and with DTZ, in both geometries: four sheep on ranks 1-2,
/// every sheep step a chance to trap a fox. A bad setting is reported and
/// the CPU's own path is used.
#[test]
fn both_pdep_paths_write_the_same_tables() {
    let has_bmi2 = foxbase_core::cpu::bmi2_support().present;
    let root = TempDir::new("pdep-paths");
    let start = "F.F/.../......./......./......./.S./SSS f";
    let mut compared = 0;
    for (geometry, winner, distance) in
        [("classic", "foxes", "--no-distance"), ("orthogonal", "sheep", "--no-distance"), ("classic", "sheep", "dtz")]
    {
        let tiers = |path: &str| {
            let out = root.0.join(format!("{geometry}-{winner}-{distance}-{path}"));
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_foxbase"));
            cmd.env("FOXBASE_PDEP", path).args([
                "solve",
                "--start",
                start,
                "--geometry",
                geometry,
                "--pen-target",
                "2",
                "--sheep-floor",
                "3",
                "--floor-winner",
                winner,
                "--out",
                out.to_str().unwrap(),
            ]);
            if distance == "--no-distance" {
                cmd.arg("--no-distance");
            } else {
                cmd.args(["--distance", distance]);
            }
            let o = cmd.output().unwrap();
            assert!(o.status.success(), "{path}: {}", String::from_utf8_lossy(&o.stderr));
            let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(out.join("tiers"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
                .collect();
            files.sort();
            files
        };
        let portable = tiers("portable");
        assert!(portable.len() > 20, "{} tier files", portable.len());
        if has_bmi2 {
            assert!(tiers("bmi2") == portable, "{geometry} {winner} {distance}: the two paths' tables differ");
            compared += 1;
        }
    }
    assert!(!has_bmi2 || compared == 3);
    let out = root.0.join("bad-setting");
    let o = Command::new(env!("CARGO_BIN_EXE_foxbase"))
        .env("FOXBASE_PDEP", "fast")
        .args(["solve", "--start", start, "--pen-target", "2", "--no-distance", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("ignoring FOXBASE_PDEP=fast: expected 'bmi2' or 'portable'"), "{stderr}");
}
