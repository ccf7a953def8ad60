//! Reading and writing positions and moves.
//!
//! A position is five ranks from rank 5 down, separated by `/`, each of five
//! points `T` (tiger), `G` (goat) or `.`; then the side to move (`g` or
//! `t`), the number of goats still to place and the number captured. A move
//! is a placement `c3`, a step `c3-c4` or a jump `a1xc3`.
//!
//! ```
//! use foxbase_core::baghchal::{format_position, parse_move, parse_position, Position, Rules};
//! let start = parse_position("T...T/...../...../...../T...T g 20 0").unwrap();
//! assert_eq!(start, Position::START);
//! let rules = Rules::default();
//! let after = rules.play(&start, parse_move(&rules, &start, "b2").unwrap());
//! assert_eq!(format_position(&after), "T...T/...../...../.G.../T...T t 19 0");
//! let jump = parse_move(&rules, &after, "a1xc3").unwrap();
//! assert_eq!(format_position(&rules.play(&after, jump)), "T...T/...../..T../...../....T g 19 1");
//! ```

use super::board::{Bits, Point, BOARD, SIZE};
use super::error::ParseError;
use super::position::{Position, Side};
use super::rules::{Move, Rules};
use super::TOTAL_GOATS;

/// Parses a position. The error names the field, rank, character or count
/// that is wrong (then [`Position::new`]'s checks). The capture target is a
/// rule: [`Rules::check_position`] checks a position against it.
pub fn parse_position(text: &str) -> Result<Position, ParseError> {
    parse_position_with_goats(text, TOTAL_GOATS)
}

/// Parses a position of a game with `goats` goats in all (a small variant,
/// see [`BaghChalVariant`](super::BaghChalVariant)): as [`parse_position`],
/// but the goats on the board, to place and captured must make `goats`
/// ([`ParseError::GoatTotal`] names the sum and `goats`).
///
/// ```
/// use foxbase_core::baghchal::{parse_position_with_goats, ParseError};
/// let start = parse_position_with_goats("T...T/...../...../...../T...T g 3 0", 3).unwrap();
/// assert_eq!((start.to_place(), start.captured()), (3, 0));
/// let err = parse_position_with_goats("T...T/...../...../...../T...T g 20 0", 3).unwrap_err();
/// assert_eq!(err, ParseError::GoatTotal { on_board: 0, to_place: 20, captured: 0, total: 3 });
/// assert_eq!(err.to_string(), "goats on the board (0) + to place (20) + captured (0) make 20, not 3");
/// ```
pub fn parse_position_with_goats(text: &str, goats: u8) -> Result<Position, ParseError> {
    let parts = read_parts(text)?;
    Position::with_goat_total(parts.tigers, parts.goats, parts.side, parts.to_place, parts.captured, goats)
}

/// The goats a position's text counts in all: on the board + to place +
/// captured, the total of the game it belongs to. The error is that of a
/// field or piece [`parse_position`] would name; the total itself is not
/// checked (a game has 1..=20 goats: [`parse_position_with_goats`] says
/// what is wrong with a position whose total is not its game's).
///
/// ```
/// use foxbase_core::baghchal::goat_total;
/// assert_eq!(goat_total("T...T/...../...../...../T...T g 2 0").unwrap(), 2);
/// assert_eq!(goat_total("TGG.T/...../...../...../T...T t 14 4").unwrap(), 20);
/// assert!(goat_total("T...T/...../...../T...T g 2 0").is_err());
/// ```
pub fn goat_total(text: &str) -> Result<u8, ParseError> {
    let parts = read_parts(text)?;
    Ok(parts.goats.count_ones() as u8 + parts.to_place + parts.captured)
}

/// A position's fields as written, each checked on its own.
struct Parts {
    tigers: Bits,
    goats: Bits,
    side: Side,
    to_place: u8,
    captured: u8,
}

fn read_parts(text: &str) -> Result<Parts, ParseError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [board, side, to_place, captured] = fields[..] else {
        return Err(ParseError::FieldCount { found: fields.len() });
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != SIZE as usize {
        return Err(ParseError::RankCount { found: ranks.len() });
    }
    let (mut tigers, mut goats): (Bits, Bits) = (0, 0);
    for (i, rank_text) in ranks.iter().enumerate() {
        let y = SIZE as usize - 1 - i;
        let n = rank_text.chars().count();
        if n != SIZE as usize {
            return Err(ParseError::RankWidth { rank: y as u8 + 1, found: n });
        }
        for (x, c) in rank_text.chars().enumerate() {
            let point = Point::new((y * SIZE as usize + x) as u8);
            match c {
                'T' => tigers |= point.bit(),
                'G' => goats |= point.bit(),
                '.' => {}
                _ => return Err(ParseError::BadPiece { rank: y as u8 + 1, character: x + 1, point, found: c }),
            }
        }
    }
    let side = match side {
        "g" => Side::Goat,
        "t" => Side::Tiger,
        other => return Err(ParseError::BadSide { found: other.to_string() }),
    };
    let count = |field: &'static str, text: &str| -> Result<u8, ParseError> {
        match text.parse::<u8>() {
            Ok(n) if n <= TOTAL_GOATS && !text.starts_with('+') => Ok(n),
            _ => Err(ParseError::BadCount { field, found: text.to_string() }),
        }
    };
    let to_place = count("goats to place", to_place)?;
    let captured = count("goats captured", captured)?;
    Ok(Parts { tigers, goats, side, to_place, captured })
}

