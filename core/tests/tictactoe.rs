//! Tic-tac-toe, the second TierGame: reachable positions, ranking and a
//! plain minimax written here.

use foxbase_core::tictactoe::{TicTacToe, TttPosition};
use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use std::collections::{HashMap, HashSet, VecDeque};

fn children(pos: &TttPosition) -> Vec<TttPosition> {
    let mut v = Vec::new();
    TicTacToe.for_each_child(pos, |c| v.push(c));
    v
}

/// Every position reachable from the empty board (play stops at game-over positions).
fn reachable() -> HashSet<TttPosition> {
    let ttt = TicTacToe;
    let start = ttt.initial_position();
    let mut seen = HashSet::from([start]);
    let mut queue = VecDeque::from([start]);
    while let Some(p) = queue.pop_front() {
        if ttt.primitive(&p).is_some() {
            continue;
        }
        for c in children(&p) {
            if seen.insert(c) {
                queue.push_back(c);
            }
        }
    }
    seen
}

#[test]
fn breadth_first_search_finds_5478_positions_and_765_up_to_symmetry() {
    let ttt = TicTacToe;
    let all = reachable();
    assert_eq!(all.len(), 5478);
    let canonical: HashSet<TttPosition> = all.iter().map(|p| ttt.canonical(p)).collect();
    assert_eq!(canonical.len(), 765);
    // Per mark count (the tiers): the known counts 1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78.
    let mut per_tier = [0usize; 10];
    for p in &all {
        per_tier[ttt.tier_of(p) as usize] += 1;
    }
    assert_eq!(per_tier, [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]);
}

/// Three in a row, written out again here.
fn line(c: u16) -> bool {
    const ROWS: [[u16; 3]; 8] =
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
    ROWS.iter().any(|r| r.iter().all(|&i| c & (1 << i) != 0))
}

#[test]
fn primitive_positions() {
    let ttt = TicTacToe;
    let p = |x: u16, o: u16| TttPosition { x, o };
    assert_eq!(ttt.primitive(&p(0, 0)), None);
    // X has the top row, O to move: O lost.
    assert_eq!(ttt.primitive(&p(0b000_000_111, 0b000_011_000)), Some(Value::Loss));
    // A full board without a line is a draw: X O X / X O O / O X X.
    let (x, o) = (0b110_001_101, 0b001_110_010);
    assert!(!line(x) && !line(o));
    assert_eq!(ttt.primitive(&p(x, o)), Some(Value::Draw));
    // Every reachable position is primitive exactly when a line or a full board ends it.
    for q in reachable() {
        let over = line(q.x) || line(q.o) || (q.x | q.o) == 0o777;
        assert_eq!(ttt.primitive(&q).is_some(), over, "{q:?}");
    }
}

/// The value for the side to move, by plain recursion with a memo.
fn minimax(p: &TttPosition, memo: &mut HashMap<TttPosition, Value>) -> Value {
    if let Some(&v) = memo.get(p) {
        return v;
    }
    let v = match TicTacToe.primitive(p) {
        Some(v) => v,
        None => {
            let values: Vec<Value> = children(p).iter().map(|c| minimax(c, memo)).collect();
            Value::from_children(values)
        }
    };
    memo.insert(*p, v);
    v
}

#[test]
fn minimax_says_the_empty_board_is_a_draw() {
    let mut memo = HashMap::new();
    let ttt = TicTacToe;
    assert_eq!(minimax(&ttt.initial_position(), &mut memo), Value::Draw);
    // X in a corner, O anywhere but the centre: X wins.
    let x = 1;
    for o in 1..9 {
        let v = minimax(&TttPosition { x, o: 1 << o }, &mut memo);
        assert_eq!(v, if o == 4 { Value::Draw } else { Value::Win }, "X a1, O on cell {o}");
    }
    // Values do not change under the symmetries.
    for p in reachable() {
        let c = ttt.canonical(&p);
        assert_eq!(minimax(&p, &mut memo), minimax(&c, &mut memo));
    }
}

/// The 8 symmetries of the square, written out again here.
fn images(p: &TttPosition) -> Vec<TttPosition> {
    let map = |c: u16, f: &dyn Fn(u16, u16) -> (u16, u16)| -> u16 {
        (0..9).filter(|i| c & (1 << i) != 0).map(|i| f(i / 3, i % 3)).map(|(r, col)| 1 << (r * 3 + col)).sum()
    };
    let transforms: [&dyn Fn(u16, u16) -> (u16, u16); 8] = [
        &|r, c| (r, c),
        &|r, c| (c, 2 - r),
        &|r, c| (2 - r, 2 - c),
        &|r, c| (2 - c, r),
        &|r, c| (r, 2 - c),
        &|r, c| (2 - r, c),
        &|r, c| (c, r),
        &|r, c| (2 - c, 2 - r),
    ];
    transforms.iter().map(|f| TttPosition { x: map(p.x, *f), o: map(p.o, *f) }).collect()
}

/// Every position with `n` marks (X has ceil(n / 2), O the rest), game over or not.
fn all_positions(n: u32) -> Vec<TttPosition> {
    let mut out = Vec::new();
    for x in 0..512u16 {
        if x.count_ones() != n.div_ceil(2) {
            continue;
        }
        for o in 0..512u16 {
            if o & x == 0 && o.count_ones() == n / 2 {
                out.push(TttPosition { x, o });
            }
        }
    }
    out
}

