//! The tablebase as a whole: the fixture this crate keeps (a published
//! tablebase written by an earlier build) reads and verifies, and the tier
//! index finds tiers by reading a handful of records, checks what it reads,
//! and scales to the full game's 200,616 tiers.

mod common;

use common::TempDir;
use foxbase_core::notation::parse_position;
use foxbase_core::Value;
use foxbase_tables::index::{self, IndexEntry, TierIndex, INDEX_FILE, RECORD};
use foxbase_tables::manifest::{Manifest, TierEntry, MANIFEST_FILE};
use foxbase_tables::source::{ByteSource, DirLocation, Location};
use foxbase_tables::{ErrorKind, FoxTables, Layout};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const FIXTURE: &str = "tests/data/tiny";

#[test]
fn the_fixture_verifies_and_answers_probes() {
    let v = foxbase_tables::verify::verify_dir::<foxbase_core::foxgame::FoxGame>(
        Path::new(FIXTURE),
        &|_| {},
        true,
        &foxbase_tables::tier_walk::WalkMemory::default(),
    )
    .unwrap();
    assert_eq!((v.tiers, v.slots), (50, 101_232));
    let tables = FoxTables::open(Path::new(FIXTURE)).unwrap();
    assert_eq!(tables.layout(), Layout::Published);
    let start = tables.summary.start.clone().unwrap();
    assert_eq!((start.position.as_str(), start.value.as_str()), (".F./.../......./......./SSS..../.../... f", "loss"));
    // The sheep to move from the same squares win too.
    let pos = parse_position(".F./.../......./......./SSS..../.../... s").unwrap();
    assert_eq!(tables.value(&pos).unwrap(), Value::Win);
    // A tier the tables do not hold is named as such.
    let far = parse_position(".F./.../......./......./......./SSS/... f").unwrap();
    let e = tables.value(&far).unwrap_err().to_string();
    assert!(e.contains("which these tables do not hold"), "{e}");
}

/// A manifest of `n` synthetic tiers (no table files).
fn synthetic(n: usize) -> Manifest {
    let tiers = (0..n)
        .map(|i| {
            let name = format!("f2-{}.{}.{}.0.0.0.0", i % 7, (i / 7) % 97, i / 679);
            TierEntry {
                file: format!("tiers/{name}.fxt"),
                name,
                slots: i as u64 * 3 + 1,
                bytes: i as u64 + 100,
                crc32: format!("{:08x}", (i as u32).wrapping_mul(2_654_435_761)),
                wins: 0,
                draws: 0,
                losses: 0,
                unused: 0,
                children: Vec::new(),
                levels: 0,
                decided_at_start: 0,
                plies: None,
            }
        })
        .collect();
    Manifest {
        format: 1,
        tool: "test".into(),
        game: "fox".into(),
        variant: "{}".into(),
        layout: Layout::Solved,
        tiers,
        start: None,
        solve_seconds: 0.0,
    }
}

/// A source that counts the bytes read from it.
struct Counting {
    inner: Box<dyn ByteSource>,
    read: Arc<AtomicU64>,
}

impl ByteSource for Counting {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn len(&self) -> std::io::Result<u64> {
        self.inner.len()
    }
    fn read_ranges(&self, ranges: &mut [(u64, &mut [u8])]) -> std::io::Result<()> {
        self.read.fetch_add(ranges.iter().map(|r| r.1.len() as u64).sum(), Ordering::Relaxed);
        self.inner.read_ranges(ranges)
    }
}

