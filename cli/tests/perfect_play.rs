//! Perfect play from tables with plies: the engine (`foxbase versus`)
//! ends every sampled won game in exactly the stated number of plies;
//! puzzles have exactly one good move and a solution as long as stated;
//! stats add up to the manifest; probe's JSON carries plies; published
//! tables give the solved plies; verify catches a damaged plies file.

mod common;

use common::TempDir;
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Side, Value, Variant};
use foxbase_tables::engine::engine_move;
use foxbase_tables::puzzles::{find_puzzles, PuzzleKind, PuzzleOptions};
use foxbase_tables::{FoxTables, Tablebase};
use foxbase_worker::kernel::{Kernel, Output};
use serde_json::Value as Json;
use std::collections::HashSet;
use std::process::{Command, Stdio};

struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &foxbase_worker::job::TierReport, _: usize, _: u64) {}
}

/// Two foxes against three sheep, K = 2, orthogonal: wins and losses for both sides.
const START: &str = "F.F/.../......./......./..SSS../.../... f";

fn variant() -> Variant {
    Variant::new(Geometry::Orthogonal, 2, parse_position(START).unwrap()).unwrap()
}

fn solve(dir: &TempDir) -> foxbase_tables::manifest::Manifest {
    solve_for(dir, Output::Dtm)
}

/// The test variant solved with `output`, sealed into `dir`.
fn solve_for(dir: &TempDir, output: Output) -> foxbase_tables::manifest::Manifest {
    let game = FoxGame::new(variant());
    let plan = TierPlan::new(&game);
    let options =
        LocalOptions { workers: 1, threads_per_worker: 2, kernel: Kernel::Counter, output, ..Default::default() };
    let m = solve_local(&game, &plan, &dir.0, options, &Quiet).unwrap();
    foxbase_tables::seal::seal(&dir.0, m).unwrap().0
}

fn foxbase(args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_foxbase"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run foxbase");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn engine_games_from_won_positions_end_in_exactly_the_stated_plies() {
    let dir = TempDir::new("engine");
    solve(&dir);
    let tables = FoxTables::open(&dir.0).unwrap();
    let rules = tables.game.rules;
    let reference = ReferenceSolution::solve_with_plies(&variant(), 5_000_000).unwrap();
    let mut played = [0usize; 2];
    let mut longest = 0;
    for (n, (pos, value)) in reference.iter().enumerate() {
        if value == Value::Draw || tables.game.primitive(&pos).is_some() || n % 89 != 0 {
            continue;
        }
        let stated = tables.outcome(&pos).unwrap();
        assert_eq!((stated.value, stated.plies), (value, reference.plies(&pos)), "{}", format_position(&pos));
        let winner = if value == Value::Win { pos.side() } else { pos.side().other() };
        let (mut at, mut plies) = (pos, 0u32);
        while let Some(choice) = engine_move(&tables, &at, plies as u64).unwrap() {
            at = rules.play(&at, choice.mv);
            plies += 1;
        }
        let end = tables.outcome(&at).unwrap();
        let won_by = if end.value == Value::Win { at.side() } else { at.side().other() };
        assert_eq!(won_by, winner, "{}: the game ended in {}", format_position(&pos), format_position(&at));
        assert_eq!(Some(plies), stated.plies, "{}: the engine's game took {plies} plies", format_position(&pos));
        played[(winner == Side::Sheep) as usize] += 1;
        longest = longest.max(plies);
    }
    assert!(played[0] > 10 && played[1] > 10, "games won by each side: {played:?}");
    assert!(longest >= 10, "some games are long: {longest}");
}

