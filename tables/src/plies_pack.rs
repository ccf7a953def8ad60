//! Packed plies blocks: how a plies file of rounded distances to zeroing
//! ([`crate::plies::Distance::packs`]) stores a block's counts beside the
//! table that holds the block's values (docs/format.md, "Packed plies").
//!
//! A block of `n` slots is read with the raw codes of the same `n` slots
//! *as the table file stores them* (`codes`, four to a byte, lowest bits
//! first: a file's unused slots hold a don't-care code, and the writer
//! sees exactly what a reader will). Its *members* are the slots whose code
//! is a win or a loss, in four groups, each in slot order: wins on even
//! slots, wins on odd slots, losses on even slots, losses on odd slots
//! ([`Layout::Published`] leaves out the even groups: a reader derives a
//! fox-to-move count by one move). Draws need no count, and splitting by
//! value and side puts alike counts together.
//!
//! A member's count has the parity of its value (a win odd, a loss even),
//! so it is stored halved, `h = count / 2`, and read back as `2h + 1` for a
//! win and `2h` for a loss. The raw bytes are the members' `h` as 4-bit
//! nibbles, two a byte, the first in the low nibble (an odd count of
//! members leaves the last high nibble 0); a nibble of 15 says `h >= 15`,
//! and for each such member, in member order, two bytes little-endian of
//! `h - 15` follow the nibbles. Most counts of a tier are short, so most
//! members take half a byte before compression (on the README's variant
//! 0.54 bit a slot after zstd against 1.30 for a byte a slot; docs/results.md).

use crate::table::Layout;

/// The nibble that says "15 or more: the rest follows the nibbles".
const ESCAPE: u8 = 15;

/// Slots a word of raw codes holds.
const WORD_SLOTS: usize = 32;

/// Word `w` of raw codes (slots `32w..32w + 32`), slots at and past `n` cleared.
#[inline]
fn word_at(codes: &[u8], w: usize, n: usize) -> u64 {
    let start = w * 8;
    let mut bytes = [0u8; 8];
    let end = (start + 8).min(codes.len()).min(n.div_ceil(4));
    bytes[..end - start].copy_from_slice(&codes[start..end]);
    let word = u64::from_le_bytes(bytes);
    let left = n - w * WORD_SLOTS;
    if left >= WORD_SLOTS {
        word
    } else {
        word & ((1u64 << (2 * left)) - 1)
    }
}

/// The four groups' slots in a word of raw codes, one bit a slot (slot
/// `k` of the word at bit `2k`): wins on even slots, wins on odd slots,
/// losses on even slots, losses on odd slots; the published layout has no
/// even groups.
#[inline]
fn group_masks(word: u64, layout: Layout) -> [u64; 4] {
    const LOW: u64 = 0x5555_5555_5555_5555;
    // Even slots are at bits 0, 4, 8, ...; odd slots at 2, 6, 10, ...
    const EVEN: u64 = 0x1111_1111_1111_1111;
    const ODD: u64 = 0x4444_4444_4444_4444;
    let (lo, hi) = (word & LOW, (word >> 1) & LOW);
    let (win, loss) = (lo & !hi, hi & !lo);
    let even = if layout == Layout::Published { 0 } else { EVEN };
    [win & even, win & ODD, loss & even, loss & ODD]
}

/// Calls `f(group, slot)` for every member of a block of `n` slots, group
/// by group in member order.
#[inline]
fn for_each_member(codes: &[u8], n: usize, layout: Layout, mut f: impl FnMut(usize, usize)) {
    let words = n.div_ceil(WORD_SLOTS);
    for g in 0..4 {
        if layout == Layout::Published && g % 2 == 0 {
            continue;
        }
        for w in 0..words {
            let mut mask = group_masks(word_at(codes, w, n), layout)[g];
            while mask != 0 {
                f(g, w * WORD_SLOTS + mask.trailing_zeros() as usize / 2);
                mask &= mask - 1;
            }
        }
    }
}

