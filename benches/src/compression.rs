//! Compression measurements: re-encodes the tables of a solved directory
//! with other block sizes and zstd levels and reports bits per position and
//! the seconds (one thread) to compress and to decompress every block.

use foxbase_tables::packed::PackedValues;
use foxbase_tables::table::{raw_block, TableFile};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Bits per position of every (block slots, level) pair over all tables in `dir/tiers`.
pub fn measure(dir: &Path, block_sizes: &[u32], levels: &[i32]) -> serde_json::Value {
    let mut tables: Vec<PackedValues> = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir.join("tiers")).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for p in paths {
        tables.push(TableFile::open(&p).unwrap().read_all().unwrap());
    }
    let slots: u64 = tables.iter().map(|t| t.len()).sum();
    let mut rows = Vec::new();
    for &bs in block_sizes {
        for &level in levels {
            let started = Instant::now();
            let blocks: Vec<Vec<u8>> = tables
                .iter()
                .flat_map(|t| {
                    (0..t.len().div_ceil(bs as u64))
                        .map(move |b| zstd::bulk::compress(&raw_block(t, bs, b), level).unwrap())
                })
                .collect();
            let compress_seconds = started.elapsed().as_secs_f64();
            let started = Instant::now();
            for b in &blocks {
                zstd::bulk::decompress(b, bs as usize / 4 + 1).unwrap();
            }
            let decompress_seconds = started.elapsed().as_secs_f64();
            let bytes: u64 = blocks.iter().map(|b| b.len() as u64 + 16).sum();
            rows.push(json!({"block_slots": bs, "zstd_level": level, "bytes": bytes,
                             "bits_per_position": bytes as f64 * 8.0 / slots as f64,
                             "compress_seconds": compress_seconds, "decompress_seconds": decompress_seconds}));
        }
    }
    json!({"dir": dir.display().to_string(), "positions": slots, "tables": tables.len(), "rows": rows})
}
