//! The retrograde kernel: tic-tac-toe against a minimax written here, Fox
//! Game tiers against the reference solver and against a simple forward
//! fixed-point solver written here, the same bytes for any thread count, and
//! errors (not panics) for missing child tables.

use foxbase_core::board::Geometry;
use foxbase_core::foxgame::{FoxGame, FoxTier};
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::tictactoe::{TicTacToe, TttPosition};
use foxbase_core::tier::TierGame;
use foxbase_core::{Value, Variant};
use foxbase_tables::packed::{PackedValues, UNUSED};
use foxbase_worker::kernel::{solve_tier, thread_pool, ChildTable, Kernel, Output, SolveTier, SolvedTier};
use foxbase_worker::plane_kernel::{check_tier, CheckError, ChildRef};
use std::collections::{BTreeMap, HashMap};

mod common;
use common::{plan, tables};

// ---------------------------------------------------------------------------
// Helpers.

/// Checks a solved tier's bookkeeping: its length, the unused slots and the stats.
fn check_solved<G: TierGame>(game: &G, tier: G::Tier, solved: &SolvedTier) {
    let index = game.tier_index(tier);
    let size = game.tier_size(&index);
    assert_eq!(solved.values.len(), size);
    let mut unused = 0;
    game.for_each_slot(&index, 0..size, |i, p| {
        assert_eq!(p.is_none(), solved.values.code(i) == UNUSED, "slot {i} of {}", game.tier_name(tier));
        unused += p.is_none() as u64;
    });
    let h = solved.values.histogram();
    let s = &solved.stats;
    assert_eq!(s.slots, size);
    assert_eq!([s.draws, s.wins, s.losses, s.unused], h);
    assert_eq!(s.unused, unused);
}

/// Solves every tier of `order` (children first) with `threads` threads.
fn solve_all<G: TierGame>(game: &G, order: &[G::Tier], threads: usize) -> BTreeMap<G::Tier, SolvedTier> {
    let mut solved: BTreeMap<G::Tier, SolvedTier> = BTreeMap::new();
    for &t in order {
        let children = tables(game, &game.child_tiers(t), &solved);
        let s = solve_tier(game, t, &children, threads)
            .unwrap_or_else(|e| panic!("solving {} failed: {e}", game.tier_name(t)));
        check_solved(game, t, &s);
        solved.insert(t, s);
    }
    solved
}

/// A value from solved tables: the table entry, or the primitive value for a
/// position of a tier that was never solved.
fn lookup<G: TierGame>(game: &G, solved: &BTreeMap<G::Tier, SolvedTier>, p: &G::Position) -> Option<Value> {
    match solved.get(&game.tier_of(p)) {
        Some(s) => s.values.value(game.canonical_rank(&game.tier_index(game.tier_of(p)), p)),
        None => game.primitive(p),
    }
}

// ---------------------------------------------------------------------------
// Tic-tac-toe.

fn ttt_children(p: &TttPosition) -> Vec<TttPosition> {
    let mut v = Vec::new();
    TicTacToe.for_each_child(p, |c| v.push(c));
    v
}

/// The value for the side to move, by plain recursion with a memo.
fn minimax(p: &TttPosition, memo: &mut HashMap<TttPosition, Value>) -> Value {
    if let Some(&v) = memo.get(p) {
        return v;
    }
    let v = match TicTacToe.primitive(p) {
        Some(v) => v,
        None => {
            let values: Vec<Value> = ttt_children(p).iter().map(|c| minimax(c, memo)).collect();
            Value::from_children(values)
        }
    };
    memo.insert(*p, v);
    v
}

fn ttt_order() -> Vec<u8> {
    let order = plan(&TicTacToe, 0);
    assert_eq!(order, (0..=9).rev().collect::<Vec<u8>>());
    order
}

