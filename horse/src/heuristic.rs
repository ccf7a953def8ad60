//! A primal heuristic: a good placement found fast, handed to HiGHS as its
//! first incumbent so that its branch and bound mostly has to prove it,
//! and the candidate tiles that no better placement can hold, dropped
//! from the program (docs/horse.md, "The benchmark"). It never decides the
//! answer: the integer program does.
//!
//! With a price `λ` on each wall instead of the budget, the best closed
//! set of tiles is a maximum-weight closure (Picard), a minimum cut. Each
//! region tile `t` is an item `R_t` of weight `value_t` (plus `λ` on
//! grass), and each grass tile an item `X_t` ("in the region or walled")
//! of weight `-λ`, so a walled tile (`X` without `R`) costs `λ`. A region
//! tile needs its own `X` and, for each neighbour `v`, `X_v` (grass) or
//! `R_v` (any other tile; forbidden off the candidates or on the edge); the
//! horse is in. The closure's walls that touch the horse's flood fill trap
//! it, so every closure with at most K such walls is a placement.
//!
//! The smallest price whose closure fits the budget (found by bisection)
//! gives a placement, often weak: the best region of K walls may lie
//! between two closures (a small one within the budget, a large one over
//! it). So the search also trims the closures over the budget (at a
//! quarter to three quarters of that price, it forces out, one at a time,
//! the tile that saves walls at the least loss per wall, until the closure
//! fits), grows the best placement through its walls and loosens it
//! (below), and then, at six prices around it, forces each candidate tile into the
//! closure, and out of it, one at a time. The best flood-filled score of
//! all the placements that fit is kept.
//!
//! Growing: with the best placement's region forced in, and one of its
//! walls forced in too, the closure at a price far above the fitting one is
//! the region with the fewest walls that holds both (its value breaks
//! ties); each that fits the budget is offered, one wall at a time, and
//! again from each better placement. Where the closures jump from a small
//! region well within the budget to one far over it, this reaches the
//! regions between: on the benchmark's 20x20 map 6 the search found 36
//! with 7 of its 14 walls, and grown it finds 88 (the optimum is 89).
//!
//! Loosening, for the optimum that gives up one part of the region for
//! another: at each wall of the best placement in turn, the region's tiles
//! within a few steps of it are let go and the rest forced in, and the
//! closure at the growing price walls the rest off anew with the fewest
//! walls. Each placement that saves walls is then grown. On map 7 of
//! `bench --seed 2` the search found 142; loosened and grown, 147, the
//! optimum (four walls of one lobe become three, and the spare one takes
//! in more on the other side).
//!
//! Forcing a tile `t` in also bounds every region that holds it: for any
//! price `λ`, a region of at most K walls scores at most its closure
//! weight plus `λ K` (the walls it leaves unused only add), and the best
//! closure holding `t` weighs at least as much (it need not be connected:
//! a relaxation). When that bound is below the best score found plus one,
//! no region holding `t` beats the placement, and `t` is dropped from the
//! candidates (unless it is in the placement's region). The integer
//! program on the kept candidates, started from the placement, then has
//! the same optimum: a better region keeps all its tiles, and the
//! placement itself stays feasible. (A second pass on the kept tiles,
//! whose closures are smaller, drops a few more, but made the slowest
//! 20x20 map that the search helps slower: 1.2 s against 0.8 s.)
//!
//! The work is capped (deterministically, by the size of the networks
//! solved), and a map too big for one round of forcing within the cap
//! (40x40) gets no search at all: there the proof, not the placement, is
//! what takes the time, and even the optimum as a start does not shorten
//! it (docs/horse.md, "The benchmark").

use crate::flow::Network;
use crate::map::Map;
use crate::region::{enclose_with, walls_that_matter};

/// A placement of at most K walls that traps the horse, with its score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The walls (sorted tile indexes), each touching the region.
    pub walls: Vec<usize>,
    /// The flood fill's score of those walls.
    pub score: i64,
}

/// What [`search`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Search {
    /// The best placement found, if any.
    pub best: Option<Placement>,
    /// The candidates that may still be in a region scoring more than
    /// `best` (all of `best`'s region among them): a tile dropped here is in
    /// no region of at most K walls that beats it, by a Lagrangian bound.
    pub keep: Vec<bool>,
}

/// Tile values are scaled by this much, so that prices between whole
/// values can be tried.
const SCALE: i64 = 64;

