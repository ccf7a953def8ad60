//! The exact solver: a mixed-integer program handed to HiGHS.
//!
//! Two formulations (docs/horse.md compares them):
//!
//! - [`Formulation::HorseFlow`], ours: a binary `R` per tile says "in the
//!   horse's region". The region is closed (`R_u - R_v <= W_v` for every step
//!   u to v: a region tile's neighbour is in the region or walled), holds the
//!   horse, holds no edge tile, and is connected: one unit of flow goes from
//!   the horse to every region tile through region tiles. The objective is
//!   the region's value itself, so bees count where they are (nothing can
//!   label a trapped bee "outside"), and the flow keeps out the pockets that
//!   walls seal off elsewhere (a closed set without it may add them).
//! - [`Formulation::WriteUp`], the published write-up's: a binary `E` per
//!   tile says "escapable"; `E_u >= E_v - W_u` on every step, the edge
//!   escapable unless walled, the horse not escapable, and a flow of "proof
//!   of escape" from every escapable tile to the outside; the objective is
//!   the value of what does not escape. Kept for the benchmark; it counts
//!   any sealed pocket as enclosed, so its objective can exceed the true
//!   score (which [`solve`] reports from a flood fill either way).
//!
//! Both work on the tiles the horse reaches with no walls
//! ([`Map::reachable`]); no wall set lets it reach more.

use crate::heuristic::Placement;
use crate::map::Map;
use crate::region::{enclose_with, walls_that_matter, Enclosure};
use highs::{Col, HighsModelStatus, RowProblem, Sense};
use std::time::{Duration, Instant};

/// Which integer program to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formulation {
    /// Region variables with a connectivity flow from the horse (sound).
    HorseFlow,
    /// Region variables, connectivity by cuts added after each solve whose
    /// region falls apart (sound; several HiGHS runs).
    HorseCuts,
    /// The write-up's escape variables with a proof-of-escape flow.
    WriteUp,
}

/// Limits of one solve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop after this long; the answer is then not proven optimal.
    pub time_limit: Option<Duration>,
    /// Skip the heuristic's search ([`crate::heuristic`]): no first
    /// placement for HiGHS and no candidates dropped; to measure what it saves.
    pub skip_heuristic: bool,
}

/// A wall placement that traps the horse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The walls (tile indexes, sorted), each one touching the region.
    pub walls: Vec<usize>,
    /// The flood fill of those walls: the region and its score.
    pub enclosure: Enclosure,
    /// The integer program's objective (the score under the formulation).
    pub objective: i64,
    /// Whether HiGHS proved the objective optimal.
    pub optimal: bool,
    /// Time in HiGHS (building the model not included).
    pub elapsed: Duration,
}

/// What a solve found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The best placement found (proven optimal when `optimal`).
    Trapped(Answer),
    /// Proven: no placement of at most K walls traps the horse.
    Untrappable,
    /// The time limit came before any trapping placement was found (or
    /// before the search proved there is none).
    Unknown,
}

/// Why a solve failed: a HiGHS error, or an answer the flood fill rejects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error("HiGHS stopped with status {0}")]
    Solver(String),
    #[error("the integer program's answer fails the flood fill: {0}")]
    Unsound(String),
}

/// Column indexes of the variables a formulation put on each tile.
struct Columns {
    /// The wall variable's column number, on wallable reachable tiles.
    walls: Vec<Option<usize>>,
    /// The region variable's column number (ours only), on reachable tiles off the edge.
    region: Vec<Option<usize>>,
    /// The flow variables (ours only): step `u -> v` and its column number.
    flow: Vec<(usize, usize, usize)>,
    /// The closure column `X = R + W` (ours only), on tiles with both.
    closure: Vec<Option<usize>>,
}

impl Columns {
    /// The tiles walled in `values`, less any that is also in the region:
    /// ours has no `R + W <= 1` row, and a wall on a region tile blocks
    /// nothing (every neighbour a region tile steps to is in the region or
    /// walled already), so the answer without it is the same placement.
    fn walls_placed(&self, values: &[f64]) -> Vec<usize> {
        let set = |column: Option<usize>| column.is_some_and(|c| values.get(c) > Some(&0.5));
        (0..self.walls.len()).filter(|&i| set(self.walls[i]) && !set(self.region[i])).collect()
    }
}

/// A connectivity cut of [`Formulation::HorseCuts`]: `R_tile <= sum R_b`
/// over the boundary `b` of a component that holds `tile` and not the horse.
#[derive(Clone, Debug)]
struct Cut {
    tile: usize,
    boundary: Vec<usize>,
}

