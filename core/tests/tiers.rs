//! The Fox Game tier layer: tier keys, the dense index (rank / unrank),
//! select_bit, un-moves and child tiers.
//!
//! Ranking is checked exhaustively on small tiers against a brute-force
//! enumeration written here (every sheep placement with the tier's per-rank
//! counts, every fox placement, both sides, canonicalised with
//! `Position::canonical`). Un-moves and child tiers are checked on random
//! positions against forward move generation.

use foxbase_core::board::{Bits, Geometry, Point, ALL_POINTS, RANK_START, RANK_WIDTH};
use foxbase_core::cpu::{bmi2_in_use, bmi2_support};
use foxbase_core::foxgame::{select_bit, select_bit_portable, FoxGame, FoxTier, TierIndex};
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::tier::TierGame;
use foxbase_core::{Position, Side, Variant};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::collections::{HashMap, HashSet};

// ---------------------------------------------------------------------------
// Helpers.

fn game(geometry: Geometry, k: u32) -> FoxGame {
    FoxGame::new(Variant::new(geometry, k, Variant::default().start).unwrap())
}

fn tier(name: &str) -> FoxTier {
    FoxTier::parse(name).unwrap_or_else(|| panic!("{name} is a tier name"))
}

fn pos(text: &str) -> Position {
    parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn bit(square: &str) -> Bits {
    square.parse::<Point>().unwrap().bit()
}

/// Every subset of `points` (a bit set) with exactly `k` members.
fn subsets(points: Bits, k: u32) -> Vec<Bits> {
    let list: Vec<u32> = (0..64).filter(|&i| points & (1u64 << i) != 0).collect();
    let mut out = Vec::new();
    fn rec(list: &[u32], k: u32, acc: Bits, out: &mut Vec<Bits>) {
        if k == 0 {
            out.push(acc);
            return;
        }
        if list.len() < k as usize {
            return;
        }
        rec(&list[1..], k - 1, acc | 1u64 << list[0], out);
        rec(&list[1..], k, acc, out);
    }
    rec(&list, k, 0, &mut out);
    out
}

fn rank_bits(y0: usize) -> Bits {
    ((1u64 << RANK_WIDTH[y0]) - 1) << RANK_START[y0]
}

/// Every position of a tier (not canonicalised), by brute force.
fn brute_force(t: FoxTier) -> Vec<Position> {
    let mut sheep_sets = vec![0u64];
    for (y0, &c) in t.counts().iter().enumerate() {
        let patterns = subsets(rank_bits(y0), c as u32);
        sheep_sets = sheep_sets.iter().flat_map(|&s| patterns.iter().map(move |&p| s | p)).collect();
    }
    let mut out = Vec::new();
    for sheep in sheep_sets {
        for foxes in subsets(ALL_POINTS & !sheep, t.foxes()) {
            for side in [Side::Fox, Side::Sheep] {
                out.push(Position::new(sheep, foxes, side).unwrap());
            }
        }
    }
    out
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// The exhaustive ranking check of one tier; returns the number of used slots.
fn check_tier_exhaustively(name: &str) -> u64 {
    let g = game(Geometry::Classic, 9);
    let t = tier(name);
    assert_eq!(g.tier_name(t), name);
    let index = g.tier_index(t);
    let size = g.tier_size(&index);
    assert_eq!(size, index.size());

    // Brute force: all positions, their canonical forms.
    let all = brute_force(t);
    let expected_total = (0..7).map(|y| binomial(RANK_WIDTH[y] as u64, t.counts()[y] as u64)).product::<u64>()
        * binomial(33 - t.sheep() as u64, t.foxes() as u64)
        * 2;
    assert_eq!(all.len() as u64, expected_total, "{name}: brute-force enumeration size");
    let canonical: HashSet<Position> = all.iter().map(|p| p.canonical()).collect();

    // Slot by slot.
    let mut used = HashMap::new();
    let mut slots = Vec::with_capacity(size as usize);
    for i in 0..size {
        let got = g.unrank(&index, i);
        slots.push(got);
        if let Some(p) = got {
            assert_eq!(p.canonical(), p, "{name}: slot {i} holds a non-canonical {}", format_position(&p));
            assert_eq!(g.canonical(&p), p);
            assert_eq!(g.tier_of(&p), t, "{name}: slot {i} holds {} of another tier", format_position(&p));
            assert_eq!(g.rank(&index, &p), i, "{name}: rank(unrank({i})) for {}", format_position(&p));
            assert!(Position::new(p.sheep(), p.foxes(), p.side()).is_ok());
            assert!(used.insert(p, i).is_none(), "{name}: {} in two slots", format_position(&p));
        }
    }
    assert_eq!(used.len(), canonical.len(), "{name}: used slots vs distinct canonical positions");
    for p in &canonical {
        assert!(used.contains_key(p), "{name}: canonical {} has no slot", format_position(p));
    }

    // canonical_rank agrees with rank(canonical(p)) for every position, canonical or not.
    for p in &all {
        let want = used[&p.canonical()];
        assert_eq!(g.rank(&index, &p.canonical()), want);
        assert_eq!(g.canonical_rank(&index, p), want, "{name}: canonical_rank of {}", format_position(p));
        assert_eq!(index.canonical_rank(p), want);
    }

    // for_each_slot over the whole tier and over sub-ranges that start and end
    // anywhere (mid sheep set, odd slots, empty ranges).
    let mut ranges = vec![0..size, 0..0, size..size, 0..1.min(size)];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ size;
    for _ in 0..20 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let a = (seed >> 33) % (size + 1);
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let b = (seed >> 33) % (size + 1);
        ranges.push(a.min(b)..a.max(b));
    }
    ranges.push(size.saturating_sub(3)..size);
    for range in ranges {
        let mut next = range.start;
        g.for_each_slot(&index, range.clone(), |i, p| {
            assert_eq!(i, next, "{name}: for_each_slot({range:?}) order");
            assert_eq!(p, slots[i as usize], "{name}: for_each_slot({range:?}) at {i}");
            next += 1;
        });
        assert_eq!(next, range.end, "{name}: for_each_slot({range:?}) stopped early");
    }
    used.len() as u64
}

// ---------------------------------------------------------------------------
// Ranking, exhaustively on small tiers.

#[test]
fn rank_unrank_round_trip_no_sheep() {
    // No sheep: the set is symmetric, so a fox placement and its mirror share a slot.
    // 1 fox: 33 placements, 7 of them mirror-fixed (file d), so (33 + 7) / 2 = 20
    // canonical placements (the "20" of RULES.md), each with 2 sides.
    assert_eq!(check_tier_exhaustively("f1-0.0.0.0.0.0.0"), 20 * 2);
    // 2 foxes: 528 pairs; mirror-fixed pairs: 7 * 6 / 2 = 21 on file d plus 13 mirror
    // pairs of points off it: 34. (528 + 34) / 2 = 281 (the "281" of RULES.md).
    assert_eq!(check_tier_exhaustively("f2-0.0.0.0.0.0.0"), 281 * 2);
    assert_eq!(check_tier_exhaustively("f0-0.0.0.0.0.0.0"), 2);
}

#[test]
fn rank_unrank_round_trip_small_tiers() {
    for name in [
        "f1-1.0.0.0.0.0.0",
        "f2-1.0.0.0.0.0.0",
        "f0-1.0.2.0.0.0.0",
        "f1-0.0.1.0.0.0.0",
        "f2-0.2.0.0.0.0.1",
        "f1-0.0.1.2.1.0.0",
        "f2-1.1.1.0.0.1.0",
        "f2-0.0.0.0.0.0.2",
        "f2-3.0.0.0.0.0.0",
        "f2-0.0.0.0.0.3.3",
        "f1-0.0.7.0.0.0.0",
        "f2-0.0.3.0.1.0.0",
        "f2-2.1.0.0.0.2.1",
        "f1-3.1.0.0.0.0.0",
        "f2-0.0.0.0.6.0.0",
        "f1-3.3.7.7.0.0.0",
        "f2-3.3.7.7.0.0.0",
        "f2-3.3.7.6.1.0.0",
    ] {
        check_tier_exhaustively(name);
    }
}

#[test]
fn rank_unrank_round_trip_larger_tiers() {
    // Every rank holds one sheep, so each rank may be the highest asymmetric
    // one: all eight sheep blocks are used.
    check_tier_exhaustively("f1-1.1.1.1.1.1.1");
    // Two sheep on each of ranks 3 and 4, two foxes: 441 sheep sets x C(29, 2) = 406
    // fox pairs x 2 sides. Mirror-fixed positions: 9 symmetric sheep sets (a
    // symmetric pair of 2 never uses file d) x (C(7, 2) = 21 pairs on file d + 11
    // mirror pairs of the other 22 free points) x 2 sides. Canonical positions:
    // (441 * 406 * 2 + 9 * 32 * 2) / 2, in 182,700 slots.
    assert_eq!(check_tier_exhaustively("f2-0.0.2.2.0.0.0"), 441 * 406 + 9 * 32);
}

#[test]
fn tier_index_sizes() {
    let size = |name: &str| TierIndex::new(tier(name)).size();
    // The default start tier: one sheep set (ranks 1-4 full, symmetric),
    // C(13, 2) = 78 fox placements on the 13 free points, 2 sides.
    assert_eq!(size("f2-3.3.7.7.0.0.0"), 156);
    // One fox on the 13 free points: 1 x 13 x 2.
    assert_eq!(size("f1-3.3.7.7.0.0.0"), 26);
    // One sheep on rank 1: patterns 100 and 001 are mirrors, 010 is symmetric:
    // 2 canonical sets; C(32, 2) = 496 fox pairs; 2 sides -> 1984.
    assert_eq!(size("f2-1.0.0.0.0.0.0"), 2 * 496 * 2);
    // One sheep on rank 3 (7 points): 1 symmetric + 3 mirror pairs -> 4 sets;
    // 32 fox points; 2 sides -> 256.
    assert_eq!(size("f1-0.0.1.0.0.0.0"), 256);
    // Two sheep on each of ranks 3 and 4: C(7,2) = 21 patterns per rank, 3 of
    // them symmetric; 21 * 21 = 441 sets of which 3 * 3 = 9 symmetric, so
    // (441 + 9) / 2 = 225 canonical sets; C(29, 2) = 406 fox pairs -> 182,700.
    assert_eq!(size("f2-0.0.2.2.0.0.0"), 225 * 406 * 2);
    assert_eq!(size("f2-0.0.2.2.0.0.0"), 182_700);
    // No sheep, no fox: a single position per side.
    assert_eq!(size("f0-0.0.0.0.0.0.0"), 2);
    // 20 sheep with all rank patterns free: C(7,6)=7 on rank 4 (1 symmetric,
    // 3 pairs) and C(7,1)=7 on rank 5 (likewise): (49 + 1) / 2 = 25 sets;
    // C(13, 2) = 78 fox pairs -> 3900.
    assert_eq!(size("f2-3.3.7.6.1.0.0"), 25 * 78 * 2);

    let g = game(Geometry::Classic, 9);
    let t = g.tier_of(&g.initial_position());
    assert_eq!(g.tier_name(t), "f2-3.3.7.7.0.0.0");
    let index = g.tier_index(t);
    assert_eq!(g.tier_size(&index), 156);
    assert_eq!((index.sheep_sets, index.fox_slots), (1, 78));
}

/// Random positions in any tier (up to 20 sheep): the ranking round-trips.
fn arb_any_position() -> impl Strategy<Value = Position> {
    (Just((0u8..33).collect::<Vec<u8>>()).prop_shuffle(), 0usize..=20, 0usize..=2, any::<bool>()).prop_map(
        |(perm, s, f, sheep_to_move)| {
            let sheep = perm[..s].iter().map(|&i| 1u64 << i).sum();
            let foxes = perm[s..s + f].iter().map(|&i| 1u64 << i).sum();
            Position::new(sheep, foxes, if sheep_to_move { Side::Sheep } else { Side::Fox }).unwrap()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_positions_rank_and_unrank(p in arb_any_position()) {
        let g = game(Geometry::Classic, 9);
        let t = g.tier_of(&p);
        let index = g.tier_index(t);
        let c = p.canonical();
        let i = g.rank(&index, &c);
        prop_assert!(i < g.tier_size(&index));
        prop_assert_eq!(g.canonical_rank(&index, &p), i);
        prop_assert_eq!(g.canonical_rank(&index, &p.mirror()), i);
        prop_assert_eq!(g.unrank(&index, i), Some(c));
        let mut seen = None;
        g.for_each_slot(&index, i..i + 1, |j, q| seen = Some((j, q)));
        prop_assert_eq!(seen, Some((i, Some(c))));
        // The other side to move sits in the neighbouring slot.
        let other = g.rank(&index, &c.with_side(c.side().other()));
        prop_assert_eq!(other ^ 1, i);
    }
}

// ---------------------------------------------------------------------------
// select_bit.

/// The j-th set bit of mask, the obvious way.
fn select_naive(mask: Bits, j: u32) -> Bits {
    (0..64).map(|i| 1u64 << i).filter(|b| mask & b != 0).nth(j as usize).unwrap_or(0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5000, ..ProptestConfig::default() })]

    #[test]
    fn select_bit_paths_agree(mask in any::<u64>(), j in 0u32..=70) {
        let want = select_naive(mask, j);
        prop_assert_eq!(select_bit_portable(mask, j), want);
        prop_assert_eq!(select_bit(mask, j), want);
    }

    #[test]
    fn select_bit_paths_agree_on_board_masks(mask in 0u64..(1u64 << 33), j in 0u32..34) {
        let want = select_naive(mask, j);
        prop_assert_eq!(select_bit_portable(mask, j), want);
        prop_assert_eq!(select_bit(mask, j), want);
    }
}

#[test]
fn select_bit_reports_its_path_and_agrees_everywhere() {
    // The BMI2 path only where the instructions exist (an override may pick
    // BMI2 where they are slow, never where they are absent).
    assert!(!bmi2_in_use() || bmi2_support().present);
    eprintln!(
        "select_bit uses the {} path on this CPU; select_bit_portable is checked alongside",
        if bmi2_in_use() { "BMI2 (pdep)" } else { "portable" }
    );
    let mut seed = 1u64;
    let mut masks = vec![0, 1, u64::MAX, ALL_POINTS, 1 << 63, 0x8000_0000_0000_0001, 0xAAAA_AAAA_AAAA_AAAA];
    for _ in 0..2000 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        masks.push(seed & ALL_POINTS);
        masks.push(seed ^ (seed >> 17));
    }
    for mask in masks {
        for j in 0..66 {
            let want = select_naive(mask, j);
            assert_eq!(select_bit(mask, j), want, "select_bit({mask:#x}, {j})");
            assert_eq!(select_bit_portable(mask, j), want, "select_bit_portable({mask:#x}, {j})");
        }
    }
}