/// Prices tried, in quarters of the smallest price whose closure fits the
/// budget (and at least one point).
const PRICES: [i64; 6] = [4, 5, 6, 3, 8, 2];

/// The price at which a placement is grown, in quarters of the fitting
/// price: 64 times it, so that the fewest walls come first.
const GROWING_PRICE: i64 = 256;

/// How far from a wall, in steps, a placement's region is let go when it
/// is loosened there.
const LOOSENING_RADIUS: usize = 6;

/// How many loosened placements (those that save the most walls) are grown.
const LOOSENED_GROWN: usize = 8;

/// A cap on the search's work, in network nodes over all the closures it
/// finds by forcing a tile (deterministic, unlike a time limit): about
/// 0.2 s here on a 20x20 map of the benchmark. A map where one round of
/// forcing (each tile in and out at one price) would take over a quarter
/// of it is not searched.
const WORK: usize = 4_000_000;

/// Searches placements with region tiles among the `candidate` tiles
/// (reachable, off the edge; [`crate::mincut::enclosable`]) and drops the
/// candidates that no better placement holds.
pub fn search(map: &Map, candidate: &[bool]) -> Search {
    search_from(map, candidate, None)
}

/// [`search`], starting from the placement `best` (if any).
pub fn search_from(map: &Map, candidate: &[bool], mut best: Option<Placement>) -> Search {
    let mut keep = candidate.to_vec();
    if map.is_edge(map.horse()) || !candidate[map.horse()] {
        return Search { best, keep };
    }
    if !within_cap(map, candidate) {
        // Too big for a round of forcing within the cap (a 40x40 map): no
        // search (a weak start only changes HiGHS's path, and not for the
        // better on the benchmark's slow 40x40 maps).
        return Search { best, keep };
    }
    let budget = map.walls();
    let mut closure = Closure::new(map, candidate);
    let tiles: Vec<usize> = (0..map.len()).filter(|&t| candidate[t] && t != map.horse()).collect();
    let Some(price) = fitting_price(&mut closure, &mut best) else { return Search { best, keep } };
    let mut work = 0;
    trim(&mut closure, price, &mut best, &mut work);
    grow(&mut closure, price, best.clone(), &mut best, &mut work);
    for start in loosen(&mut closure, price, &mut best, &mut work) {
        grow(&mut closure, price, Some(start), &mut best, &mut work);
    }
    let mut in_best = region_of(map, &best);
    for factor in PRICES {
        if work > WORK {
            break;
        }
        let price = (price * factor / 4).max(SCALE);
        closure.build(price);
        let start = closure.net.capacity.clone();
        for &t in &tiles {
            if !keep[t] || work > WORK {
                continue;
            }
            work += 2 * closure.net.nodes();
            closure.net.capacity.copy_from_slice(&start);
            // The most any region holding t scores (scaled), or None when
            // no closure holds it.
            let bound = closure.force_in(t).map(|value| value + price * budget as i64);
            let target = best.as_ref().map_or(i64::MIN, |b| SCALE * (b.score + 1));
            if bound.is_none_or(|b| b < target) {
                if !in_best[t] {
                    keep[t] = false;
                }
                continue;
            }
            let score = best.as_ref().map(|b| b.score);
            if let Some(found) = closure.finish(&mut best) {
                consider(map, &mut best, found);
            }
            // And with t forced out: the closure's next best shape.
            closure.net.capacity.copy_from_slice(&start);
            closure.net.capacity[closure.force_out[t]] = closure.infinite;
            closure.net.max_flow(closure.source, closure.sink, closure.infinite);
            if let Some(found) = closure.finish(&mut best) {
                consider(map, &mut best, found);
            }
            if best.as_ref().map(|b| b.score) != score {
                in_best = region_of(map, &best);
            }
        }
    }
    Search { best, keep }
}

/// Whether [`search`] runs on `map` with these candidates: one round of
/// forcing (each candidate in and out, at one price) within a quarter of
/// the work cap. The benchmark's 20x20 maps are; of its 40x40 and 60x60
/// maps only those whose horse reaches a handful of candidates.
pub fn within_cap(map: &Map, candidate: &[bool]) -> bool {
    let tiles = (0..map.len()).filter(|&t| candidate[t] && t != map.horse()).count();
    4 * 2 * tiles * Closure::new(map, candidate).net.nodes() <= WORK
}

