//! Bit operations of the plane kernel: `pdep`/`pext` (BMI2 and a portable
//! twin), 32x32 bit-matrix transposes, and the row and column maps between
//! a block's free points and a child block's.

use super::*;

/// `pdep`/`pext`: BMI2 instructions where the CPU has them, portable loops
/// elsewhere. The kernel is instantiated for both; [`bmi2_available`]
/// picks one per solve.
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
            // `bmi2_available()` found the instruction on this CPU.
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
    transpose_rounds(a, 16, 0x0000_FFFF);
}

/// The swap rounds of a bit-matrix transpose over `c.len()` rows, from
/// swapping `j`-bit blocks (`m`: the low `j` bits of each `2j`-bit group)
/// down to single bits.
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

/// Asks the CPU to bring `x`'s cache line closer ahead of its use: a hint
/// (the sheep phases read other blocks' planes, scattered over the tier).
#[inline(always)]
pub(super) fn prefetch(x: &u32) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and writes nothing; `x` is a valid reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const u32).cast::<i8>())
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
    mirror_bits(1 << p).trailing_zeros() as u8
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

/// The row of a child block's plane (`rows`, in the coordinates of the
/// canonical set with free points `child_free`) for a fox on the parent's
/// point `p`, in the parent's columns (`parent_free`). `mirrored`: the
/// child's sheep set is the mirror image of the canonical one.
#[inline(always)]
pub(super) fn child_row<const BMI2: bool>(
    rows: &[u32],
    child_free: Bits,
    mirrored: bool,
    p: u8,
    parent_free: Bits,
) -> u32 {
    let q = if mirrored { mirror_point(p) } else { p };
    let ic = (child_free & ((1u64 << q) - 1)).count_ones() as usize;
    map_columns::<BMI2>(rows[ic], child_free, mirrored, parent_free)
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
    if BMI2 {
        // The row's slots are contiguous (both sides interleaved, 4 bits per placement).
        let (low_mask, high_mask) = if side == 0 {
            (0x1111_1111_1111_1111u64, 0x2222_2222_2222_2222u64)
        } else {
            (0x4444_4444_4444_4444, 0x8888_8888_8888_8888)
        };
        let first_bit = 2 * first_slot;
        let (x0, x1) = (bits_at(bytes, first_bit), if len > 16 { bits_at(bytes, first_bit + 64) } else { 0 });
        let low = (pext::<BMI2>(x0, low_mask) | pext::<BMI2>(x1, low_mask) << 16) as u32;
        let high = (pext::<BMI2>(x0, high_mask) | pext::<BMI2>(x1, high_mask) << 16) as u32;
        // Codes: 1 win (low bit), 2 loss (high bit), 3 unused (both).
        let row = row_mask(len);
        (low & !high & row, high & !low & row)
    } else {
        let (mut w, mut l) = (0u32, 0u32);
        let mut slot = first_slot + side;
        for j in 0..len {
            let code = (bytes[(slot >> 2) as usize] >> ((slot & 3) * 2)) & 3;
            w |= ((code == WIN_CODE) as u32) << j;
            l |= ((code == LOSS_CODE) as u32) << j;
            slot += 2;
        }
        (w, l)
    }
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
