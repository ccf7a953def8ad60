//! The tiered solver against the reference solver, position by position,
//! values and plies to the end, on small variants of every kind (both
//! geometries, 1 and 2 foxes, K 1..3, fox first and sheep first, sheep
//! floors won by either side), and the same tables and plies files for any
//! thread and worker count.

mod common;

use common::TempDir;
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress, DEFAULT_TABLES_IN_MEMORY};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Side, Value, Variant};
use foxbase_tables::plies::read_plies;
use foxbase_tables::table::read_table;
use foxbase_tables::tier_files::{plies_path, table_header, table_path};
use foxbase_worker::job::solve_to_upload_in_pool;
use foxbase_worker::kernel::{Kernel, Output};
use foxbase_worker::table_cache::TableCache;
use std::collections::HashMap;

struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &foxbase_worker::job::TierReport, _: usize, _: u64) {}
}

fn variant(start: &str, geometry: Geometry, k: u32) -> Variant {
    Variant::new(geometry, k, parse_position(start).unwrap()).unwrap()
}

/// [`variant`] with the sheep floor F won by `winner` below it.
fn floored(start: &str, geometry: Geometry, k: u32, floor: u32, winner: Side) -> Variant {
    variant(start, geometry, k).with_sheep_floor(floor, winner).unwrap()
}

/// Solves with plies and returns the bytes on disk of every tier's table
/// and plies file, by file name.
fn solve(v: &Variant, workers: usize, threads: usize, dir: &TempDir) -> HashMap<String, Vec<u8>> {
    solve_plies_with(v, workers, threads, Kernel::Planes, dir)
}

/// [`solve`] with a chosen kernel.
fn solve_plies_with(
    v: &Variant,
    workers: usize,
    threads: usize,
    kernel: Kernel,
    dir: &TempDir,
) -> HashMap<String, Vec<u8>> {
    let game = FoxGame::new(*v);
    let plan = TierPlan::new(&game);
    let options =
        LocalOptions { workers, threads_per_worker: threads, kernel, output: Output::Dtm, ..Default::default() };
    let m = solve_local(&game, &plan, &dir.0, options, &Quiet).unwrap();
    let mut files = HashMap::new();
    for t in &m.tiers {
        let plies = t.plies.as_ref().expect("a solve with plies records each tier's plies file");
        for file in [&t.file, &plies.file] {
            files.insert(file.clone(), std::fs::read(dir.0.join(file)).unwrap());
        }
    }
    files
}

/// Compares the value and plies of every position the reference solver
/// reaches; returns how many were compared.
fn compare(v: &Variant, expected_start: Value) -> usize {
    let dir = TempDir::new("ref");
    solve(v, 1, 2, &dir);
    let game = FoxGame::new(*v);
    let plan = TierPlan::new(&game);
    let tables: HashMap<_, _> = plan
        .order
        .iter()
        .map(|&t| {
            let index = game.tier_index(t);
            let header = table_header(&game, t, game.tier_size(&index));
            let values = read_table(&table_path(&game, &dir.0, t), &header).unwrap();
            let plies = read_plies(&plies_path(&game, &dir.0, t), &header, &values).unwrap();
            (t, (index, values, plies))
        })
        .collect();
    let reference = ReferenceSolution::solve_with_plies(v, 5_000_000).unwrap();
    assert_eq!(reference.value(&v.start), Some(expected_start), "reference value of the start of {v}");
    let mut compared = 0;
    for (pos, want) in reference.iter() {
        let (got, plies) = match game.primitive(&pos) {
            Some(value) => (value, (value != Value::Draw).then_some(0)),
            None => {
                let (index, values, plies) = &tables[&game.tier_of(&pos)];
                let i = game.rank(index, &pos.canonical());
                let value = values.value(i).expect("a reachable position has a used slot");
                (value, (value != Value::Draw).then_some(plies.get(i) as u32))
            }
        };
        assert_eq!(got, want, "{v}: position {}", format_position(&pos));
        assert_eq!(plies, reference.plies(&pos), "{v}: plies of {} ({got})", format_position(&pos));
        compared += 1;
    }
    compared
}