/// Greedy trimming from the closures over the budget (at prices below
/// `price`): force out, one at a time, the tile that saves walls at the
/// least loss of score per wall, until the closure fits.
fn trim(closure: &mut Closure, price: i64, best: &mut Option<Placement>, work: &mut usize) {
    let map = closure.map;
    for factor in [1, 2, 3] {
        closure.build((price * factor / 4).max(SCALE));
        let Some(mut current) = closure.finish(best) else { continue };
        while current.walls.len() > map.walls() && *work <= WORK {
            let start = closure.net.capacity.clone();
            let region = enclose_with(map, &current.walls).region;
            let mut step: Option<(f64, usize)> = None;
            for &t in region.iter().filter(|&&t| t != map.horse()) {
                *work += closure.net.nodes();
                closure.net.capacity.copy_from_slice(&start);
                closure.net.capacity[closure.force_out[t]] = closure.infinite;
                closure.net.max_flow(closure.source, closure.sink, closure.infinite);
                let Some(found) = closure.finish(best) else { continue };
                if found.walls.len() >= current.walls.len() {
                    continue;
                }
                let saved = (current.walls.len() - found.walls.len()) as f64;
                let loss = (current.score - found.score) as f64 / saved;
                consider(map, best, found);
                if step.is_none_or(|(l, _)| loss < l) {
                    step = Some((loss, t));
                }
            }
            closure.net.capacity.copy_from_slice(&start);
            let Some((_, t)) = step else { break };
            closure.net.capacity[closure.force_out[t]] = closure.infinite;
            closure.net.max_flow(closure.source, closure.sink, closure.infinite);
            match closure.finish(best) {
                Some(found) => current = found,
                None => break,
            }
        }
    }
}

/// Grows the placement `start` through its walls (the module doc): its
/// region and one of its walls forced in, at [`GROWING_PRICE`]; from the
/// best grown placement, again, until a round grows none better. Every
/// placement found is offered to `best`.
fn grow(
    closure: &mut Closure,
    price: i64,
    mut start: Option<Placement>,
    best: &mut Option<Placement>,
    work: &mut usize,
) {
    let map = closure.map;
    // Past the work cap a round would build its network and grow nothing.
    while let Some(current) = start.take().filter(|_| *work <= WORK) {
        let region = enclose_with(map, &current.walls).region;
        force_in_at_growing_price(closure, price, &region);
        let capacity = closure.net.capacity.clone();
        for &w in &current.walls {
            if closure.r[w] == usize::MAX || *work > WORK {
                continue;
            }
            *work += closure.net.nodes();
            closure.net.capacity.copy_from_slice(&capacity);
            if closure.force_in(w).is_none() {
                continue;
            }
            let Some(found) = closure.finish(best) else { continue };
            let better = found.walls.len() <= map.walls() && found.score > start.as_ref().unwrap_or(&current).score;
            if better {
                start = Some(found.clone());
            }
            consider(map, best, found);
        }
    }
}

/// Loosens the best placement at each of its walls (the module doc):
/// offers each placement found to `best`, and returns the
/// [`LOOSENED_GROWN`] that save the most walls (then score the most).
fn loosen(closure: &mut Closure, price: i64, best: &mut Option<Placement>, work: &mut usize) -> Vec<Placement> {
    let map = closure.map;
    let Some(current) = best.clone() else { return Vec::new() };
    let region = enclose_with(map, &current.walls).region;
    let mut loosened = Vec::new();
    for &w in &current.walls {
        if *work > WORK {
            break;
        }
        *work += closure.net.nodes();
        let near = within(map, w, LOOSENING_RADIUS);
        let kept: Vec<usize> = region.iter().copied().filter(|&t| !near[t]).collect();
        force_in_at_growing_price(closure, price, &kept);
        let Some(found) = closure.finish(best) else { continue };
        if found.walls.len() < current.walls.len() {
            loosened.push(found.clone());
        }
        consider(map, best, found);
    }
    loosened.sort_by_key(|p| (p.walls.len(), std::cmp::Reverse(p.score)));
    loosened.truncate(LOOSENED_GROWN);
    loosened
}

