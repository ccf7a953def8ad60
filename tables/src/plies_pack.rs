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
//! win and `2h` for a loss. The raw bytes are the members' `h` in *units*
//! of a [`Width`]: 4-bit nibbles, two a byte, the first in the low nibble
//! (an odd count of members leaves the last high nibble 0), or bytes. The
//! largest unit (15, 255) says `h` is at least that, and for each such
//! member, in member order, two bytes little-endian of `h` minus it follow
//! the units. A solve writes nibbles: most counts of a tier are short, so
//! most members take half a byte before compression (on the README's
//! variant 0.54 bit a slot after zstd 3 against 1.30 for a byte a slot);
//! `foxbase publish` writes bytes, which its stronger zstd level
//! compresses better than nibbles (docs/results.md).

use crate::table::Layout;
use crate::value_columns::ColumnIndex;

/// How wide a member's halved count is stored before compression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// 4-bit nibbles, two a byte, the first in the low nibble; 15 escaped.
    /// What a solve writes (at its fast zstd level most counts take half a byte).
    Nibble,
    /// A byte a member; 255 escaped. What `foxbase publish` writes: at its
    /// zstd level whole bytes compress better (docs/results.md).
    Byte,
}

impl Width {
    /// The unit that says "this or more: the rest follows the units".
    #[inline]
    fn escape(self) -> u16 {
        match self {
            Width::Nibble => 15,
            Width::Byte => 255,
        }
    }

    /// Bytes of units for `members` members.
    #[inline]
    fn units_len(self, members: usize) -> usize {
        match self {
            Width::Nibble => members.div_ceil(2),
            Width::Byte => members,
        }
    }

    /// Member `m`'s unit.
    #[inline]
    fn unit_at(self, raw: &[u8], m: usize) -> u16 {
        match self {
            Width::Nibble => ((raw[m / 2] >> ((m % 2) * 4)) & 15) as u16,
            Width::Byte => raw[m] as u16,
        }
    }

    /// Sets member `m`'s unit (`raw` starts zeroed).
    #[inline]
    fn put(self, raw: &mut [u8], m: usize, unit: u16) {
        match self {
            Width::Nibble => raw[m / 2] |= (unit as u8) << ((m % 2) * 4),
            Width::Byte => raw[m] = unit as u8,
        }
    }
}

/// How a packed block lays out its members: the width of a unit, and the
/// order of a group's members. With `period` 1 they are in slot order; with
/// a larger period (a tier's slots per sheep set) in *column order*: slot
/// `i` of the tier is in column `i % period` (its fox placement and side
/// to move), the columns in order, each column's slots in slot order.
/// Neighbouring sheep sets with the foxes alike tend to have alike counts:
/// column order puts them side by side (docs/results.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    pub width: Width,
    pub period: u64,
}

impl Packing {
    /// What a solve writes: nibbles in slot order.
    pub const SOLVED: Packing = Packing { width: Width::Nibble, period: 1 };

    /// What `foxbase publish` writes for a tier of `period` slots a sheep
    /// set: bytes in column order.
    pub fn published(period: u64) -> Packing {
        Packing { width: Width::Byte, period: period.max(1) }
    }
}

/// A block as its packed counts are read: the table's raw codes for its
/// `n` slots (as the table file stores them), the table's layout, the
/// packing, and the column of its first slot.
#[derive(Clone, Copy, Debug)]
pub struct Block<'a> {
    pub codes: &'a [u8],
    pub n: usize,
    pub layout: Layout,
    pub packing: Packing,
    column0: usize,
    /// The values block is stored in column order ([`crate::value_columns`]):
    /// `codes` are its stored codes, and this says where each slot's is.
    stored: Option<&'a ColumnIndex>,
}