#[test]
fn tictactoe_kernel_matches_minimax_everywhere() {
    let ttt = TicTacToe;
    let solved = solve_all(&ttt, &ttt_order(), 2);
    let start = ttt.initial_position();
    assert_eq!(lookup(&ttt, &solved, &start), Some(Value::Draw), "the empty board");

    let mut memo = HashMap::new();
    let mut compared = 0;
    let mut counts = [0usize; 3];
    for t in 0..=9u8 {
        let index = ttt.tier_index(t);
        let values = &solved[&t].values;
        ttt.for_each_slot(&index, 0..ttt.tier_size(&index), |i, p| {
            if let Some(p) = p {
                let want = minimax(&p, &mut memo);
                assert_eq!(values.value(i), Some(want), "{p:?} (tier {t}, slot {i})");
                counts[want.code() as usize] += 1;
                compared += 1;
            }
        });
    }
    assert!(compared > 765, "every canonical position, reachable or not: {compared}");
    assert!(counts.iter().all(|&n| n > 0), "wins, draws and losses all occur: {counts:?}");
    // Known values after one move: X in the centre or a corner draws, like the edge.
    for (x, name) in [(1u16 << 4, "centre"), (1, "corner"), (1 << 1, "edge")] {
        assert_eq!(lookup(&ttt, &solved, &TttPosition { x, o: 0 }), Some(Value::Draw), "X {name}");
    }
    // X corner, O edge next to it: X (to move) wins.
    assert_eq!(lookup(&ttt, &solved, &TttPosition { x: 1, o: 1 << 1 }), Some(Value::Win));
}

/// Value and plies to the end for the side to move by plain recursion:
/// the winner takes the quickest win, the loser the slowest loss.
fn minimax_plies(p: &TttPosition, memo: &mut HashMap<TttPosition, (Value, Option<u32>)>) -> (Value, Option<u32>) {
    if let Some(&v) = memo.get(p) {
        return v;
    }
    let v = match TicTacToe.primitive(p) {
        Some(v) => (v, (v != Value::Draw).then_some(0)),
        None => {
            let kids: Vec<(Value, Option<u32>)> = ttt_children(p).iter().map(|c| minimax_plies(c, memo)).collect();
            let value = Value::from_children(kids.iter().map(|k| k.0));
            let plies = match value {
                Value::Draw => None,
                Value::Win => kids.iter().filter(|k| k.0 == Value::Loss).map(|k| k.1.unwrap()).min(),
                Value::Loss => kids.iter().map(|k| k.1.unwrap()).max(),
            };
            (value, plies.map(|d| d + 1))
        }
    };
    memo.insert(*p, v);
    v
}

/// The counter kernel with plies gives every tic-tac-toe position the
/// plies a minimax with distances gives, and the values of the value-only kernel.
#[test]
fn tictactoe_plies_match_a_minimax_with_distances() {
    let ttt = TicTacToe;
    let mut solved: BTreeMap<u8, SolvedTier> = BTreeMap::new();
    for t in ttt_order() {
        let children = tables(&ttt, &ttt.child_tiers(t), &solved);
        let s = thread_pool(2).unwrap().install(|| ttt.solve_with(Kernel::Counter, Output::Dtm, t, &children)).unwrap();
        check_solved(&ttt, t, &s);
        solved.insert(t, s);
    }
    let values_only = solve_all(&ttt, &ttt_order(), 1);
    let mut memo = HashMap::new();
    let (mut compared, mut longest) = (0, 0);
    for t in 0..=9u8 {
        assert_eq!(solved[&t].values, values_only[&t].values, "tier {t}");
        let index = ttt.tier_index(t);
        let plies = solved[&t].plies.as_ref().expect("plies were asked for");
        ttt.for_each_slot(&index, 0..ttt.tier_size(&index), |i, p| {
            if let Some(p) = p {
                let (value, want) = minimax_plies(&p, &mut memo);
                let got = (value != Value::Draw).then_some(plies.get(i) as u32);
                assert_eq!(got, want, "{p:?} (tier {t}, slot {i}, {value})");
                longest = longest.max(want.unwrap_or(0));
                compared += 1;
            }
        });
    }
    assert!(compared > 765, "{compared}");
    // X corner, O edge next to it: X wins in 5 plies (X, O, X, O, X).
    assert_eq!(minimax_plies(&TttPosition { x: 1, o: 1 << 1 }, &mut memo), (Value::Win, Some(5)));
    assert_eq!(longest, 5, "the longest forced result of any canonical position, reachable or not");
}

