//! Surveys of start positions: the value of every arrangement of N sheep on
//! ranks 1..4 against fixed foxes, read from a tablebase of either layout.

use crate::error::Error;
use crate::fox_tables::FoxTables;
use crate::tiered::WholeTier;
use foxbase_core::board::{rank_mask, BitIter, Bits};
use foxbase_core::foxgame::{FoxGame, FoxTier};
use foxbase_core::tier::TierGame;
use foxbase_core::{Position, Side, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Counts of values (for the side to move) over all arrangements, and the arrangements of each value.
pub struct Survey {
    pub arrangements: u64,
    pub by_value: HashMap<Value, Vec<Position>>,
}

/// Every way to put `sheep` sheep on the 20 points of ranks 1..4, with
/// `foxes` and `side` to move, valued from `tables`.
pub fn survey(tables: &FoxTables, sheep: u32, foxes: Bits, side: Side) -> Result<Survey, Error> {
    let area: Bits = (1..=4).map(rank_mask).fold(0, |a, m| a | m) & !foxes;
    let points: Vec<u8> = BitIter(area).collect();
    if sheep as usize > points.len() {
        return Err(Error::Query(format!(
            "{sheep} sheep do not fit on the {} free points of ranks 1..4",
            points.len()
        )));
    }
    let mut loaded: HashMap<FoxTier, Arc<WholeTier<FoxGame>>> = HashMap::new();
    let mut by_value: HashMap<Value, Vec<Position>> = HashMap::new();
    let mut arrangements = 0;
    let mut choice: Vec<usize> = (0..sheep as usize).collect();
    loop {
        let set: Bits = choice.iter().map(|&i| 1u64 << points[i]).sum();
        let pos = Position::new(set, foxes, side).map_err(|e| Error::Query(e.to_string()))?;
        let value = match tables.game.primitive(&pos) {
            Some(v) => v,
            None => {
                let tier = tables.game.tier_of(&pos);
                if let std::collections::hash_map::Entry::Vacant(slot) = loaded.entry(tier) {
                    if !tables.holds(tier)? {
                        return Err(Error::Query(format!("tier {} is not in these tables", tier.name())));
                    }
                    slot.insert(tables.complete(tier)?);
                }
                let l = &loaded[&tier];
                l.values
                    .value(l.index.canonical_rank(&pos))
                    .ok_or_else(|| Error::Query("an unused slot holds a start position".into()))?
            }
        };
        by_value.entry(value).or_default().push(pos);
        arrangements += 1;
        // Next combination in lexicographic order.
        let k = choice.len();
        let Some(i) = (0..k).rev().find(|&i| choice[i] < points.len() - k + i) else { break };
        choice[i] += 1;
        for j in i + 1..k {
            choice[j] = choice[j - 1] + 1;
        }
        if k == 0 {
            break;
        }
    }
    Ok(Survey { arrangements, by_value })
}
