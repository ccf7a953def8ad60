//! Reading and writing positions and moves in the notation of RULES.md.
//!
//! ```
//! use foxbase_core::notation::{parse_position, format_position};
//! let text = "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f";
//! let pos = parse_position(text).unwrap();
//! assert_eq!(pos.sheep_count(), 20);
//! assert_eq!(format_position(&pos), text);
//! assert_eq!(
//!     parse_position("F.F/.../....../SSSSSSS/SSSSSSS/SSS/SSS f").unwrap_err().to_string(),
//!     "rank 5 has 6 points, expected 7"
//! );
//! ```

use crate::board::{Point, RANK_START, RANK_WIDTH};
use crate::error::ParseError;
use crate::position::{Position, Side};
use crate::rules::{Move, Rules};

/// Parses a position: ranks 7 down to 1 separated by `/`, then the side to move.
/// The error names the rank, character or count that is wrong (the first
/// five variants of [`ParseError`], then [`Position::new`]'s).
pub fn parse_position(text: &str) -> Result<Position, ParseError> {
    let text = text.trim();
    let (board, side) = match text.split_once(char::is_whitespace) {
        Some((b, s)) => (b, s.trim()),
        None => return Err(ParseError::MissingSide { text: text.to_string() }),
    };
    let side = match side {
        "f" => Side::Fox,
        "s" => Side::Sheep,
        other => return Err(ParseError::BadSide { found: other.to_string() }),
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 7 {
        return Err(ParseError::RankCount { found: ranks.len() });
    }
    let (mut sheep, mut foxes) = (0u64, 0u64);
    for (i, rank_text) in ranks.iter().enumerate() {
        let y = 7 - i;
        let width = RANK_WIDTH[y - 1] as usize;
        let n = rank_text.chars().count();
        if n != width {
            return Err(ParseError::RankWidth { rank: y as u8, found: n, expected: width });
        }
        for (j, c) in rank_text.chars().enumerate() {
            let bit = 1u64 << (RANK_START[y - 1] as usize + j);
            match c {
                'F' => foxes |= bit,
                'S' => sheep |= bit,
                '.' => {}
                _ => {
                    let point = Point::new(RANK_START[y - 1] + j as u8);
                    return Err(ParseError::BadPiece { rank: y as u8, character: j + 1, point, found: c });
                }
            }
        }
    }
    Position::new(sheep, foxes, side)
}

/// Writes a position in the notation of RULES.md.
pub fn format_position(pos: &Position) -> String {
    let mut s = String::with_capacity(40);
    for y in (1..=7usize).rev() {
        for j in 0..RANK_WIDTH[y - 1] as usize {
            let bit = 1u64 << (RANK_START[y - 1] as usize + j);
            s.push(if pos.foxes() & bit != 0 {
                'F'
            } else if pos.sheep() & bit != 0 {
                'S'
            } else {
                '.'
            });
        }
        if y > 1 {
            s.push('/');
        }
    }
    s.push(' ');
    s.push(pos.side().letter());
    s
}

/// Parses the text of a move (`c7-c6` or `e5xc3`) without checking it against a position.
/// The error is [`ParseError::NotAMove`], [`ParseError::MoveSquare`] or [`ParseError::BadJump`].
pub fn parse_move_text(text: &str) -> Result<Move, ParseError> {
    let t = text.trim();
    let (sep_at, jump) = match (t.find('-'), t.find('x')) {
        (Some(i), None) => (i, false),
        (None, Some(i)) => (i, true),
        _ => return Err(ParseError::NotAMove { text: t.to_string() }),
    };
    let square =
        |s: &str| s.parse::<Point>().map_err(|e| ParseError::MoveSquare { text: t.to_string(), error: Box::new(e) });
    let from = square(&t[..sep_at])?;
    let to = square(&t[sep_at + 1..])?;
    if jump {
        let (dx, dy) = (to.x() - from.x(), to.y() - from.y());
        if !(dx.abs() == 2 || dx == 0) || !(dy.abs() == 2 || dy == 0) || (dx == 0 && dy == 0) {
            return Err(ParseError::BadJump { text: t.to_string() });
        }
    }
    Ok(Move { from, to, jump })
}

/// Parses a move and checks that it is legal in `pos`: a bad text is reported
/// as by [`parse_move_text`], an illegal move as [`ParseError::IllegalMove`].
pub fn parse_move(rules: &Rules, pos: &Position, text: &str) -> Result<Move, ParseError> {
    let mv = parse_move_text(text)?;
    rules.check_move(pos, mv)?;
    Ok(mv)
}

/// An ASCII picture of the board with coordinates, for people.
pub fn board_picture(pos: &Position) -> String {
    let mut s = String::new();
    for y in (1..=7).rev() {
        s.push_str(&format!("{y} "));
        for x in 1..=7 {
            let c = match Point::from_xy(x, y) {
                None => ' ',
                Some(p) if pos.foxes() & p.bit() != 0 => 'F',
                Some(p) if pos.sheep() & p.bit() != 0 => 'S',
                Some(p) if crate::board::PEN & p.bit() != 0 => '+',
                Some(_) => '.',
            };
            s.push(' ');
            s.push(c);
        }
        s.push('\n');
    }
    s.push_str("   a b c d e f g\n");
    s.push_str(&format!(
        "{} to move; {}, {} sheep, {} in the pen ('+' marks empty pen points)\n",
        pos.side(),
        count(pos.fox_count(), "fox", "foxes"),
        pos.sheep_count(),
        (pos.sheep() & crate::board::PEN).count_ones()
    ));
    s
}

/// `n` and the noun that goes with it: `count(1, "goat", "goats")` is
/// "1 goat", `count(0, "goat", "goats")` "0 goats". Every count the
/// program writes in a sentence goes through it.
///
/// ```
/// use foxbase_core::notation::count;
/// assert_eq!(count(1u32, "ply", "plies"), "1 ply");
/// assert_eq!(count(37u64, "ply", "plies"), "37 plies");
/// ```
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}