#[test]
fn tictactoe_one_and_two_threads_give_identical_tables() {
    let order = ttt_order();
    let one = solve_all(&TicTacToe, &order, 1);
    let two = solve_all(&TicTacToe, &order, 2);
    for t in order {
        assert_eq!(one[&t].values, two[&t].values, "tier m{t}");
        assert_eq!(one[&t].values.bytes(), two[&t].values.bytes());
        assert_eq!(one[&t].stats, two[&t].stats);
    }
}

#[test]
fn tictactoe_missing_child_table_is_an_error_naming_the_tier() {
    let ttt = TicTacToe;
    let solved = solve_all(&ttt, &ttt_order(), 1);
    // The empty board's children are all in m1 and none is over.
    let err = solve_tier(&ttt, 0, &[], 1).err().expect("m0 without m1 must fail");
    assert!(err.to_string().contains("m1"), "error names the missing tier: {err}");
    for t in 0..9u8 {
        match solve_tier(&ttt, t, &[], 2) {
            Err(e) => assert!(e.to_string().contains(&format!("m{}", t + 1)), "tier m{t}: {e}"),
            // Only possible if every child the kernel needed is over: then the
            // table was not needed and the result is the same.
            Ok(s) => assert_eq!(s.values, solved[&t].values, "m{t} solved without m{}", t + 1),
        }
    }
    // A wrong table (another tier's) in place of the right one is not used.
    let wrong = ChildTable::new(2u8, ttt.tier_index(2), solved[&2].values.clone().into(), None);
    assert!(solve_tier(&ttt, 0, &[wrong], 1).err().expect("m0 with only m2").to_string().contains("m1"));
}

// ---------------------------------------------------------------------------
// Fox Game.

fn small_variant() -> Variant {
    Variant::new(Geometry::Classic, 2, parse_position(".F./.../......./......./SSS..../.../... f").unwrap()).unwrap()
}

#[test]
fn fox_small_variant_matches_reference_with_identical_bytes_for_1_and_2_threads() {
    let v = small_variant();
    let game = FoxGame::new(v);
    let root = game.tier_of(&v.start);
    let order = plan(&game, root);
    assert!(order.len() > 10, "a few tiers: {order:?}");
    assert_eq!(*order.last().unwrap(), root);
    assert!(!game.child_tiers(root).is_empty());
    let one = solve_all(&game, &order, 1);
    let two = solve_all(&game, &order, 2);
    for t in &order {
        assert_eq!(one[t].values.bytes(), two[t].values.bytes(), "tier {t}");
        assert_eq!(one[t].stats, two[t].stats, "tier {t}");
    }
    // Position by position against the reference solver (no tiers, no un-moves).
    let reference = ReferenceSolution::solve(&v, 1_000_000).unwrap();
    let mut compared = 0;
    for (p, want) in reference.iter() {
        let got = lookup(&game, &one, &p);
        assert_eq!(got, Some(want), "{}", format_position(&p));
        compared += 1;
    }
    eprintln!("small variant: {} tiers, {compared} reference positions compared", order.len());
    assert!(compared > 1000, "compared {compared}");
    let levels: u32 = order.iter().map(|t| one[t].stats.levels).max().unwrap();
    assert!(levels > 3, "in-tier propagation had something to do: {levels} levels");
}