#[test]
fn one_fox_three_sheep_k2_classic_fox_first() {
    let v = variant(".F./.../......./......./SSS..../.../... f", Geometry::Classic, 2);
    assert_eq!(compare(&v, Value::Loss), 163_526);
}

#[test]
fn one_fox_three_sheep_k2_orthogonal_sheep_first() {
    let v = variant(".F./.../......./......./SSS..../.../... s", Geometry::Orthogonal, 2);
    assert_eq!(compare(&v, Value::Win), 92_138);
}

#[test]
fn one_fox_two_sheep_k1_classic_sheep_first() {
    let v = variant(".F./.../......./......./......./S.S/... s", Geometry::Classic, 1);
    assert_eq!(compare(&v, Value::Win), 16_361);
}

#[test]
fn two_foxes_two_sheep_k1_orthogonal_fox_first() {
    let v = variant("F.F/.../......./......./......./.S./.S. f", Geometry::Orthogonal, 1);
    assert_eq!(compare(&v, Value::Draw), 171_923);
}

#[test]
fn two_foxes_two_sheep_k2_classic_fox_first() {
    let v = variant("F.F/.../......./......./..S.S../.../... f", Geometry::Classic, 2);
    assert_eq!(compare(&v, Value::Win), 330_609);
}

#[test]
fn two_foxes_two_sheep_k2_orthogonal_sheep_first() {
    let v = variant("F.F/.../......./......./..S.S../.../... s", Geometry::Orthogonal, 2);
    assert_eq!(compare(&v, Value::Loss), 167_328);
}

#[test]
fn one_fox_three_sheep_k3_classic_fox_first() {
    let v = variant(".F./.../......./...S.../..S.S../.../... f", Geometry::Classic, 3);
    assert_eq!(compare(&v, Value::Draw), 179_608);
}

#[test]
fn one_fox_three_sheep_k3_orthogonal_fox_first() {
    let v = variant(".F./.../......./......./SSS..../.../... f", Geometry::Orthogonal, 3);
    assert_eq!(compare(&v, Value::Draw), 90_881);
}

#[test]
fn two_foxes_three_sheep_k3_orthogonal_fox_first() {
    let v = variant("F.F/.../......./......./..SSS../.../... f", Geometry::Orthogonal, 3);
    assert_eq!(compare(&v, Value::Draw), 1_526_938);
}

#[test]
fn one_fox_four_sheep_k3_classic_sheep_first() {
    let v = variant(".F./.../......./SS...SS/......./.../... s", Geometry::Classic, 3);
    assert_eq!(compare(&v, Value::Draw), 309_489);
}

#[test]
fn sheep_floor_won_by_the_foxes_one_fox_four_sheep_classic_sheep_first() {
    let v = floored(".F./.../......./SS...SS/......./.../... s", Geometry::Classic, 3, 4, Side::Fox);
    assert_eq!(compare(&v, Value::Draw), 261_167);
}

#[test]
fn sheep_floor_won_by_the_sheep_one_fox_four_sheep_classic_sheep_first() {
    let v = floored(".F./.../......./SS...SS/......./.../... s", Geometry::Classic, 3, 4, Side::Sheep);
    assert_eq!(compare(&v, Value::Win), 261_167);
}

#[test]
fn sheep_floor_won_by_the_foxes_two_foxes_three_sheep_orthogonal_fox_first() {
    let v = floored("F.F/.../......./......./..SSS../.../... f", Geometry::Orthogonal, 2, 3, Side::Fox);
    assert_eq!(compare(&v, Value::Draw), 1_261_251);
}

#[test]
fn sheep_floor_won_by_the_sheep_two_foxes_three_sheep_classic_sheep_first() {
    let v = floored("F.F/.../......./......./..SSS../.../... s", Geometry::Classic, 1, 2, Side::Sheep);
    assert_eq!(compare(&v, Value::Win), 1_146_199);
}

#[test]
fn tables_are_identical_for_any_thread_and_worker_count() {
    let v = variant("F.F/.../......./......./..SSS../.../... f", Geometry::Classic, 3);
    let (a, b, c) = (TempDir::new("t1"), TempDir::new("t2"), TempDir::new("w2"));
    let one = solve(&v, 1, 1, &a);
    let two = solve(&v, 1, 2, &b);
    let workers = solve(&v, 2, 1, &c);
    assert!(one.len() > 10);
    assert_eq!(one, two);
    assert_eq!(one, workers);
}

