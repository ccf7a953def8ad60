//! Bit operations of the plane kernel: `pdep`/`pext` (BMI2 and a portable
//! twin), 32x32 bit-matrix transposes, and the row and column maps between
//! a block's free points and a child block's.

use super::*;

/// `pdep`/`pext`: BMI2 instructions where the CPU runs them fast, portable
/// loops elsewhere (`foxbase_core::cpu`). The kernel is instantiated for
/// both; [`bmi2_in_use`] picks one per process.
pub(super) mod bitops {
    use foxbase_core::board::Bits;

    /// Deposits the low bits of `x` at the set bits of `mask`, in order.
    #[inline(always)]
    pub fn pdep<const BMI2: bool>(x: Bits, mask: Bits) -> Bits {
        #[cfg(target_arch = "x86_64")]
        if BMI2 {
            let r: u64;
            // SAFETY: `pdep` only reads and writes the registers named here.
            // The kernel is instantiated with BMI2 = true only after
            // `bmi2_in_use()` found the instruction on this CPU (an override
            // never picks it where it is absent).
            unsafe {
                core::arch::asm!("pdep {r}, {x}, {m}", r = lateout(reg) r, x = in(reg) x, m = in(reg) mask,
                    options(pure, nomem, nostack, preserves_flags));
            }
            return r;
        }
        pdep_portable(x, mask)
    }

    /// Gathers the bits of `x` at the set bits of `mask` into the low bits, in order.
    #[inline(always)]
    pub fn pext<const BMI2: bool>(x: Bits, mask: Bits) -> Bits {
        #[cfg(target_arch = "x86_64")]
        if BMI2 {
            let r: u64;
            // SAFETY: as in `pdep`.
            unsafe {
                core::arch::asm!("pext {r}, {x}, {m}", r = lateout(reg) r, x = in(reg) x, m = in(reg) mask,
                    options(pure, nomem, nostack, preserves_flags));
            }
            return r;
        }
        pext_portable(x, mask)
    }

    /// [`pdep`] without BMI2.
    #[inline]
    pub fn pdep_portable(x: Bits, mut mask: Bits) -> Bits {
        let (mut r, mut k) = (0, 1u64);
        while mask != 0 {
            let low = mask & mask.wrapping_neg();
            if x & k != 0 {
                r |= low;
            }
            mask ^= low;
            k <<= 1;
        }
        r
    }

    /// [`pext`] without BMI2.
    #[inline]
    pub fn pext_portable(x: Bits, mut mask: Bits) -> Bits {
        let (mut r, mut k) = (0, 1u64);
        while mask != 0 {
            let low = mask & mask.wrapping_neg();
            if x & low != 0 {
                r |= k;
            }
            mask ^= low;
            k <<= 1;
        }
        r
    }
}

pub(super) use bitops::{pdep, pext};

/// Transposes a 32 x 32 bit matrix (row `i`, bit `j`) in place.
#[inline]
pub fn transpose32(a: &mut Rows) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    sse::transpose32(a);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    transpose_rounds(a, 16, 0x0000_FFFF);
}

