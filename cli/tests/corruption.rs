//! Damaged table directories, caught and named precisely: `foxbase verify`
//! (run as a program) on flipped, truncated, extended, deleted, swapped and
//! re-written tables and on damaged manifests; `foxbase probe` and the tier
//! solver (`solve_and_store`) on damaged input; and the same tables whether
//! written through io_uring or pread/pwrite.

mod common;

use common::TempDir;
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::{FoxGame, FoxTier};
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Value, Variant};
use foxbase_tables::manifest::{Manifest, MANIFEST_FILE};
use foxbase_tables::packed::{PackedValues, UNUSED};
use foxbase_tables::table::{
    raw_block, read_table, write_table, TableFile, CODEC_STORED, DEFAULT_BLOCK_SLOTS, FIXED_HEADER, FORMAT_VERSION,
    MAGIC,
};
use foxbase_tables::tier_files::{table_header, table_path};
use foxbase_worker::job::{solve_and_store, TierReport};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const START: &str = ".F./.../......./......./SSS..../.../... f";

struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &TierReport, _: usize, _: u64) {}
}

fn game() -> FoxGame {
    FoxGame::new(Variant::new(Geometry::Classic, 2, parse_position(START).unwrap()).unwrap())
}

/// A freshly solved directory with its manifest written.
struct Solved {
    dir: TempDir,
    game: FoxGame,
    manifest: Manifest,
}

impl Solved {
    fn new(tag: &str) -> Solved {
        let dir = TempDir::new(tag);
        let game = game();
        let plan = TierPlan::new(&game);
        let manifest = solve_local(
            &game,
            &plan,
            &dir.0,
            LocalOptions {
                workers: 1,
                threads_per_worker: 2,
                // The CLI's default: the plane kernel with plies.
                kernel: foxbase_worker::kernel::Kernel::Planes,
                output: foxbase_worker::kernel::Output::Dtm,
                ..Default::default()
            },
            &Quiet,
        )
        .unwrap();
        manifest.write(&dir.0).unwrap();
        assert!(manifest.tiers.len() > 10, "the variant should have many tiers");
        Solved { dir, game, manifest }
    }

    fn path(&self, file: &str) -> PathBuf {
        self.dir.0.join(file)
    }

    fn tier(&self, name: &str) -> FoxTier {
        self.game.parse_tier_name(name).unwrap()
    }

    /// The manifest's file name of the tier with the most slots.
    fn largest(&self) -> String {
        self.manifest.tiers.iter().max_by_key(|t| t.slots).unwrap().file.clone()
    }

    /// A tier in the middle of the manifest's order, with children.
    fn middle(&self) -> String {
        let with_children: Vec<_> = self.manifest.tiers.iter().filter(|t| !t.children.is_empty()).collect();
        with_children[with_children.len() / 2].file.clone()
    }

    /// Records a re-written tier file's length and CRC (and slots) in manifest.json.
    fn update_manifest(&mut self, file: &str, slots: Option<u64>) {
        let bytes = std::fs::read(self.path(file)).unwrap();
        let e = self.manifest.tiers.iter_mut().find(|t| t.file == file).unwrap();
        e.bytes = bytes.len() as u64;
        e.crc32 = format!("{:08x}", crc32fast::hash(&bytes));
        assert!(e.crc32.len() == 8 && e.crc32.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        if let Some(s) = slots {
            e.slots = s;
        }
        self.manifest.write(&self.dir.0).unwrap();
    }
}

fn foxbase(args: &[&str], io: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_foxbase"));
    cmd.args(args);
    if let Some(io) = io {
        cmd.env("FOXBASE_IO", io);
    }
    cmd.output().expect("run foxbase")
}

/// `foxbase verify DIR --json`: exit status, the JSON object, stderr.
fn verify(dir: &Path) -> (Option<i32>, Json, String) {
    let out = foxbase(&["verify", dir.to_str().unwrap(), "--json"], None);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "verify panicked:\n{stderr}");
    let json =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: stdout {stdout:?}, stderr {stderr}"));
    (out.status.code(), json, stderr)
}

