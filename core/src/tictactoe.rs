//! Tic-tac-toe as a [`TierGame`]: a tiny second game that keeps the contract honest.
//!
//! Tier n holds the positions with n marks; every move leaves its tier, so
//! the solver's in-tier propagation has nothing to do and everything rests on
//! child-tier lookups. Positions are canonical under the 8 symmetries of the
//! square.
//!
//! ```
//! use foxbase_core::{tictactoe::TicTacToe, tier::TierGame};
//! let ttt = TicTacToe;
//! let index = ttt.tier_index(2);
//! assert_eq!(ttt.tier_size(&index), 36 * 2); // C(9,2) cell pairs, either may hold the X
//! ```

use crate::play::{BoardShape, GameStatus, Playable, Player, ShapePoint, SidePieces, WithRules};
use crate::tier::TierGame;
use crate::value::Value;

/// Cells 0..9 row by row; bit i is cell i.
pub type Cells = u16;

/// A tic-tac-toe position: X's and O's cells. X moves first, so the side
/// to move follows from the counts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct TttPosition {
    pub x: Cells,
    pub o: Cells,
}

impl TttPosition {
    pub fn x_to_move(&self) -> bool {
        self.x.count_ones() == self.o.count_ones()
    }
}

const LINES: [Cells; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

fn has_line(c: Cells) -> bool {
    LINES.into_iter().any(|line| c & line == line)
}

/// Whether `pos` can arise in play as far as lines go: the side to move
/// never holds a line the other side lacks (the game ended when that line
/// was made). Such a position is no child of any position that is not
/// over, so its slot is unused: it would be the tables' only game-over
/// win, which distances to zeroing store as an odd count (docs/format.md).
fn can_arise(pos: &TttPosition) -> bool {
    let (mover, other) = if pos.x_to_move() { (pos.x, pos.o) } else { (pos.o, pos.x) };
    !has_line(mover) || has_line(other)
}

/// Why a person plays a position without thinking (`foxbase export
/// --skip-obvious` leaves these out), tested in this order:
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Obvious {
    /// Exactly one legal move: one empty cell.
    OneMove,
    /// The side to move completes a line of three with one move.
    WinInOne,
    /// The side to move cannot win in one, and the opponent threatens to:
    /// some line holds two of the opponent's marks and an empty cell (one
    /// threat or several: with several, every move loses the same way).
    Block,
}

impl Obvious {
    /// The name `export` and the docs use.
    pub fn name(self) -> &'static str {
        match self {
            Obvious::OneMove => "one legal move",
            Obvious::WinInOne => "a win in one",
            Obvious::Block => "a block of the opponent's win in one",
        }
    }
}

/// Whether `marks` complete a line with one more mark on a cell of `empty`.
fn threatens(marks: Cells, empty: Cells) -> bool {
    LINES.into_iter().any(|line| (marks & line).count_ones() == 2 && empty & line != 0)
}

/// What makes `pos` obvious to play ([`Obvious`]), for a position that is
/// not over; `None` for a position that takes thought (or is over).
///
/// Of the 4,520 positions with a move reachable from the empty board, 222
/// have one legal move, 2,216 more a win in one, 1,444 more a block, and
/// 638 are left (tests/tictactoe.rs counts them).
pub fn obvious(pos: &TttPosition) -> Option<Obvious> {
    if TicTacToe.primitive(pos).is_some() {
        return None;
    }
    let (mover, other) = if pos.x_to_move() { (pos.x, pos.o) } else { (pos.o, pos.x) };
    let empty = !(pos.x | pos.o) & 0o777;
    if empty.count_ones() == 1 {
        Some(Obvious::OneMove)
    } else if threatens(mover, empty) {
        Some(Obvious::WinInOne)
    } else if threatens(other, empty) {
        Some(Obvious::Block)
    } else {
        None
    }
}

/// The 8 symmetries of the square as cell permutations.
fn symmetries() -> [[u8; 9]; 8] {
    let rot = |c: u8| -> u8 { (c % 3) * 3 + (2 - c / 3) };
    let flip = |c: u8| -> u8 { (c / 3) * 3 + (2 - c % 3) };
    let mut out = [[0u8; 9]; 8];
    for (s, perm) in out.iter_mut().enumerate() {
        for (c, p) in perm.iter_mut().enumerate() {
            let mut v = c as u8;
            for _ in 0..s % 4 {
                v = rot(v);
            }
            if s >= 4 {
                v = flip(v);
            }
            *p = v;
        }
    }
    out
}

