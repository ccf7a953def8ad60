//! Decoding a child table's block of 2-bit values into the parent's planes
//! (two foxes: an `n`-row matrix; one fox: a single row).

use super::*;

/// The won and lost planes of one side (0: fox to move, 1: sheep to move)
/// of a canonical sheep set in a child table with two foxes, in that set's
/// coordinates.
#[allow(clippy::too_many_arguments)]
pub(super) fn decode_child<const BMI2: bool>(
    values: &PackedValues,
    base: u64,
    n: usize,
    side: u64,
    symmetric: bool,
    free: Bits,
    won: &mut Rows,
    lost: &mut Rows,
) {
    *won = [0; 32];
    *lost = [0; 32];
    let bytes = values.bytes();
    let mut points = [0u8; 33];
    if symmetric {
        for (k, p) in BitIter(free).enumerate() {
            points[k] = p;
        }
    }
    for h in 1..n {
        let (mut w, mut l) = row_codes::<BMI2>(bytes, base + (h * (h - 1)) as u64, h, side);
        if symmetric {
            // Slots of mirror images hold whatever compressed best (a table
            // read from a file does not mark them unused): keep the stored ones.
            let mut used = 0u32;
            for j in 0..h {
                let foxes = (1u64 << points[h]) | (1u64 << points[j]);
                used |= ((mirror_bits(foxes) >= foxes) as u32) << j;
            }
            w &= used;
            l &= used;
        }
        won[h] = w;
        lost[h] = l;
    }
    // The table holds each placement once (higher point first): add the other half.
    let (mut won_t, mut lost_t) = (*won, *lost);
    transpose_pair(&mut won_t, &mut lost_t, n);
    for (m, t) in [(&mut *won, won_t), (&mut *lost, lost_t)] {
        for (r, x) in m.iter_mut().zip(t).take(n) {
            *r |= x;
        }
        if symmetric {
            fill_mirror::<BMI2>(m, free, n);
        }
    }
}

/// Row `r` of [`decode_child`]'s won and lost planes (the placements with
/// a fox on the `r`-th free point, both halves) of a set that is not its
/// own mirror image: the row's stored slots, then the `r`-th slot of each
/// later row. A capture reads a few rows of a block (one a jump), where
/// decoding the whole block cost `n` rows and two transposes.
pub(super) fn decode_child_row<const BMI2: bool>(
    values: &PackedValues,
    base: u64,
    n: usize,
    side: u64,
    r: usize,
) -> (u32, u32) {
    let (mut won, mut lost) =
        if r > 0 { row_codes::<BMI2>(values.bytes(), base + (r * (r - 1)) as u64, r, side) } else { (0, 0) };
    for j in r + 1..n {
        let code = values.code(base + (j * (j - 1) + 2 * r) as u64 + side);
        won |= ((code == WIN_CODE) as u32) << j;
        lost |= ((code == LOSS_CODE) as u32) << j;
    }
    (won, lost)
}

/// The won and lost rows of one side of a canonical sheep set in a child
/// table with one fox (bit `i`: the fox on the `i`-th free point).
pub(super) fn decode_child_one<const BMI2: bool>(
    values: &PackedValues,
    base: u64,
    n: usize,
    side: u64,
    symmetric: bool,
    free: Bits,
) -> (u32, u32) {
    let (mut w, mut l) = row_codes::<BMI2>(values.bytes(), base, n, side);
    if symmetric {
        // Keep the stored half (see `decode_child`), then mirror it.
        let mut used = 0u32;
        for (j, p) in BitIter(free).enumerate() {
            used |= ((mirror_bits(1 << p) >= 1 << p) as u32) << j;
        }
        w &= used;
        l &= used;
        w |= map_columns::<BMI2>(w, free, true, free);
        l |= map_columns::<BMI2>(l, free, true, free);
    }
    (w, l)
}
