//! Hand-worked positions for every rule of RULES.md.
//!
//! Each position is written out in RULES.md notation; the expected moves,
//! children and statuses were worked out by hand from the rule text (the
//! reasoning is in the comments), not copied from the library's output.
//!
//! Point names used below, with the rank layout of the notation
//! (ranks 7 down to 1, existing points left to right):
//!
//! ```text
//! 7        c7 d7 e7
//! 6        c6 d6 e6
//! 5  a5 b5 c5 d5 e5 f5 g5
//! 4  a4 b4 c4 d4 e4 f4 g4
//! 3  a3 b3 c3 d3 e3 f3 g3
//! 2        c2 d2 e2
//! 1        c1 d1 e1
//! ```

use foxbase_core::board::Geometry;
use foxbase_core::notation::{format_position, parse_move, parse_move_text, parse_position};
use foxbase_core::rules::{EndReason, Move, Rules, Status};
use foxbase_core::{Position, Side, Variant};

const CLASSIC: Geometry = Geometry::Classic;
const ORTHOGONAL: Geometry = Geometry::Orthogonal;

/// Builds a position's notation from piece lists, independently of the library
/// (checked against hand-written strings in `helper_writes_the_notation`).
fn board(foxes: &[&str], sheep: &[&str], side: char) -> String {
    let files = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    let mut ranks = Vec::new();
    for y in (1..=7).rev() {
        let mut rank = String::new();
        for (i, file) in files.iter().enumerate() {
            let x = i + 1;
            if !((3..=5).contains(&y) || (3..=5).contains(&x)) {
                continue;
            }
            let name = format!("{file}{y}");
            rank.push(if foxes.contains(&name.as_str()) {
                'F'
            } else if sheep.contains(&name.as_str()) {
                'S'
            } else {
                '.'
            });
        }
        ranks.push(rank);
    }
    format!("{} {side}", ranks.join("/"))
}

