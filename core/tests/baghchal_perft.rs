//! Bagh-Chal: perft and the distinct positions after 1..4 plies against the
//! published figures, then hand-worked positions for each rule, the notation
//! and its errors, and properties of random games checked against a naive
//! move generator written here from the rule text.
//!
//! The published figures (Lim and Nievergelt, "Computing Tigers and Goats"):
//! from the start, 21, 252, 5,052 and 68,204 move sequences of 1..4 plies,
//! and 5, 33, 354 and 2,709 distinct positions after exactly 1..4 plies,
//! counted up to the board's 8 symmetries. The first three were also worked
//! by hand:
//!
//! - depth 1 = 21: a goat on any of the 21 empty points;
//! - depth 2 = 21 * 12: each corner tiger has 3 lines (a1: a2, b1 and the
//!   diagonal b2). A goat on one of them takes that step away and gives the
//!   jump over it (a1xa3, a1xc1, a1xc3: the point beyond is empty), so the
//!   tigers always have 12 moves;
//! - depth 3 = 252 * 20 + 12: after a placement and a tiger move, 20 points
//!   are empty, or 21 after one of the 12 jumps (a goat on one of the 12
//!   points next to a corner, jumped by that corner's tiger).
//!
//! They confirm the readings implemented: diagonals at the even points (with
//! no diagonals the corners would have 2 moves each, depth 2 = 168), tigers
//! jump (and capture) while goats are still being placed (else depth 3 =
//! 5,040), and goats on the board stay put until all are placed (else depth
//! 3 would count goat steps too).

use foxbase_core::baghchal::{
    board_picture, canonical, distinct_positions, divide, format_position, parse_move, parse_move_text, parse_position,
    perft, EndReason, IllegalMove, Layer, Move, ParseError, Point, Position, Rules, RulesError, Side, Status, Symmetry,
};
use proptest::prelude::*;
use std::collections::BTreeSet;

const START: &str = "T...T/...../...../...../T...T g 20 0";

fn pos(text: &str) -> Position {
    parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn five() -> Rules {
    Rules::default()
}

fn four() -> Rules {
    Rules::new(4).unwrap()
}

/// The legal moves of a position as strings, sorted.
fn move_set(rules: &Rules, p: &Position) -> BTreeSet<String> {
    rules.moves(p).iter().map(|m| m.to_string()).collect()
}

// ---------------------------------------------------------------------------
// perft and distinct positions

#[test]
fn perft_from_the_start_matches_the_published_figures() {
    let start = pos(START);
    assert_eq!(start, Position::START);
    let counts: Vec<u64> = (0..=4).map(|d| perft(&five(), &start, d)).collect();
    assert_eq!(counts, [1, 21, 252, 5_052, 68_204]);
    // No game ends this early, so the capture target changes nothing.
    assert_eq!(perft(&four(), &start, 4), 68_204);
}

/// Depth 5 and 6, produced by this implementation (no published figure): a
/// regression check, and docs/perft.md's table.
#[test]
fn perft_depths_5_and_6() {
    assert_eq!(perft(&five(), &Position::START, 5), 1_304_788);
    assert_eq!(perft(&five(), &Position::START, 6), 18_592_000);
}

#[test]
fn distinct_positions_after_1_to_4_plies_match_the_published_figures() {
    let layers = distinct_positions(&five(), &Position::START, 4);
    let up_to_symmetry: Vec<u64> = layers.iter().map(|l| l.up_to_symmetry).collect();
    assert_eq!(up_to_symmetry, [1, 5, 33, 354, 2_709]);
    // All positions, not up to symmetry (this implementation's figures). After
    // 2 plies every sequence reaches a different position: 252 = perft(2).
    let positions: Vec<u64> = layers.iter().map(|l| l.positions).collect();
    assert_eq!(positions, [1, 21, 252, 2_772, 21_113]);
    assert_eq!(layers[4], Layer { plies: 4, positions: 21_113, up_to_symmetry: 2_709 });
}

/// The 5 classes after one placement, by hand: the centre, the 4 edge
/// midpoints, the 4 points diagonally next to a corner, the 4 points next to
/// the centre, and the 8 edge points next to a corner (1 + 4 + 4 + 4 + 8 = 21).
#[test]
fn five_classes_after_one_placement() {
    let rules = five();
    let children: Vec<Position> =
        rules.moves(&Position::START).iter().map(|&m| rules.play(&Position::START, m)).collect();
    let mut class_sizes: Vec<usize> = children
        .iter()
        .map(canonical)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|c| children.iter().filter(|p| canonical(p) == c).count())
        .collect();
    class_sizes.sort();
    assert_eq!(class_sizes, [1, 4, 4, 4, 8]);
}

