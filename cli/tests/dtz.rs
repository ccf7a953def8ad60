//! Distance to zeroing (DTZ, `--distance dtz`): plies to the next move that
//! leaves the tier, rounded to the parity of the value
//! (`foxbase_tables::plies::Distance`).
//!
//! - Values and DTZ equal an oracle written here from RULES.md alone: the
//!   reference solver's values, and the distance to the next *progress*
//!   move (RULES.md, "Draws": the sheep's rank sum rises or a piece leaves
//!   the board) by a synchronous minimax over the reachable positions.
//! - The DTZ tables' values are byte for byte the values-only solve's; the
//!   plane kernel's DTZ files are byte for byte the counter kernel's.
//! - The engine plays sampled won positions out to a win with DTZ tables.
//! - `verify` checks DTZ against the children and catches a damaged byte;
//!   a solve refuses to resume with another distance.

mod common;

use common::TempDir;
use foxbase_coordinator::local::{solve_local, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::board::Point;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Position, Side, Value, Variant};
use foxbase_tables::engine::engine_move;
use foxbase_tables::FoxTables;
use foxbase_worker::kernel::{Kernel, Output};
use std::collections::HashMap;
use std::path::Path;

struct Quiet;
impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &foxbase_worker::job::TierReport, _: usize, _: u64) {}
}