/// The swap rounds of a bit-matrix transpose over `c.len()` rows, from
/// swapping `j`-bit blocks (`m`: the low `j` bits of each `2j`-bit group)
/// down to single bits: the definition the SSE2 transposes follow, four
/// rows at a time.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline(always)]
pub(super) fn transpose_rounds(c: &mut [u32], mut j: usize, mut m: u32) {
    while j != 0 {
        let mut k = 0;
        while k < c.len() {
            let t = ((c[k] >> j) ^ c[k + j]) & m;
            c[k + j] ^= t;
            c[k] ^= t << j;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// Transposes two bit matrices of `n` rows and columns at once: when both
/// fit 16 x 16 (the crowded tiers, with 13 free points), as the two halves
/// of one 16-row matrix of `u32`s, one round cheaper and half the rows of
/// [`transpose32`] for both; else each with [`transpose32`]. Rows and
/// columns from `n` on must be clear.
#[inline]
pub fn transpose_pair(a: &mut Rows, b: &mut Rows, n: usize) {
    if n > 16 {
        transpose32(a);
        transpose32(b);
        return;
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    sse::transpose_pair16(a, b);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let mut c = [0u32; 16];
        for (i, x) in c.iter_mut().enumerate() {
            *x = a[i] | b[i] << 16;
        }
        // transpose32's rounds from the 8-bit one on, each mask repeated in both halves.
        transpose_rounds(&mut c, 8, 0x00FF_00FF);
        for (i, x) in c.iter().enumerate() {
            a[i] = x & 0xFFFF;
            b[i] = x >> 16;
        }
    }
}

/// The transposes with SSE2 (every x86-64 CPU has it): [`transpose_rounds`]
/// on four rows a register. A round that swaps rows four or more apart
/// pairs whole registers; the rounds two and one row apart pair lanes of
/// one register, brought together by a lane shuffle. The scalar rounds
/// took about 1,850 instructions for a 32-row transpose, spilling to the
/// stack; these take about 150.
///
/// SAFETY, for every `unsafe` block here that calls only intrinsics: they
/// need SSE2, which this module is compiled only with (`target_feature =
/// "sse2"`, part of every x86-64 target), and they touch no memory.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse {
    use super::Rows;
    use std::arch::x86_64::*;

    /// One swap of `J`-bit blocks between rows `J` apart held in
    /// different registers: `t = ((a >> J) ^ b) & m; b ^= t; a ^= t << J`.
    #[inline(always)]
    fn swap_registers<const J: i32>(a: &mut __m128i, b: &mut __m128i, m: __m128i) {
        // SAFETY: intrinsics only (module doc).
        unsafe {
            let t = _mm_and_si128(_mm_xor_si128(_mm_srli_epi32::<J>(*a), *b), m);
            *b = _mm_xor_si128(*b, t);
            *a = _mm_xor_si128(*a, _mm_slli_epi32::<J>(t));
        }
    }

    /// The round two rows apart within each register (lanes 0 and 2, 1
    /// and 3; `m` holds the mask in lanes 0 and 1 only).
    #[inline(always)]
    fn swap_lanes_2(v: &mut __m128i, m: __m128i) {
        // SAFETY: intrinsics only (module doc).
        unsafe {
            let t = _mm_and_si128(_mm_xor_si128(_mm_srli_epi32::<2>(*v), _mm_shuffle_epi32::<0x4E>(*v)), m);
            *v = _mm_xor_si128(*v, _mm_xor_si128(_mm_slli_epi32::<2>(t), _mm_shuffle_epi32::<0x4E>(t)));
        }
    }

    /// The round one row apart within each register (lanes 0 and 1, 2
    /// and 3; `m` holds the mask in lanes 0 and 2 only).
    #[inline(always)]
    fn swap_lanes_1(v: &mut __m128i, m: __m128i) {
        // SAFETY: intrinsics only (module doc).
        unsafe {
            let t = _mm_and_si128(_mm_xor_si128(_mm_srli_epi32::<1>(*v), _mm_shuffle_epi32::<0xB1>(*v)), m);
            *v = _mm_xor_si128(*v, _mm_xor_si128(_mm_slli_epi32::<1>(t), _mm_shuffle_epi32::<0xB1>(t)));
        }
    }

    /// `x` in every lane.
    #[inline(always)]
    fn splat(x: i32) -> __m128i {
        // SAFETY: intrinsics only (module doc).
        unsafe { _mm_set1_epi32(x) }
    }

    /// The rounds from four rows apart down to one, over registers of
    /// four rows each.
    #[inline(always)]
    fn last_rounds<const R: usize>(v: &mut [__m128i; R]) {
        let m4 = splat(0x0F0F_0F0F);
        for k in (0..R).step_by(2) {
            let (lo, hi) = v.split_at_mut(k + 1);
            swap_registers::<4>(&mut lo[k], &mut hi[0], m4);
        }
        // SAFETY: intrinsics only (module doc).
        let (m2, m1) =
            unsafe { (_mm_set_epi32(0, 0, 0x3333_3333, 0x3333_3333), _mm_set_epi32(0, 0x5555_5555, 0, 0x5555_5555)) };
        for x in v.iter_mut() {
            swap_lanes_2(x, m2);
            swap_lanes_1(x, m1);
        }
    }

    #[inline(always)]
    fn load<const R: usize>(rows: &[u32]) -> [__m128i; R] {
        assert!(rows.len() >= 4 * R);
        // SAFETY: register `i` reads rows `4i..4i + 4`, within `rows` (asserted); unaligned loads.
        std::array::from_fn(|i| unsafe { _mm_loadu_si128(rows.as_ptr().add(4 * i).cast()) })
    }

    #[inline(always)]
    fn store<const R: usize>(v: &[__m128i; R], rows: &mut [u32]) {
        assert!(rows.len() >= 4 * R);
        for (i, x) in v.iter().enumerate() {
            // SAFETY: as in `load`, for writes.
            unsafe { _mm_storeu_si128(rows.as_mut_ptr().add(4 * i).cast(), *x) };
        }
    }

    /// [`super::transpose32`].
    #[inline]
    pub(super) fn transpose32(a: &mut Rows) {
        let mut v = load::<8>(a);
        let (m16, m8) = (splat(0x0000_FFFF), splat(0x00FF_00FF));
        let [v0, v1, v2, v3, v4, v5, v6, v7] = &mut v;
        swap_registers::<16>(v0, v4, m16);
        swap_registers::<16>(v1, v5, m16);
        swap_registers::<16>(v2, v6, m16);
        swap_registers::<16>(v3, v7, m16);
        swap_registers::<8>(v0, v2, m8);
        swap_registers::<8>(v1, v3, m8);
        swap_registers::<8>(v4, v6, m8);
        swap_registers::<8>(v5, v7, m8);
        last_rounds(&mut v);
        store(&v, a);
    }

    /// [`super::transpose_pair`] for 16 rows: `b`'s rows in the high
    /// halves of `a`'s, every round's mask repeated in both halves.
    #[inline]
    pub(super) fn transpose_pair16(a: &mut Rows, b: &mut Rows) {
        let (x, y) = (load::<4>(a), load::<4>(b));
        // SAFETY: intrinsics only (module doc).
        let mut v: [__m128i; 4] = std::array::from_fn(|i| unsafe { _mm_or_si128(x[i], _mm_slli_epi32::<16>(y[i])) });
        let m8 = splat(0x00FF_00FF);
        let [v0, v1, v2, v3] = &mut v;
        swap_registers::<8>(v0, v2, m8);
        swap_registers::<8>(v1, v3, m8);
        last_rounds(&mut v);
        let low = splat(0x0000_FFFF);
        // SAFETY: intrinsics only (module doc).
        let (lows, highs) = unsafe { (v.map(|x| _mm_and_si128(x, low)), v.map(|x| _mm_srli_epi32::<16>(x))) };
        store(&lows, a);
        store(&highs, b);
    }
}

/// Asks the CPU to bring `x`'s cache line closer ahead of its use: a hint
/// (the sheep phases read other blocks' planes, scattered over the tier).
#[inline(always)]
pub(super) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and writes nothing; `x` is a valid reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const T).cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// `BIT[i]` = `1 << i`: a row's bit from a table, which vectorises where
/// a shift by a different amount in each lane would not (SSE has none).
pub(super) const BIT: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = 1 << i;
        i += 1;
    }
    t
};

