//! Tables kept in memory between the tiers a worker solves: a tier's values
//! as it wrote them, read by its parents later without decompressing the
//! file again, and what the first parent derived from them for the later
//! ones (the plane kernel's [`KeptPlanes`]).
//!
//! Every tier is the child of several (the 20-sheep solve, two foxes
//! against 20 sheep under a sheep floor of 20, reads 79 GB of child tables
//! for 13 GB of tables, six times over), and a
//! parent is often solved soon after its children: with tables kept in
//! the order they were last used, and the least recently used dropped
//! beyond a budget of bytes, 1 GB holds two thirds of what that solve reads
//! (docs/operations.md). A table is kept as the solve produced it: its
//! file holds the same values (solving is deterministic), and in the
//! unused slots, marked unused here, whatever code compressed best, which
//! no kernel reads as a value (`cli/tests/reference_match.rs` solves with
//! none, few and many tables kept and compares every file's bytes). Only
//! values are kept: a DTZ file's packed counts are read with the codes its
//! table file holds, so they are never read beside a kept table (a solve
//! reads its children's plies only for DTM, one byte a slot). Keys are
//! tier names, so one cache serves one solve (one game and variant):
//! [`crate::lease_loop`] creates none of its own.
//!
//! The budget counts a table's derived planes too, once a parent has built
//! them and [`TableCache::recount`] has been told.

use crate::plane_kernel::KeptPlanes;
use foxbase_tables::packed::PackedValues;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// The tables a solve keeps in memory, by tier name, within a budget of bytes.
pub struct TableCache {
    budget: u64,
    inner: Mutex<Inner>,
}

/// A table kept: its values, what was derived from them, the tick of its
/// last use and the bytes counted for it.
struct Kept {
    values: Arc<PackedValues>,
    planes: Arc<KeptPlanes>,
    last: u64,
    bytes: u64,
}

impl Kept {
    /// The bytes it holds now.
    fn held(&self) -> u64 {
        self.values.bytes().len() as u64 + self.planes.bytes()
    }
}

#[derive(Default)]
struct Inner {
    /// Per tier: what is kept of it.
    tables: HashMap<String, Kept>,
    /// The tiers by the tick of their last use (the oldest first).
    by_use: BTreeMap<u64, String>,
    /// The bytes held, as last counted.
    bytes: u64,
    tick: u64,
}

impl TableCache {
    /// A cache holding at most `budget` bytes of values (0: holds nothing).
    pub fn new(budget: u64) -> TableCache {
        TableCache { budget, inner: Mutex::new(Inner::default()) }
    }

    /// The values of tier `name` and what was derived from them, if held
    /// (they become the most recently used).
    pub fn get(&self, name: &str) -> Option<(Arc<PackedValues>, Arc<KeptPlanes>)> {
        let mut inner = self.inner.lock().unwrap();
        let tick = inner.next_tick();
        let kept = inner.tables.get_mut(name)?;
        let (got, old) = ((kept.values.clone(), kept.planes.clone()), std::mem::replace(&mut kept.last, tick));
        inner.by_use.remove(&old);
        inner.by_use.insert(tick, name.to_string());
        Some(got)
    }

    /// Keeps the values of tier `name` with the slot for what is derived
    /// from them (replacing any held), then drops the least recently used
    /// tables while the budget is exceeded. A table larger than the whole
    /// budget is not kept.
    pub fn insert(&self, name: &str, values: Arc<PackedValues>, planes: Arc<KeptPlanes>) {
        let kept = Kept { values, planes, last: 0, bytes: 0 };
        let bytes = kept.held();
        if bytes > self.budget {
            return;
        }
        let mut inner = self.inner.lock().unwrap();
        let tick = inner.next_tick();
        if let Some(old) = inner.tables.insert(name.to_string(), Kept { last: tick, bytes, ..kept }) {
            inner.bytes -= old.bytes;
            inner.by_use.remove(&old.last);
        }
        inner.by_use.insert(tick, name.to_string());
        inner.bytes += bytes;
        inner.drop_over(self.budget);
    }

    /// Counts again what tier `name` holds (a solve may have derived its
    /// planes since it was kept), then drops the least recently used
    /// tables while the budget is exceeded. Nothing when it is not held.
    pub fn recount(&self, name: &str) {
        let mut inner = self.inner.lock().unwrap();
        let Some(kept) = inner.tables.get_mut(name) else { return };
        let (was, now) = (kept.bytes, kept.held());
        kept.bytes = now;
        inner.bytes = inner.bytes - was + now;
        inner.drop_over(self.budget);
    }