#[test]
fn rank_unrank_round_trip_over_every_slot_of_every_tier() {
    let ttt = TicTacToe;
    let mut total_used = 0;
    for t in 0..=9u8 {
        assert_eq!(ttt.parse_tier_name(&ttt.tier_name(t)), Some(t));
        let index = ttt.tier_index(t);
        let size = ttt.tier_size(&index);
        let mut used = HashMap::new();
        let mut slots = Vec::new();
        for i in 0..size {
            let got = ttt.unrank(&index, i);
            slots.push(got);
            if let Some(p) = got {
                assert_eq!(p.x & p.o, 0);
                assert_eq!((p.x | p.o) & !0o777, 0);
                assert_eq!(ttt.tier_of(&p), t);
                assert_eq!(p.x.count_ones(), (t as u32).div_ceil(2), "{p:?}");
                assert_eq!(ttt.canonical(&p), p, "slot {i} of tier {t}");
                assert_eq!(ttt.rank(&index, &p), i, "rank(unrank({i})) in tier {t}");
                assert!(used.insert(p, i).is_none(), "{p:?} in two slots");
            }
        }
        // The used slots hold exactly the canonical positions with t marks that
        // can arise: none whose side to move alone holds a line (a game-over win).
        let all = all_positions(t as u32);
        let can_arise = |p: &TttPosition| ttt.primitive(p) != Some(Value::Win);
        let canonical: HashSet<TttPosition> = all.iter().filter(|p| can_arise(p)).map(|p| ttt.canonical(p)).collect();
        assert_eq!(used.len(), canonical.len(), "tier {t}");
        for p in &all {
            // The canonical form is one of the 8 images and the same for all of them.
            let c = ttt.canonical(p);
            let imgs = images(p);
            assert!(imgs.contains(&c));
            for q in &imgs {
                assert_eq!(ttt.canonical(q), c);
            }
            assert_eq!(ttt.canonical(&c), c);
            if can_arise(p) {
                assert_eq!(ttt.canonical_rank(&index, p), used[&c], "{p:?}");
            } else {
                assert_eq!(slots[ttt.canonical_rank(&index, p) as usize], None, "{p:?}");
            }
        }
        let mut next = 0;
        ttt.for_each_slot(&index, 0..size, |i, p| {
            assert_eq!((i, p), (next, slots[i as usize]));
            next += 1;
        });
        assert_eq!(next, size);
        total_used += used.len();
    }
    // The 765 canonical reachable positions all have slots (and more: the tiers
    // also hold positions play never reaches, such as two lines at once).
    assert!(total_used > 765);
    for p in reachable() {
        let c = ttt.canonical(&p);
        let index = ttt.tier_index(ttt.tier_of(&p));
        assert_eq!(ttt.unrank(&index, ttt.rank(&index, &c)), Some(c));
    }
}

#[test]
fn tiers_and_names() {
    let ttt = TicTacToe;
    assert_eq!(ttt.game_name(), "tictactoe");
    for t in 0..=9u8 {
        assert_eq!(ttt.tier_name(t), format!("m{t}"));
        assert_eq!(ttt.child_tiers(t), if t < 9 { vec![t + 1] } else { vec![] });
        // Every move leaves the tier: no in-tier parents, and children are in t + 1.
        for p in all_positions(t as u32).into_iter().filter(|p| ttt.primitive(p).is_none()) {
            let mut n = 0;
            ttt.for_each_parent_in_tier(&p, |_| n += 1);
            assert_eq!(n, 0);
            for c in children(&p) {
                assert_eq!(ttt.tier_of(&c), t + 1);
            }
            assert_eq!(children(&p).len(), 9 - t as usize);
        }
    }
    for bad in ["", "m", "m10", "x3", "m-1", "3"] {
        assert_eq!(ttt.parse_tier_name(bad), None, "{bad:?}");
    }
    // tier sizes: C(9, n) occupied sets x C(n, ceil(n / 2)) ways to choose the X marks.
    let sizes: Vec<u64> = (0..=9).map(|t| ttt.tier_size(&ttt.tier_index(t))).collect();
    assert_eq!(sizes, [1, 9, 72, 252, 756, 1260, 1680, 1260, 630, 126]);
}

#[test]
fn tier_name_parse_accepts_only_the_canonical_spelling() {
    for bad in ["m09", "m+9", "m00"] {
        assert_eq!(TicTacToe.parse_tier_name(bad), None, "{bad:?} is not the name of a tier");
    }
}

/// The write-up's counts of the positions a person plays without thinking:
/// of the 4,520 positions with a move, 222 have one legal move, 2,216 more
/// a win in one, 1,444 more a block (936 against one threat, 508 against
/// two), and 638 are left.
#[test]
fn obvious_positions_are_222_one_move_2216_wins_in_one_1444_blocks_leaving_638() {
    use foxbase_core::tictactoe::{obvious, parse_ttt, Obvious};
    let with_a_move: Vec<TttPosition> = reachable().into_iter().filter(|p| TicTacToe.primitive(p).is_none()).collect();
    assert_eq!(with_a_move.len(), 4520);
    let count = |kind: Option<Obvious>| with_a_move.iter().filter(|p| obvious(p) == kind).count();
    assert_eq!(count(Some(Obvious::OneMove)), 222);
    assert_eq!(count(Some(Obvious::WinInOne)), 2216);
    assert_eq!(count(Some(Obvious::Block)), 1444);
    assert_eq!(count(None), 638);
    // One of each, by hand.
    let of = |text: &str| obvious(&parse_ttt(text).unwrap());
    assert_eq!(of("XOX/XOO/OX. x"), Some(Obvious::OneMove));
    assert_eq!(of("XX./OO./... x"), Some(Obvious::WinInOne), "a win beats a block");
    assert_eq!(of("XX./O../... o"), Some(Obvious::Block));
    assert_eq!(of("X../.O./... x"), None);
    assert_eq!(of("XXX/OO./... o"), None, "a finished game is not a position to play");
}
