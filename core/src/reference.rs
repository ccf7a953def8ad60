//! The reference solver: a deliberately simple oracle for small variants.
//!
//! It finds every position reachable from a start by playing moves forward,
//! stores the explicit move graph, and then repeats one sweep until nothing
//! changes: a position with a child that is lost for the opponent is won, a
//! position whose children are all won for the opponent (or that is over) is
//! lost. Whatever is left is a draw. It shares the rules with the tiered
//! solver and nothing else: no tiers, no ranking, no un-moves.
//!
//! [`ReferenceSolution::solve_with_plies`] also gives every won or lost
//! position its distance to the end in plies, the value of a minimax search
//! in which the winner ends the game as fast as it can and the loser delays
//! it as long as it can: 0 for a position that is over, 1 + the smallest
//! distance among the children lost for the opponent for a win, 1 + the
//! largest distance among the children for a loss. Its sweeps are
//! synchronous (each reads only what the sweeps before it decided), so a
//! position is decided by sweep `d` exactly when its distance is `d`.
//!
//! ```
//! use foxbase_core::{notation::parse_position, reference::ReferenceSolution, Variant, Value};
//! // One sheep on d4 must reach the pen (K = 1) before the fox on d7 eats it.
//! let start = parse_position(".F./.../......./...S.../......./.../... s").unwrap();
//! let v = Variant::new(Default::default(), 1, start).unwrap();
//! let sol = ReferenceSolution::solve(&v, 1_000_000).unwrap();
//! assert_eq!(sol.value(&v.start), Some(Value::Win)); // d4-d5 reaches the pen
//! let sol = ReferenceSolution::solve_with_plies(&v, 1_000_000).unwrap();
//! assert_eq!(sol.plies(&v.start), Some(1)); // in one ply
//! ```

use crate::error::TooManyPositions;
use crate::position::Position;
use crate::rules::{Rules, Status};
use crate::value::Value;
use crate::variant::Variant;
use std::collections::HashMap;

/// Values of every position reachable from a variant's start.
pub struct ReferenceSolution {
    pub variant: Variant,
    positions: Vec<Position>,
    index: HashMap<Position, u32>,
    values: Vec<Value>,
    /// Distances to the end in plies (`u32::MAX` for a draw), when solved
    /// with [`ReferenceSolution::solve_with_plies`].
    plies: Option<Vec<u32>>,
    /// Number of sweeps the fixed-point iteration needed.
    pub sweeps: u32,
}

/// The explicit move graph of everything reachable from a start.
struct Graph {
    positions: Vec<Position>,
    index: HashMap<Position, u32>,
    /// `children[edges_start[i]..edges_start[i + 1]]` are the children of position `i`.
    edges_start: Vec<usize>,
    children: Vec<u32>,
}

impl ReferenceSolution {
    /// Solves everything reachable from `variant.start`, refusing (with
    /// [`TooManyPositions`]) to explore more than `max_positions` positions.
    pub fn solve(variant: &Variant, max_positions: usize) -> Result<ReferenceSolution, TooManyPositions> {
        let rules = variant.rules();
        let g = explore(&rules, variant, max_positions)?;
        let (values, sweeps) = fixed_point(&rules, &g.positions, &g.edges_start, &g.children);
        Ok(ReferenceSolution { variant: *variant, positions: g.positions, index: g.index, values, plies: None, sweeps })
    }

    /// [`ReferenceSolution::solve`] with every position's distance to the
    /// end in plies (module docs). Slower: one synchronous sweep per ply.
    pub fn solve_with_plies(variant: &Variant, max_positions: usize) -> Result<ReferenceSolution, TooManyPositions> {
        let rules = variant.rules();
        let g = explore(&rules, variant, max_positions)?;
        let (values, plies, sweeps) = by_plies(&rules, &g.positions, &g.edges_start, &g.children);
        Ok(ReferenceSolution {
            variant: *variant,
            positions: g.positions,
            index: g.index,
            values,
            plies: Some(plies),
            sweeps,
        })
    }

    /// The distance to the end in plies of a won or lost position reachable
    /// from the start; `None` for a draw, an unreachable position, or a
    /// solution without distances.
    pub fn plies(&self, pos: &Position) -> Option<u32> {
        let i = *self.index.get(pos)? as usize;
        self.plies.as_ref().map(|p| p[i]).filter(|&d| d != u32::MAX)
    }

