//! The exact solver against the brute force on random small maps, and the
//! minimum cut against the integer program (docs/horse.md, "Checks").

use horse::brute;
use horse::map::{Map, Tile};
use horse::milp::{self, Formulation, Limits, Outcome};
use horse::mincut;
use horse::region::{checked_walls, enclose_with};
use proptest::prelude::*;

/// A small random map: `cells` picks each tile (grass most often, water a
/// quarter inside and three quarters on the edge), `horse` its tile off the edge, `portal` an optional pair of
/// tiles for portal 0 (one next to the horse).
fn small_map(
    rows: usize,
    cols: usize,
    walls: usize,
    cells: &[u8],
    horse: usize,
    portal: Option<(usize, usize)>,
) -> Map {
    let n = rows * cols;
    let edge = |i: usize| i < cols || i >= n - cols || i.is_multiple_of(cols) || i % cols == cols - 1;
    let mut tiles: Vec<Tile> = cells[..n]
        .iter()
        .enumerate()
        // Three edge tiles in four are water, as on real maps' shores.
        .map(|(i, &x)| if edge(i) && x % 4 != 0 { WATER } else { x })
        .map(|x| match x {
            0..=WATER => Tile::Water,
            WATER_1..=ROCK => Tile::Rock,
            ROCK_1..=38 => Tile::Cherry,
            39..=42 => Tile::Apple,
            43..=50 => Tile::Bees,
            _ => Tile::Grass,
        })
        .collect();
    let horse = (1 + horse % (rows - 2)) * cols + 1 + (horse / rows) % (cols - 2);
    tiles[horse] = Tile::Horse;
    if let Some((a, b)) = portal {
        // One end next to the horse, the other anywhere: the pair matters.
        let a = [horse - cols, horse + cols, horse - 1, horse + 1][a % 4];
        let b = b % n;
        if a != b && a != horse && b != horse {
            tiles[a] = Tile::Portal(0);
            tiles[b] = Tile::Portal(0);
        }
    }
    Map::from_tiles(walls, rows, cols, tiles, horse)
}

const WATER: u8 = 24;
const WATER_1: u8 = WATER + 1;
const ROCK: u8 = 30;
const ROCK_1: u8 = ROCK + 1;

fn arbitrary_map() -> impl Strategy<Value = Map> {
    (
        4usize..=7,
        4usize..=7,
        1usize..=5,
        proptest::collection::vec(0u8..100, 49),
        any::<usize>(),
        proptest::option::of((any::<usize>(), any::<usize>())),
    )
        .prop_map(|(rows, cols, walls, cells, horse, portal)| small_map(rows, cols, walls, &cells, horse, portal))
        // Keep the brute force quick: C(22, 5) = 26,334 wall sets at most.
        .prop_filter("at most 22 reachable grass tiles", |m| brute::reachable_grass(m) <= 22)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_solver_scores_what_the_brute_force_scores(map in arbitrary_map()) {
        let brute = brute::best(&map);
        let outcome = milp::solve(&map, Formulation::HorseFlow, Limits::default()).unwrap();
        match (&outcome, &brute) {
            (Outcome::Untrappable, None) => {}
            (Outcome::Trapped(answer), Some((score, _))) => {
                prop_assert!(answer.optimal);
                prop_assert_eq!(answer.enclosure.score, *score, "map:\n{}", map);
                prop_assert_eq!(answer.objective, *score);
                // The walls are legal and their flood fill is the answer.
                let positions: Vec<(usize, usize)> = answer.walls.iter().map(|&w| map.position(w)).collect();
                let walls = checked_walls(&map, &positions).unwrap();
                let fill = enclose_with(&map, &walls);
                prop_assert!(fill.trapped);
                prop_assert_eq!(&fill, &answer.enclosure);
            }
            _ => prop_assert!(false, "solver {:?}, brute force {:?}, map:\n{}", outcome, brute, map),
        }
        // Connectivity by lazy cuts reaches the same score.
        match milp::solve(&map, Formulation::HorseCuts, Limits::default()).unwrap() {
            Outcome::Trapped(answer) => {
                prop_assert!(answer.optimal);
                prop_assert_eq!(Some(answer.enclosure.score), brute.as_ref().map(|b| b.0));
            }
            other => prop_assert!(brute.is_none() && other == Outcome::Untrappable, "cuts: {:?}", other),
        }
        // The write-up's model (with its flow) traps the horse whenever ours
        // does, and its walls never do better than the optimum. (Its objective
        // can be off either way: docs/horse.md.)
        let write_up = milp::solve(&map, Formulation::WriteUp, Limits::default()).unwrap();
        match (&write_up, &brute) {
            (Outcome::Untrappable, None) => {}
            (Outcome::Trapped(answer), Some((score, _))) => {
                prop_assert!(answer.enclosure.score <= *score);
            }
            _ => prop_assert!(false, "write-up {:?}, brute force {:?}", write_up, brute),
        }
    }

    #[test]
    fn the_minimum_cut_is_the_integer_programs_minimum(map in arbitrary_map()) {
        let cut = mincut::min_walls(&map);
        let program = milp::min_walls(&map).unwrap();
        prop_assert_eq!(cut.as_ref().map(Vec::len), program.as_ref().map(Vec::len), "map:\n{}", map);
        if let Some(walls) = cut {
            prop_assert!(walls.iter().all(|&w| map.tile(w) == Tile::Grass));
            prop_assert!(enclose_with(&map, &walls).trapped);
            // With exactly that many walls the solver traps the horse, with one fewer it cannot.
            let with = map.clone().with_walls(walls.len());
            prop_assert!(brute::best(&with).is_some());
            if !walls.is_empty() {
                prop_assert!(brute::best(&map.clone().with_walls(walls.len() - 1)).is_none());
            }
        } else {
            prop_assert!(brute::best(&map.clone().with_walls(map.walls().max(3))).is_none());
        }
    }
}

