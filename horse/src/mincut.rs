//! The fewest walls that trap the horse: a minimum vertex cut between the
//! horse and the grid's edge, by max flow with node splitting.
//!
//! Each reachable tile `t` becomes two nodes, `t_in -> t_out`, with capacity
//! 1 on plain grass (one wall cuts it) and "infinite" elsewhere (no wall may
//! go there); every step `u -> v` is an arc `u_out -> v_in` of infinite
//! capacity, and every edge tile has an arc `t_out -> sink`. The source is
//! the horse's `out` node. A finite max flow is the fewest walls (Menger);
//! the cut is the grass tiles whose `in` node the residual graph reaches
//! from the source and whose `out` node it does not.

use crate::flow::Network;
use crate::map::Map;

/// The fewest walls that trap the horse (sorted tile indexes), or `None`
/// when no number of walls does (a path to the edge over tiles that take no
/// wall, or the horse on the edge). The walls budget is ignored.
pub fn min_walls(map: &Map) -> Option<Vec<usize>> {
    let reachable = map.reachable();
    let SplitGraph { mut net, node, sink, infinite } = split_graph(map, &reachable, 0);
    let source = 2 * node[map.horse()] + 1;
    let flow = net.max_flow(source, sink, infinite);
    if flow >= infinite {
        return None;
    }
    let seen = net.reach(source);
    let cut: Vec<usize> =
        reachable.iter().enumerate().filter(|&(k, _)| seen[2 * k] && !seen[2 * k + 1]).map(|(_, &t)| t).collect();
    debug_assert_eq!(cut.len(), flow as usize);
    Some(cut)
}

/// Which tiles may be in the horse's region with at most `budget` walls:
/// `true` for a reachable tile off the edge when the fewest walls that
/// separate it and the horse together from the edge are at most `budget`
/// (a minimum vertex cut, as in [`min_walls`], from a source joined to
/// both). Any region of at most `budget` walls holds only such tiles, so
/// the integer program needs no region variable elsewhere. The converse
/// does not hold: walls that seal the tile and the horse apart, in two
/// pockets, count too. All `false` when the horse cannot be trapped at all.
///
/// The flow from the horse alone is found once; each tile then adds its
/// own source arc and augments from there (the flow only grows), on a copy
/// of that residual graph.
pub fn enclosable(map: &Map, budget: usize) -> Vec<bool> {
    let mut out = vec![false; map.len()];
    if map.is_edge(map.horse()) {
        return out;
    }
    let reachable = map.reachable();
    let n = reachable.len();
    let SplitGraph { mut net, node, sink, infinite } = split_graph(map, &reachable, 1);
    let source = sink + 1;
    let stop = budget as i64 + 1;
    net.add_arc(source, 2 * node[map.horse()] + 1, infinite);
    // Each tile's own source arc, closed (capacity 0) until its turn.
    let own: Vec<usize> = (0..n).map(|k| net.add_arc(source, 2 * k + 1, 0)).collect();
    let base_flow = net.max_flow(source, sink, stop);
    if base_flow >= stop {
        return out;
    }
    out[map.horse()] = true;
    let base = net.capacity.clone();
    for (k, &t) in reachable.iter().enumerate() {
        if map.is_edge(t) || t == map.horse() {
            continue;
        }
        net.capacity.copy_from_slice(&base);
        net.capacity[own[k]] = infinite;
        out[t] = base_flow + net.max_flow(source, sink, stop - base_flow) < stop;
    }
    out
}

/// The node-split graph of the module doc over the `reachable` tiles.
struct SplitGraph {
    /// Tile `t`'s nodes are `2 node[t]` (in) and `2 node[t] + 1` (out).
    net: Network,
    node: Vec<usize>,
    /// The sink, after the tiles' nodes; `extra` more nodes follow it.
    sink: usize,
    /// "Infinite": more than every wall there could be.
    infinite: i64,
}

