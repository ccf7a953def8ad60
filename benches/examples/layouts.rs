//! Bits per position of other ways to store a solved directory's tables,
//! over a sample of its tiers (docs/format.md, "Published tables"):
//!
//! ```text
//! cargo run --release -p foxbase-benches --example layouts -- DIR [EVERY_NTH_TIER]
//! ```
//!
//! Each way is a stream of 2-bit codes per table, cut into blocks of 2^18
//! codes, each block compressed alone with zstd; 16 index bytes per block
//! are counted as in the real format.

use foxbase_core::foxgame::FoxGame;
use foxbase_core::tier::TierGame;
use foxbase_core::Variant;
use foxbase_tables::packed::UNUSED;
use foxbase_tables::table::TableFile;
use rayon::prelude::*;

#[path = "shared/code_blocks.rs"]
mod code_blocks;
use code_blocks::{compressed_bits, compressed_bits_by_columns};

/// The bits an adaptive arithmetic coder would take for `codes` laid out as
/// an image of rows of `period` (a sheep set's sheep-to-move slots, one
/// column a fox placement), each code predicted from the codes above it
/// (the same placement in the sheep set before), left of it, above-left,
/// above-right and two to the left: -log2 of its count over the total in
/// its context, counts starting at 1/2 (Krichevsky-Trofimov) and reset at
/// every block of 2^18 codes, as a reader that opens one block would need.
/// An estimate of a context-model codec, not a codec: no bits are written.
fn context_model_bits(codes: &[u8], period: usize) -> u64 {
    let block = 1usize << 18;
    let mut bits = 0f64;
    let mut counts = vec![[0.5f64; 4]; 1 << 10];
    for (b, chunk) in codes.chunks(block).enumerate() {
        counts.iter_mut().for_each(|c| *c = [0.5; 4]);
        let start = b * block;
        let at = |k: usize, back: usize| -> u8 {
            // Code `back` slots before chunk index k, inside this block (else 0).
            if back <= k {
                chunk[k - back]
            } else {
                0
            }
        };
        for (k, &code) in chunk.iter().enumerate() {
            let column = (start + k) % period;
            let left = if column >= 1 { at(k, 1) } else { 0 };
            let left2 = if column >= 2 { at(k, 2) } else { 0 };
            let up = at(k, period);
            let up_left = if column >= 1 { at(k, period + 1) } else { 0 };
            let up_right = if column + 1 < period { at(k, period - 1) } else { 0 };
            let context = (up as usize)
                | (left as usize) << 2
                | (up_left as usize) << 4
                | (up_right as usize) << 6
                | (left2 as usize) << 8;
            let c = &mut counts[context];
            let total: f64 = c.iter().sum();
            bits -= (c[code as usize] / total).log2();
            c[code as usize] += 1.0;
        }
    }
    bits.ceil() as u64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(args.get(1).expect("usage: layouts DIR [EVERY_NTH_TIER]"));
    let every: usize = args.get(2).map_or(1, |n| n.parse().expect("EVERY_NTH_TIER is a number"));
    let text = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let game = FoxGame::new(Variant::from_json(manifest["variant"].as_str().unwrap()).unwrap());
    let names: Vec<&str> = manifest["tiers"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    let sample: Vec<&str> = names.iter().copied().step_by(every).collect();
    let ways: [(&str, i32); 13] = [
        ("both sides (solve)", 9),
        ("both sides (solve)", 19),
        ("game-over also don't-care", 9),
        ("sheep-to-move only, dense", 9),
        ("sheep-to-move only, dense", 19),
        ("fox-to-move only, dense", 9),
        ("published (even = copy)", 9),
        ("published (even = copy)", 15),
        ("published (even = copy)", 19),
        ("sheep-to-move only, dense", 15),
        ("sheep-to-move, column order", 15),
        ("sheep-to-move, column order", 19),
        ("sheep-to-move, context model (estimate)", 0),
    ];
    let per_tier: Vec<(u64, Vec<u64>)> = sample
        .par_iter()
        .map(|name| {
            let values = TableFile::open(&dir.join(format!("tiers/{name}.fxt"))).unwrap().read_all().unwrap();
            let index = game.tier_index(game.parse_tier_name(name).unwrap());
            let n = values.len() as usize;
            // Don't-care slots take the code before them, as the writer does.
            let (mut solve, mut no_game_over) = (Vec::with_capacity(n), Vec::with_capacity(n));
            let (mut last, mut last_g) = (0u8, 0u8);
            game.for_each_slot(&index, 0..n as u64, |i, pos| {
                let code = values.code(i);
                last = if pos.is_none() || code == UNUSED { last } else { code };
                last_g = match pos {
                    Some(p) if game.primitive(&p).is_none() => code,
                    _ => last_g,
                };
                solve.push(last);
                no_game_over.push(last_g);
            });
            let sheep: Vec<u8> = solve.iter().skip(1).step_by(2).copied().collect();
            let fox: Vec<u8> = solve.iter().step_by(2).copied().collect();
            let published: Vec<u8> = (0..n).map(|i| solve[(i | 1).min(n - 1)]).collect();
            // A sheep set's sheep-to-move slots: one per fox placement.
            let placements = index.fox_slots as usize;
            let bits = ways
                .iter()
                .enumerate()
                .map(|(k, &(_, level))| match k {
                    0 | 1 => compressed_bits(&solve, level),
                    2 => compressed_bits(&no_game_over, level),
                    3 | 4 => compressed_bits(&sheep, level),
                    5 => compressed_bits(&fox, level),
                    6..=8 => compressed_bits(&published, level),
                    9 => compressed_bits(&sheep, level),
                    10 | 11 => compressed_bits_by_columns(&sheep, placements, level),
                    _ => context_model_bits(&sheep, placements),
                })
                .collect();
            (n as u64, bits)
        })
        .collect();
    let slots: u64 = per_tier.iter().map(|t| t.0).sum();
    println!("{} of {} tiers, {slots} slots", sample.len(), names.len());
    for (k, (way, level)) in ways.iter().enumerate() {
        let bits: u64 = per_tier.iter().map(|t| t.1[k]).sum();
        println!("{way:28} zstd {level:2}: {:.3} bit per position", bits as f64 / slots as f64);
    }
}
