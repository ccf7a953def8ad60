//! The local solve: an embedded coordinator with in-process workers.

use crate::manifest::{Manifest, TierEntry};
use crate::plan::{Scheduler, TierPlan};
use foxbase_core::tier::TierGame;
use foxbase_worker::job::{solve_and_store, table_path, TierReport, TABLE_EXT};
use std::path::Path;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// How to run a local solve.
#[derive(Clone, Copy, Debug)]
pub struct LocalOptions {
    /// In-process workers, each solving one tier at a time.
    pub workers: usize,
    /// Kernel threads per worker.
    pub threads_per_worker: usize,
}

/// Progress events, for a bar or log lines.
pub trait Progress: Sync {
    fn planned(&self, tiers: usize, slots: u64);
    fn tier_done(&self, report: &TierReport, tiers_done: usize, slots_done: u64);
}

/// Solves every tier of `plan` into `store` and returns the manifest (not yet written).
pub fn solve_local<G: TierGame>(
    game: &G,
    plan: &TierPlan<G>,
    store: &Path,
    options: LocalOptions,
    progress: &dyn Progress,
) -> Result<Manifest, String> {
    std::fs::create_dir_all(store.join("tiers")).map_err(|e| format!("{}: {e}", store.display()))?;
    progress.planned(plan.order.len(), plan.total_slots());
    let started = Instant::now();
    struct Shared<T: Ord + Copy + std::hash::Hash> {
        scheduler: Scheduler<T>,
        reports: Vec<(T, TierReport)>,
        slots_done: u64,
        error: Option<String>,
    }
    let shared = Mutex::new(Shared {
        scheduler: Scheduler::new(&plan.order, &plan.children, &[]),
        reports: Vec::new(),
        slots_done: 0,
        error: None,
    });
    let wake = Condvar::new();
    std::thread::scope(|scope| {
        for _ in 0..options.workers.max(1) {
            scope.spawn(|| loop {
                let tier = {
                    let mut s = shared.lock().unwrap();
                    loop {
                        if s.error.is_some() || s.scheduler.is_finished() {
                            return;
                        }
                        if let Some(t) = s.scheduler.lease() {
                            break t;
                        }
                        s = wake.wait(s).unwrap();
                    }
                };
                let result = solve_and_store(game, store, tier, options.threads_per_worker);
                let mut s = shared.lock().unwrap();
                match result {
                    Ok(report) => {
                        s.scheduler.complete(tier);
                        s.slots_done += report.stats.slots;
                        progress.tier_done(&report, s.scheduler.done(), s.slots_done);
                        s.reports.push((tier, report));
                    }
                    Err(e) => {
                        s.error.get_or_insert(format!("tier {}: {e}", game.tier_name(tier)));
                    }
                }
                wake.notify_all();
            });
        }
    });
    let shared = shared.into_inner().unwrap();
    if let Some(e) = shared.error {
        return Err(e);
    }
    let mut reports = shared.reports;
    // The manifest lists tiers in plan order, whatever order they finished in.
    let position: std::collections::HashMap<G::Tier, usize> =
        plan.order.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    reports.sort_by_key(|(t, _)| position[t]);
    let tiers = reports
        .into_iter()
        .map(|(t, r)| TierEntry {
            name: r.tier_name.clone(),
            file: format!("tiers/{}.{TABLE_EXT}", game.tier_name(t)),
            slots: r.stats.slots,
            bytes: r.bytes,
            crc32: format!("{:08x}", r.crc32),
            wins: r.stats.wins,
            draws: r.stats.draws,
            losses: r.stats.losses,
            unused: r.stats.unused,
            children: plan.children[&t].iter().map(|&c| game.tier_name(c)).collect(),
        })
        .collect();
    debug_assert!(plan.order.iter().all(|&t| table_path(game, store, t).exists()));
    Ok(Manifest::new(game, tiers, started.elapsed().as_secs_f64()))
}
