//! Property tests over random legal positions.
//!
//! Random positions are either random placements (0..=20 sheep and 0..=2 foxes
//! on distinct points, either side to move; a third of them crowded with 17..=20
//! sheep) or the end of a random game played
//! from the default start; the geometry and the pen target K (1..=9) are random
//! too. The properties:
//!
//! - the library agrees with `naive`, an independent, deliberately plain
//!   implementation of RULES.md written here from the rule text (moves,
//!   children, status, notation);
//! - left-right mirroring commutes with moves, children and status;
//! - the notation round-trips for positions and moves;
//! - `check_move` accepts exactly the moves that `moves` lists;
//! - reference-solver values commute with mirroring on a small variant.

use foxbase_core::board::{Geometry, Point};
use foxbase_core::notation::{format_position, parse_move_text, parse_position};
use foxbase_core::perft::perft;
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::rules::{EndReason, Move, Rules, Status};
use foxbase_core::{Position, Side, Value, Variant};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// The Fox Game straight from RULES.md, on an 8x8 array of characters, with
/// no bit sets, tables or shared code. Slow and obvious on purpose.
mod naive {
    /// (from, to, jump) as (x, y) pairs.
    type NaiveMove = ((i32, i32), (i32, i32), bool);

    /// `cells[x][y]` for x, y in 1..=7: 'F', 'S', '.' (or ' ' off the board).
    #[derive(Clone, PartialEq, Eq, Debug)]
    pub struct Game {
        pub cells: [[char; 8]; 8],
        pub fox_to_move: bool,
    }

    pub fn exists(x: i32, y: i32) -> bool {
        (1..=7).contains(&x) && (1..=7).contains(&y) && ((3..=5).contains(&y) || (3..=5).contains(&x))
    }

    fn in_pen(x: i32, y: i32) -> bool {
        (3..=5).contains(&x) && (5..=7).contains(&y)
    }

    pub fn name(x: i32, y: i32) -> String {
        format!("{}{}", (b'a' + (x - 1) as u8) as char, y)
    }

    /// Whether a line joins the two points (RULES.md, "Lines").
    fn line(classic: bool, a: (i32, i32), b: (i32, i32)) -> bool {
        if !exists(a.0, a.1) || !exists(b.0, b.1) {
            return false;
        }
        let (dx, dy) = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
        (dx + dy == 1) || (classic && dx == 1 && dy == 1 && (a.0 + a.1) % 2 == 0 && (b.0 + b.1) % 2 == 0)
    }

    impl Game {
        pub fn parse(text: &str) -> Game {
            let (board, side) = text.split_once(' ').unwrap();
            let mut cells = [[' '; 8]; 8];
            for (i, rank) in board.split('/').enumerate() {
                let y = 7 - i as i32;
                let xs: Vec<i32> = (1..=7).filter(|&x| exists(x, y)).collect();
                assert_eq!(xs.len(), rank.len());
                for (x, c) in xs.into_iter().zip(rank.chars()) {
                    cells[x as usize][y as usize] = c;
                }
            }
            Game { cells, fox_to_move: side == "f" }
        }

        pub fn format(&self) -> String {
            let ranks: Vec<String> = (1..=7)
                .rev()
                .map(|y| (1..=7).filter(|&x| exists(x, y)).map(|x| self.cells[x as usize][y as usize]).collect())
                .collect();
            format!("{} {}", ranks.join("/"), if self.fox_to_move { 'f' } else { 's' })
        }

        fn at(&self, p: (i32, i32)) -> char {
            if exists(p.0, p.1) {
                self.cells[p.0 as usize][p.1 as usize]
            } else {
                ' '
            }
        }

        fn set(&mut self, p: (i32, i32), c: char) {
            self.cells[p.0 as usize][p.1 as usize] = c;
        }

        fn count(&self, c: char, pen_only: bool) -> u32 {
            let mut n = 0;
            for x in 1..=7 {
                for y in 1..=7 {
                    if exists(x, y) && self.at((x, y)) == c && (!pen_only || in_pen(x, y)) {
                        n += 1;
                    }
                }
            }
            n
        }

