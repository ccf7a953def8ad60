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
        TierPlan::from_root(game, game.tier_of(&game.initial_position()))
    }

    /// Every tier reachable from `root` through `child_tiers` (a part of
    /// the game, such as Bagh-Chal's moving phase), children first.
    pub fn from_root(game: &G, root: G::Tier) -> TierPlan<G> {
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

    /// The most bytes of tables a solve of this plan holds at once, one
    /// tier at a time in the order a solve leases them ([`Scheduler`],
    /// [`TierGame::solve_priority`]), where a tier's solved files take
    /// `solved(tier)` bytes and its published ones `published(tier)`: kept
    /// solved (`in_place` false: the sum of `solved`), or published in
    /// place once every tier reading it is solved (`foxbase solve
    /// --disk-budget`; a tier's two forms both count while it is published).
    pub fn disk_high_water(
        &self,
        game: &G,
        in_place: bool,
        solved: impl Fn(G::Tier) -> u64,
        published: impl Fn(G::Tier) -> u64,
    ) -> u64 {
        if !in_place {
            return self.order.iter().map(|&t| solved(t)).sum();
        }
        let mut readers_left: HashMap<G::Tier, usize> = self.order.iter().map(|&t| (t, 0)).collect();
        for kids in self.children.values() {
            for kid in kids {
                *readers_left.get_mut(kid).expect("a plan holds its tiers' children") += 1;
            }
        }
        let mut scheduler = Scheduler::new(&self.order, &self.children, &[], |t| game.solve_priority(t));
        let (mut held, mut high_water) = (0u64, 0u64);
        while let Some(tier) = scheduler.lease() {
            held += solved(tier);
            high_water = high_water.max(held);
            let mut unread: Vec<G::Tier> = Vec::new();
            for kid in &self.children[&tier] {
                let left = readers_left.get_mut(kid).expect("a plan holds its tiers' children");
                *left -= 1;
                if *left == 0 {
                    unread.push(*kid);
                }
            }
            if readers_left[&tier] == 0 {
                unread.push(tier);
            }
            for t in unread {
                high_water = high_water.max(held + published(t));
                held = held + published(t) - solved(t);
            }
            scheduler.complete(tier);
        }
        high_water
    }
}

/// Hands out tiers whose children are all done, the lowest
/// [`TierGame::solve_priority`] first (then in the tiers' order). Plain
/// data: the local solver drives it from threads, the gRPC coordinator
/// from RPCs.
pub struct Scheduler<T: Ord + Copy + std::hash::Hash> {
    waiting_on: HashMap<T, usize>,
    parents: HashMap<T, Vec<T>>,
    /// Ready tiers by (priority, tier).
    ready: BTreeMap<(u32, T), ()>,
    priority: HashMap<T, u32>,
    running: usize,
    done: usize,
    total: usize,
}

impl<T: Ord + Copy + std::hash::Hash + std::fmt::Debug> Scheduler<T> {
    /// A scheduler over `tiers` with their `children`; `finished` tiers count
    /// as done already, in whatever order they finished: a finished tier is
    /// never leased again, even when one of its children is not finished
    /// (a journal cut in the middle, or tiers imported from a partial
    /// solve). Solving is deterministic, so the child solved now has the
    /// table the finished tier was solved from. Linear in tiers and edges
    /// (resuming 200,000 tiers).
    /// `priority` orders the ready tiers (lowest first).
    pub fn new(
        tiers: &[T],
        children: &HashMap<T, Vec<T>>,
        finished: &[T],
        priority: impl Fn(T) -> u32,
    ) -> Scheduler<T> {
        let finished: std::collections::HashSet<T> = finished.iter().copied().collect();
        let mut s = Scheduler {
            waiting_on: HashMap::new(),
            parents: HashMap::new(),
            ready: BTreeMap::new(),
            priority: tiers.iter().map(|&t| (t, priority(t))).collect(),
            running: 0,
            done: 0,
            total: tiers.len(),
        };
        for &t in tiers {
            if finished.contains(&t) {
                s.done += 1;
                continue;
            }
            let open: Vec<T> = children[&t].iter().copied().filter(|c| !finished.contains(c)).collect();
            s.waiting_on.insert(t, open.len());
            for c in open {
                s.parents.entry(c).or_default().push(t);
            }
            if s.waiting_on[&t] == 0 {
                s.ready.insert((s.priority[&t], t), ());
            }
        }
        s
    }

    /// The next tier to solve, if one is ready.
    pub fn lease(&mut self) -> Option<T> {
        let t = self.peek()?;
        self.ready.remove(&(self.priority[&t], t));
        self.running += 1;
        Some(t)
    }

