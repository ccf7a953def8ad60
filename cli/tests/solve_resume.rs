//! `foxbase solve --resume`: a local solve killed midway (SIGKILL) and
//! resumed writes the same bytes as one that was never stopped; a finished
//! solve resumed again is left as it is; a directory holding a journal or
//! tables is refused without `--resume`, a journal of another solve with
//! it, and a directory another solve is writing into either way; a torn
//! last journal line is dropped and its tier solved again, a damaged line
//! before it refused. On a small Bagh-Chal variant (2 goats, capture
//! target 2: 5 tiers, 846,328 slots, under 2 s).

mod common;

use common::{files, foxbase, Proc, TempDir};
use foxbase_tables::manifest::Manifest;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const VARIANT: [&str; 6] = ["--game", "baghchal", "--goats", "2", "--capture-target", "2"];
const TIERS: usize = 5;

fn solve_cmd(out: &Path, extra: &[&str]) -> std::process::Command {
    let mut cmd = foxbase();
    cmd.arg("solve").args(VARIANT).args(["--json", "--out"]).arg(out).args(extra);
    cmd
}

/// Runs `solve` of the test variant into `out`: (exit code, stdout, stderr).
fn solve(out: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let o = solve_cmd(out, extra).output().unwrap();
    (o.status.code(), String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
}

/// A successful solve's JSON summary.
fn solve_ok(out: &Path, extra: &[&str]) -> Json {
    let (code, stdout, stderr) = solve(out, extra);
    assert_eq!(code, Some(0), "solve {extra:?} into {}: {stderr}", out.display());
    serde_json::from_str(&stdout).unwrap()
}

/// The tables, plies files and tier index of `dir`.
fn table_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut t = files(dir);
    t.retain(|name, _| name.starts_with("tiers/") || name == "tiers.idx");
    t
}

