//! The contract of play ([`Playable`]) for every game: the generic perft
//! against known counts, notation round trips, game-over statuses, and
//! the board shapes a drawing reads positions by.

use foxbase_core::baghchal::{self as bc, BaghChalVariant, PlayRules};
use foxbase_core::perft::{divide, perft};
use foxbase_core::play::{BoardShape, GameStatus, Playable, ShapePoint};
use foxbase_core::tictactoe::TicTacToe;
use foxbase_core::Variant;
use std::collections::HashMap;

/// Every position reached within `depth` plies reads back from its notation,
/// and `play` gives the position `for_each_move` reported.
fn round_trips<P: Playable>(rules: &P, pos: &P::Position, depth: u32) {
    assert_eq!(rules.parse_position(&rules.format_position(pos)), Ok(*pos));
    if depth == 0 {
        return;
    }
    for (m, after) in rules.moves(pos) {
        assert_eq!(rules.parse_move(pos, &m.to_string()), Ok(m));
        assert_eq!(rules.play(pos, m), after);
        round_trips(rules, &after, depth - 1);
    }
}

#[test]
fn perft_is_written_once_for_every_game() {
    let fox = Variant::default();
    assert_eq!((1..=3).map(|d| perft(&fox.rules(), &fox.start, d)).collect::<Vec<_>>(), [6, 78, 482]);
    let goats = PlayRules::new(BaghChalVariant::default());
    let start = bc::Position::START;
    for d in 1..=3 {
        assert_eq!(perft(&goats, &start, d), bc::perft(goats.rules(), &start, d), "depth {d}");
    }
    assert_eq!(perft(&goats, &start, 3), 5_052);
    // Tic-tac-toe: of its 255,168 games, 127,872 last all nine plies (81,792 won by X on the
    // last move, 46,080 drawn); 9 first moves, 72 replies.
    let empty = TicTacToe.parse_position(".../.../... x").unwrap();
    assert_eq!(perft(&TicTacToe, &empty, 9), 127_872);
    assert_eq!(perft(&TicTacToe, &empty, 2), 72);
    assert_eq!(divide(&TicTacToe, &empty, 1).len(), 9);
}

#[test]
fn notation_round_trips() {
    let fox = Variant::default();
    round_trips(&fox.rules(), &fox.start, 3);
    round_trips(&PlayRules::new(BaghChalVariant::new(3, 2).unwrap()), &BaghChalVariant::new(3, 2).unwrap().start(), 4);
    round_trips(&TicTacToe, &TicTacToe.parse_position("X../.O./... x").unwrap(), 7);
}

#[test]
fn statuses_name_the_winner_and_why() {
    let fox = Variant::default().rules();
    let no_fox = fox.parse_position(".S./S.S/..S.S../......./......./SSS/SSS f").unwrap();
    assert_eq!(Playable::status(&fox, &no_fox).describe(), "game over: the sheep won (no fox remains)");
    assert!(fox.moves(&no_fox).is_empty());
    let goats = PlayRules::new(BaghChalVariant::new(2, 2).unwrap());
    let captured = goats.parse_position("T...T/...../...../...../T...T t 0 2").unwrap();
    assert_eq!(goats.status(&captured).describe(), "game over: the tigers won (the tigers captured enough goats)");
    let line = TicTacToe.parse_position("XXX/OO./... o").unwrap();
    assert!(matches!(TicTacToe.status(&line), GameStatus::Over { winner: Some(p), .. } if p.name == "x"));
    assert_eq!(TicTacToe.status(&line).describe(), "game over: X won (three in a row)");
    let full = TicTacToe.parse_position("XOX/XOO/OXX o").unwrap();
    assert_eq!(TicTacToe.status(&full).describe(), "game over: a draw (the board is full)");
    assert_eq!(TicTacToe.parse_move(&full, "a1"), Err("a1: the game is over".to_string()));
    let open = TicTacToe.parse_position("X../.O./... x").unwrap();
    assert_eq!(TicTacToe.parse_move(&open, "b2"), Err("b2 is not empty".to_string()));
    assert_eq!(TicTacToe.to_move(&open).wins(), "X wins");
    assert_eq!(fox.to_move(&no_fox).wins(), "the foxes win");
}

