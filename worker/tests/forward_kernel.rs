//! The forward kernel (Bagh-Chal's placing tiers in two passes) against the
//! counter kernel: every tier of small variants solved by both, with plies
//! and with values alone; values and plies must be equal slot for slot
//! (the counter kernel is compared with an explicit-graph reference in
//! baghchal_solve.rs).

use foxbase_core::baghchal::{BaghChal, BaghChalVariant, BaghTier};
use foxbase_core::tier::TierGame;
use foxbase_worker::forward_kernel::handles;
use foxbase_worker::kernel::{thread_pool, Kernel, Output, SolveTier, SolvedTier};
use std::collections::BTreeMap;

mod common;
use common::{plan, tables};

/// Solves every tier of the variant with both kernels, children from the
/// counter kernel's tables; returns (placing slots compared, their draws).
fn compare(goats: u8, target: u8, threads: usize) -> (u64, u64) {
    let game = BaghChal::new(BaghChalVariant::new(goats, target).unwrap());
    let pool = thread_pool(threads).unwrap();
    let order = plan(&game, game.tier_of(&game.initial_position()));
    let mut with_plies: BTreeMap<BaghTier, SolvedTier> = BTreeMap::new();
    let mut values_only: BTreeMap<BaghTier, SolvedTier> = BTreeMap::new();
    let (mut slots, mut draws) = (0, 0);
    for &t in &order {
        let name = game.tier_name(t);
        let children = tables(&game, &game.child_tiers(t), &with_plies);
        let plain = tables(&game, &game.child_tiers(t), &values_only);
        let solve = |kernel, output, children: &[_]| {
            pool.install(|| game.solve_with(kernel, output, t, children)).unwrap_or_else(|e| panic!("{name}: {e}"))
        };
        let counter = solve(Kernel::Counter, Output::Dtm, &children);
        let counter_plain = solve(Kernel::Counter, Output::Values, &plain);
        if handles(&game, t) {
            let forward = solve(Kernel::Forward, Output::Dtm, &children);
            assert_eq!(forward.values, counter.values, "{goats} goats, target {target}: values of {name}");
            let (f, c) = (forward.plies.as_ref().unwrap(), counter.plies.as_ref().unwrap());
            assert_eq!(f.len(), c.len());
            for i in 0..c.len() {
                assert_eq!(f.get(i), c.get(i), "{goats} goats, target {target}: plies of slot {i} of {name}");
            }
            assert_eq!(f.contents(), c.contents());
            assert_eq!(forward.stats.wins, counter.stats.wins);
            assert_eq!(forward.stats.draws, counter.stats.draws);
            assert_eq!(forward.stats.unused, counter.stats.unused);
            let forward_plain = solve(Kernel::Forward, Output::Values, &plain);
            assert_eq!(forward_plain.values, counter_plain.values, "{name} without plies");
            assert!(forward_plain.plies.is_none());
            slots += counter.values.len();
            draws += counter.stats.draws;
        }
        with_plies.insert(t, counter);
        values_only.insert(t, counter_plain);
    }
    (slots, draws)
}

#[test]
fn forward_kernel_equals_the_counter_kernel_on_small_variants() {
    for (goats, target) in [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3)] {
        let (slots, _) = compare(goats, target, 2);
        assert!(slots > 0);
    }
}

#[test]
fn forward_kernel_is_the_same_on_one_thread() {
    // p2-c0 (no goat on the board), p1-c0 (one), p1-c1 (none): 1,666 tiger sets × (1 + 21 + 1) × 2.
    assert_eq!(compare(2, 2, 1), (76_636, 0));
}

/// Four goats (a few minutes on two cores). Still no draw: four tigers
/// catch four goats; draws are compared on the real game's tiers
/// (`real_game_tier_is_byte_identical_to_the_counter_kernels`).
#[test]
#[ignore]
fn forward_kernel_equals_the_counter_kernel_on_four_goats() {
    for target in [2, 4] {
        let (slots, _) = compare(4, target, 2);
        assert!(slots > 0);
    }
}

#[test]
fn forward_kernel_refuses_a_moving_tier() {
    let game = BaghChal::new(BaghChalVariant::new(2, 2).unwrap());
    let moving = BaghTier { to_place: 0, captured: 0 };
    assert!(!handles(&game, moving));
    let Err(e) = foxbase_worker::forward_kernel::solve_forward_in_pool(
        &game,
        moving,
        &[],
        Some(foxbase_worker::protocol::Distance::Dtm),
    ) else {
        panic!("a moving tier solved by the forward kernel");
    };
    assert!(e.to_string().contains("p0-c0 is not one"), "{e}");
}

/// One tier of a real solve, solved again by the counter kernel from the
/// same child tables: table and plies files must be byte-identical. Small
/// variants have no draws, so this is where draws are compared. Run by
/// hand on a solve's output, e.g.
/// `FOXBASE_TABLES=baghchal-tables FOXBASE_TIER=p1-c3 FOXBASE_CAPTURE_TARGET=4
/// cargo test --release -p foxbase-worker --test forward_kernel -- --ignored real_game`.
#[test]
#[ignore]
fn real_game_tier_is_byte_identical_to_the_counter_kernels() {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("set {name} (see the test's documentation)"));
    let dir = std::path::PathBuf::from(var("FOXBASE_TABLES"));
    let target: u8 = var("FOXBASE_CAPTURE_TARGET").parse().expect("FOXBASE_CAPTURE_TARGET: a number");
    let game = BaghChal::new(BaghChalVariant::new(20, target).unwrap());
    let tier = game.parse_tier_name(&var("FOXBASE_TIER")).expect("FOXBASE_TIER: a tier name such as p1-c3");
    assert!(handles(&game, tier), "a placing tier");
    let scratch = std::env::temp_dir().join(format!("forward-check-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let child_path = |t| foxbase_tables::tier_files::table_path(&game, &dir, t);
    let out = scratch.join("tier.fxt");
    let started = std::time::Instant::now();
    let report =
        foxbase_worker::job::solve_to_file(&game, tier, &child_path, &out, 2, Kernel::Counter, Output::Dtm).unwrap();
    eprintln!("counter kernel: {:.1}s, {} draws", started.elapsed().as_secs_f64(), report.stats.draws);
    let ours = child_path(tier);
    let plies = foxbase_worker::job::plies_beside;
    for (a, b) in [(out.clone(), ours.clone()), (plies(&out), plies(&ours))] {
        assert!(
            std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
            "{} differs from {}",
            a.display(),
            b.display()
        );
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}