/// Runs verify on a damaged directory and returns its problem, after the checks every failure shares.
fn verify_fails(dir: &Path) -> Json {
    let (code, json, stderr) = verify(dir);
    assert_eq!(code, Some(1), "{json}");
    assert_eq!(json["ok"], false, "{json}");
    let p = json["problem"].clone();
    assert!(p["message"].as_str().is_some_and(|m| !m.is_empty()), "{json}");
    assert!(stderr.starts_with("foxbase: verify failed: "), "{stderr}");
    assert!(stderr.contains(p["text"].as_str().unwrap()), "stderr says the same as the JSON: {stderr}");
    p
}

fn message(p: &Json) -> &str {
    p["message"].as_str().unwrap()
}

fn flip(path: &Path, at: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at as usize] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
}

// ---------------------------------------------------------------------------
// verify

#[test]
fn an_untouched_directory_verifies() {
    let s = Solved::new("clean");
    let (code, json, _) = verify(&s.dir.0);
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(json["ok"], true);
    assert_eq!(json["tiers"], s.manifest.tiers.len());
    assert!(json["positions"].as_u64().unwrap() > 50_000, "{json}");
    assert!(json["problem"].is_null());
}

#[test]
fn a_flipped_byte_in_a_block_names_the_file_and_the_block() {
    let s = Solved::new("flip");
    for file in [s.largest(), s.middle()] {
        let path = s.path(&file);
        let original = std::fs::read(&path).unwrap();
        let t = TableFile::open(&path).unwrap();
        let b = t.blocks[0];
        drop(t);
        for at in [b.offset, b.offset + b.stored_len as u64 / 2, b.offset + b.stored_len as u64 - 1] {
            flip(&path, at);
            let p = verify_fails(&s.dir.0);
            assert_eq!(p["file"], file.as_str(), "{p}");
            assert_eq!(p["block"], 0, "{p}");
            let m = message(&p);
            assert!(
                m.contains("checksum mismatch") || m.contains("cannot decompress") || m.contains("after decompression"),
                "{p}"
            );
            assert!(p["text"].as_str().unwrap().starts_with(&format!("{file}: block 0: ")), "{p}");
            std::fs::write(&path, &original).unwrap();
        }
    }
    assert_eq!(verify(&s.dir.0).0, Some(0), "restored");
}

#[test]
fn of_two_damaged_files_the_first_in_the_manifest_is_named() {
    // The files are checked on several threads; the problem named is still
    // the first one in the manifest's order, every time.
    let s = Solved::new("two-damaged");
    let files: Vec<String> = s.manifest.tiers.iter().map(|t| t.file.clone()).collect();
    // The second pair straddles the middle, where a second thread starts.
    for (first, second) in [(1, files.len() - 1), (files.len() / 2 - 1, files.len() / 2)] {
        let damaged = [&files[first], &files[second]];
        let originals: Vec<Vec<u8>> = damaged.iter().map(|f| std::fs::read(s.path(f)).unwrap()).collect();
        for file in damaged {
            let b = TableFile::open(&s.path(file)).unwrap().blocks[0];
            flip(&s.path(file), b.offset + b.stored_len as u64 / 2);
        }
        for _ in 0..5 {
            let p = verify_fails(&s.dir.0);
            assert_eq!(p["file"], files[first].as_str(), "{p}");
            assert_eq!(p["block"], 0, "{p}");
        }
        for (file, original) in damaged.iter().zip(&originals) {
            std::fs::write(s.path(file), original).unwrap();
        }
    }
    assert_eq!(verify(&s.dir.0).0, Some(0), "restored");
}

