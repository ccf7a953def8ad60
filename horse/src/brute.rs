//! The independent check: every set of at most K walls on the grass the
//! horse can reach, each scored by flood fill. Exponential; for maps with
//! up to about 30 such tiles and a few walls.

use crate::map::Map;
use crate::region::enclose;

/// The best score over all wall sets of at most `map.walls()` walls, with
/// one set reaching it, or `None` when none traps the horse. Visits
/// `sum C(g, j), j <= K` sets for `g` reachable grass tiles.
pub fn best(map: &Map) -> Option<(i64, Vec<usize>)> {
    let grass: Vec<usize> = map.reachable().into_iter().filter(|&i| map.tile(i).is_wallable()).collect();
    let budget = map.walls().min(grass.len());
    let mut walled = vec![false; map.len()];
    let mut chosen = Vec::with_capacity(budget);
    let mut best: Option<(i64, Vec<usize>)> = None;
    visit(map, &grass, 0, budget, &mut walled, &mut chosen, &mut best);
    best
}

fn visit(
    map: &Map,
    grass: &[usize],
    from: usize,
    budget: usize,
    walled: &mut [bool],
    chosen: &mut Vec<usize>,
    best: &mut Option<(i64, Vec<usize>)>,
) {
    let enclosure = enclose(map, walled);
    if enclosure.trapped && best.as_ref().is_none_or(|(score, _)| enclosure.score > *score) {
        *best = Some((enclosure.score, chosen.clone()));
    }
    if chosen.len() == budget {
        return;
    }
    for k in from..grass.len() {
        walled[grass[k]] = true;
        chosen.push(grass[k]);
        visit(map, grass, k + 1, budget, walled, chosen, best);
        chosen.pop();
        walled[grass[k]] = false;
    }
}

/// The number of reachable grass tiles, the brute force's exponent.
pub fn reachable_grass(map: &Map) -> usize {
    map.reachable().into_iter().filter(|&i| map.tile(i).is_wallable()).count()
}
