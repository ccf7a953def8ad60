//! The 33-point cross, generated from the rule text.
//!
//! Points are numbered 0..33 rank by rank from the bottom (rank 1) and, inside
//! a rank, from left to right. Every rank is therefore a contiguous run of
//! bits in a [`Bits`] set, which makes per-rank counting and tier keys cheap.
//!
//! ```
//! use foxbase_core::board::{Board, Geometry};
//! let classic = Board::get(Geometry::Classic);
//! assert_eq!(classic.line_count(), 72);
//! assert_eq!(classic.jump_triple_count(), 52);
//! let ortho = Board::get(Geometry::Orthogonal);
//! assert_eq!((ortho.line_count(), ortho.jump_triple_count()), (52, 38));
//! ```

use crate::error::ParseError;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// A set of points, one bit per point index.
pub type Bits = u64;

/// Number of points on the board.
pub const NUM_POINTS: usize = 33;

/// All 33 points.
pub const ALL_POINTS: Bits = (1 << NUM_POINTS) - 1;

/// First point index of each rank (index 0 is rank 1); entry 7 is the end.
pub const RANK_START: [u8; 8] = [0, 3, 6, 13, 20, 27, 30, 33];

/// Number of points on each rank (index 0 is rank 1).
pub const RANK_WIDTH: [u8; 7] = [3, 3, 7, 7, 7, 3, 3];

/// Per point: the points of its own rank (where a sideways sheep step stays).
pub const RANK_MASK_OF_POINT: [Bits; NUM_POINTS] = {
    let mut t = [0; NUM_POINTS];
    let mut p = 0;
    while p < NUM_POINTS {
        let mut y = 0;
        while y + 1 < 7 && RANK_START[y + 1] as usize <= p {
            y += 1;
        }
        t[p] = ((1u64 << RANK_WIDTH[y]) - 1) << RANK_START[y];
        p += 1;
    }
    t
};

/// The points of rank `y` (1..=7).
pub const fn rank_mask(y: u8) -> Bits {
    let start = RANK_START[(y - 1) as usize];
    let width = RANK_WIDTH[(y - 1) as usize];
    ((1u64 << width) - 1) << start
}

/// Whether (x, y) with x, y in 1..=7 is a point of the cross.
pub const fn exists(x: i32, y: i32) -> bool {
    x >= 1 && x <= 7 && y >= 1 && y <= 7 && ((3 <= y && y <= 5) || (3 <= x && x <= 5))
}

/// Rank (1..=7) of each point index.
const POINT_Y: [u8; NUM_POINTS] = {
    let mut t = [0u8; NUM_POINTS];
    let mut y = 0;
    while y < 7 {
        let mut i = RANK_START[y];
        while i < RANK_START[y + 1] {
            t[i as usize] = y as u8 + 1;
            i += 1;
        }
        y += 1;
    }
    t
};

/// File (1..=7) of each point index.
const POINT_X: [u8; NUM_POINTS] = {
    let mut t = [0u8; NUM_POINTS];
    let mut y = 0;
    while y < 7 {
        let first_x = if RANK_WIDTH[y] == 7 { 1 } else { 3 };
        let mut i = RANK_START[y];
        while i < RANK_START[y + 1] {
            t[i as usize] = first_x + (i - RANK_START[y]);
            i += 1;
        }
        y += 1;
    }
    t
};

/// A point of the board, by index 0..33.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Point(u8);

impl Point {
    /// The point with this index. Panics if `index >= 33`.
    pub const fn new(index: u8) -> Point {
        assert!((index as usize) < NUM_POINTS, "point index out of range");
        Point(index)
    }

    /// The point at file `x` and rank `y` (both 1..=7), if it exists.
    pub fn from_xy(x: i32, y: i32) -> Option<Point> {
        if !exists(x, y) {
            return None;
        }
        let y0 = (y - 1) as usize;
        let first_x = if RANK_WIDTH[y0] == 7 { 1 } else { 3 };
        Some(Point(RANK_START[y0] + (x - first_x) as u8))
    }

