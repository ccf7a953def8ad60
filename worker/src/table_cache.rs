//! Tables kept in memory between the tiers a worker solves: a tier's values
//! as it wrote them, read by its parents later without decompressing the
//! file again.
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

use foxbase_tables::packed::PackedValues;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// The tables a solve keeps in memory, by tier name, within a budget of bytes.
pub struct TableCache {
    budget: u64,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Per tier: its values and the tick of its last use.
    tables: HashMap<String, (Arc<PackedValues>, u64)>,
    /// The tiers by the tick of their last use (the oldest first).
    by_use: BTreeMap<u64, String>,
    /// The bytes of the values held.
    bytes: u64,
    tick: u64,
}

impl TableCache {
    /// A cache holding at most `budget` bytes of values (0: holds nothing).
    pub fn new(budget: u64) -> TableCache {
        TableCache { budget, inner: Mutex::new(Inner::default()) }
    }

    /// The values of tier `name`, if held (they become the most recently used).
    pub fn get(&self, name: &str) -> Option<Arc<PackedValues>> {
        let mut inner = self.inner.lock().unwrap();
        let tick = inner.next_tick();
        let (values, last) = inner.tables.get_mut(name)?;
        let (values, old) = (values.clone(), std::mem::replace(last, tick));
        inner.by_use.remove(&old);
        inner.by_use.insert(tick, name.to_string());
        Some(values)
    }

    /// Keeps the values of tier `name` (replacing any held), then drops the
    /// least recently used tables while the budget is exceeded. A table
    /// larger than the whole budget is not kept.
    pub fn insert(&self, name: &str, values: Arc<PackedValues>) {
        let bytes = values.bytes().len() as u64;
        if bytes > self.budget {
            return;
        }
        let mut inner = self.inner.lock().unwrap();
        let tick = inner.next_tick();
        if let Some((old, last)) = inner.tables.insert(name.to_string(), (values, tick)) {
            inner.bytes -= old.bytes().len() as u64;
            inner.by_use.remove(&last);
        }
        inner.by_use.insert(tick, name.to_string());
        inner.bytes += bytes;
        while inner.bytes > self.budget {
            let (_, oldest) = inner.by_use.pop_first().expect("held bytes belong to held tables");
            let (dropped, _) = inner.tables.remove(&oldest).expect("every tick names a held table");
            inner.bytes -= dropped.bytes().len() as u64;
        }
    }

    /// The bytes of values held now.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(bytes: usize) -> Arc<PackedValues> {
        Arc::new(PackedValues::filled(bytes as u64 * 4, 0))
    }

    #[test]
    fn the_least_recently_used_tables_go_first_and_the_budget_holds() {
        let cache = TableCache::new(300);
        cache.insert("a", table(100));
        cache.insert("b", table(100));
        cache.insert("c", table(100));
        assert_eq!(cache.bytes(), 300);
        // "a" used again: "b" is now the oldest.
        assert!(cache.get("a").is_some());
        cache.insert("d", table(100));
        assert!(cache.get("b").is_none());
        assert_eq!(cache.bytes(), 300);
        for name in ["a", "c", "d"] {
            assert!(cache.get(name).is_some(), "{name}");
        }
        // Two tables must go for one of 200 bytes: "a" and "c", the oldest now.
        cache.insert("e", table(200));
        assert!(cache.get("a").is_none() && cache.get("c").is_none());
        assert!(cache.get("d").is_some() && cache.get("e").is_some());
        assert_eq!(cache.bytes(), 300);
        // Replacing a table counts its new size alone.
        cache.insert("d", table(50));
        assert_eq!(cache.bytes(), 250);
    }

    #[test]
    fn a_table_over_the_budget_is_not_kept_and_a_zero_budget_keeps_nothing() {
        let cache = TableCache::new(100);
        cache.insert("a", table(60));
        cache.insert("big", table(101));
        assert!(cache.get("big").is_none());
        assert!(cache.get("a").is_some(), "a table too big to keep drops nothing");
        let none = TableCache::new(0);
        none.insert("a", table(1));
        assert!(none.get("a").is_none());
        assert_eq!(none.bytes(), 0);
    }

    #[test]
    fn a_table_is_shared_not_copied() {
        let cache = TableCache::new(1000);
        let values = table(100);
        cache.insert("a", values.clone());
        assert!(Arc::ptr_eq(&values, &cache.get("a").unwrap()));
    }
}