#[test]
fn divide_sums_to_perft_and_depth_one_is_every_empty_point() {
    let rules = five();
    let parts = divide(&rules, &Position::START, 3);
    assert_eq!(parts.len(), 21);
    assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), 5_052);
    // a goat next to a corner can be jumped: one more position to place from
    let by_move = |m: &str| parts.iter().find(|p| p.0.to_string() == m).unwrap().1;
    assert_eq!([by_move("c3"), by_move("b2"), by_move("b1"), by_move("c2")], [240, 241, 241, 240]);
    let first: Vec<String> = divide(&rules, &Position::START, 1).iter().map(|p| p.0.to_string()).collect();
    assert_eq!(first[..6], ["b1", "c1", "d1", "a2", "b2", "c2"]);
}

// ---------------------------------------------------------------------------
// The rules, position by position

#[test]
fn a_jump_captures_the_goat_jumped() {
    let rules = five();
    let p = pos("T...T/...../...../.G.../T...T t 19 0");
    let moves = move_set(&rules, &p);
    // a1: a2, b1 and the jump over b2 (b2 itself is taken); the others their 3 steps
    let expected = ["a1-a2", "a1-b1", "a1xc3", "e1-d1", "e1-e2", "e1-d2", "a5-a4", "a5-b5", "a5-b4", "e5-e4"];
    assert!(expected.iter().all(|m| moves.contains(*m)), "{moves:?}");
    assert_eq!(moves.len(), 12);
    let jump = parse_move(&rules, &p, "a1xc3").unwrap();
    assert_eq!(jump, Move::Jump("a1".parse().unwrap(), "b2".parse().unwrap(), "c3".parse().unwrap()));
    let after = rules.play(&p, jump);
    assert_eq!(format_position(&after), "T...T/...../..T../...../....T g 19 1");
    assert_eq!((after.captured(), after.goats_on_board(), after.to_place()), (1, 0, 19));
}

#[test]
fn tigers_never_jump_a_tiger_nor_two_goats() {
    let rules = five();
    // The tiger on a1 is boxed in: a2 holds a tiger, b1 and b2 goats with
    // goats beyond them on c1 and c3. It has no step and no jump.
    let p = pos("....T/....T/..G../TG.../TGG.. t 16 0");
    let from_a1: Vec<Move> = rules.moves(&p).into_iter().filter(|m| m.from() == Some("a1".parse().unwrap())).collect();
    assert!(from_a1.is_empty(), "{from_a1:?}");
    let over_tiger = parse_move_text("a1xa3").unwrap();
    assert_eq!(
        rules.check_move(&p, over_tiger),
        Err(IllegalMove::NoGoatToJump { mv: over_tiger, over: "a2".parse().unwrap() })
    );
    let onto_goat = parse_move_text("a1xc3").unwrap();
    assert_eq!(
        rules.check_move(&p, onto_goat),
        Err(IllegalMove::Occupied { mv: onto_goat, to: "c3".parse().unwrap() })
    );
}

#[test]
fn goats_place_while_any_remain_and_step_afterwards() {
    let rules = five();
    let p = pos("GGGGT/GGGGG/GGGGG/TTGGG/..TGG g 1 0");
    // one goat left to place: a placement on either empty point, no steps
    assert_eq!(move_set(&rules, &p), BTreeSet::from(["a1".to_string(), "b1".to_string()]));
    let placed = rules.play(&p, parse_move(&rules, &p, "b1").unwrap());
    assert_eq!(format_position(&placed), "GGGGT/GGGGG/GGGGG/TTGGG/.GTGG t 0 0");
    // All placed: a goat steps along a line to an empty point. The empty
    // points are b1, e2, d3, e3 and e4; only e3 (4 + 2 even) has diagonals,
    // to d2 and d4.
    let q = pos("TGGGT/GGGG./GGG../GGGG./T.GGT g 0 4");
    let expected: BTreeSet<String> =
        ["c1-b1", "b2-b1", "d4-e4", "d4-d3", "d2-d3", "c3-d3", "d4-e3", "d2-e3", "d2-e2"].map(String::from).into();
    assert_eq!(move_set(&rules, &q), expected);
    // capture target 4: the same position is over
    assert!(four().moves(&q).is_empty());
}