// ---------------------------------------------------------------------------
// Un-moves.

fn sorted(mut v: Vec<Position>) -> Vec<Position> {
    v.sort();
    v
}

fn parents(g: &FoxGame, c: &Position) -> Vec<Position> {
    let mut v = Vec::new();
    g.for_each_parent(c, |q| v.push(q));
    v
}

fn parents_in_tier(g: &FoxGame, c: &Position) -> Vec<Position> {
    let mut v = Vec::new();
    g.for_each_parent_in_tier(c, |q| v.push(q));
    v
}

/// How many legal moves of `q` lead to `c`.
fn moves_leading_to(g: &FoxGame, q: &Position, c: &Position) -> usize {
    g.rules.moves(q).into_iter().filter(|&m| g.rules.play(q, m) == *c).count()
}

/// The predecessors reported for `c` are exactly right: each is a valid,
/// non-primitive position, reported once per move that leads to `c`; the
/// in-tier ones are exactly those of `c`'s tier.
fn check_parents_of(g: &FoxGame, c: &Position) -> Result<(), TestCaseError> {
    let all = parents(g, c);
    let mut count: HashMap<Position, usize> = HashMap::new();
    for q in &all {
        *count.entry(*q).or_default() += 1;
    }
    for (q, &n) in &count {
        prop_assert!(Position::new(q.sheep(), q.foxes(), q.side()).is_ok(), "invalid parent {:?}", q);
        prop_assert!(g.primitive(q).is_none(), "parent {} of {} is primitive", format_position(q), format_position(c));
        prop_assert_eq!(
            moves_leading_to(g, q, c),
            n,
            "parent {} of {}: reported {} times",
            format_position(q),
            format_position(c),
            n
        );
    }
    let t = g.tier_of(c);
    let expected: Vec<Position> = all.iter().copied().filter(|q| g.tier_of(q) == t).collect();
    prop_assert_eq!(
        sorted(parents_in_tier(g, c)),
        sorted(expected),
        "in-tier parents of {} (geometry {}, K {})",
        format_position(c),
        g.rules.geometry(),
        g.rules.pen_target
    );
    Ok(())
}