/// Solves the map for its best score with at most `map.walls()` walls.
///
/// For the flow formulation, [`crate::heuristic::search`] first finds a
/// placement that HiGHS starts from and drops the candidate tiles that no
/// better placement holds (unless `limits.skip_heuristic`); the answer is
/// the same proven optimum either way.
pub fn solve(map: &Map, formulation: Formulation, limits: Limits) -> Result<Outcome, SolveError> {
    solve_from(map, formulation, limits, None)
}

/// [`solve`], with the heuristic's search started from the placement
/// `walls` (ignored unless it is legal and traps the horse), for the flow
/// formulation; the others ignore it.
pub fn solve_from(
    map: &Map,
    formulation: Formulation,
    limits: Limits,
    walls: Option<&[usize]>,
) -> Result<Outcome, SolveError> {
    if map.is_edge(map.horse()) {
        return Ok(Outcome::Untrappable);
    }
    let reachable = map.reachable();
    let start = Instant::now();
    // Found once, for every HiGHS run of the lazy cuts too.
    let candidate = match formulation {
        Formulation::WriteUp => Vec::new(),
        _ => candidates(map, Some(map.walls())),
    };
    if formulation != Formulation::WriteUp && !candidate[map.horse()] {
        return Ok(Outcome::Untrappable);
    }
    // Strong branching (HiGHS's default) only where the search runs. On
    // the maps too big for it (40x40, 60x60) pseudocost branching from the
    // first node took as long in all over 140 random 40x40 maps, but the
    // worst 10.4 s instead of 16.6 s (docs/horse.md, "Strong branching only
    // where the search runs"). The search's own maps keep it: without it
    // they got slower.
    let strong_branching = formulation != Formulation::HorseFlow || crate::heuristic::within_cap(map, &candidate);
    // A first incumbent for the flow formulation, so that HiGHS mostly has
    // to prove it, and the candidates that no better placement holds
    // dropped (crate::heuristic). A given placement that is not legal, or
    // does not trap the horse, is ignored.
    let (candidate, first) = match (formulation, walls) {
        (Formulation::HorseFlow, given) if given.is_some() || !limits.skip_heuristic => {
            let given = given.and_then(|walls| {
                let mut sorted = walls.to_vec();
                sorted.sort_unstable();
                sorted.dedup();
                let legal = sorted.len() == walls.len()
                    && walls.len() <= map.walls()
                    && walls.iter().all(|&w| w < map.len() && map.tile(w).is_wallable() && w != map.horse());
                let enclosure = legal.then(|| enclose_with(map, walls)).filter(|e| e.trapped)?;
                let walls = walls_that_matter(map, walls, &enclosure.region);
                Some(Placement { walls, score: enclosure.score })
            });
            let search = crate::heuristic::search_from(map, &candidate, given);
            (search.keep, search.best.map(|p| p.walls))
        }
        _ => (candidate, None),
    };
    let mut cuts: Vec<Cut> = Vec::new();
    let (status, values, objective, columns, constant) = loop {
        let (problem, columns, constant) = match formulation {
            Formulation::HorseFlow => horse_flow(map, &reachable, &candidate, Build::score(map, true, true), &[]),
            Formulation::HorseCuts => horse_flow(map, &reachable, &candidate, Build::score(map, false, true), &cuts),
            Formulation::WriteUp => write_up(map, &reachable, true),
        };
        let left = Limits { time_limit: limits.time_limit.map(|t| t.saturating_sub(start.elapsed())), ..limits };
        let initial = first.as_ref().map(|walls| start_values(map, &columns, problem.num_cols(), walls));
        let (status, values, objective, _) = run(problem, Sense::Maximise, left, initial, strong_branching);
        if formulation == Formulation::HorseCuts && status == HighsModelStatus::Optimal {
            let new = connectivity_cuts(map, &reachable, &columns, &values);
            if !new.is_empty() {
                cuts.extend(new);
                continue;
            }
        }
        break (status, values, objective, columns, constant);
    };
    let elapsed = start.elapsed();
    let proven = match status {
        HighsModelStatus::Optimal => true,
        HighsModelStatus::Infeasible => return Ok(Outcome::Untrappable),
        HighsModelStatus::ReachedTimeLimit => false,
        other => return Err(SolveError::Solver(format!("{other:?}"))),
    };
    let walls = columns.walls_placed(&values);
    let enclosure = enclose_with(map, &walls);
    if !enclosure.trapped || walls.len() > map.walls() {
        return if proven {
            Err(SolveError::Unsound(format!("{} walls leave the horse untrapped", walls.len())))
        } else {
            Ok(Outcome::Unknown)
        };
    }
    let objective = (objective + constant as f64).round() as i64;
    if proven && formulation != Formulation::WriteUp && objective != enclosure.score {
        return Err(SolveError::Unsound(format!("objective {objective}, flood fill {}", enclosure.score)));
    }
    let walls = walls_that_matter(map, &walls, &enclosure.region);
    Ok(Outcome::Trapped(Answer { walls, enclosure, objective, optimal: proven, elapsed }))
}