#[test]
fn the_capture_target_ends_the_game() {
    let p = pos("T...T/...../...../.G.../T...T t 15 4");
    // target 5: the fifth capture wins
    let rules = five();
    assert_eq!(rules.status(&p), Status::Ongoing);
    let after = rules.play(&p, parse_move(&rules, &p, "a1xc3").unwrap());
    assert_eq!(format_position(&after), "T...T/...../..T../...../....T g 15 5");
    assert_eq!(rules.status(&after), Status::Over { winner: Side::Tiger, reason: EndReason::CaptureTarget });
    assert!(rules.moves(&after).is_empty());
    assert_eq!(rules.move_count(&after), 0);
    assert_eq!(perft(&rules, &after, 3), 0);
    let e = parse_move(&rules, &after, "c3").unwrap_err();
    assert_eq!(e.to_string(), "c3: the game is over (the tigers won: the tigers captured enough goats)");
    // target 4: the position with 4 captured is already won, and 5 cannot be reached
    assert_eq!(four().status(&p), Status::Over { winner: Side::Tiger, reason: EndReason::CaptureTarget });
    assert!(four().moves(&p).is_empty());
    assert_eq!(four().check_position(&after), Err(RulesError::BeyondCaptureTarget { captured: 5, target: 4 }));
    assert_eq!(
        four().check_position(&after).unwrap_err().to_string(),
        "5 goats captured, but the tigers win on capturing 4: no game gets there"
    );
    assert_eq!(rules.check_position(&after), Ok(()));
}

#[test]
fn a_side_with_no_move_loses() {
    let rules = five();
    // every corner tiger walled in: its 3 neighbours and the 3 points beyond them hold goats
    let trapped = pos("TGGGT/GG.GG/G.G.G/GG.GG/TGGGT t 0 3");
    assert_eq!(rules.status(&trapped), Status::Over { winner: Side::Goat, reason: EndReason::TigersTrapped });
    assert!(rules.moves(&trapped).is_empty());
    // the same board with the goats to move: they can move, the game goes on
    let goats_move = pos("TGGGT/GG.GG/G.G.G/GG.GG/TGGGT g 0 3");
    assert_eq!(rules.status(&goats_move), Status::Ongoing);
    // the goats' two empty points are walled off by tigers: after placing, no goat can move
    let blocked = pos("GGGGT/GGGGG/GGGGG/TTGGG/..TGG g 0 1");
    assert_eq!(rules.status(&blocked), Status::Over { winner: Side::Tiger, reason: EndReason::GoatsBlocked });
    assert!(rules.moves(&blocked).is_empty());
    let e = parse_move(&rules, &blocked, "d1-c1").unwrap_err();
    assert_eq!(e.to_string(), "d1-c1: the game is over (the tigers won: no goat can move)");
}

#[test]
fn the_rules_take_capture_targets_1_to_5() {
    assert_eq!(Rules::new(5), Ok(Rules::default()));
    assert_eq!(Rules::new(4).unwrap().capture_target(), 4);
    assert_eq!(Rules::new(1).unwrap().capture_target(), 1);
    for bad in [0, 6, 20] {
        assert_eq!(Rules::new(bad), Err(RulesError::CaptureTarget { target: bad }));
    }
    assert_eq!(Rules::new(6).unwrap_err().to_string(), "capture target 6 is not in 1..=5");
}

// ---------------------------------------------------------------------------
// Notation

#[test]
fn positions_and_moves_print_as_they_read() {
    for text in [
        START,
        "T...T/...../...../.G.../T...T t 19 0",
        "TGGGT/GG.GG/G.G.G/GG.GG/TGGGT t 0 3",
        "GGGGT/GGGGG/GGGGG/TTGGG/..TGG g 1 0",
    ] {
        assert_eq!(format_position(&pos(text)), text);
    }
    // blanks around and between the fields are free
    assert_eq!(pos("  T...T/...../...../...../T...T   g 20  0 "), Position::START);
    for text in ["c3", "a1", "e5", "c3-c4", "a1xc3", "e5xc3", "c1xa3"] {
        assert_eq!(parse_move_text(text).unwrap().to_string(), text);
    }
    assert_eq!(
        parse_move_text("c1xa3").unwrap(),
        Move::Jump("c1".parse().unwrap(), "b2".parse().unwrap(), "a3".parse().unwrap())
    );
    assert_eq!(parse_move_text("c2").unwrap(), Move::Place(Point::new(7)));
}