/// Tables kept in memory for their parents change no byte: none, a few
/// (a budget of 4 KiB, most tables dropped again at once) and the default,
/// values alone and with plies (read from their files beside the kept values).
#[test]
fn tables_are_identical_whatever_tables_are_kept_in_memory() {
    let v = variant("F.F/.../......./......./..SSS../.../... f", Geometry::Classic, 3);
    let game = FoxGame::new(v);
    let plan = TierPlan::new(&game);
    for output in [Output::Values, Output::Dtm] {
        let solve = |tables_in_memory: u64| {
            let dir = TempDir::new("kept");
            let options =
                LocalOptions { workers: 2, threads_per_worker: 1, output, tables_in_memory, ..Default::default() };
            let m = solve_local(&game, &plan, &dir.0, options, &Quiet).unwrap();
            let table = |t: &foxbase_tables::manifest::TierEntry| dir.0.join(&t.file);
            let files = m.tiers.iter().flat_map(|t| [table(t), foxbase_worker::job::plies_beside(&table(t))]);
            let named = |f: &std::path::Path| f.strip_prefix(&dir.0).unwrap().to_path_buf();
            files.filter(|f| f.exists()).map(|f| (named(&f), std::fs::read(&f).unwrap())).collect::<HashMap<_, _>>()
        };
        let none = solve(0);
        assert!(none.len() > 10);
        assert_eq!(none, solve(4096), "{output:?}");
        assert_eq!(none, solve(DEFAULT_TABLES_IN_MEMORY), "{output:?}");
    }
}

/// On crowded tiers (two foxes against 20 sheep: the plane kernel's child
/// planes) the planes the first parent derives from a kept child table are
/// kept with it for the later parents, and change no byte: a worker's
/// solve with a cache of every table against one with none.
#[test]
fn child_planes_kept_with_their_tables_change_no_byte() {
    let v = floored(".../SSS/SSSSSSS/SSSSSSS/SSS..../.../F.F f", Geometry::Classic, 9, 20, Side::Fox);
    let game = FoxGame::new(v);
    let plan = TierPlan::new(&game);
    let solve = |cache: Option<&TableCache>| {
        let dir = TempDir::new("planes");
        for &tier in &plan.order {
            let (out, child_path) = (table_path(&game, &dir.0, tier), |c| table_path(&game, &dir.0, c));
            solve_to_upload_in_pool(&game, tier, &child_path, &out, Kernel::Planes, Output::Values, false, cache)
                .unwrap();
        }
        let bytes = |t| std::fs::read(table_path(&game, &dir.0, t)).unwrap();
        plan.order.iter().map(|&t| (game.tier_name(t), bytes(t))).collect::<HashMap<_, _>>()
    };
    let cache = TableCache::new(DEFAULT_TABLES_IN_MEMORY);
    let kept = solve(Some(&cache));
    let with_planes: Vec<String> = plan
        .order
        .iter()
        .map(|&t| game.tier_name(t))
        .filter(|name| cache.get(name).is_some_and(|(_, planes)| planes.bytes() > 0))
        .collect();
    assert_eq!((plan.order.len(), with_planes.len()), (70, 34));
    // Each was built once, by one parent; the two-fox parents after it read it kept.
    let parents = |name: &String| {
        plan.order
            .iter()
            .filter(|&&p| p.foxes() == 2 && plan.children[&p].iter().any(|c| game.tier_name(*c) == *name))
            .count()
    };
    let reads: usize = with_planes.iter().map(parents).sum();
    assert!(reads > with_planes.len(), "{reads} reads of {} tiers' planes", with_planes.len());
    assert_eq!(kept, solve(None));
}

