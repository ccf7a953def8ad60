//! `foxbase solve --game baghchal`: a small variant solved end to end from
//! the command line, the plans of the real game, and the flags it refuses;
//! `probe`, `verify`, `stats` and `publish` on its tables.

mod common;

use common::{foxbase, TempDir};
use serde_json::Value as Json;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = foxbase().args(args).output().unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn a_two_goat_variant_solves_from_the_command_line() {
    let dir = TempDir::new("baghchal-cli");
    let out = dir.0.join("tables");
    let (code, stdout, stderr) = run(&[
        "solve",
        "--game",
        "baghchal",
        "--goats",
        "2",
        "--capture-target",
        "2",
        "--threads",
        "1",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let j: Json = serde_json::from_str(&stdout).unwrap();
    assert_eq!(j["variant"], "{\"goats\":2,\"capture_target\":2}");
    assert_eq!(j["slots"], 846_328);
    // Up to the board's 8 symmetries.
    assert_eq!(j["positions"], 806_938);
    let tiers = j["tiers"].as_array().unwrap();
    let names: Vec<&str> = tiers.iter().map(|t| t["tier"].as_str().unwrap()).collect();
    assert_eq!(names, ["p0-c1", "p0-c0", "p1-c1", "p1-c0", "p2-c0"], "children first");
    for t in tiers {
        let sum = t["wins"].as_u64().unwrap() + t["draws"].as_u64().unwrap() + t["losses"].as_u64().unwrap();
        assert_eq!(sum, t["positions"].as_u64().unwrap(), "{t}");
    }
    // The manifest records the game and variant, with a plies file per tier.
    let manifest: Json = serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["game"], "baghchal");
    assert_eq!(manifest["tiers"].as_array().unwrap().len(), 5);
    assert!(manifest["tiers"].as_array().unwrap().iter().all(|t| t["plies"].is_object()));
}

#[test]
fn the_real_games_plans() {
    let plan = |extra: &[&str]| {
        let mut args = vec!["solve", "--game", "baghchal", "--plan-only"];
        args.extend(extra);
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, Some(0), "{stderr}");
        stdout.trim().to_string()
    };
    assert_eq!(plan(&[]), "95 tiers, 34907351472 positions; largest tier p5-c4: 1175249712 positions");
    assert_eq!(plan(&["--phase", "moving"]), "5 tiers, 92946140 positions; largest tier p0-c4: 67802868 positions");
    assert_eq!(
        plan(&["--phase", "moving", "--capture-target", "4"]),
        "4 tiers, 25143272 positions; largest tier p0-c3: 19942020 positions"
    );
}

#[test]
fn fox_flags_other_kernels_and_impossible_variants_are_refused() {
    for (args, says) in [
        (vec!["--geometry", "classic"], "--geometry is a Fox Game flag"),
        (vec!["--start", "T...T/...../...../...../T...T g 20 0"], "--start is a Fox Game flag"),
        (vec!["--kernel", "planes"], "takes forward (the default) or counter"),
        (vec!["--goats", "2", "--capture-target", "3"], "--goats 2 --capture-target 3"),
        (vec!["--goats", "0"], "--goats"),
        (vec!["--phase", "placing"], "--phase"),
    ] {
        let mut all = vec!["solve", "--game", "baghchal", "--plan-only"];
        all.extend(&args);
        let (code, _, stderr) = run(&all);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: '{stderr}' should say '{says}'");
    }
    // Bagh-Chal's flags and kernel, for the other games.
    for (args, says) in [
        (vec!["--goats", "3"], "--goats is a Bagh-Chal flag; --game fox takes --start, --geometry, --pen-target, --sheep-floor, --floor-winner and --no-progress"),
        (vec!["--phase", "moving"], "--phase is a Bagh-Chal flag; --game fox takes --start, --geometry, --pen-target, --sheep-floor, --floor-winner and --no-progress"),
        (vec!["--kernel", "forward"], "--kernel forward: the game fox takes planes (the default) or counter"),
        (
            vec!["--game", "tictactoe", "--capture-target", "2"],
            "--capture-target is a Bagh-Chal flag; --game tictactoe",
        ),
        (
            vec!["--game", "tictactoe", "--kernel", "forward"],
            "--kernel forward: the game tictactoe takes counter (the default)",
        ),
        (
            vec!["--game", "tictactoe", "--kernel", "planes"],
            "--kernel planes: the game tictactoe takes counter (the default)",
        ),
        (vec!["--kernel", "block"], "unknown kernel 'block' (planes, counter or forward)"),
    ] {
        let mut all = vec!["solve", "--plan-only"];
        all.extend(&args);
        let (code, _, stderr) = run(&all);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: '{stderr}' should say '{says}'");
    }
}

