//! The contract of play ([`Playable`]) for every game: the generic perft
//! against known counts, notation round trips, and game-over statuses.

use foxbase_core::baghchal::{self as bc, BaghChalVariant, PlayRules};
use foxbase_core::perft::{divide, perft};
use foxbase_core::play::{GameStatus, Playable};
use foxbase_core::tictactoe::TicTacToe;
use foxbase_core::Variant;

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
