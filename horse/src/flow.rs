//! Maximum flow and the minimum cut it finds: the one network type behind
//! the fewest walls ([`crate::mincut`]) and the closures of the heuristic
//! ([`crate::heuristic`]).
//!
//! It is Dinic's algorithm: a breadth-first search layers the residual
//! graph, then depth-first pushes fill that layer graph before the next
//! search. It was the faster of the crate's two implementations (the other
//! was Edmonds-Karp, one breadth-first search per augmenting path), and the
//! heuristic solves thousands of these networks per map.
//!
//! Capacities are `i64`. There is no special "infinite": a caller picks a
//! capacity larger than any cut it cares about (more than every wall, or
//! twice the closure's positive weight) and reads a flow that reaches it as
//! "no finite cut". The `stop` of [`Network::max_flow`] is that reading made
//! cheap: augmenting stops once the flow reaches `stop`, because past it the
//! exact value is moot; below it the flow is the exact maximum. A later call
//! augments from the residual graph left behind, so a caller may open arcs
//! (raise capacities) and add only the extra flow.
//!
//! After a max flow, [`Network::reach`] gives the source side of the
//! minimum cut nearest the source: the same set whichever maximum flow was
//! found, so the cut read from it does not depend on the algorithm.

use std::collections::VecDeque;

/// A directed graph with integer capacities, for Dinic's max flow.
#[derive(Clone)]
pub(crate) struct Network {
    /// Arcs out of each node, as indexes into `to` / `capacity`.
    out: Vec<Vec<usize>>,
    to: Vec<usize>,
    /// Residual capacity; arc `a ^ 1` is the reverse of arc `a`. Callers
    /// save and restore it to rerun from one residual graph, and raise an
    /// arc's capacity to open it.
    pub(crate) capacity: Vec<i64>,
}

impl Network {
    pub(crate) fn new(nodes: usize) -> Network {
        Network { out: vec![Vec::new(); nodes], to: Vec::new(), capacity: Vec::new() }
    }

    /// The number of nodes.
    pub(crate) fn nodes(&self) -> usize {
        self.out.len()
    }

    /// Adds the arc and its reverse; returns the arc's index (into
    /// `capacity`), so that the caller can open or close it later.
    pub(crate) fn add_arc(&mut self, from: usize, to: usize, capacity: i64) -> usize {
        let a = self.to.len();
        self.out[from].push(a);
        self.to.push(to);
        self.capacity.push(capacity);
        self.out[to].push(a + 1);
        self.to.push(from);
        self.capacity.push(0);
        a
    }

    /// Augments until no path is left or the flow reaches `stop` (see the
    /// module doc); returns the flow added, at most `stop`.
    pub(crate) fn max_flow(&mut self, source: usize, sink: usize, stop: i64) -> i64 {
        let n = self.out.len();
        let mut flow = 0;
        let mut level = vec![u32::MAX; n];
        let mut next = vec![0usize; n];
        while flow < stop {
            level.fill(u32::MAX);
            level[source] = 0;
            let mut queue = VecDeque::from([source]);
            while let Some(u) = queue.pop_front() {
                for &a in &self.out[u] {
                    let v = self.to[a];
                    if self.capacity[a] > 0 && level[v] == u32::MAX {
                        level[v] = level[u] + 1;
                        queue.push_back(v);
                    }
                }
            }
            if level[sink] == u32::MAX {
                break;
            }
            next.fill(0);
            loop {
                let pushed = self.push(source, sink, stop - flow, &level, &mut next);
                if pushed == 0 {
                    break;
                }
                flow += pushed;
                if flow >= stop {
                    break;
                }
            }
        }
        flow
    }

    /// Pushes up to `limit` along one path of the layer graph from `u`;
    /// `next[u]` skips the arcs already found dead in this phase.
    fn push(&mut self, u: usize, sink: usize, limit: i64, level: &[u32], next: &mut [usize]) -> i64 {
        if u == sink {
            return limit;
        }
        while next[u] < self.out[u].len() {
            let a = self.out[u][next[u]];
            let v = self.to[a];
            if self.capacity[a] > 0 && level[v] == level[u] + 1 {
                let pushed = self.push(v, sink, limit.min(self.capacity[a]), level, next);
                if pushed > 0 {
                    self.capacity[a] -= pushed;
                    self.capacity[a ^ 1] += pushed;
                    return pushed;
                }
            }
            next[u] += 1;
        }
        0
    }

    /// The nodes the residual graph reaches from `source`: after a max
    /// flow, the source side of the minimum cut nearest the source.
    pub(crate) fn reach(&self, source: usize) -> Vec<bool> {
        let mut seen = vec![false; self.out.len()];
        seen[source] = true;
        let mut stack = vec![source];
        while let Some(u) = stack.pop() {
            for &a in &self.out[u] {
                let v = self.to[a];
                if self.capacity[a] > 0 && !seen[v] {
                    seen[v] = true;
                    stack.push(v);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook network (CLRS, figure 26.1), nodes s, v1, v2, v3, v4, t
    /// as 0 to 5, with its arcs' indexes.
    fn textbook() -> (Network, [usize; 9]) {
        let mut net = Network::new(6);
        let (s, v1, v2, v3, v4, t) = (0, 1, 2, 3, 4, 5);
        let arcs = [
            net.add_arc(s, v1, 16),
            net.add_arc(s, v2, 13),
            net.add_arc(v2, v1, 4),
            net.add_arc(v1, v3, 12),
            net.add_arc(v3, v2, 9),
            net.add_arc(v2, v4, 14),
            net.add_arc(v4, v3, 7),
            net.add_arc(v3, t, 20),
            net.add_arc(v4, t, 4),
        ];
        (net, arcs)
    }

    /// Max flow 23; the minimum cut nearest the source is {s, v1, v2, v4},
    /// of the arcs v1 -> v3 (12), v4 -> v3 (7) and v4 -> t (4).
    #[test]
    fn the_textbook_network_has_flow_23_and_its_known_cut() {
        let (mut net, _) = textbook();
        assert_eq!(net.nodes(), 6);
        assert_eq!(net.max_flow(0, 5, i64::MAX), 23);
        assert_eq!(net.reach(0), [true, true, true, false, true, false]);
        // Nothing is left to augment.
        assert_eq!(net.max_flow(0, 5, i64::MAX), 0);
    }

    #[test]
    fn the_flow_stops_at_stop_and_resumes_after_an_arc_is_opened() {
        let (mut net, arcs) = textbook();
        assert_eq!(net.max_flow(0, 5, 10), 10);
        assert_eq!(net.max_flow(0, 5, i64::MAX), 13);
        // Raising v4 -> t from 4 to 8 moves the cut to {s, v1}, of the arcs
        // s -> v2 (13) and v1 -> v3 (12): 2 more, 25 in all.
        net.capacity[arcs[8]] += 4;
        assert_eq!(net.max_flow(0, 5, i64::MAX), 2);
        assert_eq!(net.reach(0), [true, true, false, false, false, false]);
    }
}