/// The bits of rows `0..n` (a row of an `n`-point block).
#[inline]
pub(super) fn row_mask(n: usize) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// The point a point's mirror image is.
#[inline]
pub(super) fn mirror_point(p: u8) -> u8 {
    MIRROR_POINT[p as usize]
}

const MIRROR_POINT: [u8; 33] = {
    let mut t = [0u8; 33];
    let mut p = 0;
    while p < 33 {
        t[p] = mirror_bits(1 << p).trailing_zeros() as u8;
        p += 1;
    }
    t
};

/// `pext(x, 0x1111…1 << shift)`: bit `shift` (0 to 3) of each of the 16
/// nibbles of `x`, gathered into the low 16 bits. Without BMI2, four
/// shift-and-mask rounds, each halving the gaps.
#[inline(always)]
pub(super) fn nibble_gather<const BMI2: bool>(x: u64, shift: u32) -> u32 {
    if BMI2 {
        return pext::<BMI2>(x, 0x1111_1111_1111_1111 << shift) as u32;
    }
    let mut x = (x >> shift) & 0x1111_1111_1111_1111;
    x = (x | x >> 3) & 0x0303_0303_0303_0303;
    x = (x | x >> 6) & 0x000F_000F_000F_000F;
    x = (x | x >> 12) & 0x0000_00FF_0000_00FF;
    ((x | x >> 24) & 0xFFFF) as u32
}

