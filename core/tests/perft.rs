//! perft of the default start, in both geometries and with either side first.
//!
//! The counts were produced by the release binary (see docs/perft.md):
//!
//! ```text
//! foxbase perft --depth N [--geometry orthogonal] [--position 'F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS s']
//! ```
//!
//! and depths 1 and 2 (and orthogonal depth 3) were checked by hand:
//!
//! - Fox first, classic, depth 1 = 6: c7 steps to c6, d7 and (diagonal, 3+7 and
//!   4+6 even) d6; e7 to e6, d7 and d6. No jumps: rank 6 is empty.
//! - Fox first, classic, depth 2 = 6 * 13 = 78: whatever the fox did (it stays on
//!   ranks 6-7), only rank-4 sheep can move, all to rank 5: seven straight steps
//!   a4-a5 .. g4-g5, plus two diagonals from each even point b4, d4, f4
//!   (b4-a5, b4-c5, d4-c5, d4-e5, f4-e5, f4-g5): 7 + 6 = 13.
//! - Fox first, orthogonal: depth 1 = 4 (c7-c6, c7-d7, e7-e6, e7-d7), depth 2 =
//!   4 * 7 = 28 (the seven straight rank-4 steps). Depth 3 = 2 * 7 * 5 + 2 * 7 * 3
//!   = 112: after c7-c6 (or e7-e6) the foxes always have 5 moves (the fox on c6
//!   has c7, d6 and c5 or, if a sheep just went c4-c5, the jump c6xc4; the other
//!   fox has d7 and e6), after c7-d7 (or e7-d7) always 3 (d7: c7, d6; e7: e6).
//! - Sheep first: depth 1 = 13 (classic) and 7 (orthogonal), the sheep moves
//!   above; depth 2 = 13 * 6 = 78 and 7 * 4 = 28, since no sheep move touches
//!   ranks 6-7, so the foxes keep their 6 (or 4) steps and have no jump.

use foxbase_core::board::Geometry;
use foxbase_core::notation::{format_position, parse_move, parse_position};
use foxbase_core::perft::{divide, perft};
use foxbase_core::rules::Rules;
use foxbase_core::{Position, Side, Status, Variant};

const CLASSIC_FOX_FIRST: [u64; 6] = [6, 78, 482, 7_466, 49_856, 828_724];
const CLASSIC_SHEEP_FIRST: [u64; 6] = [13, 78, 1_252, 7_610, 128_948, 849_172];
const ORTHOGONAL_FOX_FIRST: [u64; 6] = [4, 28, 112, 1_176, 6_232, 71_594];
const ORTHOGONAL_SHEEP_FIRST: [u64; 6] = [7, 28, 302, 1_196, 13_956, 73_258];

fn start(side: Side) -> Position {
    Variant::default().start.with_side(side)
}

fn check(geometry: Geometry, side: Side, expected: &[u64; 6]) {
    let rules = Rules::new(geometry, 9);
    let p = start(side);
    assert_eq!(perft(&rules, &p, 0), 1);
    for (i, &n) in expected.iter().enumerate() {
        let depth = i as u32 + 1;
        assert_eq!(perft(&rules, &p, depth), n, "{geometry}, {side} first, depth {depth}");
    }
}

#[test]
fn default_start_is_the_rules_start() {
    let v = Variant::default();
    assert_eq!(v.geometry, Geometry::Classic);
    assert_eq!(v.pen_target, 9);
    assert_eq!(format_position(&v.start), "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f");
    assert_eq!(start(Side::Sheep), parse_position("F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS s").unwrap());
}

#[test]
fn perft_classic_fox_first() {
    check(Geometry::Classic, Side::Fox, &CLASSIC_FOX_FIRST);
}

#[test]
fn perft_classic_sheep_first() {
    check(Geometry::Classic, Side::Sheep, &CLASSIC_SHEEP_FIRST);
}

#[test]
fn perft_orthogonal_fox_first() {
    check(Geometry::Orthogonal, Side::Fox, &ORTHOGONAL_FOX_FIRST);
}

#[test]
fn perft_orthogonal_sheep_first() {
    check(Geometry::Orthogonal, Side::Sheep, &ORTHOGONAL_SHEEP_FIRST);
}

#[test]
fn perft_is_the_same_on_a_second_run() {
    for g in Geometry::ALL {
        let rules = Rules::new(g, 9);
        for side in [Side::Fox, Side::Sheep] {
            let p = start(side);
            let first: Vec<u64> = (1..=5).map(|d| perft(&rules, &p, d)).collect();
            let second: Vec<u64> = (1..=5).map(|d| perft(&rules, &p, d)).collect();
            assert_eq!(first, second, "{g}, {side} first");
        }
    }
}