/// Every move of a non-primitive `p` is undone by an un-move of its child.
fn check_unmoves(g: &FoxGame, p: &Position) -> Result<(), TestCaseError> {
    check_parents_of(g, p)?;
    if g.primitive(p).is_some() {
        return Ok(());
    }
    for m in g.rules.moves(p) {
        let c = g.rules.play(p, m);
        let n = parents(g, &c).iter().filter(|&&q| q == *p).count();
        prop_assert!(n >= 1, "{} after {}: the parent is not reported", format_position(&c), m);
        prop_assert_eq!(n, moves_leading_to(g, p, &c));
        check_parents_of(g, &c)?;
    }
    Ok(())
}

fn arb_geometry() -> impl Strategy<Value = Geometry> {
    prop_oneof![Just(Geometry::Classic), Just(Geometry::Orthogonal)]
}

/// Random placements: `sheep` sheep, 1..=2 foxes, either side to move.
fn arb_placement(sheep: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Position> {
    (Just((0u8..33).collect::<Vec<u8>>()).prop_shuffle(), sheep, 1usize..=2, any::<bool>()).prop_map(
        |(perm, s, f, sheep_to_move)| {
            let sheep = perm[..s].iter().map(|&i| 1u64 << i).sum();
            let foxes = perm[s..s + f].iter().map(|&i| 1u64 << i).sum();
            Position::new(sheep, foxes, if sheep_to_move { Side::Sheep } else { Side::Fox }).unwrap()
        },
    )
}

/// Crowded boards, where foxes get trapped and removed: 13..=20 sheep, the
/// foxes mostly on the points with the fewest lines.
fn arb_crowded() -> impl Strategy<Value = Position> {
    (
        Just((0u8..33).collect::<Vec<u8>>()).prop_shuffle(),
        13usize..=20,
        1usize..=2,
        any::<bool>(),
        proptest::collection::vec(0usize..12, 2),
    )
        .prop_map(|(perm, s, f, sheep_to_move, corner_choice)| {
            // Points of the arms' ends and corners: c1 d1 e1 a3 a4 a5 g3 g4 g5 c7 d7 e7.
            let corners = ["c1", "d1", "e1", "a3", "a4", "a5", "g3", "g4", "g5", "c7", "d7", "e7"];
            let mut foxes = 0u64;
            for &c in &corner_choice[..f] {
                foxes |= bit(corners[c]);
            }
            let sheep: Bits = perm.iter().map(|&i| 1u64 << i).filter(|b| b & foxes == 0).take(s).sum();
            Position::new(sheep, foxes, if sheep_to_move { Side::Sheep } else { Side::Fox }).unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn unmoves_invert_moves(p in arb_placement(0..=12), geometry in arb_geometry(), k in 1u32..=9) {
        check_unmoves(&game(geometry, k), &p)?;
    }

    #[test]
    fn unmoves_invert_moves_on_crowded_boards(p in arb_crowded(), geometry in arb_geometry(), k in 1u32..=9) {
        check_unmoves(&game(geometry, k), &p)?;
    }
}

/// The crowded generator really produces fox removals (one and two foxes at
/// once), and un-moves restore them: checked on a fixed sample.
#[test]
fn crowded_positions_exercise_fox_removal() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = arb_crowded();
    let (mut single, mut double) = (0, 0);
    for _ in 0..1500 {
        let p = strategy.new_tree(&mut runner).unwrap().current().with_side(Side::Sheep);
        for geometry in Geometry::ALL {
            let g = game(geometry, 9);
            if g.primitive(&p).is_some() {
                continue;
            }
            let mut removes = false;
            for m in g.rules.moves(&p) {
                let c = g.rules.play(&p, m);
                match p.fox_count() - c.fox_count() {
                    0 => {}
                    1 => single += 1,
                    _ => double += 1,
                }
                removes |= c.fox_count() < p.fox_count();
            }
            if removes {
                check_unmoves(&g, &p).unwrap();
            }
        }
    }
    eprintln!("fox removals in the sample: {single} single, {double} double");
    assert!(single >= 1000 && double >= 50, "too few removals: {single} single, {double} double");
}

/// Plays `p` with the move `mv` (text), checks the child and the un-moves.
fn play_and_check(g: &FoxGame, before: &str, mv: &str, after: &str) -> Position {
    let p = pos(before);
    assert!(g.primitive(&p).is_none(), "{before} is not over");
    let m = foxbase_core::notation::parse_move(&g.rules, &p, mv).unwrap();
    let c = g.rules.play(&p, m);
    assert_eq!(format_position(&c), after, "{before} after {mv}");
    assert_eq!(parents(g, &c).iter().filter(|&&q| q == p).count(), 1, "un-move of {mv} restores {before}");
    check_unmoves(g, &p).unwrap();
    c
}

#[test]
fn unmove_restores_a_fox_removed_after_a_sheep_move() {
    // Orthogonal, K = 5: fox c1 with sheep d1, c2 (jumps land on e1, a sheep,
    // and c3, empty). b3-c3 closes the jump; c1 is trapped and removed. Fox d7 stays.
    let g = game(Geometry::Orthogonal, 5);
    let before = ".F./.../......./......./.S..SS./S../FSS s";
    let c = play_and_check(&g, before, "b3-c3", ".F./.../......./......./..S.SS./S../.SS f");
    assert_eq!(c.fox_count(), 1);
    // The un-move that restores c1 leaves the tier (2 foxes -> 1): not in-tier.
    assert!(!parents_in_tier(&g, &c).contains(&pos(before)));

    // Classic: c1 also has the diagonal to d2 and the jump over it to e3.
    let g = game(Geometry::Classic, 5);
    let before = ".F./.../......./......./.S..S../SS./FSS s";
    let c = play_and_check(&g, before, "b3-c3", ".F./.../......./......./..S.S../SS./.SS f");
    assert_eq!(c.fox_count(), 1);

    // The last fox removed: the sheep win, and the un-move still finds the parent.
    let g = game(Geometry::Orthogonal, 4);
    let before = ".../.../......./......./.S..S../S../FSS s";
    let c = play_and_check(&g, before, "b3-c3", ".../.../......./......./..S.S../S../.SS f");
    assert_eq!(c.fox_count(), 0);
    assert!(g.primitive(&c).is_some());
}

#[test]
fn unmove_restores_two_foxes_removed_together() {
    // Orthogonal, K = 5: foxes c1 and c2 block each other. c1: d1 sheep, the
    // jump over it lands on e1 (a sheep). c2: d2 and c3 sheep, jumps land on e2
    // (sheep) and c4 (empty). b4-c4 traps both; no fox remains.
    let g = game(Geometry::Orthogonal, 5);
    let before = ".../.../......./.S...../..S..../FSS/FSS s";
    let c = play_and_check(&g, before, "b4-c4", ".../.../......./..S..../..S..../.SS/.SS f");
    assert_eq!(c.fox_count(), 0);
    // Both are restored at once, once.
    let restored: Vec<Position> = parents(&g, &c).into_iter().filter(|q| q.fox_count() == 2).collect();
    assert!(restored.contains(&pos(before)));
}

#[test]
fn unjump_puts_the_jumped_sheep_back() {
    for geometry in Geometry::ALL {
        // Fox d4 jumps d5 to d6 (orthogonal in both geometries); K = 2.
        let g = game(geometry, 2);
        let before = ".../.../...S.../...F.../S.S...S/.../... f";
        let c = play_and_check(&g, before, "d4xd6", ".../.F./......./......./S.S...S/.../... s");
        assert_eq!(c.sheep_count(), 3);
        let back: Vec<Position> = parents(&g, &c).into_iter().filter(|q| q.sheep_count() == 4).collect();
        assert!(back.contains(&pos(before)), "{geometry}: the un-jump restores d5");
        // Un-jumps change the tier, so none is in-tier.
        assert!(parents_in_tier(&g, &c).iter().all(|q| q.sheep_count() == 3));
    }
    // A capture that leaves fewer than K sheep ends the game; the parent is still found.
    let g = game(Geometry::Classic, 4);
    let before = ".../.../...S.../...F.../S.S...S/.../... f";
    let c = play_and_check(&g, before, "d4xd6", ".../.F./......./......./S.S...S/.../... s");
    assert!(g.primitive(&c).is_some());
}

// ---------------------------------------------------------------------------
// Child tiers.

fn check_child_tiers(g: &FoxGame, p: &Position) -> Result<(), TestCaseError> {
    let t = g.tier_of(p);
    let children = g.child_tiers(t);
    prop_assert!(children.windows(2).all(|w| w[0] < w[1]), "child_tiers({}) not sorted/deduplicated", t);
    prop_assert!(!children.contains(&t));
    if g.primitive(p).is_some() {
        return Ok(());
    }
    let mut result = Ok(());
    g.for_each_child(p, |c| {
        let ct = g.tier_of(&c);
        if result.is_ok() && ct != t && g.primitive(&c).is_none() && children.binary_search(&ct).is_err() {
            result = Err(TestCaseError::fail(format!(
                "{} -> {}: tier {} missing from child_tiers({}) = {:?} (geometry {}, K {})",
                format_position(p),
                format_position(&c),
                ct,
                t,
                children,
                g.rules.geometry(),
                g.rules.pen_target
            )));
        }
    });
    result
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn child_tiers_cover_every_non_primitive_child(p in arb_placement(0..=20), geometry in arb_geometry(), k in 1u32..=9) {
        check_child_tiers(&game(geometry, k), &p)?;
    }

    #[test]
    fn child_tiers_cover_children_on_crowded_boards(p in arb_crowded(), geometry in arb_geometry(), k in 1u32..=9) {
        check_child_tiers(&game(geometry, k), &p)?;
    }
}

#[test]
fn child_tiers_of_the_start() {
    let g = game(Geometry::Classic, 9);
    let t = g.tier_of(&g.initial_position());
    let names: Vec<String> = g.child_tiers(t).into_iter().map(|c| c.name()).collect();
    // Captures from each of ranks 1-4 (20 > 9 sheep, 2 foxes); the only forward
    // sheep step is rank 4 -> 5 (ranks 2, 3 and 4 are full), leaving 2 foxes or,
    // if it traps one, 1; and a sideways step that traps a fox (f1, same counts).
    assert_eq!(
        names,
        [
            "f1-3.3.7.6.1.0.0",
            "f1-3.3.7.7.0.0.0",
            "f2-2.3.7.7.0.0.0",
            "f2-3.2.7.7.0.0.0",
            "f2-3.3.6.7.0.0.0",
            "f2-3.3.7.6.0.0.0",
            "f2-3.3.7.6.1.0.0",
        ]
    );
}

// ---------------------------------------------------------------------------
// Tier names.

fn arb_tier() -> impl Strategy<Value = FoxTier> {
    (0u8..=2, 0u8..=3, 0u8..=3, 0u8..=7, 0u8..=7, 0u8..=7, 0u8..=3, 0u8..=3)
        .prop_map(|(f, a, b, c, d, e, g, h)| FoxTier::new(f, [a, b, c, d, e, g, h]).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn tier_names_round_trip(t in arb_tier()) {
        let name = t.name();
        prop_assert_eq!(FoxTier::parse(&name), Some(t));
        let g = game(Geometry::Classic, 9);
        prop_assert_eq!(g.tier_name(t), name.clone());
        prop_assert_eq!(g.parse_tier_name(&name), Some(t));
        prop_assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.'));
        let c = t.counts();
        prop_assert_eq!(
            name,
            format!("f{}-{}.{}.{}.{}.{}.{}.{}", t.foxes(), c[0], c[1], c[2], c[3], c[4], c[5], c[6])
        );
        prop_assert_eq!(t.sheep(), c.iter().map(|&x| x as u32).sum::<u32>());
    }
}

#[test]
fn tier_of_counts_sheep_per_rank() {
    let g = game(Geometry::Classic, 9);
    let p = pos("F.S/.S./S.....S/SSSSSSS/..S.S../S.S/.F. f");
    let t = g.tier_of(&p);
    assert_eq!(t.name(), "f2-0.2.2.7.2.1.1");
    assert_eq!((t.foxes(), t.sheep(), t.counts()), (2, 15, [0, 2, 2, 7, 2, 1, 1]));
}

#[test]
fn tier_name_parse_rejects_garbage() {
    let g = game(Geometry::Classic, 9);
    for bad in [
        "",
        "f",
        "f2",
        "f2-",
        "f3-0.0.0.0.0.0.0",
        "f9-3.3.7.7.0.0.0",
        "f2-3.3.7.7.0.0",
        "f2-3.3.7.7.0.0.0.0",
        "f2-3.3.7.7",
        "f2-4.3.7.7.0.0.0",
        "f2-3.4.7.7.0.0.0",
        "f2-3.3.8.7.0.0.0",
        "f2-3.3.7.7.0.4.0",
        "f2-3.3.7.7.0.0.4",
        "f2-0.0.0.0.0.0.256",
        "f2-3.3.7.7.0.0.x",
        "f2-3.3.7.7.0..0",
        "f2-3.3.7.7.0.0.0.",
        "f-3.3.7.7.0.0.0",
        "fx-3.3.7.7.0.0.0",
        "g2-3.3.7.7.0.0.0",
        "2-3.3.7.7.0.0.0",
        "f2_3.3.7.7.0.0.0",
        "f2-3,3,7,7,0,0,0",
        "F2-3.3.7.7.0.0.0",
        " f2-3.3.7.7.0.0.0",
        "f2-3.3.7.7.0.0.0 ",
        "f2--3.3.7.7.0.0.0",
        "f-2-3.3.7.7.0.0.0",
        "f2-3.3.7.7.0.0.-0",
        "m3",
    ] {
        assert_eq!(FoxTier::parse(bad), None, "{bad:?} is not a tier name");
        assert_eq!(g.parse_tier_name(bad), None, "{bad:?} is not a tier name");
    }
    assert_eq!(FoxTier::new(3, [0; 7]), None);
    assert_eq!(FoxTier::new(2, [4, 0, 0, 0, 0, 0, 0]), None);
    assert_eq!(FoxTier::new(2, [0, 0, 8, 0, 0, 0, 0]), None);
    assert!(FoxTier::new(2, [3, 3, 7, 7, 7, 3, 3]).is_some());
}

/// One tier, one file name: u8::from_str alone would accept leading zeros and
/// '+' (a bug found by this test, fixed in 144f142).
#[test]
fn tier_name_parse_accepts_only_the_canonical_spelling() {
    let g = game(Geometry::Classic, 9);
    for bad in ["f2-03.3.7.7.0.0.0", "f+2-3.3.7.7.0.0.0", "f2-+3.3.7.7.0.0.0", "f02-3.3.7.7.0.0.0", "f2-3.3.7.7.0.0.00"]
    {
        assert_eq!(FoxTier::parse(bad), None, "{bad:?} is not the name of a tier (the name is f2-3.3.7.7.0.0.0)");
        assert_eq!(g.parse_tier_name(bad), None, "{bad:?}");
    }
}

/// `sheep_index` and `set_base` invert `sheep_set` (1 and 2 foxes, small and large tiers).
#[test]
fn sheep_index_and_set_base_invert_sheep_set() {
    for (foxes, counts) in
        [(1, [0, 0, 1, 1, 1, 0, 0]), (2, [0, 0, 2, 2, 2, 0, 0]), (2, [3, 3, 7, 7, 0, 0, 0]), (1, [1, 2, 3, 2, 1, 1, 0])]
    {
        let index = TierIndex::new(FoxTier::new(foxes, counts).unwrap());
        for i in 0..index.sheep_sets {
            let sheep = index.sheep_set(i);
            assert_eq!(index.sheep_index(sheep), i, "{index:?} set {i}");
            assert_eq!(index.set_base(sheep), i * index.fox_slots * 2, "{index:?} set {i}");
        }
    }
}

proptest! {
    /// `set_rank(sheep).slot(foxes, side)` is `canonical_rank` of the position.
    #[test]
    fn set_rank_slots_are_canonical_ranks(seed in any::<u64>()) {
        let mut x = seed | 1;
        let mut next = || { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x };
        let points: Vec<u8> = (0..33).collect();
        let pick = |n: usize, r: &mut dyn FnMut() -> u64| -> Bits {
            let mut bits: Bits = 0;
            while bits.count_ones() < n as u32 {
                bits |= 1u64 << points[(r() % 33) as usize];
            }
            bits
        };
        let sheep_n = (next() % 12) as usize;
        let sheep = pick(sheep_n, &mut next);
        let foxes_n = 1 + (next() % 2) as usize;
        let mut foxes: Bits = 0;
        while foxes.count_ones() < foxes_n as u32 {
            let p = 1u64 << (next() % 33);
            if p & sheep == 0 { foxes |= p; }
        }
        let side = if next() & 1 == 0 { Side::Fox } else { Side::Sheep };
        let pos = Position::new(sheep, foxes, side).unwrap();
        let index = TierIndex::new(FoxTier::of(sheep, foxes_n as u32));
        prop_assert_eq!(index.set_rank(sheep).slot(foxes, side), index.canonical_rank(&pos));
    }
}