fn pos(text: &str) -> Position {
    parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The legal moves of a position as strings, in generation order.
fn move_list(rules: &Rules, text: &str) -> Vec<String> {
    rules.moves(&pos(text)).iter().map(|m| m.to_string()).collect()
}

/// Checks and plays a sequence of moves, returning the final position in notation.
fn play(rules: &Rules, text: &str, moves: &[&str]) -> String {
    let mut p = pos(text);
    for m in moves {
        let mv = parse_move(rules, &p, m).unwrap_or_else(|e| panic!("{m} in {}: {e}", format_position(&p)));
        p = rules.play(&p, mv);
    }
    format_position(&p)
}

fn over(winner: Side, reason: EndReason) -> Status {
    Status::Over { winner, reason }
}

fn check_err(rules: &Rules, text: &str, mv: &str) -> String {
    let m = parse_move_text(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    rules.check_move(&pos(text), m).expect_err(mv).to_string()
}

#[test]
fn helper_writes_the_notation() {
    let ranks1to4 = [
        "a4", "b4", "c4", "d4", "e4", "f4", "g4", "a3", "b3", "c3", "d3", "e3", "f3", "g3", "c2", "d2", "e2", "c1",
        "d1", "e1",
    ];
    assert_eq!(board(&["c7", "e7"], &ranks1to4, 'f'), foxbase_core::variant::DEFAULT_START);
    assert_eq!(board(&["g3"], &["c7", "d1"], 's'), "S../.../......./......./......F/.../.S. s");
}

// ---------------------------------------------------------------------------
// End of a sheep move, step 2: trapped foxes are removed.

/// Orthogonal. Fox c7 has the lines c7-d7 and c7-c6, and the jumps over d7 to
/// e7 and over c6 to c5. With sheep on d7, e7 and c5, the sheep step d6-c6
/// (sideways, legal) fills c6: c7 has no step and both jumps land on sheep, so
/// the fox is removed. Fox g3 (steps f3, g4) stays. 4 sheep in the pen < 9.
const TRAP_BEFORE: &str = "FSS/.S./..S..../......./......F/SSS/SSS s";

#[test]
fn a_fox_with_no_step_and_no_jump_is_removed_after_a_sheep_move() {
    assert_eq!(board(&["c7", "g3"], &["d7", "e7", "d6", "c5", "c2", "d2", "e2", "c1", "d1", "e1"], 's'), TRAP_BEFORE);
    let rules = Rules::new(ORTHOGONAL, 9);
    let before = pos(TRAP_BEFORE);
    assert_eq!(before.fox_count(), 2);
    let after = play(&rules, TRAP_BEFORE, &["d6-c6"]);
    assert_eq!(after, ".SS/S../..S..../......./......F/SSS/SSS f");
    let after = pos(&after);
    assert_eq!(after.fox_count(), 1);
    assert_eq!(rules.status(&after), Status::Ongoing);
    assert_eq!(rules.moves(&after).iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["g3-f3", "g3-g4"]);
}

#[test]
fn the_same_sheep_move_does_not_trap_in_classic_because_of_the_diagonal() {
    // In classic c7-d6 is a line (3+7 and 4+6 are even); d6 is empty after d6-c6.
    let rules = Rules::new(CLASSIC, 9);
    let after = play(&rules, TRAP_BEFORE, &["d6-c6"]);
    assert_eq!(after, "FSS/S../..S..../......./......F/SSS/SSS f");
    assert_eq!(pos(&after).fox_count(), 2);
    // c7: step to d6; jump over d6? d6 is empty, so no. g3: f3 and g4; in classic
    // g3 (7+3 even) also has the diagonal g3-f4 (6+4 even) and g3-f2 does not exist.
    assert_eq!(move_list(&rules, &after), ["g3-f3", "g3-f4", "g3-g4", "c7-d6"]);
}

#[test]
fn a_trapped_fox_is_not_removed_after_a_fox_move() {
    // Orthogonal: fox c7 is trapped (d7, c6 sheep; jumps land on e7 and c5, both
    // sheep). Fox g3 moves; c7 stays on the board, trapped, until the next sheep move.
    let rules = Rules::new(ORTHOGONAL, 9);
    let start = "FSS/S../..S..../......./......F/SSS/SSS f";
    let p = pos(start);
    assert_eq!(rules.trapped_foxes(p.sheep(), p.foxes()), "c7".parse::<foxbase_core::Point>().unwrap().bit());
    assert_eq!(move_list(&rules, start), ["g3-f3", "g3-g4"]);
    let after_fox = play(&rules, start, &["g3-f3"]);
    assert_eq!(after_fox, "FSS/S../..S..../......./.....F./SSS/SSS s");
    assert_eq!(pos(&after_fox).fox_count(), 2);
    assert_eq!(rules.status(&pos(&after_fox)), Status::Ongoing);
    // Any sheep move that leaves c7 trapped now removes it: d2-d3.
    let after_sheep = play(&rules, &after_fox, &["d2-d3"]);
    assert_eq!(after_sheep, ".SS/S../..S..../......./...S.F./S.S/SSS f");
    assert_eq!(pos(&after_sheep).fox_count(), 1);
}

#[test]
fn a_fox_whose_only_move_is_a_jump_is_not_removed() {
    // Orthogonal: fox c7 with sheep d7, e7, c6 and c5 empty: no step, but the
    // jump c7xc5. A sheep move elsewhere (d2-d3) leaves it on the board.
    let rules = Rules::new(ORTHOGONAL, 9);
    let after = play(&rules, "FSS/S../......./......./......./SSS/SSS s", &["d2-d3"]);
    assert_eq!(after, "FSS/S../......./......./...S.../S.S/SSS f");
    assert_eq!(move_list(&rules, &after), ["c7xc5"]);
}

#[test]
fn both_foxes_trapped_by_one_sheep_move_means_no_foxes_and_a_sheep_win() {
    // Orthogonal: foxes c7 and e7, sheep c6 d6 e6 c5 e5 (+ ranks 1-2). d6-d7
    // fills the only empty neighbour of both foxes; c7's jumps go over d7 to e7
    // (a fox) and over c6 to c5 (a sheep); e7's likewise. Both are removed.
    let before = "F.F/SSS/..S.S../......./......./SSS/SSS s";
    assert_eq!(board(&["c7", "e7"], &["c6", "d6", "e6", "c5", "e5", "c2", "d2", "e2", "c1", "d1", "e1"], 's'), before);
    let rules = Rules::new(ORTHOGONAL, 9);
    let after = play(&rules, before, &["d6-d7"]);
    assert_eq!(after, ".S./S.S/..S.S../......./......./SSS/SSS f");
    let after = pos(&after);
    assert_eq!(after.fox_count(), 0);
    assert_eq!(rules.status(&after), over(Side::Sheep, EndReason::NoFoxes));
    assert!(rules.moves(&after).is_empty());

    // In classic both foxes keep the diagonal step to d6.
    let classic = Rules::new(CLASSIC, 9);
    let after = play(&classic, before, &["d6-d7"]);
    assert_eq!(after, "FSF/S.S/..S.S../......./......./SSS/SSS f");
    assert_eq!(move_list(&classic, &after), ["c7-d6", "e7-d6"]);
}

#[test]
fn foxes_that_block_each_other_are_removed_together() {
    // Orthogonal: foxes c7 and d7 side by side, sheep c6 d6 c5 d5 (+ ranks 1-2).
    // After e6-e7, c7 is hemmed in by d7 (a fox: no step, no jump over it) and
    // c6 (jump lands on c5, a sheep); d7 by c7, e7 and d6 (jump lands on d5;
    // there is no f7 behind e7). "Every fox that has no legal step and no legal
    // jump is removed" is judged once, on the board after the sheep move, so
    // both go, although removing either one alone would free the other.
    let before = "FF./SSS/..SS.../......./......./SSS/SSS s";
    let rules = Rules::new(ORTHOGONAL, 9);
    let after = play(&rules, before, &["e6-e7"]);
    assert_eq!(after, "..S/SS./..SS.../......./......./SSS/SSS f");
    assert_eq!(rules.status(&pos(&after)), over(Side::Sheep, EndReason::NoFoxes));
}

// ---------------------------------------------------------------------------
// End of a sheep move, step 1: the pen.

/// Orthogonal, K = 9. Eight sheep in the pen (all but e5); fox g5 has sheep on
/// f5, g4, g3, so its only move is the jump g5xe5. The sheep step e4-e5 is the
/// 9th sheep in the pen and also traps g5.
const PEN_BEFORE: &str = "SSS/SSS/..SS.SF/....S.S/F.....S/.../... s";

#[test]
fn the_ninth_sheep_in_the_pen_wins_and_no_fox_is_removed() {
    assert_eq!(
        board(&["a3", "g5"], &["c7", "d7", "e7", "c6", "d6", "e6", "c5", "d5", "f5", "e4", "g4", "g3"], 's'),
        PEN_BEFORE
    );
    let rules = Rules::new(ORTHOGONAL, 9);
    assert_eq!(move_list(&rules, &PEN_BEFORE.replace(" s", " f")), ["a3-b3", "a3-a4", "g5xe5"]);
    let after = play(&rules, PEN_BEFORE, &["e4-e5"]);
    assert_eq!(after, "SSS/SSS/..SSSSF/......S/F.....S/.../... f");
    let after = pos(&after);
    assert_eq!(after.fox_count(), 2, "step 1 ends the game before any fox is removed");
    assert_ne!(rules.trapped_foxes(after.sheep(), after.foxes()), 0, "g5 is trapped but stays");
    assert_eq!(rules.status(&after), over(Side::Sheep, EndReason::PenFilled));
    assert!(rules.moves(&after).is_empty());
}

#[test]
fn eight_sheep_in_the_pen_do_not_win_and_the_trapped_fox_goes() {
    // The same without the sheep on c7: after e4-e5 the pen holds 8 < 9.
    let rules = Rules::new(ORTHOGONAL, 9);
    let after = play(&rules, ".SS/SSS/..SS.SF/....S.S/F.....S/.../... s", &["e4-e5"]);
    assert_eq!(after, ".SS/SSS/..SSSS./......S/F.....S/.../... f");
    assert_eq!(rules.status(&pos(&after)), Status::Ongoing);
    assert_eq!(move_list(&rules, &after), ["a3-b3", "a3-a4"]);
}

#[test]
fn pen_completion_with_a_small_pen_target() {
    // Fox d7; sheep c5 (in the pen), d4, d1. d4-d5 puts a 2nd sheep in the pen.
    let before = ".F./.../..S..../...S.../......./.../.S. s";
    let after = ".F./.../..SS.../......./......./.../.S. f";
    let k2 = Rules::new(CLASSIC, 2);
    assert_eq!(play(&k2, before, &["d4-d5"]), after);
    assert_eq!(k2.status(&pos(after)), over(Side::Sheep, EndReason::PenFilled));
    assert!(k2.moves(&pos(after)).is_empty());
    // With K = 3 two sheep in the pen are not enough.
    let k3 = Rules::new(CLASSIC, 3);
    assert_eq!(play(&k3, before, &["d4-d5"]), after);
    assert_eq!(k3.status(&pos(after)), Status::Ongoing);
    // K = 2 by a sideways step into the pen: b5-c5 next to d5.
    assert_eq!(
        play(&k2, ".F./.../.S.S.../......./......./.../... s", &["b5-c5"]),
        ".F./.../..SS.../......./......./.../... f"
    );
    assert_eq!(k2.status(&pos(".F./.../..SS.../......./......./.../... f")), over(Side::Sheep, EndReason::PenFilled));
}

// ---------------------------------------------------------------------------
// End of a fox move: too few sheep.

#[test]
fn a_capture_below_k_sheep_wins_for_the_foxes() {
    // Fox a3 jumps b3 (a3-b3-c3 is an orthogonal line in both geometries).
    // 9 sheep before, 8 after: 8 < 9, the foxes win.
    for g in Geometry::ALL {
        let rules = Rules::new(g, 9);
        let before = ".../.../S.....S/......./FS...../SSS/SSS f";
        assert_eq!(pos(before).sheep_count(), 9);
        let after = play(&rules, before, &["a3xc3"]);
        assert_eq!(after, ".../.../S.....S/......./..F..../SSS/SSS s");
        assert_eq!(rules.status(&pos(&after)), over(Side::Fox, EndReason::TooFewSheep));
        assert!(rules.moves(&pos(&after)).is_empty());
    }
}

#[test]
fn a_capture_leaving_exactly_k_sheep_does_not_end_the_game() {
    for g in Geometry::ALL {
        let rules = Rules::new(g, 9);
        let after = play(&rules, ".../.../S.....S/......S/FS...../SSS/SSS f", &["a3xc3"]);
        assert_eq!(after, ".../.../S.....S/......S/..F..../SSS/SSS s");
        assert_eq!(pos(&after).sheep_count(), 9);
        assert_eq!(rules.status(&pos(&after)), Status::Ongoing);
    }
    // K = 2: one sheep left of two is too few.
    let rules = Rules::new(ORTHOGONAL, 2);
    let after = play(&rules, ".../.../......./......./FS....S/.../... f", &["a3xc3"]);
    assert_eq!(after, ".../.../......./......./..F...S/.../... s");
    assert_eq!(rules.status(&pos(&after)), over(Side::Fox, EndReason::TooFewSheep));
}

// ---------------------------------------------------------------------------
// Jumps and geometry.

/// Fox c3, sheep d4. In classic c3 (3+3), d4 (4+4) and e5 (5+5) are even, so
/// c3-d4-e5 is a diagonal jump; in orthogonal it is not.
const DIAG: &str = ".../.../......./...S.../..F..../.../... f";

#[test]
fn a_diagonal_jump_exists_in_classic_only() {
    let classic = Rules::new(CLASSIC, 1);
    // Steps in point order: c2, d2 (diagonal), b3, d3, b4 (diagonal), c4;
    // d4 is a sheep; then the one jump. Jumps are not forced: steps are listed too.
    assert_eq!(move_list(&classic, DIAG), ["c3-c2", "c3-d2", "c3-b3", "c3-d3", "c3-b4", "c3-c4", "c3xe5"]);
    assert!(classic.check_move(&pos(DIAG), parse_move_text("c3-c2").unwrap()).is_ok());
    let after = play(&classic, DIAG, &["c3xe5"]);
    assert_eq!(after, ".../.../....F../......./......./.../... s");
    assert_eq!(classic.status(&pos(&after)), over(Side::Fox, EndReason::TooFewSheep));

    let ortho = Rules::new(ORTHOGONAL, 1);
    assert_eq!(move_list(&ortho, DIAG), ["c3-c2", "c3-b3", "c3-d3", "c3-c4"]);
    assert_eq!(check_err(&ortho, DIAG, "c3xe5"), "c3xe5: c3 and e5 are not two lines apart on one straight line");
    assert_eq!(check_err(&ortho, DIAG, "c3-d4"), "c3-d4: d4 is occupied");
    assert_eq!(check_err(&ortho, DIAG, "c3-d2"), "c3-d2: no line joins c3 and d2 in the orthogonal geometry");
}

#[test]
fn no_diagonal_through_odd_points_even_in_classic() {
    // d3 (4+3) and e4 (5+4) are odd: no line d3-e4, no jump d3xf5.
    let rules = Rules::new(CLASSIC, 1);
    let p = ".../.../......./....S../...F.../.../... f";
    assert_eq!(check_err(&rules, p, "d3xf5"), "d3xf5: d3 and f5 are not two lines apart on one straight line");
    assert_eq!(check_err(&rules, p, "d3-e2"), "d3-e2: no line joins d3 and e2 in the classic geometry");
    // d3: d2, c3, e3, d4 (no diagonals); no jump (e4 is not in line with d3).
    assert_eq!(move_list(&rules, p), ["d3-d2", "d3-c3", "d3-e3", "d3-d4"]);
}

#[test]
fn a_fox_cannot_jump_a_fox() {
    let rules = Rules::new(ORTHOGONAL, 1);
    let p = ".../.../......./......./..FF.../.../... f";
    assert_eq!(move_list(&rules, p), ["c3-c2", "c3-b3", "c3-c4", "d3-d2", "d3-e3", "d3-d4"]);
    assert_eq!(check_err(&rules, p, "c3xe3"), "c3xe3: no sheep on d3");
    assert_eq!(check_err(&rules, p, "d3xb3"), "d3xb3: no sheep on c3");
}

#[test]
fn a_jump_needs_an_empty_landing_point() {
    // Classic: fox e5, sheep d4 and c3: e5xc3 lands on a sheep.
    let rules = Rules::new(CLASSIC, 1);
    let p = ".../.../....F../...S.../..S..../.../... f";
    assert_eq!(check_err(&rules, p, "e5xc3"), "e5xc3: c3 is occupied");
    // Without the sheep on c3 it is legal and removes d4.
    let q = ".../.../....F../...S.../......./.../... f";
    assert_eq!(play(&rules, q, &["e5xc3"]), ".../.../......./......./..F..../.../... s");
}

// ---------------------------------------------------------------------------
// Sheep steps.

#[test]
fn sheep_step_sideways_and_forward_never_back() {
    // Sheep d4 (even point) alone with fox d7; K = 1 so the position is legal play.
    let p = ".F./.../......./...S.../......./.../... s";
    let classic = Rules::new(CLASSIC, 1);
    // Sideways c4 e4, forward c5 (diagonal) d5 e5 (diagonal); not c3 d3 e3.
    assert_eq!(move_list(&classic, p), ["d4-c4", "d4-e4", "d4-c5", "d4-d5", "d4-e5"]);
    assert_eq!(check_err(&classic, p, "d4-d3"), "d4-d3: a sheep may not step to a lower rank");
    assert_eq!(check_err(&classic, p, "d4-c3"), "d4-c3: a sheep may not step to a lower rank");
    assert_eq!(check_err(&classic, p, "d4-e3"), "d4-e3: a sheep may not step to a lower rank");
    assert_eq!(check_err(&classic, p, "d4xd6"), "d4xd6: sheep cannot jump");

    let ortho = Rules::new(ORTHOGONAL, 1);
    assert_eq!(move_list(&ortho, p), ["d4-c4", "d4-e4", "d4-d5"]);
    assert!(check_err(&ortho, p, "d4-d3").contains("lower rank"));
    assert_eq!(check_err(&ortho, p, "d4-c3"), "d4-c3: no line joins d4 and c3 in the orthogonal geometry");

    // An odd point (e4: 5+4) has no diagonals even in classic.
    assert_eq!(move_list(&classic, ".F./.../......./....S../......./.../... s"), ["e4-d4", "e4-f4", "e4-e5"]);
}

// ---------------------------------------------------------------------------
// No legal move.

#[test]
fn sheep_without_a_legal_move_lose() {
    // Sheep a5, b5 and fox c5: a5 can only go to b5 (a6, b6 do not exist and
    // a4, b4 are lower); b5 only to a5 or c5. K = 2 (2 sheep, not too few).
    for g in Geometry::ALL {
        let rules = Rules::new(g, 2);
        let p = pos(".../.../SSF..../......./......./.../... s");
        assert!(!rules.has_move(&p));
        assert!(rules.moves(&p).is_empty());
        assert_eq!(rules.status(&p), over(Side::Fox, EndReason::NoMoves));
    }
}

#[test]
fn foxes_without_a_legal_move_lose_in_a_set_up_position() {
    // Orthogonal: fox c7 trapped by d7, e7, c6, c5, fox to move. 4 in the pen < 9.
    let p = "FSS/S../..S..../......./......./.../... f";
    let ortho = Rules::new(ORTHOGONAL, 9);
    assert!(ortho.moves(&pos(p)).is_empty());
    assert_eq!(ortho.status(&pos(p)), over(Side::Sheep, EndReason::NoMoves));
    // Two foxes, both trapped: c7 as above, g5 by f5, g4 with jumps onto e5, g3.
    let p2 = "FSS/S../..S.SSF/......S/......S/.../... f";
    assert!(ortho.moves(&pos(p2)).is_empty());
    assert_eq!(ortho.status(&pos(p2)), over(Side::Sheep, EndReason::NoMoves));
    // In classic c7 can step to d6.
    let classic = Rules::new(CLASSIC, 9);
    assert_eq!(move_list(&classic, p), ["c7-d6"]);
    assert_eq!(classic.status(&pos(p)), Status::Ongoing);
}

// ---------------------------------------------------------------------------
// Exact move lists.

#[test]
fn start_position_move_lists() {
    let start = foxbase_core::variant::DEFAULT_START;
    // c7: c6, d6 (diagonal), d7; e7: d6 (diagonal), e6, d7.
    assert_eq!(move_list(&Rules::new(CLASSIC, 9), start), ["c7-c6", "c7-d6", "c7-d7", "e7-d6", "e7-e6", "e7-d7"]);
    assert_eq!(move_list(&Rules::new(ORTHOGONAL, 9), start), ["c7-c6", "c7-d7", "e7-e6", "e7-d7"]);
    // Sheep first: only rank-4 sheep can move, all to rank 5; the even points
    // b4, d4, f4 add the diagonals in classic.
    let sheep_first = start.replace(" f", " s");
    assert_eq!(
        move_list(&Rules::new(CLASSIC, 9), &sheep_first),
        [
            "a4-a5", "b4-a5", "b4-b5", "b4-c5", "c4-c5", "d4-c5", "d4-d5", "d4-e5", "e4-e5", "f4-e5", "f4-f5", "f4-g5",
            "g4-g5"
        ]
    );
    assert_eq!(
        move_list(&Rules::new(ORTHOGONAL, 9), &sheep_first),
        ["a4-a5", "b4-b5", "c4-c5", "d4-d5", "e4-e5", "f4-f5", "g4-g5"]
    );
}

#[test]
fn a_short_game_in_classic() {
    // c7-d6, then d4-d5: the sheep on d5 stands between the fox on d6 and the
    // point d4 it just left, so d6xd4 is legal and captures it.
    let rules = Rules::new(CLASSIC, 9);
    let start = foxbase_core::variant::DEFAULT_START;
    let p = play(&rules, start, &["c7-d6", "d4-d5"]);
    assert_eq!(p, "..F/.F./...S.../SSS.SSS/SSSSSSS/SSS/SSS f");
    // Fox d6 (4+6 even): steps c7, d7, c6, e6, c5, e5 (diagonals to c7, e7, c5,
    // e5; e7 is a fox); jumps: over d5 to d4 (empty) only, since c5/e5 are empty.
    // Fox e7: steps d7, e6 (d6 is a fox); jumps over e6/d6: not sheep.
    assert_eq!(
        move_list(&rules, &p),
        ["d6-c5", "d6-e5", "d6-c6", "d6-e6", "d6-c7", "d6-d7", "d6xd4", "e7-e6", "e7-d7"]
    );
    let q = play(&rules, &p, &["d6xd4"]);
    assert_eq!(q, "..F/.../......./SSSFSSS/SSSSSSS/SSS/SSS s");
    assert_eq!(pos(&q).sheep_count(), 19);
}

// ---------------------------------------------------------------------------
// Malformed positions and moves.

#[test]
fn malformed_positions_are_named() {
    let cases = [
        ("F.F/.../....../SSSSSSS/SSSSSSS/SSS/SSS f", "rank 5 has 6 points, expected 7".to_string()),
        ("F.F/..../......./SSSSSSS/SSSSSSS/SSS/SSS f", "rank 6 has 4 points, expected 3".to_string()),
        ("F.F/.../...x.../SSSSSSS/SSSSSSS/SSS/SSS f", "rank 5, character 4 (d5): 'x' is not F, S or '.'".to_string()),
        ("F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSs f", "rank 1, character 3 (e1): 's' is not F, S or '.'".to_string()),
        ("FFF/.../......./SSSSSSS/SSSSSSS/SSS/SSS f", "3 foxes (at most 2)".to_string()),
        ("F.F/..S/......./SSSSSSS/SSSSSSS/SSS/SSS f", "21 sheep (at most 20)".to_string()),
        (
            "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS",
            "missing the side to move after the board (expected 'F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f' or \
             'F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS s')"
                .to_string(),
        ),
        ("F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS x", "side to move 'x' is not f or s".to_string()),
        ("F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS F", "side to move 'F' is not f or s".to_string()),
        ("F.F/.../......./SSSSSSS/SSSSSSS/SSS f", "expected 7 ranks separated by '/', found 6".to_string()),
        ("F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS/... f", "expected 7 ranks separated by '/', found 8".to_string()),
    ];
    for (text, message) in cases {
        assert_eq!(parse_position(text).unwrap_err().to_string(), message, "{text}");
    }
    // Surrounding white space is accepted.
    assert_eq!(parse_position("  F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f \n").unwrap(), Variant::default().start);
}

#[test]
fn malformed_move_texts_are_named() {
    let cases = [
        ("c7-c8", "c7-c8: c8 is not a point of the board"),
        ("a1-a2", "a1-a2: a1 is not a point of the board"),
        ("zz-c6", "zz-c6: 'zz' is not a square (expected a file a-g and a rank 1-7, e.g. d4)"),
        ("c7c6", "'c7c6' is not a move (expected a step like c7-c6 or a jump like e5xc3)"),
        ("c7-c6xc5", "'c7-c6xc5' is not a move (expected a step like c7-c6 or a jump like e5xc3)"),
        ("c7xc6", "c7xc6: a jump goes exactly two points along a straight line"),
        ("c7xd5", "c7xd5: a jump goes exactly two points along a straight line"),
    ];
    for (text, message) in cases {
        assert_eq!(parse_move_text(text).unwrap_err().to_string(), message, "{text}");
    }
    let m = parse_move_text(" e5xc3 ").unwrap();
    assert_eq!((m.from.to_string(), m.to.to_string(), m.jump), ("e5".into(), "c3".into(), true));
    assert_eq!(m.over().unwrap().to_string(), "d4");
}

#[test]
fn illegal_moves_are_named() {
    let start = foxbase_core::variant::DEFAULT_START;
    let sheep_first = start.replace(" f", " s");
    let classic = Rules::new(CLASSIC, 9);
    let ortho = Rules::new(ORTHOGONAL, 9);
    let err = |rules: &Rules, p: &str, m: &str| parse_move(rules, &pos(p), m).unwrap_err().to_string();

    // A jump over an empty point: fox e5, d4 empty.
    assert_eq!(err(&classic, ".../.../....F../......./......./.../... f", "e5xc3"), "e5xc3: no sheep on d4");
    // A step with no line.
    assert_eq!(err(&ortho, start, "c7-d6"), "c7-d6: no line joins c7 and d6 in the orthogonal geometry");
    assert_eq!(err(&classic, start, "c7-e7"), "c7-e7: e7 is occupied");
    assert_eq!(err(&classic, start, "c7-c5"), "c7-c5: no line joins c7 and c5 in the classic geometry");
    // An occupied target.
    assert_eq!(err(&classic, &sheep_first, "d3-d4"), "d3-d4: d4 is occupied");
    // The wrong side's piece, and no piece at all.
    assert_eq!(err(&classic, start, "d4-d5"), "d4-d5: no fox on d4 (fox to move)");
    assert_eq!(err(&classic, &sheep_first, "c7-d6"), "c7-d6: no sheep on c7 (sheep to move)");
    assert_eq!(err(&classic, start, "d6-d5"), "d6-d5: no fox on d6 (fox to move)");
    // The game is already over.
    assert_eq!(
        err(&ortho, ".S./S.S/..S.S../......./......./SSS/SSS f", "c6-c7"),
        "c6-c7: the game is over (sheep won: no fox remains)"
    );
    assert_eq!(
        err(&ortho, ".../.../S.....S/......./..F..../SSS/SSS s", "a5-b5"),
        "a5-b5: the game is over (fox won: too few sheep remain)"
    );
    assert_eq!(
        err(&ortho, "SSS/SSS/..SSSSF/......S/F.....S/.../... f", "a3-b3"),
        "a3-b3: the game is over (sheep won: the pen holds enough sheep)"
    );
    // A bad text is reported before any check against the position.
    assert_eq!(err(&classic, start, "c7-c8"), "c7-c8: c8 is not a point of the board");
}

#[test]
fn moves_display_as_in_the_notation() {
    let m = Move { from: "c7".parse().unwrap(), to: "c6".parse().unwrap(), jump: false };
    assert_eq!(m.to_string(), "c7-c6");
    assert_eq!(m.over(), None);
    assert_eq!(m.mirror().to_string(), "e7-e6");
    let j = Move { from: "e5".parse().unwrap(), to: "c3".parse().unwrap(), jump: true };
    assert_eq!(j.to_string(), "e5xc3");
    assert_eq!(j.mirror().to_string(), "c5xe3");
}