#[test]
fn a_flipped_byte_in_the_header_or_index_names_the_file() {
    let s = Solved::new("flip-head");
    let file = s.middle();
    let path = s.path(&file);
    let len = std::fs::metadata(&path).unwrap().len();
    for (at, expected) in [
        (0, "bad magic"),
        (9, "version"),
        (20, "header checksum"),
        (FIXED_HEADER as u64 + 3, "header checksum"),
        (len - 10, "index checksum"),
        (len - 1, "index checksum"),
    ] {
        let original = std::fs::read(&path).unwrap();
        flip(&path, at);
        let p = verify_fails(&s.dir.0);
        assert_eq!(p["file"], file.as_str(), "byte {at}: {p}");
        assert!(message(&p).contains(expected), "byte {at}: {p}");
        assert!(!message(&p).contains(&s.dir.0.display().to_string()), "the directory is not repeated: {p}");
        std::fs::write(&path, original).unwrap();
    }
}

#[test]
fn a_truncated_or_extended_file_is_named() {
    let s = Solved::new("trunc");
    let file = s.middle();
    let path = s.path(&file);
    let original = std::fs::read(&path).unwrap();
    for len in [original.len() - 3, original.len() - 1, FIXED_HEADER + 2, 10, 0] {
        std::fs::write(&path, &original[..len]).unwrap();
        let p = verify_fails(&s.dir.0);
        assert_eq!(p["file"], file.as_str(), "{len} bytes: {p}");
        assert!(p["text"].as_str().unwrap().starts_with(&format!("{file}: ")), "{p}");
    }
    let mut longer = original.clone();
    longer.extend_from_slice(b"\0\0\0\0\0");
    std::fs::write(&path, &longer).unwrap();
    let p = verify_fails(&s.dir.0);
    assert_eq!(p["file"], file.as_str(), "{p}");
    assert!(message(&p).contains("truncated or extended"), "{p}");
}

#[test]
fn a_deleted_file_is_named() {
    let s = Solved::new("delete");
    let file = s.middle();
    std::fs::remove_file(s.path(&file)).unwrap();
    let p = verify_fails(&s.dir.0);
    assert_eq!(p["file"], file.as_str(), "{p}");
    assert!(message(&p).contains("No such file"), "{p}");
}

#[test]
fn swapped_files_are_named_as_holding_the_other_tier() {
    let s = Solved::new("swap");
    let a = s.middle();
    let b = s.largest();
    assert_ne!(a, b);
    let (pa, pb, tmp) = (s.path(&a), s.path(&b), s.path("tiers/swap.tmp"));
    std::fs::rename(&pa, &tmp).unwrap();
    std::fs::rename(&pb, &pa).unwrap();
    std::fs::rename(&tmp, &pb).unwrap();
    let p = verify_fails(&s.dir.0);
    let tier_of = |f: &str| f.trim_start_matches("tiers/").trim_end_matches(".fxt").to_string();
    let named = p["file"].as_str().unwrap();
    let other = if named == a { &b } else { &a };
    assert!(named == a || named == b, "{p}");
    assert_eq!(message(&p), format!("holds tier {}, expected tier {}", tier_of(other), tier_of(named)), "{p}");
}

