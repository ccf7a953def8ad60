//! `foxbase publish`: the published tablebase gives back every solved value
//! (probing derives fox-to-move values by one move), is smaller, verifies,
//! and a damaged or mis-published one is caught.

mod common;

use common::TempDir;
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::{FoxGame, FoxTier};
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Side, Value, Variant};
use foxbase_tables::manifest::{Layout, Manifest};
use foxbase_tables::publish::{compare_with_solve, publish, Levels};
use foxbase_tables::table::{read_table, write_table_layout, TableFile, DEFAULT_BLOCK_SLOTS};
use foxbase_tables::tier_files::{table_header, table_path};
use foxbase_tables::tier_walk::{TierWalk, WalkFigures, WalkMemory};
use foxbase_tables::tiered::WholeTier;
use foxbase_tables::FoxTables;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &foxbase_worker::job::TierReport, _: usize, _: u64) {}
}

/// Two foxes against three sheep, K = 2: wins, draws and losses, captures and fox removals.
fn game() -> FoxGame {
    let start = parse_position("F.F/.../......./......./SSS..../.../... f").unwrap();
    FoxGame::new(Variant::new(Geometry::Classic, 2, start).unwrap())
}

fn solve(dir: &Path) -> Manifest {
    let game = game();
    let m = solve_local(
        &game,
        &TierPlan::new(&game),
        dir,
        LocalOptions { workers: 1, threads_per_worker: 2, ..Default::default() },
        &Quiet,
    )
    .unwrap();
    m.write(dir).unwrap();
    m
}

/// A solved directory and its publication (zstd `level`) under a fresh root.
fn solved_and_published(tag: &str, level: i32) -> (TempDir, std::path::PathBuf, std::path::PathBuf, Manifest) {
    let root = TempDir::new(tag);
    let src = root.0.join("solved");
    let out = root.0.join("published");
    let manifest = solve(&src);
    publish(&src, &out, Levels { values: level, plies: level }, &WalkMemory::default(), &|_| {}).unwrap();
    (root, src, out, manifest)
}

fn foxbase(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_foxbase")).args(args).output().expect("run foxbase")
}