/// The fewest walls that trap the horse, by the integer program with the
/// score ignored (no budget, minimise the walls); `None` when no number of
/// walls does. [`crate::mincut::min_walls`] answers the same by a max flow.
pub fn min_walls(map: &Map) -> Result<Option<Vec<usize>>, SolveError> {
    if map.is_edge(map.horse()) {
        return Ok(None);
    }
    let reachable = map.reachable();
    let build = Build { budget: None, score: false, flow: false, integer: true };
    let (problem, columns, _) = horse_flow(map, &reachable, &candidates(map, build.budget), build, &[]);
    let (status, values, _, _) = run(problem, Sense::Minimise, Limits::default(), None, true);
    match status {
        HighsModelStatus::Optimal => {}
        HighsModelStatus::Infeasible => return Ok(None),
        other => return Err(SolveError::Solver(format!("{other:?}"))),
    }
    let walls = columns.walls_placed(&values);
    if !enclose_with(map, &walls).trapped {
        return Err(SolveError::Unsound(format!("{} walls leave the horse untrapped", walls.len())));
    }
    Ok(Some(walls))
}

/// The optimum of the formulation's linear relaxation (every variable
/// continuous): an upper bound on its integer optimum. How far it lies above
/// is how much branching HiGHS must do (docs/horse.md, "Tightness"). `None`
/// when the relaxation is infeasible or the horse is on the edge. Lazy cuts
/// have no relaxation of their own (it is the flow-free one).
pub fn lp_bound(map: &Map, formulation: Formulation) -> Option<f64> {
    if map.is_edge(map.horse()) {
        return None;
    }
    let reachable = map.reachable();
    let candidate = candidates(map, Some(map.walls()));
    let (problem, _, constant) = match formulation {
        Formulation::HorseFlow => horse_flow(map, &reachable, &candidate, Build::score(map, true, false), &[]),
        Formulation::HorseCuts => horse_flow(map, &reachable, &candidate, Build::score(map, false, false), &[]),
        Formulation::WriteUp => write_up(map, &reachable, false),
    };
    let (status, _, objective, _) = run(problem, Sense::Maximise, Limits::default(), None, true);
    (status == HighsModelStatus::Optimal).then_some(objective + constant as f64)
}

/// The values of every column of our formulation for the placement `walls`
/// (which trap the horse and touch its region, all region tiles being
/// candidates): the flood fill as `R`, the walls as `W`, and along a
/// breadth-first tree from the horse, into each tile, the size of its subtree.
fn start_values(map: &Map, columns: &Columns, count: usize, walls: &[usize]) -> Vec<f64> {
    let mut values = vec![0.0; count];
    let enclosure = enclose_with(map, walls);
    for &w in walls {
        if let Some(c) = columns.walls[w] {
            values[c] = 1.0;
        }
        if let Some(c) = columns.closure[w] {
            values[c] = 1.0;
        }
    }
    let mut in_region = vec![false; map.len()];
    for &t in &enclosure.region {
        in_region[t] = true;
        if let Some(c) = columns.region[t] {
            values[c] = 1.0;
        }
        if let Some(c) = columns.closure[t] {
            values[c] = 1.0;
        }
    }
    // Breadth-first order and parents; subtree sizes from the back.
    let mut parent = vec![usize::MAX; map.len()];
    let mut order = vec![map.horse()];
    parent[map.horse()] = map.horse();
    let mut k = 0;
    while k < order.len() {
        let u = order[k];
        for &v in map.neighbours(u) {
            if in_region[v] && parent[v] == usize::MAX {
                parent[v] = u;
                order.push(v);
            }
        }
        k += 1;
    }
    let mut size = vec![0.0; map.len()];
    for &v in order.iter().rev() {
        size[v] += 1.0;
        if v != map.horse() {
            let p = parent[v];
            size[p] += size[v];
        }
    }
    for &(u, v, c) in &columns.flow {
        if v != map.horse() && parent[v] == u && in_region[v] {
            values[c] = std::mem::take(&mut size[v]);
        }
    }
    values
}