fn permute(c: Cells, perm: &[u8; 9]) -> Cells {
    (0..9).filter(|&i| c & (1 << i) != 0).map(|i| 1 << perm[i]).sum()
}

/// Number of masks below `mask` (as integers) with the same popcount.
fn same_popcount_rank(mask: Cells) -> u64 {
    (0..mask).filter(|m| m.count_ones() == mask.count_ones()).count() as u64
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// Why a tic-tac-toe position or move could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TttParseError {
    #[error("'{0}' is not a tic-tac-toe position: three rows of X, O or . from the top, separated by '/', then x or o (e.g. 'X../.O./... x')")]
    Shape(String),
    #[error("'{text}': {x} X and {o} O cannot occur (X moves first, so X has as many marks as O or one more)")]
    Counts { text: String, x: u32, o: u32 },
    #[error("'{text}': it is {expected} to move, not {found}")]
    SideToMove { text: String, expected: char, found: char },
    #[error("'{0}' is not a square: a file a..c and a rank 1..3, e.g. b2")]
    Square(String),
    #[error("{square} is not empty")]
    Occupied { square: String },
}

/// Parses tic-tac-toe notation: three rows from the top separated by
/// `/`, each of three of `X`, `O` or `.`, then the side to move (`x` or
/// `o`), which must agree with the counts.
///
/// ```
/// use foxbase_core::tictactoe::{format_ttt, parse_ttt};
/// let p = parse_ttt("X../.O./... x").unwrap();
/// assert_eq!((p.x, p.o), (1, 1 << 4)); // cell 0 is a3 (top left), cell 4 the centre
/// assert_eq!(format_ttt(&p), "X../.O./... x");
/// assert!(parse_ttt("X../.O./... o").is_err());
/// ```
pub fn parse_ttt(text: &str) -> Result<TttPosition, TttParseError> {
    let t = text.trim();
    let shape = || TttParseError::Shape(t.to_string());
    let (board, side) = t.split_once(' ').ok_or_else(shape)?;
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 3 || rows.iter().any(|r| r.chars().count() != 3) {
        return Err(shape());
    }
    let (mut x, mut o) = (0 as Cells, 0 as Cells);
    for (i, c) in rows.concat().chars().enumerate() {
        match c {
            'X' => x |= 1 << i,
            'O' => o |= 1 << i,
            '.' => {}
            _ => return Err(shape()),
        }
    }
    let (nx, no) = (x.count_ones(), o.count_ones());
    if nx != no && nx != no + 1 {
        return Err(TttParseError::Counts { text: t.to_string(), x: nx, o: no });
    }
    let pos = TttPosition { x, o };
    let expected = if pos.x_to_move() { 'x' } else { 'o' };
    match side.trim() {
        "x" | "o" if side.trim().starts_with(expected) => Ok(pos),
        "x" | "o" => {
            Err(TttParseError::SideToMove { text: t.to_string(), expected, found: side.trim().chars().next().unwrap() })
        }
        _ => Err(shape()),
    }
}

/// The notation of a position ([`parse_ttt`]'s inverse).
pub fn format_ttt(pos: &TttPosition) -> String {
    let mut s = String::new();
    for i in 0..9 {
        if i > 0 && i % 3 == 0 {
            s.push('/');
        }
        s.push(if pos.x & (1 << i) != 0 {
            'X'
        } else if pos.o & (1 << i) != 0 {
            'O'
        } else {
            '.'
        });
    }
    s.push(' ');
    s.push(if pos.x_to_move() { 'x' } else { 'o' });
    s
}

/// The square of cell `c`: files a..c from the left, ranks 1..3 from the bottom (`b2` is the centre).
pub fn square_name(c: u8) -> String {
    format!("{}{}", (b'a' + c % 3) as char, 3 - c / 3)
}

/// The cell of a square name ([`square_name`]'s inverse).
pub fn parse_square(text: &str) -> Result<u8, TttParseError> {
    let b = text.trim().as_bytes();
    match b {
        [f @ b'a'..=b'c', r @ b'1'..=b'3'] => Ok((3 - (r - b'0')) * 3 + (f - b'a')),
        _ => Err(TttParseError::Square(text.trim().to_string())),
    }
}

/// Every legal move of a position that is not over: the cell filled and the position after it.
pub fn ttt_moves(pos: &TttPosition) -> Vec<(u8, TttPosition)> {
    if TicTacToe.primitive(pos).is_some() {
        return Vec::new();
    }
    (0..9u8)
        .filter(|&c| (pos.x | pos.o) & (1 << c) == 0)
        .map(|c| {
            let after = if pos.x_to_move() {
                TttPosition { x: pos.x | 1 << c, o: pos.o }
            } else {
                TttPosition { x: pos.x, o: pos.o | 1 << c }
            };
            (c, after)
        })
        .collect()
}