/// A value changed and the file rewritten with good checksums (and the
/// manifest updated to match): only the one-step check can see it. The
/// first failure in tier order is the changed position or a parent of it.
#[test]
fn a_changed_value_with_good_checksums_is_named_by_position() {
    let mut s = Solved::new("edit");
    let game = game();
    let file = s.largest();
    let entry = s.manifest.tiers.iter().find(|t| t.file == file).unwrap().clone();
    let tier = s.tier(&entry.name);
    let index = game.tier_index(tier);
    let header = table_header(&game, tier, entry.slots);
    let path = s.path(&file);
    let mut values = read_table(&path, &header).unwrap();
    // The first used slot holding a win, whose position is not over.
    let (slot, pos) = (0..entry.slots)
        .find_map(|i| {
            let pos = game.unrank(&index, i)?;
            (values.value(i) == Some(Value::Win) && game.primitive(&pos).is_none()).then_some((i, pos))
        })
        .expect("a won position");
    values.set_code(slot, Value::Loss.code());
    write_table(&path, &header, &values).unwrap();
    s.update_manifest(&file, None);

    let p = verify_fails(&s.dir.0);
    let reported = parse_position(p["position"].as_str().expect("a position is named")).unwrap();
    let edited = format_position(&pos);
    let is_edited = format_position(&reported) == edited;
    let mut is_parent = false;
    if game.primitive(&reported).is_none() {
        game.for_each_child(&reported, |c| is_parent |= format_position(&game.canonical(&c)) == edited);
    }
    assert!(is_edited || is_parent, "{p} is neither {edited} nor a parent of it");
    // The problem names the reported position's own file, block and slot.
    let rtier = game.tier_of(&reported);
    let rindex = game.tier_index(rtier);
    let rslot = game.rank(&rindex, &reported.canonical());
    assert_eq!(p["file"], format!("tiers/{}.fxt", game.tier_name(rtier)), "{p}");
    assert_eq!(p["block"], rslot / DEFAULT_BLOCK_SLOTS as u64, "{p}");
    assert!(message(&p).contains(&format!("slot {rslot} of tier {}", game.tier_name(rtier))), "{p}");
    if is_edited {
        assert_eq!(p["file"], file.as_str());
        assert!(message(&p).starts_with("stored loss, but its children say win"), "{p}");
    }
    // The one-step check, position by position, finds the same first problem
    // as the plane kernel's check of whole tiers.
    let out = foxbase(&["verify", s.dir.0.to_str().unwrap(), "--json", "--one-step"], None);
    assert_eq!(out.status.code(), Some(1));
    let one_step: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(one_step["problem"], p);
}

#[test]
fn manifest_problems_are_named() {
    let s = Solved::new("manifest");
    let m = s.path(MANIFEST_FILE);
    let original = std::fs::read_to_string(&m).unwrap();
    let file = s.middle();
    let entry = s.manifest.tiers.iter().find(|t| t.file == file).unwrap().clone();

    // A wrong CRC, a wrong length, an unknown tier, a file of another tier.
    let cases: Vec<(String, &str, Option<&str>)> = vec![
        (
            original.replacen(&format!("\"crc32\": \"{}\"", entry.crc32), "\"crc32\": \"00000000\"", 1),
            "file checksum",
            Some(file.as_str()),
        ),
        (
            original.replacen(
                &format!("\"file\": \"{file}\",\n      \"slots\": {},\n      \"bytes\": {}", entry.slots, entry.bytes),
                &format!(
                    "\"file\": \"{file}\",\n      \"slots\": {},\n      \"bytes\": {}",
                    entry.slots,
                    entry.bytes + 1
                ),
                1,
            ),
            "the manifest says",
            Some(file.as_str()),
        ),
        (
            original.replacen(&format!("\"name\": \"{}\"", entry.name), "\"name\": \"f9-nonsense\"", 1),
            "unknown tier 'f9-nonsense'",
            Some(file.as_str()),
        ),
        (original.replacen("\"format\": 1", "\"format\": 7", 1), "manifest format 7", None),
        (original[..original.len() / 2].to_string(), "not a foxbase manifest", None),
    ];
    for (text, expected, named) in cases {
        assert_ne!(text, original, "{expected}: the edit applied");
        std::fs::write(&m, &text).unwrap();
        let p = verify_fails(&s.dir.0);
        assert!(message(&p).contains(expected), "{expected}: {p}");
        match named {
            Some(f) => assert_eq!(p["file"], f, "{p}"),
            None => assert!(message(&p).contains(MANIFEST_FILE), "{p}"),
        }
    }
    std::fs::remove_file(&m).unwrap();
    let p = verify_fails(&s.dir.0);
    assert!(message(&p).contains(MANIFEST_FILE), "{p}");
}