        /// Moves of the piece on `p` as (from, to, jump).
        fn piece_moves(&self, classic: bool, p: (i32, i32)) -> Vec<NaiveMove> {
            let mut out = Vec::new();
            let piece = self.at(p);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    if dx == 0 && dy == 0 {
                        continue;
                    }
                    let q = (p.0 + dx, p.1 + dy);
                    if !line(classic, p, q) {
                        continue;
                    }
                    if self.at(q) == '.' && (piece == 'F' || dy >= 0) {
                        out.push((p, q, false));
                    }
                    let r = (q.0 + dx, q.1 + dy);
                    if piece == 'F' && self.at(q) == 'S' && line(classic, q, r) && self.at(r) == '.' {
                        out.push((p, r, true));
                    }
                }
            }
            out
        }

        fn all_piece_moves(&self, classic: bool) -> Vec<NaiveMove> {
            let mover = if self.fox_to_move { 'F' } else { 'S' };
            let mut out = Vec::new();
            for x in 1..=7 {
                for y in 1..=7 {
                    if exists(x, y) && self.at((x, y)) == mover {
                        out.extend(self.piece_moves(classic, (x, y)));
                    }
                }
            }
            out
        }

        /// The end-of-move checks, as if the side not to move had just moved.
        fn ended(&self, k: u32) -> Option<(char, &'static str)> {
            if self.fox_to_move {
                if self.count('S', true) >= k {
                    return Some(('s', "pen"));
                }
                if self.count('F', false) == 0 {
                    return Some(('s', "nofoxes"));
                }
            } else if self.count('S', false) < k {
                return Some(('f', "toofew"));
            }
            None
        }

        /// None while the game goes on, else (winner 'f' or 's', reason).
        pub fn status(&self, classic: bool, k: u32) -> Option<(char, &'static str)> {
            if let Some(e) = self.ended(k) {
                return Some(e);
            }
            if self.all_piece_moves(classic).is_empty() {
                return Some((if self.fox_to_move { 's' } else { 'f' }, "nomoves"));
            }
            None
        }

        /// The legal moves as text, sorted.
        pub fn moves(&self, classic: bool, k: u32) -> Vec<String> {
            if self.ended(k).is_some() {
                return Vec::new();
            }
            let mut v: Vec<String> = self
                .all_piece_moves(classic)
                .into_iter()
                .map(|(a, b, j)| format!("{}{}{}", name(a.0, a.1), if j { 'x' } else { '-' }, name(b.0, b.1)))
                .collect();
            v.sort();
            v
        }

        /// Plays a move given as text (assumed legal).
        pub fn play(&self, classic: bool, k: u32, mv: &str) -> Game {
            let jump = mv.contains('x');
            let b = mv.as_bytes();
            let from = ((b[0] - b'a' + 1) as i32, (b[1] - b'0') as i32);
            let to = ((b[3] - b'a' + 1) as i32, (b[4] - b'0') as i32);
            let mut g = self.clone();
            let piece = g.at(from);
            g.set(from, '.');
            g.set(to, piece);
            if jump {
                g.set(((from.0 + to.0) / 2, (from.1 + to.1) / 2), '.');
            }
            if !self.fox_to_move && g.count('S', true) < k {
                // Every fox with no step and no jump goes, all at once.
                let mut trapped = Vec::new();
                for x in 1..=7 {
                    for y in 1..=7 {
                        if exists(x, y) && g.at((x, y)) == 'F' && g.piece_moves(classic, (x, y)).is_empty() {
                            trapped.push((x, y));
                        }
                    }
                }
                for p in trapped {
                    g.set(p, '.');
                }
            }
            g.fox_to_move = !self.fox_to_move;
            g
        }

        pub fn perft(&self, classic: bool, k: u32, depth: u32) -> u64 {
            if depth == 0 {
                return 1;
            }
            self.moves(classic, k).iter().map(|m| self.play(classic, k, m).perft(classic, k, depth - 1)).sum()
        }
    }
}

fn naive_status(status: Status) -> Option<(char, &'static str)> {
    match status {
        Status::Ongoing => None,
        Status::Over { winner, reason } => Some((
            winner.letter(),
            match reason {
                EndReason::PenFilled => "pen",
                EndReason::NoFoxes => "nofoxes",
                EndReason::TooFewSheep => "toofew",
                EndReason::BelowFloor => "belowfloor",
                EndReason::NoMoves => "nomoves",
            },
        )),
    }
}

fn bits(points: &[u8]) -> u64 {
    points.iter().fold(0, |b, &i| b | 1 << i)
}

/// A random placement: `sheep` sheep and `foxes` foxes on distinct points.
fn arb_placement(
    sheep: std::ops::RangeInclusive<usize>,
    foxes: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = Position> {
    (Just((0u8..33).collect::<Vec<u8>>()).prop_shuffle(), sheep, foxes, any::<bool>()).prop_map(
        |(perm, ns, nf, fox)| {
            let side = if fox { Side::Fox } else { Side::Sheep };
            Position::new(bits(&perm[nf..nf + ns]), bits(&perm[..nf]), side).unwrap()
        },
    )
}

fn arb_geometry() -> impl Strategy<Value = Geometry> {
    prop_oneof![Just(Geometry::Classic), Just(Geometry::Orthogonal)]
}

/// The position after a random game of up to 80 plies from the default start
/// (foxes or sheep first), stopping early when the game ends.
fn random_game(rules: &Rules, sheep_first: bool, choices: &[usize]) -> Position {
    let mut p = Variant::default().start;
    if sheep_first {
        p = p.with_side(Side::Sheep);
    }
    for &c in choices {
        let moves = rules.moves(&p);
        if moves.is_empty() {
            break;
        }
        p = rules.play(&p, moves[c % moves.len()]);
    }
    p
}

/// A position with the rules to judge it by.
#[derive(Clone, Copy)]
struct Case {
    rules: Rules,
    pos: Position,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} K={} '{}'", self.rules.geometry(), self.rules.pen_target, format_position(&self.pos))
    }
}