#[test]
fn versus_plays_the_engine_against_itself_and_you_from_standard_input() {
    let dir = TempDir::new("versus");
    solve(&dir);
    let tables = FoxTables::open(&dir.0).unwrap();
    let d = dir.0.to_str().unwrap();
    // A won position for the foxes: the engine ends the game in the stated plies.
    let reference = ReferenceSolution::solve_with_plies(&variant(), 5_000_000).unwrap();
    let (pos, _) = reference
        .iter()
        .find(|(p, v)| *v == Value::Win && p.side() == Side::Fox && reference.plies(p).is_some_and(|n| n >= 5))
        .expect("a fox win of five plies or more");
    let plies = tables.outcome(&pos).unwrap().plies.unwrap();
    let start = format_position(&pos);
    let out = foxbase(&["versus", "--tables", d, "--side", "none", "--start", &start, "--seed", "7"], "");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.trim_end().ends_with(&format!("game over after {plies} plies: the foxes win")), "{stdout}");
    assert!(stdout.contains(&format!("the foxes win in {plies} plies")), "{stdout}");
    // The same seed replays the same game.
    let again = foxbase(&["versus", "--tables", d, "--side", "none", "--start", &start, "--seed", "7"], "");
    assert_eq!(String::from_utf8(again.stdout).unwrap(), stdout);
    // You play the foxes from the start: an illegal move is reported and asked again; the
    // input ends before the game does: exit 2 with a message.
    let out = foxbase(&["versus", "--tables", d, "--side", "fox"], "a1-a2\nc7-c6\n");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("try again"), "{stderr}");
    assert!(stderr.contains("standard input ended before the game did"), "{stderr}");
    assert!(stdout.contains("engine (sheep) plays"), "{stdout}");
    // Bad flags name themselves.
    let out = foxbase(&["versus", "--tables", d, "--side", "wolf"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--side"));
}

#[test]
fn puzzles_have_one_good_move_and_solutions_as_long_as_stated() {
    let dir = TempDir::new("puzzles");
    solve(&dir);
    let tables = FoxTables::open(&dir.0).unwrap();
    let rules = tables.game.rules;
    let options = PuzzleOptions { count: 12, max_plies: 15, side: None, seed: 3 };
    let found = find_puzzles(&tables, &options).unwrap();
    assert_eq!(found.len(), 12);
    assert_eq!(find_puzzles(&tables, &options).unwrap(), found, "the same seed, the same puzzles");
    for p in &found {
        let moves = tables.move_outcomes(&p.position).unwrap();
        let keep = if p.kind == PuzzleKind::Win { Value::Win } else { Value::Draw };
        let good: Vec<_> = moves.iter().filter(|(_, o)| o.value == keep).collect();
        assert_eq!(good.len(), 1, "{}", format_position(&p.position));
        assert!(moves.len() > 1);
        assert!(moves.iter().all(|(_, o)| o.value != Value::Win || keep == Value::Win));
        assert_eq!(good[0].0, p.solution[0]);
        if p.kind == PuzzleKind::Win {
            assert!(p.plies.unwrap() <= 15);
            assert_eq!(p.solution.len() as u32, p.plies.unwrap(), "{}", format_position(&p.position));
            let mut at = p.position;
            for &m in &p.solution {
                rules.check_move(&at, m).unwrap();
                at = rules.play(&at, m);
            }
            assert!(tables.game.primitive(&at).is_some(), "the solution ends the game");
        }
    }
    let sheep = find_puzzles(&tables, &PuzzleOptions { side: Some(Side::Sheep.name()), ..options }).unwrap();
    assert!(sheep.iter().all(|p| p.position.side() == Side::Sheep));
    let out = foxbase(&["puzzles", "--tables", dir.0.to_str().unwrap(), "--count", "2", "--json"], "");
    assert!(out.status.success());
    let lines: Vec<Json> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["solution"].as_array().is_some_and(|s| !s.is_empty()));
}

/// With plies to zeroing a win puzzle's plies are those to the first move
/// of its solution that leaves the position's tier (rounded up to odd, as
/// a win's count is when the loser makes that move), and the solution still
/// plays to the end of the game.
#[test]
fn dtz_puzzles_count_plies_to_the_first_zeroing_move_of_their_solution() {
    let dir = TempDir::new("puzzles-dtz");
    solve_for(&dir, Output::Dtz);
    let tables = FoxTables::open(&dir.0).unwrap();
    let (game, rules) = (&tables.game, tables.game.rules);
    let found = find_puzzles(&tables, &PuzzleOptions { count: 12, max_plies: 15, side: None, seed: 3 }).unwrap();
    assert_eq!(found.len(), 12);
    let mut wins = 0;
    for p in found.iter().filter(|p| p.kind == PuzzleKind::Win) {
        wins += 1;
        let plies = p.plies.unwrap();
        assert!(plies <= 15);
        let mut at = p.position;
        let mut zeroing = None;
        for (n, &m) in p.solution.iter().enumerate() {
            let next = rules.play(&at, m);
            if zeroing.is_none() && game.tier_of(&next) != game.tier_of(&p.position) {
                zeroing = Some(n as u32 + 1);
            }
            at = next;
        }
        assert!(game.primitive(&at).is_some(), "the solution ends the game");
        assert_eq!(zeroing.map(|z| z | 1), Some(plies), "{}", format_position(&p.position));
    }
    assert!(wins > 0);
    let out = foxbase(&["puzzles", "--tables", dir.0.to_str().unwrap(), "--count", "2", "--json"], "");
    assert!(out.status.success());
    let first: Json = serde_json::from_str(String::from_utf8(out.stdout).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first["distance"], "dtz");
    let text = String::from_utf8(foxbase(&["puzzles", "--tables", dir.0.to_str().unwrap()], "").stdout).unwrap();
    assert!(text.lines().any(|l| l.contains(" to zeroing; only ")), "{text}");
}

