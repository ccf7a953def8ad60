//! What [`crate::TierTables`] keeps of single reads: whole decompressed
//! blocks, and small pieces of them in slot order.
//!
//! A single value reads one 2-bit code, but a block is decompressed whole
//! (2^18 codes, 64 KiB, about 50 µs). Two caches keep that work:
//!
//! - [`BlockCache`]: recent whole blocks, for probes near a recent one (a
//!   game's next moves, a distance read beside its value). Few fit: 192 MiB
//!   is three thousand blocks.
//! - [`PieceCache`]: the piece of [`PIECE_SLOTS`] codes (512 bytes) around
//!   each slot read, so that probing any of many scattered positions again
//!   decompresses nothing. Probes over a large tablebase touch a block each
//!   (10,000 random positions of the 20-sheep tables and their children's:
//!   more blocks than the block cache holds, so every probe decompressed
//!   again; a piece costs 1/128 of a block).
//!
//! Both are bounded in bytes and drop their oldest entry first.

use crate::table::RawBlock;
use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Arc;

/// Codes a piece holds: a run of tier slots from a multiple of this (within one block).
pub const PIECE_SLOTS: u64 = 2048;

/// [`BlockCache`]'s budget: 192 MiB, three thousand blocks of 2^18 codes.
pub const DEFAULT_BLOCK_CACHE_BYTES: u64 = 192 << 20;

/// [`PieceCache`]'s budget: 64 MiB, about 110,000 pieces with their bookkeeping.
pub const DEFAULT_PIECE_CACHE_BYTES: u64 = 64 << 20;

/// Both caches' budgets by default: 256 MiB.
pub const DEFAULT_READ_CACHE_BYTES: u64 = DEFAULT_BLOCK_CACHE_BYTES + DEFAULT_PIECE_CACHE_BYTES;

/// `bytes` of read caches as (blocks, pieces), three to one as the
/// defaults, each at least one byte.
pub fn split_read_cache(bytes: u64) -> (u64, u64) {
    let blocks = bytes / 4 * 3;
    (blocks.max(1), (bytes - blocks).max(1))
}

/// What a kept piece costs beside its codes, counted against the budget:
/// the allocation's counts, the map's key and value, the queue's key (about).
const PIECE_OVERHEAD_BYTES: u64 = 96;

/// Entries bounded in bytes, the oldest dropped first.
struct Bounded<K, V> {
    budget: u64,
    bytes: u64,
    map: HashMap<K, (V, u64)>,
    order: VecDeque<K>,
}

impl<K: Hash + Eq + Copy, V> Bounded<K, V> {
    fn new(budget: u64) -> Self {
        Bounded { budget, bytes: 0, map: HashMap::new(), order: VecDeque::new() }
    }

    fn get(&self, key: &K) -> Option<&V> {
        self.map.get(key).map(|(v, _)| v)
    }

    /// Keeps `value` (of `bytes`) unless `key` is kept already; at least one entry stays.
    fn insert(&mut self, key: K, value: V, bytes: u64) {
        if self.map.contains_key(&key) {
            return;
        }
        self.bytes += bytes;
        self.map.insert(key, (value, bytes));
        self.order.push_back(key);
        while self.bytes > self.budget && self.order.len() > 1 {
            let old = self.order.pop_front().unwrap();
            if let Some((_, b)) = self.map.remove(&old) {
                self.bytes -= b;
            }
        }
    }
}

/// Which block: tier (`T`, a game's tier key), whether of its plies file
/// (else its table), block number.
pub type BlockKey<T> = (T, bool, usize);

/// Decompressed blocks of single reads.
pub struct BlockCache<T>(Bounded<BlockKey<T>, Arc<RawBlock>>);

impl<T: Hash + Eq + Copy> BlockCache<T> {
    pub fn new(budget: u64) -> BlockCache<T> {
        BlockCache(Bounded::new(budget))
    }

    pub fn get(&self, key: &BlockKey<T>) -> Option<Arc<RawBlock>> {
        self.0.get(key).cloned()
    }

    pub fn insert(&mut self, key: BlockKey<T>, block: Arc<RawBlock>) {
        let bytes = block.bytes.len() as u64;
        self.0.insert(key, block, bytes);
    }
}

/// Pieces of table blocks in slot order, keyed by tier and piece number
/// (tier slot / [`PIECE_SLOTS`]).
pub struct PieceCache<T>(Bounded<(T, u64), Arc<[u8]>>);

impl<T: Hash + Eq + Copy> PieceCache<T> {
    pub fn new(budget: u64) -> PieceCache<T> {
        PieceCache(Bounded::new(budget))
    }

    /// The code of slot `i` of `tier`'s table, if its piece is kept.
    pub fn code(&self, tier: T, i: u64) -> Option<u8> {
        let piece = self.0.get(&(tier, i / PIECE_SLOTS))?;
        let j = i % PIECE_SLOTS;
        Some((piece[(j / 4) as usize] >> ((j % 4) * 2)) & 3)
    }

    /// Keeps the piece of `block` (of `tier`'s table) that holds slot `i`
    /// (nothing where blocks do not split into whole pieces: a table
    /// written with blocks of another size reads through the block cache).
    pub fn remember(&mut self, tier: T, block: &RawBlock, i: u64) {
        if !u64::from(block.block_slots).is_multiple_of(PIECE_SLOTS) {
            return;
        }
        let start = i / PIECE_SLOTS * PIECE_SLOTS;
        let codes = block.slot_codes_in(start, (start + PIECE_SLOTS).min(block.slots().end));
        let bytes = codes.len() as u64 + PIECE_OVERHEAD_BYTES;
        self.0.insert((tier, i / PIECE_SLOTS), codes.into(), bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_drops_the_oldest_entry_first_and_keeps_at_least_one() {
        let mut c: Bounded<u32, u32> = Bounded::new(10);
        c.insert(1, 10, 4);
        c.insert(2, 20, 4);
        c.insert(1, 99, 4); // kept already: unchanged
        assert_eq!((c.get(&1), c.get(&2), c.bytes), (Some(&10), Some(&20), 8));
        c.insert(3, 30, 4);
        assert_eq!((c.get(&1), c.get(&2), c.get(&3), c.bytes), (None, Some(&20), Some(&30), 8));
        c.insert(4, 40, 50);
        assert_eq!((c.get(&2), c.get(&3), c.get(&4), c.bytes), (None, None, Some(&40), 50));
    }
}