/// A well-formed table (stored codec, good block and file CRCs) that holds
/// code 3 in a used slot: verify must report it, not panic.
#[test]
fn an_unused_code_in_a_used_slot_is_reported_not_a_panic() {
    let mut s = Solved::new("code3");
    let game = game();
    let start = parse_position(START).unwrap();
    let tier = game.tier_of(&start);
    let file = format!("tiers/{}.fxt", game.tier_name(tier));
    let index = game.tier_index(tier);
    let slot = game.rank(&index, &start.canonical());
    let slots = game.tier_size(&index);
    let path = s.path(&file);
    let mut values = read_table(&path, &table_header(&game, tier, slots)).unwrap();
    values.set_code(slot, UNUSED);
    std::fs::write(&path, stored_table(&game, tier, &values, 1 << 12)).unwrap();
    s.update_manifest(&file, None);
    // The file itself is readable, and says what it holds.
    let t = TableFile::open(&path).unwrap();
    assert_eq!(t.read_all().unwrap().code(slot), UNUSED);

    // probe: the start's value is unreadable, said as such.
    let out = foxbase(&["probe", START, "--tables", s.dir.0.to_str().unwrap()], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("marked unused"), "{stderr}");

    let p = verify_fails(&s.dir.0);
    assert_eq!(p["file"], file.as_str(), "{p}");
    assert_eq!(p["position"], format_position(&start.canonical()), "{p}");
}

/// A table whose header and manifest agree on a slot count that is not the
/// tier's: verify must say so, not index past the table.
#[test]
fn a_table_with_the_wrong_slot_count_is_reported_not_a_panic() {
    let mut s = Solved::new("slots");
    let game = game();
    let file = s.largest();
    let name = s.manifest.tiers.iter().find(|t| t.file == file).unwrap().name.clone();
    let tier = s.tier(&name);
    let slots = game.tier_size(&game.tier_index(tier));
    let path = s.path(&file);
    let values = read_table(&path, &table_header(&game, tier, slots)).unwrap();
    let half = (slots / 2) & !3;
    let shorter = PackedValues::from_bytes(half, values.bytes()[..(half / 4) as usize].to_vec()).unwrap();
    write_table(&path, &table_header(&game, tier, half), &shorter).unwrap();
    s.update_manifest(&file, Some(half));
    let p = verify_fails(&s.dir.0);
    assert_eq!(p["file"], file.as_str(), "{p}");
    assert!(message(&p).contains(&slots.to_string()), "the tier's real size is named: {p}");
}

/// A table with more slots than its tier, agreed by header and manifest.
#[test]
fn a_table_with_extra_slots_is_reported() {
    let mut s = Solved::new("extra");
    let game = game();
    let file = s.middle();
    let name = s.manifest.tiers.iter().find(|t| t.file == file).unwrap().name.clone();
    let tier = s.tier(&name);
    let slots = game.tier_size(&game.tier_index(tier));
    let path = s.path(&file);
    let values = read_table(&path, &table_header(&game, tier, slots)).unwrap();
    let mut bytes = values.bytes().to_vec();
    bytes.resize(bytes.len() + 25, 0);
    let longer = PackedValues::from_bytes(slots.div_ceil(4) * 4 + 100, bytes).unwrap();
    write_table(&path, &table_header(&game, tier, longer.len()), &longer).unwrap();
    s.update_manifest(&file, Some(longer.len()));
    let p = verify_fails(&s.dir.0);
    assert_eq!(p["file"], file.as_str(), "{p}");
}