// ---------------------------------------------------------------------------
// probe, verify and stats on Bagh-Chal tables

use foxbase_core::baghchal::{format_position, parse_move, parse_position_with_goats, Rules};
use foxbase_tables::manifest::Manifest;
use foxbase_tables::table::{read_table, write_table};
use foxbase_tables::tier_files::table_header;
use std::path::Path;

/// Solves the variant of 2 goats and capture target `target` into `out` (`extra`: more flags).
fn solve(out: &Path, target: &str, extra: &[&str]) {
    let mut args = vec!["solve", "--game", "baghchal", "--goats", "2", "--capture-target", target, "--threads", "2"];
    args.extend(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    let (code, _, stderr) = run(&args);
    assert_eq!(code, Some(0), "{stderr}");
}

/// `probe --json` of `position`: the answer, which must succeed.
fn probe(tables: &Path, position: &str) -> Json {
    let (code, stdout, stderr) = run(&["probe", "--tables", tables.to_str().unwrap(), position, "--json"]);
    assert_eq!(code, Some(0), "{position}: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// The moves of a probe as (move, value, plies).
fn moves(p: &Json) -> Vec<(String, String, u64)> {
    p["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (m["move"].as_str().unwrap().into(), m["value"].as_str().unwrap().into(), m["plies"].as_u64().unwrap())
        })
        .collect()
}

/// The value for the other side: a win for one is a loss for the other.
fn negated(value: &str) -> &'static str {
    match value {
        "win" => "loss",
        "loss" => "win",
        _ => "draw",
    }
}

/// Each move's value and plies are those of the position it leads to
/// (probed on its own), seen from the mover, one ply more.
fn moves_agree_with_their_positions(tables: &Path, position: &str, goats: u8) {
    let p = probe(tables, position);
    let pos = parse_position_with_goats(position, goats).unwrap();
    let rules = Rules::default();
    for (m, value, plies) in moves(&p) {
        let after = format_position(&rules.play(&pos, parse_move(&rules, &pos, &m).unwrap()));
        let a = probe(tables, &after);
        assert_eq!(value, negated(a["value"].as_str().unwrap()), "{position} {m} -> {after}: {a}");
        assert_eq!(plies, a["plies"].as_u64().unwrap() + 1, "{position} {m} -> {after}: {a}");
    }
}

#[test]
fn probe_values_the_start_and_every_move_of_a_small_variant() {
    let dir = TempDir::new("baghchal-probe");
    let tables = dir.0.join("tables");
    // Plies to the end: every placement is a zeroing move, so plies to
    // zeroing would not order the moves.
    solve(&tables, "2", &["--distance", "dtm"]);
    let start = "T...T/...../...../...../T...T g 2 0";
    let p = probe(&tables, start);
    // The JSON of `probe --json`, for the Fox Game too.
    let keys: Vec<&str> = p.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, ["distance", "moves", "plies", "position", "value"]);
    assert!(p["moves"].as_array().unwrap().iter().all(|m| m.as_object().unwrap().len() == 3), "{p}");
    assert_eq!(
        (p["position"].as_str(), p["value"].as_str(), p["plies"].as_u64()),
        (Some(start), Some("loss"), Some(16))
    );
    // Every placement loses for the goats; the slowest first (the best for them).
    let m = moves(&p);
    let listed: Vec<(&str, u64)> = m.iter().map(|(mv, v, n)| (mv.as_str(), *n * (v == "loss") as u64)).collect();
    assert_eq!(
        listed,
        [
            ("c3", 16),
            ("c1", 14),
            ("c2", 14),
            ("a3", 14),
            ("b3", 14),
            ("d3", 14),
            ("e3", 14),
            ("c4", 14),
            ("c5", 14),
            ("b2", 12),
            ("d2", 12),
            ("b4", 12),
            ("d4", 12),
            ("b1", 10),
            ("d1", 10),
            ("a2", 10),
            ("e2", 10),
            ("a4", 10),
            ("e4", 10),
            ("b5", 10),
            ("d5", 10)
        ]
    );
    moves_agree_with_their_positions(&tables, start, 2);
    // The tigers to move: wins, the fastest first; a jump into a tier with a
    // table, and one that reaches the capture target (the game is over after it).
    let tigers = "TG..T/...../...../...../T...T t 1 0";
    let t = probe(&tables, tigers);
    assert_eq!((t["value"].as_str(), t["plies"].as_u64()), (Some("win"), Some(9)), "{t}");
    let m = moves(&t);
    assert_eq!(m.len(), 12, "{t}");
    assert_eq!(m[0], ("a5xc5".to_string(), "win".to_string(), 9), "{t}");
    assert_eq!(m[11].2, 17, "{t}");
    assert!(m.windows(2).all(|w| w[0].2 <= w[1].2 && w.iter().all(|x| x.1 == "win")), "{t}");
    moves_agree_with_their_positions(&tables, tigers, 2);
    let last = "TG..T/...../...../...../T...T t 0 1";
    let l = probe(&tables, last);
    assert_eq!((l["value"].as_str(), l["plies"].as_u64()), (Some("win"), Some(1)), "{l}");
    assert_eq!(moves(&l)[0], ("a5xc5".to_string(), "win".to_string(), 1), "{l}");
    moves_agree_with_their_positions(&tables, last, 2);
    // A mirror image has the same value (positions are canonicalised before lookup).
    let mirrored = probe(&tables, "T..GT/...../...../...../T...T t 1 0");
    assert_eq!((&mirrored["value"], &mirrored["plies"]), (&t["value"], &t["plies"]));
    assert_eq!(mirrored["moves"][0]["move"], "e5xc5");
    // A position that is over: 0 plies, no moves.
    let over = probe(&tables, "T...T/...../...../...../T...T g 0 2");
    assert_eq!(
        over,
        serde_json::json!({"position": "T...T/...../...../...../T...T g 0 2", "value": "loss", "plies": 0,
            "distance": "dtm", "moves": []})
    );
    // The text names the winner.
    let (code, stdout, stderr) = run(&["probe", "--tables", tables.to_str().unwrap(), start]);
    assert_eq!(code, Some(0), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "T...T/...../...../...../T...T g 2 0: loss for the goats to move: the tigers win in 16 plies");
    assert_eq!(lines[1], "  c3      loss for the goats: the tigers win in 16 plies");
    assert_eq!(lines.len(), 22);
    let (_, stdout, _) = run(&["probe", "--tables", tables.to_str().unwrap(), "T...T/...../...../...../T...T t 0 2"]);
    assert_eq!(
        stdout,
        "T...T/...../...../...../T...T t 0 2: win for the tigers to move: the tigers win in 0 plies\n  \
         game over: the tigers won (the tigers captured enough goats)\n"
    );
}