    pub const fn index(self) -> u8 {
        self.0
    }

    pub const fn bit(self) -> Bits {
        1 << self.0
    }

    /// Rank 1..=7.
    #[inline]
    pub fn y(self) -> i32 {
        POINT_Y[self.0 as usize] as i32
    }

    /// File 1..=7 (a = 1).
    #[inline]
    pub fn x(self) -> i32 {
        POINT_X[self.0 as usize] as i32
    }

    /// The point halfway between two points two lines apart (a jump's jumped point).
    #[inline]
    pub fn midpoint(self, other: Point) -> Option<Point> {
        let (x, y) = (self.x() + other.x(), self.y() + other.y());
        if x % 2 != 0 || y % 2 != 0 {
            return None;
        }
        Point::from_xy(x / 2, y / 2)
    }

    /// The left-right mirror image (file x becomes 8 - x).
    pub fn mirror(self) -> Point {
        Point::from_xy(8 - self.x(), self.y()).unwrap()
    }

    /// All points in index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..NUM_POINTS as u8).map(Point)
    }

    /// Iterates the points of a set in index order.
    pub fn iter(bits: Bits) -> impl Iterator<Item = Point> {
        BitIter(bits).map(Point)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + (self.x() - 1) as u8) as char, self.y())
    }
}

impl FromStr for Point {
    type Err = ParseError;
    /// Parses a square such as `c7`. The error names the square and why:
    /// [`ParseError::NotASquare`] or [`ParseError::NotAPoint`].
    fn from_str(s: &str) -> Result<Point, ParseError> {
        let b = s.as_bytes();
        if b.len() != 2 || !b[0].is_ascii_lowercase() || !b[1].is_ascii_digit() {
            return Err(ParseError::NotASquare { text: s.to_string() });
        }
        let x = (b[0] - b'a') as i32 + 1;
        let y = (b[1] - b'0') as i32;
        Point::from_xy(x, y).ok_or_else(|| ParseError::NotAPoint { text: s.to_string() })
    }
}

/// Iterator over set bit indices, lowest first.
#[derive(Clone, Copy)]
pub struct BitIter(pub Bits);

impl Iterator for BitIter {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(i)
    }
}

/// Which lines the board has (RULES.md, "Lines").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub enum Geometry {
    /// Orthogonal lines plus the alternating diagonals through points with even x + y.
    #[default]
    Classic,
    /// Orthogonal lines only.
    Orthogonal,
}

impl Geometry {
    pub const ALL: [Geometry; 2] = [Geometry::Classic, Geometry::Orthogonal];

    pub fn name(self) -> &'static str {
        match self {
            Geometry::Classic => "classic",
            Geometry::Orthogonal => "orthogonal",
        }
    }
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Geometry {
    type Err = ParseError;
    /// Parses `classic` or `orthogonal`; anything else is [`ParseError::UnknownGeometry`].
    fn from_str(s: &str) -> Result<Geometry, ParseError> {
        match s {
            "classic" => Ok(Geometry::Classic),
            "orthogonal" => Ok(Geometry::Orthogonal),
            _ => Err(ParseError::UnknownGeometry { text: s.to_string() }),
        }
    }
}

/// One jump: from a point, over `over`, landing on `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jump {
    pub over: u8,
    pub to: u8,
}

/// Precomputed adjacency for one geometry.
pub struct Board {
    pub geometry: Geometry,
    /// Points joined to each point by a line.
    pub neighbours: [Bits; NUM_POINTS],
    /// Neighbours a sheep may step to: joined by a line and not on a lower rank.
    pub sheep_steps: [Bits; NUM_POINTS],
    /// Neighbours from which a sheep could have stepped here (inverse of `sheep_steps`).
    pub sheep_unsteps: [Bits; NUM_POINTS],
    /// Jumps from each point (at most 8).
    pub jumps: [[Jump; 8]; NUM_POINTS],
    pub jump_len: [u8; NUM_POINTS],
}

