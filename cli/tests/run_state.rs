//! The coordinator's state machine without the network: leases expire and
//! are re-issued, heartbeats extend them, a late completion is accepted
//! once, a repeat with the same checksum is a duplicate, one with another
//! checksum is a conflict that never replaces the first result, and resume
//! skips journaled tiers.

mod common;

use common::TempDir;
use foxbase_coordinator::journal::Journal;
use foxbase_coordinator::plan::TierPlan;
use foxbase_coordinator::run::{table_key, Refusal, RunOptions, RunState};
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::parse_position;
use foxbase_core::tier::TierGame;
use foxbase_core::{Geometry, Variant};
use foxbase_worker::job::solve_to_file;
use foxbase_worker::kernel::Output;
use foxbase_worker::protocol::{Assignment, Completion, LeaseAnswer};
use foxbase_worker::store::{DirStore, Store};
use std::time::{Duration, Instant};

fn game() -> FoxGame {
    let start = parse_position(".F./.../......./......./SS...../.../... f").unwrap();
    FoxGame::new(Variant::new(Geometry::Classic, 1, start).unwrap())
}

const OPTIONS: RunOptions =
    RunOptions { lease: Duration::from_secs(10), retry_after: Duration::from_millis(5), distance: None };

/// Solves an assignment into its upload key and returns the completion to send.
fn solve(game: &FoxGame, store: &DirStore, worker: &str, a: &Assignment) -> Completion {
    let tier = game.parse_tier_name(&a.tier).unwrap();
    let out = store.local_path(&a.upload_key).unwrap();
    let child = |c| store.local_path(&table_key(game, c)).unwrap();
    let report = solve_to_file(game, tier, &child, &out, 1, Default::default(), Output::Values).unwrap();
    Completion { worker_id: worker.into(), lease_id: a.lease_id, upload_key: a.upload_key.clone(), report }
}

/// The assignment of a lease answer that must hold one.
fn assigned(answer: LeaseAnswer) -> Assignment {
    match answer {
        LeaseAnswer::Assigned(a) => a,
        other => panic!("expected an assignment, got {other:?}"),
    }
}