#[test]
fn stats_add_up_to_the_manifest_and_find_the_longest_win() {
    let dir = TempDir::new("stats");
    let manifest = solve(&dir);
    let tables = FoxTables::open(&dir.0).unwrap();
    let s = foxbase_tables::stats::stats(&tables).unwrap();
    let (w, d, l) = s.more.by_material.values().fold((0, 0, 0), |a, x| (a.0 + x.wins, a.1 + x.draws, a.2 + x.losses));
    let m = |f: fn(&foxbase_tables::manifest::TierEntry) -> u64| manifest.tiers.iter().map(f).sum::<u64>();
    assert_eq!((w, d, l), (m(|t| t.wins), m(|t| t.draws), m(|t| t.losses)));
    let (plies, pos) = s.longest_win.expect("the variant has wins");
    assert_eq!(tables.outcome(&pos).unwrap(), foxbase_core::Outcome { value: Value::Win, plies: Some(plies) });
    let longest_any = manifest.tiers.iter().map(|t| t.plies.as_ref().unwrap().longest).max().unwrap();
    assert!(plies == longest_any || plies + 1 == longest_any, "{plies} vs {longest_any}");
    // Each square counts every position with a fox on it: two foxes, so twice the positions in all.
    let squares: u64 = s.more.by_fox_square.iter().flatten().map(|w| w.total()).sum();
    let positions: u64 = {
        let game = &tables.game;
        manifest
            .tiers
            .iter()
            .map(|t| {
                let tier = game.parse_tier_name(&t.name).unwrap();
                let index = game.tier_index(tier);
                let mut n = 0u64;
                game.for_each_slot(&index, 0..t.slots, |_, p| {
                    if let Some(p) = p {
                        n += p.fox_count() as u64 * if p.mirror() == p { 1 } else { 2 };
                    }
                });
                n
            })
            .sum()
    };
    assert_eq!(squares, positions);
    let out = foxbase(&["stats", "--tables", dir.0.to_str().unwrap(), "--json"], "");
    assert!(out.status.success());
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["longest_win"]["plies"], plies);
}

