//! `foxbase solve --game baghchal`: a small variant solved end to end from
//! the command line, the plans of the real game, and the flags it refuses.

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
        (vec!["--kernel", "planes"], "counter kernel only"),
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
}