fn run(
    problem: RowProblem,
    sense: Sense,
    limits: Limits,
    start: Option<Vec<f64>>,
    strong_branching: bool,
) -> (HighsModelStatus, Vec<f64>, f64, Duration) {
    let mut model = problem.optimise(sense);
    if let Some(start) = start {
        model.set_solution(Some(&start), None, None, None);
    }
    model.make_quiet();
    // Scores are whole numbers: a gap under 1 proves the incumbent optimal,
    // where HiGHS's default relative gap (1e-4) would not on large scores.
    model.set_option("mip_rel_gap", 0.0);
    model.set_option("mip_abs_gap", 0.5);
    // On the slow maps the whole solve happens at the root node, and these
    // three spend most of its time there: restarts redo the root's cuts on a
    // slightly smaller model, and the RINS and RENS sub-MIPs look for
    // placements the search finds anyway. Without them the worst 20x20 map
    // of the benchmark takes 2 s instead of 5.2 s, the worst 40x40 map 41 to
    // 49 s instead of 53 s (docs/horse.md, "The benchmark"). None of them
    // touches the proof: the gap must still close.
    model.set_option("mip_allow_restart", false);
    model.set_option("mip_heuristic_run_rins", false);
    model.set_option("mip_heuristic_run_rens", false);
    if !strong_branching {
        // Branch by pseudocosts from the first node, with no trial LPs to
        // make them reliable first.
        model.set_option("mip_pscost_minreliable", 0);
    }
    if let Some(limit) = limits.time_limit {
        model.set_option("time_limit", limit.as_secs_f64());
    }
    let start = Instant::now();
    let solved = model.solve();
    let elapsed = start.elapsed();
    let status = solved.status();
    let solution = solved.get_solution();
    (status, solution.columns().to_vec(), solved.objective_value(), elapsed)
}

/// What [`horse_flow`] builds.
#[derive(Clone, Copy)]
struct Build {
    /// At most that many walls (none: any number).
    budget: Option<usize>,
    /// Maximise the region's value, or (false) minimise the walls.
    score: bool,
    /// The connectivity flow (or `cuts` instead, or nothing when only
    /// trapping matters).
    flow: bool,
    /// Integer variables, or (false) the linear relaxation.
    integer: bool,
}

impl Build {
    fn score(map: &Map, flow: bool, integer: bool) -> Build {
        Build { budget: Some(map.walls()), score: true, flow, integer }
    }
}

/// The tiles that get a region variable: with a budget of walls only those
/// a region may reach ([`crate::mincut::enclosable`]), else every tile off
/// the edge. Walls go only beside them.
fn candidates(map: &Map, budget: Option<usize>) -> Vec<bool> {
    match budget {
        Some(k) => crate::mincut::enclosable(map, k),
        None => (0..map.len()).map(|t| !map.is_edge(t)).collect(),
    }
}