    /// The tier [`Scheduler::lease`] would hand out now, if one is ready.
    pub fn peek(&self) -> Option<T> {
        self.ready.keys().next().map(|&(_, t)| t)
    }

    /// Puts a leased tier back (its lease expired or was released).
    pub fn requeue(&mut self, tier: T) {
        self.running -= 1;
        self.ready.insert((self.priority[&tier], tier), ());
    }

    /// Leases `tier` if it is ready (for a completion that arrives after its
    /// lease was requeued); false if it is not ready.
    pub fn take(&mut self, tier: T) -> bool {
        if self.ready.remove(&(self.priority[&tier], tier)).is_some() {
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
                self.ready.insert((self.priority[&p], p), ());
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

#[cfg(test)]
mod tests {
    use super::Scheduler;
    use std::collections::HashMap;

    #[test]
    fn finished_tiers_are_retired_in_any_order_and_never_leased() {
        // 0 and 1 are leaves; 2 needs 0 and 1; 3 needs 2; 4 needs 1.
        let children: HashMap<u32, Vec<u32>> =
            [(0, vec![]), (1, vec![]), (2, vec![0, 1]), (3, vec![2]), (4, vec![1])].into_iter().collect();
        let tiers = [0, 1, 2, 3, 4];
        // Given parents before children: still retired.
        let mut s = Scheduler::new(&tiers, &children, &[2, 1, 0], |_| 0);
        assert_eq!((s.done(), s.ready()), (3, 2));
        let mut leased = vec![s.lease().unwrap(), s.lease().unwrap()];
        leased.sort();
        assert_eq!(leased, vec![3, 4]);
        assert_eq!(s.lease(), None);
        s.complete(3);
        s.requeue(4);
        assert!(s.take(4) && !s.take(4));
        s.complete(4);
        assert!(s.is_finished());

        // A finished tier whose child is not finished is kept: the child
        // and the tiers waiting on it are solved, and the run ends (this
        // hung when a finished tier was leased again).
        let mut s = Scheduler::new(&tiers, &children, &[2, 0], |_| 0);
        assert_eq!((s.done(), s.ready()), (2, 2), "1 is a leaf; 3 waits on 2 alone");
        assert_eq!((s.lease(), s.lease(), s.lease()), (Some(1), Some(3), None));
        s.complete(1);
        s.complete(3);
        assert_eq!((s.lease(), s.lease()), (Some(4), None));
        s.complete(4);
        assert!(s.is_finished());
    }

    #[test]
    fn resuming_a_long_chain_is_linear() {
        // 200,000 tiers in a chain (the full game's tier count), journaled
        // from the top down: a quadratic retirement would not finish within
        // CI's time; this runs in well under a second.
        let n = 200_000u32;
        let children: HashMap<u32, Vec<u32>> = (0..n).map(|t| (t, if t == 0 { vec![] } else { vec![t - 1] })).collect();
        let tiers: Vec<u32> = (0..n).collect();
        let finished: Vec<u32> = (0..n - 1).rev().collect();
        let mut s = Scheduler::new(&tiers, &children, &finished, |_| 0);
        assert_eq!(s.done(), n as usize - 1);
        assert_eq!(s.lease(), Some(n - 1));
    }
}

#[cfg(test)]
mod disk_tests {
    use super::TierPlan;
    use foxbase_core::foxgame::FoxGame;
    use foxbase_core::notation::parse_position;
    use foxbase_core::{Geometry, Side, Variant};

    /// One fox, four sheep, K = 2, floor 2: tiers of 2, 3 and 4 sheep.
    fn game() -> FoxGame {
        let start = parse_position(".F./.../......./......./......./.S./SSS f").unwrap();
        FoxGame::new(Variant::new(Geometry::Classic, 2, start).unwrap().with_sheep_floor(2, Side::Fox).unwrap())
    }

    #[test]
    fn publishing_in_place_count_by_count_holds_less_than_the_solved_tables() {
        let game = game();
        let plan = TierPlan::new(&game);
        let (solved, published) = (|t| plan.slots[&t], |t| plan.slots[&t] / 2);
        let kept = plan.disk_high_water(&game, false, solved, published);
        assert_eq!((plan.order.len(), kept), (318, 1_382_756));
        let in_place = plan.disk_high_water(&game, true, solved, published);
        assert_eq!(in_place, IN_PLACE);
        // Everything published, plus the working set: at least half, well below all.
        assert!(in_place > kept / 2 && in_place < kept * 3 / 4, "{in_place} of {kept}");
    }

    /// The in-place high-water mark of this plan (solved 1 byte a slot,
    /// published half that), computed once: the solve order is deterministic.
    const IN_PLACE: u64 = 775_489;
}
