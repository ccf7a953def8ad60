//! How many sheep-to-move values of a solved Fox Game tablebase follow
//! from the rules alone, two plies deep, with no table read (one way of
//! storing only positions whose value is not implied by a cheap rule),
//! and what the published values would take if those slots were
//! don't-care.
//!
//! Two rules, each a proof (the example asserts that the tables agree):
//!
//! - *won at once*: a sheep move reaches a position that is over and lost
//!   for the foxes (the pen filled, the foxes trapped);
//! - *lost at once*: every sheep move reaches a position that is over and
//!   won for the foxes, or one where a fox move reaches a position over and
//!   lost for the sheep (under a sheep floor: a capture to the floor; in
//!   any variant: a capture that leaves too few sheep to fill the pen).
//!
//! A reader checks both with move generation only. For every
//! `EVERY_NTH_TIER`-th tier this counts the sheep-to-move positions each
//! rule decides and compresses the sheep-to-move codes (dense, in column
//! order by fox placement, blocks of 2^18 codes, zstd 15) as they are and
//! with the decided ones don't-care, filled with the code one row up in
//! their column (the same fox placement, the sheep set before), which is
//! what zstd sees beside them in column order. A measurement, not a
//! format: nothing is written.
//!
//! `cargo run --release -p foxbase-benches --example rule_values -- DIR [EVERY_NTH_TIER]`

use foxbase_core::foxgame::FoxGame;
use foxbase_core::tier::TierGame;
use foxbase_core::{Position, Value};

#[path = "shared/code_blocks.rs"]
mod code_blocks;
#[path = "shared/tier_sample.rs"]
mod tier_sample;

/// What the two rules say of a sheep-to-move position that is not over.
fn by_rule(game: &FoxGame, pos: &Position) -> Option<Value> {
    let (mut won, mut all_lost) = (false, true);
    game.for_each_child(pos, |child| {
        match game.primitive(&child) {
            // For the foxes, who move in the child.
            Some(Value::Loss) => won = true,
            Some(Value::Win) => {}
            Some(Value::Draw) => all_lost = false,
            None => {
                if all_lost {
                    let mut fox_wins = false;
                    game.for_each_child(&child, |grandchild| {
                        fox_wins |= game.primitive(&grandchild) == Some(Value::Loss);
                    });
                    all_lost = fox_wins;
                }
            }
        }
    });
    if won {
        Some(Value::Win)
    } else if all_lost {
        Some(Value::Loss)
    } else {
        None
    }
}

fn main() {
    let sample = tier_sample::from_args("rule_values");
    let (manifest, tables, game) = (&sample.manifest, &sample.tables, &sample.tables.game);
    let (mut sheep_slots, mut won, mut lost) = (0u64, 0u64, 0u64);
    let mut codings = tier_sample::TwoCodings::default();
    for (entry, tier, index) in sample.tiers() {
        let complete = tables.complete(tier).unwrap();
        let period = index.fox_slots as usize;
        let (mut as_is, mut free) = (Vec::new(), Vec::new());
        game.for_each_slot(&index, 0..entry.slots, |i, pos| {
            if i % 2 == 0 {
                return; // fox to move: derived by one fox move when published
            }
            let value = pos.map(|_| complete.outcome(i).expect("a used slot has a value").value);
            let mut decided = false;
            if let (Some(p), Some(value)) = (pos, value) {
                sheep_slots += 1;
                if game.primitive(&p).is_none() {
                    if let Some(v) = by_rule(game, &p) {
                        assert_eq!(v, value, "the rule and the table disagree at slot {i} of {}", entry.name);
                        decided = true;
                        won += (v == Value::Win) as u64;
                        lost += (v == Value::Loss) as u64;
                    }
                }
            }
            // Unused and decided slots take the code one row up in their column.
            let j = free.len();
            let above = |codes: &[u8]| if j >= period { codes[j - period] } else { 0 };
            as_is.push(value.map_or_else(|| above(&as_is), |v| v.code()));
            free.push(match value {
                Some(v) if !decided => v.code(),
                _ => above(&free),
            });
        });
        codings.add(entry.slots, period, &as_is, &free);
    }
    println!(
        "{} of {} tiers, {} slots, {sheep_slots} sheep-to-move positions: {won} won at once ({:.1} %), {lost} lost at once ({:.1} %)",
        manifest.tiers.len().div_ceil(sample.every),
        manifest.tiers.len(),
        codings.slots(),
        won as f64 * 100.0 / sheep_slots.max(1) as f64,
        lost as f64 * 100.0 / sheep_slots.max(1) as f64,
    );
    codings.print("the rules' values");
}