/// A table file in the stored codec, built here (the coordinator has no zstd),
/// from `values` exactly as they are: code 3 included.
fn stored_table(game: &FoxGame, tier: FoxTier, values: &PackedValues, block_slots: u32) -> Vec<u8> {
    let h = table_header(game, tier, values.len());
    let json =
        serde_json::json!({"game": h.game, "variant": h.variant, "tier": h.tier, "encoding": "test"}).to_string();
    let mut blocks = Vec::new();
    for b in 0..values.len().div_ceil(block_slots as u64) {
        // raw_block fills unused slots: copy the codes themselves instead.
        let start = b * block_slots as u64;
        let n = (start + block_slots as u64).min(values.len()) - start;
        let mut raw = vec![0u8; n.div_ceil(4) as usize];
        for j in 0..n {
            raw[(j / 4) as usize] |= values.code(start + j) << ((j % 4) * 2);
        }
        assert_eq!(raw.len(), raw_block(values, block_slots, b).len());
        blocks.push(raw);
    }
    let mut index = Vec::new();
    let mut at = (FIXED_HEADER + json.len()) as u64;
    for raw in &blocks {
        index.extend_from_slice(&at.to_le_bytes());
        index.extend_from_slice(&(raw.len() as u32).to_le_bytes());
        index.extend_from_slice(&crc32fast::hash(raw).to_le_bytes());
        at += raw.len() as u64;
    }
    let index_crc = crc32fast::hash(&index);
    index.extend_from_slice(&index_crc.to_le_bytes());
    let mut file = Vec::new();
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    file.extend_from_slice(&(json.len() as u32).to_le_bytes());
    file.extend_from_slice(&values.len().to_le_bytes());
    file.extend_from_slice(&block_slots.to_le_bytes());
    file.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
    file.extend_from_slice(&CODEC_STORED.to_le_bytes());
    file.extend_from_slice(&0u32.to_le_bytes());
    file.extend_from_slice(&at.to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&file);
    crc.update(json.as_bytes());
    file.extend_from_slice(&crc.finalize().to_le_bytes());
    file.resize(FIXED_HEADER, 0);
    file.extend_from_slice(json.as_bytes());
    for raw in &blocks {
        file.extend_from_slice(raw);
    }
    file.extend_from_slice(&index);
    file
}

#[test]
fn a_stored_codec_table_built_here_verifies() {
    // The control for the test above: the same construction without code 3 passes.
    let mut s = Solved::new("stored");
    let game = game();
    let file = s.largest();
    let name = s.manifest.tiers.iter().find(|t| t.file == file).unwrap().name.clone();
    let tier = s.tier(&name);
    let slots = game.tier_size(&game.tier_index(tier));
    let path = s.path(&file);
    let values = read_table(&path, &table_header(&game, tier, slots)).unwrap();
    std::fs::write(&path, stored_table(&game, tier, &values, 1 << 12)).unwrap();
    s.update_manifest(&file, None);
    let (code, json, _) = verify(&s.dir.0);
    assert_eq!((code, &json["ok"]), (Some(0), &Json::Bool(true)), "{json}");
}

// ---------------------------------------------------------------------------
// probe

/// `foxbase probe START --tables DIR` on a damaged directory: stderr. A
/// table that cannot be read is a failure (exit status 1), not bad input.
fn probe_fails(dir: &Path) -> String {
    let out = foxbase(&["probe", START, "--tables", dir.to_str().unwrap()], None);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success(), "probe succeeded on damaged tables");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.starts_with("foxbase: "), "{stderr}");
    assert!(String::from_utf8(out.stdout).unwrap().is_empty());
    stderr
}

#[test]
fn probe_refuses_damaged_tables() {
    let s = Solved::new("probe");
    let game = &s.game;
    let start = parse_position(START).unwrap();
    let file = format!("tiers/{}.fxt", game.tier_name(game.tier_of(&start)));
    let path = s.path(&file);
    let out = foxbase(&["probe", START, "--tables", s.dir.0.to_str().unwrap(), "--json"], None);
    assert!(out.status.success());
    let json: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["value"], "loss");

    let original = std::fs::read(&path).unwrap();
    let t = TableFile::open(&path).unwrap();
    let b = t.blocks[0];
    drop(t);
    flip(&path, b.offset + b.stored_len as u64 / 2);
    let e = probe_fails(&s.dir.0);
    assert!(e.contains(&file) && e.contains("block 0"), "{e}");

    std::fs::write(&path, &original[..original.len() - 2]).unwrap();
    let e = probe_fails(&s.dir.0);
    assert!(e.contains(&file), "{e}");

    std::fs::remove_file(&path).unwrap();
    let e = probe_fails(&s.dir.0);
    assert!(e.contains(&file) && e.contains("No such file"), "{e}");
}