#[test]
fn fox_missing_child_table_is_an_error_naming_the_tier() {
    let v = small_variant();
    let game = FoxGame::new(v);
    let order = plan(&game, game.tier_of(&v.start));
    let solved = solve_all(&game, &order, 1);
    let mut errors = 0;
    for &t in &order {
        let child_tiers = game.child_tiers(t);
        for (k, &missing) in child_tiers.iter().enumerate() {
            let mut rest = child_tiers.clone();
            rest.remove(k);
            let children = tables(&game, &rest, &solved);
            match solve_tier(&game, t, &children, 2) {
                Err(e) => {
                    assert!(e.to_string().contains(&missing.name()), "solving {t} without {missing}: {e}");
                    errors += 1;
                }
                // Only if no needed child of that tier was in play: then the
                // result must be the same as with the table.
                Ok(s) => assert_eq!(s.values, solved[&t].values, "{t} solved without {missing}"),
            }
        }
    }
    eprintln!("{errors} solves without one child table failed as they should");
    assert!(errors > 10, "leaving out a child table must fail for most tiers: {errors}");
    // The start tier with no child tables at all.
    let root = game.tier_of(&v.start);
    let e = solve_tier(&game, root, &[], 1).err().expect("the start tier needs child tables");
    assert!(game.child_tiers(root).iter().any(|c| e.to_string().contains(&c.name())), "{e}");
}

/// Deterministic pseudo-random value for a slot of a tier.
fn noise(tier: FoxTier, i: u64) -> u8 {
    let mut h = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    for c in tier.name().bytes() {
        h = (h ^ c as u64).wrapping_mul(0x100_0000_01b3);
    }
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 32;
    (h % 3) as u8
}

/// Child tables with made-up values: each used slot gets its primitive value
/// if the position is over, else a pseudo-random one (unused slots too). They are not a solve of
/// anything, but the kernel's answer is still a function of them.
fn synthetic_tables(game: &FoxGame, tier: FoxTier) -> Vec<ChildTable<FoxGame>> {
    game.child_tiers(tier)
        .into_iter()
        .map(|c| {
            let index = game.tier_index(c);
            let size = game.tier_size(&index);
            let mut values = PackedValues::filled(size, UNUSED);
            // Unused slots get noise too: a table read from a file holds
            // don't-care codes there, and no kernel may read them.
            game.for_each_slot(&index, 0..size, |i, p| {
                let code = match p.map(|p| game.primitive(&p)) {
                    Some(Some(v)) => v.code(),
                    _ => noise(c, i),
                };
                values.set_code(i, code);
            });
            ChildTable::new(c, index, values.into(), None)
        })
        .collect()
}

/// An independent solve of one tier: forward edges only (no un-moves), a
/// reverse graph built from them, and counting backward induction.
fn forward_solve(game: &FoxGame, tier: FoxTier, children: &[ChildTable<FoxGame>]) -> Vec<Option<Value>> {
    let index = game.tier_index(tier);
    let size = game.tier_size(&index) as usize;
    let mut value: Vec<Option<Value>> = vec![None; size];
    let mut used = vec![false; size];
    let mut pending = vec![0u32; size];
    let mut reverse: Vec<Vec<u32>> = vec![Vec::new(); size];
    let mut queue = Vec::new();
    for i in 0..size {
        let Some(p) = game.unrank(&index, i as u64) else { continue };
        used[i] = true;
        if let Some(v) = game.primitive(&p) {
            value[i] = Some(v);
            queue.push(i);
            continue;
        }
        let mut inside = Vec::new();
        let (mut win, mut draw) = (false, false);
        game.for_each_child(&p, |c| {
            let t = game.tier_of(&c);
            if t == tier {
                inside.push(game.canonical_rank(&index, &c) as u32);
                return;
            }
            let v = match children.iter().find(|ch| ch.tier == t) {
                Some(ch) => ch.values.value(game.canonical_rank(&ch.index, &c)).expect("child slot in use"),
                None => game.primitive(&c).expect("a child outside the loaded tiers is over"),
            };
            match v {
                Value::Loss => win = true,
                Value::Draw => draw = true,
                Value::Win => {}
            }
        });
        inside.sort_unstable();
        inside.dedup();
        for &c in &inside {
            reverse[c as usize].push(i as u32);
        }
        if win {
            value[i] = Some(Value::Win);
            queue.push(i);
        } else if inside.is_empty() && !draw {
            value[i] = Some(Value::Loss);
            queue.push(i);
        } else {
            pending[i] = inside.len() as u32 + draw as u32;
        }
    }
    while let Some(c) = queue.pop() {
        let v = value[c].unwrap();
        for &q in &reverse[c] {
            let q = q as usize;
            if value[q].is_some() {
                continue;
            }
            if v == Value::Loss {
                value[q] = Some(Value::Win);
                queue.push(q);
            } else if v == Value::Win {
                pending[q] -= 1;
                if pending[q] == 0 {
                    value[q] = Some(Value::Loss);
                    queue.push(q);
                }
            }
        }
    }
    (0..size).map(|i| if used[i] { Some(value[i].unwrap_or(Value::Draw)) } else { None }).collect()
}