#[test]
fn a_lookup_among_200000_tiers_reads_a_few_records() {
    let dir = TempDir::new("index");
    let manifest = synthetic(200_000);
    manifest.write(&dir.0).unwrap();
    let manifest_len = std::fs::metadata(dir.0.join(MANIFEST_FILE)).unwrap().len();
    let index_len = std::fs::metadata(dir.0.join(INDEX_FILE)).unwrap().len();
    assert!(manifest_len > 40_000_000, "{manifest_len}");
    let read = Arc::new(AtomicU64::new(0));
    let source = DirLocation::new(&dir.0).open(INDEX_FILE).unwrap();
    let idx = TierIndex::from_source(Box::new(Counting { inner: source, read: read.clone() })).unwrap();
    assert_eq!(idx.len(), 200_000);
    assert_eq!(idx.summary.tiers, 200_000);
    assert_eq!(idx.summary.slots, manifest.total_slots());
    for i in [0usize, 1, 99_999, 199_999, 123_457] {
        let t = &manifest.tiers[i];
        let want = IndexEntry {
            name: t.name.clone(),
            slots: t.slots,
            bytes: t.bytes,
            crc32: u32::from_str_radix(&t.crc32, 16).unwrap(),
        };
        let before = read.load(Ordering::Relaxed);
        assert_eq!(idx.lookup(&t.name).unwrap(), Some(want));
        let bytes = read.load(Ordering::Relaxed) - before;
        // ceil(log2(200,000)) = 18 steps of one record each.
        assert!(bytes <= 18 * RECORD as u64, "{bytes} bytes read for one lookup");
    }
    assert_eq!(idx.lookup("f2-9.9.9.9.9.9.9").unwrap(), None);
    assert_eq!(idx.lookup("").unwrap(), None);
    let total = read.load(Ordering::Relaxed);
    // The header, the summary, and seven lookups of at most 18 records each.
    assert!(total < 32 + 200 + 7 * 18 * RECORD as u64, "open and seven lookups read {total} bytes");
    assert!(index_len > 12_800_000, "{index_len}");
    // The whole index in order, as verify reads it.
    let all = idx.all().unwrap();
    assert_eq!(all.len(), 200_000);
    assert!(all.windows(2).all(|w| w[0].name < w[1].name));
}

#[test]
fn a_damaged_index_is_refused_and_named() {
    let dir = TempDir::new("damaged");
    let manifest = synthetic(1000);
    manifest.write(&dir.0).unwrap();
    let path = dir.0.join(INDEX_FILE);
    let good = std::fs::read(&path).unwrap();
    let open = || TierIndex::open(&DirLocation::new(&dir.0));
    let index_of = |e: &foxbase_tables::TableError| {
        assert_eq!(e.path, path.display().to_string(), "{e}");
        match &e.kind {
            ErrorKind::Index(m) => m.clone(),
            other => panic!("{other:?}"),
        }
    };
    // A flipped bit in the summary: the header checksum.
    let mut bad = good.clone();
    bad[40] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    assert!(index_of(&open().err().unwrap()).contains("header checksum"));
    // A flipped bit in a record: that record's checksum, on the lookup that reads it.
    let mut bad = good.clone();
    let last = bad.len() - RECORD + 3;
    bad[last] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let idx = open().unwrap();
    let e = idx.all().unwrap_err();
    assert!(index_of(&e).contains("record 999 fails its checksum"), "{e}");
    // Truncated.
    std::fs::write(&path, &good[..good.len() - 1]).unwrap();
    assert!(index_of(&open().err().unwrap()).contains("truncated or corrupt"));
    // Missing: an I/O error naming the file.
    std::fs::remove_file(&path).unwrap();
    let e = open().err().unwrap();
    assert!(matches!(e.kind, ErrorKind::Io(_)) && e.to_string().contains(INDEX_FILE), "{e}");
}

#[test]
fn tiers_that_cannot_be_indexed_are_refused_by_name() {
    let mut m = synthetic(3);
    m.tiers[1].file = "elsewhere/x.fxt".into();
    let e = index::encode(&m).unwrap_err().to_string();
    assert!(e.contains("is stored at 'elsewhere/x.fxt'"), "{e}");
    let mut m = synthetic(3);
    m.tiers[2].name = "x".repeat(41);
    m.tiers[2].file = format!("tiers/{}.fxt", m.tiers[2].name);
    assert!(index::encode(&m).unwrap_err().to_string().contains("cannot be indexed"));
    let mut m = synthetic(3);
    m.tiers[2] = m.tiers[0].clone();
    assert!(index::encode(&m).unwrap_err().to_string().contains("listed twice"));
    let mut m = synthetic(3);
    m.tiers[0].crc32 = "xyz".into();
    assert!(index::encode(&m).unwrap_err().to_string().contains("not 8 hex digits"));
}