#[test]
fn probe_names_what_is_wrong_with_a_position() {
    let dir = TempDir::new("baghchal-probe-errors");
    let (all, moving) = (dir.0.join("all"), dir.0.join("moving"));
    solve(&all, "2", &[]);
    solve(&moving, "1", &["--phase", "moving"]);
    for (tables, position, says) in [
        (&all, "T...T/...../...../..../T...T g 2 0", "rank 2 has 4 points, expected 5"),
        (&all, "T...T/...../...../...../T...T x 2 0", "side to move 'x' is not g or t"),
        (&all, "T...T/...../...../...../T..TT g 2 0", "5 tigers"),
        (&all, "T...T/...../...../...../T...T g 2", "expected 4 fields"),
        (
            &all,
            "T...T/...../...../...../T...T g 20 0",
            "(these tables: Bagh-Chal, 2 goats, capture target 2): goats on the board (0) + to place (20) + captured (0) make 20, not 2",
        ),
        (&moving, "T...T/...../...../...../T...T g 0 2", "2 goats captured, but the tigers win on capturing 1"),
        (
            &moving,
            "T...T/...../...../...../T...T g 2 0",
            "T...T/...../...../...../T...T g 2 0 is in tier p2-c0, which these tables do not hold (they hold tiers p0-c0)",
        ),
    ] {
        let (code, stdout, stderr) = run(&["probe", "--tables", tables.to_str().unwrap(), position]);
        assert_eq!(code, Some(2), "{position}: {stdout}{stderr}");
        assert!(stderr.starts_with("foxbase: ") && stderr.contains(says), "{position}: '{stderr}' should say '{says}'");
    }
    // The moving phase alone is probed as the whole game is.
    let p = probe(&moving, "T...T/...../..G../...../TG..T t 0 0");
    assert_eq!((p["value"].as_str(), p["plies"].as_u64()), (Some("win"), Some(1)), "{p}");
}