/// `pdep(x, 0x1111…1)`: the low 16 bits of `x` spread to bit 0 of each
/// nibble ([`nibble_gather`]'s rounds backwards without BMI2).
#[inline(always)]
pub(super) fn nibble_spread<const BMI2: bool>(x: u32) -> u64 {
    if BMI2 {
        return pdep::<BMI2>((x & 0xFFFF) as u64, 0x1111_1111_1111_1111);
    }
    let mut x = (x & 0xFFFF) as u64;
    x = (x | x << 24) & 0x0000_00FF_0000_00FF;
    x = (x | x << 12) & 0x000F_000F_000F_000F;
    x = (x | x << 6) & 0x0303_0303_0303_0303;
    (x | x << 3) & 0x1111_1111_1111_1111
}

/// A block's mirror permutation: a row over the free points of the mirror
/// image of its set (`mirror_bits(free)`) as a row over its own free
/// points, by one table lookup per four columns. Built for a block that
/// needs it (a few dozen operations) and then used for many rows of
/// mirrored children, where `pdep`, `mirror_bits` and `pext` per row
/// would cost more (and `pdep`/`pext` are slow on some CPUs:
/// `foxbase_core::cpu`).
pub(super) struct MirrorTable {
    /// The free points the table is for (`u64::MAX`: none yet).
    free: Bits,
    nibbles: usize,
    table: [[u32; 16]; 8],
}

impl Default for MirrorTable {
    fn default() -> MirrorTable {
        MirrorTable { free: u64::MAX, nibbles: 0, table: [[0; 16]; 8] }
    }
}

impl MirrorTable {
    /// Makes the table the one of the set with free points `free` (at most 32).
    #[inline]
    pub(super) fn set_free(&mut self, free: Bits) {
        if self.free == free {
            return;
        }
        let n = free.count_ones() as usize;
        debug_assert!(n <= 32, "a row holds at most 32 points");
        let mut single = [0u32; 32];
        for (k, q) in BitIter(mirror_bits(free)).enumerate() {
            single[k] = 1 << (free & ((1u64 << mirror_point(q)) - 1)).count_ones();
        }
        self.nibbles = n.div_ceil(4);
        for (nibble, table) in self.table.iter_mut().enumerate().take(self.nibbles) {
            let single = &single[4 * nibble..4 * nibble + 4];
            for v in 1..16usize {
                table[v] = table[v & (v - 1)] | single[v.trailing_zeros() as usize];
            }
        }
        self.free = free;
    }

    /// `row` (over the mirror image's free points) over the set's own.
    #[inline(always)]
    pub(super) fn apply(&self, row: u32) -> u32 {
        let mut out = 0;
        for (nibble, table) in self.table.iter().enumerate().take(self.nibbles) {
            out |= table[(row >> (4 * nibble)) as usize & 0xF];
        }
        out
    }
}

