//! The no-progress rule (`--no-progress N`, RULES.md "Draws"), solved
//! exactly: a tablebase stores the values at counter 0 with exact
//! distances to zeroing, and the value at counter c follows. Checked here
//! against a direct search over (position, counter) states written from
//! RULES.md alone, for several N; with N large enough the values are the
//! unlimited game's.

mod common;

use common::TempDir;
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::board::Point;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::rules::{Rules, Status};
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Position, Value, Variant};
use foxbase_tables::{FoxTables, Tablebase};
use foxbase_worker::kernel::{Kernel, Output};
use std::collections::HashMap;
use std::path::Path;

struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &foxbase_worker::job::TierReport, _: usize, _: u64) {}
}

fn variant(no_progress: u32) -> Variant {
    let start = parse_position(".F./.../......./......./..SSS../.../... s").unwrap();
    Variant::new(Geometry::Classic, 2, start).unwrap().with_no_progress(no_progress).unwrap()
}

/// Solves with the default kernel (the plane kernel), as `foxbase solve` does.
fn solve(variant: &Variant, dir: &Path) {
    solve_with(variant, dir, Kernel::Planes, 2);
}

fn solve_with(variant: &Variant, dir: &Path, kernel: Kernel, threads_per_worker: usize) {
    let game = FoxGame::new(*variant);
    let plan = TierPlan::new(&game);
    let output = if variant.no_progress > 0 { Output::Dtz } else { Output::Values };
    let options = LocalOptions { workers: 1, threads_per_worker, kernel, output, ..Default::default() };
    let m = solve_local(&game, &plan, dir, options, &Quiet).unwrap();
    foxbase_tables::seal::seal(dir, m).unwrap();
}

/// RULES.md: a progress move raises the sheep's rank sum or takes a piece off the board.
fn is_progress(pos: &Position, child: &Position) -> bool {
    let rank_sum = |p: &Position| Point::iter(p.sheep()).map(|q| q.y()).sum::<i32>();
    child.sheep_count() < pos.sheep_count() || child.fox_count() < pos.fox_count() || rank_sum(child) != rank_sum(pos)
}

