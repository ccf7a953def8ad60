//! Figures for the capacity plan of a distributed solve (docs/distributed.md):
//! tiers, positions, the largest tiers with the child tables they load, the
//! disk high-water mark with and without publishing in place, what a check
//! of the whole tablebase holds (`foxbase verify`'s walk over the tiers,
//! replayed from their sizes), and how the work spreads over sheep counts,
//! for a variant (default: the full game; F: a sheep floor won by the
//! foxes, docs/results.md).
//!
//! ```text
//! cargo run --release -p foxbase-benches --example capacity -- [START [K [F]]]
//! ```

use foxbase_coordinator::plan::TierPlan;
use foxbase_core::board::{BitIter, RANK_MASK_OF_POINT};
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::parse_position;
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Variant};
use foxbase_tables::tier_walk::{TierWalk, WalkMemory, KEPT_BYTES};
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let variant = match args.get(1) {
        Some(start) => {
            let k = args.get(2).map_or(9, |k| k.parse().expect("K is a number"));
            let floor = args.get(3).map_or(k, |f| f.parse().expect("F is a number"));
            Variant::new(Geometry::Classic, k, parse_position(start).expect("a position"))
                .unwrap()
                .with_sheep_floor(floor, foxbase_core::Side::Fox)
                .expect("F in K..=the start's sheep")
        }
        None => Variant::default(),
    };
    let game = FoxGame::new(variant);
    let plan = TierPlan::new(&game);
    println!("variant: {variant}");
    println!("tiers {}, positions {}", plan.order.len(), plan.total_slots());
    let mut by_size: Vec<_> = plan.order.iter().map(|&t| (plan.slots[&t], t)).collect();
    by_size.sort_by(|a, b| b.cmp(a));
    println!("largest tiers: slots, child tiers, child slots");
    for &(slots, t) in by_size.iter().take(5) {
        let kids = &plan.children[&t];
        let kid_slots: u64 = kids.iter().map(|c| plan.slots[c]).sum();
        println!("  {} {slots} {} {kid_slots}", game.tier_name(t), kids.len());
    }
    // The plane kernel's memory for a tier (docs/design.md): six planes of
    // n rows of 4 bytes per sheep set (two foxes; one row with one fox),
    // beside the child tables (2 bits per slot) during the initial pass and
    // beside the 2-bit output after it.
    let load = |t: &foxbase_core::foxgame::FoxTier| -> u64 {
        let n = 33 - t.sheep() as u64;
        let slots = plan.slots[t];
        let planes = if t.foxes() == 2 { slots * 24 / (n - 1) } else { slots * 12 / n };
        let children: u64 = plan.children[t].iter().map(|c| plan.slots[c].div_ceil(4)).sum();
        planes + children.max(slots.div_ceil(4))
    };
    let worst = plan.order.iter().max_by_key(|t| load(t)).unwrap();
    println!(
        "largest load (plane kernel: planes plus child tables or output): {} bytes, tier {}",
        load(worst),
        game.tier_name(*worst)
    );
    // The plane kernel's sideways records (docs/design.md), kept for the
    // whole tier: 4 bytes a sheep set and 16 a sideways sheep step (within
    // its rank; the 2 bytes of each fox it traps with the other fox on one
    // point are not counted). They
    // need every set of a tier unranked, so only the tiers with the 20
    // largest loads are counted.
    let sideways = |t: &foxbase_core::foxgame::FoxTier| -> u64 {
        let index = game.tier_index(*t);
        let board = game.rules.board;
        let mut steps = 0u64;
        for set in 0..index.sheep_sets {
            let sheep = index.sheep_set(set);
            for from in BitIter(sheep) {
                let sideways = board.sheep_steps[from as usize] & !sheep & RANK_MASK_OF_POINT[from as usize];
                steps += sideways.count_ones() as u64;
            }
        }
        index.sheep_sets * 4 + steps * 16
    };
    let mut by_load: Vec<_> = plan.order.iter().map(|t| (load(t), *t)).collect();
    by_load.sort_by(|a, b| b.cmp(a));
    let (with, tier) =
        by_load.iter().take(20).map(|&(l, t)| (l + sideways(&t), t)).max().expect("every variant has a tier");
    println!(
        "largest load with the sideways records (of the 20 largest loads above): {with} bytes, tier {}",
        game.tier_name(tier)
    );
    // Disk: bits per position of the 20-sheep tiers' tables (docs/results.md):
    // 0.52 solved (values), 0.25 published.
    let slots = &plan.slots;
    let solved = |t: foxbase_core::foxgame::FoxTier| (slots[&t] as f64 * 0.52 / 8.0) as u64;
    let published = |t: foxbase_core::foxgame::FoxTier| (slots[&t] as f64 * 0.25 / 8.0) as u64;
    println!(
        "disk high-water mark (values, 0.52 bit a position solved, 0.25 published): {} bytes kept solved, \
         {} bytes published in place (solve --disk-budget)",
        plan.disk_high_water(&game, false, solved, published),
        plan.disk_high_water(&game, true, solved, published)
    );
    // verify's walk (values only: 2 bits a slot), replayed from the sizes.
    let values = |t: foxbase_core::foxgame::FoxTier| slots[&t].div_ceil(4);
    let walk = |kept_bytes, spill: bool| {
        let memory = WalkMemory { kept_bytes, spill_dir: spill.then(std::env::temp_dir) };
        TierWalk::new(&game, &plan.order, memory).replay(values)
    };
    let all = walk(u64::MAX, false);
    println!("verify's walk: at most {} bytes of complete tiers at once", all.kept_high_water);
    let tiers = plan.order.len() as f64;
    for kept_bytes in [KEPT_BYTES, 4 * KEPT_BYTES] {
        let (dropped, spilled) = (walk(kept_bytes, false), walk(kept_bytes, true));
        println!(
            "  within {kept_bytes} bytes: each tier made complete {:.2} times on average without a spill; \
             with one, {} tiers spilled, at most {} bytes of them at once (before compression), read back {} times",
            dropped.completed as f64 / tiers,
            spilled.spilled,
            spilled.spill_high_water,
            spilled.spill_reads
        );
    }
    let mut per_sheep: BTreeMap<u32, (usize, u64, u64, u64)> = BTreeMap::new();
    for &t in &plan.order {
        let e = per_sheep.entry(t.sheep()).or_default();
        e.0 += 1;
        e.1 += plan.slots[&t];
        e.2 = e.2.max(plan.slots[&t]);
        e.3 = e.3.max(load(&t));
    }
    println!("sheep: tiers, positions, largest tier, largest load (bytes)");
    for (sheep, (tiers, slots, largest, worst)) in per_sheep {
        println!("  {sheep} {tiers} {slots} {largest} {worst}");
    }
}
