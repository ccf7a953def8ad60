//! The typed errors: a few failures of each kind are the expected variant,
//! with the expected fields, and display the expected message.

use foxbase_core::notation::{parse_move, parse_move_text, parse_position};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::rules::{EndReason, Move};
use foxbase_core::{Geometry, IllegalMove, ParseError, Point, Rules, Side, TooManyPositions, Variant, VariantError};
use std::error::Error;

fn point(s: &str) -> Point {
    s.parse().unwrap()
}

fn mv(from: &str, to: &str, jump: bool) -> Move {
    Move { from: point(from), to: point(to), jump }
}

#[test]
fn position_errors() {
    let cases = [
        (
            "F.F/.../....../SSSSSSS/SSSSSSS/SSS/SSS f",
            ParseError::RankWidth { rank: 5, found: 6, expected: 7 },
            "rank 5 has 6 points, expected 7",
        ),
        (
            "F.F/.../...x.../SSSSSSS/SSSSSSS/SSS/SSS f",
            ParseError::BadPiece { rank: 5, character: 4, point: point("d5"), found: 'x' },
            "rank 5, character 4 (d5): 'x' is not F, S or '.'",
        ),
        ("FFF/.../......./SSSSSSS/SSSSSSS/SSS/SSS f", ParseError::TooManyFoxes { found: 3 }, "3 foxes (at most 2)"),
        ("F.F/..S/......./SSSSSSS/SSSSSSS/SSS/SSS f", ParseError::TooManySheep { found: 21 }, "21 sheep (at most 20)"),
        (
            " F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS ",
            ParseError::MissingSide { text: "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS".into() },
            "missing the side to move after the board (expected 'F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f' or \
             'F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS s')",
        ),
        (
            "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS x",
            ParseError::BadSide { found: "x".into() },
            "side to move 'x' is not f or s",
        ),
        (
            "F.F/.../......./SSSSSSS/SSSSSSS/SSS f",
            ParseError::RankCount { found: 6 },
            "expected 7 ranks separated by '/', found 6",
        ),
    ];
    for (text, variant, message) in cases {
        let err = parse_position(text).unwrap_err();
        assert_eq!(err, variant, "{text}");
        assert_eq!(err.to_string(), message, "{text}");
        assert!(err.source().is_none());
    }
    let e = foxbase_core::Position::new(1, 1, Side::Fox).unwrap_err();
    assert_eq!((e.to_string(), e), ("a fox and a sheep share a point".to_string(), ParseError::SharedPoint));
    let e = foxbase_core::Position::new(1 << 40, 0, Side::Fox).unwrap_err();
    assert_eq!((e.to_string(), e), ("a piece stands outside the 33 points".to_string(), ParseError::OutsideBoard));
}

#[test]
fn point_geometry_and_move_text_errors() {
    let e = "c8".parse::<Point>().unwrap_err();
    assert_eq!(e, ParseError::NotAPoint { text: "c8".into() });
    assert_eq!(e.to_string(), "c8 is not a point of the board");
    let e = "zz".parse::<Point>().unwrap_err();
    assert_eq!(e, ParseError::NotASquare { text: "zz".into() });
    assert_eq!(e.to_string(), "'zz' is not a square (expected a file a-g and a rank 1-7, e.g. d4)");
    let e = "hex".parse::<Geometry>().unwrap_err();
    assert_eq!(e, ParseError::UnknownGeometry { text: "hex".into() });
    assert_eq!(e.to_string(), "unknown geometry 'hex' (expected classic or orthogonal)");

    let e = parse_move_text(" c7c6 ").unwrap_err();
    assert_eq!(e, ParseError::NotAMove { text: "c7c6".into() });
    assert_eq!(e.to_string(), "'c7c6' is not a move (expected a step like c7-c6 or a jump like e5xc3)");
    let e = parse_move_text("c7xd5").unwrap_err();
    assert_eq!(e, ParseError::BadJump { text: "c7xd5".into() });
    assert_eq!(e.to_string(), "c7xd5: a jump goes exactly two points along a straight line");
    // A bad square keeps the point's error as its source.
    let e = parse_move_text("c7-c8").unwrap_err();
    let inner = ParseError::NotAPoint { text: "c8".into() };
    assert_eq!(e, ParseError::MoveSquare { text: "c7-c8".into(), error: Box::new(inner.clone()) });
    assert_eq!(e.to_string(), "c7-c8: c8 is not a point of the board");
    assert_eq!(e.source().unwrap().to_string(), inner.to_string());
}

#[test]
fn illegal_move_errors() {
    let start = foxbase_core::variant::DEFAULT_START;
    let classic = Rules::new(Geometry::Classic, 9);
    let ortho = Rules::new(Geometry::Orthogonal, 9);
    let pos = |text: &str| parse_position(text).unwrap();

    let e = parse_move(&ortho, &pos(start), "c7-d6").unwrap_err();
    let illegal = IllegalMove::NoLine { mv: mv("c7", "d6", false), geometry: Geometry::Orthogonal };
    assert_eq!(e, ParseError::IllegalMove(illegal));
    assert_eq!(e.to_string(), "c7-d6: no line joins c7 and d6 in the orthogonal geometry");

    let e = classic.check_move(&pos(start), mv("d4", "d5", false)).unwrap_err();
    assert_eq!(e, IllegalMove::NoPiece { mv: mv("d4", "d5", false), side: Side::Fox });
    assert_eq!(e.to_string(), "d4-d5: no fox on d4 (fox to move)");

    let e = classic.check_move(&pos(start), mv("c7", "e7", false)).unwrap_err();
    assert_eq!(e, IllegalMove::Occupied { mv: mv("c7", "e7", false) });
    assert_eq!(e.to_string(), "c7-e7: e7 is occupied");

    let e = classic.check_move(&pos(".../.../....F../......./......./.../... f"), mv("e5", "c3", true)).unwrap_err();
    assert_eq!(e, IllegalMove::NoSheepToJump { mv: mv("e5", "c3", true), over: point("d4") });
    assert_eq!(e.to_string(), "e5xc3: no sheep on d4");

    let e = ortho.check_move(&pos(".S./S.S/..S.S../......./......./SSS/SSS f"), mv("c6", "c7", false)).unwrap_err();
    let over = IllegalMove::GameOver { mv: mv("c6", "c7", false), winner: Side::Sheep, reason: EndReason::NoFoxes };
    assert_eq!(e, over);
    assert_eq!(e.to_string(), "c6-c7: the game is over (sheep won: no fox remains)");
}