// ---------------------------------------------------------------------------
// solve_and_store

#[test]
fn the_solver_refuses_a_damaged_child_table() {
    let s = Solved::new("child");
    let game = &s.game;
    let file = s.largest();
    let name = s.manifest.tiers.iter().find(|t| t.file == file).unwrap().name.clone();
    let tier = s.tier(&name);
    let children = game.child_tiers(tier);
    assert!(children.len() >= 2, "{name} has children");
    let child = children[0];
    let child_path = table_path(game, &s.dir.0, child);
    let original = std::fs::read(&child_path).unwrap();
    let solve = || solve_and_store(game, &s.dir.0, tier, 2);
    let report = solve().expect("the intact directory solves again");
    assert_eq!(report.tier_name, name);
    let t = TableFile::open(&child_path).unwrap();
    let b = t.blocks[0];
    drop(t);
    let c = child_path.display().to_string();

    flip(&child_path, b.offset + b.stored_len as u64 / 2);
    let e = solve().unwrap_err().to_string();
    assert!(e.starts_with(&format!("{c}: block 0: ")), "{e}");

    std::fs::write(&child_path, &original[..original.len() - 5]).unwrap();
    let e = solve().unwrap_err().to_string();
    assert!(e.starts_with(&c) && e.contains("truncated"), "{e}");

    std::fs::remove_file(&child_path).unwrap();
    let e = solve().unwrap_err().to_string();
    assert!(e.starts_with(&c) && e.contains("No such file"), "{e}");

    // Another child's table under this child's name.
    std::fs::copy(table_path(game, &s.dir.0, children[1]), &child_path).unwrap();
    let e = solve().unwrap_err().to_string();
    assert!(e.starts_with(&c), "{e}");
    assert!(e.contains(&format!(
        "holds tier {}, expected tier {}",
        game.tier_name(children[1]),
        game.tier_name(child)
    )));

    // Restored, it solves to the same file as before.
    std::fs::write(&child_path, &original).unwrap();
    let again = solve().unwrap();
    assert_eq!((again.crc32, again.bytes), (report.crc32, report.bytes));
}

// ---------------------------------------------------------------------------
// io_uring and pread/pwrite write the same tables.

fn tier_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("tiers"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn io_uring_and_pread_pwrite_write_the_same_tables() {
    let dirs = [TempDir::new("uring"), TempDir::new("std")];
    for (dir, io) in dirs.iter().zip(["uring", "std"]) {
        let out = foxbase(
            &[
                "solve",
                "--start",
                START,
                "--pen-target",
                "2",
                "--threads",
                "2",
                "--distance",
                "dtm",
                "--out",
                dir.0.to_str().unwrap(),
                "--json",
            ],
            Some(io),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "FOXBASE_IO={io}: {stderr}");
        let json: Json = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["value"], "loss", "FOXBASE_IO={io}");
        let out = foxbase(&["verify", dir.0.to_str().unwrap(), "--json"], Some(io));
        assert!(out.status.success(), "verify under FOXBASE_IO={io}: {}", String::from_utf8_lossy(&out.stdout));
    }
    let (a, b) = (tier_files(&dirs[0].0), tier_files(&dirs[1].0));
    assert!(a.len() > 10);
    assert_eq!(a.iter().map(|f| &f.0).collect::<Vec<_>>(), b.iter().map(|f| &f.0).collect::<Vec<_>>());
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "tiers/{name} differs between io_uring and pread/pwrite");
    }
    let (ma, mb) = (Manifest::read(&dirs[0].0).unwrap(), Manifest::read(&dirs[1].0).unwrap());
    assert_eq!(ma.tiers, mb.tiers);
    assert_eq!(ma.start, mb.start);
    assert_eq!(ma.variant, mb.variant);
    // And the library's solve (this process's backend) writes the same files again.
    let s = Solved::new("lib");
    assert_eq!(tier_files(&s.dir.0), a);
    assert_eq!(s.manifest.tiers, ma.tiers);
}