/// Builds the network at [`GROWING_PRICE`] with the `tiles` forced in,
/// and finds its max flow.
fn force_in_at_growing_price(closure: &mut Closure, price: i64, tiles: &[usize]) {
    closure.build(price * GROWING_PRICE / 4);
    // Region tiles are candidates (a region of at most K walls is
    // enclosable); the check only keeps a bad given placement harmless.
    for &t in tiles.iter().filter(|&&t| closure.r[t] != usize::MAX) {
        closure.net.capacity[closure.force_in[t]] = closure.infinite;
    }
    closure.net.max_flow(closure.source, closure.sink, closure.infinite);
}

/// The tiles at most `radius` steps from `from` (through passable tiles
/// and portals).
fn within(map: &Map, from: usize, radius: usize) -> Vec<bool> {
    let mut steps = vec![usize::MAX; map.len()];
    steps[from] = 0;
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(u) = queue.pop_front() {
        if steps[u] == radius {
            continue;
        }
        for &v in map.neighbours(u) {
            if steps[v] == usize::MAX && map.tile(v).is_passable() {
                steps[v] = steps[u] + 1;
                queue.push_back(v);
            }
        }
    }
    steps.iter().map(|&s| s != usize::MAX).collect()
}

/// The tiles of the placement's region.
fn region_of(map: &Map, placement: &Option<Placement>) -> Vec<bool> {
    let mut inside = vec![false; map.len()];
    for t in placement.iter().flat_map(|p| enclose_with(map, &p.walls).region) {
        inside[t] = true;
    }
    inside
}

/// The smallest price (by bisection) whose closure has at most K walls,
/// offering each closure that fits to `best`; `None` when even the
/// highest price's closure has more.
fn fitting_price(closure: &mut Closure, best: &mut Option<Placement>) -> Option<i64> {
    let map = closure.map;
    let total: i64 = (0..map.len()).filter(|&t| closure.r[t] != usize::MAX).map(|t| map.tile(t).value().abs()).sum();
    let (mut lo, mut hi) = (0i64, SCALE * (total + 1));
    closure.build(hi);
    let fewest = closure.finish(best)?;
    if fewest.walls.len() > map.walls() {
        return None;
    }
    consider(map, best, fewest);
    // To a 32nd of the price: the prices tried are multiples of it anyway.
    while hi - lo > (hi / 32).max(1) {
        let mid = (lo + hi) / 2;
        closure.build(mid);
        match closure.finish(best) {
            Some(found) if found.walls.len() <= map.walls() => {
                hi = mid;
                consider(map, best, found);
            }
            _ => lo = mid,
        }
    }
    Some(hi)
}

/// Keeps `placement` if it fits the budget and beats `best`; says whether it did.
fn consider(map: &Map, best: &mut Option<Placement>, placement: Placement) -> bool {
    let better = placement.walls.len() <= map.walls() && best.as_ref().is_none_or(|b| placement.score > b.score);
    if better {
        *best = Some(placement);
    }
    better
}

/// The closure network of the module doc.
struct Closure<'a> {
    map: &'a Map,
    /// Node of `R_t` on candidate tiles (usize::MAX elsewhere).
    r: Vec<usize>,
    /// Node of `X_t` on grass tiles beside a candidate (`R_t`'s own
    /// node stands for `X_t` on other tiles).
    x: Vec<usize>,
    source: usize,
    sink: usize,
    net: Network,
    /// More than any cut that avoids the forcing arcs.
    infinite: i64,
    /// The sum of the positive weights, and the flow so far.
    positive: i64,
    flow: i64,
    /// The arcs source -> R_t that [`Closure::force_in`] opens, and
    /// R_t -> sink that [`Closure::finish`] opens on pockets.
    force_in: Vec<usize>,
    force_out: Vec<usize>,
}

