//! Published values in column order: the stored (odd) slots of a block
//! of a table with [`crate::table::Layout::Published`], grouped by their
//! slot number modulo a period (for the Fox Game a sheep set's slots, so
//! a column is one fox placement with the sheep to move), each column in
//! slot order. Alike fox placements of neighbouring sheep sets have alike
//! values, so the columns compress better than slot order does
//! (docs/results.md, docs/format.md).
//!
//! A block of `n` slots (even) starting at tier slot `start` (a multiple
//! of 4) stores its `n / 2` odd slots' codes first, column by column from
//! column `(start + 1) % period` of the tier, then `n / 2` codes of 0.
//! Reading a block back gives slot order with each even slot a copy of
//! the odd slot after it, as a published block in slot order holds them.
//! The period is even, so each column holds odd slots only.

/// Where each slot of a block in column order finds its code in the
/// stored order: built once per block (a step per column), then one
/// lookup a slot, so a probe reads one code without reordering the block.
#[derive(Clone, Debug)]
pub struct ColumnIndex {
    /// The block's slots.
    n: usize,
    period: usize,
    first_column: usize,
    /// Per odd column: where its codes start in the stored order, less
    /// one for a column before `first_column` (its first tier row of
    /// slots begins before the block).
    base: Vec<isize>,
}

impl ColumnIndex {
    /// The index of a block of `n` slots from tier slot `start`.
    /// Precondition: [`fits`].
    pub fn new(n: usize, start: u64, period: u64) -> ColumnIndex {
        debug_assert!(fits(n, start, period));
        let period = period as usize;
        let first_column = (start % period as u64) as usize;
        let mut base = Vec::with_capacity(period / 2);
        let mut at = 0isize;
        for column in (1..period).step_by(2) {
            // The block's first slot in `column`: odd, as `column` is and `first_column` is not.
            let first = (column + period - first_column) % period;
            let count = if first < n { (n - first - 1) / period + 1 } else { 0 };
            base.push(at - (column < first_column) as isize);
            at += count as isize;
        }
        ColumnIndex { n, period, first_column, base }
    }

    /// The block's slots.
    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The period of the column order.
    pub fn period(&self) -> usize {
        self.period
    }

    /// Where slot `j` of the block (counted in the block) has its code in
    /// the stored order: an even slot the code of the odd slot after it.
    #[inline]
    pub fn stored_at(&self, j: usize) -> usize {
        // Tier row and column of the odd slot, counted from the block's first row.
        let t = (j | 1) + self.first_column;
        (self.base[t % self.period / 2] + (t / self.period) as isize) as usize
    }
}

fn code_at(raw: &[u8], j: usize) -> u8 {
    (raw[j / 4] >> ((j % 4) * 2)) & 3
}

fn put(raw: &mut [u8], j: usize, code: u8) {
    raw[j / 4] |= code << ((j % 4) * 2);
}

/// Whether a block can be stored in column order: an even period and an
/// even number of slots from a start that is a multiple of 4.
pub fn fits(n: usize, start: u64, period: u64) -> bool {
    period >= 2 && period.is_multiple_of(2) && n.is_multiple_of(2) && start.is_multiple_of(4)
}

/// A published block's raw codes in slot order (`raw`, `n` slots) as it is
/// stored in column order. Precondition: [`fits`].
pub fn to_columns(raw: &[u8], n: usize, start: u64, period: u64) -> Vec<u8> {
    let index = ColumnIndex::new(n, start, period);
    let mut out = vec![0u8; raw.len()];
    for j in (1..n).step_by(2) {
        put(&mut out, index.stored_at(j), code_at(raw, j));
    }
    out
}

/// A stored block in column order back in slot order, each even slot a
/// copy of the odd slot after it. Precondition: [`fits`].
pub fn from_columns(stored: &[u8], n: usize, start: u64, period: u64) -> Vec<u8> {
    slot_order(stored, &ColumnIndex::new(n, start, period))
}

/// [`from_columns`] with the block's index built already. (A pass over
/// the block: a probe of a position's plies reads the packed counts from
/// the stored codes instead when both share one column order,
/// [`crate::plies_pack::Block::in_columns`].)
pub fn slot_order(stored: &[u8], index: &ColumnIndex) -> Vec<u8> {
    let mut out = Vec::with_capacity(stored.len());
    SlotOrder::default().append(stored, index, &mut out);
    out
}

/// What turning blocks back into slot order works in, kept from one
/// block to the next by a reader of many blocks (a whole table), so that
/// a block costs no allocation.
#[derive(Default)]
pub struct SlotOrder {
    /// The stored codes, a byte each.
    codes: Vec<u8>,
    /// The block's odd slots' codes in slot order, a byte each.
    odd: Vec<u8>,
}