fn split_graph(map: &Map, reachable: &[usize], extra: usize) -> SplitGraph {
    let mut node = vec![usize::MAX; map.len()];
    for (k, &t) in reachable.iter().enumerate() {
        node[t] = k;
    }
    let n = reachable.len();
    let sink = 2 * n;
    let infinite = n as i64 + 1;
    let mut net = Network::new(2 * n + 1 + extra);
    for (k, &t) in reachable.iter().enumerate() {
        net.add_arc(2 * k, 2 * k + 1, if map.tile(t).is_wallable() { 1 } else { infinite });
        for &v in map.neighbours(t) {
            net.add_arc(2 * k + 1, 2 * node[v], infinite);
        }
        if map.is_edge(t) {
            net.add_arc(2 * k + 1, sink, infinite);
        }
    }
    SplitGraph { net, node, sink, infinite }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::region::enclose_with;

    #[test]
    fn a_corridor_needs_one_wall_and_an_open_field_four() {
        let corridor = Map::parse("walls 0\n~~~~~\n~H..~\n~~~.~\n").unwrap();
        assert_eq!(min_walls(&corridor), Some(vec![7]));
        let field = Map::parse("walls 0\n.....\n.....\n..H..\n.....\n.....\n").unwrap();
        let walls = min_walls(&field).unwrap();
        assert_eq!(walls, vec![7, 11, 13, 17]);
        assert!(enclose_with(&field, &walls).trapped);
    }

    /// `enclosable` keeps every tile that some wall set of at most k walls
    /// traps with the horse (by brute force over wall sets, on random small
    /// maps), and rules tiles out on most maps.
    #[test]
    fn enclosable_keeps_every_tile_some_wall_set_encloses() {
        use crate::generate::{random_map, Mix};
        let mut checked = [0usize; 2];
        for seed in 0..60u64 {
            let size = 4 + (seed % 3) as usize;
            let k = 1 + (seed % 4) as usize;
            let map = random_map(size, size + 1, k, Mix::BENCHMARK, seed);
            let grass: Vec<usize> = (0..map.len()).filter(|&t| map.tile(t).is_wallable()).collect();
            if grass.len() > 16 {
                continue;
            }
            let mut want = vec![false; map.len()];
            for mask in 0u32..1 << grass.len() {
                if mask.count_ones() as usize > k {
                    continue;
                }
                let walls: Vec<usize> = (0..grass.len()).filter(|b| mask >> b & 1 != 0).map(|b| grass[b]).collect();
                let e = enclose_with(&map, &walls);
                if e.trapped {
                    for &t in &e.region {
                        want[t] = true;
                    }
                }
            }
            let got = enclosable(&map, k);
            for t in 0..map.len() {
                assert!(!want[t] || got[t], "seed {seed}: tile {t} is enclosed by some walls\n{map}");
            }
            let reachable_inside = map.reachable().into_iter().filter(|&t| !map.is_edge(t)).count();
            checked[(got.iter().filter(|&&g| g).count() < reachable_inside) as usize] += 1;
        }
        assert!(checked[1] > 10, "tiles ruled out on {} of {} maps", checked[1], checked[0] + checked[1]);
    }

    #[test]
    fn no_wall_stops_a_cherry_path_or_a_horse_on_the_edge() {
        let cherries = Map::parse("walls 5\n~~~~\n~HCC\n~~~~\n").unwrap();
        assert_eq!(min_walls(&cherries), None);
        let edge = Map::parse("walls 5\n.H.\n...\n").unwrap();
        assert_eq!(min_walls(&edge), None);
        let sealed = Map::parse("walls 0\n~~~\n~H~\n~~~\n").unwrap();
        assert_eq!(min_walls(&sealed), Some(vec![]));
    }

    #[test]
    fn a_portal_to_the_edge_must_be_cut_on_its_far_side() {
        // The horse's pocket is sealed but for portal 1, whose twin is on the
        // edge: no wall can go on a portal, so nothing traps the horse.
        let open = Map::parse("walls 0\n~~~~~\n~H1~~\n~~~~1\n").unwrap();
        assert_eq!(min_walls(&open), None);
        // The twin opens to the edge through two grass tiles: one wall, the
        // one nearer the horse.
        let pocket = Map::parse("walls 0\n~~~~~~\n~H1~~~\n~~~~~~\n~~1.~~\n~~~.~~\n").unwrap();
        assert_eq!(min_walls(&pocket), Some(vec![3 * 6 + 3]));
    }
}