/// A tier large enough for several parallel work items (182,700 slots), solved
/// on made-up child tables: the kernel agrees with the forward solver, and
/// 1 and 2 threads give the same bytes.
fn check_large_tier(geometry: Geometry, k: u32, name: &str) {
    check_large_tier_of(Variant::new(geometry, k, Variant::default().start).unwrap(), name)
}

/// [`check_large_tier`] for any variant.
fn check_large_tier_of(variant: Variant, name: &str) {
    let (geometry, k) = (variant.geometry, variant.pen_target);
    let game = FoxGame::new(variant);
    let tier = FoxTier::parse(name).unwrap();
    let children = synthetic_tables(&game, tier);
    let one = solve_tier(&game, tier, &children, 1).unwrap();
    let two = solve_tier(&game, tier, &children, 2).unwrap();
    check_solved(&game, tier, &one);
    assert!(one.values.bytes() == two.values.bytes(), "{geometry} {name}: 1 and 2 threads differ");
    assert_eq!(one.stats, two.stats);
    let want = forward_solve(&game, tier, &children);
    let mut diffs = Vec::new();
    for (i, w) in want.iter().enumerate() {
        if one.values.value(i as u64) != *w {
            diffs.push(i);
        }
    }
    assert!(
        diffs.is_empty(),
        "{geometry} K={k} {name}: {} slots differ, e.g. slot {} = {} kernel {:?}, forward {:?}",
        diffs.len(),
        diffs[0],
        format_position(&game.unrank(&game.tier_index(tier), diffs[0] as u64).unwrap()),
        one.values.value(diffs[0] as u64),
        want[diffs[0]]
    );
    // The Fox Game's own kernel writes the same bytes: for values (the
    // trapped foxes of the blocks steps lead to found once per block) and
    // with plies to zeroing (found step by step).
    // Plies to zeroing from the counter kernel with plies, for the plane kernel's.
    let counter_dtz =
        thread_pool(1).unwrap().install(|| game.solve_with(Kernel::Counter, Output::Dtz, tier, &children)).unwrap();
    for (kernel, output) in [(Kernel::Planes, Output::Values), (Kernel::Planes, Output::Dtz)] {
        for threads in [1, 2] {
            let got =
                thread_pool(threads).unwrap().install(|| game.solve_with(kernel, output, tier, &children)).unwrap();
            if output == Output::Dtz {
                let (got_plies, want) = (got.plies.as_ref().unwrap(), counter_dtz.plies.as_ref().unwrap());
                let first = (0..want.len()).find(|&i| got_plies.get(i) != want.get(i));
                assert_eq!(first, None, "{geometry} K={k} {name}: plies to zeroing differ from the counter kernel's");
            }
            let first = (0..one.values.len()).find(|&i| got.values.code(i) != one.values.code(i));
            if let Some(i) = first {
                panic!(
                    "{geometry} K={k} {name}: {kernel:?} {output:?} with {threads} threads differs first at slot {i} = {}: {:?}, counter {:?}",
                    format_position(&game.unrank(&game.tier_index(tier), i).unwrap()),
                    got.values.value(i),
                    one.values.value(i)
                );
            }
            assert_eq!(got.stats.slots, one.stats.slots);
            assert_eq!(
                [got.stats.wins, got.stats.draws, got.stats.losses],
                [one.stats.wins, one.stats.draws, one.stats.losses]
            );
        }
    }
    check_catches_changed_values(&game, tier, &children, &one);
    let h = one.values.histogram();
    eprintln!("{geometry} K={k} {name}: {:?} (draw, win, loss, unused), {} levels", h, one.stats.levels);
    assert!(h[0] > 0 && h[1] > 0 && h[2] > 0, "{name}: draws, wins and losses all occur: {h:?}");
    assert!(one.stats.levels > 3, "{name}: in-tier propagation ran {} levels", one.stats.levels);
}