/// Where each group's members start in member order, and how many members there are.
fn group_starts(codes: &[u8], n: usize, layout: Layout) -> ([usize; 4], usize) {
    let mut sizes = [0usize; 4];
    for w in 0..n.div_ceil(WORD_SLOTS) {
        let masks = group_masks(word_at(codes, w, n), layout);
        for g in 0..4 {
            sizes[g] += masks[g].count_ones() as usize;
        }
    }
    let mut starts = [0usize; 4];
    let mut total = 0;
    for g in 0..4 {
        starts[g] = total;
        total += sizes[g];
    }
    (starts, total)
}

/// The raw bytes of a block of `n` slots whose counts `count(k)` gives,
/// with the table's raw codes `codes` for the same slots.
/// Precondition: a member's count has its value's parity (a non-member's is not read).
pub fn pack(count: impl Fn(usize) -> u16, codes: &[u8], n: usize, layout: Layout) -> Vec<u8> {
    let (_, members) = group_starts(codes, n, layout);
    let mut raw = vec![0u8; members.div_ceil(2)];
    let mut escapes = Vec::new();
    let mut m = 0;
    for_each_member(codes, n, layout, |g, k| {
        let c = count(k);
        debug_assert!(c == 0 || (c % 2 == 1) == (g < 2), "slot {k}: count {c} of the wrong parity");
        let h = c / 2;
        let nibble = if h >= ESCAPE as u16 {
            escapes.extend_from_slice(&(h - ESCAPE as u16).to_le_bytes());
            ESCAPE
        } else {
            h as u8
        };
        raw[m / 2] |= nibble << ((m % 2) * 4);
        m += 1;
    });
    raw.extend_from_slice(&escapes);
    raw
}

/// Why a packed block does not fit its table's codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub found: usize,
    pub expected: usize,
}

/// The members' halved counts of a block, checked against its length.
fn halves(raw: &[u8], members: usize) -> Result<Vec<u16>, Mismatch> {
    let nibbles = members.div_ceil(2);
    if raw.len() < nibbles {
        return Err(Mismatch { found: raw.len(), expected: nibbles });
    }
    let escaped = (0..members).filter(|&m| (raw[m / 2] >> ((m % 2) * 4)) & 15 == ESCAPE).count();
    if raw.len() != nibbles + 2 * escaped {
        return Err(Mismatch { found: raw.len(), expected: nibbles + 2 * escaped });
    }
    let mut rest = raw[nibbles..].chunks_exact(2);
    Ok((0..members)
        .map(|m| match (raw[m / 2] >> ((m % 2) * 4)) & 15 {
            ESCAPE => {
                let two = rest.next().expect("counted above");
                ESCAPE as u16 + u16::from_le_bytes([two[0], two[1]])
            }
            h => h as u16,
        })
        .collect())
}

/// The count of a member of group `g` halved to `h`.
#[inline]
fn count_of(g: usize, h: u16) -> u16 {
    2 * h + (g < 2) as u16
}

/// Every slot's count of a block of `n` slots (0 for a slot without one),
/// from its raw bytes and the table's raw codes for the same slots.
pub fn unpack(raw: &[u8], codes: &[u8], n: usize, layout: Layout) -> Result<Vec<u16>, Mismatch> {
    let (_, members) = group_starts(codes, n, layout);
    let halves = halves(raw, members)?;
    let mut counts = vec![0u16; n];
    let mut m = 0;
    for_each_member(codes, n, layout, |g, k| {
        counts[k] = count_of(g, halves[m]);
        m += 1;
    });
    Ok(counts)
}

/// Words of codes per stretch of a [`MemberIndex`].
const STRETCH_WORDS: usize = 64;

/// Members per step of a [`MemberIndex`]'s escape counts.
const ESCAPE_STRIDE: usize = 1024;

/// Where a packed block's members lie, so that one slot's count is found
/// without a pass over the block: per group, the
/// members in the words of codes before every stretch of
/// [`STRETCH_WORDS`] words, and the escaped members before every
/// [`ESCAPE_STRIDE`] members. Built once per block (one pass over its codes
/// and nibbles) and kept with a reader's cached block; a count then
/// costs at most a stretch of popcounts and a stride of nibbles. About
/// 2 KB for a block of 2^18 slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberIndex {
    /// The first member of each group.
    starts: [usize; 4],
    /// Per stretch, the members of each group in the words before it.
    before: Vec<[u32; 4]>,
    /// Per stride of members, the escaped members before it.
    escapes: Vec<u32>,
    /// Bytes of nibbles (the escapes' two bytes each follow them).
    nibbles: usize,
}

