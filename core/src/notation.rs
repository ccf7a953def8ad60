//! Reading and writing positions and moves in the notation of RULES.md.
//!
//! ```
//! use foxbase_core::notation::{parse_position, format_position};
//! let text = "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f";
//! let pos = parse_position(text).unwrap();
//! assert_eq!(pos.sheep_count(), 20);
//! assert_eq!(format_position(&pos), text);
//! assert_eq!(
//!     parse_position("F.F/.../....../SSSSSSS/SSSSSSS/SSS/SSS f").unwrap_err(),
//!     "rank 5 has 6 points, expected 7"
//! );
//! ```

use crate::board::{Point, RANK_START, RANK_WIDTH};
use crate::position::{Position, Side};
use crate::rules::{Move, Rules};

/// Parses a position: ranks 7 down to 1 separated by `/`, then the side to move.
/// The error names the rank, character or count that is wrong.
pub fn parse_position(text: &str) -> Result<Position, String> {
    let text = text.trim();
    let (board, side) = match text.split_once(char::is_whitespace) {
        Some((b, s)) => (b, s.trim()),
        None => return Err(format!("missing the side to move after the board (expected '{text} f' or '{text} s')")),
    };
    let side = match side {
        "f" => Side::Fox,
        "s" => Side::Sheep,
        other => return Err(format!("side to move '{other}' is not f or s")),
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 7 {
        return Err(format!("expected 7 ranks separated by '/', found {}", ranks.len()));
    }
    let (mut sheep, mut foxes) = (0u64, 0u64);
    for (i, rank_text) in ranks.iter().enumerate() {
        let y = 7 - i;
        let width = RANK_WIDTH[y - 1] as usize;
        let n = rank_text.chars().count();
        if n != width {
            return Err(format!("rank {y} has {n} points, expected {width}"));
        }
        for (j, c) in rank_text.chars().enumerate() {
            let bit = 1u64 << (RANK_START[y - 1] as usize + j);
            match c {
                'F' => foxes |= bit,
                'S' => sheep |= bit,
                '.' => {}
                _ => {
                    let point = Point::new(RANK_START[y - 1] + j as u8);
                    return Err(format!("rank {y}, character {} ({point}): '{c}' is not F, S or '.'", j + 1));
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
pub fn parse_move_text(text: &str) -> Result<Move, String> {
    let t = text.trim();
    let (sep_at, jump) = match (t.find('-'), t.find('x')) {
        (Some(i), None) => (i, false),
        (None, Some(i)) => (i, true),
        _ => return Err(format!("'{t}' is not a move (expected a step like c7-c6 or a jump like e5xc3)")),
    };
    let from: Point = t[..sep_at].parse().map_err(|e| format!("{t}: {e}"))?;
    let to: Point = t[sep_at + 1..].parse().map_err(|e| format!("{t}: {e}"))?;
    if jump {
        let (dx, dy) = (to.x() - from.x(), to.y() - from.y());
        if !(dx.abs() == 2 || dx == 0) || !(dy.abs() == 2 || dy == 0) || (dx == 0 && dy == 0) {
            return Err(format!("{t}: a jump goes exactly two points along a straight line"));
        }
    }
    Ok(Move { from, to, jump })
}

/// Parses a move and checks that it is legal in `pos`.
pub fn parse_move(rules: &Rules, pos: &Position, text: &str) -> Result<Move, String> {
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
        "{} to move; {} fox(es), {} sheep, {} in the pen ('+' marks empty pen points)\n",
        pos.side(),
        pos.fox_count(),
        pos.sheep_count(),
        (pos.sheep() & crate::board::PEN).count_ones()
    ));
    s
}