/// `foxbase verify`'s check of a whole tier (the solve's own initial
/// pass: on crowded tiers the trapped foxes found once per set): the
/// solved values pass, every position counted; a value changed in any used
/// slot (40 slots spread over the tier, each side to move) is caught, at
/// that slot or at a lower one whose value it contradicts.
fn check_catches_changed_values(game: &FoxGame, tier: FoxTier, children: &[ChildTable<FoxGame>], solved: &SolvedTier) {
    let refs: Vec<ChildRef> = children
        .iter()
        .map(|c| ChildRef { tier: c.tier, index: &c.index, values: &c.values, plies: None, planes: None })
        .collect();
    let name = tier.name();
    let positions = solved.stats.slots - solved.stats.unused;
    assert_eq!(check_tier(game, tier, &refs, &solved.values, true), Ok(positions), "{name}: solved values");
    let len = solved.values.len();
    let mut changed = solved.values.clone();
    let mut tried = 0;
    for i in (0..len).step_by((len / 40) as usize).chain([len - 1, len - 2]) {
        let code = solved.values.code(i);
        if code == UNUSED {
            continue;
        }
        for other in (0..3).filter(|&c| c != code) {
            changed.set_code(i, other);
            match check_tier(game, tier, &refs, &changed, true) {
                Err(CheckError::Contradiction(c)) => assert!(
                    c.slot <= i && c.stored != c.derived,
                    "{name}: slot {i} changed to code {other}: reported {c:?}"
                ),
                result => panic!("{name}: slot {i} changed to code {other}: not caught: {result:?}"),
            }
            tried += 1;
        }
        changed.set_code(i, code);
    }
    assert!(tried >= 40, "{name}: only {tried} changes tried");
    assert_eq!(check_tier(game, tier, &refs, &changed, true), Ok(positions), "{name}: restored");
}

#[test]
fn fox_large_tier_on_synthetic_children_classic() {
    check_large_tier(Geometry::Classic, 3, "f2-0.0.2.2.0.0.0");
}

#[test]
fn fox_large_tier_on_synthetic_children_orthogonal() {
    check_large_tier(Geometry::Orthogonal, 4, "f2-0.0.2.2.0.0.0");
}

/// One fox (a plane is one row in the plane kernel), a pen that fills.
#[test]
fn fox_large_one_fox_tiers_on_synthetic_children() {
    check_large_tier(Geometry::Classic, 4, "f1-0.0.3.3.1.0.0");
    check_large_tier(Geometry::Orthogonal, 2, "f1-0.1.3.3.0.0.0");
}