/// Our formulation, as `build` says, with region variables on the
/// `candidate` tiles ([`candidates`] of `build.budget`) and connectivity `cuts`.
fn horse_flow(
    map: &Map,
    reachable: &[usize],
    candidate: &[bool],
    build: Build,
    cuts: &[Cut],
) -> (RowProblem, Columns, i64) {
    let Build { budget, score, flow, integer } = build;
    let beside_candidate = |t: usize| candidate[t] || map.neighbours(t).iter().any(|&u| candidate[u]);
    let mut problem = RowProblem::default();
    let mut region: Vec<Option<Col>> = vec![None; map.len()];
    let mut walls: Vec<Option<Col>> = vec![None; map.len()];
    let mut numbers: Vec<Option<usize>> = vec![None; map.len()];
    let mut region_numbers: Vec<Option<usize>> = vec![None; map.len()];
    let mut flow_numbers = Vec::new();
    let mut closure_numbers: Vec<Option<usize>> = vec![None; map.len()];
    for &i in reachable {
        let tile = map.tile(i);
        if !map.is_edge(i) && candidate[i] {
            region_numbers[i] = Some(problem.num_cols());
            let value = if score { tile.value() as f64 } else { 0.0 };
            region[i] = Some(if i == map.horse() {
                problem.add_column_with_integrality(value, 1..=1, integer)
            } else {
                problem.add_column_with_integrality(value, 0..=1, integer)
            });
        }
        if tile.is_wallable() && beside_candidate(i) {
            numbers[i] = Some(problem.num_cols());
            walls[i] = Some(problem.add_column_with_integrality(if score { 0.0 } else { 1.0 }, 0..=1, integer));
        }
    }
    // "In the region or walled", X_v = R_v + W_v, a continuous column on
    // tiles that have both, so that each closure row into v reads
    // R_u - X_v <= 0. Where the relaxation is fractional, X_v lies inside its
    // bounds, and HiGHS's zero-half separator skips every row with such a
    // column: on the slow maps that separator took most of the root's cut
    // rounds for bounds that hardly moved (docs/horse.md, "The benchmark").
    // There is no R_v + W_v <= 1 (X_v may reach 2): a wall on a region tile
    // only spends budget, and `Columns::walls_placed` leaves it out.
    let mut closure: Vec<Option<Col>> = vec![None; map.len()];
    for &v in reachable {
        if let (Some(rv), Some(wv)) = (region[v], walls[v]) {
            closure_numbers[v] = Some(problem.num_cols());
            let x = problem.add_column(0.0, 0.0..=2.0);
            problem.add_row(0.0..=0.0, [(x, 1.0), (rv, -1.0), (wv, -1.0)]);
            closure[v] = Some(x);
        }
    }
    for &u in reachable {
        let Some(ru) = region[u] else { continue };
        for &v in map.neighbours(u) {
            // R_u - R_v - W_v <= 0: a region tile's neighbour is in the region or walled.
            let mut row = vec![(ru, 1.0)];
            match closure[v] {
                Some(x) => row.push((x, -1.0)),
                None => {
                    row.extend(region[v].map(|c| (c, -1.0)));
                    row.extend(walls[v].map(|c| (c, -1.0)));
                }
            }
            problem.add_row(..=0.0, row);
        }
    }
    if let Some(k) = budget {
        let all: Vec<(Col, f64)> = walls.iter().flatten().map(|&c| (c, 1.0)).collect();
        problem.add_row(..=k as f64, all);
    }
    for cut in cuts {
        let mut row = vec![(region[cut.tile].expect("a cut's tile is off the edge"), 1.0)];
        row.extend(cut.boundary.iter().filter_map(|&b| region[b]).map(|c| (c, -1.0)));
        problem.add_row(..=0.0, row);
    }
    if flow {
        // One unit of flow from the horse to each region tile, along steps
        // into region tiles only: f_uv <= M R_v, inflow - outflow = R_v.
        let big = (region.iter().flatten().count().saturating_sub(1)).max(1) as f64;
        let mut inflow: Vec<Vec<(Col, f64)>> = vec![Vec::new(); map.len()];
        for &u in reachable {
            if region[u].is_none() {
                continue;
            }
            for &v in map.neighbours(u) {
                let Some(rv) = region[v] else { continue };
                if v == map.horse() {
                    continue;
                }
                flow_numbers.push((u, v, problem.num_cols()));
                let f = problem.add_column(0.0, 0.0..=big);
                problem.add_row(..=0.0, [(f, 1.0), (rv, -big)]);
                inflow[v].push((f, 1.0));
                if u != map.horse() {
                    inflow[u].push((f, -1.0));
                }
            }
        }
        for &v in reachable {
            let Some(rv) = region[v] else { continue };
            if v == map.horse() {
                continue;
            }
            let mut row = std::mem::take(&mut inflow[v]);
            row.push((rv, -1.0));
            problem.add_row(0.0..=0.0, row);
        }
    }
    (problem, Columns { walls: numbers, region: region_numbers, flow: flow_numbers, closure: closure_numbers }, 0)
}

/// The cuts that the solution `values` violates: for each component of its
/// region tiles that does not hold the horse, one cut per tile of it, over
/// the component's boundary (its neighbours, all walled: any path from the
/// horse into the component crosses one).
fn connectivity_cuts(map: &Map, reachable: &[usize], columns: &Columns, values: &[f64]) -> Vec<Cut> {
    let in_region = |t: usize| columns.region[t].is_some_and(|c| values[c] > 0.5);
    let mut component = vec![usize::MAX; map.len()];
    let mut cuts = Vec::new();
    for &start in reachable {
        if !in_region(start) || component[start] != usize::MAX {
            continue;
        }
        component[start] = start;
        let mut members = vec![start];
        let mut k = 0;
        while k < members.len() {
            for &v in map.neighbours(members[k]) {
                if in_region(v) && component[v] == usize::MAX {
                    component[v] = start;
                    members.push(v);
                }
            }
            k += 1;
        }
        if members.contains(&map.horse()) {
            continue;
        }
        let mut boundary: Vec<usize> =
            members.iter().flat_map(|&u| map.neighbours(u).iter().copied()).filter(|&v| !in_region(v)).collect();
        boundary.sort_unstable();
        boundary.dedup();
        cuts.extend(members.into_iter().map(|tile| Cut { tile, boundary: boundary.clone() }));
    }
    cuts
}

