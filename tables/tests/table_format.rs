//! Table files (format version 2, docs/format.md) and the I/O backends under
//! them: round trips of every size around block boundaries, single-slot reads
//! against whole reads, io_uring against pread/pwrite (piece by piece and a
//! whole table written in a child process under each `FOXBASE_IO`), and the
//! reader against arbitrary bytes, damaged tables and hostile headers with
//! valid checksums: always an error, never a panic, and no allocation much
//! larger than the file (measured by a tracking global allocator).

mod common;

use common::TempDir;
use foxbase_tables::packed::{PackedValues, UNUSED};
use foxbase_tables::table::{
    raw_block, read_header, read_table, write_table, write_table_with, TableFile, TableHeader, CODEC_STORED,
    CODEC_ZSTD, DEFAULT_BLOCK_SLOTS, FIXED_HEADER, FORMAT_VERSION, MAGIC,
};
use foxbase_tables::uring::Backend;
use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Helpers.

/// The global allocator, wrapped to record the largest single request of each thread.
struct Tracking;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|c| {
        if size > c.get() {
            c.set(size)
        }
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOC: Tracking = Tracking;

/// Runs `f` and returns its result with the largest single allocation this thread asked for meanwhile.
fn largest_allocation<R>(f: impl FnOnce() -> R) -> (R, usize) {
    LARGEST.with(|c| c.set(0));
    let r = f();
    (r, LARGEST.with(|c| c.get()))
}

const MIB: usize = 1 << 20;

/// splitmix64: a small deterministic generator for test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn header(slots: u64) -> TableHeader {
    TableHeader {
        game: "fox".into(),
        variant: r#"{"geometry":"classic","pen_target":2,"start":"test"}"#.into(),
        tier: "f1-0.0.0.0.3.0.0".into(),
        slots,
    }
}

/// Recomputes the header checksum (bytes 48..52) after an edit of bytes
/// 0..48, so that what the edit says is what the reader judges.
fn reseal_header(bytes: &mut [u8]) {
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&bytes[..48]);
    crc.update(&bytes[FIXED_HEADER..FIXED_HEADER + json_len]);
    let crc = crc.finalize().to_le_bytes();
    bytes[48..52].copy_from_slice(&crc);
}

/// `len` random codes: runs of one code (as real tables have) mixed with
/// single random codes; code 3 (unused) appears too.
fn random_values(len: u64, seed: u64) -> PackedValues {
    let mut rng = Rng(seed);
    let mut v = PackedValues::filled(len, 0);
    let mut i = 0;
    while i < len {
        let code = rng.below(4) as u8;
        let run = if rng.below(3) == 0 { 1 + rng.below(40) } else { 1 };
        for _ in 0..run.min(len - i) {
            v.set_code(i, code);
            i += 1;
        }
    }
    v
}

/// Checks the values read back against the values written: codes 0..=2
/// exactly; an unused slot (code 3) reads as the code of the slot before it
/// in its block (docs/format.md), never as 3.
fn check_read_back(written: &PackedValues, read: &PackedValues, block_slots: u32, what: &str) {
    assert_eq!(read.len(), written.len(), "{what}");
    for i in 0..written.len() {
        let (w, r) = (written.code(i), read.code(i));
        if w == UNUSED {
            assert_ne!(r, UNUSED, "{what}: slot {i} reads as code 3");
            if i % block_slots as u64 != 0 {
                assert_eq!(r, read.code(i - 1), "{what}: unused slot {i} should repeat the slot before it");
            }
        } else {
            assert_eq!(r, w, "{what}: slot {i}");
        }
    }
    if !written.len().is_multiple_of(4) {
        let last = *read.bytes().last().unwrap();
        assert_eq!(last >> (2 * (written.len() % 4)), 0, "{what}: unused high bits of the last byte");
    }
}

/// Writes `values` with `block_slots` and `level`, then checks everything the
/// reader says about the file. Returns the file's bytes.
fn round_trip(dir: &TempDir, len: u64, block_slots: u32, level: i32, seed: u64) -> Vec<u8> {
    let what = format!("{len} slots in blocks of {block_slots}");
    let path = dir.path(&format!("t-{len}-{block_slots}-{seed}.fxt"));
    let h = header(len);
    let values = random_values(len, seed);
    let (crc, bytes) = write_table_with(&path, &h, &values, block_slots, level).unwrap();
    let file = std::fs::read(&path).unwrap();
    assert_eq!(file.len() as u64, bytes, "{what}: returned length");
    assert_eq!(crc32fast::hash(&file), crc, "{what}: returned CRC");
    assert_eq!(&file[..8], MAGIC);
    assert!(file[52..64].iter().all(|&b| b == 0), "{what}: bytes 52..64 are zero");

    let t = TableFile::open(&path).unwrap();
    assert_eq!(t.header, h, "{what}");
    assert_eq!(t.block_slots, block_slots, "{what}");
    assert_eq!(t.codec, CODEC_ZSTD, "{what}");
    assert_eq!(t.file_len, bytes, "{what}");
    assert_eq!(t.blocks.len() as u64, len.div_ceil(block_slots as u64), "{what}");
    for b in 0..t.blocks.len() {
        let expected = if b + 1 < t.blocks.len() { block_slots as u64 } else { len - b as u64 * block_slots as u64 };
        assert_eq!(t.slots_in_block(b), expected, "{what}: block {b}");
        assert_eq!(t.blocks[b].crc32, crc32fast::hash(&raw_block(&values, block_slots, b as u64)), "{what}: {b}");
    }
    let all = t.read_all().unwrap();
    check_read_back(&values, &all, block_slots, &what);
    assert_eq!(read_table(&path, &h).unwrap(), all, "{what}");
    assert_eq!(read_header(&path).unwrap(), h, "{what}");

    // Single slots, each from its own block, against the whole read.
    let mut rng = Rng(seed ^ 0x5eed);
    let mut probes: Vec<u64> = (0..64).map(|_| rng.below(len.max(1))).collect();
    for b in 0..t.blocks.len() as u64 {
        let start = b * block_slots as u64;
        probes.extend([start, start + block_slots as u64 - 1, start + 1]);
    }
    probes.extend([0, len.saturating_sub(1)]);
    for i in probes.into_iter().filter(|&i| i < len) {
        assert_eq!(t.code(i).unwrap(), all.code(i), "{what}: code({i})");
    }
    let past = t.code(len).unwrap_err().to_string();
    assert!(past.contains("past"), "{what}: {past}");
    assert!(t.code(u64::MAX).is_err());
    file
}

// ---------------------------------------------------------------------------
// Round trips.

#[test]
fn round_trip_small_lengths_with_default_blocks() {
    let dir = TempDir::new("small");
    for len in [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4097] {
        round_trip(&dir, len, DEFAULT_BLOCK_SLOTS, 19, len);
    }
}