const DIRECTIONS: [(i32, i32); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Whether the rules join (x1, y1) and (x2, y2) by a line.
fn joined(geometry: Geometry, x1: i32, y1: i32, x2: i32, y2: i32) -> bool {
    if !exists(x1, y1) || !exists(x2, y2) {
        return false;
    }
    let (dx, dy) = ((x2 - x1).abs(), (y2 - y1).abs());
    match (dx, dy) {
        (1, 0) | (0, 1) => true,
        (1, 1) => geometry == Geometry::Classic && (x1 + y1) % 2 == 0 && (x2 + y2) % 2 == 0,
        _ => false,
    }
}

impl Board {
    fn build(geometry: Geometry) -> Board {
        let mut board = Board {
            geometry,
            neighbours: [0; NUM_POINTS],
            sheep_steps: [0; NUM_POINTS],
            sheep_unsteps: [0; NUM_POINTS],
            jumps: [[Jump { over: 0, to: 0 }; 8]; NUM_POINTS],
            jump_len: [0; NUM_POINTS],
        };
        for p in Point::all() {
            let (x, y) = (p.x(), p.y());
            for (dx, dy) in DIRECTIONS {
                let (qx, qy) = (x + dx, y + dy);
                if !joined(geometry, x, y, qx, qy) {
                    continue;
                }
                let q = Point::from_xy(qx, qy).unwrap();
                board.neighbours[p.0 as usize] |= q.bit();
                if qy >= y {
                    board.sheep_steps[p.0 as usize] |= q.bit();
                    board.sheep_unsteps[q.0 as usize] |= p.bit();
                }
                let (rx, ry) = (qx + dx, qy + dy);
                if joined(geometry, qx, qy, rx, ry) {
                    let r = Point::from_xy(rx, ry).unwrap();
                    let n = board.jump_len[p.0 as usize] as usize;
                    board.jumps[p.0 as usize][n] = Jump { over: q.0, to: r.0 };
                    board.jump_len[p.0 as usize] += 1;
                }
            }
        }
        board
    }

    /// The board of a geometry, built once on first use.
    pub fn get(geometry: Geometry) -> &'static Board {
        static CLASSIC: OnceLock<Board> = OnceLock::new();
        static ORTHOGONAL: OnceLock<Board> = OnceLock::new();
        match geometry {
            Geometry::Classic => CLASSIC.get_or_init(|| Board::build(Geometry::Classic)),
            Geometry::Orthogonal => ORTHOGONAL.get_or_init(|| Board::build(Geometry::Orthogonal)),
        }
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

    /// Number of lines (unordered pairs of joined points).
    pub fn line_count(&self) -> usize {
        self.neighbours.iter().map(|n| n.count_ones() as usize).sum::<usize>() / 2
    }

    /// Number of jump triples (each gives two jumps).
    pub fn jump_triple_count(&self) -> usize {
        self.jump_len.iter().map(|&n| n as usize).sum::<usize>() / 2
    }
}

/// The pen: the 3x3 square c5..e7.
pub fn pen_mask() -> Bits {
    let mut m = 0;
    for y in 5..=7 {
        for x in 3..=5 {
            m |= Point::from_xy(x, y).unwrap().bit();
        }
    }
    m
}

/// The pen as a constant (checked against [`pen_mask`] in tests).
pub const PEN: Bits = (0b111 << 22) | (0b111 << 27) | (0b111 << 30);

const fn reverse_bits(v: u32, width: u32) -> u32 {
    let mut out = 0;
    let mut i = 0;
    while i < width {
        if v & (1 << i) != 0 {
            out |= 1 << (width - 1 - i);
        }
        i += 1;
    }
    out
}

const fn reverse_table<const N: usize>(width: u32) -> [u8; N] {
    let mut t = [0u8; N];
    let mut i = 0;
    while i < N {
        t[i] = reverse_bits(i as u32, width) as u8;
        i += 1;
    }
    t
}

/// Bit reversal of 3- and 7-bit rank patterns: the mirror acts inside each rank.
pub const REVERSE3: [u8; 8] = reverse_table::<8>(3);
pub const REVERSE7: [u8; 128] = reverse_table::<128>(7);

/// Mirror of two stacked 3-point ranks (6 bits): each half reversed.
const MIRROR6: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = REVERSE3[i & 7] | (REVERSE3[i >> 3] << 3);
        i += 1;
    }
    t
};

