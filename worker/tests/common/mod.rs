//! Helpers shared by the worker's integration tests.
#![allow(dead_code)]

use foxbase_core::tier::TierGame;
use foxbase_worker::kernel::{ChildTable, SolvedTier};
use std::collections::{BTreeMap, BTreeSet};

/// Tiers reachable from `root` through child_tiers, children before parents.
pub fn plan<G: TierGame>(game: &G, root: G::Tier) -> Vec<G::Tier> {
    fn visit<G: TierGame>(game: &G, t: G::Tier, done: &mut BTreeSet<G::Tier>, order: &mut Vec<G::Tier>) {
        if !done.insert(t) {
            return;
        }
        for c in game.child_tiers(t) {
            visit(game, c, done, order);
        }
        order.push(t);
    }
    let mut order = Vec::new();
    visit(game, root, &mut BTreeSet::new(), &mut order);
    order
}

/// The child tables of `tiers` from tiers solved in memory.
pub fn tables<G: TierGame>(game: &G, tiers: &[G::Tier], solved: &BTreeMap<G::Tier, SolvedTier>) -> Vec<ChildTable<G>> {
    tiers
        .iter()
        .map(|&c| ChildTable::new(c, game.tier_index(c), solved[&c].values.clone().into(), solved[&c].plies.clone()))
        .collect()
}