/// Solves values with `kernel` and returns every tier's bytes on disk.
fn solve_with(v: &Variant, workers: usize, threads: usize, kernel: Kernel, dir: &TempDir) -> HashMap<String, Vec<u8>> {
    let game = FoxGame::new(*v);
    let plan = TierPlan::new(&game);
    let options =
        LocalOptions { workers, threads_per_worker: threads, kernel, output: Output::Values, ..Default::default() };
    let m = solve_local(&game, &plan, &dir.0, options, &Quiet).unwrap();
    m.tiers.iter().map(|t| (t.name.clone(), std::fs::read(dir.0.join(&t.file)).unwrap())).collect()
}

/// The Fox Game's plane kernel and the counter kernel with plies write
/// the counter kernel's tables byte for byte, with 1 and 2
/// threads, on every variant above and on larger pen targets.
#[test]
fn the_fox_kernels_write_the_counter_kernels_tables() {
    let variants = [
        (".F./.../......./......./SSS..../.../... f", Geometry::Classic, 2),
        (".F./.../......./......./SSS..../.../... s", Geometry::Orthogonal, 2),
        (".F./.../......./......./......./S.S/... s", Geometry::Classic, 1),
        ("F.F/.../......./......./......./.S./.S. f", Geometry::Orthogonal, 1),
        ("F.F/.../......./......./..S.S../.../... f", Geometry::Classic, 2),
        ("F.F/.../......./......./..S.S../.../... s", Geometry::Orthogonal, 2),
        (".F./.../......./...S.../..S.S../.../... f", Geometry::Classic, 3),
        (".F./.../......./......./SSS..../.../... f", Geometry::Orthogonal, 3),
        ("F.F/.../......./......./..SSS../.../... f", Geometry::Orthogonal, 3),
        (".F./.../......./SS...SS/......./.../... s", Geometry::Classic, 3),
        // Pens that fill: K up to the sheep count, and two foxes that can both be trapped.
        ("F.F/.../......./......./SSSS.../.../... f", Geometry::Classic, 4),
        (".F./.../......./......./SSSSS../.../... s", Geometry::Orthogonal, 5),
        ("F.F/.../......./SSSS.../......./.../... s", Geometry::Classic, 9),
    ];
    let floors = [
        (".F./.../......./......./SSSSS../.../... s", Geometry::Orthogonal, 3, 4, Side::Fox),
        (".F./.../......./......./SSSSS../.../... f", Geometry::Classic, 2, 4, Side::Sheep),
        ("F.F/.../......./......./SSSS.../.../... f", Geometry::Classic, 2, 3, Side::Fox),
        ("F.F/.../......./SSSS.../......./.../... s", Geometry::Orthogonal, 1, 3, Side::Sheep),
    ];
    let variants = variants
        .into_iter()
        .map(|(start, geometry, k)| variant(start, geometry, k))
        .chain(floors.into_iter().map(|(start, geometry, k, f, w)| floored(start, geometry, k, f, w)));
    for v in variants {
        let counter = solve_with(&v, 1, 1, Kernel::Counter, &TempDir::new("counter"));
        assert!(!counter.is_empty());
        for kernel in [Kernel::Planes] {
            for threads in [1, 2] {
                let tables = solve_with(&v, 1, threads, kernel, &TempDir::new(kernel.name()));
                assert_eq!(tables.len(), counter.len(), "{v}");
                for (name, bytes) in &counter {
                    assert!(tables[name] == *bytes, "{v}: tier {name} differs with {threads} threads ({kernel:?})");
                }
            }
        }
        // With plies: the counter kernel with plies is the oracle; the plane
        // kernel writes the same tables and plies files with 1 and 2 threads.
        let with_plies = solve_plies_with(&v, 1, 1, Kernel::Counter, &TempDir::new("plies"));
        assert_eq!(with_plies.len(), 2 * counter.len(), "{v}");
        for (name, bytes) in &counter {
            let file = format!("tiers/{name}.fxt");
            assert!(with_plies[&file] == *bytes, "{v}: tier {name} differs when solved with plies");
        }
        for threads in [1, 2] {
            let planes = solve_plies_with(&v, 1, threads, Kernel::Planes, &TempDir::new("planes-plies"));
            assert_eq!(planes.len(), with_plies.len(), "{v}");
            for (file, bytes) in &with_plies {
                assert!(planes[file] == *bytes, "{v}: {file} differs with the plane kernel ({threads} threads)");
            }
        }
    }
}
