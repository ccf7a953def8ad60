//! `foxbase solve --disk-budget`: a solve that publishes its tiers in
//! place keeps within the budget (below what the solve's tables take
//! otherwise), ends as the tablebase `foxbase publish` writes from an
//! unbudgeted solve (every file byte for byte but the manifest's solve
//! time and the checksum line that covers it), and resumes to that same
//! tablebase after it is stopped after any step of publishing a tier or
//! of finishing.

mod common;

use common::{files, TempDir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// One fox against three sheep on rank 1, K = 2, floor 2 (values and
/// plies to zeroing): 112 tiers, 184,882 positions, with captures.
const START: &str = ".F./.../......./......./......./.../SSS f";

/// Below the 93,692 bytes of this variant's solved tables and plies files.
const BUDGET: &str = "90000";

fn foxbase(args: &[&str], stop_at: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_foxbase"));
    cmd.args(args).env_remove("FOXBASE_TEST_STOP_AT");
    if let Some(step) = stop_at {
        cmd.env("FOXBASE_TEST_STOP_AT", step);
    }
    cmd.output().expect("run foxbase")
}

fn ok(args: &[&str]) -> String {
    let out = foxbase(args, None);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn solve_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["solve", "--start", START, "--pen-target", "2", "--sheep-floor", "2", "--out", out];
    args.extend_from_slice(extra);
    args
}

/// The manifest without its solve time (which differs from run to run).
fn manifest_sans_time(bytes: &[u8]) -> Value {
    let mut manifest: Value = serde_json::from_slice(bytes).unwrap();
    manifest.as_object_mut().unwrap().remove("solve_seconds");
    manifest
}

/// `dir` is the tablebase `expected` (a `foxbase publish` output): the
/// same files, each byte for byte but the manifest (equal but for its
/// solve time) and the checksum list (equal but for the manifest's line).
fn assert_same_tablebase(dir: &Path, expected: &BTreeMap<String, Vec<u8>>) {
    let found = files(dir);
    assert_eq!(found.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>(), "{}", dir.display());
    for (name, bytes) in expected {
        match name.as_str() {
            "manifest.json" => assert_eq!(manifest_sans_time(&found[name]), manifest_sans_time(bytes)),
            "SHA256SUMS" => {
                let lines = |b: &[u8]| {
                    String::from_utf8(b.to_vec())
                        .unwrap()
                        .lines()
                        .filter(|l| !l.ends_with("  manifest.json"))
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                };
                assert_eq!(lines(&found[name]), lines(bytes));
            }
            _ => assert!(found[name] == *bytes, "{name} differs"),
        }
    }
}

/// The unbudgeted solve's tables (with `extra` flags) and their
/// publication, in `root`: the bytes of the solved tier files, and the
/// published files.
fn reference(root: &Path, extra: &[&str]) -> (u64, BTreeMap<String, Vec<u8>>) {
    let (plain, published) = (root.join("plain"), root.join("published"));
    ok(&solve_args(plain.to_str().unwrap(), extra));
    ok(&["publish", plain.to_str().unwrap(), published.to_str().unwrap()]);
    let solved_bytes = files(&plain.join("tiers")).values().map(|b| b.len() as u64).sum();
    (solved_bytes, files(&published))
}

#[test]
fn a_solve_within_a_disk_budget_keeps_it_and_ends_as_the_published_tablebase() {
    let root = TempDir::new("disk-budget");
    let (solved_bytes, expected) = reference(&root.0, &[]);
    let budget: u64 = BUDGET.parse().unwrap();
    assert!(budget < solved_bytes, "the budget is below the solved tables' {solved_bytes} bytes");

    let dir = root.0.join("budgeted");
    let out = dir.to_str().unwrap();
    let report: Value = serde_json::from_str(&ok(&solve_args(out, &["--disk-budget", BUDGET, "--json"]))).unwrap();
    let high_water = report["disk_high_water_bytes"].as_u64().expect("a high-water mark");
    assert!(high_water <= budget, "held {high_water} bytes, over the budget {budget}");
    assert_eq!(report["published"], true);
    assert_same_tablebase(&dir, &expected);
    ok(&["verify", out, "--published"]);
    ok(&["verify", out, "--published", "--against", root.0.join("plain").to_str().unwrap()]);

    // Resumed once finished: nothing to do, the same tablebase.
    ok(&solve_args(out, &["--disk-budget", BUDGET, "--resume"]));
    assert_same_tablebase(&dir, &expected);
    // Nor is anything read again (on the whole game that check takes
    // minutes): a damaged tier file goes unnoticed by the resume, and
    // `verify` names it.
    let damaged = std::fs::read_dir(dir.join("tiers")).unwrap().next().unwrap().unwrap().path();
    let original = std::fs::read(&damaged).unwrap();
    std::fs::write(&damaged, b"not a table").unwrap();
    ok(&solve_args(out, &["--disk-budget", BUDGET, "--resume"]));
    let checked = foxbase(&["verify", out, "--published"], None);
    assert_eq!(checked.status.code(), Some(1));
    let name = damaged.file_name().unwrap().to_str().unwrap();
    assert!(String::from_utf8_lossy(&checked.stderr).contains(name), "{}", String::from_utf8_lossy(&checked.stderr));
    std::fs::write(&damaged, original).unwrap();
    assert_same_tablebase(&dir, &expected);

    // A budget too small for a tier stops the solve, saying so; a larger
    // one resumes it; resuming without one is refused.
    let small = root.0.join("small");
    let small_out = small.to_str().unwrap();
    let stopped = foxbase(&solve_args(small_out, &["--disk-budget", "30000"]), None);
    assert_eq!(stopped.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert!(
        stderr.contains("--disk-budget 30000: the tables in") && stderr.contains("resume with a larger"),
        "{stderr}"
    );
    let refused = foxbase(&solve_args(small_out, &["--resume"]), None);
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("resume it with --disk-budget"));
    ok(&solve_args(small_out, &["--disk-budget", BUDGET, "--resume"]));
    assert_same_tablebase(&small, &expected);
}

#[test]
fn a_solve_stopped_after_any_step_of_publishing_in_place_resumes_to_the_same_tablebase() {
    let root = TempDir::new("disk-budget-stops");
    let (_, expected) = reference(&root.0, &[]);
    let steps = [
        "written:1",
        "written:40",
        "checked:1",
        "checked:40",
        "journaled:1",
        "journaled:40",
        "installed:1",
        "installed:40",
        "sealed:1",
        "journal-removed:1",
    ];
    for (n, step) in steps.iter().enumerate() {
        let dir = root.0.join(format!("stopped-{n}"));
        let out = dir.to_str().unwrap();
        let stopped = foxbase(&solve_args(out, &["--disk-budget", BUDGET]), Some(step));
        assert!(!stopped.status.success(), "{step}: the solve was not stopped");
        let stderr = String::from_utf8_lossy(&stopped.stderr);
        assert!(stderr.contains(&format!("FOXBASE_TEST_STOP_AT={step}: stopping")), "{step}: {stderr}");
        ok(&solve_args(out, &["--disk-budget", BUDGET, "--resume"]));
        assert_same_tablebase(&dir, &expected);
    }
}

/// `--publish-level`: the tablebase `foxbase publish` writes at that level
/// (not the one it writes at its own, so the level is not ignored); a
/// solve stopped and resumed at another level ends as a tablebase that
/// checks and gives back the solve, its tiers at either level.
#[test]
fn a_solve_within_a_disk_budget_publishes_at_the_level_it_is_given() {
    // Level 3's tables are larger: a budget that publishing in place keeps, if not a tight one.
    const LEVEL_BUDGET: &str = "120K";
    let root = TempDir::new("disk-budget-level");
    let (_, at_15) = reference(&root.0, &[]);
    let (plain, at_3) = (root.0.join("plain"), root.0.join("published-3"));
    let (plain, at_3) = (plain.to_str().unwrap(), at_3.to_str().unwrap());
    ok(&["publish", plain, at_3, "--level", "3", "--plies-level", "3"]);
    let expected = files(Path::new(at_3));
    assert!(expected.iter().any(|(name, bytes)| name.starts_with("tiers/") && at_15[name] != *bytes));

    let dir = root.0.join("budgeted");
    let out = dir.to_str().unwrap();
    ok(&solve_args(out, &["--disk-budget", LEVEL_BUDGET, "--publish-level", "3"]));
    assert_same_tablebase(&dir, &expected);

    let mixed = root.0.join("mixed");
    let mixed_out = mixed.to_str().unwrap();
    let stopped =
        foxbase(&solve_args(mixed_out, &["--disk-budget", LEVEL_BUDGET, "--publish-level", "3"]), Some("installed:40"));
    assert!(!stopped.status.success(), "the solve was not stopped");
    ok(&solve_args(mixed_out, &["--disk-budget", LEVEL_BUDGET, "--resume", "--publish-level", "19"]));
    ok(&["verify", mixed_out, "--published", "--against", plain]);
}

/// Values alone: the check derives a published tier's fox-to-move values
/// with the kernel's whole-table derivation (the one the binary installs),
/// from children some of which are published already.
#[test]
fn a_values_only_solve_within_a_disk_budget_is_the_published_tablebase() {
    let root = TempDir::new("disk-budget-values");
    let (solved_bytes, expected) = reference(&root.0, &["--no-distance"]);
    let budget = 45_000;
    assert!(budget < solved_bytes, "the budget is below the solved tables' {solved_bytes} bytes");
    let dir = root.0.join("budgeted");
    let flags = ["--no-distance", "--disk-budget", "45000", "--json"];
    let report: Value = serde_json::from_str(&ok(&solve_args(dir.to_str().unwrap(), &flags))).unwrap();
    let high_water = report["disk_high_water_bytes"].as_u64().expect("a high-water mark");
    assert!(high_water <= budget, "held {high_water} bytes, over the budget {budget}");
    assert_same_tablebase(&dir, &expected);
}