/// Small variants with wins and losses for both sides: two foxes and one.
/// A won sheep-to-move value stored as lost (checksums made good) garbles
/// the packed DTZ counts read through it, before and after it; verify
/// (one position at a time, as `--one-step`) names the table and a value
/// that disagrees with its children, not the plies file.
#[test]
fn verify_names_the_table_of_a_changed_value_before_the_counts_it_garbles() {
    use foxbase_tables::table::{read_table, write_table};
    let variant = variants()[0];
    let dir = TempDir::new("dtz-changed");
    solve(&variant, &dir.0, Kernel::Planes, Output::Dtz);
    let game = FoxGame::new(variant);
    let mut manifest = foxbase_tables::manifest::Manifest::read(&dir.0).unwrap();
    let entry = manifest.tiers.iter_mut().max_by_key(|t| t.slots).unwrap();
    let tier = game.parse_tier_name(&entry.name).unwrap();
    let index = game.tier_index(tier);
    let header = foxbase_tables::tier_files::table_header(&game, tier, entry.slots);
    let path = dir.0.join(&entry.file);
    let mut values = read_table(&path, &header).unwrap();
    // The tier's last won sheep-to-move position that is not over: lost
    // positions before it in its block read their counts after the wins.
    let (slot, pos) = (0..entry.slots)
        .rev()
        .find_map(|i| {
            let pos = game.unrank(&index, i)?;
            let won = pos.side() == Side::Sheep && values.value(i) == Some(Value::Win);
            (won && game.primitive(&pos).is_none()).then_some((i, pos))
        })
        .unwrap();
    values.set_code(slot, Value::Loss.code());
    write_table(&path, &header, &values).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    entry.bytes = bytes.len() as u64;
    entry.crc32 = format!("{:08x}", crc32fast::hash(&bytes));
    let name = entry.name.clone();
    manifest.write(&dir.0).unwrap();
    let out = common::foxbase().args(["verify", dir.0.to_str().unwrap(), "--one-step", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The first value that disagrees with its children: the changed one, or a
    // fox-to-move parent of it in the same tier.
    let problem = &j["problem"];
    assert_eq!(problem["file"], format!("tiers/{name}.fxt"), "{j}");
    let message = problem["message"].as_str().unwrap();
    assert!(message.contains(", but its children say ") && !message.contains("plies"), "{j}");
    assert!(message.ends_with(&format!("of tier {name})")), "{j}");
    let changed = format!("stored loss, but its children say win (slot {slot} of tier {name})");
    assert!(problem["position"] != format_position(&pos) || message == changed, "{j}");
}

fn variants() -> Vec<Variant> {
    let v = |g, k, start: &str| Variant::new(g, k, parse_position(start).unwrap()).unwrap();
    vec![
        v(Geometry::Orthogonal, 2, "F.F/.../......./......./..SSS../.../... f"),
        v(Geometry::Classic, 3, ".F./.../......./......./..SSSS./.../... s"),
        v(Geometry::Classic, 2, "F.F/.../......./......./..SSS../.../... s"),
    ]
}

fn solve(variant: &Variant, dir: &Path, kernel: Kernel, output: Output) {
    let game = FoxGame::new(*variant);
    let plan = TierPlan::new(&game);
    let options = LocalOptions { workers: 1, threads_per_worker: 2, kernel, output, ..Default::default() };
    let m = solve_local(&game, &plan, dir, options, &Quiet).unwrap();
    foxbase_tables::seal::seal(dir, m).unwrap();
}

/// The sheep's rank sum (RULES.md: a progress move raises it or takes a piece off).
fn rank_sum(pos: &Position) -> i32 {
    Point::iter(pos.sheep()).map(|p| p.y()).sum()
}

/// Whether the move from `pos` to `child` is progress (zeroing), by RULES.md's definition.
fn is_progress(pos: &Position, child: &Position) -> bool {
    child.sheep_count() < pos.sheep_count() || child.fox_count() < pos.fox_count() || rank_sum(child) != rank_sum(pos)
}

/// The oracle's DTZ of every won or lost reachable position: plies to the
/// next progress move (or the end) when the winner hurries and the loser
/// delays, a progress move counting 1 ply whatever follows it; then
/// rounded up to the parity of the value (a win odd, a loss even).
fn oracle_dtz(reference: &ReferenceSolution) -> HashMap<Position, u32> {
    let rules = reference.rules();
    let positions: Vec<(Position, Value)> = reference.iter().collect();
    let index: HashMap<Position, usize> = positions.iter().enumerate().map(|(i, (p, _))| (*p, i)).collect();
    // Each position's moves: the child's index and whether the move is progress.
    let moves: Vec<Vec<(usize, bool)>> = positions
        .iter()
        .map(|(pos, _)| {
            rules
                .moves(pos)
                .into_iter()
                .map(|m| rules.play(pos, m))
                .map(|c| (index[&c], is_progress(pos, &c)))
                .collect()
        })
        .collect();
    const UNKNOWN: u32 = u32::MAX;
    let mut dtz = vec![UNKNOWN; positions.len()];
    for (i, (pos, value)) in positions.iter().enumerate() {
        if matches!(rules.status(pos), foxbase_core::rules::Status::Over { .. }) && *value != Value::Draw {
            dtz[i] = 0;
        }
    }
    // Synchronous sweeps: sweep `d` decides exactly the positions at distance `d`.
    for d in 1.. {
        assert!(d < 10_000, "the oracle does not converge");
        let mut new = Vec::new();
        for (i, (_, value)) in positions.iter().enumerate() {
            if *value == Value::Draw || dtz[i] != UNKNOWN {
                continue;
            }
            // What a move offers: 0 plies after a progress move, else the child's DTZ so far.
            let offer = |&(c, progress): &(usize, bool)| {
                if progress {
                    Some(0)
                } else {
                    Some(dtz[c]).filter(|&x| x != UNKNOWN)
                }
            };
            // A win: the quickest lost child known; a loss: every child known, the slowest.
            let decided = match value {
                Value::Win => moves[i]
                    .iter()
                    .filter(|(c, _)| positions[*c].1 == Value::Loss)
                    .filter_map(offer)
                    .map(|p| p + 1)
                    .min(),
                _ => moves[i]
                    .iter()
                    .map(offer)
                    .collect::<Option<Vec<u32>>>()
                    .map(|v| v.into_iter().max().map_or(1, |p| p + 1)),
            };
            if let Some(at) = decided {
                new.push((i, at));
            }
        }
        if new.is_empty() {
            break;
        }
        for (i, at) in new {
            dtz[i] = at;
        }
    }
    // The parity rule.
    let mut out = HashMap::new();
    for (i, (pos, value)) in positions.iter().enumerate() {
        if *value == Value::Draw {
            continue;
        }
        assert_ne!(dtz[i], UNKNOWN, "{} is won or lost but has no distance", format_position(pos));
        let odd = *value == Value::Win;
        out.insert(*pos, if (dtz[i] % 2 == 1) == odd { dtz[i] } else { dtz[i] + 1 });
    }
    out
}

#[test]
fn values_and_dtz_equal_an_oracle_written_from_the_rules() {
    for variant in variants() {
        let dir = TempDir::new("dtz-oracle");
        solve(&variant, &dir.0, Kernel::Planes, Output::Dtz);
        let tables = FoxTables::open(&dir.0).unwrap();
        assert_eq!(tables.distance(), Some(foxbase_tables::plies::Distance::Dtz));
        let reference = ReferenceSolution::solve(&variant, 5_000_000).unwrap();
        let dtz = oracle_dtz(&reference);
        let (mut checked, mut longest, mut odd_losses) = (0, 0, 0);
        for (pos, value) in reference.iter() {
            let o = tables.outcome_in_memory(&pos).unwrap();
            assert_eq!((o.value, o.plies), (value, dtz.get(&pos).copied()), "{}", format_position(&pos));
            // The single-position reader, which derives a fox-to-move count by one fox move.
            assert_eq!(tables.outcome(&pos).unwrap(), o, "{}", format_position(&pos));
            checked += 1;
            longest = longest.max(o.plies.unwrap_or(0));
            odd_losses += (value == Value::Loss && o.plies.is_some_and(|p| p % 2 == 1)) as u32;
        }
        assert_eq!(odd_losses, 0);
        assert!(checked > 10_000 && longest >= 5, "{checked} positions, longest {longest}");
    }
}

/// Every `.fxt` (values) or `.fxp` (plies) file of a solve, by name.
fn files(dir: &Path, ext: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("tiers"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn dtz_tables_hold_the_plain_values_and_both_kernels_write_the_same_files() {
    for variant in variants() {
        let (values, planes, counter) = (TempDir::new("dtz-v"), TempDir::new("dtz-p"), TempDir::new("dtz-c"));
        solve(&variant, &values.0, Kernel::Planes, Output::Values);
        solve(&variant, &planes.0, Kernel::Planes, Output::Dtz);
        solve(&variant, &counter.0, Kernel::Counter, Output::Dtz);
        let plain = files(&values.0, "fxt");
        assert!(!plain.is_empty());
        assert_eq!(files(&planes.0, "fxt"), plain, "DTZ tables' values are the values-only solve's");
        assert_eq!(files(&counter.0, "fxt"), plain);
        let plies = files(&planes.0, "fxp");
        assert_eq!(plies.len(), plain.len());
        assert_eq!(files(&counter.0, "fxp"), plies, "the plane kernel's DTZ is the counter kernel's");
    }
}

#[test]
fn the_engine_plays_won_positions_out_to_a_win_with_dtz_tables() {
    let variant = variants()[0];
    let dir = TempDir::new("dtz-engine");
    solve(&variant, &dir.0, Kernel::Planes, Output::Dtz);
    let tables = FoxTables::open(&dir.0).unwrap();
    let game = &tables.game;
    let rules = game.rules;
    let reference = ReferenceSolution::solve(&variant, 5_000_000).unwrap();
    let mut played = [0usize; 2];
    let mut zeroing_moves = 0;
    for (n, (pos, value)) in reference.iter().enumerate() {
        if value == Value::Draw || game.primitive(&pos).is_some() || n % 499 != 0 {
            continue;
        }
        let winner = if value == Value::Win { pos.side() } else { pos.side().other() };
        let (mut at, mut plies) = (pos, 0u32);
        let mut dtz = tables.outcome_in_memory(&at).unwrap().plies.unwrap();
        while let Some(choice) = engine_move(&tables, &at, plies as u64).unwrap() {
            let next = rules.play(&at, choice.mv);
            let after = tables.outcome_in_memory(&next).unwrap();
            if game.tier_of(&next) == game.tier_of(&at) {
                // Inside a tier the distance falls by exactly one a ply.
                assert_eq!(after.plies, Some(dtz - 1), "{} then {}", format_position(&at), choice.mv);
            } else {
                zeroing_moves += 1;
            }
            assert_ne!(after.value, Value::Draw, "{}: {} gives up the win", format_position(&at), choice.mv);
            (at, dtz) = (next, after.plies.unwrap_or(0));
            plies += 1;
            assert!(plies < 1000, "{}: no end after 1000 plies", format_position(&pos));
        }
        let end = tables.outcome(&at).unwrap();
        let won_by = if end.value == Value::Win { at.side() } else { at.side().other() };
        assert_eq!(won_by, winner, "{}: the game ended in {}", format_position(&pos), format_position(&at));
        played[(winner == Side::Sheep) as usize] += 1;
    }
    assert!(played[0] > 10 && played[1] > 10, "games won by each side: {played:?}");
    assert!(zeroing_moves > 20, "{zeroing_moves}");
}

/// The Fox Game's DTZ files store the sheep-to-move counts alone (a reader
/// derives a fox-to-move count by one fox move); a tablebase whose DTZ
/// files hold every count (flag bit 0 clear, docs/format.md "Packed
/// plies") still verifies and answers every position the same.
#[test]
fn dtz_files_store_the_sheep_to_move_counts_and_files_with_every_count_still_read() {
    use foxbase_tables::table::{write_plies, TableFile, ZSTD_LEVEL};
    use foxbase_tables::Layout;
    let variant = variants()[2];
    let game = FoxGame::new(variant);
    let (new, old) = (TempDir::new("dtz-odd"), TempDir::new("dtz-every"));
    solve(&variant, &new.0, Kernel::Planes, Output::Dtz);
    solve(&variant, &old.0, Kernel::Planes, Output::Dtz);
    let tables = FoxTables::open(&new.0).unwrap();
    let mut manifest = foxbase_tables::manifest::Manifest::read(&old.0).unwrap();
    let (mut odd_bytes, mut every_bytes) = (0, 0);
    for t in &mut manifest.tiers {
        let tier = game.parse_tier_name(&t.name).unwrap();
        let p = t.plies.as_mut().unwrap();
        let path = old.0.join(&p.file);
        let file = TableFile::open(&path).unwrap();
        assert_eq!(file.layout, Layout::Published, "{}: the sheep-to-move counts alone", p.file);
        // Every count, as the earlier solves wrote them: the derived ones included.
        let complete = tables.complete(tier).unwrap();
        let header = foxbase_tables::tier_files::table_header(&game, tier, t.slots);
        let plies = complete.plies.as_ref().unwrap();
        let (crc, bytes) =
            write_plies(&path, &header, plies, Some(&complete.values), ZSTD_LEVEL, Layout::Solved).unwrap();
        assert_eq!(TableFile::open(&path).unwrap().layout, Layout::Solved);
        (odd_bytes, every_bytes) = (odd_bytes + p.bytes, every_bytes + bytes);
        (p.crc32, p.bytes) = (format!("{crc:08x}"), bytes);
    }
    manifest.write(&old.0).unwrap();
    assert!(odd_bytes * 10 < every_bytes * 6, "{odd_bytes} bytes of sheep-to-move counts, {every_bytes} of all");
    let out = common::foxbase().args(["verify", old.0.to_str().unwrap(), "--one-step"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let every = FoxTables::open(&old.0).unwrap();
    let reference = ReferenceSolution::solve(&variant, 5_000_000).unwrap();
    let mut fox_counts = 0;
    for (n, (pos, _)) in reference.iter().enumerate() {
        let o = tables.outcome_in_memory(&pos).unwrap();
        assert_eq!(every.outcome_in_memory(&pos).unwrap(), o, "{}", format_position(&pos));
        // The single-position readers, one position in 16 (they read block by block).
        if n % 16 == 0 {
            assert_eq!(tables.outcome(&pos).unwrap(), o, "{}", format_position(&pos));
            assert_eq!(every.outcome(&pos).unwrap(), o, "{}", format_position(&pos));
        }
        fox_counts += (pos.side() == Side::Fox && o.plies.is_some()) as u32;
    }
    assert!(fox_counts > 10_000, "{fox_counts} fox-to-move counts compared");
}

/// A published tablebase's DTZ files hold a byte a count in column order
/// (the period a tier's slots per sheep set), smaller than the solve's
/// nibbles in slot order, and answer every reachable position as the solve's do.
#[test]
fn published_dtz_files_pack_bytes_by_fox_placement_and_give_back_every_count() {
    use foxbase_tables::plies_pack::{Packing, Width};
    use foxbase_tables::publish::{publish, Levels};
    use foxbase_tables::table::{Contents, TableFile};
    for variant in [variants()[0], variants()[1]] {
        let game = FoxGame::new(variant);
        let solved = TempDir::new("dtz-solved");
        solve(&variant, &solved.0, Kernel::Planes, Output::Dtz);
        let root = TempDir::new("dtz-published");
        let out = root.0.join("published");
        let p = publish(&solved.0, &out, Levels::default(), &foxbase_tables::tier_walk::WalkMemory::default(), &|_| {})
            .unwrap();
        let manifest = foxbase_tables::manifest::Manifest::read(&out).unwrap();
        for t in &manifest.tiers {
            let file = TableFile::open(&out.join(&t.plies.as_ref().unwrap().file)).unwrap();
            let period = game.tier_index(game.parse_tier_name(&t.name).unwrap()).fox_slots * 2;
            assert_eq!(file.contents, Contents::PliesPacked(Packing { width: Width::Byte, period }), "{}", t.name);
        }
        let solved_bytes: u64 = foxbase_tables::manifest::Manifest::read(&solved.0)
            .unwrap()
            .tiers
            .iter()
            .map(|t| t.plies.as_ref().unwrap().bytes)
            .sum();
        assert!(p.plies_bytes < solved_bytes, "published {} bytes of DTZ, solved {solved_bytes}", p.plies_bytes);
        let (tables, published) = (FoxTables::open(&solved.0).unwrap(), FoxTables::open(&out).unwrap());
        // Keeping one block and one piece: most reads decompress again.
        let forgetful = FoxTables::open(&out).unwrap().with_read_caches(1, 1);
        let reference = ReferenceSolution::solve(&variant, 5_000_000).unwrap();
        let mut counts = 0;
        for (n, (pos, _)) in reference.iter().enumerate() {
            let o = tables.outcome_in_memory(&pos).unwrap();
            assert_eq!(published.outcome_in_memory(&pos).unwrap(), o, "{}", format_position(&pos));
            // The single-position reader (the member index), one position in
            // 8, twice (the second value from the piece cache).
            if n % 8 == 0 {
                assert_eq!(published.outcome(&pos).unwrap(), o, "{}", format_position(&pos));
                assert_eq!(published.outcome(&pos).unwrap(), o, "{}", format_position(&pos));
                assert_eq!(forgetful.outcome(&pos).unwrap(), o, "{}", format_position(&pos));
            }
            counts += o.plies.is_some() as u32;
        }
        assert!(counts > 10_000, "{counts} counts compared");
    }
}

#[test]
fn verify_checks_dtz_and_a_solve_keeps_its_distance_when_resumed() {
    let variant = variants()[0];
    let dir = TempDir::new("dtz-verify");
    solve(&variant, &dir.0, Kernel::Planes, Output::Dtz);
    let d = dir.0.to_str().unwrap();
    let out = common::foxbase().args(["verify", d, "--one-step"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // With no memory to keep tiers in, each child is set aside on disk, values and plies, and
    // read back for its later parents, which check against it all the same.
    let spill = TempDir::new("dtz-verify-spill");
    let out = common::foxbase()
        .args(["verify", d, "--json", "--memory", "0", "--spill-dir", spill.0.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let view: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tiers = foxbase_tables::manifest::Manifest::read(&dir.0).unwrap().tiers.len() as u64;
    let walk = &view["walk"];
    assert_eq!((view["ok"].as_bool(), walk["completed"].as_u64()), (Some(true), Some(tiers)), "{view}");
    assert!(walk["spilled"].as_u64() > Some(0) && walk["spill_reads"].as_u64() > Some(0), "{view}");
    assert_eq!(walk["kept_high_water_bytes"].as_u64(), Some(0), "{view}");
    assert_eq!(std::fs::read_dir(&spill.0).unwrap().count(), 0, "the spill directory is removed");
    // The DTM files labelled as DTZ are caught: a tier's first move out counts differently.
    let dtm = TempDir::new("dtz-verify-dtm");
    solve(&variant, &dtm.0, Kernel::Planes, Output::Dtm);
    for (name, bytes) in files(&dtm.0, "fxp") {
        std::fs::write(dir.0.join("tiers").join(&name), bytes).unwrap();
    }
    let mut manifest = foxbase_tables::manifest::Manifest::read(&dtm.0).unwrap();
    for t in &mut manifest.tiers {
        t.plies.as_mut().unwrap().distance = foxbase_tables::plies::Distance::Dtz;
    }
    manifest.write(&dir.0).unwrap();
    let out = common::foxbase().args(["verify", d, "--one-step"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("plies, but its children say"), "{stderr}");
    // A solve begun with one distance is not resumed with another.
    let resumed = TempDir::new("dtz-resume");
    let start = format_position(&variant.start);
    let solve_cli = |distance: &str| {
        common::foxbase()
            .args(["solve", "--start", &start, "--pen-target", "2", "--geometry", "orthogonal", "--threads", "1"])
            .args(["--distance", distance, "--resume", "--out", resumed.0.to_str().unwrap()])
            .output()
            .unwrap()
    };
    assert!(solve_cli("dtz").status.success());
    let out = solve_cli("dtm");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("values and plies to zeroing, --distance dtz"), "{stderr}");
    let out = common::foxbase().args(["solve", "--distance", "dtx"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--distance") && stderr.contains("'dtx' is not a distance"), "{stderr}");
}

#[test]
fn bagh_chal_dtz_from_the_forward_kernel_is_the_counter_kernels_and_verifies() {
    let (forward, counter) = (TempDir::new("dtz-bc-f"), TempDir::new("dtz-bc-c"));
    for (dir, kernel) in [(&forward, "forward"), (&counter, "counter")] {
        let out = common::foxbase()
            .args(["solve", "--game", "baghchal", "--goats", "2", "--capture-target", "2", "--distance", "dtz"])
            .args(["--kernel", kernel, "--threads", "2", "--out", dir.0.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let plies = files(&forward.0, "fxp");
    assert_eq!(plies.len(), 5);
    assert_eq!(files(&counter.0, "fxp"), plies);
    assert_eq!(files(&counter.0, "fxt"), files(&forward.0, "fxt"));
    let out = common::foxbase().args(["verify", forward.0.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: 5 tiers, 806938 positions"));
}