#[test]
fn an_empty_table_is_header_json_and_an_empty_index() {
    let dir = TempDir::new("empty");
    let file = round_trip(&dir, 0, DEFAULT_BLOCK_SLOTS, 19, 1);
    let json_len = u32::from_le_bytes(file[12..16].try_into().unwrap()) as usize;
    assert_eq!(file.len(), FIXED_HEADER + json_len + 4, "no blocks, and the index is its CRC alone");
    assert_eq!(&file[file.len() - 4..], &crc32fast::hash(&[]).to_le_bytes());
}

#[test]
fn round_trip_around_small_custom_block_sizes() {
    let dir = TempDir::new("custom");
    for block_slots in [4u32, 8, 12, 256, 1000] {
        let b = block_slots as u64;
        // read_all reads 32 blocks at a time: 33 * b + 1 and 64 * b cross that too.
        for len in [1, b - 1, b, b + 1, 2 * b - 1, 2 * b, 2 * b + 1, 7 * b + 3, 32 * b, 33 * b + 1, 64 * b] {
            round_trip(&dir, len, block_slots, 3, len * 31 + b);
        }
    }
}

#[test]
fn round_trip_around_the_default_block_size() {
    let dir = TempDir::new("default");
    let b = DEFAULT_BLOCK_SLOTS as u64;
    for len in [b - 1, b, b + 1, 2 * b + 1] {
        round_trip(&dir, len, DEFAULT_BLOCK_SLOTS, 1, len);
    }
    // And once at the written level, through write_table itself.
    let path = dir.path("level19.fxt");
    let values = random_values(b + 1, 77);
    let (crc, bytes) = write_table(&path, &header(b + 1), &values).unwrap();
    let file = std::fs::read(&path).unwrap();
    assert_eq!((crc32fast::hash(&file), file.len() as u64), (crc, bytes));
    let t = TableFile::open(&path).unwrap();
    assert_eq!((t.block_slots, t.blocks.len()), (DEFAULT_BLOCK_SLOTS, 2));
    check_read_back(&values, &t.read_all().unwrap(), DEFAULT_BLOCK_SLOTS, "write_table");
}

#[test]
fn the_same_values_give_the_same_bytes() {
    let dir = TempDir::new("determinism");
    let a = round_trip(&dir, 100_003, 4096, 19, 9);
    let b = round_trip(&dir, 100_003, 4096, 19, 9);
    assert!(a == b, "writing twice gave different files");
}

#[test]
fn read_table_names_what_differs_from_the_expected_header() {
    let dir = TempDir::new("expect");
    let path = dir.path("t.fxt");
    write_table(&path, &header(10), &random_values(10, 1)).unwrap();
    let p = path.display().to_string();
    let err = |h: TableHeader| read_table(&path, &h).unwrap_err().to_string();
    let e = err(TableHeader { tier: "f1-0.0.0.0.2.0.0".into(), ..header(10) });
    assert!(e.starts_with(&p) && e.contains("holds tier f1-0.0.0.0.3.0.0, expected tier f1-0.0.0.0.2.0.0"), "{e}");
    let e = err(TableHeader { variant: "{}".into(), ..header(10) });
    assert!(e.starts_with(&p) && e.contains("was built for"), "{e}");
    let e = err(header(11));
    assert!(e.starts_with(&p) && e.contains("has 10 slots, expected 11"), "{e}");
    let e = read_table(&dir.path("missing.fxt"), &header(10)).unwrap_err().to_string();
    assert!(e.contains("missing.fxt"), "{e}");
}

#[test]
fn rewriting_a_table_leaves_no_temporary_file() {
    let dir = TempDir::new("atomic");
    let path = dir.path("t.fxt");
    write_table(&path, &header(5), &random_values(5, 1)).unwrap();
    write_table(&path, &header(9), &random_values(9, 2)).unwrap();
    let names: Vec<String> =
        std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["t.fxt"]);
    assert_eq!(read_header(&path).unwrap().slots, 9);
}

// ---------------------------------------------------------------------------
// The two I/O backends, called directly.

fn uring_available() -> bool {
    let ok = io_uring::IoUring::new(8).is_ok();
    if !ok {
        eprintln!("io_uring is unavailable here; only pread/pwrite is tested");
    }
    ok
}

fn backends() -> Vec<Backend> {
    if uring_available() {
        vec![Backend::Uring, Backend::Std]
    } else {
        vec![Backend::Std]
    }
}

/// Non-overlapping pieces with gaps between them, some over 1 MiB; returns them and the file image.
fn layout(seed: u64, count: usize, with_empty: bool) -> (Vec<(u64, Vec<u8>)>, Vec<u8>) {
    let mut rng = Rng(seed);
    let mut pieces = Vec::new();
    let mut at = rng.below(100);
    for k in 0..count {
        let len = match k % 50 {
            7 => MIB + 1 + rng.below(MIB as u64) as usize,
            23 => 3 * MIB + 5,
            _ if with_empty && k % 5 == 0 => 0,
            _ => rng.below(5000) as usize,
        };
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        pieces.push((at, bytes));
        at += len as u64 + rng.below(3) * rng.below(700);
    }
    let end = pieces.iter().map(|(o, b)| o + b.len() as u64).max().unwrap_or(0);
    let mut image = vec![0u8; end as usize];
    for (o, b) in &pieces {
        image[*o as usize..*o as usize + b.len()].copy_from_slice(b);
    }
    // Shuffle the order the pieces are handed over in: offsets, not order, place them.
    for i in (1..pieces.len()).rev() {
        pieces.swap(i, rng.below(i as u64 + 1) as usize);
    }
    (pieces, image)
}

fn write_with(backend: Backend, path: &Path, pieces: &[(u64, Vec<u8>)]) -> std::io::Result<()> {
    let f = File::create(path)?;
    let refs: Vec<(u64, &[u8])> = pieces.iter().map(|(o, b)| (*o, b.as_slice())).collect();
    backend.write_all_at(&f, &refs)
}

fn read_with(backend: Backend, path: &Path, spans: &[(u64, usize)]) -> std::io::Result<Vec<Vec<u8>>> {
    let f = File::open(path)?;
    let mut bufs: Vec<Vec<u8>> = spans.iter().map(|&(_, n)| vec![0xAA; n]).collect();
    let mut pieces: Vec<(u64, &mut [u8])> =
        spans.iter().zip(bufs.iter_mut()).map(|(&(o, _), b)| (o, &mut b[..])).collect();
    backend.read_exact_at(&f, &mut pieces)?;
    Ok(bufs)
}

#[test]
fn backends_write_and_read_the_same_bytes() {
    let dir = TempDir::new("backends");
    for (seed, count) in [(1, 1), (2, 9), (3, 120)] {
        let (pieces, image) = layout(seed, count, false);
        let spans: Vec<(u64, usize)> = pieces.iter().map(|(o, b)| (*o, b.len())).collect();
        for backend in backends() {
            let path = dir.path(&format!("{}-{seed}", backend.name().replace('/', "_")));
            write_with(backend, &path, &pieces).unwrap();
            let file = std::fs::read(&path).unwrap();
            assert!(file == image, "{}: {count} pieces: the file is not the expected image", backend.name());
            for reader in backends() {
                let got = read_with(reader, &path, &spans).unwrap();
                for (k, (p, g)) in pieces.iter().zip(&got).enumerate() {
                    assert!(p.1 == *g, "written with {}, read with {}: piece {k}", backend.name(), reader.name());
                }
            }
        }
    }
    assert!(pieces_over_one_mib(&layout(3, 120, false).0) >= 4);
}

