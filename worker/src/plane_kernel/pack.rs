//! Packing the won/lost planes of every block into the tier's 2-bit table.

use super::*;

/// ORs the low `len` (at most 64) bits of `value` into `bytes` from bit `bit` on.
#[inline(always)]
pub(super) fn or_bits(bytes: &mut [u8], bit: u64, value: u64) {
    let at = (bit >> 3) as usize;
    let wide = (value as u128) << (bit & 7);
    if at + 16 <= bytes.len() {
        let window: &mut [u8; 16] = (&mut bytes[at..at + 16]).try_into().expect("sixteen bytes");
        *window = (u128::from_le_bytes(*window) | wide).to_le_bytes();
    } else {
        for (k, b) in bytes[at..].iter_mut().enumerate() {
            *b |= (wide >> (8 * k)) as u8;
        }
    }
}

/// Four bits per placement (fox to move, then sheep to move, 2 bits each)
/// for 16 placements: `fw`, `fl`, `sw`, `sl` their won and lost bits, `unused` all four bits set.
#[inline(always)]
pub(super) fn codes16<const BMI2: bool>(fw: u32, fl: u32, sw: u32, sl: u32, unused: u32) -> u64 {
    let spread = nibble_spread::<BMI2>;
    spread(fw) | spread(fl) << 1 | spread(sw) << 2 | spread(sl) << 3 | (spread(unused) * 0xF)
}

/// The planes as 2-bit values (undecided positions are draws) and counts;
/// `set_bits`: each block's sheep set.
pub(super) fn pack<const BMI2: bool>(
    ctx: &Ctx,
    fox_planes: &[u32],
    sheep_planes: &[u32],
    set_bits: &[Bits],
    size: u64,
) -> (PackedValues, TierStats) {
    let (rows, stride) = (ctx.rows, ctx.stride);
    // Zeros past the last slot, as the other kernels leave them.
    let mut values = PackedValues::filled(size, 0);
    let bytes_per_item = BLOCKS_PER_ITEM * ctx.per_set as usize / 4;
    let counts: Vec<[u64; 4]> = values
        .bytes_mut()
        .par_chunks_mut(bytes_per_item)
        .enumerate()
        .map(|(it, bytes)| {
            // draws, wins, losses, unused
            let mut counts = [0u64; 4];
            let first = it * BLOCKS_PER_ITEM;
            let last = (first + BLOCKS_PER_ITEM).min(ctx.index.sheep_sets as usize);
            for set in first..last {
                let view = SetView::new(set_bits[set]);
                let (f, s) = (&fox_planes[set * stride..], &sheep_planes[set * stride..]);
                let block_slot = (set - first) as u64 * ctx.per_set;
                ctx.for_each_row(&view, |h, first_slot, len, used| {
                    let (fw, fl) = (f[WON * rows + h] & used, f[LOST * rows + h] & used);
                    let (sw, sl) = (s[WON * rows + h] & used, s[LOST * rows + h] & used);
                    let unused = row_mask(len) & !used;
                    let live = used.count_ones() as u64;
                    counts[1] += (fw.count_ones() + sw.count_ones()) as u64;
                    counts[2] += (fl.count_ones() + sl.count_ones()) as u64;
                    counts[3] += 2 * unused.count_ones() as u64;
                    counts[0] += 2 * live - (fw | fl).count_ones() as u64 - (sw | sl).count_ones() as u64;
                    let bit = 2 * (block_slot + first_slot);
                    for part in 0..len.div_ceil(16) {
                        let shift = 16 * part;
                        let codes =
                            codes16::<BMI2>(fw >> shift, fl >> shift, sw >> shift, sl >> shift, unused >> shift);
                        or_bits(bytes, bit + 64 * part as u64, codes);
                    }
                });
            }
            counts
        })
        .collect();
    (values, TierStats::from_code_counts(size, counts))
}
