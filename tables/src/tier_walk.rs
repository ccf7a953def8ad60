//! [`TierWalk`]: every tier of a tablebase in turn, whole and complete,
//! with its complete child tiers: the pass of `verify`, and of the
//! comparison of a published tablebase with its solve.
//!
//! A tier is read (and, in a published tablebase, its left-out slots
//! derived, [`TierTables::derive_complete`]) when it is first needed, and
//! kept until the last tier that reads it has been visited. So each tier
//! is read and derived once, as long as what is kept fits a budget in
//! bytes; beyond it, the kept tier needed again latest is dropped first
//! (the choice that drops least: it is read, and derived, again when its
//! turn comes).
//!
//! The order keeps that small: by level of the child relation (a tier with
//! no child among the walked ones is at level 0, any other one level
//! above its highest child), the given order within a level. A tier's
//! parents then tend to follow it within a few levels. The 20-sheep tables
//! of the Fox Game (`--sheep-floor 20`, 17,108 tiers, 13.0 GB of values)
//! keep at most 1.7 GB at once in this order, 6.0 GB in the order of their
//! manifest. The whole game's band is wider (captures lead to the tiers of
//! one sheep fewer): 73.8 GB at once in this order, 130.0 GB in its plan's,
//! so there the budget decides what is read again.

use crate::error::Error;
use crate::tier_tables::TierTables;
use crate::tiered::{LocateChild, WholeTier};
use foxbase_core::play::WithRules;
use foxbase_core::tier::TierGame;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// The tiers of a tablebase in walk order with their children. See the
/// module documentation.
pub struct TierWalk<G: TierGame> {
    /// The tiers, in walk order.
    order: Vec<G::Tier>,
    /// Per tier of `order`: where its children are in `order`.
    children: Vec<Vec<usize>>,
    /// Bytes of complete tiers kept between visits (at most about this).
    budget: u64,
}

impl<G: LocateChild + WithRules> TierWalk<G> {
    /// A walk over `tiers` (each once), their children being those among
    /// `tiers` ([`TierGame::child_tiers`]), keeping about `budget` bytes of
    /// complete tiers between visits.
    ///
    /// Panics if the child relation has a cycle: the tier contract
    /// (`foxbase_core::tier`) rules that out.
    pub fn new(game: &G, tiers: &[G::Tier], budget: u64) -> TierWalk<G> {
        let at: HashMap<G::Tier, usize> = tiers.iter().enumerate().map(|(i, t)| (*t, i)).collect();
        let kids: Vec<Vec<usize>> =
            tiers.iter().map(|t| game.child_tiers(*t).iter().filter_map(|c| at.get(c).copied()).collect()).collect();
        let level = levels(&kids, |i| game.tier_name(tiers[i]));
        let mut walk: Vec<usize> = (0..tiers.len()).collect();
        walk.sort_by_key(|&i| (level[i], i));
        let mut place = vec![0; tiers.len()];
        for (k, &i) in walk.iter().enumerate() {
            place[i] = k;
        }
        TierWalk {
            order: walk.iter().map(|&i| tiers[i]).collect(),
            children: walk.iter().map(|&i| kids[i].iter().map(|&c| place[c]).collect()).collect(),
            budget,
        }
    }

    /// The tiers in the order [`TierWalk::walk`] visits them.
    pub fn order(&self) -> &[G::Tier] {
        &self.order
    }