#[test]
fn probe_json_gives_plies_and_published_tables_give_the_same() {
    let dir = TempDir::new("probe");
    solve(&dir);
    let published = TempDir::new("pub");
    let out_dir = published.0.join("t");
    let d = dir.0.to_str().unwrap();
    let out = foxbase(&["publish", d, out_dir.to_str().unwrap(), "--json"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let published: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert!(published["plies_bytes"].as_u64().unwrap() > 0);
    // Both layouts verify, plies included.
    for dir in [d, out_dir.to_str().unwrap()] {
        let v = foxbase(&["verify", dir, "--json"], "");
        assert!(v.status.success(), "{dir}: {}", String::from_utf8_lossy(&v.stdout));
    }
    let reference = ReferenceSolution::solve_with_plies(&variant(), 5_000_000).unwrap();
    let mut compared = 0;
    for (n, (pos, _)) in reference.iter().enumerate() {
        if n % 997 != 0 || FoxGame::new(variant()).primitive(&pos).is_some() {
            continue;
        }
        let text = format_position(&pos);
        let probe = |tables: &str| -> Json {
            let out = foxbase(&["probe", &text, "--tables", tables, "--json"], "");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            serde_json::from_slice(&out.stdout).unwrap()
        };
        let solved = probe(d);
        assert_eq!(solved, probe(out_dir.to_str().unwrap()), "{text}");
        assert_eq!(solved["plies"].as_u64().map(|p| p as u32), reference.plies(&pos), "{text}");
        for m in solved["moves"].as_array().unwrap() {
            let after = rules_play(&pos, m["move"].as_str().unwrap());
            assert_eq!(m["plies"].as_u64().map(|p| p as u32), reference.plies(&after).map(|p| p + 1), "{text}");
        }
        compared += 1;
    }
    assert!(compared > 20, "{compared}");
    // The dataset: a sample is reproducible, and each line agrees with probe.
    let export = |seed: &str| foxbase(&["export", "--tables", d, "--sample", "6", "--seed", seed], "").stdout;
    assert_eq!(export("4"), export("4"));
    assert_ne!(export("4"), export("5"));
    let lines: Vec<Json> =
        String::from_utf8(export("4")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 6);
    for l in &lines {
        let p = foxbase(&["probe", l["position"].as_str().unwrap(), "--tables", d, "--json"], "");
        let p: Json = serde_json::from_slice(&p.stdout).unwrap();
        assert_eq!((&l["value"], &l["plies"]), (&p["value"], &p["plies"]));
        for m in l["optimal"].as_array().unwrap() {
            let probed = p["moves"].as_array().unwrap().iter().find(|x| x["move"] == m["move"]).unwrap();
            assert_eq!(probed["value"], p["value"], "an optimal move keeps the value: {l}");
        }
    }
}

fn rules_play(pos: &foxbase_core::Position, mv: &str) -> foxbase_core::Position {
    let rules = variant().rules();
    rules.play(pos, foxbase_core::notation::parse_move(&rules, pos, mv).unwrap())
}

#[test]
fn verify_names_a_plies_file_whose_plies_disagree_with_the_children() {
    let dir = TempDir::new("damaged");
    let manifest = solve(&dir);
    let game = FoxGame::new(variant());
    // Raise one won position's plies by 2 (the parity stays, the distance is wrong).
    let entry = manifest
        .tiers
        .iter()
        .find(|t| t.wins > 0 && t.plies.as_ref().is_some_and(|p| p.longest > 3))
        .expect("a tier with wins");
    let tier = game.parse_tier_name(&entry.name).unwrap();
    let header = foxbase_tables::tier_files::table_header(&game, tier, entry.slots);
    let values = foxbase_tables::table::read_table(&dir.0.join(&entry.file), &header).unwrap();
    let pfile = entry.plies.as_ref().unwrap().file.clone();
    let mut plies = foxbase_tables::plies::read_plies(&dir.0.join(&pfile), &header, &values).unwrap();
    let slot = (0..entry.slots).find(|&i| values.value(i) == Some(Value::Win)).unwrap();
    plies.set(slot, plies.get(slot) + 2);
    let (crc, bytes) = foxbase_tables::table::write_plies(
        &dir.0.join(&pfile),
        &header,
        &plies,
        None,
        foxbase_tables::table::ZSTD_LEVEL,
        foxbase_tables::Layout::Solved,
    )
    .unwrap();
    let mut m = manifest.clone();
    for t in &mut m.tiers {
        if t.name == entry.name {
            let p = t.plies.as_mut().unwrap();
            (p.crc32, p.bytes, p.longest) = (format!("{crc:08x}"), bytes, plies.max() as u32);
        }
    }
    m.write(&dir.0).unwrap();
    let out = foxbase(&["verify", dir.0.to_str().unwrap(), "--json"], "");
    assert_eq!(out.status.code(), Some(1));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["problem"]["file"], pfile);
    // The damaged position, or a parent in the same tier checked before it.
    assert!(j["problem"]["position"].is_string(), "{j}");
    let message = j["problem"]["message"].as_str().unwrap();
    assert!(message.contains("plies") && message.contains(&entry.name), "{j}");
}

/// Tic-tac-toe through the CLI: solve (Fox flags refused), probe, stats,
/// versus and the exported dataset: 4,520 positions with a move reachable
/// from the empty board, the empty board a draw whose every first move
/// keeps the draw, and after X in a corner only the centre holds for O.
#[test]
fn tictactoe_through_the_cli_and_its_exported_dataset() {
    let dir = TempDir::new("ttt");
    let out = dir.0.join("t");
    let o = out.to_str().unwrap();
    let refused = foxbase(&["solve", "--game", "tictactoe", "--pen-target", "3", "--out", o], "");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--pen-target is a Fox Game flag"));
    // Plies to the end: every tic-tac-toe move leaves its tier, so plies to
    // zeroing are 1 or 2 and would not tell the quickest win.
    let solved = foxbase(&["solve", "--game", "tictactoe", "--distance", "dtm", "--out", o, "--json"], "");
    assert!(solved.status.success(), "{}", String::from_utf8_lossy(&solved.stderr));
    let j: Json = serde_json::from_slice(&solved.stdout).unwrap();
    assert_eq!((j["value"].as_str(), j["tiers"].as_u64()), (Some("draw"), Some(10)));

    let probe = foxbase(&["probe", "X../.../... o", "--tables", o, "--json"], "");
    let p: Json = serde_json::from_slice(&probe.stdout).unwrap();
    assert_eq!(p["value"], "draw");
    let losing: Vec<_> = p["moves"].as_array().unwrap().iter().filter(|m| m["value"] == "loss").collect();
    assert_eq!(losing.len(), 7, "{p}");
    assert!(losing.iter().all(|m| m["plies"].as_u64().is_some()), "{p}");

    let export = foxbase(&["export", "--tables", o], "");
    assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
    let lines: Vec<Json> =
        String::from_utf8(export.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4_520);
    let empty = lines.iter().find(|l| l["position"] == ".../.../... x").unwrap();
    assert_eq!(empty["value"], "draw");
    let first: HashSet<&str> =
        empty["optimal"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap()).collect();
    assert_eq!(first, ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"].into_iter().collect());
    let corner = lines.iter().find(|l| l["position"] == "X../.../... o").unwrap();
    assert_eq!(corner["optimal"], serde_json::json!([{"move": "b2", "plies": null, "best": true}]));
    // A won position marks its quickest wins.
    let won = lines.iter().find(|l| l["value"] == "win" && l["optimal"].as_array().unwrap().len() > 1).unwrap();
    let best: Vec<u64> = won["optimal"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["best"] == true)
        .map(|m| m["plies"].as_u64().unwrap())
        .collect();
    assert!(best.iter().all(|&b| b == won["plies"].as_u64().unwrap()), "{won}");

    let stats = foxbase(&["stats", "--tables", o, "--json"], "");
    let s: Json = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(s["longest_win"]["plies"], 5);
    // verify checks tic-tac-toe's tables through the tier contract: every used slot against its children.
    let verify = foxbase(&["verify", o, "--json"], "");
    assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stderr));
    let v: Json = serde_json::from_slice(&verify.stdout).unwrap();
    // 789 canonical positions: the 61 whose side to move alone has a line cannot arise (unused slots).
    // Each tier made complete once and held in memory, nothing spilled.
    let walk = serde_json::json!({"completed": 10, "kept_high_water_bytes": 3780, "spill_high_water_bytes": 0,
        "spill_reads": 0, "spilled": 0});
    assert_eq!(v, serde_json::json!({"ok": true, "tiers": 10, "positions": 789, "problem": null, "walk": walk}));
    let versus = foxbase(&["versus", "--tables", o, "--side", "none", "--seed", "1"], "");
    assert!(String::from_utf8(versus.stdout).unwrap().trim_end().ends_with("game over after 9 plies: a draw"));
}

/// The plane kernel keeps plies in one byte a slot while solving, and in
/// two when a count passes 255; forced to two bytes, it writes the same
/// tables and plies files.
#[test]
fn two_byte_plies_in_memory_write_the_same_files() {
    let dir = TempDir::new("bytes");
    solve(&dir);
    let wide = TempDir::new("wide");
    let out = Command::new(env!("CARGO_BIN_EXE_foxbase"))
        .args(["solve", "--start", START, "--geometry", "orthogonal", "--pen-target", "2", "--threads", "2"])
        .args(["--distance", "dtm", "--out", wide.0.to_str().unwrap()])
        .env("FOXBASE_PLIES_BYTES", "2")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files = |d: &TempDir| {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d.0.join("tiers"))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
            })
            .collect();
        v.sort();
        v
    };
    let (a, b) = (files(&dir), files(&wide));
    assert!(a.len() > 20 && a.iter().any(|(n, _)| n.ends_with(".fxp")));
    assert!(a == b, "the files differ");
}