impl<'a> Block<'a> {
    /// The block of `n` slots that starts at slot `start` of its tier,
    /// read with its values' codes in slot order.
    pub fn new(codes: &'a [u8], n: usize, layout: Layout, packing: Packing, start: u64) -> Block<'a> {
        assert!(packing.period >= 1, "a packing's period is at least 1");
        Block { codes, n, layout, packing, column0: (start % packing.period) as usize, stored: None }
    }

    /// A published block in column order of `packing.period`, read with
    /// its values as stored in column order of the same period (`stored`,
    /// with the block's [`ColumnIndex`]): the stored codes hold the odd
    /// slots column by column, which is the order of each group's
    /// members, so a member is found without putting the codes back in
    /// slot order. Only [`MemberIndex`] reads such a block.
    pub fn in_columns(stored: &'a [u8], n: usize, packing: Packing, start: u64, index: &'a ColumnIndex) -> Block<'a> {
        assert_eq!(packing.period, index.period() as u64, "the values and the counts share one column order");
        Block { stored: Some(index), ..Block::new(stored, n, Layout::Published, packing, start) }
    }

    /// The period as an index step (column order only).
    #[inline]
    fn period(&self) -> usize {
        self.packing.period as usize
    }

    /// The group slot `k` is a member of, if any (see [`group_masks`]).
    #[inline]
    fn group_of(&self, k: usize) -> Option<usize> {
        let code = (self.codes[k / 4] >> ((k % 4) * 2)) & 3;
        let odd = k % 2;
        if self.layout == Layout::Published && odd == 0 {
            return None;
        }
        match code {
            1 => Some(odd),
            2 => Some(2 + odd),
            _ => None,
        }
    }
}

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

const LOW: u64 = 0x5555_5555_5555_5555;

/// The four groups' slots in a word of raw codes, one bit a slot (slot
/// `k` of the word at bit `2k`): wins on even slots, wins on odd slots,
/// losses on even slots, losses on odd slots; the published layout has no
/// even groups.
#[inline]
fn group_masks(word: u64, layout: Layout) -> [u64; 4] {
    // Even slots are at bits 0, 4, 8, ...; odd slots at 2, 6, 10, ...
    const EVEN: u64 = 0x1111_1111_1111_1111;
    const ODD: u64 = 0x4444_4444_4444_4444;
    let (lo, hi) = (word & LOW, (word >> 1) & LOW);
    let (win, loss) = (lo & !hi, hi & !lo);
    let even = if layout == Layout::Published { 0 } else { EVEN };
    [win & even, win & ODD, loss & even, loss & ODD]
}

/// [`group_masks`] of a word of values stored in column order: every
/// stored code is an odd slot's (groups 1 and 3).
#[inline]
fn stored_masks(word: u64, _: Layout) -> [u64; 4] {
    let (lo, hi) = (word & LOW, (word >> 1) & LOW);
    [0, lo & !hi, 0, hi & !lo]
}

/// Per stretch of [`STRETCH_WORDS`] words of `n` codes, the members of
/// each group in the words before it (`masks` says which), and the sizes
/// of the groups.
fn stretch_counts(
    codes: &[u8],
    n: usize,
    layout: Layout,
    masks: fn(u64, Layout) -> [u64; 4],
) -> (Vec<[u32; 4]>, [u32; 4]) {
    let words = n.div_ceil(WORD_SLOTS);
    let mut before = Vec::with_capacity(words.div_ceil(STRETCH_WORDS));
    let mut sizes = [0u32; 4];
    for w in 0..words {
        if w % STRETCH_WORDS == 0 {
            before.push(sizes);
        }
        let masks = masks(word_at(codes, w, n), layout);
        for g in 0..4 {
            sizes[g] += masks[g].count_ones();
        }
    }
    (before, sizes)
}

/// Calls `f(group, slot)` for every member of a block, group by group in
/// member order.
#[inline]
fn for_each_member(block: &Block, mut f: impl FnMut(usize, usize)) {
    assert!(block.stored.is_none(), "a whole block is packed and unpacked with its codes in slot order");
    let (codes, n, layout) = (block.codes, block.n, block.layout);
    let groups = (0..4).filter(|g| layout == Layout::Solved || g % 2 == 1);
    if block.packing.period > 1 {
        let p = block.period();
        for g in groups {
            for c in 0..p {
                // The first slot of column c: (column0 + k) % p == c.
                let mut k = (c + p - block.column0) % p;
                while k < n {
                    if block.group_of(k) == Some(g) {
                        f(g, k);
                    }
                    k += p;
                }
            }
        }
        return;
    }
    let words = n.div_ceil(WORD_SLOTS);
    for g in groups {
        for w in 0..words {
            let mut mask = group_masks(word_at(codes, w, n), layout)[g];
            while mask != 0 {
                f(g, w * WORD_SLOTS + mask.trailing_zeros() as usize / 2);
                mask &= mask - 1;
            }
        }
    }
}

