//! Measures encodings of the plies files on a solved tablebase: the bytes
//! every tier's plies take, zstd-compressed per block of 2^18 slots (no
//! headers), for
//!
//! - `bytes`: one byte a slot, draws and unused slots 0 (what a DTM file holds);
//! - `fill`: the same, a draw or unused slot taking the slot before it;
//! - `halved`: plies / 2 (a win's plies are odd, a loss's even, so the
//!   value table gives back the last bit), draws and unused 0;
//! - `halved+fill`: both;
//! - `members`: only the won and lost slots, halved, a byte each;
//! - `members-wl`: the same, the wins before the losses;
//! - `members-wl-side`: the same, each value's even slots before its odd ones;
//! - `packed`: what a DTZ file holds ([`foxbase_tables::plies_pack`]): the
//!   previous order in 4-bit nibbles, 15 escaped to two bytes after them;
//! - `crumbs`: the previous order in 2-bit codes, 3 escaped to nibbles after them;
//! - `entropy`: the zeroth-order entropy of `members`, for comparison;
//! - `packed-odd`: `packed` in the published layout, the odd slots (the
//!   sheep to move) alone, as a Fox Game solve writes a DTZ file;
//! - `members-odd`: the odd slots' members alone, halved, a byte each, in
//!   the groups' order, as `foxbase publish` writes a DTZ file;
//! - `members-odd-fill`: the same, a win of 1 ply (halved 0: a zeroing move
//!   into a won child, which a reader finds from the children's values)
//!   taking the previous member's count instead.
//!
//! Every count is read as a reader gets it ([`FoxTables::complete`]: a DTZ
//! file's fox-to-move counts derived by one fox move).
//!
//! `cargo run --release -p foxbase-benches --example plies_layouts -- DIR [LEVEL [BLOCK_BITS]]`
//! (blocks of 2^BLOCK_BITS slots, 18 by default: the tables' own blocks).

use foxbase_core::foxgame::FoxGame;
use foxbase_core::tier::TierGame;
use foxbase_core::{Value, Variant};
use foxbase_tables::manifest::Manifest;
use foxbase_tables::plies_pack::{Block, Packing};
use foxbase_tables::table::{raw_block_with, Layout};
use foxbase_tables::FoxTables;
use rayon::prelude::*;
use std::path::PathBuf;

const NAMES: [&str; 14] = [
    "bytes",
    "fill",
    "halved",
    "halved+fill",
    "members",
    "members-wl",
    "members-wl-side",
    "packed",
    "crumbs",
    "entropy",
    "packed-odd",
    "members-odd",
    "members-odd-fill",
    "members-odd-by-foxes",
];

/// 4-bit nibbles, two a byte, 15 escaped to a byte after them.
fn nibbles(src: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = src.chunks(2).map(|p| p[0].min(15) | p.get(1).map_or(0, |b| b.min(&15) << 4)).collect();
    out.extend(src.iter().filter(|&&h| h >= 15));
    out
}