    /// The bytes held now, as last counted.
    pub fn bytes(&self) -> u64 {
        self.inner.lock().unwrap().bytes
    }
}

impl std::fmt::Debug for TableCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableCache").field("budget", &self.budget).field("bytes", &self.bytes()).finish()
    }
}

impl Inner {
    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// Drops the least recently used tables until at most `budget` bytes are held.
    fn drop_over(&mut self, budget: u64) {
        while self.bytes > budget {
            let (_, oldest) = self.by_use.pop_first().expect("held bytes belong to held tables");
            let dropped = self.tables.remove(&oldest).expect("every tick names a held table");
            self.bytes -= dropped.bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(bytes: usize) -> Arc<PackedValues> {
        Arc::new(PackedValues::filled(bytes as u64 * 4, 0))
    }

    /// Keeps a table of `bytes` bytes of values, nothing derived yet.
    fn keep(cache: &TableCache, name: &str, bytes: usize) {
        cache.insert(name, table(bytes), Arc::default());
    }

    #[test]
    fn the_least_recently_used_tables_go_first_and_the_budget_holds() {
        let cache = TableCache::new(300);
        keep(&cache, "a", 100);
        keep(&cache, "b", 100);
        keep(&cache, "c", 100);
        assert_eq!(cache.bytes(), 300);
        // "a" used again: "b" is now the oldest.
        assert!(cache.get("a").is_some());
        keep(&cache, "d", 100);
        assert!(cache.get("b").is_none());
        assert_eq!(cache.bytes(), 300);
        for name in ["a", "c", "d"] {
            assert!(cache.get(name).is_some(), "{name}");
        }
        // Two tables must go for one of 200 bytes: "a" and "c", the oldest now.
        keep(&cache, "e", 200);
        assert!(cache.get("a").is_none() && cache.get("c").is_none());
        assert!(cache.get("d").is_some() && cache.get("e").is_some());
        assert_eq!(cache.bytes(), 300);
        // Replacing a table counts its new size alone.
        keep(&cache, "d", 50);
        assert_eq!(cache.bytes(), 250);
    }

    #[test]
    fn a_table_over_the_budget_is_not_kept_and_a_zero_budget_keeps_nothing() {
        let cache = TableCache::new(100);
        keep(&cache, "a", 60);
        keep(&cache, "big", 101);
        assert!(cache.get("big").is_none());
        assert!(cache.get("a").is_some(), "a table too big to keep drops nothing");
        let none = TableCache::new(0);
        keep(&none, "a", 1);
        assert!(none.get("a").is_none());
        assert_eq!(none.bytes(), 0);
    }

    #[test]
    fn a_table_and_its_planes_are_shared_not_copied() {
        let cache = TableCache::new(1000);
        let (values, planes) = (table(100), Arc::new(KeptPlanes::default()));
        cache.insert("a", values.clone(), planes.clone());
        let (got_values, got_planes) = cache.get("a").unwrap();
        assert!(Arc::ptr_eq(&values, &got_values));
        assert!(Arc::ptr_eq(&planes, &got_planes));
    }

    #[test]
    fn planes_built_after_keeping_count_once_recounted() {
        // One 64-byte line a block: 3 blocks, 192 bytes.
        let cache = TableCache::new(400);
        keep(&cache, "old", 100);
        let planes = Arc::new(KeptPlanes::default());
        cache.insert("a", table(100), planes.clone());
        assert_eq!(cache.bytes(), 200);
        planes.fill_for_test(3);
        assert_eq!(planes.bytes(), 192);
        // Not counted until told.
        assert_eq!(cache.bytes(), 200);
        cache.recount("a");
        // 100 + 100 + 192 = 392 fits; told twice, counted once.
        assert_eq!(cache.bytes(), 392);
        cache.recount("a");
        assert_eq!(cache.bytes(), 392);
        // Over the budget: the least recently used ("old") goes.
        keep(&cache, "b", 10);
        assert!(cache.get("old").is_none());
        assert_eq!(cache.bytes(), 302);
        cache.recount("gone");
        assert_eq!(cache.bytes(), 302);
    }
}