/// Tic-tac-toe. Tiers are mark counts 0..=9.
pub struct TicTacToe;

/// A move: the cell a mark goes on, written as its square ([`square_name`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Square(pub u8);

impl std::fmt::Display for Square {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&square_name(self.0))
    }
}

/// The board as text with its coordinates (files a..c, ranks 3 down to 1).
pub fn board_picture(pos: &TttPosition) -> String {
    let text = format_ttt(pos);
    let mut s = String::new();
    for (r, row) in text.split(' ').next().unwrap_or("").split('/').enumerate() {
        s.push_str(&format!("{} ", 3 - r));
        for c in row.chars() {
            s.push(' ');
            s.push(c);
        }
        s.push('\n');
    }
    s.push_str("   a b c\n");
    s
}

const X: Player = Player { name: "x", team: "X", plural: false };
const O: Player = Player { name: "o", team: "O", plural: false };

impl Playable for TicTacToe {
    type Position = TttPosition;
    type Move = Square;

    fn game_name(&self) -> &'static str {
        crate::game::GameKind::TicTacToe.name()
    }

    fn players(&self) -> [Player; 2] {
        [X, O]
    }

    fn to_move(&self, pos: &TttPosition) -> Player {
        if pos.x_to_move() {
            X
        } else {
            O
        }
    }

    fn parse_position(&self, text: &str) -> Result<TttPosition, String> {
        parse_ttt(text).map_err(|e| e.to_string())
    }

    fn format_position(&self, pos: &TttPosition) -> String {
        format_ttt(pos)
    }

    fn board_picture(&self, pos: &TttPosition) -> String {
        board_picture(pos)
    }

    /// The nine squares of a 3x3 grid.
    fn board_shape(&self) -> BoardShape {
        let points = (0..9u8)
            .map(|c| ShapePoint { name: square_name(c), x: i32::from(c % 3) + 1, y: 3 - i32::from(c / 3) })
            .collect();
        let side = |player: Player, piece, letter| SidePieces { player, piece, letter, one: player.team };
        BoardShape {
            points,
            lines: Vec::new(),
            cells: true,
            region: None,
            sides: [side(X, 'X', 'x'), side(O, 'O', 'o')],
            counts: Vec::new(),
        }
    }

    fn parse_move(&self, pos: &TttPosition, text: &str) -> Result<Square, String> {
        let cell = parse_square(text).map_err(|e| e.to_string())?;
        if self.primitive(pos).is_some() {
            return Err(format!("{}: the game is over", square_name(cell)));
        }
        if (pos.x | pos.o) & (1 << cell) != 0 {
            return Err(format!("{} is not empty", square_name(cell)));
        }
        Ok(Square(cell))
    }

    fn status(&self, pos: &TttPosition) -> GameStatus {
        let (mover, other) = if pos.x_to_move() { (pos.x, pos.o) } else { (pos.o, pos.x) };
        let (x_to_move, reason) = (pos.x_to_move(), "three in a row");
        if has_line(other) {
            GameStatus::Over { winner: Some(if x_to_move { O } else { X }), reason }
        } else if has_line(mover) {
            GameStatus::Over { winner: Some(if x_to_move { X } else { O }), reason }
        } else if (pos.x | pos.o).count_ones() == 9 {
            GameStatus::Over { winner: None, reason: "the board is full" }
        } else {
            GameStatus::Ongoing
        }
    }

    fn play(&self, pos: &TttPosition, mv: Square) -> TttPosition {
        let cell = 1 << mv.0;
        if pos.x_to_move() {
            TttPosition { x: pos.x | cell, o: pos.o }
        } else {
            TttPosition { x: pos.x, o: pos.o | cell }
        }
    }

    fn for_each_move(&self, pos: &TttPosition, mut f: impl FnMut(Square, TttPosition)) {
        for (cell, after) in ttt_moves(pos) {
            f(Square(cell), after);
        }
    }
}

impl WithRules for TicTacToe {
    type Rules = TicTacToe;

    fn rules(&self) -> &TicTacToe {
        self
    }
}

/// Layout of one tic-tac-toe tier: the masks of each popcount in integer order.
pub struct TttIndex {
    marks: u32,
    occupied: Vec<Cells>,
}

impl TierGame for TicTacToe {
    type Tier = u8;
    type Position = TttPosition;
    type Index = TttIndex;