#[test]
fn variant_errors() {
    let start = parse_position(foxbase_core::variant::DEFAULT_START).unwrap();
    let e = Variant::new(Geometry::Classic, 10, start).unwrap_err();
    assert!(matches!(e, VariantError::PenTargetOutOfRange { pen_target: 10 }));
    assert_eq!(e.to_string(), "pen_target 10 is out of range (1..=9)");
    let no_fox = parse_position(".../.../......./SSSSSSS/SSSSSSS/SSS/SSS f").unwrap();
    let e = Variant::new(Geometry::Classic, 9, no_fox).unwrap_err();
    assert!(matches!(e, VariantError::NoFox));
    assert_eq!(e.to_string(), "start: the start position has no fox (1 or 2 are allowed)");

    // JSON.
    let e = Variant::from_json(r#"{"geometry": "classic", "start": "x"}"#).unwrap_err();
    assert!(matches!(e, VariantError::JsonMissingField { field: "pen_target" }), "{e:?}");
    assert_eq!(e.to_string(), "variant JSON: missing field 'pen_target'");
    let e = Variant::from_json(r#"{"geometry": 1, "pen_target": 9}"#).unwrap_err();
    assert!(matches!(e, VariantError::JsonNotAString { field: "geometry" }), "{e:?}");
    assert_eq!(e.to_string(), "variant JSON: 'geometry' is not a string");
    let e = Variant::from_json(r#"{"geometry": "hex", "pen_target": 9}"#).unwrap_err();
    assert!(matches!(&e, VariantError::Geometry(ParseError::UnknownGeometry { text }) if text == "hex"), "{e:?}");
    assert_eq!(e.to_string(), "unknown geometry 'hex' (expected classic or orthogonal)");
    let e = Variant::from_json(r#"{"geometry": "classic", "pen_target": -1}"#).unwrap_err();
    assert!(matches!(e, VariantError::JsonPenTarget), "{e:?}");
    assert_eq!(e.to_string(), "variant JSON: 'pen_target' is not a whole number in range");
    let e = Variant::from_json(r#"{"geometry": "classic", "pen_target": 9, "start": "F.F f"}"#).unwrap_err();
    assert!(matches!(e, VariantError::JsonStart(ParseError::RankCount { found: 1 })), "{e:?}");
    assert_eq!(e.to_string(), "variant JSON: start: expected 7 ranks separated by '/', found 1");
    assert_eq!(e.source().unwrap().to_string(), "expected 7 ranks separated by '/', found 1");
    let e = Variant::from_json("{").unwrap_err();
    let json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
    assert!(matches!(e, VariantError::Json(_)), "{e:?}");
    assert_eq!(e.to_string(), format!("variant JSON: {json}"));

    // Text.
    let e = "geometry=classic;pen_target=nine".parse::<Variant>().unwrap_err();
    assert!(matches!(&e, VariantError::PenTargetNotANumber { value, .. } if value == "nine"), "{e:?}");
    assert_eq!(e.to_string(), "variant: pen_target 'nine' is not a number");
    let e = "geometry=classic;pen_target=9".parse::<Variant>().unwrap_err();
    assert!(matches!(e, VariantError::MissingField { field: "start" }), "{e:?}");
    assert_eq!(e.to_string(), "variant: missing start");
    let e = "geometry=classic;colour=red".parse::<Variant>().unwrap_err();
    assert!(matches!(&e, VariantError::UnknownField { field } if field == "colour"), "{e:?}");
    assert_eq!(e.to_string(), "variant: unknown field 'colour'");
    let e = "geometry".parse::<Variant>().unwrap_err();
    assert!(matches!(&e, VariantError::NotKeyValue { part } if part == "geometry"), "{e:?}");
    assert_eq!(e.to_string(), "variant: 'geometry' is not key=value");
    let e = "start=F.F f".parse::<Variant>().unwrap_err();
    assert!(matches!(e, VariantError::Start(ParseError::RankCount { found: 1 })), "{e:?}");
    assert_eq!(e.to_string(), "variant: start: expected 7 ranks separated by '/', found 1");
    let e = format!("geometry=classic;pen_target=0;start={}", foxbase_core::variant::DEFAULT_START)
        .parse::<Variant>()
        .unwrap_err();
    assert!(matches!(e, VariantError::PenTargetOutOfRange { pen_target: 0 }), "{e:?}");
    assert_eq!(e.to_string(), "pen_target 0 is out of range (1..=9)");
}

#[test]
fn reference_solver_limit() {
    let Err(e) = ReferenceSolution::solve(&Variant::default(), 1000) else {
        panic!("the default variant fits in 1000")
    };
    assert_eq!(e, TooManyPositions { limit: 1000 });
    assert_eq!(
        e.to_string(),
        "more than 1000 positions are reachable from the start: too large for the reference solver"
    );
}
