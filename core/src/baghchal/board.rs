//! The Bagh-Chal board, generated from the rule text: the 25 points of a
//! 5×5 grid, lines along every rank and file, and diagonals through the
//! points whose file and rank indices (from 0) have an even sum: the two long
//! diagonals and the diamond through the edge midpoints.
//!
//! ```text
//! 5  o---o---o---o---o
//!    | \ | / | \ | / |
//! 4  o---o---o---o---o
//!    | / | \ | / | \ |
//! 3  o---o---o---o---o
//!    | \ | / | \ | / |
//! 2  o---o---o---o---o
//!    | / | \ | / | \ |
//! 1  o---o---o---o---o
//!    a   b   c   d   e
//! ```
//!
//! Points are numbered 0..25 rank by rank from rank 1, left to right (a1 is
//! 0, e1 is 4, a2 is 5, e5 is 24), so a rank is five contiguous bits of a
//! [`Bits`] set. The board is built once, at compile time, into [`BOARD`].
//!
//! ```
//! use foxbase_core::baghchal::board::BOARD;
//! assert_eq!(BOARD.line_count(), 56); // 40 along ranks and files, 16 diagonal
//! assert_eq!(BOARD.jump_triple_count(), 40); // 30 along ranks and files, 10 diagonal
//! ```

use super::error::ParseError;
use std::fmt;
use std::str::FromStr;

/// A set of points, one bit per point index.
pub type Bits = u32;

/// Points along a rank or a file.
pub const SIZE: u8 = 5;

/// Number of points on the board.
pub const NUM_POINTS: usize = 25;

/// All 25 points.
pub const ALL_POINTS: Bits = (1 << NUM_POINTS) - 1;

/// A point of the board, by index 0..25.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Point(u8);

impl Point {
    /// The point with this index. Panics if `index >= 25`.
    pub const fn new(index: u8) -> Point {
        assert!((index as usize) < NUM_POINTS, "point index out of range");
        Point(index)
    }

    /// The point at file `x` and rank `y`, both counted from 0 (a1 is (0, 0)), if on the board.
    pub const fn from_xy(x: i32, y: i32) -> Option<Point> {
        if on_board(x, y) {
            Some(Point((y * SIZE as i32 + x) as u8))
        } else {
            None
        }
    }

    pub const fn index(self) -> u8 {
        self.0
    }

    pub const fn bit(self) -> Bits {
        1 << self.0
    }

    /// File 0..5 (a is 0).
    pub const fn x(self) -> i32 {
        (self.0 % SIZE) as i32
    }

    /// Rank 0..5 (rank 1 is 0).
    pub const fn y(self) -> i32 {
        (self.0 / SIZE) as i32
    }

    /// Whether diagonal lines run through this point (its file and rank indices have an even sum).
    pub const fn has_diagonals(self) -> bool {
        (self.x() + self.y()) % 2 == 0
    }

    /// All points in index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..NUM_POINTS as u8).map(Point)
    }

    /// The points of a set in index order.
    pub fn iter(bits: Bits) -> impl Iterator<Item = Point> {
        crate::board::BitIter(u64::from(bits)).map(Point)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&format!("{}{}", (b'a' + self.x() as u8) as char, self.y() + 1))
    }
}

impl FromStr for Point {
    type Err = ParseError;
    /// Parses a point such as `c3`; anything else is [`ParseError::NotASquare`].
    fn from_str(s: &str) -> Result<Point, ParseError> {
        match s.as_bytes() {
            [f @ b'a'..=b'e', r @ b'1'..=b'5'] => Ok(Point((r - b'1') * SIZE + (f - b'a'))),
            _ => Err(ParseError::NotASquare { text: s.to_string() }),
        }
    }
}

/// One jump from a point: over the neighbour `over` to the point `to` just beyond it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jump {
    pub over: u8,
    pub to: u8,
}

/// The lines of the board, precomputed: adjacency for steps and the
/// (from, over, to) triples for jumps. A point has at most 8 of each.
pub struct Board {
    /// Points joined to each point by a line.
    pub neighbours: [Bits; NUM_POINTS],
    /// Jumps from each point, `jump_len[p]` of them, in [`DIRECTIONS`] order.
    pub jumps: [[Jump; 8]; NUM_POINTS],
    pub jump_len: [u8; NUM_POINTS],
}

