//! The write-up's model against ours on the map where it goes wrong
//! (docs/horse.md, "Why not the write-up's model").

use horse::map::Map;
use horse::milp::{solve, Formulation, Limits, Outcome};
use horse::region::enclose_with;

fn answer(map: &Map, formulation: Formulation) -> horse::milp::Answer {
    match solve(map, formulation, Limits::default()).unwrap() {
        Outcome::Trapped(a) => a,
        other => panic!("{formulation:?}: {other:?}"),
    }
}

#[test]
fn the_write_up_counts_a_sealed_pocket_and_loses_five_points() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/random20.txt");
    let map = Map::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let ours = answer(&map, Formulation::HorseFlow);
    assert_eq!((ours.enclosure.score, ours.objective, ours.optimal), (94, 94, true));
    let cuts = answer(&map, Formulation::HorseCuts);
    assert_eq!((cuts.enclosure.score, cuts.objective, cuts.optimal), (94, 94, true));
    let theirs = answer(&map, Formulation::WriteUp);
    // "Optimal" for its own objective, which counts 19 points the horse
    // never reaches: the flood fill of its walls scores 89.
    assert_eq!((theirs.enclosure.score, theirs.objective, theirs.optimal), (89, 108, true));
    assert_eq!(enclose_with(&map, &theirs.walls).score, 89);
}

#[test]
fn the_write_up_cannot_wall_a_swarm_out_of_a_sealed_room() {
    // The room is sealed by water; a wall between the horse and the bees
    // leaves the horse alone (1 point) instead of with them (1 + 1 - 4).
    let map = Map::parse("walls 1\n~~~~~\n~B.~~\n~~H~~\n~~~~~\n").unwrap();
    let ours = answer(&map, Formulation::HorseFlow);
    assert_eq!(
        (ours.enclosure.score, ours.walls.iter().map(|&w| map.position(w)).collect::<Vec<_>>()),
        (1, vec![(1, 2)])
    );
    // The write-up's flow gives the walled-off swarm no way to "escape", so
    // its model counts the bees as enclosed either way and sees no gain in
    // the wall: its walls leave the horse with the swarm.
    let theirs = answer(&map, Formulation::WriteUp);
    assert_eq!((theirs.enclosure.score, theirs.objective), (-2, -2));
}

#[test]
fn any_starting_placement_gives_the_same_proven_optimum() {
    // From the fewest walls (a poor start), from the optimum itself, from
    // no walls (which do not trap the horse: ignored), and from the
    // heuristic's own (no start given): 94, proven, every time.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/random20.txt");
    let map = Map::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let fewest = horse::mincut::min_walls(&map).unwrap();
    let optimum = answer(&map, Formulation::HorseFlow).walls;
    for start in [Some(fewest.as_slice()), Some(optimum.as_slice()), Some(&[][..]), None] {
        let outcome = horse::milp::solve_from(&map, Formulation::HorseFlow, Limits::default(), start).unwrap();
        let Outcome::Trapped(a) = outcome else { panic!("{outcome:?}") };
        assert_eq!((a.enclosure.score, a.objective, a.optimal), (94, 94, true));
    }
    let without = Limits { skip_heuristic: true, ..Limits::default() };
    let Outcome::Trapped(a) = solve(&map, Formulation::HorseFlow, without).unwrap() else { panic!() };
    assert_eq!((a.enclosure.score, a.optimal), (94, true));
}