/// A row over a child block's free points (those of its canonical set) as
/// a row over the parent block's: the child's free points are the
/// parent's (for a child stored mirrored, those of the parent's mirror
/// image) but for at most one point each way (a sheep step frees one
/// point and fills another; a capture frees one), so the columns between
/// the two points move down or up by one and the rest stay: three masks
/// and two shifts, then for a mirrored child the parent's [`MirrorTable`].
/// Where more points differ, [`map_columns`] (`pdep`/`pext`; a test checks
/// that both agree).
#[derive(Clone, Copy)]
pub(super) struct ColumnMap {
    /// The columns that stay where they are.
    keep: u64,
    /// The parent's columns taken from the child's next one up.
    down: u64,
    /// The parent's columns taken from the child's next one down.
    up: u64,
    pub(super) mirrored: bool,
    /// The child's free points (for the row a fox's point is in).
    child_free: Bits,
    /// More than one point differs one way: [`map_columns`] (the parent's free points).
    general: Option<Bits>,
}

impl ColumnMap {
    #[inline(always)]
    pub(super) fn new(child_free: Bits, mirrored: bool, parent_free: Bits) -> ColumnMap {
        let frame = if mirrored { mirror_bits(parent_free) } else { parent_free };
        let (gone, new) = (child_free & !frame, frame & !child_free);
        let mut map = ColumnMap { keep: !0, down: 0, up: 0, mirrored, child_free, general: None };
        if gone.count_ones() > 1 || new.count_ones() > 1 {
            map.general = Some(parent_free);
            return map;
        }
        let below = |p: u32| (1u64 << p) - 1;
        // `a`: the child's column of the point it alone has; `b`: the
        // parent's of the point it alone has (in the frame of `frame`).
        let a = (child_free & below(gone.trailing_zeros())).count_ones();
        let b = (frame & below(new.trailing_zeros())).count_ones();
        (map.keep, map.down, map.up) = match (gone != 0, new != 0) {
            (false, false) => (!0, 0, 0),
            // A column removed: those from `a` on come down.
            (true, false) => (below(a), !below(a), 0),
            // A column inserted at `b`: those above it go up.
            (false, true) => (below(b), 0, !below(b + 1)),
            // The freed point below the filled one: the columns between come down.
            (true, true) if gone < new => (below(a) | !below(b + 1), below(b) & !below(a), 0),
            // Above it: the columns between go up.
            (true, true) => (below(b) | !below(a + 1), 0, below(a + 1) & !below(b + 1)),
        };
        map
    }

    /// `row` (over the child's free points) over the parent's; `mirror`:
    /// the parent's table (read only for a mirrored child).
    #[inline(always)]
    pub(super) fn apply(&self, row: u32, mirror: &MirrorTable) -> u32 {
        if let Some(parent_free) = self.general {
            return map_columns::<false>(row, self.child_free, self.mirrored, parent_free);
        }
        let x = row as u64;
        let x = ((x & self.keep) | ((x >> 1) & self.down) | ((x << 1) & self.up)) as u32;
        if self.mirrored {
            mirror.apply(x)
        } else {
            x
        }
    }

    /// The row of a child block's plane (`rows`, in the child's
    /// coordinates; 32- or 16-bit rows) of a fox on the parent's point
    /// `p`, over the parent's free points.
    #[inline(always)]
    pub(super) fn row<R: Copy + Into<u32>>(&self, rows: &[R], p: u8, mirror: &MirrorTable) -> u32 {
        self.apply(rows[self.child_row(p)].into(), mirror)
    }

    /// The masks of [`ColumnMap::apply`] on a row's first 16 columns (the
    /// columns kept, those taken from the child's next one up, from its
    /// next one down), before a mirrored child's [`MirrorTable`]; `None`
    /// where more than one point differs one way.
    #[inline(always)]
    pub(super) fn one_each_way(&self) -> Option<(u16, u16, u16)> {
        match self.general {
            Some(_) => None,
            None => Some((self.keep as u16, self.down as u16, self.up as u16)),
        }
    }