/// Reading `text` fails with `error`, whose message is `message`.
fn refused(text: &str, error: ParseError, message: &str) {
    let e = parse_position(text).unwrap_err();
    assert_eq!(e, error, "{text}");
    assert_eq!(e.to_string(), message, "{text}");
}

#[test]
fn bad_positions_name_the_problem() {
    refused(
        "T...T/...../...../...../T...T g 20",
        ParseError::FieldCount { found: 3 },
        concat!(
            "expected 4 fields separated by spaces (the board, the side to move g or t, the goats still to place ",
            "and the goats captured, e.g. 'T...T/...../...../...../T...T g 20 0'), found 3"
        ),
    );
    refused(
        "T...T/...../...../T...T g 20 0",
        ParseError::RankCount { found: 4 },
        "expected 5 ranks separated by '/', found 4",
    );
    refused(
        "T...T/...../..../...../T...T g 20 0",
        ParseError::RankWidth { rank: 3, found: 4 },
        "rank 3 has 4 points, expected 5",
    );
    refused(
        "T...T/...../..S../...../T...T g 20 0",
        ParseError::BadPiece { rank: 3, character: 3, point: "c3".parse().unwrap(), found: 'S' },
        "rank 3, character 3 (c3): 'S' is not T, G or '.'",
    );
    refused(
        "T...T/...../...../...../T...T s 20 0",
        ParseError::BadSide { found: "s".into() },
        "side to move 's' is not g or t",
    );
    for (text, field, found) in [
        ("T...T/...../...../...../T...T g 21 0", "goats to place", "21"),
        ("T...T/...../...../...../T...T g 20 -1", "goats captured", "-1"),
        ("T...T/...../...../...../T...T g +20 0", "goats to place", "+20"),
        ("T...T/...../...../...../T...T g 20 x", "goats captured", "x"),
    ] {
        let message = format!("{field} '{found}' is not a whole number from 0 to 20");
        refused(text, ParseError::BadCount { field, found: found.into() }, &message);
    }
    refused(
        "T...T/...../..T../...../T...T g 20 0",
        ParseError::TigerCount { found: 5 },
        "5 tigers (there are always 4)",
    );
    refused(
        "T...T/...../...../...../T...T g 19 0",
        ParseError::GoatTotal { on_board: 0, to_place: 19, captured: 0, total: 20 },
        "goats on the board (0) + to place (19) + captured (0) make 19, not 20",
    );
    refused(
        "T...T/...../..G../...../T...T g 19 1",
        ParseError::GoatTotal { on_board: 1, to_place: 19, captured: 1, total: 20 },
        "goats on the board (1) + to place (19) + captured (1) make 21, not 20",
    );
    refused(
        "T...T/...../...../...../T...T g 14 6",
        ParseError::TooManyCaptured { captured: 6 },
        "6 goats captured (at most 5: the tigers have won by then)",
    );
    assert_eq!(Position::new(1 << 25 | 15, 0, Side::Goat, 20, 0), Err(ParseError::OutsideBoard));
    assert_eq!(Position::new(15, 1, Side::Goat, 19, 0), Err(ParseError::SharedPoint));
}