/// The test variant solved once, without a stop, shared by the tests.
fn reference() -> &'static Path {
    static REF: OnceLock<PathBuf> = OnceLock::new();
    REF.get_or_init(|| {
        // In a static, never dropped: removed by the next run of these tests.
        let root = std::env::temp_dir();
        for e in std::fs::read_dir(&root).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix("foxbase-resume-ref-") {
                if !Path::new("/proc").join(pid).exists() {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let dir = root.join(format!("foxbase-resume-ref-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // One worker: its journal lists the tiers in the plan's order (the torn-tail test cuts it).
        let j = solve_ok(&dir, &["--threads", "2", "--workers", "1"]);
        assert_eq!(j["tiers_resumed"], 0);
        assert_eq!(j["tiers"].as_array().unwrap().len(), TIERS);
        dir
    })
}

/// Entries in `dir`'s journal (lines after the first, whole or not).
fn journal_entries(dir: &Path) -> usize {
    std::fs::read(dir.join("journal.log")).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count().saturating_sub(1))
}

/// `dir` holds the reference's tables, plies files, tier index and manifest tiers.
fn assert_same_as_reference(dir: &Path) {
    let (want, got) = (table_files(reference()), table_files(dir));
    assert_eq!(want.keys().collect::<Vec<_>>(), got.keys().collect::<Vec<_>>(), "the same files");
    assert_eq!(want.len(), 2 * TIERS + 1);
    for (name, bytes) in &want {
        assert!(bytes == &got[name], "{name} differs from the uninterrupted solve's");
    }
    let (a, b) = (Manifest::read(reference()).unwrap(), Manifest::read(dir).unwrap());
    assert_eq!(a.tiers, b.tiers);
    assert_eq!((&a.game, &a.variant), (&b.game, &b.variant));
    assert!(!dir.join("incoming").exists(), "the uploads' folder is cleared");
}

#[test]
fn a_solve_killed_midway_resumes_to_the_bytes_of_one_never_stopped() {
    let dir = TempDir::new("resume-kill");
    let out = dir.0.join("tables");
    reference();
    // One thread: the largest tier, p0-c0, solved second, takes most of the
    // time; the kill comes once the first tier is journaled.
    let began = Instant::now();
    let solving = Proc::spawn(solve_cmd(&out, &["--threads", "1"]));
    let mut killed = false;
    while began.elapsed() < Duration::from_secs(60) {
        let n = journal_entries(&out);
        if (1..TIERS).contains(&n) {
            killed = true;
            break;
        }
        if n == TIERS {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    solving.kill9();
    let journaled = journal_entries(&out);
    if !killed || journaled == TIERS {
        // Too fast to be caught midway: a journal cut after its second entry
        // (the tier files stay, as after a kill between a rename and its
        // journal line) stands for the kill.
        eprintln!("the solve finished before the kill: simulating it by cutting the journal");
        let text = std::fs::read_to_string(out.join("journal.log")).unwrap();
        let keep: String = text.split_inclusive('\n').take(3).collect();
        std::fs::write(out.join("journal.log"), keep).unwrap();
        for f in ["manifest.json", "tiers.idx"] {
            let _ = std::fs::remove_file(out.join(f));
        }
    }
    let journaled = journal_entries(&out);
    assert!((1..TIERS).contains(&journaled), "{journaled} tiers journaled");
    eprintln!("killed after {:?} with {journaled} of {TIERS} tiers journaled", began.elapsed());
    assert!(!out.join("manifest.json").exists() || !killed, "a killed solve has no manifest");

    // Without --resume the directory is refused, and left as it is.
    let before = files(&out);
    let (code, _, stderr) = solve(&out, &["--threads", "2"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(&out.display().to_string()) && stderr.contains("--resume"), "{stderr}");
    assert!(files(&out) == before, "a refused solve changes nothing");

    // Resumed: the journaled tiers are not solved again.
    let (code, stdout, stderr) = solve(&out, &["--threads", "2", "--resume"]);
    assert_eq!(code, Some(0), "{stderr}");
    let j: Json = serde_json::from_str(&stdout).unwrap();
    assert_eq!(j["tiers_resumed"], journaled as u64);
    assert_eq!(j["tiers"].as_array().unwrap().len(), TIERS);
    assert!(stderr.contains(&format!("resuming: {journaled} of {TIERS} tiers")), "{stderr}");
    assert_same_as_reference(&out);
    assert_eq!(journal_entries(&out), TIERS);

    // A finished solve resumed again: nothing solved, nothing written.
    let finished = files(&out);
    let j = solve_ok(&out, &["--threads", "2", "--resume"]);
    assert_eq!(j["tiers_resumed"], TIERS as u64);
    let again = files(&out);
    let changed: Vec<&String> =
        again.keys().chain(finished.keys()).filter(|k| again.get(*k) != finished.get(*k)).collect();
    let text = |m: &BTreeMap<String, Vec<u8>>| m.get("manifest.json").map(|b| String::from_utf8_lossy(b).into_owned());
    assert!(
        changed.is_empty(),
        "a second --resume leaves every byte as it was; changed: {changed:?}\n{:?}\n{:?}",
        text(&finished),
        text(&again)
    );
}

#[test]
fn a_directory_with_tables_or_another_solves_journal_is_refused_and_left_as_it_is() {
    let dir = TempDir::new("resume-refused");
    let out = dir.0.join("tables");
    // A copy of the reference: its journal, tables and manifest.
    std::fs::create_dir_all(out.join("tiers")).unwrap();
    for (name, bytes) in files(reference()) {
        std::fs::write(out.join(name), bytes).unwrap();
    }
    let before = files(&out);
    let refused = |extra: &[&str], needles: &[&str], code: i32| {
        let (got, _, stderr) = solve(&out, extra);
        assert_eq!(got, Some(code), "{extra:?}: {stderr}");
        assert!(stderr.contains(&out.display().to_string()), "{extra:?} names the directory: {stderr}");
        for n in needles {
            assert!(stderr.contains(n), "{extra:?}: no '{n}' in {stderr}");
        }
        assert!(files(&out) == before, "{extra:?} changed nothing");
    };
    refused(&[], &["journal", "pass --resume"], 2);
    // Another variant, plan or output: each difference named.
    let mut other = foxbase();
    other.args(["solve", "--game", "baghchal", "--goats", "2", "--capture-target", "1", "--resume", "--out"]).arg(&out);
    let o = other.output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("variant {\"goats\":2,\"capture_target\":2} (this solve: {\"goats\":2,\"capture_target\":1})"),
        "{stderr}"
    );
    assert!(files(&out) == before);
    refused(
        &["--resume", "--phase", "moving"],
        &["plan: 5 tiers, root tier p2-c0 (this solve: 2 tiers, root tier p0-c0)"],
        2,
    );
    refused(
        &["--resume", "--no-distance"],
        &["output: values and plies to zeroing, --distance dtz (this solve: values only, --distance none)"],
        2,
    );
    refused(
        &["--resume", "--distance", "dtm"],
        &["output: values and plies to zeroing, --distance dtz (this solve: values and plies to the end, --distance dtm)"],
        2,
    );

    // Another solve writing there (holding the directory's lock): refused
    // at once, --resume or not; resumed once it is gone.
    let held = std::fs::File::open(&out).unwrap();
    held.try_lock().unwrap();
    refused(&["--resume"], &["another foxbase solve is writing into this directory", "then --resume"], 2);
    refused(&[], &["another foxbase solve is writing into this directory"], 2);
    drop(held);

    // Tables without a journal: refused with --resume too (nothing to resume).
    std::fs::remove_file(out.join("journal.log")).unwrap();
    let before_2 = files(&out);
    for extra in [&[][..], &["--resume"][..]] {
        let (code, _, stderr) = solve(&out, extra);
        assert_eq!(code, Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains("manifest.json, tiers.idx, tiers/") && stderr.contains("no journal"), "{stderr}");
        assert!(files(&out) == before_2);
    }

    // --resume of a directory with nothing in it is a new solve.
    let fresh = dir.0.join("fresh");
    let (code, stdout, stderr) = solve(&fresh, &["--threads", "2", "--resume"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("nothing to resume"), "{stderr}");
    assert_eq!(serde_json::from_str::<Json>(&stdout).unwrap()["tiers_resumed"], 0);
    assert_same_as_reference(&fresh);
}

/// `parent/tables` holding the reference's tables and journal, as a solve
/// killed before its manifest leaves them.
fn journaled_copy_of_reference(parent: &Path) -> PathBuf {
    let out = parent.join("tables");
    std::fs::create_dir_all(out.join("tiers")).unwrap();
    for (name, bytes) in files(reference()) {
        if name.starts_with("tiers/") || name == "journal.log" {
            std::fs::write(out.join(name), bytes).unwrap();
        }
    }
    out
}

#[test]
fn a_torn_journal_tail_is_dropped_and_a_damaged_line_or_missing_table_refused() {
    let dir = TempDir::new("resume-torn");
    let out = journaled_copy_of_reference(&dir.0);
    // A crash in the middle of the third entry's line: two whole entries
    // and half a line; no manifest yet.
    let journal = std::fs::read_to_string(out.join("journal.log")).unwrap();
    let lines: Vec<&str> = journal.split_inclusive('\n').collect();
    let whole: String = lines[..3].concat();
    let torn = whole.clone() + &lines[3][..lines[3].len() / 2];

    // A damaged line before the last is corruption: refused, nothing changed.
    let mut damaged = torn.clone().into_bytes();
    let at = lines[0].len() + 20;
    damaged[at] = if damaged[at] == b'0' { b'1' } else { b'0' };
    std::fs::write(out.join("journal.log"), &damaged).unwrap();
    let before = files(&out);
    let (code, _, stderr) = solve(&out, &["--threads", "2", "--resume"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("line 2 is corrupt"), "{stderr}");
    assert!(files(&out) == before);

    // A journaled table that is not there with its journaled length: refused.
    std::fs::write(out.join("journal.log"), &torn).unwrap();
    let p0c1 = out.join("tiers/p0-c1.fxp");
    let kept = std::fs::read(&p0c1).unwrap();
    std::fs::write(&p0c1, &kept[..kept.len() - 1]).unwrap();
    let (code, _, stderr) = solve(&out, &["--threads", "2", "--resume"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("tiers/p0-c1.fxp is finished"), "{stderr}");
    std::fs::write(&p0c1, &kept).unwrap();

    // The torn line is cut off (its tier, p1-c1, solved again), the rest goes on.
    std::fs::write(out.join("journal.log"), &torn).unwrap();
    // One worker: the tiers are journaled in the plan's order (checked below).
    let j = solve_ok(&out, &["--threads", "2", "--workers", "1", "--resume"]);
    assert_eq!(j["tiers_resumed"], 2);
    assert_same_as_reference(&out);
    let after = std::fs::read_to_string(out.join("journal.log")).unwrap();
    assert!(after.starts_with(&whole), "the whole lines stay");
    assert_eq!(journal_entries(&out), TIERS);
    let names: Vec<String> = after
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Json>(l.split_once(' ').unwrap().1).unwrap()["name"].as_str().unwrap().into())
        .collect();
    assert_eq!(names, ["p0-c1", "p0-c0", "p1-c1", "p1-c0", "p2-c0"]);
}

/// `--threads` are shared out among two in-process workers by default
/// (one with a single thread), `--workers` says otherwise, and every way
/// writes the reference's bytes; no workers at all is refused as bad
/// input, naming the flag, before anything is written.
#[test]
fn solve_runs_two_workers_by_default_and_writes_the_same_bytes() {
    let cases: [(&[&str], u64); 4] = [
        (&["--threads", "2"], 2),
        (&["--threads", "1"], 1),
        (&["--threads", "2", "--workers", "1"], 1),
        (&["--threads", "3", "--workers", "3"], 3),
    ];
    for (extra, workers) in cases {
        let dir = TempDir::new("workers");
        let j = solve_ok(&dir.0, extra);
        assert_eq!(j["workers"], workers, "{extra:?}: {j}");
        assert_same_as_reference(&dir.0);
    }
    let dir = TempDir::new("no-workers");
    let (code, stdout, stderr) = solve(&dir.0, &["--workers", "0"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("--workers") && stderr.contains("at least 1"), "{stderr}");
    assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 0, "nothing written");
}

/// A journal that lacks a tier its later entries were solved from (cut in
/// the middle by hand, or a partial solve's tiers brought in): the finished
/// tiers are kept, the missing one alone is solved, and the run ends with
/// the reference's bytes. This once hung: the finished parent was leased
/// again and its second completion, a duplicate, never counted as done.
#[test]
fn a_journal_missing_a_child_of_finished_tiers_resumes_to_the_same_bytes() {
    let dir = TempDir::new("resume-gap");
    let out = journaled_copy_of_reference(&dir.0);
    let journal = std::fs::read_to_string(out.join("journal.log")).unwrap();
    let lines: Vec<&str> = journal.split_inclusive('\n').collect();
    assert!(lines[1].contains("\"p0-c1\""), "{}", lines[1]);
    // Without p0-c1, a child of p1-c1, which stays journaled after it.
    std::fs::write(
        out.join("journal.log"),
        [lines[0]].into_iter().chain(lines[2..].iter().copied()).collect::<String>(),
    )
    .unwrap();
    let j = solve_ok(&out, &["--threads", "2", "--resume"]);
    assert_eq!(j["tiers_resumed"], TIERS - 1);
    assert_same_as_reference(&out);
    assert_eq!(journal_entries(&out), TIERS);
}