    /// The child block's row of a fox on the parent's point `p`.
    #[inline(always)]
    pub(super) fn child_row(&self, p: u8) -> usize {
        let q = if self.mirrored { mirror_point(p) } else { p };
        (self.child_free & ((1u64 << q) - 1)).count_ones() as usize
    }
}

/// The points of `free` with no free neighbour, with one and with two.
#[inline]
pub(super) fn neighbour_counts(game: &FoxGame, free: Bits) -> [Bits; 3] {
    // Bit-sliced counters over all points at once: ones, twos, and "three or more".
    let (mut ones, mut twos, mut more) = (0u64, 0u64, 0u64);
    for q in BitIter(free) {
        let near = game.rules.board.neighbours[q as usize];
        let (o, t, m) = (ones, twos, more);
        more = m | (t & near);
        twos = (t & !near) | (o & near);
        ones = (o & !near) | (near & !(o | t | m));
    }
    [free & !(ones | twos | more), free & ones, free & twos]
}

/// `m |= mirror(m)` for a plane of a symmetric sheep set with free points `free`.
pub(super) fn fill_mirror<const BMI2: bool>(m: &mut Rows, free: Bits, n: usize) {
    let src = *m;
    for (i, p) in BitIter(free).enumerate().take(n) {
        let q = mirror_point(p);
        let j = (free & ((1u64 << q) - 1)).count_ones() as usize;
        m[j] |= pext::<BMI2>(mirror_bits(pdep::<BMI2>(src[i] as u64, free)), free) as u32;
    }
}

/// The won and lost bits of `len` consecutive placements of one side (0:
/// fox to move, 1: sheep to move) from the table slot `first_slot` (a fox
/// to move slot) on.
#[inline(always)]
pub(super) fn row_codes<const BMI2: bool>(bytes: &[u8], first_slot: u64, len: usize, side: u64) -> (u32, u32) {
    // The row's slots are contiguous (both sides interleaved, 4 bits per placement).
    let first_bit = 2 * first_slot;
    let (x0, x1) = (bits_at(bytes, first_bit), if len > 16 { bits_at(bytes, first_bit + 64) } else { 0 });
    let (low_bit, high_bit) = (2 * side as u32, 2 * side as u32 + 1);
    let low = nibble_gather::<BMI2>(x0, low_bit) | nibble_gather::<BMI2>(x1, low_bit) << 16;
    let high = nibble_gather::<BMI2>(x0, high_bit) | nibble_gather::<BMI2>(x1, high_bit) << 16;
    // Codes: 1 win (low bit), 2 loss (high bit), 3 unused (both).
    let row = row_mask(len);
    (low & !high & row, high & !low & row)
}

/// A row over the free points `child_free` (of a canonical set) as a row
/// over `parent_free`; `mirrored`: the set the move leads to is the mirror
/// image of the canonical one.
#[inline(always)]
pub(super) fn map_columns<const BMI2: bool>(row: u32, child_free: Bits, mirrored: bool, parent_free: Bits) -> u32 {
    let mut board = pdep::<BMI2>(row as u64, child_free);
    if mirrored {
        board = mirror_bits(board);
    }
    pext::<BMI2>(board, parent_free) as u32
}

/// The 64 bits of `bytes` (little-endian bit order) from bit `bit` on,
/// zeros past the end.
#[inline(always)]
pub(super) fn bits_at(bytes: &[u8], bit: u64) -> u64 {
    let i = (bit >> 3) as usize;
    let mut word = [0u8; 16];
    if i + 16 <= bytes.len() {
        word.copy_from_slice(&bytes[i..i + 16]);
    } else if i < bytes.len() {
        word[..bytes.len() - i].copy_from_slice(&bytes[i..]);
    }
    (u128::from_le_bytes(word) >> (bit & 7)) as u64
}