/// `verify --json` of a directory: exit status and answer.
fn verify(dir: &Path) -> (Option<i32>, Json, String) {
    let (code, stdout, stderr) = run(&["verify", dir.to_str().unwrap(), "--json"]);
    (code, serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout} {stderr}")), stderr)
}

/// What `verify --json` prints for these tables: every tier made complete
/// once and held in memory, nothing spilled.
fn verified_json() -> Json {
    serde_json::json!({"ok": true, "tiers": 5, "positions": 806_938, "problem": null,
        "walk": {"completed": 5, "kept_high_water_bytes": 1_731_807, "spill_high_water_bytes": 0,
            "spill_reads": 0, "spilled": 0}})
}

#[test]
fn verify_passes_a_fresh_solve_and_names_the_tier_of_a_changed_value() {
    let dir = TempDir::new("baghchal-verify");
    let tables = dir.0.join("tables");
    solve(&tables, "2", &[]);
    let (code, j, stderr) = verify(&tables);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(j, verified_json());
    let (code, stdout, _) = run(&["verify", tables.to_str().unwrap()]);
    assert_eq!((code, stdout.as_str()), (Some(0), "ok: 5 tiers, 806938 positions checked against their children\n"));

    // A flipped byte: the file's checksums name it.
    let copy = dir.0.join("flipped");
    copy_tables(&tables, &copy);
    let path = copy.join("tiers/p1-c0.fxt");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x5a;
    std::fs::write(&path, bytes).unwrap();
    let (code, j, stderr) = verify(&copy);
    assert_eq!((code, &j["ok"]), (Some(1), &Json::Bool(false)), "{j}");
    assert_eq!(j["problem"]["file"], "tiers/p1-c0.fxt", "{j}");
    assert!(stderr.starts_with("foxbase: verify failed: tiers/p1-c0.fxt"), "{stderr}");

    // A won position stored as lost, with the file's checksums made good:
    // the check against its children finds it.
    let copy = dir.0.join("changed");
    copy_tables(&tables, &copy);
    let game = foxbase_core::baghchal::BaghChal::new(foxbase_core::baghchal::BaghChalVariant::new(2, 2).unwrap());
    use foxbase_core::tier::TierGame;
    let tier = game.parse_tier_name("p1-c0").unwrap();
    let index = game.tier_index(tier);
    let header = table_header(&game, tier, game.tier_size(&index));
    let path = copy.join("tiers/p1-c0.fxt");
    let mut values = read_table(&path, &header).unwrap();
    let (slot, pos) = (0..game.tier_size(&index))
        .find_map(|i| {
            let pos = game.unrank(&index, i)?;
            (values.value(i) == Some(foxbase_core::Value::Win) && game.primitive(&pos).is_none()).then_some((i, pos))
        })
        .unwrap();
    values.set_code(slot, foxbase_core::Value::Loss.code());
    write_table(&path, &header, &values).unwrap();
    let mut manifest = Manifest::read(&copy).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let e = manifest.tiers.iter_mut().find(|t| t.name == "p1-c0").unwrap();
    e.bytes = bytes.len() as u64;
    e.crc32 = format!("{:08x}", crc32fast::hash(&bytes));
    manifest.write(&copy).unwrap();
    let (code, j, stderr) = verify(&copy);
    assert_eq!(code, Some(1), "{j}");
    let p = &j["problem"];
    assert_eq!(p["file"], "tiers/p1-c0.fxt", "{j}");
    assert_eq!(p["position"], format_position(&pos).as_str(), "{j}");
    assert_eq!(
        p["message"],
        format!("stored loss, but its children say win (slot {slot} of tier p1-c0)").as_str(),
        "{j}"
    );
    assert!(stderr.contains("of tier p1-c0"), "{stderr}");
}