/// The pieces of a position's text read as [`BoardShape`] says (point name ->
/// piece letter, or '.'), the side letter, and the counts after it.
fn read_by_shape(shape: &BoardShape, text: &str) -> (HashMap<String, char>, char, Vec<u64>) {
    let fields: Vec<&str> = text.split(' ').collect();
    let ranks: Vec<&str> = fields[0].split('/').collect();
    let mut ys: Vec<i32> = shape.points.iter().map(|p| p.y).collect();
    ys.sort_unstable_by(|a, b| b.cmp(a));
    ys.dedup();
    assert_eq!(ranks.len(), ys.len(), "{text}: a rank of text per rank of points");
    let mut at = HashMap::new();
    for (rank, y) in ranks.iter().zip(ys) {
        let mut row: Vec<&ShapePoint> = shape.points.iter().filter(|p| p.y == y).collect();
        row.sort_by_key(|p| p.x);
        assert_eq!(rank.chars().count(), row.len(), "{text}: rank {y}");
        for (c, p) in rank.chars().zip(row) {
            at.insert(p.name.clone(), c);
        }
    }
    let side = fields[1].chars().next().unwrap();
    assert_eq!(fields[1].len(), 1, "{text}");
    let counts = fields[2..].iter().map(|f| f.parse().unwrap()).collect();
    (at, side, counts)
}

/// Every position within `depth` plies, read by the game's board shape:
/// the side to move's letter, the counts, a moved piece is the mover's, a
/// placement or a step goes to an empty point, every move names points of the shape.
fn shape_reads<P: Playable>(rules: &P, pos: &P::Position, depth: u32) {
    let shape = rules.board_shape();
    let text = rules.format_position(pos);
    let (at, side, counts) = read_by_shape(&shape, &text);
    let mover = shape.sides.iter().find(|s| s.player == rules.to_move(pos)).unwrap();
    assert_eq!(side, mover.letter, "{text}");
    assert_eq!(counts.len(), shape.counts.len(), "{text}");
    let letters: Vec<char> = shape.sides.iter().map(|s| s.piece).collect();
    assert!(at.values().all(|c| *c == '.' || letters.contains(c)), "{text}");
    for (m, after) in rules.moves(pos) {
        let m = m.to_string();
        let (from, to) = match m.split_once(['-', 'x']) {
            Some((from, to)) => (Some(from), to),
            None => (None, m.as_str()),
        };
        if let Some(from) = from {
            assert_eq!(at.get(from), Some(&mover.piece), "{text}: {m}");
        }
        assert_eq!(at.get(to), Some(&'.'), "{text}: {m}");
        if depth > 0 {
            shape_reads(rules, &after, depth - 1);
        }
    }
}

#[test]
fn board_shapes_read_every_games_positions() {
    let fox = Variant::new(foxbase_core::Geometry::Classic, 3, Variant::default().start).unwrap();
    shape_reads(&fox.rules(), &fox.start, 2);
    let shape = fox.rules().board_shape();
    assert_eq!((shape.points.len(), shape.lines.len()), (33, 72));
    assert_eq!(shape.region.unwrap().points, ["c5", "d5", "e5", "c6", "d6", "e6", "c7", "d7", "e7"]);
    let goats = BaghChalVariant::new(3, 2).unwrap();
    let rules = PlayRules::new(goats);
    // The placing, a capture, the moving phase.
    for (pos, depth) in [(goats.start(), 3), (rules.parse_position(".T..T/...../...../.G.../T...T t 2 0").unwrap(), 1)]
    {
        shape_reads(&rules, &pos, depth);
    }
    shape_reads(&rules, &rules.parse_position("TGG.T/...../...../...../T...T g 0 1").unwrap(), 3);
    let shape = PlayRules::new(goats).board_shape();
    // 40 orthogonal lines and 16 diagonal ones; a1 at (1, 1), e5 at (5, 5).
    assert_eq!((shape.points.len(), shape.lines.len(), shape.counts.len()), (25, 56, 2));
    assert_eq!((shape.points[0].name.as_str(), shape.points[0].x, shape.points[0].y), ("a1", 1, 1));
    assert_eq!((shape.points[24].name.as_str(), shape.points[24].x, shape.points[24].y), ("e5", 5, 5));
    shape_reads(&TicTacToe, &TicTacToe.parse_position(".../.../... x").unwrap(), 3);
    let shape = TicTacToe.board_shape();
    assert!(shape.cells && shape.lines.is_empty() && shape.region.is_none());
    assert_eq!((shape.points[0].name.as_str(), shape.points[0].x, shape.points[0].y), ("a3", 1, 3));
}