    /// Visits every tier in turn, complete, with its complete children
    /// (in [`TierGame::child_tiers`] order, those walked), read from
    /// `tables`. A tier that cannot be read or derived stops the walk with
    /// `load_error(tier, why)`; `visit`'s first error stops it too.
    pub fn walk<E>(
        &self,
        tables: &TierTables<G>,
        load_error: impl Fn(G::Tier, Error) -> E,
        mut visit: impl FnMut(&WholeTier<G>, &[&WholeTier<G>]) -> Result<(), E>,
    ) -> Result<(), E> {
        // Where each tier is read: its own place, then each parent's (ascending).
        let mut uses: Vec<VecDeque<usize>> = vec![VecDeque::new(); self.order.len()];
        for (k, kids) in self.children.iter().enumerate() {
            uses[k].push_back(k);
            for &c in kids {
                uses[c].push_back(k);
            }
        }
        let mut kept: HashMap<usize, Arc<WholeTier<G>>> = HashMap::new();
        let mut kept_bytes = 0;
        for k in 0..self.order.len() {
            let needed: Vec<usize> = std::iter::once(k).chain(self.children[k].iter().copied()).collect();
            let mut loaded = Vec::with_capacity(needed.len());
            for &u in &needed {
                loaded.push(self.complete(tables, u, &kept).map_err(|e| load_error(self.order[u], e))?);
            }
            let refs: Vec<&WholeTier<G>> = loaded.iter().map(|w| w.as_ref()).collect();
            visit(refs[0], &refs[1..])?;
            for (&u, whole) in needed.iter().zip(loaded) {
                while uses[u].front().is_some_and(|&at| at <= k) {
                    uses[u].pop_front();
                }
                if uses[u].is_empty() {
                    if let Some(w) = kept.remove(&u) {
                        kept_bytes -= w.bytes();
                    }
                } else if let std::collections::hash_map::Entry::Vacant(slot) = kept.entry(u) {
                    kept_bytes += whole.bytes();
                    slot.insert(whole);
                }
            }
            while kept_bytes > self.budget {
                let latest = *kept.keys().max_by_key(|&&u| (uses[u][0], u)).expect("kept bytes of no tier");
                kept_bytes -= kept.remove(&latest).expect("just found").bytes();
            }
        }
        Ok(())
    }

    /// The tier at `u` complete: kept, else read and derived from its
    /// children, kept or read.
    fn complete(
        &self,
        tables: &TierTables<G>,
        u: usize,
        kept: &HashMap<usize, Arc<WholeTier<G>>>,
    ) -> Result<Arc<WholeTier<G>>, Error> {
        if let Some(w) = kept.get(&u) {
            return Ok(w.clone());
        }
        let stored = tables.stored(self.order[u])?;
        if stored.is_complete() {
            return Ok(stored);
        }
        let children = self.children[u]
            .iter()
            .map(|&c| kept.get(&c).map_or_else(|| tables.stored(self.order[c]), |w| Ok(w.clone())))
            .collect::<Result<Vec<_>, Error>>()?;
        let refs: Vec<&WholeTier<G>> = children.iter().map(|w| w.as_ref()).collect();
        Ok(Arc::new(tables.derive_complete(&stored, &refs)?))
    }
}

/// Each node's level in the DAG whose edges are `kids` (node to child): 0
/// without children, else one more than its highest child's. `name` names
/// a node of a cycle in the panic.
fn levels(kids: &[Vec<usize>], name: impl Fn(usize) -> String) -> Vec<u32> {
    const NOT_YET: u32 = u32::MAX;
    let mut level = vec![NOT_YET; kids.len()];
    let mut on_path = vec![false; kids.len()];
    for root in 0..kids.len() {
        if level[root] != NOT_YET {
            continue;
        }
        // Depth first, children before their parent; (node, next child to look at).
        let mut path = vec![(root, 0)];
        on_path[root] = true;
        while let Some((node, next)) = path.last_mut() {
            let node = *node;
            if let Some(&c) = kids[node].get(*next) {
                *next += 1;
                if level[c] == NOT_YET {
                    assert!(!on_path[c], "tier {} is its own descendant: the tier contract has no cycles", name(c));
                    on_path[c] = true;
                    path.push((c, 0));
                }
            } else {
                level[node] = kids[node].iter().map(|&c| level[c] + 1).max().unwrap_or(0);
                on_path[node] = false;
                path.pop();
            }
        }
    }
    level
}

#[cfg(test)]
mod tests {
    use super::levels;

    #[test]
    fn levels_count_from_the_leaves() {
        // 0 <- 1 <- 3, 0 <- 2 <- 3, 3 <- 4, and 5 alone.
        let kids = vec![vec![], vec![0], vec![0], vec![1, 2], vec![3], vec![]];
        assert_eq!(levels(&kids, |i| i.to_string()), vec![0, 1, 1, 2, 3, 0]);
        // A longer path decides: 4 reads 0 directly and through 3.
        let kids = vec![vec![], vec![0], vec![0], vec![1, 2], vec![3, 0], vec![]];
        assert_eq!(levels(&kids, |i| i.to_string())[4], 3);
    }

    #[test]
    #[should_panic(expected = "tier 0 is its own descendant")]
    fn a_cycle_is_a_broken_contract() {
        levels(&[vec![1], vec![0]], |i| i.to_string());
    }
}