    /// The value for the side to move, if `pos` is reachable from the start.
    pub fn value(&self, pos: &Position) -> Option<Value> {
        self.index.get(pos).map(|&i| self.values[i as usize])
    }

    /// Every reachable position with its value, in discovery order.
    pub fn iter(&self) -> impl Iterator<Item = (Position, Value)> + '_ {
        self.positions.iter().copied().zip(self.values.iter().copied())
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    pub fn rules(&self) -> Rules {
        self.variant.rules()
    }
}

fn explore(rules: &Rules, variant: &Variant, max_positions: usize) -> Result<Graph, TooManyPositions> {
    let mut positions = vec![variant.start];
    let mut index = HashMap::new();
    index.insert(variant.start, 0u32);
    let mut edges_start = vec![0usize];
    let mut children: Vec<u32> = Vec::new();
    let mut next = 0;
    while next < positions.len() {
        let pos = positions[next];
        let mut overflow = false;
        rules.for_each_move(&pos, |m| {
            let child = rules.play(&pos, m);
            let id = *index.entry(child).or_insert_with(|| {
                positions.push(child);
                (positions.len() - 1) as u32
            });
            children.push(id);
            overflow |= positions.len() > max_positions;
        });
        if overflow {
            return Err(TooManyPositions { limit: max_positions });
        }
        edges_start.push(children.len());
        next += 1;
    }
    Ok(Graph { positions, index, edges_start, children })
}

/// Values and distances by synchronous sweeps: sweep `d` decides, from
/// what sweeps `0..d` decided, the positions at distance `d` (sweep 0: the
/// positions that are over). Returns the values, the distances (`u32::MAX`
/// for draws) and the number of sweeps.
fn by_plies(
    rules: &Rules,
    positions: &[Position],
    edges_start: &[usize],
    children: &[u32],
) -> (Vec<Value>, Vec<u32>, u32) {
    const UNDECIDED: u32 = u32::MAX;
    let over: Vec<Option<Value>> = positions.iter().map(|p| over_value(rules, p)).collect();
    let mut value: Vec<Value> = over.iter().map(|v| v.unwrap_or(Value::Draw)).collect();
    let mut plies: Vec<u32> = over.iter().map(|v| if v.is_some() { 0 } else { UNDECIDED }).collect();
    let mut sweep = 0;
    loop {
        sweep += 1;
        let mut changed = false;
        for i in 0..positions.len() {
            if plies[i] != UNDECIDED {
                continue;
            }
            // Only what earlier sweeps decided counts.
            let kids = &children[edges_start[i]..edges_start[i + 1]];
            let known = kids.iter().map(|&c| (plies[c as usize] < sweep).then_some(value[c as usize]));
            if let Some(v) = Value::decided_by(known) {
                value[i] = v;
                plies[i] = sweep;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (value, plies, sweep)
}

fn fixed_point(rules: &Rules, positions: &[Position], edges_start: &[usize], children: &[u32]) -> (Vec<Value>, u32) {
    // None: not yet known to be a win or a loss.
    let mut known: Vec<Option<Value>> = positions.iter().map(|p| over_value(rules, p)).collect();
    let mut sweeps = 0;
    loop {
        sweeps += 1;
        let mut changed = false;
        for i in 0..positions.len() {
            if known[i].is_some() {
                continue;
            }
            // Known values are only wins and losses here (draws are what is
            // left at the end), so this decides a win on a lost child and a
            // loss when every child is won.
            let kids = &children[edges_start[i]..edges_start[i + 1]];
            if let Some(v) = Value::decided_by(kids.iter().map(|&c| known[c as usize])) {
                known[i] = Some(v);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (known.into_iter().map(|v| v.unwrap_or(Value::Draw)).collect(), sweeps)
}

/// The value of a position whose game is over, for the side to move: a
/// loss, unless it has won (the sheep below a floor they win).
fn over_value(rules: &Rules, pos: &Position) -> Option<Value> {
    match rules.status(pos) {
        Status::Over { winner, .. } => Some(if winner == pos.side() { Value::Win } else { Value::Loss }),
        Status::Ongoing => None,
    }
}
