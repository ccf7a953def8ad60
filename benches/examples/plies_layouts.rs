//! Measures encodings of the plies files on a solved tablebase: the bytes
//! every tier's plies take, zstd-compressed per block of 2^18 slots, for
//!
//! - `bytes`: one byte a slot, draws and unused slots 0 (what is written);
//! - `fill`: the same, a draw or unused slot taking the slot before it;
//! - `halved`: plies / 2 (a win's plies are odd, a loss's even, so the
//!   value table gives back the last bit), draws and unused 0;
//! - `halved+fill`: both.
//!
//! `cargo run --release -p foxbase-benches --example plies_layouts -- DIR [LEVEL]`

use foxbase_core::foxgame::FoxGame;
use foxbase_core::tier::TierGame;
use foxbase_core::{Value, Variant};
use foxbase_tables::manifest::Manifest;
use foxbase_tables::plies::read_plies;
use foxbase_tables::table::read_table;
use foxbase_tables::tier_files::table_header;
use rayon::prelude::*;
use std::path::PathBuf;

const BLOCK: usize = 1 << 18;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(args.get(1).expect("usage: plies_layouts DIR [LEVEL]"));
    let level: i32 = args.get(2).map_or(3, |l| l.parse().expect("a zstd level"));
    let manifest = Manifest::read(&dir).expect("a solved tablebase");
    let game = FoxGame::new(Variant::from_json(&manifest.variant).expect("the manifest's variant"));
    let sizes: Vec<[u64; 4]> = manifest
        .tiers
        .par_iter()
        .map(|t| {
            let tier = game.parse_tier_name(&t.name).unwrap();
            let header = table_header(&game, tier, t.slots);
            let values = read_table(&dir.join(&t.file), &header).unwrap();
            let plies = read_plies(&dir.join(&t.plies.as_ref().expect("plies").file), &header).unwrap();
            let mut out = [0u64; 4];
            for start in (0..t.slots as usize).step_by(BLOCK) {
                let end = (start + BLOCK).min(t.slots as usize);
                let mut raws = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
                let (mut last, mut last_half) = (0u8, 0u8);
                for i in start..end {
                    let p = plies.get(i as u64).min(255) as u8;
                    let decided = matches!(values.value(i as u64), Some(Value::Win | Value::Loss));
                    raws[0].push(if decided { p } else { 0 });
                    if decided {
                        last = p;
                        last_half = p / 2;
                    }
                    raws[1].push(last);
                    raws[2].push(if decided { p / 2 } else { 0 });
                    raws[3].push(last_half);
                }
                for (k, raw) in raws.iter().enumerate() {
                    out[k] += zstd::bulk::compress(raw, level).unwrap().len() as u64;
                }
            }
            out
        })
        .collect();
    let slots = manifest.total_slots() as f64;
    for (k, name) in ["bytes", "fill", "halved", "halved+fill"].iter().enumerate() {
        let bytes: u64 = sizes.iter().map(|s| s[k]).sum();
        println!("{name:12} {bytes:>14} bytes {:.3} bit/slot (zstd {level})", bytes as f64 * 8.0 / slots);
    }
}