impl SlotOrder {
    /// Appends to `out` the block `stored` (in column order, `index`) in
    /// slot order, four codes to a byte, each even slot a copy of the odd
    /// slot after it: `stored.len()` bytes.
    pub fn append(&mut self, stored: &[u8], index: &ColumnIndex, out: &mut Vec<u8>) {
        let (n, period) = (index.n, index.period);
        // The stored codes a byte each, then column by column (reading in
        // order) each to its odd slot's place (a byte each, in slot order):
        // no shift, mask or column wrap per code, as a piece needs
        // ([`slot_order_in`]).
        let codes = &mut self.codes;
        codes.resize(stored.len() * 4, 0);
        for (four, &byte) in codes.chunks_exact_mut(4).zip(stored) {
            four.copy_from_slice(&UNPACKED[byte as usize].to_le_bytes());
        }
        // Then the odd slots in slot order, a tier row of the period at a time:
        // odd slot j is in column c = (j + first_column) % period of row
        // r = (j + first_column) / period, whose code is at base[c / 2] + r. Every
        // write goes forward and each column's reads too, where writing each
        // column's slots (a period apart) missed the cache a slot.
        let odd = &mut self.odd;
        // Whole words of 8 below: the padding after the last odd slot is
        // zero, as the upper half of a last byte with one odd slot must be.
        odd.resize((n / 2).next_multiple_of(8), 0);
        odd[n / 2..].fill(0);
        let (first_column, halves) = (index.first_column as isize, period / 2);
        for r in 0..(n + index.first_column).div_ceil(period) {
            // The odd slot of the row's first column (odd, as first_column is even).
            let j0 = (r * period) as isize + 1 - first_column;
            let from = if j0 < 1 { ((1 - j0) / 2) as usize } else { 0 };
            let to = (((n as isize - j0 + 1) / 2).max(0) as usize).min(halves);
            if from >= to {
                continue;
            }
            let k0 = ((j0 - 1) / 2 + from as isize) as usize;
            for (code, &base) in odd[k0..k0 + (to - from)].iter_mut().zip(&index.base[from..to]) {
                *code = codes[(base + r as isize) as usize];
            }
        }
        // Each pair of odd slots' codes a, b is the byte a | a << 2 | b << 4
        // | b << 6 of their four slots: eight codes a word at a time. A code
        // times 5 is its two slots' bits (at most 15, so no carry leaves a
        // byte); each odd byte then moves up a nibble onto the even byte
        // before it, and the even bytes close up.
        let (start, bytes) = (out.len(), stored.len());
        out.resize(start + bytes.max(odd.len() / 2), 0);
        for (four, eight) in out[start..].chunks_exact_mut(4).zip(odd.chunks_exact(8)) {
            let y = u64::from_le_bytes(eight.try_into().unwrap()) * 5;
            let mut t = (y | y >> 4) & 0x00FF_00FF_00FF_00FF;
            t = (t | t >> 8) & 0x0000_FFFF_0000_FFFF;
            t = (t | t >> 16) & 0xFFFF_FFFF;
            four.copy_from_slice(&(t as u32).to_le_bytes());
        }
        // As many bytes as stored: the words' padding off, or zeros after.
        out.resize(start + bytes, 0);
    }
}

/// Per byte of four codes, the codes a byte each (little-endian).
const UNPACKED: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u32;
        table[byte] = (b & 3) | (b >> 2 & 3) << 8 | (b >> 4 & 3) << 16 | (b >> 6 & 3) << 24;
        byte += 1;
    }
    table
};

/// Slots `from..to` of a stored block (`from` a multiple of 4, `to` even,
/// both at most the block's slots) in slot order, four to a byte: one
/// code read per pair of slots, the column and row stepped rather than
/// divided (a probe's cache keeps such pieces, [`crate::read_cache`]).
pub fn slot_order_in(stored: &[u8], index: &ColumnIndex, from: usize, to: usize) -> Vec<u8> {
    assert!(
        from.is_multiple_of(4) && to.is_multiple_of(2) && from <= to && to <= index.n,
        "slots {from}..{to} of {}",
        index.n
    );
    let mut out = vec![0u8; (to - from).div_ceil(4)];
    // Tier column and row (from the block's first row) of odd slot from + 1.
    let t = from + 1 + index.first_column;
    let (mut column, mut row) = (t % index.period, t / index.period);
    for k in (0..to - from).step_by(2) {
        let code = code_at(stored, (index.base[column / 2] + row as isize) as usize);
        // The pair (k, k + 1) shares one byte: k is even, and 4 divides from.
        out[k / 4] |= (code | code << 2) << ((k % 4) * 2);
        column += 2;
        if column >= index.period {
            column -= index.period;
            row += 1;
        }
    }
    out
}