#[test]
fn bad_and_illegal_moves_name_the_problem() {
    let rules = five();
    let start = Position::START;
    let placed = pos("T...T/...../...../.G.../T...T t 19 0");
    let moving = pos("TGGGT/GGGG./GGG../GGGG./T.GGT g 0 4");
    let cases: [(&Position, &str, &str); 17] = [
        (&start, "c3c4", "'c3c4' is not a move (expected a placement like c3, a step like c3-c4 or a jump like a1xc3)"),
        (
            &start,
            "c3-c4-c5",
            "'c3-c4-c5' is not a move (expected a placement like c3, a step like c3-c4 or a jump like a1xc3)",
        ),
        (&start, "f3", "f3: 'f3' is not a point (expected a file a-e and a rank 1-5, e.g. c3)"),
        (&start, "c33", "'c33' is not a move (expected a placement like c3, a step like c3-c4 or a jump like a1xc3)"),
        (&start, "c3-c6", "c3-c6: 'c6' is not a point (expected a file a-e and a rank 1-5, e.g. c3)"),
        (&placed, "a1xb3", "a1xb3: a jump goes exactly two points along a straight line"),
        (&start, "a1", "a1: a1 is occupied"),
        (&start, "c3-c4", "c3-c4: 20 goats are still to be placed, and goats on the board move only once all are"),
        (&start, "a1xc3", "a1xc3: goats cannot jump"),
        (&placed, "c3", "c3: the tigers are to move, and only goats are placed"),
        (&moving, "e4", "e4: every goat is placed; goats now step along a line (e.g. c3-c4)"),
        (&moving, "e4-e3", "e4-e3: no goat on e4 (goats to move)"),
        (&placed, "b2-b3", "b2-b3: no tiger on b2 (tigers to move)"),
        (&placed, "a1-b2", "a1-b2: b2 is occupied"),
        (&moving, "d5-e4", "d5-e4: no line joins d5 and e4"),
        (&placed, "a1xa3", "a1xa3: no goat on a2 to jump over"),
        (
            &pos("T...T/...../...../TG.../....T t 19 0"),
            "a2xc4",
            "a2xc4: a2, b3 and c4 are not consecutive points of one line",
        ),
    ];
    for (p, text, message) in cases {
        let e = parse_move(&rules, p, text).unwrap_err();
        assert_eq!(e.to_string(), message, "{}: {text}", format_position(p));
    }
}

#[test]
fn the_picture_draws_the_lines() {
    let picture = board_picture(&pos("T...T/...../...../.G.../T...T t 19 0"));
    let expected = "\
5  T---.---.---.---T
   | \\ | / | \\ | / |
4  .---.---.---.---.
   | / | \\ | / | \\ |
3  .---.---.---.---.
   | \\ | / | \\ | / |
2  .---G---.---.---.
   | / | \\ | / | \\ |
1  T---.---.---.---T
   a   b   c   d   e
tigers to move; 19 goats to place, 1 on the board, 0 captured
";
    assert_eq!(picture, expected);
}

// ---------------------------------------------------------------------------
// Properties of random games

/// The moves of a position, generated naively from the rule text on a 5x5
/// grid of characters read from the notation (no bitboards, no tables).
fn naive_moves(rules: &Rules, p: &Position) -> BTreeSet<String> {
    let text = format_position(p);
    let fields: Vec<&str> = text.split(' ').collect();
    let rows: Vec<Vec<char>> = fields[0].split('/').rev().map(|r| r.chars().collect()).collect();
    let at = |x: i32, y: i32| -> Option<char> {
        (0..5).contains(&x).then_some(())?;
        (0..5).contains(&y).then_some(())?;
        Some(rows[y as usize][x as usize])
    };
    let name = |x: i32, y: i32| format!("{}{}", (b'a' + x as u8) as char, y + 1);
    let line = |x: i32, y: i32, dx: i32, dy: i32| dx == 0 || dy == 0 || (x + y) % 2 == 0;
    let (to_place, captured): (u8, u8) = (fields[2].parse().unwrap(), fields[3].parse().unwrap());
    let mut out = BTreeSet::new();
    if captured >= rules.capture_target() {
        return out;
    }
    let mover = if fields[1] == "g" { 'G' } else { 'T' };
    for y in 0..5 {
        for x in 0..5 {
            if mover == 'G' && to_place > 0 {
                if at(x, y) == Some('.') {
                    out.insert(name(x, y));
                }
                continue;
            }
            if at(x, y) != Some(mover) {
                continue;
            }
            for (dx, dy) in [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)] {
                if !line(x, y, dx, dy) {
                    continue;
                }
                if at(x + dx, y + dy) == Some('.') {
                    out.insert(format!("{}-{}", name(x, y), name(x + dx, y + dy)));
                }
                if mover == 'T' && at(x + dx, y + dy) == Some('G') && at(x + 2 * dx, y + 2 * dy) == Some('.') {
                    out.insert(format!("{}x{}", name(x, y), name(x + 2 * dx, y + 2 * dy)));
                }
            }
        }
    }
    out
}

/// The positions of a random game from the start: each choice picks a move
/// (modulo the number of moves) until the choices run out or the game ends.
fn random_game(rules: &Rules, choices: &[u32]) -> Vec<Position> {
    let mut p = Position::START;
    let mut seen = vec![p];
    for &c in choices {
        let moves = rules.moves(&p);
        if moves.is_empty() {
            break;
        }
        p = rules.play(&p, moves[c as usize % moves.len()]);
        seen.push(p);
    }
    seen
}

