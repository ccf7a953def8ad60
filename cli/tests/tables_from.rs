//! `foxbase solve --tables-from DIR`: a solve that takes the tiers another
//! solve (from another start, under the same rules) holds writes the
//! directory a full solve writes, byte for byte; a source of other rules,
//! or one that is not as its manifest records, is refused.

mod common;

use common::TempDir;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// Two foxes, four sheep on ranks 1 and 2: under the floor F = 4 (K = 2)
/// every capture ends the game, so its tiers are the 4-sheep ones.
const FOUR: &str = "F.F/.../......./......./......./S.S/S.S f";
/// Five sheep under F = 4: its 4-sheep tiers (after one capture) are
/// those of a 4-sheep start, the ones `FOUR`'s sheep can reach among them.
const FIVE: &str = "F.F/.../......./......./......./SSS/S.S s";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_foxbase")).args(args).output().expect("run foxbase")
}

fn solve(start: &str, out: &Path, extra: &[&str]) -> Output {
    let out = out.to_str().unwrap();
    let mut args = vec!["solve", "--start", start, "--pen-target", "2", "--sheep-floor", "4", "--out", out, "--json"];
    args.extend_from_slice(extra);
    run(&args)
}

fn ok(out: Output) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "failed: {:?} {stderr}", out.status);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every file of `dir/tiers` with its bytes, and `tiers.idx`.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("tiers"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files.push(("tiers.idx".into(), std::fs::read(dir.join("tiers.idx")).unwrap()));
    files
}

/// The manifest's tiers and start value (not its solve time).
fn manifest(dir: &Path) -> (Value, Value) {
    let m: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    (m["tiers"].clone(), m["start"].clone())
}

#[test]
fn taken_tiers_are_what_a_full_solve_writes() {
    let dir = TempDir::new("tables-from");
    let (four, fresh, taken) = (dir.0.join("four"), dir.0.join("fresh"), dir.0.join("taken"));
    for extra in [&[][..], &["--no-distance"][..]] {
        for d in [&four, &fresh, &taken] {
            let _ = std::fs::remove_dir_all(d);
        }
        let source = ok(solve(FOUR, &four, extra));
        let full = ok(solve(FIVE, &fresh, extra));
        let with = ok(solve(FIVE, &taken, &[extra, &["--tables-from", four.to_str().unwrap()]].concat()));
        let imported = with["tiers_imported"].as_u64().unwrap();
        let four_sheep = source["tiers"].as_u64().unwrap();
        // Every tier FOUR solved is a 4-sheep tier of FIVE; FIVE's 5-sheep
        // tiers, and its 4-sheep tiers out of FOUR's reach (three sheep
        // left on rank 1), are solved.
        assert_eq!(imported, four_sheep, "{extra:?}");
        assert!(full["tiers"].as_u64().unwrap() > imported);
        assert_eq!(full["tiers_imported"], 0);
        assert_eq!(with["tiers"], full["tiers"]);
        assert_eq!(with["value"], full["value"]);
        assert_eq!(manifest(&taken), manifest(&fresh), "{extra:?}");
        let (a, b) = (files(&taken), files(&fresh));
        assert_eq!(a.len(), b.len());
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            assert!(x == y, "{extra:?}: {name} differs from the full solve's");
        }
        // The copies name this solve's start, as the full solve's files do.
        let first = a.iter().find(|(n, _)| n.ends_with(".fxt")).unwrap();
        assert!(String::from_utf8_lossy(&first.1).contains("SSS/S.S s"), "{}", first.0);
    }
}

#[test]
fn sources_of_other_rules_or_not_as_recorded_are_refused() {
    let dir = TempDir::new("tables-from-refused");
    let four = dir.0.join("four");
    ok(solve(FOUR, &four, &["--no-distance"]));
    let out = dir.0.join("out");
    let refused = |extra: &[&str]| -> String {
        let o = solve(FIVE, &out, &[&["--no-distance"][..], extra].concat());
        assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stdout.is_empty());
        assert!(!out.exists(), "a refused solve writes nothing");
        String::from_utf8(o.stderr).unwrap()
    };
    // Another floor: other rules.
    let five_floor = dir.0.join("five-floor");
    let o = run(&[
        "solve",
        "--start",
        FIVE,
        "--pen-target",
        "2",
        "--sheep-floor",
        "5",
        "--no-distance",
        "--out",
        five_floor.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let e = refused(&["--tables-from", five_floor.to_str().unwrap()]);
    assert!(
        e.starts_with(&format!("foxbase: --tables-from {}: solved under the variant", five_floor.display())),
        "{e}"
    );
    assert!(e.contains("\"sheep_floor\":5") && e.contains("they must agree but for: start"), "{e}");
    let missing = dir.0.join("missing");
    let e = refused(&["--tables-from", missing.to_str().unwrap()]);
    assert!(e.contains(&format!("--tables-from {}", missing.display())) && e.contains("manifest.json"), "{e}");
    let o = solve(FIVE, Path::new("s3://bucket/prefix"), &["--tables-from", four.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--tables-from: a solve into a bucket"));

    // A source file that is not as its manifest records: the solve fails
    // naming it, keeps none of what it copied, and a solve without the
    // source solves everything.
    let fresh = dir.0.join("fresh");
    let full = ok(solve(FIVE, &fresh, &["--no-distance"]));
    let taken: Vec<Value> = manifest(&fresh).0.as_array().unwrap().clone();
    let offered = manifest(&four).0;
    let victim =
        offered.as_array().unwrap().iter().rev().find(|t| taken.iter().any(|u| u["name"] == t["name"])).unwrap();
    let victim = four.join(victim["file"].as_str().unwrap());
    let mut bytes = std::fs::read(&victim).unwrap();
    // A byte of the first block (after the 64-byte header and its JSON):
    // the file opens, but its CRC32 is not the manifest's.
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    bytes[64 + json_len + 2] ^= 1;
    std::fs::write(&victim, bytes).unwrap();
    let o = solve(FIVE, &out, &["--no-distance", "--tables-from", four.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains(&victim.display().to_string()) && e.contains("but its manifest records"), "{e}");
    // A new solve that failed so leaves neither copies nor a journal.
    assert!(!out.join("tiers").exists() && !out.join("journal.log").exists());
    let resumed = ok(solve(FIVE, &out, &["--no-distance"]));
    assert_eq!(resumed["tiers"], full["tiers"]);
    assert_eq!(files(&out), files(&fresh));
}