impl MemberIndex {
    /// The index of a block of `n` slots from its raw bytes and its table's
    /// raw codes; refuses raw bytes whose length does not fit the codes
    /// (as [`unpack`] does).
    pub fn new(raw: &[u8], codes: &[u8], n: usize, layout: Layout) -> Result<MemberIndex, Mismatch> {
        let words = n.div_ceil(WORD_SLOTS);
        let mut before = Vec::with_capacity(words.div_ceil(STRETCH_WORDS));
        let mut sizes = [0u32; 4];
        for w in 0..words {
            if w % STRETCH_WORDS == 0 {
                before.push(sizes);
            }
            let masks = group_masks(word_at(codes, w, n), layout);
            for g in 0..4 {
                sizes[g] += masks[g].count_ones();
            }
        }
        let members = sizes.iter().sum::<u32>() as usize;
        let nibbles = members.div_ceil(2);
        if raw.len() < nibbles {
            return Err(Mismatch { found: raw.len(), expected: nibbles });
        }
        let mut escapes = Vec::with_capacity(members / ESCAPE_STRIDE + 1);
        let mut escaped = 0u32;
        for m in 0..members {
            if m % ESCAPE_STRIDE == 0 {
                escapes.push(escaped);
            }
            escaped += (nibble_at(raw, m) == ESCAPE) as u32;
        }
        if raw.len() != nibbles + 2 * escaped as usize {
            return Err(Mismatch { found: raw.len(), expected: nibbles + 2 * escaped as usize });
        }
        let mut starts = [0usize; 4];
        for g in 1..4 {
            starts[g] = starts[g - 1] + sizes[g - 1] as usize;
        }
        Ok(MemberIndex { starts, before, escapes, nibbles })
    }

    /// The count of slot `j` (0 for a slot that is no member), from the
    /// raw bytes and codes this index was built from.
    pub fn count(&self, raw: &[u8], codes: &[u8], n: usize, layout: Layout, j: usize) -> u16 {
        let (w, bit) = (j / WORD_SLOTS, 2 * (j % WORD_SLOTS));
        let masks = group_masks(word_at(codes, w, n), layout);
        let Some(g) = (0..4).find(|&g| masks[g] >> bit & 1 != 0) else {
            return 0;
        };
        let stretch = w / STRETCH_WORDS;
        let mut before = self.before[stretch][g] as usize;
        for v in stretch * STRETCH_WORDS..w {
            before += group_masks(word_at(codes, v, n), layout)[g].count_ones() as usize;
        }
        before += (masks[g] & ((1u64 << bit) - 1)).count_ones() as usize;
        let member = self.starts[g] + before;
        let h = match nibble_at(raw, member) {
            ESCAPE => {
                let stride = member / ESCAPE_STRIDE;
                let escaped = self.escapes[stride] as usize
                    + (stride * ESCAPE_STRIDE..member).filter(|&m| nibble_at(raw, m) == ESCAPE).count();
                // In range: `new` checked the length against every escape.
                let at = self.nibbles + 2 * escaped;
                ESCAPE as u16 + u16::from_le_bytes([raw[at], raw[at + 1]])
            }
            h => h as u16,
        };
        count_of(g, h)
    }
}

/// Member `m`'s nibble.
#[inline]
fn nibble_at(raw: &[u8], m: usize) -> u8 {
    (raw[m / 2] >> ((m % 2) * 4)) & 15
}

