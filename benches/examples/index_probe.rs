//! Measures what the tier index costs a probe when a tablebase has as many
//! tiers as the full game (docs/format.md, "Probe latency").
//!
//! Builds DIR-index-N beside the tablebase DIR: the same tables (hard
//! links) and a manifest padded with synthetic tier entries up to N tiers
//! (default 200,000; the entries have no files and are never probed), then
//! times, in this process and with a fresh reader each time, (a) opening
//! the tier index and probing POSITION in DIR and in the padded copy, (b)
//! opening the padded index and looking up one tier, and (c) for contrast,
//! parsing the padded manifest.json, which is what a probe did before the
//! index existed. Prints one JSON object.
//!
//! Run: `cargo run --release -p foxbase-benches --example index_probe -- DIR POSITION [N]`

use foxbase_core::notation::parse_position;
use foxbase_tables::index::TierIndex;
use foxbase_tables::manifest::{Manifest, TierEntry};
use foxbase_tables::probe::probe;
use foxbase_tables::source::DirLocation;
use foxbase_tables::FoxTables;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Median of `runs` timings of `f`, in milliseconds.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[runs / 2]
}

fn padded_copy(dir: &Path, n: usize) -> PathBuf {
    let out = PathBuf::from(format!("{}-index-{n}", dir.display()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(out.join("tiers")).unwrap();
    let mut manifest = Manifest::read(dir).unwrap();
    for t in &manifest.tiers {
        std::fs::hard_link(dir.join(&t.file), out.join(&t.file)).unwrap();
    }
    let real = manifest.tiers.len();
    for i in real..n {
        // Names that sort among the real ones ("f2-..."), as the full game's would.
        let name = format!("f2-{}.{}.{}.9.9.9.9", i % 10, (i / 10) % 100, i / 1000);
        manifest.tiers.push(TierEntry {
            file: format!("tiers/{name}.fxt"),
            name,
            slots: 1,
            bytes: 1,
            crc32: "00000000".into(),
            wins: 0,
            draws: 0,
            losses: 0,
            unused: 1,
            children: vec!["f2-0.0.0.0.0.0.0".into(); 6],
            levels: 0,
            decided_at_start: 0,
            plies: None,
        });
    }
    manifest.write(&out).unwrap();
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(position)) = (args.first(), args.get(1)) else {
        eprintln!("usage: index_probe DIR POSITION [N]");
        std::process::exit(2);
    };
    let n: usize = args.get(2).map_or(200_000, |s| s.parse().expect("N: a number"));
    let dir = Path::new(dir);
    let pos = parse_position(position).expect("POSITION");
    let padded = padded_copy(dir, n);
    let probe_in = |d: &Path| {
        let tables = FoxTables::open(d).unwrap();
        probe(&tables, &pos).unwrap();
    };
    let runs = 21;
    // Warm the page cache first: the difference, not the disk, is measured.
    probe_in(dir);
    probe_in(&padded);
    let probe_small = median_ms(runs, || probe_in(dir));
    let probe_padded = median_ms(runs, || probe_in(&padded));
    let name = Manifest::read(dir).unwrap().tiers[0].name.clone();
    let lookup = median_ms(runs, || {
        let idx = TierIndex::open(&DirLocation::new(&padded)).unwrap();
        assert!(idx.lookup(&name).unwrap().is_some());
    });
    let parse_manifest = median_ms(5, || {
        Manifest::read(&padded).unwrap();
    });
    let size = |f: &str| std::fs::metadata(padded.join(f)).unwrap().len();
    println!(
        "{}",
        json!({
            "tiers": n, "position": position,
            "index_bytes": size("tiers.idx"), "manifest_bytes": size("manifest.json"),
            "probe_ms": {"real_tiers": probe_small, "padded": probe_padded, "difference": probe_padded - probe_small},
            "open_index_and_one_lookup_ms": lookup,
            "parse_whole_manifest_ms": parse_manifest,
            "padded_dir": padded.display().to_string(),
        })
    );
}