#[test]
fn leases_expire_late_completions_count_once_and_conflicts_never_replace() {
    let dir = TempDir::new("run-state");
    let game = game();
    let plan = TierPlan::new(&game);
    assert!(plan.order.len() >= 3, "{}", plan.order.len());
    let store = DirStore::new(&dir.0);
    let journal_path = dir.0.join("journal.log");
    let journal = Journal::create(&journal_path, "fox", &game.variant_json()).unwrap();
    let mut run = RunState::new(&game, &plan, &store, Some(journal), Vec::new(), OPTIONS).unwrap();
    let t0 = Instant::now();
    let a = run.register("a", 1, t0).worker_id;
    let b = run.register("b", 1, t0).worker_id;
    assert!(matches!(run.lease("nobody", t0), Err(Refusal::UnknownWorker(_))));

    // a leases the first tier; a heartbeat at 8 s carries it past 10 s.
    let first = assigned(run.lease(&a, t0).unwrap());
    assert!(run.heartbeat(&a, first.lease_id, t0 + Duration::from_secs(8)).unwrap());
    assert!(!run.heartbeat(&b, first.lease_id, t0).unwrap(), "not b's lease");
    let t12 = t0 + Duration::from_secs(12);
    run.expire(t12);
    assert_eq!(run.counters().leases_expired, 0);
    // Silent until 19 s: expired, and b gets the same tier.
    let t19 = t0 + Duration::from_secs(19);
    let again = loop {
        let l = assigned(run.lease(&b, t19).unwrap());
        if l.tier == first.tier {
            break l;
        }
        run.release(&b, l.lease_id, t19).unwrap();
    };
    assert_eq!(run.counters().leases_expired, 1);
    assert!(!run.heartbeat(&a, first.lease_id, t19).unwrap(), "a's lease is gone");

    // a finishes late: accepted, journaled, moved to its final key.
    let from_a = solve(&game, &store, &a, &first);
    assert!(!run.complete(&from_a, t19).unwrap().duplicate);
    let key = table_key(&game, game.parse_tier_name(&first.tier).unwrap());
    let accepted = store.get_bytes(&key).unwrap();
    assert_eq!(crc32fast::hash(&accepted), from_a.report.crc32);
    assert!(store.size(&first.upload_key).unwrap().is_none());
    // b finishes the same tier: a duplicate, its upload deleted.
    let from_b = solve(&game, &store, &b, &again);
    assert!(run.complete(&from_b, t19).unwrap().duplicate);
    assert!(store.size(&again.upload_key).unwrap().is_none());
    assert_eq!(run.counters().duplicates, 1);

    // Another result for the finished tier: a conflict; the first one stays.
    let next = assigned(run.lease(&b, t19).unwrap());
    let mut forged = solve(&game, &store, &b, &next);
    forged.report.tier_name = first.tier.clone();
    match run.complete(&forged, t19) {
        Err(Refusal::Conflict(m)) => assert!(m.contains("the first result is kept"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(store.get_bytes(&key).unwrap(), accepted);
    assert_eq!(run.counters().completions_rejected, 1);

    // Finish the run with b, then resume from the journal: nothing to lease.
    let mut pending = Some(next);
    let mut reports = vec![from_a.report.clone()];
    while !run.is_finished() {
        let a = match pending.take() {
            Some(a) => a,
            None => assigned(run.lease(&b, t19).unwrap()),
        };
        let done = solve(&game, &store, &b, &a);
        assert!(!run.complete(&done, t19).unwrap().duplicate);
        reports.push(done.report);
    }
    assert_eq!(run.lease(&b, t19).unwrap(), LeaseAnswer::Done);
    let manifest = run.manifest();
    assert_eq!(manifest.tiers.len(), plan.order.len());
    // Each tier's propagation levels and initial decisions, as its solve reported them.
    assert_eq!(reports.len(), plan.order.len());
    for r in &reports {
        let e = manifest.tiers.iter().find(|t| t.name == r.tier_name).unwrap();
        assert_eq!((e.levels, e.decided_at_start), (r.stats.levels, r.stats.decided_at_start), "{}", e.name);
        assert!(e.levels >= 1 && e.decided_at_start <= e.slots - e.unused, "{e:?}");
    }
    assert!(manifest.tiers.iter().any(|t| t.levels > 2 && t.decided_at_start > 0));
    drop(run);
    let (journal, finished) = Journal::resume(&journal_path, "fox", &game.variant_json()).unwrap();
    assert_eq!(finished.len(), plan.order.len());
    let resumed = RunState::new(&game, &plan, &store, Some(journal), finished, OPTIONS).unwrap();
    assert!(resumed.is_finished());
    assert_eq!(resumed.resumed(), plan.order.len());
    assert_eq!(resumed.manifest().tiers, manifest.tiers);

    // A journaled table missing from the store refuses to resume.
    std::fs::remove_file(store.local_path(&key).unwrap()).unwrap();
    let (journal, finished) = Journal::resume(&journal_path, "fox", &game.variant_json()).unwrap();
    let err = RunState::new(&game, &plan, &store, Some(journal), finished, OPTIONS).err().unwrap();
    assert!(err.to_string().contains("but the store holds nothing"), "{err}");
}

#[test]
fn a_tier_finished_between_admission_and_commit_makes_the_later_completion_a_duplicate() {
    use foxbase_coordinator::run::Admission;
    let dir = TempDir::new("run-state-race");
    let game = game();
    let plan = TierPlan::new(&game);
    let store = DirStore::new(&dir.0);
    let mut run = RunState::new(&game, &plan, &store, None, Vec::new(), OPTIONS).unwrap();
    let t0 = Instant::now();
    let a = run.register("a", 1, t0).worker_id;
    let b = run.register("b", 1, t0).worker_id;
    let first = assigned(run.lease(&a, t0).unwrap());
    // The lease expires and b takes the same tier; both finish it.
    let t11 = t0 + Duration::from_secs(11);
    let again = loop {
        let l = assigned(run.lease(&b, t11).unwrap());
        if l.tier == first.tier {
            break l;
        }
        run.release(&b, l.lease_id, t11).unwrap();
    };
    let (from_a, from_b) = (solve(&game, &store, &a, &first), solve(&game, &store, &b, &again));
    // Both are admitted before either is committed (a server checks
    // uploads outside its lock, so this interleaving happens).
    let take = |admission| match admission {
        Admission::Check(pending) => pending,
        Admission::Decided(d) => panic!("decided without a check: {d:?}"),
    };
    let pending_a = take(run.admit(&from_a, t11).unwrap());
    let pending_b = take(run.admit(&from_b, t11).unwrap());
    let (checked_a, checked_b) = (pending_a.check(&store), pending_b.check(&store));
    assert!(!run.commit(&from_a, pending_a, checked_a).unwrap().duplicate);
    assert!(run.commit(&from_b, pending_b, checked_b).unwrap().duplicate, "the tier was finished meanwhile");
    assert_eq!(run.counters().duplicates, 1);
    assert!(store.size(&again.upload_key).unwrap().is_none(), "the duplicate's upload is deleted");
    // A check that failed is a refusal, counted.
    let next = assigned(run.lease(&a, t11).unwrap());
    let done = solve(&game, &store, &a, &next);
    let pending = take(run.admit(&done, t11).unwrap());
    match run.commit(&done, pending, Err("checksum 00000001 claimed".into())) {
        Err(Refusal::Invalid(m)) => assert!(m.contains("refused: checksum 00000001 claimed"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(run.counters().completions_rejected, 1);
    assert!(store.size(&next.upload_key).unwrap().is_none(), "the refused upload is deleted");
}