#[test]
fn divide_sums_to_perft_and_lists_the_moves_in_order() {
    for g in Geometry::ALL {
        let rules = Rules::new(g, 9);
        for side in [Side::Fox, Side::Sheep] {
            let p = start(side);
            for depth in 1..=5 {
                let parts = divide(&rules, &p, depth);
                let moves: Vec<_> = parts.iter().map(|(m, _)| *m).collect();
                assert_eq!(moves, rules.moves(&p));
                let sum: u64 = parts.iter().map(|(_, n)| n).sum();
                assert_eq!(sum, perft(&rules, &p, depth), "{g}, {side} first, depth {depth}");
            }
        }
    }
    // Classic, fox first, depth 2: 13 sheep replies after each of the 6 fox moves.
    let rules = Rules::new(Geometry::Classic, 9);
    let parts: Vec<(String, u64)> =
        divide(&rules, &start(Side::Fox), 2).into_iter().map(|(m, n)| (m.to_string(), n)).collect();
    let expected: Vec<(String, u64)> =
        ["c7-c6", "c7-d6", "c7-d7", "e7-d6", "e7-e6", "e7-d7"].iter().map(|m| (m.to_string(), 13)).collect();
    assert_eq!(parts, expected);
    // Orthogonal, fox first, depth 3 (hand-worked in the header).
    let rules = Rules::new(Geometry::Orthogonal, 9);
    let parts: Vec<(String, u64)> =
        divide(&rules, &start(Side::Fox), 3).into_iter().map(|(m, n)| (m.to_string(), n)).collect();
    assert_eq!(
        parts,
        [("c7-c6".to_string(), 35), ("c7-d7".to_string(), 21), ("e7-e6".to_string(), 35), ("e7-d7".to_string(), 21)]
    );
}

#[test]
fn perft_is_symmetric_under_mirroring_in_divide() {
    // The start is symmetric, so the count below a first move equals the count
    // below its mirror image.
    for g in Geometry::ALL {
        let rules = Rules::new(g, 9);
        for side in [Side::Fox, Side::Sheep] {
            let parts = divide(&rules, &start(side), 4);
            for (m, n) in &parts {
                let mirrored = parts.iter().find(|(q, _)| *q == m.mirror()).expect("mirror move is legal");
                assert_eq!(mirrored.1, *n, "{g}, {side} first, {m}");
            }
        }
    }
}

#[test]
fn a_finished_game_has_no_moves() {
    // Orthogonal: both foxes were just trapped and removed; the game is over.
    let rules = Rules::new(Geometry::Orthogonal, 9);
    let over = parse_position(".S./S.S/..S.S../......./......./SSS/SSS f").unwrap();
    assert_eq!(perft(&rules, &over, 0), 1);
    assert_eq!(perft(&rules, &over, 1), 0);
    assert_eq!(perft(&rules, &over, 3), 0);
    assert!(divide(&rules, &over, 2).is_empty());
    // A move that fills the pen counts as a leaf but has nothing below it:
    // K = 1, sheep d4 and fox d7, sheep to move. The sheep has 5 moves in classic
    // (c4, e4, c5, d5, e5); c5, d5 and e5 fill the pen and end the game. After
    // d4-c4 or d4-e4 the fox on d7 (4+7 odd: no diagonals) has 3 steps: c7, e7, d6.
    let rules = Rules::new(Geometry::Classic, 1);
    let p = parse_position(".F./.../......./...S.../......./.../... s").unwrap();
    assert_eq!(perft(&rules, &p, 1), 5);
    let parts = divide(&rules, &p, 2);
    let shown: Vec<(String, u64)> = parts.iter().map(|(m, n)| (m.to_string(), *n)).collect();
    assert_eq!(
        shown,
        [
            ("d4-c4".to_string(), 3),
            ("d4-e4".to_string(), 3),
            ("d4-c5".to_string(), 0),
            ("d4-d5".to_string(), 0),
            ("d4-e5".to_string(), 0)
        ]
    );
}

/// Walks every sequence of up to `depth` plies, counting finished positions and
/// moves that removed a fox.
fn endings_and_removals(rules: &Rules, p: &Position, depth: u32, over: &mut u64, removed: &mut u64) {
    if rules.status(p) != Status::Ongoing {
        *over += 1;
    }
    if depth == 0 {
        return;
    }
    for m in rules.moves(p) {
        let child = rules.play(p, m);
        if child.fox_count() < p.fox_count() {
            *removed += 1;
        }
        endings_and_removals(rules, &child, depth - 1, over, removed);
    }
}

#[test]
fn no_game_ends_within_six_plies_but_a_fox_can_be_trapped() {
    // So the table counts plain move sequences (docs/perft.md). The removals
    // come only with the foxes first: a fox must walk down into the sheep.
    for (g, side, removals) in [
        (Geometry::Classic, Side::Fox, 20),
        (Geometry::Classic, Side::Sheep, 0),
        (Geometry::Orthogonal, Side::Fox, 6),
        (Geometry::Orthogonal, Side::Sheep, 0),
    ] {
        let rules = Rules::new(g, 9);
        let (mut over, mut removed) = (0, 0);
        endings_and_removals(&rules, &start(side), 6, &mut over, &mut removed);
        assert_eq!((over, removed), (0, removals), "{g}, {side} first");
    }
    // One of the six orthogonal ones, by hand: the fox ends on b5 with sheep on
    // a5, c5 and b4 (b6 does not exist); its jumps land on d5 and b3, both sheep.
    let rules = Rules::new(Geometry::Orthogonal, 9);
    let mut p = start(Side::Fox);
    for m in ["c7-c6", "a4-a5", "c6-c5", "d4-d5", "c5-b5", "c4-c5"] {
        p = rules.play(&p, parse_move(&rules, &p, m).unwrap());
    }
    assert_eq!(format_position(&p), "..F/.../S.SS.../.S..SSS/SSSSSSS/SSS/SSS f");
    assert_eq!(p.fox_count(), 1);
}
