//! Streams of 2-bit codes cut into blocks of 2^18 codes, each compressed
//! alone with zstd as a table file stores it (16 index bytes a block
//! counted): the measure of the layout examples (`layouts`, `implied_values`).

/// Codes a block.
const BLOCK: usize = 1 << 18;

/// Bits that `codes`, four to a byte, take in blocks compressed at `level`.
pub fn compressed_bits(codes: &[u8], level: i32) -> u64 {
    let block_bytes = |block: &[u8]| {
        let mut raw = vec![0u8; block.len().div_ceil(4)];
        for (j, &c) in block.iter().enumerate() {
            raw[j / 4] |= c << ((j % 4) * 2);
        }
        zstd::bulk::compress(&raw, level).unwrap().len() as u64 + 16
    };
    codes.chunks(BLOCK).map(block_bytes).sum::<u64>() * 8
}

/// [`compressed_bits`] with each block's codes in column order: grouped by
/// their index modulo `period` (a sheep set's fox placements), each group in
/// slot order, as `foxbase publish` orders DTZ counts (docs/format.md).
pub fn compressed_bits_by_columns(codes: &[u8], period: usize, level: i32) -> u64 {
    let mut order = Vec::with_capacity(BLOCK);
    codes
        .chunks(BLOCK)
        .enumerate()
        .map(|(b, chunk)| {
            order.clear();
            order.extend(0..chunk.len());
            order.sort_by_key(|&j| ((b * BLOCK + j) % period, j));
            let reordered: Vec<u8> = order.iter().map(|&j| chunk[j]).collect();
            compressed_bits(&reordered, level)
        })
        .sum()
}