/// Mirrors a set of points left-right: five table lookups (ranks 1-2, 3,
/// 4, 5 and 6-7), since the mirror acts inside each rank.
#[inline]
pub const fn mirror_bits(b: Bits) -> Bits {
    (MIRROR6[(b & 63) as usize] as u64)
        | (REVERSE7[((b >> 6) & 127) as usize] as u64) << 6
        | (REVERSE7[((b >> 13) & 127) as usize] as u64) << 13
        | (REVERSE7[((b >> 20) & 127) as usize] as u64) << 20
        | (MIRROR6[((b >> 27) & 63) as usize] as u64) << 27
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_three_points_with_coordinates_round_trip() {
        assert_eq!(Point::all().count(), 33);
        let mut n = 0;
        for y in 1..=7 {
            for x in 1..=7 {
                if let Some(p) = Point::from_xy(x, y) {
                    assert_eq!((p.x(), p.y()), (x, y));
                    n += 1;
                }
            }
        }
        assert_eq!(n, 33);
        assert_eq!("c7".parse::<Point>().unwrap().index(), 30);
        assert_eq!("a3".parse::<Point>().unwrap().index(), 6);
    }

    #[test]
    fn line_and_jump_counts_match_rules() {
        let c = Board::get(Geometry::Classic);
        assert_eq!(c.line_count(), 72);
        assert_eq!(c.jump_triple_count(), 52);
        let o = Board::get(Geometry::Orthogonal);
        assert_eq!(o.line_count(), 52);
        assert_eq!(o.jump_triple_count(), 38);
    }

    #[test]
    fn diagonals_run_through_even_points_only() {
        let c = Board::get(Geometry::Classic);
        let p = |s: &str| s.parse::<Point>().unwrap();
        assert!(c.is_line(p("d4"), p("e5")));
        assert!(c.is_line(p("c7"), p("d6")));
        assert!(!c.is_line(p("d5"), p("e4")));
        assert!(!Board::get(Geometry::Orthogonal).is_line(p("d4"), p("e5")));
    }

    #[test]
    fn pen_and_mirror() {
        assert_eq!(PEN, pen_mask());
        assert_eq!(PEN.count_ones(), 9);
        for p in Point::all() {
            assert_eq!(mirror_bits(p.bit()), p.mirror().bit());
        }
        assert_eq!("a4".parse::<Point>().unwrap().mirror().to_string(), "g4");
    }

    #[test]
    fn bad_squares_are_named() {
        assert_eq!("c8".parse::<Point>().unwrap_err().to_string(), "c8 is not a point of the board");
        assert_eq!("a1".parse::<Point>().unwrap_err().to_string(), "a1 is not a point of the board");
        assert!("zz".parse::<Point>().unwrap_err().to_string().contains("'zz'"));
        assert_eq!("c8".parse::<Point>().unwrap_err(), ParseError::NotAPoint { text: "c8".into() });
        assert_eq!("zz".parse::<Point>().unwrap_err(), ParseError::NotASquare { text: "zz".into() });
        let geometry = "hex".parse::<Geometry>().unwrap_err();
        assert_eq!(geometry, ParseError::UnknownGeometry { text: "hex".into() });
        assert_eq!(geometry.to_string(), "unknown geometry 'hex' (expected classic or orthogonal)");
    }
}