/// The write-up's formulation with its proof-of-escape flow. The objective
/// is `sum value (1 - E - W)`: the constant part is returned apart.
fn write_up(map: &Map, reachable: &[usize], integer: bool) -> (RowProblem, Columns, i64) {
    let mut problem = RowProblem::default();
    let mut escapes: Vec<Option<Col>> = vec![None; map.len()];
    let mut walls: Vec<Option<Col>> = vec![None; map.len()];
    let mut numbers: Vec<Option<usize>> = vec![None; map.len()];
    let mut constant = 0;
    for &i in reachable {
        let value = map.tile(i).value();
        constant += value;
        escapes[i] = Some(if i == map.horse() {
            problem.add_column_with_integrality(-value as f64, 0..=0, integer)
        } else {
            problem.add_column_with_integrality(-value as f64, 0..=1, integer)
        });
        if map.tile(i).is_wallable() {
            numbers[i] = Some(problem.num_cols());
            walls[i] = Some(problem.add_column_with_integrality(-value as f64, 0..=1, integer));
        }
    }
    let big = reachable.len() as f64;
    let mut balance: Vec<Vec<(Col, f64)>> = vec![Vec::new(); map.len()];
    for &u in reachable {
        let eu = escapes[u].expect("every reachable tile has E");
        for &v in map.neighbours(u) {
            let ev = escapes[v].expect("neighbours of reachable tiles are reachable");
            // E_u >= E_v - W_u
            let mut row = vec![(eu, 1.0), (ev, -1.0)];
            row.extend(walls[u].map(|c| (c, 1.0)));
            problem.add_row(0.0.., row);
            // Proof of escape: flow u -> v only into escapable tiles.
            let g = problem.add_column(0.0, 0.0..=big);
            problem.add_row(..=0.0, [(g, 1.0), (ev, -big)]);
            balance[u].push((g, 1.0));
            balance[v].push((g, -1.0));
        }
        if map.is_edge(u) {
            // The edge escapes unless walled, and lets the flow out.
            let mut row = vec![(eu, 1.0)];
            row.extend(walls[u].map(|c| (c, 1.0)));
            problem.add_row(1.0.., row);
            let out = problem.add_column(0.0, 0.0..=big);
            problem.add_row(..=0.0, [(out, 1.0), (eu, -big)]);
            balance[u].push((out, 1.0));
        }
        if let Some(wu) = walls[u] {
            problem.add_row(..=1.0, [(eu, 1.0), (wu, 1.0)]);
        }
    }
    for &u in reachable {
        // outflow - inflow = E_u: each escapable tile sends one unit out.
        let mut row = std::mem::take(&mut balance[u]);
        row.push((escapes[u].expect("E"), -1.0));
        problem.add_row(0.0..=0.0, row);
    }
    let all: Vec<(Col, f64)> = walls.iter().flatten().map(|&c| (c, 1.0)).collect();
    problem.add_row(..=map.walls() as f64, all);
    let none = vec![None; map.len()];
    (problem, Columns { walls: numbers, region: none.clone(), flow: Vec::new(), closure: none }, constant)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wall_on_a_region_tile_is_not_placed() {
        // Tiles 0 and 1 take a wall and a region variable each, tile 2 a
        // wall only; the solution walls all three and puts 0 in the region.
        let columns = Columns {
            walls: vec![Some(0), Some(1), Some(2)],
            region: vec![Some(3), Some(4), None],
            flow: Vec::new(),
            closure: vec![Some(5), Some(6), None],
        };
        let values = [1.0, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0];
        assert_eq!(columns.walls_placed(&values), vec![1, 2]);
        // Values below one half are not set.
        let values = [0.4, 0.6, 0.0, 0.6, 0.4, 1.0, 1.0];
        assert_eq!(columns.walls_placed(&values), vec![1]);
    }
}