/// A random position with random rules: a placement (any, or crowded) or the
/// end of a random game.
fn arb_case() -> impl Strategy<Value = Case> {
    (arb_geometry(), 1u32..=9).prop_flat_map(|(g, k)| {
        let rules = Rules::new(g, k);
        prop_oneof![
            arb_placement(0..=20, 0..=2).prop_map(move |pos| Case { rules, pos }),
            // Crowded boards, where trapped foxes and blocked sheep are common.
            arb_placement(17..=20, 1..=2).prop_map(move |pos| Case { rules, pos }),
            (any::<bool>(), prop::collection::vec(any::<usize>(), 0..80))
                .prop_map(move |(sf, choices)| Case { rules, pos: random_game(&rules, sf, &choices) }),
        ]
    })
}

fn move_set(moves: &[Move]) -> BTreeSet<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn library_agrees_with_the_naive_rules(Case { rules, pos: p } in arb_case()) {
        let classic = rules.geometry() == Geometry::Classic;
        let k = rules.pen_target;
        let text = format_position(&p);
        let g = naive::Game::parse(&text);
        prop_assert_eq!(g.format(), text.clone());
        prop_assert_eq!(naive_status(rules.status(&p)), g.status(classic, k), "status of {}", text);
        let mut lib: Vec<String> = rules.moves(&p).iter().map(|m| m.to_string()).collect();
        lib.sort();
        prop_assert_eq!(&lib, &g.moves(classic, k), "moves of {}", text);
        for m in rules.moves(&p) {
            let child = format_position(&rules.play(&p, m));
            prop_assert_eq!(child, g.play(classic, k, &m.to_string()).format(), "{} after {}", text, m);
        }
    }

    #[test]
    fn mirroring_commutes_with_moves_children_and_status(Case { rules, pos: p } in arb_case()) {
        let m = p.mirror();
        prop_assert_eq!(m.mirror(), p);
        prop_assert_eq!(m.sheep_count(), p.sheep_count());
        let moves = rules.moves(&p);
        let mirrored: Vec<Move> = moves.iter().map(|mv| mv.mirror()).collect();
        prop_assert_eq!(move_set(&rules.moves(&m)), move_set(&mirrored));
        prop_assert_eq!(rules.moves(&m).len(), moves.len());
        for mv in moves {
            prop_assert_eq!(rules.play(&m, mv.mirror()), rules.play(&p, mv).mirror());
        }
        prop_assert_eq!(rules.status(&m), rules.status(&p));
        prop_assert_eq!(p.canonical(), m.canonical());
        prop_assert!(p.canonical() == p || p.canonical() == m);
    }

    #[test]
    fn status_is_ongoing_exactly_when_there_are_moves(Case { rules, pos: p } in arb_case()) {
        let moves = rules.moves(&p);
        prop_assert_eq!(rules.status(&p) == Status::Ongoing, !moves.is_empty());
        if let Status::Over { winner, .. } = rules.status(&p) {
            prop_assert_eq!(winner, p.side().other());
        }
        for mv in moves {
            let child = rules.play(&p, mv);
            prop_assert_eq!(child.side(), p.side().other());
            prop_assert!(child.sheep_count() + u32::from(mv.jump) == p.sheep_count());
            prop_assert!(child.fox_count() <= p.fox_count());
        }
    }

    #[test]
    fn notation_round_trips(Case { pos: p, .. } in arb_case()) {
        let text = format_position(&p);
        let back = parse_position(&text).unwrap();
        prop_assert_eq!(back, p);
        prop_assert_eq!(format_position(&back), text);
    }

    #[test]
    fn move_text_round_trips(Case { rules, pos: p } in arb_case()) {
        for mv in rules.moves(&p) {
            let text = mv.to_string();
            prop_assert_eq!(parse_move_text(&text).unwrap(), mv);
            prop_assert_eq!(parse_move_text(&text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn check_move_accepts_exactly_the_listed_moves(Case { rules, pos: p } in arb_case()) {
        let moves = rules.moves(&p);
        for &mv in &moves {
            prop_assert!(rules.check_move(&p, mv).is_ok(), "{} rejected in {}", mv, format_position(&p));
        }
        for from in Point::all() {
            for to in Point::all() {
                for jump in [false, true] {
                    let mv = Move { from, to, jump };
                    let ok = rules.check_move(&p, mv);
                    prop_assert_eq!(ok.is_ok(), moves.contains(&mv), "{} in {}: {:?}", mv, format_position(&p), ok);
                    if let Err(e) = ok {
                        prop_assert!(e.to_string().starts_with(&format!("{mv}: ")), "{} does not name the move", e);
                    }
                }
            }
        }
    }
}

/// A small variant: one fox and three sheep anywhere, K in 1..=2.
fn arb_small_variant() -> impl Strategy<Value = Variant> {
    (Just((0u8..33).collect::<Vec<u8>>()).prop_shuffle(), any::<bool>(), arb_geometry(), 1u32..=2).prop_map(
        |(perm, fox, g, k)| {
            let side = if fox { Side::Fox } else { Side::Sheep };
            let start = Position::new(bits(&perm[1..4]), bits(&perm[..1]), side).unwrap();
            Variant::new(g, k, start).unwrap()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn reference_values_commute_with_mirroring(v in arb_small_variant()) {
        let mv = Variant::new(v.geometry, v.pen_target, v.start.mirror()).unwrap();
        let a = ReferenceSolution::solve(&v, 1_000_000).unwrap();
        let b = ReferenceSolution::solve(&mv, 1_000_000).unwrap();
        prop_assert_eq!(a.len(), b.len());
        prop_assert_eq!(a.value(&v.start), b.value(&mv.start));
        for (q, value) in a.iter() {
            prop_assert_eq!(b.value(&q.mirror()), Some(value), "{}", format_position(&q));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Distances to the end agree with their definition, position by
    /// position, checked here from the rules alone: 0 when over, a win 1 +
    /// the smallest distance among the children lost for the opponent, a
    /// loss 1 + the largest among the children, none for a draw. The values
    /// are those of the plain solve.
    #[test]
    fn reference_plies_follow_their_definition(v in arb_small_variant()) {
        let plain = ReferenceSolution::solve(&v, 1_000_000).unwrap();
        let sol = ReferenceSolution::solve_with_plies(&v, 1_000_000).unwrap();
        let rules = sol.rules();
        prop_assert_eq!(plain.len(), sol.len());
        for (q, value) in sol.iter() {
            prop_assert_eq!(plain.value(&q), Some(value));
            let plies = sol.plies(&q);
            let mut children = Vec::new();
            rules.for_each_move(&q, |m| {
                let c = rules.play(&q, m);
                children.push((sol.value(&c).unwrap(), sol.plies(&c)));
            });
            let want = match (rules.status(&q), value) {
                (Status::Over { .. }, _) => Some(0),
                (_, Value::Draw) => None,
                (_, Value::Win) => children.iter().filter(|c| c.0 == Value::Loss).map(|c| c.1.unwrap()).min().map(|d| d + 1),
                (_, Value::Loss) => children.iter().map(|c| c.1.unwrap()).max().map(|d| d + 1),
            };
            prop_assert_eq!(plies, want, "{} {:?}", format_position(&q), value);
        }
    }
}

#[test]
fn naive_perft_matches_the_library_from_both_starts() {
    for g in Geometry::ALL {
        let rules = Rules::new(g, 9);
        let classic = g == Geometry::Classic;
        for side in [Side::Fox, Side::Sheep] {
            let start = Variant::default().start.with_side(side);
            let naive = naive::Game::parse(&format_position(&start));
            for depth in 0..=4 {
                assert_eq!(perft(&rules, &start, depth), naive.perft(classic, 9, depth), "{g} {side} depth {depth}");
            }
        }
    }
}

#[test]
fn move_generation_gives_the_line_and_jump_counts_of_the_rules() {
    // RULES.md: 72 lines and 52 jump triples in classic, 52 and 38 in orthogonal.
    // A lone fox steps along every line from its point: summed over all points,
    // each line counts twice. A fox on P with one sheep on Q jumps exactly when
    // P, Q and some R form a triple: summed over all (P, Q), each triple counts twice.
    // K = 9, so one sheep in the pen does not end the game.
    for (g, lines, triples) in [(Geometry::Classic, 72, 52), (Geometry::Orthogonal, 52, 38)] {
        let rules = Rules::new(g, 9);
        let (mut steps, mut jumps) = (0, 0);
        for p in Point::all() {
            steps += rules.moves(&Position::new(0, p.bit(), Side::Fox).unwrap()).len();
            for q in Point::all().filter(|&q| q != p) {
                let pos = Position::new(q.bit(), p.bit(), Side::Fox).unwrap();
                jumps += rules.moves(&pos).iter().filter(|m| m.jump).count();
            }
        }
        assert_eq!((steps, jumps), (2 * lines, 2 * triples), "{g}");
    }
}