#[test]
fn published_tables_give_back_every_solved_value() {
    let root = TempDir::new("publish");
    let src = root.0.join("solved");
    let out = root.0.join("published");
    let manifest = solve(&src);
    let p = publish(&src, &out, Levels::default(), &WalkMemory::default(), &|_| {}).unwrap();
    assert_eq!(p.tiers, manifest.tiers.len());
    assert_eq!(p.slots, manifest.total_slots());
    assert!(p.bytes < p.source_bytes, "{p:?}");
    assert!(!root.0.join(".published.partial").exists(), "the staging directory is renamed away");

    let published = Manifest::read(&out).unwrap();
    assert_eq!(published.layout, Layout::Published);
    assert_eq!(published.start, manifest.start);
    assert_eq!(published.total_bytes(), p.bytes);

    // Every position of every tier: the published tables' probe (which
    // derives fox-to-move values) equals the solved table.
    let game = game();
    let full = FoxTables::open(&src).unwrap();
    let thin = FoxTables::open(&out).unwrap();
    let (mut fox, mut counts) = (0, [0u64; 3]);
    for entry in &manifest.tiers {
        let tier = game.parse_tier_name(&entry.name).unwrap();
        let index = game.tier_index(tier);
        let solved = read_table(&table_path(&game, &src, tier), &table_header(&game, tier, entry.slots)).unwrap();
        let stored = TableFile::open(&out.join(&entry.file)).unwrap();
        assert_eq!(stored.layout, Layout::Published);
        for i in 0..entry.slots {
            let Some(pos) = game.unrank(&index, i) else { continue };
            let want = solved.value(i).unwrap();
            // Probing every position through the CLI path is slow; sample the
            // fox-to-move ones through FoxTables and check all through tables.
            if i % 199 == 0 {
                assert_eq!(thin.value(&pos).unwrap(), want, "{}", format_position(&pos));
                assert_eq!(full.value(&pos).unwrap(), want, "{}", format_position(&pos));
            }
            if pos.side() == Side::Fox {
                fox += 1;
            } else {
                assert_eq!(stored.code(i).unwrap(), want.code(), "{}", format_position(&pos));
            }
            counts[want.code() as usize] += 1;
        }
    }
    assert!(fox > 0 && counts.iter().all(|&c| c > 0), "{fox} {counts:?}");

    // The CLI verifies the published directory, and refuses to publish over it.
    let v = foxbase(&["verify", out.to_str().unwrap(), "--json"]);
    assert_eq!(v.status.code(), Some(0), "{}", String::from_utf8_lossy(&v.stderr));
    let again = foxbase(&["publish", src.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"), "{again:?}");
    assert_eq!(Manifest::read(&out).unwrap(), published, "a refused publish leaves the old tablebase");
}

/// Whole published tables get the same fox-to-move values from the plane
/// kernel's fox side as from one fox move per position, byte for byte,
/// and those are the solve's, in every tier (one-fox tiers, symmetric
/// sets and captures into child tiers among them).
#[test]
fn whole_published_tables_derive_the_solved_fox_values_with_the_kernel_as_one_move_at_a_time() {
    let (_root, src, out, manifest) = solved_and_published("publish-derive", 3);
    let game = game();
    let kernel = FoxTables::open(&out).unwrap().with_deriver(Some(&foxbase_worker::plane_kernel::PlaneFoxSide));
    let one_move = FoxTables::open(&out).unwrap().with_deriver(None);
    let (mut fox, mut one_fox_tiers) = (0u64, 0);
    for entry in &manifest.tiers {
        let tier = game.parse_tier_name(&entry.name).unwrap();
        let (a, b) = (kernel.complete(tier).unwrap(), one_move.complete(tier).unwrap());
        assert_eq!(a.values.bytes(), b.values.bytes(), "{}", entry.name);
        let solved = read_table(&table_path(&game, &src, tier), &table_header(&game, tier, entry.slots)).unwrap();
        let index = game.tier_index(tier);
        for i in (0..entry.slots).step_by(2) {
            match game.unrank(&index, i) {
                Some(pos) => {
                    assert_eq!(a.values.value(i), solved.value(i), "{} {}", entry.name, format_position(&pos));
                    fox += 1;
                }
                None => assert_eq!(a.values.code(i), 3, "{} slot {i} holds no position", entry.name),
            }
        }
        one_fox_tiers += (tier.foxes() == 1) as usize;
    }
    assert!(fox > 10_000 && one_fox_tiers > 0, "{fox} fox-to-move positions, {one_fox_tiers} one-fox tiers");
}

/// A walk over the published tiers ([`TierWalk`]) visits each tier once,
/// after its children, complete as the reader makes it one tier at a time,
/// with its held children complete: within a budget each tier is made
/// complete once (a parent gets the very tier its child's visit got);
/// with none and no spill, again for every parent; with none and a spill,
/// once, and read back from the spill for its later parents; the values
/// the same every way, the spill directory gone when the walk ends, and
/// the figures those of a replay from the tiers' sizes.
#[test]
fn a_tier_walk_visits_each_tier_after_its_children_complete_and_reads_it_once() {
    let (root, _src, out, manifest) = solved_and_published("publish-walk", 3);
    let game = game();
    let tiers: Vec<_> = manifest.tiers.iter().map(|e| game.parse_tier_name(&e.name).unwrap()).collect();
    let one_at_a_time = FoxTables::open(&out).unwrap();
    let spill = root.0.join("spill");
    std::fs::create_dir(&spill).unwrap();
    let memories = [
        WalkMemory { kept_bytes: 1 << 30, spill_dir: None },
        WalkMemory { kept_bytes: 0, spill_dir: None },
        WalkMemory { kept_bytes: 0, spill_dir: Some(spill.clone()) },
    ];
    let mut figures = Vec::new();
    for memory in memories {
        let tables = FoxTables::open(&out).unwrap().with_cache_budget(0);
        let walk = TierWalk::new(&game, &tiers, memory.clone());
        assert_eq!(walk.order().len(), tiers.len());
        let mut visited: HashMap<FoxTier, *const WholeTier<FoxGame>> = HashMap::new();
        let (mut reread, mut spill_files) = (false, 0);
        let walked = walk
            .walk(
                &tables,
                |tier, e| -> String { panic!("{tier:?}: {e}") },
                |own, children| {
                    let want = one_at_a_time.complete(own.tier).unwrap();
                    assert_eq!(own.values.bytes(), want.values.bytes(), "{:?}", own.tier);
                    let held: Vec<FoxTier> =
                        game.child_tiers(own.tier).into_iter().filter(|c| tiers.contains(c)).collect();
                    assert_eq!(children.iter().map(|c| c.tier).collect::<Vec<_>>(), held, "{:?}", own.tier);
                    for child in children {
                        let first = visited.get(&child.tier).expect("a child is visited before its parents");
                        let same = std::ptr::eq(*first, *child);
                        assert!(
                            same || memory.kept_bytes == 0,
                            "{:?} made complete again within the budget",
                            child.tier
                        );
                        reread |= !same;
                        let want = one_at_a_time.complete(child.tier).unwrap();
                        assert_eq!(child.values.bytes(), want.values.bytes(), "{:?}", child.tier);
                    }
                    assert!(visited.insert(own.tier, own as *const _).is_none(), "{:?} visited twice", own.tier);
                    for dir in std::fs::read_dir(&spill).unwrap() {
                        spill_files = spill_files.max(std::fs::read_dir(dir.unwrap().path()).unwrap().count());
                    }
                    Ok::<(), String>(())
                },
            )
            .unwrap();
        assert_eq!(visited.len(), tiers.len());
        // The replay from the tiers' sizes alone does what the walk did.
        let replayed = walk.replay(|t| one_at_a_time.complete(t).unwrap().bytes());
        assert_eq!(WalkFigures { spill_high_water: walked.spill_high_water, ..replayed }, walked, "{memory:?}");
        assert_eq!(reread, memory.kept_bytes == 0, "{memory:?}");
        assert_eq!(spill_files > 0, memory.spill_dir.is_some(), "{memory:?}: {spill_files} spill files");
        assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0, "the walk removes its spill directory");
        figures.push(walked);
    }
    let n = tiers.len() as u64;
    let [kept, dropped, spilled] = figures[..] else { unreachable!() };
    assert_eq!((kept.completed, kept.spilled, kept.spill_reads), (n, 0, 0), "{kept:?}");
    assert!(kept.kept_high_water > 0 && kept.kept_high_water < 1 << 30, "{kept:?}");
    assert!(dropped.completed > n && dropped.spilled == 0, "{dropped:?}");
    // A spilled tier is read back instead of made complete again: as often
    // as the walk without a spill made one again.
    assert_eq!((spilled.completed, spilled.spill_reads), (n, dropped.completed - n), "{spilled:?}");
    assert!(spilled.spilled > 0 && spilled.spill_high_water > 0, "{spilled:?}");
}

#[test]
fn a_published_table_with_a_changed_sheep_value_fails_verify() {
    let (_root, _src, out, _) = solved_and_published("publish-edit", 3);
    let game = game();
    let mut manifest = Manifest::read(&out).unwrap();
    let entry = manifest.tiers.iter().max_by_key(|t| t.slots).unwrap().clone();
    let tier = game.parse_tier_name(&entry.name).unwrap();
    let index = game.tier_index(tier);
    let path = out.join(&entry.file);
    let mut values = TableFile::open(&path).unwrap().read_all().unwrap();
    let (slot, pos) = (0..entry.slots)
        .find_map(|i| {
            let pos = game.unrank(&index, i)?;
            (pos.side() == Side::Sheep && values.value(i) == Some(Value::Loss) && game.primitive(&pos).is_none())
                .then_some((i, pos))
        })
        .expect("a lost sheep-to-move position");
    values.set_code(slot, Value::Win.code());
    let (crc, bytes) = write_table_layout(
        &path,
        &table_header(&game, tier, entry.slots),
        &values,
        DEFAULT_BLOCK_SLOTS,
        3,
        Layout::Published,
    )
    .unwrap();
    let e = manifest.tiers.iter_mut().find(|t| t.name == entry.name).unwrap();
    e.crc32 = format!("{crc:08x}");
    e.bytes = bytes;
    manifest.write(&out).unwrap();

    let v = foxbase(&["verify", out.to_str().unwrap(), "--json"]);
    assert_eq!(v.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    let reported = json["problem"]["position"].as_str().expect("a position is named").to_string();
    // The edited position itself, or a sheep-to-move position whose fox-to-move
    // child derives its value through the edited one.
    let edited = format_position(&pos);
    assert!(reported == edited || parse_position(&reported).unwrap().side() == Side::Sheep, "{json}");
    assert!(json["problem"]["message"].as_str().unwrap().contains("but its children say"), "{json}");

    // The checksum list names an edited file before anything is read: the
    // manifest (rewritten with the table's new CRC), first in the list's order.
    let v = foxbase(&["verify", out.to_str().unwrap(), "--published", "--json"]);
    assert_eq!(v.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(json["problem"]["file"], "manifest.json", "{json}");
    assert!(json["problem"]["message"].as_str().unwrap().contains("SHA256SUMS says"), "{json}");
    // Compared with the solve, the edited value (or one derived through it) differs.
    let e = compare_with_solve(&out, &_src, &WalkMemory::default(), &|_| {}).unwrap_err();
    assert!(matches!(e, foxbase_tables::Error::PublishMismatch { ref file, .. } if *file == entry.file), "{e}");
}

/// `publish` writes SHA256SUMS, a list `sha256sum -c` accepts, over every
/// file; `verify --published` checks it (a changed, missing or unlisted
/// file is named) and `--against` compares value for value with the solve.
#[test]
fn publish_writes_a_checksum_list_that_verify_published_checks() {
    let (_root, src, out, manifest) = solved_and_published("publish-sums", 3);
    let (src_s, out_s) = (src.to_str().unwrap(), out.to_str().unwrap());
    let sums = std::fs::read_to_string(out.join("SHA256SUMS")).unwrap();
    let plies = manifest.tiers.iter().filter(|t| t.plies.is_some()).count();
    let files = manifest.tiers.len() + plies + 2;
    assert_eq!(sums.lines().count(), files, "tables, plies files, manifest.json and tiers.idx");
    assert!(sums.lines().any(|l| l.ends_with("  manifest.json")) && sums.lines().any(|l| l.ends_with("  tiers.idx")));
    let check = Command::new("sha256sum").args(["-c", "--quiet", "SHA256SUMS"]).current_dir(&out).output().unwrap();
    assert!(check.status.success(), "sha256sum -c: {}", String::from_utf8_lossy(&check.stdout));

    let v = foxbase(&["verify", out_s, "--published", "--against", src_s, "--json"]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    let json: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!((json["ok"].as_bool(), json["checksums"].as_u64()), (Some(true), Some(files as u64)));
    assert_eq!(json["against"].as_u64(), Some(manifest.tiers.len() as u64));
    let text = String::from_utf8(foxbase(&["verify", out_s, "--published", "--against", src_s]).stdout).unwrap();
    assert!(text.starts_with(&format!("ok: {files} files match their SHA-256 in SHA256SUMS\n")), "{text}");
    assert!(text.contains(&format!(
        "ok: {} tiers give back the values and plies of the solve in {src_s}",
        manifest.tiers.len()
    )));

    // Refusals: --against alone, against tables that are not a solve's.
    let alone = foxbase(&["verify", out_s, "--against", src_s]);
    assert_eq!(alone.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&alone.stderr).contains("--published"));
    let v = foxbase(&["verify", out_s, "--published", "--against", out_s]);
    assert_eq!(v.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&v.stderr).contains("is not a solve's tables"),
        "{}",
        String::from_utf8_lossy(&v.stderr)
    );

    // An unlisted file, then a missing one, each named.
    std::fs::write(out.join("tiers/stray.fxt"), b"x").unwrap();
    let v = foxbase(&["verify", out_s, "--published"]);
    assert_eq!(v.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&v.stderr).contains("tiers/stray.fxt: not listed in SHA256SUMS"));
    std::fs::remove_file(out.join("tiers/stray.fxt")).unwrap();
    std::fs::remove_file(out.join(&manifest.tiers[0].file)).unwrap();
    let v = foxbase(&["verify", out_s, "--published"]);
    assert_eq!(v.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&v.stderr).contains(&format!("{}: listed in SHA256SUMS", manifest.tiers[0].file)));
}