/// Every map in horse/maps parses; those small enough are solved by both
/// the solver and the brute force, to the same score.
#[test]
fn every_shipped_map_parses_and_the_small_ones_agree_with_the_brute_force() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("maps");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    let mut sizes = Vec::new();
    let mut checked = 0;
    for path in &names {
        let text = std::fs::read_to_string(path).unwrap();
        let map = Map::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        sizes.push((map.rows(), map.cols()));
        let kinds = [Tile::Grass, Tile::Water, Tile::Rock, Tile::Horse, Tile::Cherry, Tile::Apple, Tile::Bees];
        for kind in kinds {
            assert!((0..map.len()).any(|i| map.tile(i) == kind), "{}: no {kind:?}", path.display());
        }
        assert!((0..map.len()).any(|i| matches!(map.tile(i), Tile::Portal(_))), "{}: no portal", path.display());
        if brute::reachable_grass(&map) <= 30 && map.walls() <= 4 {
            let Outcome::Trapped(answer) = milp::solve(&map, Formulation::HorseFlow, Limits::default()).unwrap() else {
                panic!("{}: untrapped", path.display())
            };
            assert_eq!(Some(answer.enclosure.score), brute::best(&map).map(|b| b.0), "{}", path.display());
            checked += 1;
        }
    }
    assert!(sizes.contains(&(5, 5)), "a 5x5 map");
    assert!(sizes.iter().any(|&(r, c)| r >= 30 && c >= 30), "a map of at least 30x30");
    assert!(checked >= 2, "at least two maps checked by brute force");
}

/// The random maps above are not mostly trivial: in a sample of 400 from
/// the same strategy, many are trapped only with walls, some cannot be
/// trapped, and some enclose bees or use a portal in their best region.
#[test]
fn the_random_maps_cover_every_case() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = arbitrary_map();
    let (mut walled, mut wall_free, mut untrappable, mut bees, mut portals) = (0, 0, 0, 0, 0);
    for _ in 0..400 {
        let map = strategy.new_tree(&mut runner).unwrap().current();
        match brute::best(&map) {
            None => untrappable += 1,
            Some((_, walls)) => {
                if walls.is_empty() {
                    wall_free += 1;
                } else {
                    walled += 1;
                }
                let region = enclose_with(&map, &walls).region;
                bees += region.iter().any(|&i| map.tile(i) == Tile::Bees) as usize;
                portals += region.iter().any(|&i| matches!(map.tile(i), Tile::Portal(_))) as usize;
            }
        }
    }
    eprintln!("walled {walled}, wall-free {wall_free}, untrappable {untrappable}, bees {bees}, portals {portals}");
    // Measured: walled 138, wall-free 53, untrappable 209, bees 69, portals 33.
    assert!(walled >= 100 && untrappable >= 40 && wall_free >= 20 && bees >= 40 && portals >= 20);
}