fn pieces_over_one_mib(pieces: &[(u64, Vec<u8>)]) -> usize {
    pieces.iter().filter(|p| p.1.len() > MIB).count()
}

#[test]
fn backends_accept_an_empty_list_of_pieces() {
    let dir = TempDir::new("nopieces");
    for backend in backends() {
        let path = dir.path(backend.name().replace('/', "_").as_str());
        write_with(backend, &path, &[]).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        assert!(read_with(backend, &path, &[]).unwrap().is_empty());
    }
}

#[test]
fn backends_accept_zero_length_pieces() {
    let dir = TempDir::new("zerolen");
    let (pieces, image) = layout(11, 60, true);
    assert!(pieces.iter().any(|p| p.1.is_empty()));
    let spans: Vec<(u64, usize)> = pieces.iter().map(|(o, b)| (*o, b.len())).collect();
    for backend in backends() {
        let name = backend.name();
        let path = dir.path(name.replace('/', "_").as_str());
        // One zero-length piece alone, then many among others.
        let p = path.clone();
        within(name, 10, move || {
            write_with(backend, &p, &[(0, vec![])]).unwrap_or_else(|e| panic!("{name}: lone empty write: {e}"));
            read_with(backend, &p, &[(0, 0)]).unwrap_or_else(|e| panic!("{name}: lone empty read: {e}"));
        });
        let (p, pcs) = (path.clone(), pieces.clone());
        within(name, 10, move || write_with(backend, &p, &pcs))
            .unwrap_or_else(|e| panic!("{name}: write with empty pieces: {e}"));
        assert!(std::fs::read(&path).unwrap() == image, "{name}");
        let (p, sp) = (path.clone(), spans.clone());
        let got = within(name, 10, move || read_with(backend, &p, &sp))
            .unwrap_or_else(|e| panic!("{name}: read with empty pieces: {e}"));
        assert!(got.iter().zip(&pieces).all(|(g, p)| *g == p.1), "{name}");
        // A zero-length read at the very end of the file asks for nothing.
        let (p, len) = (path.clone(), image.len() as u64);
        within(name, 10, move || read_with(backend, &p, &[(len, 0)]))
            .unwrap_or_else(|e| panic!("{name}: empty read at the end: {e}"));
    }
    // Through the table reader (its default backend): a block stored in zero
    // bytes is an error that names the block.
    let path = write_file(&dir, "e.fxt", &empty_blocks_file(2));
    let t = TableFile::open(&path).unwrap();
    let e = t.code(0).unwrap_err();
    assert!(e.block == Some(0) && e.message().starts_with("block 0: "), "{e}");
    let e = t.code(1 << 26).unwrap_err();
    assert!(e.block == Some(1) && e.message().starts_with("block 1: "), "{e}");
}

/// Runs `f` on its own thread and fails the test if it has not returned within
/// `secs` seconds (the thread is left behind), so a hung I/O path fails
/// instead of hanging the whole test run.
fn within<R: Send + 'static>(what: &str, secs: u64, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(r) => r,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no answer after {secs} s (hung)"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

fn assert_eof(what: &str, e: &std::io::Error) {
    assert!(
        matches!(e.kind(), std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::InvalidInput)
            || e.raw_os_error() == Some(libc::EINVAL),
        "{what}: {e:?}"
    );
}

#[test]
fn reading_past_the_end_of_the_file_is_an_error() {
    let dir = TempDir::new("eof");
    let path = dir.path("f");
    std::fs::write(&path, (0..100u8).collect::<Vec<u8>>()).unwrap();
    for backend in backends() {
        let name = backend.name();
        assert_eq!(read_with(backend, &path, &[(0, 100)]).unwrap()[0], (0..100u8).collect::<Vec<u8>>());
        for spans in [vec![(90, 20)], vec![(100, 1)], vec![(1 << 40, 10)], vec![(0, 2 * MIB)], vec![(u64::MAX - 4, 2)]]
        {
            let what = format!("{name}: {spans:?}");
            let p = path.clone();
            // The failed read, then a good one on the same thread (and so the same ring).
            let (bad, good) =
                within(&what, 10, move || (read_with(backend, &p, &spans), read_with(backend, &p, &[(7, 3)])));
            assert_eof(&what, &bad.expect_err(&what));
            assert_eq!(good.unwrap(), [vec![7, 8, 9]], "{what}: the read after the failed one");
        }
    }
}

#[test]
fn a_failed_read_among_many_pieces_is_an_error_not_a_hang() {
    let dir = TempDir::new("eof-many");
    let path = dir.path("f");
    std::fs::write(&path, (0..100u8).collect::<Vec<u8>>()).unwrap();
    for backend in backends() {
        // Good pieces in flight around one that runs past the end.
        let spans: Vec<(u64, usize)> =
            (0..20).map(|k| (k * 5, 5)).chain([(99, 2)]).chain((0..20).map(|k| (k * 5, 5))).collect();
        let what = format!("{}: 41 pieces, one past the end", backend.name());
        let p = path.clone();
        let r = within(&what, 10, move || read_with(backend, &p, &spans));
        assert_eof(&what, &r.expect_err(&what));
    }
}

#[test]
fn writing_one_piece_to_a_read_only_file_is_an_error() {
    let dir = TempDir::new("rofile");
    let path = dir.path("f");
    std::fs::write(&path, b"x").unwrap();
    for backend in backends() {
        let p = path.clone();
        let r = within(backend.name(), 10, move || {
            let f = OpenOptions::new().read(true).open(&p).unwrap();
            backend.write_all_at(&f, &[(0, &[7u8; 3 * MIB][..])])
        });
        let e = r.expect_err(backend.name());
        assert_eq!(e.raw_os_error(), Some(libc::EBADF), "{}: {e:?}", backend.name());
    }
    assert_eq!(std::fs::read(&path).unwrap(), b"x");
}