/// `verify --journal`: a verification stopped after some tiers (its
/// journal cut there, the last line torn) checks only the other tiers
/// when run again and records them, so that the two runs check every
/// position once; the journal of another check or of another tablebase
/// is refused, naming the option.
#[test]
fn a_verify_stopped_midway_goes_on_from_its_journal() {
    let (root, src, out, manifest) = solved_and_published("verify-journal", 3);
    let (src_s, out_s) = (src.to_str().unwrap(), out.to_str().unwrap());
    let journal = root.0.join("verify.journal");
    let j = journal.to_str().unwrap();
    let checked = |args: &[&str]| -> serde_json::Value {
        let v = foxbase(args);
        assert!(v.status.success(), "{args:?}: {}", String::from_utf8_lossy(&v.stderr));
        serde_json::from_slice(&v.stdout).unwrap()
    };
    let with_journal = ["verify", out_s, "--published", "--json", "--journal", j];
    let all = checked(&["verify", out_s, "--published", "--json"])["positions"].as_u64().unwrap();
    assert!(all > 0);
    let first = checked(&with_journal);
    assert_eq!((first["positions"].as_u64(), first["checked_before"].as_u64()), (Some(all), Some(0)));
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let tiers = manifest.tiers.len();
    assert_eq!(lines.len(), 1 + tiers, "{text}");
    let recorded = |text: &str| -> Vec<String> {
        let mut names: Vec<String> = text.lines().skip(1).map(|l| l.split_once(' ').unwrap().1.to_string()).collect();
        names.sort();
        names
    };
    let mut names: Vec<String> = manifest.tiers.iter().map(|t| t.name.clone()).collect();
    names.sort();
    assert_eq!(recorded(&text), names);

    // Stopped after k tiers, the next record torn: the rest is checked, and recorded.
    let k = tiers / 2;
    std::fs::write(&journal, format!("{}{}", lines[..1 + k].concat(), &lines[1 + k][..6])).unwrap();
    let rest = checked(&with_journal);
    assert_eq!(rest["checked_before"].as_u64(), Some(k as u64));
    assert_eq!(recorded(&std::fs::read_to_string(&journal).unwrap()), names);
    // The journal of the other tiers alone: the first k are checked, and the two runs make one.
    std::fs::write(&journal, format!("{}{}", lines[0], lines[1 + k..].concat())).unwrap();
    let head = checked(&with_journal);
    assert_eq!(head["checked_before"].as_u64(), Some((tiers - k) as u64));
    assert_eq!(rest["positions"].as_u64().unwrap() + head["positions"].as_u64().unwrap(), all);
    let v = foxbase(&["verify", out_s, "--published", "--journal", j]);
    let text = String::from_utf8(v.stdout).unwrap();
    assert!(text.contains(&format!("ok: {tiers} tiers, 0 positions checked")), "{text}");
    assert!(text.contains(&format!("of which {tiers} tiers were checked before, as the journal {j} records")));

    // Another check, another tablebase.
    for args in [&["verify", out_s, "--one-step", "--journal", j][..], &["verify", src_s, "--journal", j]] {
        let v = foxbase(args);
        assert_eq!(v.status.code(), Some(2), "{args:?}");
        let e = String::from_utf8_lossy(&v.stderr);
        assert!(e.contains(&format!("--journal {j}: the journal of another verification")), "{e}");
    }
}