/// Where each group's members start in member order, and how many members
/// there are (the same in either order).
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

/// The raw bytes of `block`, whose slots' counts `count(k)` gives.
/// Precondition: a member's count has its value's parity (a non-member's is not read).
pub fn pack(count: impl Fn(usize) -> u16, block: &Block) -> Vec<u8> {
    let (_, members) = group_starts(block.codes, block.n, block.layout);
    let width = block.packing.width;
    let mut raw = vec![0u8; width.units_len(members)];
    let mut escapes = Vec::new();
    let mut m = 0;
    let escape = width.escape();
    for_each_member(block, |g, k| {
        let c = count(k);
        debug_assert!(c == 0 || (c % 2 == 1) == (g < 2), "slot {k}: count {c} of the wrong parity");
        let h = c / 2;
        let unit = if h >= escape {
            escapes.extend_from_slice(&(h - escape).to_le_bytes());
            escape
        } else {
            h
        };
        width.put(&mut raw, m, unit);
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
fn halves(raw: &[u8], members: usize, width: Width) -> Result<Vec<u16>, Mismatch> {
    let units = width.units_len(members);
    if raw.len() < units {
        return Err(Mismatch { found: raw.len(), expected: units });
    }
    let escape = width.escape();
    let escaped = (0..members).filter(|&m| width.unit_at(raw, m) == escape).count();
    if raw.len() != units + 2 * escaped {
        return Err(Mismatch { found: raw.len(), expected: units + 2 * escaped });
    }
    let mut rest = raw[units..].chunks_exact(2);
    Ok((0..members)
        .map(|m| match width.unit_at(raw, m) {
            h if h == escape => {
                let two = rest.next().expect("counted above");
                escape + u16::from_le_bytes([two[0], two[1]])
            }
            h => h,
        })
        .collect())
}

/// The count of a member of group `g` halved to `h`.
#[inline]
fn count_of(g: usize, h: u16) -> u16 {
    2 * h + (g < 2) as u16
}

/// Every slot's count of `block` (0 for a slot without one), from its raw bytes.
pub fn unpack(raw: &[u8], block: &Block) -> Result<Vec<u16>, Mismatch> {
    let (_, members) = group_starts(block.codes, block.n, block.layout);
    let halves = halves(raw, members, block.packing.width)?;
    let mut counts = vec![0u16; block.n];
    let mut m = 0;
    for_each_member(block, |g, k| {
        counts[k] = count_of(g, halves[m]);
        m += 1;
    });
    Ok(counts)
}

/// Words of codes per stretch of a [`MemberIndex`].
const STRETCH_WORDS: usize = 64;

/// Rows (a period of slots each) per stretch of a [`MemberIndex`] in column order.
const STRETCH_ROWS: usize = 32;

/// Where group `g` sits among the groups a layout stores (published: the odd ones alone).
#[inline]
fn group_slot(layout: Layout, g: usize) -> usize {
    if layout == Layout::Published {
        g / 2
    } else {
        g
    }
}

/// How many groups a layout stores.
#[inline]
fn stored_groups(layout: Layout) -> usize {
    if layout == Layout::Published {
        2
    } else {
        4
    }
}

/// Members per step of a [`MemberIndex`]'s escape counts.
const ESCAPE_STRIDE: usize = 1024;

/// Where a packed block's members lie, so that one slot's count is found
/// without a pass over the block: per group, in slot order the members in
/// the words of codes before every stretch of `STRETCH_WORDS` (64) words (about
/// 2 KB for a block of 2^18 slots), in column order the members in the
/// columns before each column and, per column, in the rows before every
/// stretch of `STRETCH_ROWS` (32) rows (64 KB for a published block of 2^18
/// slots); and the escaped members before every `ESCAPE_STRIDE` (1,024) members.
/// Built once per block (one pass over its codes and units) and kept with a
/// reader's cached block; a count then costs at most a stretch of popcounts
/// (column order: of code reads, one a row) and a stride of units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberIndex {
    /// The first member of each group.
    starts: [usize; 4],
    /// Slot order: per stretch, the members of each group in the words
    /// before it; likewise over the stored codes of values in column
    /// order ([`Block::in_columns`]).
    before: Vec<[u32; 4]>,
    /// Column order: per group and column (`g * period + c`), the group's
    /// members in the columns before it.
    columns: Vec<u32>,
    /// Column order: per stretch of [`STRETCH_ROWS`] rows after the first
    /// (a row: `period` slots, a sheep set), per group of the layout
    /// ([`group_slot`]) and column, the group's members of the column in
    /// the rows before the stretch.
    rows_before: Vec<u32>,
    /// Per stride of members, the escaped members before it.
    escapes: Vec<u32>,
    /// Bytes of units (the escapes' two bytes each follow them).
    units: usize,
    width: Width,
}

impl MemberIndex {
    /// The index of `block` from its raw bytes; refuses raw bytes whose
    /// length does not fit the codes (as [`unpack`] does).
    pub fn new(raw: &[u8], block: &Block) -> Result<MemberIndex, Mismatch> {
        let (codes, n, layout, width) = (block.codes, block.n, block.layout, block.packing.width);
        let mut before = Vec::new();
        let mut columns = Vec::new();
        let mut rows_before = Vec::new();
        let mut sizes = [0u32; 4];
        if block.stored.is_some() {
            // The stored codes are the odd slots in the groups' member order.
            (before, sizes) = stretch_counts(codes, n / 2, layout, stored_masks);
        } else if block.packing.period > 1 {
            let p = block.period();
            let groups = stored_groups(layout);
            // Per stored group and column, the members so far; a word of
            // codes at a time, members only.
            let mut running = vec![0u32; groups * p];
            // The first slot of the next stretch of rows.
            let stretch_slots = STRETCH_ROWS * p;
            let mut next_stretch = stretch_slots - block.column0;
            // The column of the word's first slot, kept without a division.
            let mut word_column = block.column0;
            for w in 0..n.div_ceil(WORD_SLOTS) {
                let masks = group_masks(word_at(codes, w, n), layout);
                let losses = masks[2] | masks[3];
                let mut members = masks[0] | masks[1] | losses;
                while members != 0 {
                    let bit = members.trailing_zeros() as usize;
                    members &= members - 1;
                    let k = w * WORD_SLOTS + bit / 2;
                    while k >= next_stretch {
                        rows_before.extend_from_slice(&running);
                        next_stretch += stretch_slots;
                    }
                    // Groups: a loss after the wins, an odd slot after an even one.
                    let g = 2 * (losses >> bit & 1) as usize + k % 2;
                    let mut c = word_column + bit / 2;
                    if c >= p {
                        c %= p;
                    }
                    running[group_slot(layout, g) * p + c] += 1;
                }
                word_column += WORD_SLOTS;
                if word_column >= p {
                    word_column %= p;
                }
            }
            while next_stretch < n {
                rows_before.extend_from_slice(&running);
                next_stretch += stretch_slots;
            }
            columns = vec![0u32; 4 * p];
            for g in (0..4).filter(|&g| layout == Layout::Solved || g % 2 == 1) {
                let gs = group_slot(layout, g);
                columns[g * p..(g + 1) * p].copy_from_slice(&running[gs * p..(gs + 1) * p]);
            }
            // Counts to the members before each column, per group.
            for (g, size) in sizes.iter_mut().enumerate() {
                for count in &mut columns[g * p..(g + 1) * p] {
                    let here = *count;
                    *count = *size;
                    *size += here;
                }
            }
        } else {
            (before, sizes) = stretch_counts(codes, n, layout, group_masks);
        }
        let members = sizes.iter().sum::<u32>() as usize;
        let units = width.units_len(members);
        if raw.len() < units {
            return Err(Mismatch { found: raw.len(), expected: units });
        }
        let mut escapes = Vec::with_capacity(members / ESCAPE_STRIDE + 1);
        let mut escaped = 0u32;
        for m in 0..members {
            if m % ESCAPE_STRIDE == 0 {
                escapes.push(escaped);
            }
            escaped += (width.unit_at(raw, m) == width.escape()) as u32;
        }
        if raw.len() != units + 2 * escaped as usize {
            return Err(Mismatch { found: raw.len(), expected: units + 2 * escaped as usize });
        }
        let mut starts = [0usize; 4];
        for g in 1..4 {
            starts[g] = starts[g - 1] + sizes[g - 1] as usize;
        }
        Ok(MemberIndex { starts, before, columns, rows_before, escapes, units, width })
    }

    /// The count of slot `j` (0 for a slot that is no member), from the
    /// raw bytes and the block this index was built from.
    pub fn count(&self, raw: &[u8], block: &Block, j: usize) -> u16 {
        let (codes, n, layout) = (block.codes, block.n, block.layout);
        if let Some(index) = block.stored {
            // An odd slot's place among the stored codes, and its group by its code.
            if j.is_multiple_of(2) {
                return 0;
            }
            let at = index.stored_at(j);
            let g = match (codes[at / 4] >> ((at % 4) * 2)) & 3 {
                1 => 1,
                2 => 3,
                _ => return 0,
            };
            let before = self.before_in_words(codes, n / 2, layout, stored_masks, at, g);
            return self.count_of_member(raw, g, before);
        }
        let Some(g) = block.group_of(j) else {
            return 0;
        };
        let before = if block.packing.period > 1 {
            let p = block.period();
            let (c, row) = ((block.column0 + j) % p, (block.column0 + j) / p);
            // The group's members of the columns before c, of column c in
            // the stretches of rows before j's, then in j's stretch one slot a row.
            let stretch = row / STRETCH_ROWS;
            let mut before = self.columns[g * p + c] as usize;
            let mut k = j % p;
            if stretch > 0 {
                let gs = group_slot(layout, g);
                before += self.rows_before[((stretch - 1) * stored_groups(layout) + gs) * p + c] as usize;
                // The slot of column c in the stretch's first row.
                k = stretch * STRETCH_ROWS * p + c - block.column0;
            }
            while k < j {
                before += (block.group_of(k) == Some(g)) as usize;
                k += p;
            }
            before
        } else {
            self.before_in_words(codes, n, layout, group_masks, j, g)
        };
        self.count_of_member(raw, g, before)
    }

    /// The members of group `g` among the first `k` of `n` codes (`masks`
    /// says which codes are members, as when the index was built).
    #[inline]
    fn before_in_words(
        &self,
        codes: &[u8],
        n: usize,
        layout: Layout,
        masks: fn(u64, Layout) -> [u64; 4],
        k: usize,
        g: usize,
    ) -> usize {
        let (w, bit) = (k / WORD_SLOTS, 2 * (k % WORD_SLOTS));
        let stretch = w / STRETCH_WORDS;
        let mut before = self.before[stretch][g] as usize;
        for v in stretch * STRETCH_WORDS..w {
            before += masks(word_at(codes, v, n), layout)[g].count_ones() as usize;
        }
        before + (masks(word_at(codes, w, n), layout)[g] & ((1u64 << bit) - 1)).count_ones() as usize
    }

    /// The count of the member of group `g` with `before` members of its group before it.
    #[inline]
    fn count_of_member(&self, raw: &[u8], g: usize, before: usize) -> u16 {
        let member = self.starts[g] + before;
        let (width, escape) = (self.width, self.width.escape());
        let h = match width.unit_at(raw, member) {
            h if h == escape => {
                let stride = member / ESCAPE_STRIDE;
                let escaped = self.escapes[stride] as usize
                    + (stride * ESCAPE_STRIDE..member).filter(|&m| width.unit_at(raw, m) == escape).count();
                // In range: `new` checked the length against every escape.
                let at = self.units + 2 * escaped;
                escape + u16::from_le_bytes([raw[at], raw[at + 1]])
            }
            h => h,
        };
        count_of(g, h)
    }
}

/// The most raw bytes a packed block of `n` slots can take (every slot a
/// member with an escaped count).
pub fn max_raw_len(n: u64, width: Width) -> u64 {
    width.units_len(n as usize) as u64 + 2 * n
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

    /// A block of the whole `codes` that starts the tier (slot order unless `packing` says otherwise).
    fn whole<'a>(codes: &'a [u8], n: usize, layout: Layout, packing: Packing) -> Block<'a> {
        Block::new(codes, n, layout, packing, 0)
    }

    const BYTES: Packing = Packing { width: Width::Byte, period: 1 };

    /// A seeded xorshift generator.
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// A count of the right parity for each value's code (0 for a draw),
    /// one in eight large enough to be escaped.
    fn random_counts(values: &[u8], next: &mut impl FnMut() -> u64) -> Vec<u16> {
        values
            .iter()
            .map(|&v| {
                let h = if next().is_multiple_of(8) { (next() % 600) as u16 } else { (next() % 15) as u16 };
                match v {
                    1 => 2 * h + 1,
                    2 => 2 * h,
                    _ => 0,
                }
            })
            .collect()
    }

    #[test]
    fn groups_halves_and_escapes_round_trip() {
        // draw, win 1, loss 2, win 33 (escaped), loss 0, win 3, loss 40 (escaped), draw, win 31 (h = 15, escaped)
        let values = [0u8, 1, 2, 1, 2, 1, 2, 0, 1];
        let counts = [0u16, 1, 2, 33, 0, 3, 40, 0, 31];
        let codes = codes_of(&values);
        let block = whole(&codes, values.len(), Layout::Solved, Packing::SOLVED);
        let raw = pack(|k| counts[k], &block);
        // Members in order: wins even (slot 8: h 15), wins odd (1: 0, 3: 16, 5: 1),
        // losses even (2: 1, 4: 0, 6: 20), losses odd (none): seven nibbles, three escapes.
        assert_eq!(raw, vec![0x0F, 0x1F, 0x01, 0x0F, 0, 0, 1, 0, 5, 0]);
        assert_eq!(unpack(&raw, &block).unwrap(), counts.to_vec());
        let index = MemberIndex::new(&raw, &block).unwrap();
        for (j, &c) in counts.iter().enumerate() {
            assert_eq!(index.count(&raw, &block, j), c, "slot {j}");
        }
        // A byte a member: h 15 and 16 fit, 20 too; nothing escaped.
        let block = whole(&codes, values.len(), Layout::Solved, BYTES);
        let raw = pack(|k| counts[k], &block);
        assert_eq!(raw, vec![15, 0, 16, 1, 1, 0, 20]);
        assert_eq!(unpack(&raw, &block).unwrap(), counts.to_vec());
        // h 300 escapes a byte: 255, then 45 in two bytes.
        let (values, counts) = ([1u8, 2], [601u16, 4]);
        let codes = codes_of(&values);
        let block = whole(&codes, 2, Layout::Solved, BYTES);
        let raw = pack(|k| counts[k], &block);
        assert_eq!(raw, vec![255, 2, 45, 0]);
        assert_eq!(unpack(&raw, &block).unwrap(), counts.to_vec());
    }

    #[test]
    fn column_order_goes_column_by_column() {
        // Period 4 from slot 6 of the tier: slots 0..10 of the block are in
        // columns 2, 3, 0, 1, 2, 3, 0, 1, 2, 3. Odd slots only (published):
        // wins on slots 1 (column 3), 3 (1), 5 (3), 7 (1); a loss on 9 (3).
        let values = [0u8, 1, 0, 1, 0, 1, 0, 1, 0, 2];
        let counts = [0u16, 3, 0, 5, 0, 7, 0, 9, 0, 12];
        let codes = codes_of(&values);
        let block = Block::new(&codes, values.len(), Layout::Published, Packing::published(4), 6);
        let raw = pack(|k| counts[k], &block);
        // Wins: column 1 (slots 3, 7: h 2, 4), column 3 (slots 1, 5: h 1, 3); then the loss (h 6).
        assert_eq!(raw, vec![2, 4, 1, 3, 6]);
        assert_eq!(unpack(&raw, &block).unwrap(), counts.to_vec());
        let index = MemberIndex::new(&raw, &block).unwrap();
        for (j, &c) in counts.iter().enumerate() {
            assert_eq!(index.count(&raw, &block, j), c, "slot {j}");
        }
    }

    #[test]
    fn one_slot_reads_as_the_whole_block_does() {
        // Random blocks of random lengths, both layouts, every packing, escapes included.
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for round in 0..200 {
            // Every tenth block long enough for several stretches and escape strides of the index.
            let n = if round % 10 == 0 { 2_000 + (next() % 10_000) as usize } else { 1 + (next() % 300) as usize };
            let values: Vec<u8> = (0..n).map(|_| (next() % 4) as u8 % 3).collect();
            let counts = random_counts(&values, &mut next);
            let codes = codes_of(&values);
            let (period, start) = (1 + next() % 40, 4 * (next() % 1000));
            let packings = [Packing::SOLVED, BYTES, Packing::published(period), Packing::published(2 * period)];
            for layout in [Layout::Solved, Layout::Published] {
                for packing in packings {
                    let block = Block::new(&codes, n, layout, packing, start);
                    let raw = pack(|k| counts[k], &block);
                    let all = unpack(&raw, &block).unwrap();
                    let index = MemberIndex::new(&raw, &block).unwrap();
                    for (j, &count) in all.iter().enumerate() {
                        assert_eq!(index.count(&raw, &block, j), count, "round {round}, slot {j}, {packing:?}");
                        let stored = layout == Layout::Solved || j % 2 == 1;
                        let expected = if stored { counts[j] } else { 0 };
                        assert_eq!(count, expected, "round {round}, slot {j}, {packing:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn values_stored_in_columns_read_counts_as_slot_order_does() {
        // Published blocks (each even slot's code a copy of the odd slot's
        // after it) whose values are stored in column order: every slot's
        // count through the stored codes equals the whole block's, escapes
        // and several stretches included.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for round in 0..60 {
            let n = 2 * if round % 6 == 0 { 2_000 + (next() % 20_000) as usize } else { 1 + (next() % 200) as usize };
            let odd: Vec<u8> = (0..n / 2).map(|_| (next() % 4) as u8 % 3).collect();
            let values: Vec<u8> = (0..n).map(|k| odd[k / 2]).collect();
            let counts = random_counts(&values, &mut next);
            let codes = codes_of(&values);
            let (period, start) = (2 * (1 + next() % 300), 4 * (next() % 1000));
            let packing = Packing::published(period);
            let block = Block::new(&codes, n, Layout::Published, packing, start);
            let raw = pack(|k| counts[k], &block);
            let all = unpack(&raw, &block).unwrap();
            let stored = crate::value_columns::to_columns(&codes, n, start, period);
            let columns = ColumnIndex::new(n, start, period);
            let in_columns = Block::in_columns(&stored, n, packing, start, &columns);
            let index = MemberIndex::new(&raw, &in_columns).unwrap();
            for (j, &count) in all.iter().enumerate() {
                assert_eq!(index.count(&raw, &in_columns, j), count, "round {round}, slot {j}, period {period}");
            }
            // A length that does not fit is refused as with slot order.
            assert!(raw.is_empty() || MemberIndex::new(&raw[..raw.len() - 1], &in_columns).is_err());
        }
    }

    #[test]
    fn published_blocks_hold_odd_slots_only() {
        let values = [1u8, 1, 2, 2, 1, 0];
        let counts = [5u16, 7, 4, 6, 1, 0];
        let codes = codes_of(&values);
        let block = whole(&codes, values.len(), Layout::Published, Packing::SOLVED);
        let raw = pack(|k| counts[k], &block);
        assert_eq!(raw, vec![0x33]);
        assert_eq!(unpack(&raw, &block).unwrap(), vec![0, 7, 0, 6, 0, 0]);
        assert!(max_raw_len(6, Width::Nibble) >= raw.len() as u64);
        let block = whole(&codes, values.len(), Layout::Published, BYTES);
        let raw = pack(|k| counts[k], &block);
        assert_eq!(raw, vec![3, 3]);
        assert!(max_raw_len(6, Width::Byte) >= raw.len() as u64);
    }

    #[test]
    fn a_block_of_the_wrong_length_is_refused() {
        let values = [1u8, 2, 1];
        let codes = codes_of(&values);
        let block = whole(&codes, 3, Layout::Solved, Packing::SOLVED);
        let raw = pack(|k| if values[k] == 1 { 31 } else { 30 }, &block);
        assert_eq!(unpack(&raw[..raw.len() - 1], &block), Err(Mismatch { found: 7, expected: 8 }));
        assert_eq!(unpack(&[], &block), Err(Mismatch { found: 0, expected: 2 }));
        let index = |raw: &[u8]| MemberIndex::new(raw, &block).map(|_| ());
        assert_eq!(index(&raw[..raw.len() - 1]), Err(Mismatch { found: 7, expected: 8 }));
        assert_eq!(index(&[]), Err(Mismatch { found: 0, expected: 2 }));
    }
}
