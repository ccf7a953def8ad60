//! Figures for the capacity plan of a distributed solve (docs/distributed.md):
//! tiers, positions, the largest tiers with the child tables they load, and
//! how the work spreads over sheep counts, for a variant (default: the full
//! game).
//!
//! ```text
//! cargo run --release -p foxbase-benches --example capacity -- [START [K]]
//! ```

use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::parse_position;
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Variant};
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let variant = match args.get(1) {
        Some(start) => {
            let k = args.get(2).map_or(9, |k| k.parse().expect("K is a number"));
            Variant::new(Geometry::Classic, k, parse_position(start).expect("a position")).unwrap()
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
    let worst_load = plan
        .order
        .iter()
        .map(|t| plan.slots[t] * 3 + plan.children[t].iter().map(|c| plan.slots[c]).sum::<u64>() / 4)
        .max()
        .unwrap();
    println!("largest tier state (3 bytes/slot) plus child tables (2 bits/slot): {worst_load} bytes");
    let mut per_sheep: BTreeMap<u32, (usize, u64)> = BTreeMap::new();
    for &t in &plan.order {
        let e = per_sheep.entry(t.sheep()).or_default();
        e.0 += 1;
        e.1 += plan.slots[&t];
    }
    println!("sheep: tiers, positions");
    for (sheep, (tiers, slots)) in per_sheep {
        println!("  {sheep} {tiers} {slots}");
    }
}