/// The value for the side to move of every (position, counter) state
/// reachable from the start at counter 0, by RULES.md: after a move that
/// does not end the game the counter is reset by progress and incremented
/// otherwise, and a counter of `n` is a draw. Solved by sweeps to a fixed point.
fn oracle(rules: &Rules, start: Position, n: u32) -> HashMap<(Position, u32), Value> {
    let over = |pos: &Position| match rules.status(pos) {
        Status::Over { winner, .. } => Some(if winner == pos.side() { Value::Win } else { Value::Loss }),
        Status::Ongoing => None,
    };
    let mut index: HashMap<(Position, u32), usize> = HashMap::new();
    let mut states: Vec<(Position, u32)> = vec![(start, 0)];
    index.insert((start, 0), 0);
    // A state's successors; a terminal state has a fixed value instead.
    let mut children: Vec<Vec<usize>> = Vec::new();
    let mut fixed: Vec<Option<Value>> = Vec::new();
    let mut i = 0;
    while i < states.len() {
        let (pos, c) = states[i];
        let mut next = Vec::new();
        let terminal = over(&pos).or((c >= n).then_some(Value::Draw));
        if terminal.is_none() {
            for m in rules.moves(&pos) {
                let child = rules.play(&pos, m);
                let cc = if over(&child).is_some() || is_progress(&pos, &child) { 0 } else { c + 1 };
                let k = *index.entry((child, cc)).or_insert_with(|| {
                    states.push((child, cc));
                    states.len() - 1
                });
                next.push(k);
            }
        }
        children.push(next);
        fixed.push(terminal);
        i += 1;
        assert!(states.len() < 3_000_000, "too many states for the oracle");
    }
    let mut value: Vec<Option<Value>> = fixed.clone();
    loop {
        let mut changed = false;
        for s in 0..states.len() {
            if value[s].is_some() {
                continue;
            }
            let kids = &children[s];
            if kids.iter().any(|&k| value[k] == Some(Value::Loss)) {
                value[s] = Some(Value::Win);
                changed = true;
            } else if kids.iter().all(|&k| value[k] == Some(Value::Win)) {
                value[s] = Some(Value::Loss);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    states.into_iter().zip(value).map(|(s, v)| (s, v.unwrap_or(Value::Draw))).collect()
}

#[test]
fn values_at_every_counter_equal_a_search_over_positions_and_counters() {
    for n in [3, 8, 20] {
        let v = variant(n);
        let dir = TempDir::new("no-progress");
        solve(&v, &dir.0);
        let tables = FoxTables::open(&dir.0).unwrap();
        assert_eq!(tables.no_progress(), n);
        let expected = oracle(&v.rules(), v.start, n);
        let (mut counted, mut by_value) = (0, [0usize; 3]);
        let mut changed_by_counter = 0;
        for (&(pos, c), &value) in &expected {
            let at = |c| foxbase_tables::plies::at_counter(tables.outcome_in_memory(&pos).unwrap(), c, n);
            let got = at(c);
            assert_eq!(got.value, value, "N = {n}: {} at counter {c}", format_position(&pos));
            if c > 0 && at(0).value != value {
                changed_by_counter += 1;
            }
            counted += 1;
            by_value[value.code() as usize] += 1;
        }
        assert!(counted > 1000 && by_value.iter().all(|&k| k > 0), "N = {n}: {counted} states, {by_value:?}");
        assert!(changed_by_counter > 0, "N = {n}: no value depends on the counter");
        // Published (fox-to-move values and distances derived by one move): the same at every counter.
        let published = TempDir::new("no-progress-published");
        let _ = std::fs::remove_dir_all(&published.0);
        let out = common::foxbase()
            .args(["publish", dir.0.to_str().unwrap(), published.0.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let p = FoxTables::open(&published.0).unwrap();
        for (&(pos, c), &value) in expected.iter().step_by(41) {
            let at = format!("published, N = {n}: {} at {c}", format_position(&pos));
            assert_eq!(p.outcome_at(&pos, c).unwrap().value, value, "{at}");
            assert_eq!(p.outcome(&pos).unwrap(), tables.outcome_in_memory(&pos).unwrap(), "{at}");
        }
        // Moves at a counter: the best move's value is the position's, in every state of a sample.
        let mut sample: Vec<&(Position, u32)> =
            expected.keys().filter(|(p, c)| *c > 0 && *c < n && tables.game.primitive(p).is_none()).collect();
        sample.sort();
        for &(pos, c) in sample.into_iter().step_by(97) {
            let moves = tables.move_outcomes_at(&pos, c).unwrap();
            let best = moves.iter().map(|(_, o)| o.value).max_by_key(|v| match v {
                Value::Win => 2,
                Value::Draw => 1,
                Value::Loss => 0,
            });
            assert_eq!(best, Some(expected[&(pos, c)]), "N = {n}: {} at counter {c}", format_position(&pos));
        }
    }
}

/// Every `.fxt` (values) and `.fxp` (plies) file of a solve, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("tiers"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "fxt" || x == "fxp"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// The plane kernel's exact distances to zeroing (a ply of each side at a
/// time) are the counter kernel's, byte for byte, values and plies, on one
/// and two foxes, both geometries, either side first, a floor won by
/// either side, and caps from 1 ply to past the longest distance; one
/// thread and two write the same files.
#[test]
fn the_plane_kernel_writes_the_counter_kernels_files_under_the_rule() {
    let v =
        |g, k, start: &str, n| Variant::new(g, k, parse_position(start).unwrap()).unwrap().with_no_progress(n).unwrap();
    let variants = [
        v(Geometry::Classic, 2, ".F./.../......./......./..SSS../.../... s", 1),
        v(Geometry::Classic, 2, ".F./.../......./......./..SSS../.../... s", 7),
        v(Geometry::Classic, 3, ".F./.../......./......./..SSSS./.../... f", 20),
        v(Geometry::Orthogonal, 2, "F.F/.../......./......./..SSS../.../... f", 4),
        v(Geometry::Orthogonal, 2, "F.F/.../......./......./..SSS../.../... s", 255),
        v(Geometry::Classic, 2, "F.F/.../......./......./..SSS../.../... s", 12),
        v(Geometry::Classic, 2, "F.F/.../......./......./.SSSS../.../... f", 9)
            .with_sheep_floor(3, foxbase_core::Side::Sheep)
            .unwrap(),
        v(Geometry::Orthogonal, 2, "F.F/.../......./......./.SSSS../.../... s", 30)
            .with_sheep_floor(3, foxbase_core::Side::Fox)
            .unwrap(),
    ];
    for variant in variants {
        let (planes, planes1, counter) = (TempDir::new("np-p"), TempDir::new("np-p1"), TempDir::new("np-c"));
        solve_with(&variant, &planes.0, Kernel::Planes, 2);
        solve_with(&variant, &planes1.0, Kernel::Planes, 1);
        solve_with(&variant, &counter.0, Kernel::Counter, 2);
        let want = files(&counter.0);
        assert!(want.len() >= 4, "{variant:?}");
        let got = files(&planes.0);
        assert_eq!(got.len(), want.len());
        for ((name, a), (_, b)) in got.iter().zip(&want) {
            let at = format!("{} N = {}: {name}", format_position(&variant.start), variant.no_progress);
            assert!(a == b, "{at} differs from the counter kernel's");
        }
        assert!(files(&planes1.0) == got, "one thread and two");
    }
}

#[test]
fn with_n_large_enough_the_values_are_the_unlimited_games() {
    let (limited, plain) = (TempDir::new("no-progress-255"), TempDir::new("no-progress-0"));
    solve(&variant(255), &limited.0);
    solve(&variant(0), &plain.0);
    let (a, b) = (FoxTables::open(&limited.0).unwrap(), FoxTables::open(&plain.0).unwrap());
    let reference = ReferenceSolution::solve(&variant(0), 5_000_000).unwrap();
    for (pos, value) in reference.iter() {
        assert_eq!(b.outcome_in_memory(&pos).unwrap().value, value);
        assert_eq!(a.outcome_in_memory(&pos).unwrap().value, value, "{}", format_position(&pos));
    }
    // And `verify` checks the capped distances one position at a time.
    let out = common::foxbase().args(["verify", limited.0.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_cli_refuses_what_the_rule_cannot_do() {
    let dir = TempDir::new("no-progress-cli");
    let d = dir.0.to_str().unwrap();
    let start = ".F./.../......./......./..SSS../.../... s";
    let run = |extra: &[&str]| {
        common::foxbase()
            .args(["solve", "--start", start, "--pen-target", "2", "--out", d])
            .args(extra)
            .output()
            .unwrap()
    };
    for (flags, says) in [
        (&["--no-progress", "256"][..], "--no-progress"),
        (&["--no-progress", "20", "--distance", "dtm"][..], "--no-progress 20 computes distances to zeroing"),
        (&["--no-progress", "20", "--no-distance"][..], "not --distance none"),
    ] {
        let out = run(flags);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(stderr.contains(says), "{flags:?}: {stderr}");
    }
    let out = run(&["--no-progress", "6", "--threads", "1", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["kernel"], "planes", "the kernel that ran: {summary}");
    let probe = |position: &str| common::foxbase().args(["probe", position, "--tables", d]).output().unwrap();
    let out = probe(&format!("{start} 7"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the no-progress counter 7 is out of range: 0 to 6"));
    let out = probe(&format!("{start} 2"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("this position's counter: 2"), "{stdout}");
    // versus counts the plies without progress: a fox win at counter 0 is played out; at counter 2
    // the same position is a draw, and the game ends in one by the rule.
    let won = ".../.../SS...../....F../......./.../... f";
    let versus = |start: &str| {
        let out =
            common::foxbase().args(["versus", "--tables", d, "--side", "none", "--start", start]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let game = versus(won);
    assert!(game.trim_end().ends_with("game over after 5 plies: the foxes win"), "{game}");
    let game = versus(&format!("{won} 2"));
    assert!(game.contains(&format!("{won} 2: draw for the foxes to move")), "{game}");
    assert!(game.trim_end().ends_with("a draw (6 plies without progress)"), "{game}");
    let manifest = std::fs::read_to_string(dir.0.join("manifest.json")).unwrap();
    assert!(manifest.contains("no_progress") && manifest.contains("\"distance\": \"dtz\""), "{manifest}");
}

/// The rules count the counter as RULES.md says (this file's `is_progress`)
/// on every move of the positions reachable in four plies, and `show`,
/// `moves` and `play` read, count and print it: a sideways sheep step at
/// N - 1 draws, an advance resets it, a move after the draw is refused.
#[test]
fn show_moves_and_play_count_the_no_progress_counter() {
    use foxbase_core::play::Playable;
    let rules = variant(40).rules();
    let mut layer = vec![parse_position("F.F/.../......./......./SSSSSSS/SSS/... f").unwrap()];
    for _ in 0..4 {
        let mut next = Vec::new();
        for pos in &layer {
            for (_, child) in Playable::moves(&rules, pos) {
                let want = if is_progress(pos, &child) { 0 } else { 8 };
                assert_eq!(rules.counter_after(pos, &child, 7), want, "{}", format_position(&child));
                next.push(child);
            }
        }
        layer = next;
    }
    let run = |args: &[&str]| {
        let o = common::foxbase().args(args).args(["--pen-target", "7", "--no-progress", "40"]).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let start = ".F./.../......./......./SSSSSSS/.S./... s 39";
    let (code, out, _) = run(&["show", start]);
    assert_eq!(code, Some(0));
    assert!(out.contains("no-progress counter: 39 of 40 plies") && out.ends_with("game goes on\n"), "{out}");
    let (code, out, _) = run(&["moves", start]);
    assert_eq!(code, Some(0));
    assert!(out.contains("d2-c2   .F./.../......./......./SSSSSSS/S../... f 40  game over: a draw"), "{out}");
    assert!(out.contains("a3-a4   .F./.../......./S....../.SSSSSS/.S./... f 0  game goes on"), "{out}");
    let (code, out, _) = run(&["moves", start, "--json"]);
    assert_eq!(code, Some(0));
    let view: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(view["position"], start);
    assert_eq!(view["moves"][0]["position"], ".F./.../......./......./SSSSSSS/S../... f 40");
    assert_eq!(view["moves"][0]["status"]["over"], true);
    let (code, out, _) = run(&["play", ".F./.../......./......./SSSSSSS/.S./... f 38", "d7-c7", "d2-c2"]);
    assert_eq!(
        (code, out.as_str()),
        (
            Some(0),
            "F../.../......./......./SSSSSSS/S../... f 40\ngame over: a draw (no progress for the rule's plies)\n"
        )
    );
    let (code, _, err) = run(&["play", ".F./.../......./......./SSSSSSS/.S./... f 38", "d7-c7", "d2-c2", "c7-d7"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("bad move: c7-d7: the game is drawn, 40 plies without progress"), "{err}");
    let (code, _, err) = run(&["show", ".F./.../......./......./SSSSSSS/.S./... f 41"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("the no-progress counter 41 is out of range: 0 to 40"), "{err}");
    let o = common::foxbase().args(["show", ".F./.../......./......./SSSSSSS/.S./... f 3"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "a counter without the rule is refused");
}