/// Crowded tiers of the 20-sheep game under a sheep floor of 20 (every
/// capture ends the game, won by the foxes or by the sheep): 13 free
/// points, where most sheep steps trap a fox.
#[test]
fn fox_crowded_tiers_under_a_sheep_floor() {
    use foxbase_core::Side;
    let floored = |geometry, winner| {
        Variant::new(geometry, 9, Variant::default().start).unwrap().with_sheep_floor(20, winner).unwrap()
    };
    check_large_tier_of(floored(Geometry::Classic, Side::Fox), "f2-3.3.6.5.3.0.0");
    check_large_tier_of(floored(Geometry::Orthogonal, Side::Sheep), "f2-3.3.7.4.3.0.0");
    check_large_tier_of(floored(Geometry::Classic, Side::Fox), "f1-2.3.6.5.4.0.0");
}

/// The no-progress rule on crowded tiers (exact distances to zeroing up to
/// the cap, where the initial pass reads each child block once per set):
/// the plane kernel's values and plies equal the counter kernel's, with 1
/// and 2 threads, for caps from 1 ply to past the tier's longest distance.
#[test]
fn fox_crowded_tiers_under_a_no_progress_rule() {
    use foxbase_core::Side;
    for (geometry, winner, name, caps) in [
        (Geometry::Classic, Side::Fox, "f2-3.3.6.5.3.0.0", [1, 6, 200]),
        (Geometry::Orthogonal, Side::Sheep, "f2-3.3.7.4.3.0.0", [2, 9, 200]),
        (Geometry::Classic, Side::Fox, "f1-2.3.6.5.4.0.0", [1, 5, 200]),
    ] {
        for cap in caps {
            let variant = Variant::new(geometry, 9, Variant::default().start)
                .unwrap()
                .with_sheep_floor(20, winner)
                .unwrap()
                .with_no_progress(cap)
                .unwrap();
            let game = FoxGame::new(variant);
            let tier = FoxTier::parse(name).unwrap();
            let children = synthetic_tables(&game, tier);
            let solve = |kernel, threads| {
                thread_pool(threads).unwrap().install(|| game.solve_with(kernel, Output::Dtz, tier, &children)).unwrap()
            };
            let counter = solve(Kernel::Counter, 1);
            let (want_plies, at) = (counter.plies.as_ref().unwrap(), format!("{geometry} {name} N = {cap}"));
            let h = counter.values.histogram();
            assert!(h[0] > 0 && h[1] > 0 && h[2] > 0, "{at}: draws, wins and losses all occur: {h:?}");
            for threads in [1, 2] {
                let planes = solve(Kernel::Planes, threads);
                let first = (0..counter.values.len()).find(|&i| planes.values.code(i) != counter.values.code(i));
                assert_eq!(first, None, "{at}, {threads} threads: values differ from the counter kernel's");
                let got_plies = planes.plies.as_ref().unwrap();
                let first = (0..want_plies.len()).find(|&i| got_plies.get(i) != want_plies.get(i));
                assert_eq!(first, None, "{at}, {threads} threads: plies differ from the counter kernel's");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Packed values.

#[test]
fn packed_values_store_two_bits_per_slot() {
    let mut p = PackedValues::filled(10, UNUSED);
    assert_eq!((p.len(), p.bytes().len()), (10, 3));
    assert_eq!(p.histogram(), [0, 0, 0, 10]);
    for (i, v) in [Value::Draw, Value::Win, Value::Loss].into_iter().cycle().take(9).enumerate() {
        p.set_code(i as u64, v.code());
    }
    for i in 0..9 {
        assert_eq!(p.value(i), Some([Value::Draw, Value::Win, Value::Loss][i as usize % 3]));
    }
    assert_eq!(p.value(9), None);
    assert_eq!(p.histogram(), [3, 3, 3, 1]);
    // Lowest bits first: slots 0..4 are draw, win, loss, draw.
    assert_eq!(p.bytes()[0], 0b00_10_01_00);
    let q = PackedValues::from_bytes(10, p.bytes().to_vec()).unwrap();
    assert_eq!(q, p);
    assert!(PackedValues::from_bytes(10, vec![0; 2]).is_none());
    assert!(PackedValues::from_bytes(10, vec![0; 4]).is_none());
    assert!(PackedValues::filled(0, 0).is_empty());
}