/// `T`, `G` or `.`: what stands on `p`.
fn piece_letter(pos: &Position, p: Point) -> char {
    if pos.tigers() & p.bit() != 0 {
        'T'
    } else if pos.goats() & p.bit() != 0 {
        'G'
    } else {
        '.'
    }
}

/// Writes a position ([`parse_position`]'s inverse).
pub fn format_position(pos: &Position) -> String {
    let mut s = String::with_capacity(40);
    for y in (0..SIZE).rev() {
        for x in 0..SIZE {
            s.push(piece_letter(pos, Point::new(y * SIZE + x)));
        }
        if y > 0 {
            s.push('/');
        }
    }
    s.push_str(&format!(" {} {} {}", pos.side().letter(), pos.to_place(), pos.captured()));
    s
}

/// Parses the text of a move without checking it against a position: a
/// point is a placement, `-` a step and `x` a jump (over the point halfway).
/// The error is [`ParseError::NotAMove`], [`ParseError::MoveSquare`] or [`ParseError::BadJump`].
pub fn parse_move_text(text: &str) -> Result<Move, ParseError> {
    let t = text.trim();
    let square =
        |s: &str| s.parse::<Point>().map_err(|e| ParseError::MoveSquare { text: t.to_string(), error: Box::new(e) });
    match (t.matches('-').count(), t.matches('x').count()) {
        // Two characters are meant as a point: say what is wrong with it.
        (0, 0) if t.len() == 2 => Ok(Move::Place(square(t)?)),
        (0, 0) => Err(ParseError::NotAMove { text: t.to_string() }),
        (1, 0) => {
            let (from, to) = t.split_once('-').unwrap();
            Ok(Move::Step(square(from)?, square(to)?))
        }
        (0, 1) => {
            let (from, to) = t.split_once('x').unwrap();
            let (from, to) = (square(from)?, square(to)?);
            let (dx, dy) = (to.x() - from.x(), to.y() - from.y());
            let straight = matches!(dx, -2 | 0 | 2) && matches!(dy, -2 | 0 | 2) && (dx, dy) != (0, 0);
            if !straight {
                return Err(ParseError::BadJump { text: t.to_string() });
            }
            let over = Point::from_xy(from.x() + dx / 2, from.y() + dy / 2).expect("between two points");
            Ok(Move::Jump(from, over, to))
        }
        _ => Err(ParseError::NotAMove { text: t.to_string() }),
    }
}

/// Parses a move and checks that it is legal in `pos`: a bad text is
/// reported as by [`parse_move_text`], an illegal move as [`ParseError::IllegalMove`].
pub fn parse_move(rules: &Rules, pos: &Position, text: &str) -> Result<Move, ParseError> {
    let mv = parse_move_text(text)?;
    rules.check_move(pos, mv)?;
    Ok(mv)
}

/// A picture of the board with its lines and coordinates, and the counts, for people.
///
/// ```text
/// 5  T---.---.---.---T
///    | \ | / | \ | / |
/// 4  .---.---.---.---.
/// ```
pub fn board_picture(pos: &Position) -> String {
    let mut s = String::new();
    for y in (0..SIZE).rev() {
        s.push_str(&format!("{}  ", y + 1));
        for x in 0..SIZE {
            s.push(piece_letter(pos, Point::new(y * SIZE + x)));
            if x + 1 < SIZE {
                s.push_str("---");
            }
        }
        s.push('\n');
        if y > 0 {
            s.push_str("   |");
            for x in 0..SIZE - 1 {
                // The diagonal of this square runs through its even corners.
                let down_right = BOARD.is_line(Point::new(y * SIZE + x), Point::new((y - 1) * SIZE + x + 1));
                s.push_str(if down_right { " \\ |" } else { " / |" });
            }
            s.push('\n');
        }
    }
    s.push_str("   a   b   c   d   e\n");
    s.push_str(&format!(
        "{} to move; {} to place, {} on the board, {} captured\n",
        pos.side().plural(),
        crate::notation::count(pos.to_place(), "goat", "goats"),
        pos.goats_on_board(),
        pos.captured()
    ));
    s
}