/// The random games below reach the moving phase and the end of the game:
/// with a fixed stream of choices, count what 300 games of up to 300 plies meet.
#[test]
fn random_games_reach_every_phase() {
    let rules = five();
    let mut state: u64 = 1;
    let (mut moving, mut ends) = (0, BTreeSet::new());
    for _ in 0..300 {
        let choices: Vec<u32> = (0..300)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (state >> 33) as u32
            })
            .collect();
        let game = random_game(&rules, &choices);
        moving += game.iter().filter(|p| !p.placing()).count();
        if let Status::Over { reason, .. } = rules.status(game.last().unwrap()) {
            ends.insert(format!("{reason:?}"));
        }
    }
    assert!(moving > 1_000, "{moving}");
    // (3,850 positions after placing; both ways of ending occur)
    assert!(ends.contains("CaptureTarget") && ends.contains("TigersTrapped"), "{ends:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every position of a random game (placing and moving, up to 150 plies):
    /// the notation round trips, the moves are the naive generator's, each is
    /// accepted by check_move and read back from its text, the move count is
    /// the list's length, and the status agrees with the move list.
    #[test]
    fn random_games_follow_the_rule_text(choices in prop::collection::vec(any::<u32>(), 0..150), target in 4u8..=5) {
        let rules = Rules::new(target).unwrap();
        for p in random_game(&rules, &choices) {
            let text = format_position(&p);
            prop_assert_eq!(parse_position(&text), Ok(p));
            prop_assert_eq!(rules.check_position(&p), Ok(()));
            let moves = rules.moves(&p);
            prop_assert_eq!(move_set(&rules, &p), naive_moves(&rules, &p), "{}", text);
            prop_assert_eq!(rules.move_count(&p), moves.len() as u64);
            prop_assert_eq!(rules.status(&p) == Status::Ongoing, !moves.is_empty(), "{}", text);
            for m in moves {
                prop_assert_eq!(parse_move(&rules, &p, &m.to_string()), Ok(m));
                let child = rules.play(&p, m);
                prop_assert_eq!(child.side(), p.side().other());
                prop_assert_eq!(child.captured() - p.captured(), matches!(m, Move::Jump(..)) as u8);
            }
        }
    }

    /// The 8 symmetries map a position's moves onto its image's moves, commute
    /// with play, keep the status, and share one canonical form.
    #[test]
    fn symmetries_preserve_the_game(choices in prop::collection::vec(any::<u32>(), 0..120)) {
        let rules = five();
        for p in random_game(&rules, &choices) {
            let c = canonical(&p);
            prop_assert_eq!(canonical(&c), c);
            let moves = rules.moves(&p);
            for s in Symmetry::ALL {
                let image = s.position(&p);
                prop_assert_eq!(s.inverse().position(&image), p);
                prop_assert_eq!(canonical(&image), c);
                prop_assert_eq!(rules.status(&image), rules.status(&p));
                prop_assert_eq!(rules.move_count(&image), moves.len() as u64);
                let mapped: BTreeSet<String> = moves.iter().map(|&m| s.mv(m).to_string()).collect();
                prop_assert_eq!(&mapped, &move_set(&rules, &image));
                for &m in &moves {
                    prop_assert_eq!(s.position(&rules.play(&p, m)), rules.play(&image, s.mv(m)));
                }
            }
        }
    }

    /// Any legal set of parts is a position that reads back as it prints.
    #[test]
    fn any_position_round_trips(
        tigers in prop::sample::subsequence((0u8..25).collect::<Vec<_>>(), 4),
        goat_bits in 0u32..1 << 25,
        captured in 0u8..=5,
        tiger_side in any::<bool>(),
    ) {
        let tigers: u32 = tigers.iter().map(|&t| 1u32 << t).sum();
        let mut goats = goat_bits & !tigers;
        while goats.count_ones() + captured as u32 > 20 {
            goats &= goats - 1;
        }
        let to_place = 20 - captured - goats.count_ones() as u8;
        let side = if tiger_side { Side::Tiger } else { Side::Goat };
        let p = Position::new(tigers, goats, side, to_place, captured).unwrap();
        prop_assert_eq!(parse_position(&format_position(&p)), Ok(p));
    }
}
