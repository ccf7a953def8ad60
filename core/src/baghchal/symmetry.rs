//! The 8 symmetries of the board (rotations by quarter turns and
//! reflections), on points, point sets, moves and positions, and the
//! canonical form used to count positions up to symmetry.
//!
//! The lines are symmetric: a quarter turn or a reflection keeps the parity
//! of file + rank, so it maps diagonals onto diagonals (the tests check every
//! line).
//!
//! ```
//! use foxbase_core::baghchal::{canonical, parse_position, Symmetry};
//! let a = parse_position("T...T/...../...../.G.../T...T t 19 0").unwrap();
//! let b = parse_position("T...T/.G.../...../...../T...T t 19 0").unwrap();
//! assert_eq!(Symmetry::ALL.iter().filter(|s| s.position(&a) == b).count(), 2);
//! assert_eq!(canonical(&a), canonical(&b));
//! ```

use super::board::{Bits, Point, SIZE};
use super::position::Position;
use super::rules::Move;

/// One of the 8 symmetries: `turns` quarter turns anticlockwise, after a
/// reflection in the c-file when `reflect`. Symmetry 0 is the identity.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Symmetry(u8);

/// The largest file or rank index.
const LAST: i32 = SIZE as i32 - 1;

/// Per symmetry and rank, the image of each 5-bit pattern of that rank: a
/// point set maps with five lookups.
static RANK_IMAGES: [[[Bits; 32]; SIZE as usize]; 8] = rank_images();

const fn map_xy(s: u8, x: i32, y: i32) -> (i32, i32) {
    let (mut x, mut y) = if s >= 4 { (LAST - x, y) } else { (x, y) };
    let mut turn = 0;
    while turn < s % 4 {
        (x, y) = (LAST - y, x);
        turn += 1;
    }
    (x, y)
}

const fn rank_images() -> [[[Bits; 32]; SIZE as usize]; 8] {
    let mut t = [[[0; 32]; SIZE as usize]; 8];
    let mut s = 0;
    while s < 8 {
        let mut rank = 0;
        while rank < SIZE as usize {
            let mut pattern = 0;
            while pattern < 32 {
                let mut x = 0;
                while x < SIZE as usize {
                    if pattern & (1 << x) != 0 {
                        let (ix, iy) = map_xy(s as u8, x as i32, rank as i32);
                        t[s][rank][pattern] |= 1 << (iy * SIZE as i32 + ix);
                    }
                    x += 1;
                }
                pattern += 1;
            }
            rank += 1;
        }
        s += 1;
    }
    t
}

impl Symmetry {
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// The 8 symmetries: the 4 rotations, then the 4 reflections.
    pub const ALL: [Symmetry; 8] =
        [Symmetry(0), Symmetry(1), Symmetry(2), Symmetry(3), Symmetry(4), Symmetry(5), Symmetry(6), Symmetry(7)];

    /// The symmetry with this number (0..8; 0..4 rotate, 4..8 reflect first). Panics otherwise.
    pub const fn new(n: u8) -> Symmetry {
        assert!(n < 8, "a symmetry is numbered 0..8");
        Symmetry(n)
    }

    pub const fn number(self) -> u8 {
        self.0
    }

    /// Whether the symmetry reverses orientation (a reflection).
    pub const fn reflects(self) -> bool {
        self.0 >= 4
    }

    /// The symmetry that undoes this one: the opposite rotation, or the reflection itself.
    pub const fn inverse(self) -> Symmetry {
        if self.reflects() {
            self
        } else {
            Symmetry((4 - self.0) % 4)
        }
    }

    /// The image of a point.
    pub fn point(self, p: Point) -> Point {
        let (x, y) = map_xy(self.0, p.x(), p.y());
        Point::from_xy(x, y).expect("a symmetry maps the board onto itself")
    }

    /// The image of a point set.
    #[inline]
    pub fn bits(self, b: Bits) -> Bits {
        let t = &RANK_IMAGES[self.0 as usize];
        t[0][(b & 31) as usize]
            | t[1][(b >> 5 & 31) as usize]
            | t[2][(b >> 10 & 31) as usize]
            | t[3][(b >> 15 & 31) as usize]
            | t[4][(b >> 20 & 31) as usize]
    }

    /// The image of a move.
    pub fn mv(self, m: Move) -> Move {
        match m {
            Move::Place(p) => Move::Place(self.point(p)),
            Move::Step(from, to) => Move::Step(self.point(from), self.point(to)),
            Move::Jump(from, over, to) => Move::Jump(self.point(from), self.point(over), self.point(to)),
        }
    }

    /// The image of a position: the same side, counts and status.
    #[inline]
    pub fn position(self, pos: &Position) -> Position {
        Position::from_parts_unchecked(
            self.bits(pos.tigers()),
            self.bits(pos.goats()),
            pos.side(),
            pos.to_place(),
            pos.captured(),
        )
    }
}

/// The representative of a position's symmetry class: of its 8 images, the
/// one with the smallest (tigers, goats) pair, compared as integers.
/// Idempotent, and equal for two positions exactly when a symmetry maps one
/// onto the other.
pub fn canonical(pos: &Position) -> Position {
    let mut best = *pos;
    for s in &Symmetry::ALL[1..] {
        let image = s.position(pos);
        if (image.tigers(), image.goats()) < (best.tigers(), best.goats()) {
            best = image;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::board::BOARD;
    use super::*;

    fn p(s: &str) -> Point {
        s.parse().unwrap()
    }

    #[test]
    fn symmetries_permute_the_points_and_keep_every_line() {
        for s in Symmetry::ALL {
            let images: std::collections::HashSet<Point> = Point::all().map(|q| s.point(q)).collect();
            assert_eq!(images.len(), 25, "{s:?} is a bijection");
            for a in Point::all() {
                assert_eq!(s.bits(a.bit()), s.point(a).bit());
                assert_eq!(s.inverse().point(s.point(a)), a);
                for b in Point::all() {
                    assert_eq!(BOARD.is_line(a, b), BOARD.is_line(s.point(a), s.point(b)), "{s:?} {a} {b}");
                }
            }
        }
    }

    #[test]
    fn quarter_turn_and_reflection() {
        let turn = Symmetry::new(1);
        assert_eq!(
            [turn.point(p("a1")), turn.point(p("e1")), turn.point(p("c3")), turn.point(p("b1"))],
            [p("e1"), p("e5"), p("c3"), p("e2")]
        );
        let reflect = Symmetry::new(4);
        assert_eq!([reflect.point(p("a1")), reflect.point(p("b4"))], [p("e1"), p("d4")]);
        // the 8 images of b1 are the 8 edge points next to a corner
        let orbit: std::collections::BTreeSet<String> =
            Symmetry::ALL.iter().map(|s| s.point(p("b1")).to_string()).collect();
        assert_eq!(orbit.into_iter().collect::<Vec<_>>(), ["a2", "a4", "b1", "b5", "d1", "d5", "e2", "e4"]);
    }
}