/// 2-bit codes, four a byte, 3 escaped to nibbles after them.
fn crumbs(src: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> =
        src.chunks(4).map(|q| q.iter().enumerate().fold(0u8, |byte, (k, &h)| byte | h.min(3) << (2 * k))).collect();
    let escaped: Vec<u8> = src.iter().filter(|&&h| h >= 3).map(|h| h - 3).collect();
    out.extend(nibbles(&escaped));
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(args.get(1).expect("usage: plies_layouts DIR [LEVEL]"));
    let level: i32 = args.get(2).map_or(3, |l| l.parse().expect("a zstd level"));
    let block_bits: u32 = args.get(3).map_or(18, |b| b.parse().expect("BLOCK_BITS: log2 of the slots a block"));
    let block = 1usize << block_bits;
    let manifest = Manifest::read(&dir).expect("a solved tablebase");
    let game = FoxGame::new(Variant::from_json(&manifest.variant).expect("the manifest's variant"));
    let tables = FoxTables::open(&dir).expect("a solved tablebase");
    let zstd = |raw: &[u8]| zstd::bulk::compress(raw, level).unwrap().len() as u64;
    let sizes: Vec<[u64; NAMES.len()]> = manifest
        .tiers
        .par_iter()
        .map(|t| {
            let tier = game.parse_tier_name(&t.name).unwrap();
            // Every count, the derived fox-to-move ones included.
            let complete = tables.complete(tier).unwrap();
            let (values, plies) = (&complete.values, complete.plies.as_ref().expect("plies"));
            let mut out = [0u64; NAMES.len()];
            let per_set = game.tier_index(tier).fox_slots as usize * 2;
            for (b, start) in (0..t.slots as usize).step_by(block).enumerate() {
                let end = (start + block).min(t.slots as usize);
                let mut raws: [Vec<u8>; 4] = Default::default();
                // [value][side]: wins even, wins odd, losses even, losses odd.
                let mut members: [Vec<u8>; 4] = Default::default();
                let (mut last, mut last_half) = (0u8, 0u8);
                for i in start..end {
                    let p = plies.get(i as u64).min(255) as u8;
                    let value = values.value(i as u64);
                    let decided = matches!(value, Some(Value::Win | Value::Loss));
                    raws[0].push(if decided { p } else { 0 });
                    if decided {
                        last = p;
                        last_half = p / 2;
                        let g = if value == Some(Value::Win) { 0 } else { 2 };
                        members[g + i % 2].push(p / 2);
                    }
                    raws[1].push(last);
                    raws[2].push(if decided { p / 2 } else { 0 });
                    raws[3].push(last_half);
                }
                for (k, raw) in raws.iter().enumerate() {
                    out[k] += zstd(raw);
                }
                let in_slot_order: Vec<u8> = (start..end)
                    .filter(|&i| values.value(i as u64).is_some_and(|v| v != Value::Draw))
                    .map(|i| plies.get(i as u64).min(255) as u8 / 2)
                    .collect();
                out[4] += zstd(&in_slot_order);
                let wins_then_losses: Vec<u8> = (0..2)
                    .flat_map(|v| {
                        (start..end).filter(move |&i| values.value(i as u64) == Some([Value::Win, Value::Loss][v]))
                    })
                    .map(|i| plies.get(i as u64).min(255) as u8 / 2)
                    .collect();
                out[5] += zstd(&wins_then_losses);
                let grouped = members.concat();
                out[6] += zstd(&grouped);
                // As a solve writes the block (every count, or the odd slots' alone).
                let packed = |layout: Layout| {
                    let codes = raw_block_with(values, block as u32, b as u64, layout);
                    let block = Block::new(&codes, end - start, layout, Packing::SOLVED, start as u64);
                    foxbase_tables::plies_pack::pack(|k| plies.get((start + k) as u64), &block)
                };
                out[7] += zstd(&packed(Layout::Solved));
                out[8] += zstd(&crumbs(&grouped));
                out[10] += zstd(&packed(Layout::Published));
                out[11] += zstd(&[members[1].clone(), members[3].clone()].concat());
                let mut filled = members[1].clone();
                let mut last = 0u8;
                for h in filled.iter_mut() {
                    if *h == 0 {
                        *h = last;
                    }
                    last = *h;
                }
                out[12] += zstd(&[filled, members[3].clone()].concat());
                // The odd members with their fox placement before their sheep set.
                let mut by_foxes: Vec<(u8, usize, usize, u8)> = (start..end)
                    .filter(|&i| i % 2 == 1)
                    .filter_map(|i| match values.value(i as u64) {
                        Some(v @ (Value::Win | Value::Loss)) => {
                            Some((v.code(), i % per_set, i, (plies.get(i as u64).min(255) / 2) as u8))
                        }
                        _ => None,
                    })
                    .collect();
                by_foxes.sort_unstable();
                out[13] += zstd(&by_foxes.iter().map(|m| m.3).collect::<Vec<u8>>());
                let mut histogram = [0u64; 256];
                for &h in &in_slot_order {
                    histogram[h as usize] += 1;
                }
                let n = in_slot_order.len() as f64;
                let bits: f64 =
                    histogram.iter().filter(|&&c| c > 0).map(|&c| -(c as f64) * (c as f64 / n).log2()).sum();
                out[9] += (bits / 8.0) as u64;
            }
            out
        })
        .collect();
    let slots = manifest.total_slots() as f64;
    for (k, name) in NAMES.iter().enumerate() {
        let bytes: u64 = sizes.iter().map(|s| s[k]).sum();
        println!("{name:16} {bytes:>14} bytes {:.3} bit/slot (zstd {level})", bytes as f64 * 8.0 / slots);
    }
}
