//! The tier DAG reachable from a game's initial position.

use foxbase_core::tier::TierGame;
use std::collections::{BTreeMap, HashMap};

/// Tiers to solve, children before parents.
pub struct TierPlan<G: TierGame> {
    /// Children first; the initial tier is last.
    pub order: Vec<G::Tier>,
    pub children: HashMap<G::Tier, Vec<G::Tier>>,
    pub slots: HashMap<G::Tier, u64>,
}

impl<G: TierGame> TierPlan<G> {
    /// Every tier reachable from the initial position's tier through
    /// `child_tiers`, in a deterministic children-first order.
    pub fn new(game: &G) -> TierPlan<G> {
        let root = game.tier_of(&game.initial_position());
        let mut children: HashMap<G::Tier, Vec<G::Tier>> = HashMap::new();
        let mut order = Vec::new();
        // Iterative depth-first post-order: (tier, next child to visit).
        let mut stack = vec![(root, 0usize)];
        children.insert(root, game.child_tiers(root));
        while let Some(&mut (tier, ref mut next)) = stack.last_mut() {
            let kids = &children[&tier];
            if *next < kids.len() {
                let kid = kids[*next];
                *next += 1;
                if let std::collections::hash_map::Entry::Vacant(e) = children.entry(kid) {
                    e.insert(game.child_tiers(kid));
                    stack.push((kid, 0));
                }
            } else {
                order.push(tier);
                stack.pop();
            }
        }
        let slots = order.iter().map(|&t| (t, game.tier_size(&game.tier_index(t)))).collect();
        TierPlan { order, children, slots }
    }

    pub fn total_slots(&self) -> u64 {
        self.slots.values().sum()
    }

    pub fn largest_tier(&self) -> Option<(G::Tier, u64)> {
        self.order.iter().map(|&t| (t, self.slots[&t])).max_by_key(|&(t, n)| (n, std::cmp::Reverse(t)))
    }
}

/// Hands out tiers whose children are all done. Plain data: the local
/// solver drives it from threads, the gRPC coordinator from RPCs.
pub struct Scheduler<T: Ord + Copy + std::hash::Hash> {
    waiting_on: HashMap<T, usize>,
    parents: HashMap<T, Vec<T>>,
    ready: BTreeMap<T, ()>,
    running: usize,
    done: usize,
    total: usize,
}

impl<T: Ord + Copy + std::hash::Hash + std::fmt::Debug> Scheduler<T> {
    /// A scheduler over `tiers` with their `children`; `finished` tiers count as done already.
    pub fn new(tiers: &[T], children: &HashMap<T, Vec<T>>, finished: &[T]) -> Scheduler<T> {
        let mut s = Scheduler {
            waiting_on: HashMap::new(),
            parents: HashMap::new(),
            ready: BTreeMap::new(),
            running: 0,
            done: 0,
            total: tiers.len(),
        };
        for &t in tiers {
            s.waiting_on.insert(t, children[&t].len());
            for &c in &children[&t] {
                s.parents.entry(c).or_default().push(t);
            }
        }
        for &t in tiers {
            if s.waiting_on[&t] == 0 {
                s.ready.insert(t, ());
            }
        }
        // Finished tiers may come in any order: retire them as they become ready.
        let mut left: Vec<T> = finished.to_vec();
        while let Some(i) = left.iter().position(|t| s.ready.contains_key(t)) {
            let t = left.swap_remove(i);
            s.ready.remove(&t);
            s.running += 1;
            s.complete(t);
        }
        s
    }

    /// The next tier to solve, if one is ready.
    pub fn lease(&mut self) -> Option<T> {
        let (&t, _) = self.ready.iter().next()?;
        self.ready.remove(&t);
        self.running += 1;
        Some(t)
    }

    /// Puts a leased tier back (its lease expired or was released).
    pub fn requeue(&mut self, tier: T) {
        self.running -= 1;
        self.ready.insert(tier, ());
    }

    /// Leases `tier` if it is ready (for a completion that arrives after its
    /// lease was requeued); false if it is not ready.
    pub fn take(&mut self, tier: T) -> bool {
        if self.ready.remove(&tier).is_some() {
            self.running += 1;
            true
        } else {
            false
        }
    }

    /// Marks a leased tier done, making parents ready when their last child finishes.
    pub fn complete(&mut self, tier: T) {
        self.running -= 1;
        self.done += 1;
        for p in self.parents.get(&tier).cloned().unwrap_or_default() {
            let w = self.waiting_on.get_mut(&p).unwrap();
            *w -= 1;
            if *w == 0 {
                self.ready.insert(p, ());
            }
        }
    }

    pub fn is_finished(&self) -> bool {
        self.done == self.total
    }

    pub fn done(&self) -> usize {
        self.done
    }

    pub fn total(&self) -> usize {
        self.total
    }

    pub fn running(&self) -> usize {
        self.running
    }

    /// Tiers ready to be leased now.
    pub fn ready(&self) -> usize {
        self.ready.len()
    }
}