/// The code of slot `j` of a stored block in column order.
#[inline]
pub fn code_in(stored: &[u8], index: &ColumnIndex, j: usize) -> u8 {
    code_at(stored, index.stored_at(j))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Codes of a published block in slot order: even slots copy the odd ones.
    fn published(odd: &[u8]) -> Vec<u8> {
        let mut raw = vec![0u8; (2 * odd.len()).div_ceil(4)];
        for (k, &c) in odd.iter().enumerate() {
            put(&mut raw, 2 * k, c);
            put(&mut raw, 2 * k + 1, c);
        }
        raw
    }

    #[test]
    fn pieces_in_slot_order_are_the_whole_block_s() {
        let mut seed = 7u64;
        for (n, start, period) in [(12usize, 4u64, 6u64), (4096, 1 << 18, 78), (1000, 12, 10), (2, 0, 2)] {
            let odd: Vec<u8> = (0..n / 2)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (seed >> 61) as u8 & 3
                })
                .collect();
            let raw = published(&odd);
            let stored = to_columns(&raw, n, start, period);
            let index = ColumnIndex::new(n, start, period);
            assert_eq!(slot_order(&stored, &index), raw);
            for (from, to) in [(0, n), (4, n), (0, n - 2), (n / 8 * 4, n)].into_iter().filter(|(from, to)| from <= to) {
                let piece = slot_order_in(&stored, &index, from, to);
                let codes: Vec<u8> = (0..to - from).map(|k| code_at(&piece, k)).collect();
                let want: Vec<u8> = (from..to).map(|j| code_at(&raw, j)).collect();
                assert_eq!(codes, want, "{n} {start} {period} {from}..{to}");
            }
        }
    }

    #[test]
    fn columns_group_a_period_s_odd_slots_and_read_back_in_slot_order() {
        // A block of 12 slots from tier slot 4, period 6: odd slots 1, 3, ..., 11
        // are tier slots 5, 7, ..., 15, in columns 5, 1, 3, 5, 1, 3.
        let odd = [1u8, 2, 3, 0, 1, 2];
        let raw = published(&odd);
        let stored = to_columns(&raw, 12, 4, 6);
        let index = ColumnIndex::new(12, 4, 6);
        let at: Vec<usize> = (0..12).map(|j| index.stored_at(j)).collect();
        assert_eq!(at, [4, 4, 0, 0, 2, 2, 5, 5, 1, 1, 3, 3]);
        let codes: Vec<u8> = (0..12).map(|m| code_at(&stored, m)).collect();
        assert_eq!(codes, [2, 1, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(from_columns(&stored, 12, 4, 6), raw);
    }

    /// `count` codes below `below` from the xorshift state `x`.
    fn random_codes(count: usize, below: u64, x: &mut u64) -> Vec<u8> {
        (0..count)
            .map(|_| {
                *x ^= *x << 13;
                *x ^= *x >> 7;
                *x ^= *x << 17;
                (*x % below) as u8
            })
            .collect()
    }

    /// One [`SlotOrder`] turning block after block into one buffer, larger
    /// blocks before smaller (what it keeps from the last must not show)
    /// and an odd number of odd slots (a last byte half padding).
    #[test]
    fn blocks_appended_one_after_another_are_each_block_s_slot_order() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut slot_order = SlotOrder::default();
        let (mut out, mut want) = (Vec::new(), Vec::new());
        for (n, start, period) in
            [(1usize << 12, 1u64 << 18, 78u64), (6, 4, 6), (2 * 1001, 12, 156), (4, 0, 2), (30, 8, 10)]
        {
            let raw = published(&random_codes(n / 2, 4, &mut x));
            let stored = to_columns(&raw, n, start, period);
            slot_order.append(&stored, &ColumnIndex::new(n, start, period), &mut out);
            want.extend_from_slice(&raw);
            assert_eq!(out, want, "n {n} start {start} period {period}");
        }
    }

    #[test]
    fn every_block_and_period_round_trips() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for period in [2u64, 4, 6, 156, 2 * 528] {
            for (n, start) in [(4usize, 0u64), (100, 8), (1 << 12, 1 << 18), (2 * 1000 + 2, 12)] {
                let raw = published(&random_codes(n / 2, 3, &mut x));
                let stored = to_columns(&raw, n, start, period);
                assert!(stored[n / 8 + 1..].iter().all(|&b| b == 0), "the second half is zero");
                assert_eq!(from_columns(&stored, n, start, period), raw, "n {n} start {start} period {period}");
            }
        }
    }
}