/// The same for Bagh-Chal (2 goats, capture target 2), whose published tables keep every slot.
#[test]
fn a_published_baghchal_tablebase_checks_against_its_solve() {
    let root = TempDir::new("publish-sums-bc");
    let (src, out) = (root.0.join("solved"), root.0.join("published"));
    let (src_s, out_s) = (src.to_str().unwrap(), out.to_str().unwrap());
    let rules = ["--game", "baghchal", "--goats", "2", "--capture-target", "2", "--threads", "1"];
    let solve = foxbase(&[&["solve", "--out", src_s][..], &rules[..]].concat());
    assert!(solve.status.success(), "{}", String::from_utf8_lossy(&solve.stderr));
    assert!(foxbase(&["publish", src_s, out_s]).status.success());
    let v = foxbase(&["verify", out_s, "--published", "--against", src_s, "--json"]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    let json: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    let tiers = Manifest::read(&src).unwrap().tiers.len() as u64;
    assert_eq!((json["ok"].as_bool(), json["against"].as_u64()), (Some(true), Some(tiers)));
    assert!(json["checksums"].as_u64().unwrap() >= tiers + 2, "{json}");
}

#[test]
fn the_solver_and_verify_refuse_mixed_layouts() {
    let (root, src, out, manifest) = solved_and_published("publish-mixed", 3);
    let game = game();
    let entry = manifest.tiers.iter().max_by_key(|t| t.slots).unwrap();
    let tier = game.parse_tier_name(&entry.name).unwrap();
    // A solve cannot use a published table as a child table.
    let err = read_table(&out.join(&entry.file), &table_header(&game, tier, entry.slots)).unwrap_err();
    assert!(err.to_string().contains("a published table"), "{err}");
    // A published table copied into a solved directory is named by verify.
    std::fs::copy(out.join(&entry.file), src.join(&entry.file)).unwrap();
    let mut m = manifest.clone();
    let published = Manifest::read(&out).unwrap();
    let e = m.tiers.iter_mut().find(|t| t.name == entry.name).unwrap();
    *e = published.tiers.iter().find(|t| t.name == entry.name).unwrap().clone();
    m.write(&src).unwrap();
    let v = foxbase(&["verify", src.to_str().unwrap(), "--json"]);
    assert_eq!(v.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(json["problem"]["file"], entry.file.as_str(), "{json}");
    assert!(json["problem"]["message"].as_str().unwrap().contains("layout published"), "{json}");
    // Publishing a published directory, or with a bad level, is refused.
    let again = foxbase(&["publish", out.to_str().unwrap(), root.0.join("twice").to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already a published tablebase"), "{again:?}");
    let bad = foxbase(&["publish", src.to_str().unwrap(), root.0.join("x").to_str().unwrap(), "--level", "0"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--level 0"), "{bad:?}");
    let bad = foxbase(&["publish", src.to_str().unwrap(), root.0.join("x").to_str().unwrap(), "--plies-level", "23"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--plies-level 23"), "{bad:?}");
    assert!(!root.0.join("x").exists() && !root.0.join("twice").exists());
}

#[test]
fn survey_reads_a_published_tablebase_as_it_reads_the_solved_one() {
    let root = TempDir::new("survey");
    let (src, out) = (root.0.join("solved"), root.0.join("published"));
    let (src_s, out_s) = (src.to_str().unwrap(), out.to_str().unwrap());
    // One fox against three sheep starting on rank 1: every arrangement on ranks 1..4 is in the tables.
    let start = ".F./.../......./......./......./.../SSS f";
    let solved = foxbase(&["solve", "--start", start, "--pen-target", "2", "--out", src_s, "--json"]);
    assert!(solved.status.success(), "{}", String::from_utf8_lossy(&solved.stderr));
    let published = foxbase(&["publish", src_s, out_s, "--json"]);
    assert!(published.status.success(), "{}", String::from_utf8_lossy(&published.stderr));
    let survey = |dir: &str, side: &str| {
        let o = foxbase(&["survey", "--tables", dir, "--sheep", "3", "--side", side, "--list", "2000", "--json"]);
        assert!(o.status.success(), "survey of {dir}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    for side in ["f", "s"] {
        let (a, b) = (survey(src_s, side), survey(out_s, side));
        assert_eq!(a, b, "side {side}: the two layouts give the same survey");
        let j: serde_json::Value = serde_json::from_str(&a).unwrap();
        // 3 sheep on the 20 points of ranks 1..4 (the fox is on d7): C(20, 3).
        assert_eq!(j["arrangements"], 1140, "{j}");
        let total: u64 = ["win", "draw", "loss"].iter().map(|v| j[v].as_u64().unwrap()).sum();
        assert_eq!(total, 1140, "{j}");
        let listed: usize = ["win", "draw", "loss"].iter().map(|v| j["listed"][v].as_array().unwrap().len()).sum();
        assert_eq!(listed, 1140, "{j}");
    }
}