/// The eight directions a line can leave a point in; the order is the move generator's.
pub const DIRECTIONS: [(i32, i32); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

const fn on_board(x: i32, y: i32) -> bool {
    0 <= x && x < SIZE as i32 && 0 <= y && y < SIZE as i32
}

/// Whether the rule text joins (x1, y1) and (x2, y2) by a line: neighbours
/// along a rank or a file, or diagonal neighbours whose first point has an
/// even index sum (the second then has one too).
pub const fn joined(x1: i32, y1: i32, x2: i32, y2: i32) -> bool {
    if !on_board(x1, y1) || !on_board(x2, y2) {
        return false;
    }
    match ((x2 - x1).abs(), (y2 - y1).abs()) {
        (1, 0) | (0, 1) => true,
        (1, 1) => (x1 + y1) % 2 == 0,
        _ => false,
    }
}

impl Board {
    /// Builds the board from [`joined`]: a step is one line, a jump two
    /// lines in the same direction.
    const fn build() -> Board {
        let mut board = Board {
            neighbours: [0; NUM_POINTS],
            jumps: [[Jump { over: 0, to: 0 }; 8]; NUM_POINTS],
            jump_len: [0; NUM_POINTS],
        };
        let mut p = 0;
        while p < NUM_POINTS {
            let (x, y) = ((p % SIZE as usize) as i32, (p / SIZE as usize) as i32);
            let mut d = 0;
            while d < DIRECTIONS.len() {
                let (dx, dy) = DIRECTIONS[d];
                d += 1;
                let (qx, qy) = (x + dx, y + dy);
                if !joined(x, y, qx, qy) {
                    continue;
                }
                let q = (qy * SIZE as i32 + qx) as u8;
                board.neighbours[p] |= 1 << q;
                let (rx, ry) = (qx + dx, qy + dy);
                if joined(qx, qy, rx, ry) {
                    let n = board.jump_len[p] as usize;
                    board.jumps[p][n] = Jump { over: q, to: (ry * SIZE as i32 + rx) as u8 };
                    board.jump_len[p] += 1;
                }
            }
            p += 1;
        }
        board
    }

    /// The jumps available from point `p`.
    #[inline]
    pub fn jumps_from(&self, p: u8) -> &[Jump] {
        &self.jumps[p as usize][..self.jump_len[p as usize] as usize]
    }

    /// Whether a line joins `a` and `b`.
    pub fn is_line(&self, a: Point, b: Point) -> bool {
        self.neighbours[a.0 as usize] & b.bit() != 0
    }

    /// The point jumped over from `from` to `to`, if a jump joins them.
    pub fn jump_over(&self, from: Point, to: Point) -> Option<Point> {
        self.jumps_from(from.0).iter().find(|j| j.to == to.0).map(|j| Point(j.over))
    }

    /// Number of lines (unordered pairs of joined points).
    pub fn line_count(&self) -> usize {
        self.neighbours.iter().map(|n| n.count_ones() as usize).sum::<usize>() / 2
    }

    /// Number of jump triples (each gives two jumps, one each way).
    pub fn jump_triple_count(&self) -> usize {
        self.jump_len.iter().map(|&n| n as usize).sum::<usize>() / 2
    }
}

/// The board, built at compile time.
pub static BOARD: Board = Board::build();

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Point {
        s.parse().unwrap()
    }

    #[test]
    fn points_round_trip_through_names_and_coordinates() {
        assert_eq!(Point::all().count(), 25);
        for q in Point::all() {
            assert_eq!(q.to_string().parse::<Point>().unwrap(), q);
            assert_eq!(Point::from_xy(q.x(), q.y()), Some(q));
        }
        assert_eq!((p("a1").index(), p("e1").index(), p("a2").index(), p("e5").index()), (0, 4, 5, 24));
        assert_eq!(Point::from_xy(5, 0), None);
        assert_eq!(Point::from_xy(0, -1), None);
        for bad in ["f1", "a6", "a0", "c", "c33", "C3", ""] {
            assert_eq!(bad.parse::<Point>(), Err(ParseError::NotASquare { text: bad.into() }));
        }
    }

    /// Lines counted from the rule text: 5 ranks and 5 files of 4 segments
    /// (40); the long diagonals, 4 segments each (8); the diamond a3-c5-e3-c1,
    /// 2 segments a side (8). Jumps: 3 a rank or file (30), 3 a long diagonal
    /// (6), 1 a diamond side (4).
    #[test]
    fn line_and_jump_counts_match_the_rules() {
        assert_eq!(BOARD.line_count(), 40 + 8 + 8);
        assert_eq!(BOARD.jump_triple_count(), 30 + 6 + 4);
        let diagonal_points = Point::all().filter(|q| q.has_diagonals()).count();
        assert_eq!(diagonal_points, 13);
    }

    #[test]
    fn diagonals_run_through_even_points_only() {
        assert!(BOARD.is_line(p("a1"), p("b2")));
        assert!(BOARD.is_line(p("c1"), p("b2")));
        assert!(BOARD.is_line(p("a3"), p("b4")));
        assert!(!BOARD.is_line(p("b1"), p("c2")));
        assert!(!BOARD.is_line(p("b1"), p("a2")));
        assert!(!BOARD.is_line(p("a1"), p("c3")));
        // a corner has 3 lines, an edge midpoint 5, the centre 8, b2 8, c2 4
        let degree = |s: &str| BOARD.neighbours[p(s).index() as usize].count_ones();
        assert_eq!(
            [degree("a1"), degree("b1"), degree("c1"), degree("b2"), degree("c2"), degree("c3")],
            [3, 3, 5, 8, 4, 8]
        );
    }

    #[test]
    fn jumps_are_two_lines_in_one_direction() {
        assert_eq!(BOARD.jump_over(p("a1"), p("c3")), Some(p("b2")));
        assert_eq!(BOARD.jump_over(p("c1"), p("a3")), Some(p("b2")));
        assert_eq!(BOARD.jump_over(p("a1"), p("a3")), Some(p("a2")));
        assert_eq!(BOARD.jump_over(p("b1"), p("d3")), None, "b1 has no diagonal");
        assert_eq!(BOARD.jump_over(p("b2"), p("d4")), Some(p("c3")));
        assert_eq!(BOARD.jump_over(p("a2"), p("c4")), None);
        // every jump is symmetric: to -> from over the same point
        for q in Point::all() {
            for j in BOARD.jumps_from(q.index()) {
                assert!(BOARD.jumps_from(j.to).contains(&Jump { over: j.over, to: q.index() }));
                assert!(BOARD.is_line(q, Point(j.over)) && BOARD.is_line(Point(j.over), Point(j.to)));
            }
        }
    }
}
