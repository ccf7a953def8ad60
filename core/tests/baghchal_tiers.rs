//! Bagh-Chal as a TierGame: ranking, tiers, children and in-tier parents,
//! on random positions of small variants and of the real game.

use foxbase_core::baghchal::{canonical, BaghChal, BaghChalVariant, BaghTier, Position, Side};
use foxbase_core::tier::TierGame;
use std::collections::HashSet;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn variants() -> Vec<BaghChalVariant> {
    let mut v: Vec<BaghChalVariant> = [(1, 1), (2, 1), (2, 2), (3, 2), (4, 3), (6, 4)]
        .into_iter()
        .map(|(n, k)| BaghChalVariant::new(n, k).unwrap())
        .collect();
    v.push(BaghChalVariant::default());
    v.push(BaghChalVariant::new(20, 4).unwrap());
    v
}

/// A random position of `tier` (not canonicalised): random tigers, random goats.
fn random_position(rng: &mut Rng, game: &BaghChal, tier: BaghTier) -> Position {
    let n = game.variant().goats() as u32;
    let on_board = n - tier.to_place as u32 - tier.captured as u32;
    let mut pick = |count: u32, taken: u32| -> u32 {
        let mut bits: u32 = 0;
        while bits.count_ones() < count {
            let p = rng.below(25) as u32;
            if (taken | bits) & (1 << p) == 0 {
                bits |= 1 << p;
            }
        }
        bits
    };
    let tigers = pick(4, 0);
    let goats = pick(on_board, tigers);
    let side = if rng.below(2) == 0 { Side::Goat } else { Side::Tiger };
    Position::from_parts_unchecked(tigers, goats, side, tier.to_place, tier.captured)
}

fn children(game: &BaghChal, p: &Position) -> Vec<Position> {
    let mut v = Vec::new();
    if game.primitive(p).is_none() {
        game.for_each_child(p, |c| v.push(c));
    }
    v
}

fn sorted(mut v: Vec<Position>) -> Vec<Position> {
    v.sort_unstable();
    v
}

/// The in-tier parents of `pos` by brute force: every position of the tier
/// with the other side to move that differs from `pos` by one piece put on
/// another point (an in-tier move is a step), kept once per move of it that
/// leads to `pos`.
fn brute_force_parents(game: &BaghChal, pos: &Position) -> Vec<Position> {
    let mut out = Vec::new();
    let empty = pos.empty();
    let side = pos.side().other();
    let mut candidates = Vec::new();
    for from in 0..25u32 {
        for to in 0..25u32 {
            if empty & (1 << to) == 0 {
                continue;
            }
            let (bit_from, bit_to) = (1 << from, 1 << to);
            if pos.tigers() & bit_from != 0 {
                let t = pos.tigers() ^ bit_from ^ bit_to;
                candidates.push(Position::from_parts_unchecked(t, pos.goats(), side, pos.to_place(), pos.captured()));
            }
            if pos.goats() & bit_from != 0 {
                let g = pos.goats() ^ bit_from ^ bit_to;
                candidates.push(Position::from_parts_unchecked(pos.tigers(), g, side, pos.to_place(), pos.captured()));
            }
        }
    }
    for q in candidates {
        assert_eq!(game.tier_of(&q), game.tier_of(pos));
        for c in children(game, &q) {
            if c == *pos {
                out.push(q);
            }
        }
    }
    out
}

#[test]
fn tiers_form_a_dag_and_names_round_trip() {
    for v in variants() {
        let game = BaghChal::new(v);
        let tiers = game.tiers();
        let start = game.initial_position();
        assert_eq!(game.tier_of(&start), BaghTier { to_place: v.goats(), captured: 0 });
        assert!(tiers.contains(&game.tier_of(&start)));
        for &t in &tiers {
            assert_eq!(game.parse_tier_name(&game.tier_name(t)), Some(t), "{v:?} {t:?}");
            let kids = game.child_tiers(t);
            assert!(kids.windows(2).all(|w| w[0] < w[1]), "ascending: {kids:?}");
            for c in kids {
                assert!(tiers.contains(&c), "{c:?} is solved");
                // Fewer goats to place, or more captured: no cycle.
                assert!(
                    (c.to_place + 1 == t.to_place && c.captured == t.captured)
                        || (c.to_place == t.to_place && c.captured == t.captured + 1),
                    "{t:?} -> {c:?}"
                );
            }
            let size = game.tier_size(&game.tier_index(t));
            assert!(size > 0 && size < u32::MAX as u64, "{v:?} {t:?}: {size} slots");
        }
        for bad in ["", "p", "p1", "p1-c", "x1-c0", "p01-c0", "p1-c-1", "p99-c0"] {
            assert_eq!(game.parse_tier_name(bad), None, "{bad}");
        }
    }
    // The largest tiers of the real game still fit the kernel's 32-bit slots.
    let game = BaghChal::new(BaghChalVariant::default());
    let largest = game.tiers().into_iter().map(|t| game.tier_size(&game.tier_index(t))).max().unwrap();
    assert!(largest > 1_000_000_000 && largest < u32::MAX as u64, "{largest}");
}

