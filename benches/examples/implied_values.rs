//! How many sheep-to-move values of a solved Fox Game tablebase a reader
//! could imply from other tiers alone (a one-step look into the child
//! tiers), and what the published values would take if those slots were
//! don't-care.
//!
//! A sheep-to-move position is *implied won* when one of its sheep moves
//! leaves the tier (an advance: the only move that does) into a position
//! the foxes lose. A reader can check that from the child tiers' tables
//! without the position's own tier. For every `EVERY_NTH_TIER`-th tier
//! this counts the sheep-to-move slots, their wins, and the implied wins,
//! and compresses the sheep-to-move codes (dense, in column order by fox
//! placement, blocks of 2^18 codes, zstd 15) as they are and with implied
//! wins made don't-care (the code before them, as unused slots are).
//! A measurement, not a format: nothing is written.
//!
//! `cargo run --release -p foxbase-benches --example implied_values -- DIR [EVERY_NTH_TIER]`

use foxbase_core::tier::TierGame;
use foxbase_core::{Side, Value};
use foxbase_tables::packed::UNUSED;

#[path = "shared/code_blocks.rs"]
mod code_blocks;
#[path = "shared/tier_sample.rs"]
mod tier_sample;

fn main() {
    let sample = tier_sample::from_args("implied_values");
    let (manifest, tables, game) = (&sample.manifest, &sample.tables, &sample.tables.game);
    let (mut sheep_slots, mut wins, mut implied) = (0u64, 0u64, 0u64);
    let mut codings = tier_sample::TwoCodings::default();
    for (entry, tier, index) in sample.tiers() {
        let (mut as_is, mut implied_free) = (Vec::new(), Vec::new());
        let (mut last, mut last_free) = (0u8, 0u8);
        game.for_each_slot(&index, 0..entry.slots, |i, pos| {
            if i % 2 == 0 {
                return; // fox to move: derived by one fox move when published
            }
            let outcome = pos.map(|p| (p, tables.outcome(&p).unwrap().value));
            let code = match outcome {
                Some((_, v)) => v.code(),
                None => UNUSED,
            };
            let mut is_implied = false;
            if let Some((p, value)) = outcome {
                debug_assert_eq!(p.side(), Side::Sheep);
                sheep_slots += 1;
                if value == Value::Win && game.primitive(&p).is_none() {
                    wins += 1;
                    game.for_each_child(&p, |child| {
                        if !is_implied
                            && game.tier_of(&child) != tier
                            && game.primitive(&child).is_none()
                            && tables.outcome(&child).unwrap().value == Value::Loss
                        {
                            is_implied = true;
                        }
                    });
                    implied += is_implied as u64;
                }
            }
            last = if code == UNUSED { last } else { code };
            last_free = if code == UNUSED || is_implied { last_free } else { code };
            as_is.push(last);
            implied_free.push(last_free);
        });
        codings.add(entry.slots, index.fox_slots as usize, &as_is, &implied_free);
    }
    println!(
        "{} of {} tiers, {} slots, {sheep_slots} sheep-to-move positions, {wins} of them won (not over), {implied} implied by an advance into a fox loss ({:.1} % of the wins)",
        manifest.tiers.len().div_ceil(sample.every),
        manifest.tiers.len(),
        codings.slots(),
        implied as f64 * 100.0 / wins.max(1) as f64
    );
    codings.print("implied wins");
}