/// Copies a tablebase directory (manifest, tier index, tables).
fn copy_tables(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.join("tiers")).unwrap();
    for entry in std::fs::read_dir(from).unwrap().chain(std::fs::read_dir(from.join("tiers")).unwrap()) {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            let relative = entry.path().strip_prefix(from).unwrap().to_path_buf();
            std::fs::copy(entry.path(), to.join(relative)).unwrap();
        }
    }
}

#[test]
fn stats_count_what_the_manifest_counts() {
    let dir = TempDir::new("baghchal-stats");
    let tables = dir.0.join("tables");
    // Plies to the end, whose longest win is the game's.
    solve(&tables, "2", &["--distance", "dtm"]);
    let (code, stdout, stderr) = run(&["stats", "--tables", tables.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let s: Json = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (s["game"].as_str(), s["goats"].as_u64(), s["capture_target"].as_u64()),
        (Some("baghchal"), Some(2), Some(2))
    );
    assert_eq!(s["positions"], 806_938);
    assert_eq!(
        s["start"],
        serde_json::json!({"position": "T...T/...../...../...../T...T g 2 0", "value": "loss", "plies": 16})
    );
    let manifest = Manifest::read(&tables).unwrap();
    let tiers = s["tiers"].as_array().unwrap();
    assert_eq!(tiers.len(), manifest.tiers.len());
    for (t, m) in tiers.iter().zip(&manifest.tiers) {
        assert_eq!(t["tier"], m.name.as_str());
        assert_eq!(
            (t["wins"].as_u64(), t["draws"].as_u64(), t["losses"].as_u64()),
            (Some(m.wins), Some(m.draws), Some(m.losses)),
            "{t}"
        );
        assert_eq!(t["positions"].as_u64(), Some(m.slots - m.unused), "{t}");
        // The tier's longest plies: its longest win, or a loss one ply longer.
        let longest = m.plies.as_ref().unwrap().longest as u64;
        assert!([longest, longest - 1].contains(&t["longest_win"].as_u64().unwrap()), "{t}: {longest}");
    }
    assert_eq!(s["longest_win"]["plies"], 27);
    assert_eq!(manifest.tiers.iter().map(|t| t.plies.as_ref().unwrap().longest).max(), Some(28), "a loss");
    let longest = s["longest_win"]["position"].as_str().unwrap();
    let p = probe(&tables, longest);
    assert_eq!((p["value"].as_str(), p["plies"].as_u64()), (Some("win"), Some(27)), "{longest}");
    // The text: the variant, the start's value, a line per tier.
    let (code, stdout, _) = run(&["stats", "--tables", tables.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "Bagh-Chal, 2 goats, capture target 2: 5 tiers, 806938 positions up to symmetry");
    assert_eq!(
        lines[1],
        "start T...T/...../...../...../T...T g 2 0: loss for the goats to move: the tigers win in 16 plies"
    );
    assert_eq!(lines.len(), 2 + 2 + 5 + 1, "{stdout}");
}

// ---------------------------------------------------------------------------
// publish

/// Every file of a tablebase directory (top level and tiers/), by name.
fn files_of(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .chain(std::fs::read_dir(dir.join("tiers")).unwrap())
        .map(|e| e.unwrap().path().strip_prefix(dir).unwrap().display().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn a_published_tablebase_stores_the_tigers_side_and_answers_as_the_solved_one() {
    let dir = TempDir::new("baghchal-publish");
    let (src, out) = (dir.0.join("solved"), dir.0.join("published"));
    solve(&src, "2", &[]);
    let (s, o) = (src.to_str().unwrap(), out.to_str().unwrap());
    let (code, stdout, stderr) = run(&["publish", s, o, "--level", "19", "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let p: Json = serde_json::from_str(&stdout).unwrap();
    assert_eq!((p["tiers"].as_u64(), p["positions"].as_u64()), (Some(5), Some(846_328)), "{p}");
    assert!(p["bytes"].as_u64() < p["source_bytes"].as_u64(), "compressed harder: {p}");
    assert!(p["plies_bytes"].as_u64().unwrap() > 0, "{p}");
    // The same files but the solve's journal, rewritten in the published layout (the
    // goats-to-move values derived, not stored), and the checksum list.
    let mut expected = files_of(&src);
    expected.retain(|f| f != "journal.log");
    expected.push("SHA256SUMS".to_string());
    expected.sort();
    assert_eq!(files_of(&out), expected);
    let (solved, published) = (Manifest::read(&src).unwrap(), Manifest::read(&out).unwrap());
    assert_eq!(published.layout, foxbase_tables::Layout::Published);
    assert_eq!((&published.game, &published.variant, &published.start), (&solved.game, &solved.variant, &solved.start));
    assert_eq!(published.total_bytes(), p["bytes"].as_u64().unwrap());
    for (a, b) in solved.tiers.iter().zip(&published.tiers) {
        assert_eq!(
            (&a.name, a.slots, a.wins, a.draws, a.losses, a.unused),
            (&b.name, b.slots, b.wins, b.draws, b.losses, b.unused)
        );
        let (pa, pb) = (a.plies.as_ref().unwrap(), b.plies.as_ref().unwrap());
        assert_eq!((&pa.file, pa.longest), (&pb.file, pb.longest));
        if a.bytes > 1000 {
            assert!(b.bytes < a.bytes && pb.bytes < pa.bytes, "{} at level 19: {b:?} from {a:?}", a.name);
        }
        if a.bytes > 10_000 {
            // Half the slots stored, the other half a copy of their neighbours.
            assert!(2 * b.bytes < a.bytes, "{}: {b:?} from {a:?}", a.name);
        }
    }
    assert!(!dir.0.join(".published.partial").exists(), "the staging directory is renamed away");
    let tmp = files_of(&out).into_iter().filter(|f| f.ends_with(".tmp")).collect::<Vec<_>>();
    assert!(tmp.is_empty(), "{tmp:?}");

    // verify, probe and stats answer as on the solved tables.
    let (code, j, stderr) = verify(&out);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(j, verified_json());
    for position in [
        "T...T/...../...../...../T...T g 2 0",
        "TG..T/...../...../...../T...T t 1 0",
        "T..GT/...../...../...../T...T t 1 0",
        "TG..T/...../...../...../T...T t 0 1",
        "T...T/.G.../...../...G./T...T g 0 0",
        "T...T/...../..G../...../TG..T t 0 0",
        "T...T/...../...../...../T...T g 0 2",
    ] {
        assert_eq!(probe(&out, position), probe(&src, position), "{position}");
    }
    for args in [vec!["--json"], vec![]] {
        let stats = |tables: &str| {
            let mut all = vec!["stats", "--tables", tables];
            all.extend(&args);
            let (code, stdout, stderr) = run(&all);
            assert_eq!(code, Some(0), "{stderr}");
            stdout
        };
        assert_eq!(stats(o), stats(s));
    }

    // OUT holding a tablebase, or anything, is refused and left as it was.
    let (code, _, stderr) = run(&["publish", s, o]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("already exists"), "{stderr}");
    assert_eq!(Manifest::read(&out).unwrap(), published, "a refused publish leaves the tablebase");
    let other = dir.0.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let (code, _, stderr) = run(&["publish", s, other.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("already exists"), "{stderr}");
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 1);

    // A damaged source is refused before anything is published, naming the file.
    let damaged = dir.0.join("damaged");
    copy_tables(&src, &damaged);
    let path = damaged.join("tiers/p0-c0.fxp");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x5a;
    std::fs::write(&path, bytes).unwrap();
    let nowhere = dir.0.join("from-damaged");
    let (code, _, stderr) = run(&["publish", damaged.to_str().unwrap(), nowhere.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("the tables to publish fail their check: tiers/p0-c0.fxp"), "{stderr}");
    assert!(!nowhere.exists() && !dir.0.join(".from-damaged.partial").exists());
}

/// `show`, `moves`, `play` and `perft` take the small variants: `--goats N`
/// sets the goat total a position adds up to, and capture targets below 4
/// end the game as the solve's variant does.
#[test]
fn the_rule_commands_take_every_goat_count_and_capture_target() {
    let small = ["--game", "baghchal", "--goats", "2"];
    let start = "T...T/...../...../...../T...T g 2 0";
    // From the 2-goat start (the default of perft with --goats 2): 21 placements.
    let perft = |args: &[&str]| {
        let mut all = vec!["perft"];
        all.extend(small);
        all.extend(args);
        run(&all)
    };
    let (code, stdout, stderr) = perft(&["--depth", "1"]);
    assert_eq!((code, stdout.as_str()), (Some(0), "perft(1) = 21\n"), "{stderr}");
    let (_, from_start, _) = perft(&["--depth", "3", "--position", start]);
    let (_, default, _) = perft(&["--depth", "3"]);
    assert_eq!(from_start, default);
    let mut moves = vec!["moves", start, "--json"];
    moves.extend(small);
    let (code, stdout, stderr) = run(&moves);
    assert_eq!(code, Some(0), "{stderr}");
    let j: Json = serde_json::from_str(&stdout).unwrap();
    assert_eq!((j["moves"].as_array().unwrap().len(), j["rules"]["capture_target"].as_u64()), (21, Some(2)), "{j}");
    // One goat, capture target 1: the first capture ends the game.
    let (code, stdout, stderr) =
        run(&["play", "T...T/...../...../...../T...T g 1 0", "b1", "a1xc1", "--game", "baghchal", "--goats", "1"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        "T...T/...../...../...../..T.T g 0 1\ngame over: the tigers won (the tigers captured enough goats)\n"
    );
    // A position whose goats do not add up to --goats is refused, naming the counts.
    let mut show = vec!["show", "T...T/...../...../...../T...T g 20 0"];
    show.extend(small);
    let (code, _, stderr) = run(&show);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("make 20, not 2"), "{stderr}");
}