impl<'a> Closure<'a> {
    fn new(map: &'a Map, candidate: &[bool]) -> Closure<'a> {
        let mut r = vec![usize::MAX; map.len()];
        let mut x = vec![usize::MAX; map.len()];
        let mut nodes = 0;
        for t in 0..map.len() {
            if candidate[t] {
                r[t] = nodes;
                nodes += 1;
            }
        }
        for t in 0..map.len() {
            let beside = candidate[t] || map.neighbours(t).iter().any(|&u| candidate[u]);
            if map.tile(t).is_wallable() && beside {
                x[t] = nodes;
                nodes += 1;
            }
        }
        let (source, sink) = (nodes, nodes + 1);
        Closure {
            map,
            r,
            x,
            source,
            sink,
            net: Network::new(nodes + 2),
            infinite: 0,
            positive: 0,
            flow: 0,
            force_in: vec![usize::MAX; map.len()],
            force_out: vec![usize::MAX; map.len()],
        }
    }

    /// Builds the network for `price` (per wall, in 1/SCALE points) and
    /// finds its max flow, with the forcing arcs closed.
    fn build(&mut self, price: i64) {
        let map = self.map;
        let mut net = Network::new(self.sink + 1);
        let weight = |t: usize| SCALE * map.tile(t).value() + if map.tile(t).is_wallable() { price } else { 0 };
        let positive: i64 = (0..map.len()).filter(|&t| self.r[t] != usize::MAX).map(|t| weight(t).max(0)).sum();
        let infinite = 2 * positive + 1;
        for t in 0..map.len() {
            if self.r[t] != usize::MAX {
                let (node, w) = (self.r[t], weight(t));
                if w > 0 {
                    net.add_arc(self.source, node, w);
                } else if w < 0 {
                    net.add_arc(node, self.sink, -w);
                }
                if t == map.horse() {
                    net.add_arc(self.source, node, infinite);
                }
                if self.x[t] != usize::MAX {
                    net.add_arc(node, self.x[t], infinite);
                }
                for &v in map.neighbours(t) {
                    let needed = if self.x[v] != usize::MAX { self.x[v] } else { self.r[v] };
                    net.add_arc(node, if needed == usize::MAX { self.sink } else { needed }, infinite);
                }
            }
            if self.x[t] != usize::MAX {
                net.add_arc(self.x[t], self.sink, price);
            }
        }
        for t in 0..map.len() {
            if self.r[t] != usize::MAX {
                self.force_in[t] = net.add_arc(self.source, self.r[t], 0);
                self.force_out[t] = net.add_arc(self.r[t], self.sink, 0);
            }
        }
        self.flow = net.max_flow(self.source, self.sink, infinite);
        self.net = net;
        self.infinite = infinite;
        self.positive = positive;
    }

    /// Forces the tile `t` in and augments (on the network just built):
    /// the best closure's weight with `t` in it (scaled value less the
    /// walls' price), or `None` when no closure holds it.
    fn force_in(&mut self, t: usize) -> Option<i64> {
        self.net.capacity[self.force_in[t]] = self.infinite;
        let more = self.net.max_flow(self.source, self.sink, self.infinite);
        (more < self.infinite).then(|| self.positive - self.flow - more)
    }

    /// The closure as a placement. Pockets (closure tiles the horse does
    /// not reach) cost walls and score nothing, so their tiles are forced
    /// out and the flow augmented again until none is left (the placements
    /// on the way are offered to `best`). `None` when the horse is not in
    /// the closure.
    fn finish(&mut self, best: &mut Option<Placement>) -> Option<Placement> {
        let map = self.map;
        loop {
            let side = self.net.reach(self.source);
            let in_r = |t: usize| self.r[t] != usize::MAX && side[self.r[t]];
            let walls: Vec<usize> =
                (0..map.len()).filter(|&t| self.x[t] != usize::MAX && side[self.x[t]] && !in_r(t)).collect();
            let enclosure = enclose_with(map, &walls);
            if !enclosure.trapped {
                return None;
            }
            let mut reached = vec![false; map.len()];
            for &t in &enclosure.region {
                reached[t] = true;
            }
            let pockets: Vec<usize> = (0..map.len()).filter(|&t| in_r(t) && !reached[t]).collect();
            let placement =
                Placement { walls: walls_that_matter(map, &walls, &enclosure.region), score: enclosure.score };
            if pockets.is_empty() {
                return Some(placement);
            }
            // The walls around the horse may fit the budget already.
            consider(map, best, placement);
            for t in pockets {
                self.net.capacity[self.force_out[t]] = self.infinite;
            }
            if self.net.max_flow(self.source, self.sink, self.infinite) >= self.infinite {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{random_map, Mix};

    /// The search runs on every 20x20 map of the benchmark and on one of
    /// its 40x40 maps, map 12, whose horse can reach only 5 candidate tiles
    /// (the solver keeps strong branching where the search runs).
    #[test]
    fn the_search_runs_on_the_benchmarks_20x20_maps() {
        for (size, searched) in [(20, vec![true; 20]), (40, (0..20).map(|m| m == 12).collect())] {
            let got: Vec<bool> = (0..20)
                .map(|m| {
                    let map = crate::generate::benchmark_map(size, 1, m);
                    let candidate = crate::mincut::enclosable(&map, map.walls());
                    if size == 40 && m == 12 {
                        assert_eq!(candidate.iter().filter(|&&c| c).count(), 5);
                    }
                    within_cap(&map, &candidate)
                })
                .collect();
            assert_eq!(got, searched, "{size}x{size}");
        }
    }

    /// On small random maps the placement is legal, its score is its flood
    /// fill's, and it never beats the brute force's optimum; every tile
    /// dropped from the candidates is in no region of at most K walls that
    /// scores more than it (brute force over wall sets).
    #[test]
    fn placements_are_legal_and_the_dropped_tiles_never_pay() {
        let (mut found, mut optimal, mut dropped) = (0, 0, 0);
        for seed in 0..120u64 {
            let size = 5 + (seed % 3) as usize;
            let k = 1 + (seed % 5) as usize;
            let map = random_map(size, size + 1, k, Mix::BENCHMARK, seed);
            let grass: Vec<usize> = (0..map.len()).filter(|&t| map.tile(t).is_wallable()).collect();
            if crate::brute::reachable_grass(&map) > 16 {
                continue;
            }
            let candidate = crate::mincut::enclosable(&map, k);
            let search = search(&map, &candidate);
            assert!((0..map.len()).all(|t| !search.keep[t] || candidate[t]));
            let best = crate::brute::best(&map).map(|(score, _)| score);
            let Some(p) = search.best else {
                assert!(best.is_none(), "seed {seed}: no placement found, the brute force traps the horse");
                continue;
            };
            found += 1;
            assert!(p.walls.len() <= k);
            assert!(p.walls.iter().all(|&w| map.tile(w).is_wallable()));
            let e = enclose_with(&map, &p.walls);
            assert!(e.trapped);
            assert_eq!(e.score, p.score);
            assert!(e.region.iter().all(|&t| search.keep[t]));
            let best = best.expect("the brute force traps the horse too");
            assert!(p.score <= best, "seed {seed}: {} beats the optimum {best}", p.score);
            optimal += (p.score == best) as usize;
            // Every region that beats the placement keeps all its tiles.
            let reachable: Vec<usize> = grass.into_iter().filter(|&t| map.reachable().contains(&t)).collect();
            for mask in 0u32..1 << reachable.len() {
                if mask.count_ones() as usize > k {
                    continue;
                }
                let walls: Vec<usize> =
                    (0..reachable.len()).filter(|b| mask >> b & 1 != 0).map(|b| reachable[b]).collect();
                let e = enclose_with(&map, &walls);
                if e.trapped && e.score > p.score {
                    assert!(e.region.iter().all(|&t| search.keep[t]), "seed {seed}: a better region lost a tile");
                }
            }
            dropped += (0..map.len()).filter(|&t| candidate[t] && !search.keep[t]).count();
        }
        assert!(found > 10 && optimal * 2 > found, "{optimal} optimal of {found}");
        assert!(dropped > 0, "no candidate dropped");
    }

    /// The benchmark's 20x20 map 6 (`bench --seed 1`), where the closures
    /// jump from 7 walls to over its 14: growing the placement through its
    /// walls finds 88 instead of 36 (the optimum, by the integer program,
    /// is 89).
    #[test]
    fn growing_reaches_the_regions_between_the_closures() {
        assert_eq!(searched_score(14, 1_020_009), 88);
    }

    /// The score the search finds on a 20x20 map of the benchmark's
    /// generator, checked by flood fill and against the budget.
    fn searched_score(walls: usize, seed: u64) -> i64 {
        let map = random_map(20, 20, walls, Mix::BENCHMARK, seed);
        let candidate = crate::mincut::enclosable(&map, walls);
        let best = search(&map, &candidate).best.expect("a placement");
        assert!(best.walls.len() <= walls);
        assert_eq!(enclose_with(&map, &best.walls).score, best.score);
        best.score
    }

    /// Map 7 of `bench --seed 2`: the search's region holds a lobe that
    /// four walls close; the optimum (147, by the integer program) closes
    /// less of it with three and spends the fourth elsewhere. Growing alone
    /// stays at 142; loosened and grown, the search finds 147.
    #[test]
    fn loosening_trades_one_part_of_the_region_for_another() {
        assert_eq!(searched_score(15, 2_020_013), 147);
    }
}