/// The most raw bytes a packed block of `n` slots can take (every slot a
/// member with an escaped count).
pub fn max_raw_len(n: u64) -> u64 {
    n.div_ceil(2) + 2 * n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes_of(values: &[u8]) -> Vec<u8> {
        let mut codes = vec![0u8; values.len().div_ceil(4)];
        for (k, &v) in values.iter().enumerate() {
            codes[k / 4] |= v << ((k % 4) * 2);
        }
        codes
    }

    #[test]
    fn groups_halves_and_escapes_round_trip() {
        // draw, win 1, loss 2, win 33 (escaped), loss 0, win 3, loss 40 (escaped), draw, win 31 (h = 15, escaped)
        let values = [0u8, 1, 2, 1, 2, 1, 2, 0, 1];
        let counts = [0u16, 1, 2, 33, 0, 3, 40, 0, 31];
        let codes = codes_of(&values);
        let raw = pack(|k| counts[k], &codes, values.len(), Layout::Solved);
        // Members in order: wins even (slot 8: h 15), wins odd (1: 0, 3: 16, 5: 1),
        // losses even (2: 1, 4: 0, 6: 20), losses odd (none): seven nibbles, three escapes.
        assert_eq!(raw, vec![0x0F, 0x1F, 0x01, 0x0F, 0, 0, 1, 0, 5, 0]);
        assert_eq!(unpack(&raw, &codes, values.len(), Layout::Solved).unwrap(), counts.to_vec());
        let index = MemberIndex::new(&raw, &codes, values.len(), Layout::Solved).unwrap();
        for (j, &c) in counts.iter().enumerate() {
            assert_eq!(index.count(&raw, &codes, values.len(), Layout::Solved, j), c, "slot {j}");
        }
    }

    #[test]
    fn one_slot_reads_as_the_whole_block_does() {
        // Random blocks of random lengths, both layouts, escapes included.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..200 {
            // Every tenth block long enough for several stretches and escape strides of the index.
            let n = if round % 10 == 0 { 2_000 + (next() % 10_000) as usize } else { 1 + (next() % 300) as usize };
            let values: Vec<u8> = (0..n).map(|_| (next() % 4) as u8 % 3).collect();
            let counts: Vec<u16> = values
                .iter()
                .map(|&v| {
                    let h = if next() % 8 == 0 { (next() % 600) as u16 } else { (next() % 15) as u16 };
                    match v {
                        1 => 2 * h + 1,
                        2 => 2 * h,
                        _ => 0,
                    }
                })
                .collect();
            let codes = codes_of(&values);
            for layout in [Layout::Solved, Layout::Published] {
                let raw = pack(|k| counts[k], &codes, n, layout);
                let all = unpack(&raw, &codes, n, layout).unwrap();
                let index = MemberIndex::new(&raw, &codes, n, layout).unwrap();
                for (j, &count) in all.iter().enumerate() {
                    assert_eq!(index.count(&raw, &codes, n, layout, j), count, "round {round}, slot {j}");
                }
            }
        }
    }

    #[test]
    fn published_blocks_hold_odd_slots_only() {
        let values = [1u8, 1, 2, 2, 1, 0];
        let counts = [5u16, 7, 4, 6, 1, 0];
        let codes = codes_of(&values);
        let raw = pack(|k| counts[k], &codes, values.len(), Layout::Published);
        assert_eq!(raw, vec![0x33]);
        assert_eq!(unpack(&raw, &codes, values.len(), Layout::Published).unwrap(), vec![0, 7, 0, 6, 0, 0]);
        assert!(max_raw_len(6) >= raw.len() as u64);
    }

    #[test]
    fn a_block_of_the_wrong_length_is_refused() {
        let values = [1u8, 2, 1];
        let codes = codes_of(&values);
        let raw = pack(|k| if values[k] == 1 { 31 } else { 30 }, &codes, 3, Layout::Solved);
        assert_eq!(unpack(&raw[..raw.len() - 1], &codes, 3, Layout::Solved), Err(Mismatch { found: 7, expected: 8 }));
        assert_eq!(unpack(&[], &codes, 3, Layout::Solved), Err(Mismatch { found: 0, expected: 2 }));
        let index = |raw: &[u8]| MemberIndex::new(raw, &codes, 3, Layout::Solved).map(|_| ());
        assert_eq!(index(&raw[..raw.len() - 1]), Err(Mismatch { found: 7, expected: 8 }));
        assert_eq!(index(&[]), Err(Mismatch { found: 0, expected: 2 }));
    }
}