    fn game_name(&self) -> &'static str {
        crate::game::GameKind::TicTacToe.name()
    }

    fn variant_json(&self) -> String {
        "{\"game\":\"tictactoe\"}".into()
    }

    /// Its one variant.
    fn from_variant_json(variant: &str) -> Result<TicTacToe, String> {
        match variant == TicTacToe.variant_json() {
            true => Ok(TicTacToe),
            false => Err(format!("tic-tac-toe has one variant, {}", TicTacToe.variant_json())),
        }
    }

    fn initial_position(&self) -> TttPosition {
        TttPosition { x: 0, o: 0 }
    }

    fn tier_of(&self, pos: &TttPosition) -> u8 {
        (pos.x | pos.o).count_ones() as u8
    }

    fn tier_name(&self, tier: u8) -> String {
        format!("m{tier}")
    }

    fn parse_tier_name(&self, name: &str) -> Option<u8> {
        let tier: u8 = name.strip_prefix('m')?.parse().ok().filter(|&n| n <= 9)?;
        // Only the exact spelling tier_name gives, so a tier has one file name.
        (self.tier_name(tier) == name).then_some(tier)
    }

    fn tier_index(&self, tier: u8) -> TttIndex {
        let marks = tier as u32;
        TttIndex { marks, occupied: (0..512u16).filter(|m| m.count_ones() == marks).collect() }
    }

    fn tier_size(&self, index: &TttIndex) -> u64 {
        let n = index.marks as u64;
        index.occupied.len() as u64 * binomial(n, n.div_ceil(2))
    }

    fn child_tiers(&self, tier: u8) -> Vec<u8> {
        if tier < 9 {
            vec![tier + 1]
        } else {
            vec![]
        }
    }

    fn canonical(&self, pos: &TttPosition) -> TttPosition {
        symmetries()
            .iter()
            .map(|p| TttPosition { x: permute(pos.x, p), o: permute(pos.o, p) })
            .min_by_key(|p| (p.x | p.o, p.x))
            .unwrap()
    }

    fn rank(&self, index: &TttIndex, pos: &TttPosition) -> u64 {
        let occupied = pos.x | pos.o;
        // The X marks as a subset of the occupied cells, packed to the low bits.
        let packed: Cells = (0..9u16)
            .filter(|&i| occupied & (1 << i) != 0)
            .enumerate()
            .map(|(j, i)| if pos.x & (1 << i) != 0 { 1 << j } else { 0 })
            .sum();
        let n = index.marks as u64;
        same_popcount_rank(occupied) * binomial(n, n.div_ceil(2)) + same_popcount_rank(packed)
    }

    fn unrank(&self, index: &TttIndex, i: u64) -> Option<TttPosition> {
        let n = index.marks as u64;
        let per = binomial(n, n.div_ceil(2));
        let occupied = index.occupied[(i / per) as usize];
        let packed = (0..1u16 << n).filter(|m| m.count_ones() as u64 == n.div_ceil(2)).nth((i % per) as usize)?;
        let mut x = 0;
        for (j, cell) in (0..9u16).filter(|&c| occupied & (1 << c) != 0).enumerate() {
            if packed & (1 << j) != 0 {
                x |= 1 << cell;
            }
        }
        let pos = TttPosition { x, o: occupied & !x };
        (self.canonical(&pos) == pos && can_arise(&pos)).then_some(pos)
    }

    fn primitive(&self, pos: &TttPosition) -> Option<Value> {
        let (mover, other) = if pos.x_to_move() { (pos.x, pos.o) } else { (pos.o, pos.x) };
        if has_line(other) {
            Some(Value::Loss)
        } else if has_line(mover) {
            // Not reachable in play; a finished game all the same.
            Some(Value::Win)
        } else if (pos.x | pos.o).count_ones() == 9 {
            Some(Value::Draw)
        } else {
            None
        }
    }

    fn for_each_child(&self, pos: &TttPosition, mut f: impl FnMut(TttPosition)) {
        let empty = !(pos.x | pos.o) & 0o777;
        for c in 0..9 {
            if empty & (1 << c) != 0 {
                f(if pos.x_to_move() {
                    TttPosition { x: pos.x | 1 << c, o: pos.o }
                } else {
                    TttPosition { x: pos.x, o: pos.o | 1 << c }
                });
            }
        }
    }

    fn for_each_parent_in_tier(&self, _pos: &TttPosition, _f: impl FnMut(TttPosition)) {
        // Every move adds a mark, so no move stays inside a tier.
    }
}