#[test]
fn variants_are_checked() {
    assert!(BaghChalVariant::new(0, 1).is_err());
    assert!(BaghChalVariant::new(21, 5).is_err());
    assert!(BaghChalVariant::new(3, 4).is_err());
    assert!(BaghChalVariant::new(6, 6).is_err());
    assert!(BaghChalVariant::new(3, 0).is_err());
    assert_eq!(BaghChalVariant::default(), BaghChalVariant::new(20, 5).unwrap());
    assert_eq!(BaghChal::new(BaghChalVariant::default()).initial_position(), Position::START);
    assert_eq!(BaghChal::new(BaghChalVariant::default()).variant_json(), r#"{"goats":20,"capture_target":5}"#);
}

#[test]
fn every_slot_of_small_tiers_round_trips_and_used_slots_are_the_orbits() {
    let game = BaghChal::new(BaghChalVariant::new(3, 2).unwrap());
    // p3-c0 (no goat on the board) and p2-c0 (one goat).
    for t in [BaghTier { to_place: 3, captured: 0 }, BaghTier { to_place: 2, captured: 0 }] {
        let index = game.tier_index(t);
        let size = game.tier_size(&index);
        let mut used = HashSet::new();
        game.for_each_slot(&index, 0..size, |i, p| {
            if let Some(p) = p {
                assert_eq!(game.tier_of(&p), t);
                assert_eq!(game.canonical(&p), p);
                assert_eq!(game.rank(&index, &p), i);
                used.insert(p);
            }
        });
        // Every position of the tier has its canonical image among the used slots.
        let on_board = 3 - t.to_place as u32;
        let mut orbits = HashSet::new();
        for tigers in (0u32..1 << 25).filter(|b| b.count_ones() == 4) {
            for g in 0..25u32 {
                let goats = if on_board == 0 { 0 } else { 1 << g };
                if goats & tigers != 0 || (on_board == 0 && g > 0) {
                    continue;
                }
                for side in [Side::Goat, Side::Tiger] {
                    let p = Position::from_parts_unchecked(tigers, goats, side, t.to_place, t.captured);
                    let c = canonical(&p);
                    assert_eq!(game.canonical_rank(&index, &p), game.rank(&index, &c));
                    orbits.insert(c);
                }
            }
        }
        assert_eq!(orbits, used, "{t:?}");
    }
}

#[test]
fn random_positions_rank_children_and_parents_agree_with_the_rules() {
    let mut rng = Rng(0x5EED_BA6C);
    for v in variants() {
        let game = BaghChal::new(v);
        let tiers = game.tiers();
        let rounds = if v.goats() >= 20 { 300 } else { 150 };
        let mut parents_seen = 0;
        for _ in 0..rounds {
            let t = tiers[rng.below(tiers.len() as u64) as usize];
            let index = game.tier_index(t);
            let pos = random_position(&mut rng, &game, t);
            assert_eq!(game.tier_of(&pos), t);

            // Ranking: the canonical image's slot gives it back.
            let c = game.canonical(&pos);
            assert_eq!(game.canonical(&c), c);
            let i = game.canonical_rank(&index, &pos);
            assert!(i < game.tier_size(&index));
            assert_eq!(game.unrank(&index, i), Some(c), "{v:?} {pos:?}");
            // A random slot: used slots round-trip.
            let j = rng.below(game.tier_size(&index));
            if let Some(p) = game.unrank(&index, j) {
                assert_eq!((game.rank(&index, &p), game.tier_of(&p)), (j, t));
            }

            // Children stay in the tier or go to a listed child tier, or are over.
            let kids_tiers = game.child_tiers(t);
            for child in children(&game, &pos) {
                let ct = game.tier_of(&child);
                assert!(
                    ct == t || kids_tiers.contains(&ct) || game.primitive(&child).is_some(),
                    "{v:?}: {pos:?} -> {child:?} in {ct:?}, not in {kids_tiers:?}"
                );
                if ct.captured >= v.capture_target() {
                    assert!(game.primitive(&child).is_some());
                }
            }

            // In-tier parents, against the brute force (as multisets).
            let mut parents = Vec::new();
            game.for_each_parent_in_tier(&pos, |q| parents.push(q));
            for q in &parents {
                assert_eq!(game.tier_of(q), t);
                assert!(game.primitive(q).is_none());
            }
            parents_seen += parents.len();
            assert_eq!(sorted(parents), sorted(brute_force_parents(&game, &pos)), "{v:?} {pos:?}");
        }
        assert!(parents_seen > rounds, "{v:?}: the parent check saw too few parents ({parents_seen})");
    }
}

#[test]
fn primitive_positions_follow_the_capture_target_and_blocked_sides() {
    let game = BaghChal::new(BaghChalVariant::new(2, 1).unwrap());
    // One goat captured: the tigers have won, whoever is to move.
    let tigers = Position::START.tigers();
    let over = Position::from_parts_unchecked(tigers, 1 << 12, Side::Goat, 0, 1);
    assert_eq!(game.primitive(&over), Some(foxbase_core::Value::Loss));
    let over = Position::from_parts_unchecked(tigers, 1 << 12, Side::Tiger, 0, 1);
    assert_eq!(game.primitive(&over), Some(foxbase_core::Value::Win));
    let mut parents = 0;
    game.for_each_parent_in_tier(&over, |_| parents += 1);
    assert_eq!(parents, 0, "a game-over tier has no parents to report");
    assert_eq!(game.primitive(&game.initial_position()), None);
}