#[test]
fn writing_many_pieces_to_a_read_only_file_is_an_error_not_a_hang() {
    let dir = TempDir::new("rofile-many");
    let path = dir.path("f");
    std::fs::write(&path, b"x").unwrap();
    for backend in backends() {
        let p = path.clone();
        let what = format!("{}: 12 pieces", backend.name());
        let r = within(&what, 10, move || {
            let f = OpenOptions::new().read(true).open(&p).unwrap();
            let data = vec![7u8; 4096];
            let pieces: Vec<(u64, &[u8])> = (0..12).map(|k| (k as u64 * 100, &data[..100 + k])).collect();
            backend.write_all_at(&f, &pieces)
        });
        assert!(r.is_err(), "{what}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), b"x");
}

/// The table written by [`child_helper`]'s "write" job: three blocks, unused slots included.
fn child_table_values() -> (TableHeader, PackedValues) {
    let len = 2 * DEFAULT_BLOCK_SLOTS as u64 + 12_345;
    (header(len), random_values(len, 2024))
}

/// Not a test by itself: does a job for a parent test when `FOXBASE_TEST_CHILD` says so.
#[test]
fn child_helper() {
    let Ok(job) = std::env::var("FOXBASE_TEST_CHILD") else { return };
    let (what, path) = job.split_once(':').unwrap();
    let path = Path::new(path);
    match what {
        "write" => {
            let expected = match std::env::var("FOXBASE_IO").as_deref() {
                Ok("uring") => Backend::Uring,
                Ok("std") => Backend::Std,
                other => panic!("FOXBASE_IO={other:?}"),
            };
            assert_eq!(Backend::get(), expected);
            let (h, values) = child_table_values();
            write_table_with(path, &h, &values, DEFAULT_BLOCK_SLOTS, 3).unwrap();
            println!("CHILD-RESULT wrote with {}", Backend::get().name());
        }
        "read_all" => match TableFile::open(path).and_then(|t| t.read_all()) {
            Ok(_) => println!("CHILD-RESULT ok"),
            Err(e) => println!("CHILD-RESULT err {e}"),
        },
        _ => panic!("unknown child job {job}"),
    }
}

/// Runs [`child_helper`] in a child process; returns its exit status and stdout.
fn run_child(job: &str, io: Option<&str>) -> (std::process::ExitStatus, String) {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_helper", "--nocapture", "--test-threads", "1"]).env("FOXBASE_TEST_CHILD", job);
    match io {
        Some(io) => cmd.env("FOXBASE_IO", io),
        None => cmd.env_remove("FOXBASE_IO"),
    };
    let out = cmd.output().unwrap();
    (out.status, String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

#[test]
fn a_table_written_under_either_backend_is_the_same_file() {
    if !uring_available() {
        return;
    }
    let dir = TempDir::new("child");
    let mut files = Vec::new();
    for io in ["uring", "std"] {
        let path = dir.path(&format!("{io}.fxt"));
        let (status, out) = run_child(&format!("write:{}", path.display()), Some(io));
        assert!(status.success() && out.contains("CHILD-RESULT wrote with"), "FOXBASE_IO={io}: {out}");
        files.push(std::fs::read(&path).unwrap());
    }
    assert!(files[0] == files[1], "io_uring and pread/pwrite wrote different tables");
    // And both read back, under this process's backend, to the values written.
    let (h, values) = child_table_values();
    let read = read_table(&dir.path("std.fxt"), &h).unwrap();
    check_read_back(&values, &read, DEFAULT_BLOCK_SLOTS, "child table");
}

// ---------------------------------------------------------------------------
// Crafted files: valid checksums around hostile fields.

/// The fields of a fixed header, to be written with a correct header CRC.
#[derive(Clone, Debug)]
struct Fields {
    version: u32,
    json_len: u32,
    slots: u64,
    block_slots: u32,
    block_count: u32,
    codec: u32,
    flags: u32,
    index_offset: u64,
}

fn json_for(slots: u64) -> Vec<u8> {
    let h = header(slots);
    serde_json::json!({"game": h.game, "variant": h.variant, "tier": h.tier, "encoding": "test"})
        .to_string()
        .into_bytes()
}

/// The fixed header and JSON, with the header CRC over bytes 0..48 and the JSON.
fn head(f: &Fields, json: &[u8]) -> Vec<u8> {
    let mut h = Vec::with_capacity(FIXED_HEADER + json.len());
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&f.version.to_le_bytes());
    h.extend_from_slice(&f.json_len.to_le_bytes());
    h.extend_from_slice(&f.slots.to_le_bytes());
    h.extend_from_slice(&f.block_slots.to_le_bytes());
    h.extend_from_slice(&f.block_count.to_le_bytes());
    h.extend_from_slice(&f.codec.to_le_bytes());
    h.extend_from_slice(&f.flags.to_le_bytes());
    h.extend_from_slice(&f.index_offset.to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&h);
    crc.update(json);
    h.extend_from_slice(&crc.finalize().to_le_bytes());
    h.resize(FIXED_HEADER, 0);
    h.extend_from_slice(json);
    h
}

/// A block index with its CRC.
fn index(entries: &[(u64, u32, u32)]) -> Vec<u8> {
    let mut ix = Vec::new();
    for &(offset, len, crc) in entries {
        ix.extend_from_slice(&offset.to_le_bytes());
        ix.extend_from_slice(&len.to_le_bytes());
        ix.extend_from_slice(&crc.to_le_bytes());
    }
    let crc = crc32fast::hash(&ix);
    ix.extend_from_slice(&crc.to_le_bytes());
    ix
}

/// A whole, well-formed file built here from raw blocks (stored or zstd), to
/// be sure the crafting is right before it is used to break things.
fn craft_valid(values: &PackedValues, block_slots: u32, codec: u32) -> Vec<u8> {
    let json = json_for(values.len());
    let blocks: Vec<(Vec<u8>, u32)> = (0..values.len().div_ceil(block_slots as u64))
        .map(|b| {
            let raw = raw_block(values, block_slots, b);
            let crc = crc32fast::hash(&raw);
            let stored = if codec == CODEC_STORED { raw } else { zstd::bulk::compress(&raw, 1).unwrap() };
            (stored, crc)
        })
        .collect();
    let mut at = (FIXED_HEADER + json.len()) as u64;
    let mut entries = Vec::new();
    for (s, crc) in &blocks {
        entries.push((at, s.len() as u32, *crc));
        at += s.len() as u64;
    }
    let fields = Fields {
        version: FORMAT_VERSION,
        json_len: json.len() as u32,
        slots: values.len(),
        block_slots,
        block_count: blocks.len() as u32,
        codec,
        flags: 0,
        index_offset: at,
    };
    let mut file = head(&fields, &json);
    for (s, _) in &blocks {
        file.extend_from_slice(s);
    }
    file.extend_from_slice(&index(&entries));
    file
}

/// Opens and reads a file every way; never panics (the test fails if it does).
/// Returns whether open succeeded, whether read_all succeeded, and the largest allocation.
fn try_everything(path: &Path, probes: &[u64]) -> (Result<(), String>, Result<PackedValues, String>, usize) {
    let ((open, all), largest) = largest_allocation(|| match TableFile::open(path) {
        Err(e) => (Err(e.to_string()), Err("not opened".into())),
        Ok(t) => {
            for &i in probes {
                let _ = t.code(i % t.header.slots.max(1));
            }
            let all = t.read_all().map_err(|e| e.to_string());
            (Ok(()), all)
        }
    });
    (open, all, largest)
}

fn write_file(dir: &TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn crafted_valid_files_are_read_both_stored_and_compressed() {
    let dir = TempDir::new("crafted");
    for (len, bs) in [(0u64, 8u32), (1, 4), (37, 8), (1000, 64), (5000, 4096)] {
        let values = random_values(len, len + 5);
        for codec in [CODEC_STORED, CODEC_ZSTD] {
            let path = write_file(&dir, "c.fxt", &craft_valid(&values, bs, codec));
            let t = TableFile::open(&path).unwrap_or_else(|e| panic!("{len}/{bs}/{codec}: {e}"));
            assert_eq!(t.codec, codec);
            let all = t.read_all().unwrap();
            check_read_back(&values, &all, bs, "crafted");
            for i in 0..len.min(50) {
                assert_eq!(t.code(i).unwrap(), all.code(i));
            }
        }
        // The crafting agrees with the writer, byte for byte, on the zstd header and index layout.
        let path = dir.path("w.fxt");
        write_table_with(&path, &header(len), &values, bs, 1).unwrap();
        let written = std::fs::read(&path).unwrap();
        let crafted = craft_valid(&values, bs, CODEC_ZSTD);
        assert_eq!(written[..12], crafted[..12]);
        assert_eq!(written[16..40], crafted[16..40], "{len}/{bs}: fixed header fields");
    }
}

/// A header claiming a huge table must be refused at once, before anything the
/// size of the claim is allocated. Each case has a valid header CRC.
#[test]
fn huge_claims_in_a_valid_header_are_refused_without_allocating() {
    let dir = TempDir::new("huge");
    let json = json_for(0);
    let j = json.len() as u32;
    let data_start = FIXED_HEADER as u64 + j as u64;
    let base = Fields {
        version: FORMAT_VERSION,
        json_len: j,
        slots: 0,
        block_slots: DEFAULT_BLOCK_SLOTS,
        block_count: 0,
        codec: CODEC_ZSTD,
        flags: 0,
        index_offset: data_start,
    };
    let empty_index = index(&[]);
    // Sanity: the base case is a valid empty table.
    let mut ok = head(&base, &json);
    ok.extend_from_slice(&empty_index);
    let p = write_file(&dir, "base.fxt", &ok);
    assert_eq!(TableFile::open(&p).unwrap().read_all().unwrap().len(), 0);

    let max_block = 1u32 << 26;
    let cases: Vec<(&str, Fields, Vec<u8>, &str)> = vec![
        ("slots u64::MAX", Fields { slots: u64::MAX, ..base.clone() }, empty_index.clone(), "blocks cannot hold"),
        (
            "slots u64::MAX in u32::MAX blocks of 4",
            Fields { slots: u64::MAX, block_slots: 4, block_count: u32::MAX, ..base.clone() },
            empty_index.clone(),
            "blocks cannot hold",
        ),
        (
            "u32::MAX blocks of 4, consistent slots (a 64 GiB index)",
            Fields { slots: u32::MAX as u64 * 4, block_slots: 4, block_count: u32::MAX, ..base.clone() },
            empty_index.clone(),
            "implausible slot count",
        ),
        (
            "u32::MAX blocks of 2^26 slots, consistent (2^56 slots)",
            Fields {
                slots: u32::MAX as u64 * max_block as u64,
                block_slots: max_block,
                block_count: u32::MAX,
                ..base.clone()
            },
            empty_index.clone(),
            "implausible slot count",
        ),
        (
            "index_offset u64::MAX",
            Fields { index_offset: u64::MAX, ..base.clone() },
            empty_index.clone(),
            "truncated or extended",
        ),
        (
            "index_offset u64::MAX - 3 (offset + 4 overflows to 0)",
            Fields { index_offset: u64::MAX - 3, ..base.clone() },
            empty_index.clone(),
            "truncated or extended",
        ),
        ("index_offset 2^62", Fields { index_offset: 1 << 62, ..base.clone() }, empty_index.clone(), "truncated"),
        ("index_offset 0", Fields { index_offset: 0, ..base.clone() }, empty_index.clone(), "truncated"),
        ("block size 2^27", Fields { block_slots: 1 << 27, ..base.clone() }, empty_index.clone(), "block size"),
        (
            "block size u32::MAX - 3",
            Fields { block_slots: u32::MAX - 3, ..base.clone() },
            empty_index.clone(),
            "block size",
        ),
        ("block size 0", Fields { block_slots: 0, ..base.clone() }, empty_index.clone(), "block size"),
        ("block size 6", Fields { block_slots: 6, ..base.clone() }, empty_index.clone(), "block size"),
        ("codec 2", Fields { codec: 2, ..base.clone() }, empty_index.clone(), "codec"),
        ("version 1", Fields { version: 1, ..base.clone() }, empty_index.clone(), "version 1"),
        ("version u32::MAX", Fields { version: u32::MAX, ..base.clone() }, empty_index.clone(), "version"),
        (
            "one block with stored length u32::MAX",
            Fields { slots: 4, block_slots: 4, block_count: 1, index_offset: data_start, ..base.clone() },
            index(&[(data_start, u32::MAX, 0)]),
            "outside the data area",
        ),
        (
            "one block at offset u64::MAX",
            Fields { slots: 4, block_slots: 4, block_count: 1, index_offset: data_start, ..base.clone() },
            index(&[(u64::MAX, 1, 0)]),
            "outside the data area",
        ),
        (
            "index with a bad CRC",
            Fields { slots: 4, block_slots: 4, block_count: 1, index_offset: data_start, ..base.clone() },
            {
                let mut ix = index(&[(data_start, 0, 0)]);
                ix[16] ^= 1;
                ix
            },
            "index checksum",
        ),
    ];
    for (what, fields, tail, expected) in cases {
        let mut bytes = head(&fields, &json);
        bytes.extend_from_slice(&tail);
        let path = write_file(&dir, "h.fxt", &bytes);
        let started = Instant::now();
        let (open, _, largest) = try_everything(&path, &[0, 1, 1 << 40]);
        let e = open.expect_err(what);
        assert!(e.contains(expected), "{what}: {e}");
        assert!(e.starts_with(&path.display().to_string()), "{what}: the message names the file: {e}");
        assert!(largest < MIB, "{what}: allocated {largest} bytes");
        assert!(started.elapsed() < Duration::from_secs(1), "{what}: slow");
    }

    // A JSON length too large for the reader, or for the file, with a matching CRC where one can be computed.
    for (what, json_len, body) in [
        ("json_len u32::MAX", u32::MAX, json.clone()),
        ("json_len 2^16 + 1, all present", (1 << 16) + 1, vec![b' '; (1 << 16) + 1]),
        ("json_len 2^16, file shorter", 1 << 16, json.clone()),
        ("json_len past the end by one", j + 1, json.clone()),
    ] {
        let fields = Fields { json_len, ..base.clone() };
        let mut bytes = head(&fields, &body);
        bytes.extend_from_slice(&empty_index);
        let path = write_file(&dir, "j.fxt", &bytes);
        let (open, _, largest) = try_everything(&path, &[0]);
        let e = open.expect_err(what);
        assert!(e.contains("header length") || e.contains("checksum"), "{what}: {e}");
        assert!(largest < 256 << 10, "{what}: allocated {largest} bytes");
    }

    // Valid CRCs but a description that is not what a table holds.
    for (what, json) in [
        ("empty JSON", b"".to_vec()),
        ("not JSON", b"\xff\xfe not json".to_vec()),
        ("JSON without 'tier'", br#"{"game":"fox","variant":"x"}"#.to_vec()),
        ("JSON with a numeric tier", br#"{"game":"fox","variant":"x","tier":3}"#.to_vec()),
        ("JSON array", b"[1,2,3]".to_vec()),
    ] {
        let fields = Fields {
            json_len: json.len() as u32,
            index_offset: FIXED_HEADER as u64 + json.len() as u64,
            ..base.clone()
        };
        let mut bytes = head(&fields, &json);
        bytes.extend_from_slice(&empty_index);
        let path = write_file(&dir, "js.fxt", &bytes);
        let (open, _, _) = try_everything(&path, &[0]);
        let e = open.expect_err(what);
        assert!(e.contains("table header"), "{what}: {e}");
    }
}

/// Bytes 0..48 say what the file is; the fixed header and each block are
/// checked before anything is trusted, so flags other than bit 0 (the only
/// one docs/format.md defines) are refused.
#[test]
fn unknown_flags_are_refused() {
    // A values file whose flags say plies opens as a plies file and is refused as a table.
    let dir2 = TempDir::new("plies-flag");
    let mut bytes = craft_valid(&random_values(100, 3), 16, CODEC_ZSTD);
    bytes[36..40].copy_from_slice(&2u32.to_le_bytes());
    reseal_header(&mut bytes);
    let path = write_file(&dir2, "p.fxt", &bytes);
    let e = TableFile::open(&path).unwrap().read_all().unwrap_err().to_string();
    assert!(e.contains("holds plies, expected values"), "{e}");
    let dir = TempDir::new("flags");
    let values = random_values(100, 3);
    // 64 and up are unused; 6, 10, 12, 18 and 24 say plies files of two
    // kinds at once (one byte a slot, two, packed in nibbles, in bytes);
    // column order (32) is for published values only (with 1, without 2 to 16).
    for flags in [64u32, 6, 7, 10, 12, 14, 18, 24, 32, 33 | 2, 33 | 16, 1 << 31] {
        let mut bytes = craft_valid(&values, 16, CODEC_ZSTD);
        bytes[36..40].copy_from_slice(&flags.to_le_bytes());
        reseal_header(&mut bytes);
        let path = write_file(&dir, &format!("f{flags}.fxt"), &bytes);
        let e = TableFile::open(&path).expect_err("unknown flags accepted").to_string();
        assert!(e.contains("reserved header fields"), "flags {flags}: {e}");
    }
    // Packed in bytes (16) needs the period of its column order in the JSON.
    let mut bytes = craft_valid(&values, 16, CODEC_ZSTD);
    bytes[36..40].copy_from_slice(&16u32.to_le_bytes());
    reseal_header(&mut bytes);
    let path = write_file(&dir, "no-period.fxp", &bytes);
    let e = TableFile::open(&path).expect_err("a byte-packed file without a period").to_string();
    assert!(e.contains("period"), "{e}");
}

/// A small file (about 4 KiB here) whose header claims 256 blocks of 2^26
/// slots, each stored in zero bytes: every length is consistent with the
/// file and both CRCs are right, so open succeeds, but no block can be read.
fn empty_blocks_file(blocks: u32) -> Vec<u8> {
    let block_slots = 1u32 << 26;
    let slots = blocks as u64 * block_slots as u64;
    let json = json_for(slots);
    let start = (FIXED_HEADER + json.len()) as u64;
    let fields = Fields {
        version: FORMAT_VERSION,
        json_len: json.len() as u32,
        slots,
        block_slots,
        block_count: blocks,
        codec: CODEC_ZSTD,
        flags: 0,
        index_offset: start,
    };
    let mut bytes = head(&fields, &json);
    bytes.extend_from_slice(&index(&vec![(start, 0, 0); blocks as usize]));
    bytes
}

#[test]
fn empty_blocks_claiming_many_slots_fail_to_read_one_slot_without_a_big_allocation() {
    let dir = TempDir::new("emptyblocks");
    let path = write_file(&dir, "e.fxt", &empty_blocks_file(63));
    let t = TableFile::open(&path).unwrap();
    assert_eq!(t.header.slots, 63 << 26);
    let ((a, b), largest) = largest_allocation(|| (t.code(0), t.code((62 << 26) + 17)));
    assert!(a.is_err() && b.is_err());
    // One block's raw size (2^26 / 4 = 16 MiB) is the most a single-slot read may reserve.
    assert!(largest <= 16 * MIB + 64, "allocated {largest} bytes");
}

#[test]
fn empty_blocks_claiming_many_slots_fail_to_read_all_without_a_big_allocation() {
    let dir = TempDir::new("emptyblocks-all");
    let path = write_file(&dir, "e.fxt", &empty_blocks_file(63));
    let file_len = std::fs::metadata(&path).unwrap().len() as usize;
    let t = TableFile::open(&path).unwrap();
    let (r, largest) = largest_allocation(|| t.read_all());
    let e = r.unwrap_err();
    assert!(e.block == Some(0) && e.message().starts_with("block 0: "), "{e}");
    assert!(largest <= 16 * MIB + file_len, "a {file_len}-byte file made read_all allocate {largest} bytes");
    // With 65536 such blocks (a 1 MiB file claiming 2^42 slots) the file is refused when opened.
    let path = write_file(&dir, "huge.fxt", &empty_blocks_file(1 << 16));
    let (status, out) = run_child(&format!("read_all:{}", path.display()), None);
    let child_tail: String = out.lines().filter(|l| !l.trim().is_empty()).take(8).collect::<Vec<_>>().join("\n");
    assert!(status.success() && out.contains("CHILD-RESULT err"), "the 1 MiB file: {status:?}\n{child_tail}");
}

// ---------------------------------------------------------------------------
// Fuzzing.

/// A valid table to damage: its bytes, its values as read back, and the byte range of its blocks.
type Sample = (Vec<u8>, PackedValues, std::ops::Range<usize>);

fn samples() -> &'static [Sample] {
    static SAMPLES: OnceLock<Vec<Sample>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let dir = TempDir::new("samples");
        [(0u64, 64u32), (3, 4), (1000, 64), (2500, 256), (9000, 4096)]
            .into_iter()
            .map(|(len, bs)| {
                let path = dir.path(&format!("{len}.fxt"));
                write_table_with(&path, &header(len), &random_values(len, len ^ 0xfeed), bs, 3).unwrap();
                let t = TableFile::open(&path).unwrap();
                let data = t.blocks.first().map_or(0, |b| b.offset as usize)
                    ..t.blocks.last().map_or(0, |b| (b.offset + b.stored_len as u64) as usize);
                (std::fs::read(&path).unwrap(), t.read_all().unwrap(), data)
            })
            .collect()
    })
}

fn fuzz_path(tag: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new(tag);
    let path = dir.path("f.fxt");
    (dir, path)
}

#[derive(Clone, Debug)]
enum Damage {
    Flip { at: usize, mask: u8 },
    Flips(Vec<(usize, u8)>),
    Truncate { by: usize },
    Extend(Vec<u8>),
    Insert { at: usize, bytes: Vec<u8> },
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        4 => (any::<usize>(), 1..=255u8).prop_map(|(at, mask)| Damage::Flip { at, mask }),
        2 => prop::collection::vec((any::<usize>(), 1..=255u8), 2..6).prop_map(Damage::Flips),
        2 => (1..200usize).prop_map(|by| Damage::Truncate { by }),
        1 => prop::collection::vec(any::<u8>(), 1..64).prop_map(Damage::Extend),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16)).prop_map(|(at, bytes)| Damage::Insert { at, bytes }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Arbitrary bytes: an error, never a panic; with the magic and version
    /// in front, and then with a correct header CRC too, to get further in.
    #[test]
    fn arbitrary_bytes_never_panic(mut bytes in prop::collection::vec(any::<u8>(), 0..4096), deeper in 0..3u8, probes in prop::collection::vec(any::<u64>(), 0..4)) {
        if deeper >= 1 && bytes.len() >= 12 {
            bytes[..8].copy_from_slice(MAGIC);
            bytes[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        }
        if deeper == 2 && bytes.len() >= FIXED_HEADER {
            let json_len = (u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize) % (bytes.len() - FIXED_HEADER + 1);
            bytes[12..16].copy_from_slice(&(json_len as u32).to_le_bytes());
            reseal_header(&mut bytes);
        }
        let (_dir, path) = fuzz_path("arb");
        std::fs::write(&path, &bytes).unwrap();
        let (open, _, largest) = try_everything(&path, &probes);
        prop_assert!(open.is_err(), "{} random bytes opened as a table", bytes.len());
        prop_assert!(largest < MIB, "allocated {}", largest);
    }

    /// A damaged table: an error, or (where the damage hit bytes nothing
    /// reads, bytes 52..64) exactly the original values; never a panic.
    #[test]
    fn damaged_tables_never_panic(which in 0..5usize, d in damage(), probes in prop::collection::vec(any::<u64>(), 1..6)) {
        let (orig, values, data) = &samples()[which];
        let mut bytes = orig.clone();
        let n = bytes.len();
        let resized = match &d {
            Damage::Flip { at, mask } => { bytes[at % n] ^= mask; false }
            Damage::Flips(list) => { for (at, mask) in list { bytes[at % n] ^= mask; } false }
            Damage::Truncate { by } => { bytes.truncate(n.saturating_sub(*by)); true }
            Damage::Extend(extra) => { bytes.extend_from_slice(extra); true }
            Damage::Insert { at, bytes: extra } => { let at = at % (n + 1); bytes.splice(at..at, extra.iter().copied()); true }
        };
        let (_dir, path) = fuzz_path("dmg");
        std::fs::write(&path, &bytes).unwrap();
        let (open, all, largest) = try_everything(&path, &probes);
        prop_assert!(largest <= 16 * MIB, "allocated {}", largest);
        if resized {
            prop_assert!(open.is_err(), "a table of another length opened: {:?}", d);
            return Ok(());
        }
        // Flips at one place may cancel: only the bytes that differ count.
        let flipped: Vec<usize> = (0..n).filter(|&i| bytes[i] != orig[i]).collect();
        let slack = |i: &usize| (52..64).contains(i);
        let in_data = |i: &usize| data.contains(i);
        if flipped.iter().all(slack) {
            // Reserved bytes must be zero: damage there is refused too.
            prop_assert!(open.is_err(), "damage to the reserved bytes went unnoticed: {:?}", d);
        } else if !flipped.iter().all(in_data) {
            prop_assert!(open.is_err(), "damage to the header, JSON or index went unnoticed: {:?}", d);
        } else {
            prop_assert!(open.is_ok(), "damage to block data only should open: {:?}", open);
            if let Ok(a) = &all {
                prop_assert_eq!(a, values);
            }
            let t = TableFile::open(&path).unwrap();
            for &p in &probes {
                let i = p % values.len().max(1);
                if let (Ok(c), true) = (t.code(i), i < values.len()) {
                    prop_assert_eq!(c, values.code(i), "code({}) after {:?}", i, d);
                }
            }
        }
    }

    /// Random header fields and index entries, with both CRCs right: the
    /// reader refuses or reads, never panics, and never allocates much more
    /// than the file holds or one block needs.
    #[test]
    fn structured_hostile_headers_never_panic(
        slots in prop_oneof![0..100_000u64, any::<u64>(), Just(u64::MAX), (0..40u32).prop_map(|s| 1u64 << s)],
        block_slots in prop_oneof![Just(4u32), Just(64), Just(1 << 18), Just(1 << 26), Just(1 << 27), any::<u32>()],
        consistent_count in any::<bool>(),
        block_count in 0..64u32,
        codec in prop_oneof![Just(CODEC_ZSTD), Just(CODEC_STORED), any::<u32>()],
        lens in prop::collection::vec(0..64u32, 0..8),
        body in prop::collection::vec(any::<u8>(), 0..512),
        consistent_offset in any::<bool>(),
        index_offset in any::<u64>(),
        probes in prop::collection::vec(any::<u64>(), 0..4),
    ) {
        let count = if consistent_count && block_slots > 0 {
            u32::try_from(slots.div_ceil(block_slots as u64)).unwrap_or(block_count)
        } else {
            block_count
        };
        let json = json_for(slots);
        let start = (FIXED_HEADER + json.len()) as u64;
        // Each block is the first `len` bytes of `body`, with its CRC: stored
        // blocks of the right length decode.
        let mut entries = Vec::new();
        let mut data = Vec::new();
        let mut at = start;
        for b in 0..count.min(64) as usize {
            let len = lens.get(b).copied().unwrap_or(0).min(body.len() as u32);
            entries.push((at, len, crc32fast::hash(&body[..len as usize])));
            data.extend_from_slice(&body[..len as usize]);
            at += len as u64;
        }
        let fields = Fields {
            version: FORMAT_VERSION,
            json_len: json.len() as u32,
            slots,
            block_slots,
            block_count: count,
            codec,
            flags: 0,
            index_offset: if consistent_offset { at } else { index_offset },
        };
        let mut bytes = head(&fields, &json);
        bytes.extend_from_slice(&data);
        bytes.extend_from_slice(&index(&entries));
        let (_dir, path) = fuzz_path("hostile");
        std::fs::write(&path, &bytes).unwrap();
        let (open_only, largest) = largest_allocation(|| {
            TableFile::open(&path).map(|t| {
                for &p in &probes {
                    let _ = t.code(p);
                }
                t.header.slots
            })
        });
        prop_assert!(largest <= 16 * MIB + bytes.len(), "open and code allocated {}", largest);
        // read_all's memory grows with the blocks it has read; keep the fuzz cases small.
        if let Ok(s) = open_only {
            if s <= 1 << 28 {
                let t = TableFile::open(&path).unwrap();
                let _ = t.read_all();
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The published layout: odd slots stored, even slots a copy of the next odd one.

#[test]
fn even_derived_tables_keep_every_odd_slot_and_say_so() {
    use foxbase_tables::table::{raw_block_with, write_table_layout, Layout, FLAG_EVEN_DERIVED};
    let dir = TempDir::new("derived");
    for (len, block_slots) in [(1u64, 4u32), (2, 4), (7, 4), (8, 4), (1001, 8), (4099, 1024), (300_000, 1 << 18)] {
        let what = format!("{len} slots in blocks of {block_slots}");
        let path = dir.path(&format!("derived-{len}-{block_slots}.fxt"));
        let values = random_values(len, len ^ 0xabc);
        write_table_layout(&path, &header(len), &values, block_slots, 3, Layout::Published).unwrap();
        let file = std::fs::read(&path).unwrap();
        assert_eq!(u32::from_le_bytes(file[36..40].try_into().unwrap()), FLAG_EVEN_DERIVED, "{what}");
        let t = TableFile::open(&path).unwrap();
        assert_eq!(t.layout, Layout::Published, "{what}");
        let read = t.read_all().unwrap();
        // Unused slots become the stored code before them in their block
        // (0 at a block's start); even slots copy the odd slot after them,
        // the last even slot of an odd length the last code before it.
        let mut last = 0u8;
        for i in (0..len).step_by(2) {
            if i % block_slots as u64 == 0 {
                last = 0;
            }
            let odd = if i + 1 < len { values.code(i + 1) } else { last };
            let odd = if odd == UNUSED { last } else { odd };
            last = odd;
            assert_eq!(read.code(i), odd, "{what}: even slot {i}");
            if i + 1 < len {
                assert_eq!(read.code(i + 1), odd, "{what}: odd slot {}", i + 1);
            }
        }
        for b in 0..t.blocks.len() {
            let raw = raw_block_with(&values, block_slots, b as u64, Layout::Published);
            assert_eq!(t.blocks[b].crc32, crc32fast::hash(&raw), "{what}: block {b}");
        }
        // A solve reads only tables that store every slot.
        let err = read_table(&path, &header(len)).unwrap_err().to_string();
        assert!(err.contains("a published table"), "{what}: {err}");
    }
    // Other flag bits stay reserved (bits 1 to 4 say a plies file, bit 5 column order; bit 6 is unused).
    let path = dir.path("derived-flags.fxt");
    write_table_layout(&path, &header(16), &random_values(16, 1), 8, 3, Layout::Published).unwrap();
    let mut file = std::fs::read(&path).unwrap();
    file[36] = 65;
    // With the header checksum made good again, so the flag check itself is what refuses it.
    reseal_header(&mut file);
    std::fs::write(&path, &file).unwrap();
    let err = TableFile::open(&path).unwrap_err().to_string();
    assert!(err.contains("reserved header fields"), "{err}");
}

/// A published table in column order reads back as the same table in slot
/// order does, block by block and slot by slot; its header names the
/// period, and a header that asks for column order without a usable one
/// is refused.
#[test]
fn tables_in_column_order_read_back_as_in_slot_order() {
    use foxbase_tables::table::{
        write_published_table, write_table_columns, write_table_layout, Layout, FLAG_EVEN_DERIVED, FLAG_VALUES_COLUMNS,
    };
    let dir = TempDir::new("columns");
    for (len, block_slots, period) in [(2u64, 4u32, 2u64), (1000, 8, 6), (4098, 1024, 156), (300_000, 1 << 18, 1056)] {
        let what = format!("{len} slots in blocks of {block_slots}, period {period}");
        let values = random_values(len, len ^ period);
        let (rows, columns) = (dir.path(&format!("rows-{len}.fxt")), dir.path(&format!("columns-{len}.fxt")));
        write_table_layout(&rows, &header(len), &values, block_slots, 3, Layout::Published).unwrap();
        write_table_columns(&columns, &header(len), &values, block_slots, 3, period).unwrap();
        let file = std::fs::read(&columns).unwrap();
        let flags = u32::from_le_bytes(file[36..40].try_into().unwrap());
        assert_eq!(flags, FLAG_EVEN_DERIVED | FLAG_VALUES_COLUMNS, "{what}");
        let (r, c) = (TableFile::open(&rows).unwrap(), TableFile::open(&columns).unwrap());
        assert_eq!((r.values_period, c.values_period), (1, period), "{what}");
        assert_eq!(c.layout, Layout::Published, "{what}");
        assert_eq!(r.read_all().unwrap(), c.read_all().unwrap(), "{what}");
        for i in [0, 1, len / 2 - 1, len / 2, len - 2, len - 1] {
            assert_eq!(r.code(i).unwrap(), c.code(i).unwrap(), "{what}: slot {i}");
        }
        // Every slot of every block as a probe reads it (by the block's column index).
        for b in 0..c.blocks.len() as u64 {
            let (rb, cb) = (r.block_of(b * block_slots as u64).unwrap(), c.block_of(b * block_slots as u64).unwrap());
            assert_eq!(rb.slot_codes(), cb.slot_codes(), "{what}: block {b}");
            for i in b * block_slots as u64..((b + 1) * block_slots as u64).min(len) {
                assert_eq!(rb.code(i), cb.code(i), "{what}: slot {i}");
            }
        }
    }
    // What publish writes is the smaller of the two orders, and reads back the same.
    for (len, period) in [(4098u64, 156u64), (300_000, 12)] {
        // Values that depend mostly on the fox placement (the column) favour column order.
        let mut values = random_values(len, 7);
        for i in 0..len {
            if i % 3 != 0 {
                values.set_code(i, ((i % period) / 5 % 3) as u8);
            }
        }
        let (rows, columns, chosen) = (dir.path("r.fxt"), dir.path("c.fxt"), dir.path("p.fxt"));
        let (_, rows_len) = write_table_layout(&rows, &header(len), &values, 1 << 18, 3, Layout::Published).unwrap();
        let (_, columns_len) = write_table_columns(&columns, &header(len), &values, 1 << 18, 3, period).unwrap();
        let (_, chosen_len) = write_published_table(&chosen, &header(len), &values, 1 << 18, 3, period).unwrap();
        assert_eq!(chosen_len, rows_len.min(columns_len), "{len} slots, period {period}");
        let (r, p) = (TableFile::open(&rows).unwrap(), TableFile::open(&chosen).unwrap());
        assert_eq!(p.values_period, if columns_len < rows_len { period } else { 1 });
        assert_eq!(r.read_all().unwrap(), p.read_all().unwrap(), "{len} slots, period {period}");
    }
    // The flag with an odd period, or none, is refused by name.
    let path = dir.path("columns-bad.fxt");
    for json in [r#""period":7"#, r#""period":0"#, r#""pariod":6"#] {
        write_table_columns(&path, &header(16), &random_values(16, 2), 8, 3, 6).unwrap();
        let mut file = std::fs::read(&path).unwrap();
        let at = file.windows(10).position(|w| w == br#""period":6"#).expect("the header names the period");
        file[at..at + json.len()].copy_from_slice(json.as_bytes());
        reseal_header(&mut file);
        std::fs::write(&path, &file).unwrap();
        let err = TableFile::open(&path).unwrap_err().to_string();
        assert!(err.contains("period"), "{json}: {err}");
    }
}
