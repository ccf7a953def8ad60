//! Tier table files, format version 2 (specified in docs/format.md): a fixed
//! header, a JSON description, independently zstd-compressed blocks of 2-bit
//! values, and a block index with a CRC32 per block.
//!
//! Writing is durable ([`crate::durable`]), so a crash leaves the old file
//! or the new one. Reading goes through a [`ByteSource`] (a local file, or
//! an object in a store), and reads only what it needs: header and block
//! index when opened, then the blocks asked for. Reading checks
//! every length against the file before allocating, so a corrupt or hostile
//! file gives an error, never a panic or an unbounded allocation.

use crate::error::{io_error, ErrorKind, TableError};
use crate::packed::{PackedValues, UNUSED};
use crate::plies::Plies;
use crate::plies_pack::{Block, Packing, Width};
use crate::source::{ByteSource, FileSource};
use rayon::prelude::*;
use serde_json::json;
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"FOXBTBL\0";
pub const FORMAT_VERSION: u32 = 2;
/// How the 2-bit codes map to values.
pub const ENCODING: &str = "2bit: 0 draw, 1 win, 2 loss (3 never stored); side to move";
/// Size of the fixed header.
pub const FIXED_HEADER: usize = 64;
/// Bytes per index entry: offset u64, stored length u32, CRC32 u32.
pub const INDEX_ENTRY: usize = 16;
/// Slots per block unless told otherwise: 64 KiB of raw codes.
pub const DEFAULT_BLOCK_SLOTS: u32 = 1 << 18;
/// zstd level for blocks (docs/format.md has the measurements behind it).
pub const ZSTD_LEVEL: i32 = 3;
/// Largest JSON description accepted when reading.
const MAX_JSON: u32 = 1 << 16;
/// Largest block accepted when reading: 16 MiB of raw codes.
const MAX_BLOCK_SLOTS: u32 = 1 << 26;
/// Largest tier accepted when reading: the ranking holds 32-bit offsets, so
/// no tier has more slots, and a whole table is at most 1 GiB of codes.
const MAX_SLOTS: u64 = 1 << 32;
/// Codec ids.
pub const CODEC_STORED: u32 = 0;
pub const CODEC_ZSTD: u32 = 1;
/// Header flag: even slots hold no stored value (see [`Layout::Published`]).
pub const FLAG_EVEN_DERIVED: u32 = 1;
/// zstd level of published tables (docs/format.md has the measurements behind it).
pub const PUBLISH_ZSTD_LEVEL: i32 = 15;
/// zstd level of published plies files: the tables' (19 made the kernel
/// benchmark's DTZ files 1.5 % smaller, slower to write; docs/results.md).
pub const PUBLISH_PLIES_ZSTD_LEVEL: i32 = PUBLISH_ZSTD_LEVEL;
/// Header flag: the slots hold plies to the end, one byte each (a plies file).
pub const FLAG_PLIES_U8: u32 = 2;
/// Header flag: the slots hold plies to the end, two bytes each, little-endian.
pub const FLAG_PLIES_U16: u32 = 4;
/// Header flag: the slots hold plies packed beside the table's values,
/// only the won and lost slots' counts, halved, in 4-bit nibbles
/// ([`crate::plies_pack`]): the plies files of rounded distances to zeroing.
pub const FLAG_PLIES_PACKED: u32 = 8;
/// Header flag: as [`FLAG_PLIES_PACKED`], a byte a count, in column order
/// with the period the JSON's `period` gives (published plies files).
pub const FLAG_PLIES_PACKED_BYTES: u32 = 16;
/// Header flag: a published table's stored values in column order with
/// the period the JSON's `period` gives ([`crate::value_columns`]).
pub const FLAG_VALUES_COLUMNS: u32 = 32;
/// The header flags that say what a plies file holds (at most one is set).
const PLIES_FLAGS: u32 = FLAG_PLIES_U8 | FLAG_PLIES_U16 | FLAG_PLIES_PACKED | FLAG_PLIES_PACKED_BYTES;
/// How the plies of a plies file are written.
pub const PLIES_ENCODING: &str = "plies of a won or lost position, side to move (to the end or to zeroing: the \
     manifest's distance); 0 for a draw, an unused slot or a game over";
/// How the counts of a packed plies file ([`Contents::PliesPacked`],
/// distances to zeroing) are written.
pub const PACKED_PLIES_ENCODING: &str =
    "plies to zeroing of a won or lost position, side to move, halved and packed with the table's values";

/// What a table file's slots hold: 2-bit values (a table, `.fxt`) or
/// plies to the end (a plies file, `.fxp`), by header flags 1 and 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contents {
    Values,
    /// One byte a slot: every plies count of the tier is below 256.
    Plies8,
    /// Two bytes a slot, little-endian.
    Plies16,
    /// Won and lost slots only, halved, packed with the table's values as
    /// the packing says ([`crate::plies_pack`]): a block's raw length
    /// depends on its values.
    PliesPacked(Packing),
}

impl Contents {
    /// Raw bytes of `slots` slots.
    pub fn raw_len(self, slots: u64) -> u64 {
        match self {
            Contents::Values => slots.div_ceil(4),
            Contents::Plies8 => slots,
            Contents::Plies16 => slots * 2,
            Contents::PliesPacked(packing) => crate::plies_pack::max_raw_len(slots, packing.width),
        }
    }

    /// Whether every block of `slots` slots has exactly [`Contents::raw_len`]
    /// raw bytes (else that is the most it can have).
    fn raw_len_is_exact(self) -> bool {
        !matches!(self, Contents::PliesPacked(_))
    }

    fn flags(self) -> u32 {
        match self {
            Contents::Values => 0,
            Contents::Plies8 => FLAG_PLIES_U8,
            Contents::Plies16 => FLAG_PLIES_U16,
            Contents::PliesPacked(packing) => match packing.width {
                Width::Nibble => FLAG_PLIES_PACKED,
                Width::Byte => FLAG_PLIES_PACKED_BYTES,
            },
        }
    }
}

/// Which slots of a table hold stored values: the one name of the stored
/// layout, in table headers (flag bit 0) and in manifests (`"layout"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// Every slot holds its value: what a solve writes, and what a solve
    /// can read back as child tables.
    #[default]
    Solved,
    /// Written by `foxbase publish`: even slots hold a copy of the next odd
    /// slot's code instead of their own value, and a reader derives an even
    /// slot's value by one move from stored odd slots. For the Fox Game even
    /// slots are fox to move, odd slots sheep to move, and every fox move
    /// leads to a sheep-to-move position, so one move always reaches stored
    /// values. The copy costs almost nothing after compression, which
    /// roughly halves the size (docs/format.md).
    Published,
}

impl Layout {
    /// Whether a plies file written in `file` layout with `contents` belongs
    /// in a tablebase of this layout: the same layout, or, in a solved
    /// tablebase, a packed DTZ file that stores the odd slots' counts alone
    /// (what a Fox Game solve writes: the sheep-to-move counts; a reader
    /// derives a fox-to-move count by one fox move, as it derives a
    /// published table's values; docs/format.md, "Packed plies").
    pub fn holds_plies(self, file: Layout, contents: Contents) -> bool {
        file == self
            || (self == Layout::Solved && file == Layout::Published && matches!(contents, Contents::PliesPacked(_)))
    }

    /// The name manifests use: `solved` or `published`.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Solved => "solved",
            Layout::Published => "published",
        }
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One block of a file as read: its raw bytes, and where it lies.
#[derive(Clone, Debug)]
pub struct RawBlock {
    pub block: usize,
    pub block_slots: u32,
    /// The raw bytes as stored: for a table in column order, in that order
    /// ([`RawBlock::code`] and [`RawBlock::slot_codes`] read slot order).
    pub bytes: Vec<u8>,
    /// A table block in column order: where each slot's code is.
    columns: Option<crate::value_columns::ColumnIndex>,
    /// Such a block's codes in slot order, made on first need (a packed
    /// plies block is read beside its values in slot order).
    slot_order: std::sync::OnceLock<Vec<u8>>,
    /// A packed plies block's member index, built on its first count
    /// ([`TableFile::plies_in`]), so that a reader that keeps the block
    /// reads every further count without a pass over the block.
    members: std::sync::OnceLock<Result<crate::plies_pack::MemberIndex, crate::plies_pack::Mismatch>>,
}

impl RawBlock {
    /// The 2-bit code of slot `i` of a table (which this block holds).
    pub fn code(&self, i: u64) -> u8 {
        let j = i - self.block as u64 * self.block_slots as u64;
        match &self.columns {
            Some(index) => crate::value_columns::code_in(&self.bytes, index, j as usize),
            None => (self.bytes[(j / 4) as usize] >> ((j % 4) * 2)) & 3,
        }
    }

    /// The tier slot this block starts at, and the one after its last
    /// (for a table not in column order, rounded up to whole bytes).
    pub fn slots(&self) -> std::ops::Range<u64> {
        let start = self.block as u64 * self.block_slots as u64;
        let n = match &self.columns {
            Some(index) => index.len() as u64,
            None => self.bytes.len() as u64 * 4,
        };
        start..start + n
    }

    /// The codes of tier slots `from..to` (in [`RawBlock::slots`], `from`
    /// at a multiple of 4 from the block's start) in slot order, four to a byte.
    pub fn slot_codes_in(&self, from: u64, to: u64) -> Vec<u8> {
        let slots = self.slots();
        assert!(slots.start <= from && from <= to && to <= slots.end, "{from}..{to} is not in block {slots:?}");
        let (from, to) = ((from - slots.start) as usize, (to - slots.start) as usize);
        match &self.columns {
            Some(index) => crate::value_columns::slot_order_in(&self.bytes, index, from, to),
            None => {
                assert!(from.is_multiple_of(4), "a piece from slot {from} of a block");
                self.bytes[from / 4..to.div_ceil(4)].to_vec()
            }
        }
    }

    /// A table block's codes in slot order, four to a byte.
    pub fn slot_codes(&self) -> &[u8] {
        match &self.columns {
            Some(index) => self.slot_order.get_or_init(|| crate::value_columns::slot_order(&self.bytes, index)),
            None => &self.bytes,
        }
    }
}

/// What a table file says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableHeader {
    pub game: String,
    pub variant: String,
    pub tier: String,
    pub slots: u64,
}

/// One block's place in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockEntry {
    pub offset: u64,
    pub stored_len: u32,
    /// CRC32 of the block's raw (uncompressed) bytes.
    pub crc32: u32,
}

/// An opened table file: header and block index read and checked, blocks not yet read.
pub struct TableFile {
    pub header: TableHeader,
    pub block_slots: u32,
    pub codec: u32,
    pub layout: Layout,
    pub contents: Contents,
    /// A published table's column order ([`crate::value_columns`]; 1:
    /// slot order). Blocks are read back in slot order either way.
    pub values_period: u64,
    pub blocks: Vec<BlockEntry>,
    pub file_len: u64,
    source: Box<dyn ByteSource>,
}

impl std::fmt::Debug for TableFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableFile")
            .field("name", &self.source.name())
            .field("header", &self.header)
            .field("layout", &self.layout)
            .field("blocks", &self.blocks.len())
            .finish()
    }
}

/// Raw bytes of block `b` of a table whose every slot is stored:
/// `raw_block_with(values, block_slots, b, Layout::Solved)`.
pub fn raw_block(values: &PackedValues, block_slots: u32, b: u64) -> Vec<u8> {
    raw_block_with(values, block_slots, b, Layout::Solved)
}

/// [`Layout::Published`]'s raw byte of four stored codes (two pairs, each
/// written as its odd slot's code, an unused one as the code written
/// before it), and the code it ends with, by the code written before it
/// (never [`UNUSED`]) and the stored byte.
static PUBLISHED_PAIRS: [[(u8, u8); 256]; 4] = {
    let mut table = [[(0u8, 0u8); 256]; 4];
    let mut last = 0;
    while last < 4 {
        let mut byte = 0;
        while byte < 256 {
            let mut first = (byte >> 2) as u8 & 3;
            if first == UNUSED {
                first = last as u8;
            }
            let mut second = (byte >> 6) as u8 & 3;
            if second == UNUSED {
                second = first;
            }
            table[last][byte] = (first | first << 2 | second << 4 | second << 6, second);
            byte += 1;
        }
        last += 1;
    }
    table
};

/// Raw bytes of block `b`: its codes, four to a byte, lowest bits first.
/// Unused slots take the code of the stored slot before them (a don't-care
/// that lengthens runs). With [`Layout::Published`] an even slot takes
/// the code the next odd slot is written with. Storing the two sides apart
/// was measured and compresses worse (docs/format.md).
pub fn raw_block_with(values: &PackedValues, block_slots: u32, b: u64, layout: Layout) -> Vec<u8> {
    let start = b * block_slots as u64;
    let n = (start + block_slots as u64).min(values.len()) - start;
    let mut raw = vec![0u8; n.div_ceil(4) as usize];
    let mut last = 0u8;
    let put = |raw: &mut [u8], j: u64, code: u8| raw[(j / 4) as usize] |= code << ((j % 4) * 2);
    match layout {
        Layout::Solved => {
            // Eight bytes at a time where they hold no unused code (most
            // do): copied as they are. `start` is a multiple of 4 slots.
            let bytes = &values.bytes()[(start / 4) as usize..];
            let mut j = 0u64;
            while j + 32 <= n {
                let at = (j / 4) as usize;
                let word = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"));
                if word & (word >> 1) & 0x5555_5555_5555_5555 == 0 {
                    raw[at..at + 8].copy_from_slice(&word.to_le_bytes());
                    last = (word >> 62) as u8;
                    j += 32;
                    continue;
                }
                for k in j..j + 32 {
                    let mut code = values.code(start + k);
                    if code == UNUSED {
                        code = last;
                    }
                    last = code;
                    put(&mut raw, k, code);
                }
                j += 32;
            }
            for k in j..n {
                let mut code = values.code(start + k);
                if code == UNUSED {
                    code = last;
                }
                last = code;
                put(&mut raw, k, code);
            }
        }
        Layout::Published => {
            // Blocks hold a multiple of 4 slots, so start is even and pairs
            // (even, odd) never straddle two blocks. Whole bytes (two
            // pairs) through a table, the tail pair by pair.
            let bytes = &values.bytes()[(start / 4) as usize..];
            let whole = (n / 4) as usize;
            for (out, &byte) in raw[..whole].iter_mut().zip(&bytes[..whole]) {
                (*out, last) = PUBLISHED_PAIRS[last as usize][byte as usize];
            }
            for j in (4 * whole as u64..n).step_by(2) {
                let mut code = if j + 1 < n { values.code(start + j + 1) } else { last };
                if code == UNUSED {
                    code = last;
                }
                last = code;
                put(&mut raw, j, code);
                if j + 1 < n {
                    put(&mut raw, j + 1, code);
                }
            }
        }
    }
    raw
}

thread_local! {
    /// One zstd context per thread and level: setting one up allocates and
    /// clears its tables, which cost more than compressing one of a small
    /// tier's blocks.
    static COMPRESSOR: std::cell::RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
        const { std::cell::RefCell::new(None) };
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// One zstd frame of `raw` at `level`, with this thread's context. The
/// bytes are those of `zstd::bulk::compress` (same level, no dictionary).
fn compress_block(raw: &[u8], level: i32) -> Vec<u8> {
    COMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|(l, _)| *l != level) {
            *slot = Some((level, zstd::bulk::Compressor::new(level).expect("a zstd compression context")));
        }
        let (_, c) = slot.as_mut().expect("set just above");
        c.compress(raw).expect("zstd compression of a memory buffer")
    })
}

/// Decompresses one zstd frame of at most `raw_len` bytes with this thread's context.
fn decompress_block(stored: &[u8], raw_len: usize) -> std::io::Result<Vec<u8>> {
    DECOMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(zstd::bulk::Decompressor::new()?);
        }
        slot.as_mut().expect("set just above").decompress(stored, raw_len)
    })
}

/// The bytes of a table file, as pieces at offsets, and the file's length.
/// With a `period` above 1 the table is published in column order
/// ([`crate::value_columns`]; `layout` must be [`Layout::Published`]).
fn encode(
    header: &TableHeader,
    values: &PackedValues,
    block_slots: u32,
    level: i32,
    layout: Layout,
    period: u64,
) -> (Vec<Vec<u8>>, u64) {
    assert_eq!(header.slots, values.len(), "header and values disagree on the slot count");
    if period > 1 {
        assert!(layout == Layout::Published, "only published values go in column order");
    }
    encode_body(header, Contents::Values, block_slots, level, layout, period, &|b| {
        let raw = raw_block_with(values, block_slots, b, layout);
        if period > 1 {
            let start = b * block_slots as u64;
            let n = ((start + block_slots as u64).min(values.len()) - start) as usize;
            assert!(crate::value_columns::fits(n, start, period), "column order needs even slots and period");
            crate::value_columns::to_columns(&raw, n, start, period)
        } else {
            raw
        }
    })
}

/// The bytes of a plies file (see [`crate::plies`]), as pieces at offsets,
/// and the file's length: packed beside `packed_with`, the tier's values,
/// as its packing says when given ([`crate::plies_pack`]; the table is
/// written with blocks of the same [`DEFAULT_BLOCK_SLOTS`] and `layout`),
/// else a byte or two a slot.
fn encode_plies(
    header: &TableHeader,
    plies: &Plies,
    packed_with: Option<(&PackedValues, Packing)>,
    level: i32,
    layout: Layout,
) -> (Vec<Vec<u8>>, u64) {
    assert_eq!(header.slots, plies.len(), "header and plies disagree on the slot count");
    let block_slots = DEFAULT_BLOCK_SLOTS;
    match packed_with {
        Some((values, packing)) => {
            assert_eq!(values.len(), plies.len(), "values and plies disagree on the slot count");
            // Nibbles come in slot order only (flag bit 3 has no period).
            assert!(packing.width == Width::Byte || packing.period == 1, "nibbles are packed in slot order");
            encode_body(header, Contents::PliesPacked(packing), block_slots, level, layout, 1, &|b| {
                // The codes the table file holds for these slots, don't-care fills included.
                let codes = raw_block_with(values, block_slots, b, layout);
                let start = b * block_slots as u64;
                let n = (start + block_slots as u64).min(plies.len()) - start;
                let block = Block::new(&codes, n as usize, layout, packing, start);
                crate::plies_pack::pack(|k| plies.get(start + k as u64), &block)
            })
        }
        None => {
            let contents = plies.contents();
            encode_body(header, contents, block_slots, level, layout, 1, &|b| {
                plies.raw_block(block_slots, b, contents, layout)
            })
        }
    }
}

/// The file around blocks whose raw bytes `raw_block(b)` gives (for
/// values in column order, `values_period` above 1, as stored).
#[allow(clippy::too_many_arguments)]
fn encode_body(
    header: &TableHeader,
    contents: Contents,
    block_slots: u32,
    level: i32,
    layout: Layout,
    values_period: u64,
    raw_block: &(dyn Fn(u64) -> Vec<u8> + Sync),
) -> (Vec<Vec<u8>>, u64) {
    assert!(block_slots > 0 && block_slots.is_multiple_of(4), "block size must be a positive multiple of 4");
    let block_count = header.slots.div_ceil(block_slots as u64);
    let blocks: Vec<(Vec<u8>, u32)> = (0..block_count)
        .into_par_iter()
        .map(|b| {
            let raw = raw_block(b);
            let crc = crc32fast::hash(&raw);
            (compress_block(&raw, level), crc)
        })
        .collect();
    assemble(header, contents, block_slots, CODEC_ZSTD, layout, values_period, blocks)
}

/// The file around stored blocks: each as written (compressed with
/// `codec`) with the CRC32 of its raw bytes (values in column order:
/// `values_period` above 1).
fn assemble(
    header: &TableHeader,
    contents: Contents,
    block_slots: u32,
    codec: u32,
    layout: Layout,
    values_period: u64,
    blocks: Vec<(Vec<u8>, u32)>,
) -> (Vec<Vec<u8>>, u64) {
    debug_assert_eq!(blocks.len() as u64, header.slots.div_ceil(block_slots as u64));
    let block_count = blocks.len() as u64;
    let encoding = match contents {
        Contents::Values => ENCODING,
        Contents::PliesPacked(_) => PACKED_PLIES_ENCODING,
        Contents::Plies8 | Contents::Plies16 => PLIES_ENCODING,
    };
    let mut json = json!({"game": header.game, "variant": header.variant, "tier": header.tier, "encoding": encoding});
    if let Contents::PliesPacked(Packing { width: Width::Byte, period }) = contents {
        json["period"] = json!(period);
    }
    if values_period > 1 {
        json["period"] = json!(values_period);
    }
    let json = json.to_string();
    let mut offset = (FIXED_HEADER + json.len()) as u64;
    let mut index = Vec::with_capacity(blocks.len() * INDEX_ENTRY + 4);
    for (bytes, crc) in &blocks {
        index.extend_from_slice(&offset.to_le_bytes());
        index.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        index.extend_from_slice(&crc.to_le_bytes());
        offset += bytes.len() as u64;
    }
    let index_offset = offset;
    let index_crc = crc32fast::hash(&index);
    index.extend_from_slice(&index_crc.to_le_bytes());
    let mut head = Vec::with_capacity(FIXED_HEADER + json.len());
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    head.extend_from_slice(&(json.len() as u32).to_le_bytes());
    head.extend_from_slice(&header.slots.to_le_bytes());
    head.extend_from_slice(&block_slots.to_le_bytes());
    head.extend_from_slice(&(block_count as u32).to_le_bytes());
    head.extend_from_slice(&codec.to_le_bytes());
    let flags = match layout {
        Layout::Solved => 0,
        Layout::Published => FLAG_EVEN_DERIVED,
    } | contents.flags()
        | if values_period > 1 { FLAG_VALUES_COLUMNS } else { 0 };
    head.extend_from_slice(&flags.to_le_bytes());
    head.extend_from_slice(&index_offset.to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    crc.update(json.as_bytes());
    head.extend_from_slice(&crc.finalize().to_le_bytes());
    head.resize(FIXED_HEADER, 0);
    head.extend_from_slice(json.as_bytes());
    let file_len = index_offset + index.len() as u64;
    let mut pieces = vec![head];
    pieces.extend(blocks.into_iter().map(|(b, _)| b));
    pieces.push(index);
    (pieces, file_len)
}

/// Writes a plies file durably (see [`crate::plies`]), packed beside the
/// tier's values `packed_with` in nibbles when given
/// ([`crate::plies::Distance::packs`] says when); returns the CRC32 of the
/// whole file and its length.
pub fn write_plies(
    path: &Path,
    header: &TableHeader,
    plies: &Plies,
    packed_with: Option<&PackedValues>,
    level: i32,
    layout: Layout,
) -> Result<(u32, u64), TableError> {
    write_plies_with(path, header, plies, packed_with.map(|v| (v, Packing::SOLVED)), level, layout)
}

/// [`write_plies`] with a chosen packing of the counts. Published plies
/// files use [`Layout::Published`], [`Packing::published`] and
/// [`PUBLISH_PLIES_ZSTD_LEVEL`].
pub fn write_plies_with(
    path: &Path,
    header: &TableHeader,
    plies: &Plies,
    packed_with: Option<(&PackedValues, Packing)>,
    level: i32,
    layout: Layout,
) -> Result<(u32, u64), TableError> {
    write_encoded(path, encode_plies(header, plies, packed_with, level, layout))
}

/// [`write_plies`] for an upload, as [`write_table_upload`] writes a table.
pub fn write_plies_upload(
    path: &Path,
    header: &TableHeader,
    plies: &Plies,
    packed_with: Option<&PackedValues>,
    layout: Layout,
    sync: bool,
) -> Result<(u32, u64), TableError> {
    let packed_with = packed_with.map(|v| (v, Packing::SOLVED));
    let (pieces, file_len) = encode_plies(header, plies, packed_with, ZSTD_LEVEL, layout);
    let (placed, crc) = place(&pieces, file_len);
    crate::durable::write_pieces_unnamed(path, &placed, sync).map_err(io_error(path.display().to_string()))?;
    Ok((crc, file_len))
}

/// Writes a table file durably; returns the CRC32 of the whole file and its length.
pub fn write_table(path: &Path, header: &TableHeader, values: &PackedValues) -> Result<(u32, u64), TableError> {
    write_table_with(path, header, values, DEFAULT_BLOCK_SLOTS, ZSTD_LEVEL)
}

/// [`write_table`] with a chosen block size and zstd level (for measurements).
pub fn write_table_with(
    path: &Path,
    header: &TableHeader,
    values: &PackedValues,
    block_slots: u32,
    level: i32,
) -> Result<(u32, u64), TableError> {
    write_table_layout(path, header, values, block_slots, level, Layout::Solved)
}

/// [`write_table_with`] with a chosen slot layout, in slot order;
/// published tables use [`write_table_columns`].
pub fn write_table_layout(
    path: &Path,
    header: &TableHeader,
    values: &PackedValues,
    block_slots: u32,
    level: i32,
    layout: Layout,
) -> Result<(u32, u64), TableError> {
    write_encoded(path, encode(header, values, block_slots, level, layout, 1))
}

/// A published table ([`Layout::Published`], at [`PUBLISH_ZSTD_LEVEL`]
/// when published) with its stored values in column order of `period`
/// ([`crate::value_columns`]; 1: slot order). Precondition for a period
/// above 1: it is even, and so is the slot count.
pub fn write_table_columns(
    path: &Path,
    header: &TableHeader,
    values: &PackedValues,
    block_slots: u32,
    level: i32,
    period: u64,
) -> Result<(u32, u64), TableError> {
    write_encoded(path, encode(header, values, block_slots, level, Layout::Published, period))
}

/// What `foxbase publish` writes for a Fox Game tier: [`write_table_columns`]
/// in column order of `period` or in slot order, whichever file is
/// smaller. Column order pays where a sheep set has few slots (one fox);
/// with two foxes a set's own slots are often alike already, and slot
/// order can be smaller (docs/results.md). Precondition as
/// [`write_table_columns`].
pub fn write_published_table(
    path: &Path,
    header: &TableHeader,
    values: &PackedValues,
    block_slots: u32,
    level: i32,
    period: u64,
) -> Result<(u32, u64), TableError> {
    let rows = encode(header, values, block_slots, level, Layout::Published, 1);
    if period == 1 {
        return write_encoded(path, rows);
    }
    let columns = encode(header, values, block_slots, level, Layout::Published, period);
    write_encoded(path, if columns.1 < rows.1 { columns } else { rows })
}

/// Writes an encoded file (its pieces and length) durably; returns its CRC32 and length.
fn write_encoded(path: &Path, (pieces, file_len): (Vec<Vec<u8>>, u64)) -> Result<(u32, u64), TableError> {
    let (placed, crc) = place(&pieces, file_len);
    crate::durable::write_pieces(path, &placed).map_err(io_error(path.display().to_string()))?;
    Ok((crc, file_len))
}

/// The pieces of a file at their offsets, and the CRC32 of the whole file.
fn place(pieces: &[Vec<u8>], file_len: u64) -> (Vec<(u64, &[u8])>, u32) {
    let mut crc = crc32fast::Hasher::new();
    let mut at = 0u64;
    let mut placed = Vec::with_capacity(pieces.len());
    for p in pieces {
        crc.update(p);
        placed.push((at, p.as_slice()));
        at += p.len() as u64;
    }
    debug_assert_eq!(at, file_len);
    (placed, crc.finalize())
}

/// [`write_table`] for an upload: written at `path` itself and fsync'd,
/// without the temporary name and rename (see
/// [`crate::durable::write_pieces_unnamed`]: the coordinator checks an
/// upload before renaming it into place).
/// With `sync` false the file is not fsync'd (see `write_pieces_unnamed`).
pub fn write_table_upload(
    path: &Path,
    header: &TableHeader,
    values: &PackedValues,
    sync: bool,
) -> Result<(u32, u64), TableError> {
    let (pieces, file_len) = encode(header, values, DEFAULT_BLOCK_SLOTS, ZSTD_LEVEL, Layout::Solved, 1);
    let (placed, crc) = place(&pieces, file_len);
    crate::durable::write_pieces_unnamed(path, &placed, sync).map_err(io_error(path.display().to_string()))?;
    Ok((crc, file_len))
}

/// A scratch table (not synced): `values`' codes exactly as they are,
/// the unused slots' codes included (a solved table stores a neighbour's
/// code there instead), at zstd level 1. A pass that sets a tier aside
/// and reads it back ([`crate::tier_walk`]'s spill) gets the very bytes
/// it wrote. Returns the file's length.
pub fn write_table_scratch(path: &Path, header: &TableHeader, values: &PackedValues) -> Result<u64, TableError> {
    assert_eq!(header.slots, values.len(), "header and values disagree on the slot count");
    let block_slots = DEFAULT_BLOCK_SLOTS;
    let (pieces, file_len) = encode_body(header, Contents::Values, block_slots, 1, Layout::Solved, 1, &|b| {
        let start = (b * block_slots as u64 / 4) as usize;
        let end = (((b + 1) * block_slots as u64).min(values.len())).div_ceil(4) as usize;
        values.bytes()[start..end].to_vec()
    });
    let (placed, _) = place(&pieces, file_len);
    crate::durable::write_pieces_unnamed(path, &placed, false).map_err(io_error(path.display().to_string()))?;
    Ok(file_len)
}

/// Writes at `to` a copy of the table or plies file `from` whose header
/// names the variant `variant` instead of its own, with the same blocks,
/// copied as they are stored (neither decompressed nor compressed again);
/// returns the new file's CRC32 and length. For a table solved under a
/// variant that differs from `variant` only where no table depends on it
/// (`TierGame::play_only_variant_keys`): the copy is then the file a solve
/// under `variant` writes, byte for byte.
///
/// `from` must have the CRC32 `expect_crc` (its manifest's), or nothing is
/// written. The copy is written under a temporary name and renamed, not
/// synced: the caller syncs the filesystem before anything refers to it
/// durably (as a local solve does before journaling a tier).
pub fn relabel(from: &Path, expect_crc: u32, variant: &str, to: &Path) -> Result<(u32, u64), TableError> {
    let t = TableFile::open(from)?;
    let bytes = t.read_file()?;
    let found = crc32fast::hash(&bytes);
    if found != expect_crc {
        return Err(TableError::new(
            t.name(),
            ErrorKind::NotAsRecorded(format!("CRC32 {found:08x}, but its manifest records {expect_crc:08x}")),
        ));
    }
    let blocks =
        t.blocks.iter().map(|b| (bytes[b.offset as usize..][..b.stored_len as usize].to_vec(), b.crc32)).collect();
    let header = TableHeader { variant: variant.to_string(), ..t.header.clone() };
    let (pieces, file_len) = assemble(&header, t.contents, t.block_slots, t.codec, t.layout, t.values_period, blocks);
    let (placed, crc) = place(&pieces, file_len);
    let name = to.display().to_string();
    let tmp = crate::durable::temp_path(to).map_err(io_error(name.clone()))?;
    crate::durable::write_pieces_unnamed(&tmp, &placed, false).map_err(io_error(name.clone()))?;
    std::fs::rename(&tmp, to).map_err(io_error(name))?;
    Ok((crc, file_len))
}

/// The little-endian u32 at `at` (the table and tier-index readers' fields).
pub(crate) fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The little-endian u64 at `at`.
pub(crate) fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

impl TableFile {
    /// Opens a table file and checks its header and block index.
    pub fn open(path: &Path) -> Result<TableFile, TableError> {
        let source = FileSource::open(path).map_err(io_error(path.display().to_string()))?;
        TableFile::from_source(Box::new(source))
    }

    /// Opens a table from any byte source: reads and checks the fixed
    /// header, the JSON description and the block index (three ranges).
    pub fn from_source(source: Box<dyn ByteSource>) -> Result<TableFile, TableError> {
        let fail = |kind: ErrorKind| TableError::new(source.name(), kind);
        let io = |e: std::io::Error| TableError::new(source.name(), ErrorKind::Io(e));
        let file_len = source.len().map_err(io)?;
        if file_len < FIXED_HEADER as u64 {
            return Err(fail(ErrorKind::TooShort { len: file_len }));
        }
        let mut fixed = [0u8; FIXED_HEADER];
        source.read_ranges(&mut [(0, &mut fixed[..])]).map_err(io)?;
        if &fixed[..8] != MAGIC {
            return Err(fail(ErrorKind::BadMagic));
        }
        let version = le32(&fixed, 8);
        if version != FORMAT_VERSION {
            return Err(fail(ErrorKind::Version { found: version, supported: FORMAT_VERSION }));
        }
        let json_len = le32(&fixed, 12);
        let slots = le64(&fixed, 16);
        let block_slots = le32(&fixed, 24);
        let block_count = le32(&fixed, 28) as u64;
        let codec = le32(&fixed, 32);
        let index_offset = le64(&fixed, 40);
        if json_len > MAX_JSON || FIXED_HEADER as u64 + json_len as u64 > file_len {
            return Err(fail(ErrorKind::HeaderLength { json_len }));
        }
        let mut json = vec![0u8; json_len as usize];
        source.read_ranges(&mut [(FIXED_HEADER as u64, &mut json[..])]).map_err(io)?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&fixed[..48]);
        crc.update(&json);
        if crc.finalize() != le32(&fixed, 48) {
            return Err(fail(ErrorKind::HeaderChecksum));
        }
        if block_slots == 0 || !block_slots.is_multiple_of(4) || block_slots > MAX_BLOCK_SLOTS {
            return Err(fail(ErrorKind::BlockSize { block_slots }));
        }
        if block_count != slots.div_ceil(block_slots as u64) {
            return Err(fail(ErrorKind::BlockCount { block_count, slots, block_slots }));
        }
        if codec != CODEC_ZSTD && codec != CODEC_STORED {
            return Err(fail(ErrorKind::Codec { codec }));
        }
        if slots >= MAX_SLOTS {
            return Err(fail(ErrorKind::SlotCount { slots, limit: MAX_SLOTS }));
        }
        let flags = le32(&fixed, 36);
        let plies_flags = flags & PLIES_FLAGS;
        // Column order is for published values alone.
        let columns = flags & FLAG_VALUES_COLUMNS != 0;
        if flags & !(FLAG_EVEN_DERIVED | PLIES_FLAGS | FLAG_VALUES_COLUMNS) != 0
            || plies_flags.count_ones() > 1
            || (columns && (plies_flags != 0 || flags & FLAG_EVEN_DERIVED == 0))
            || fixed[52..].iter().any(|&b| b != 0)
        {
            return Err(fail(ErrorKind::Reserved));
        }
        let layout = if flags & FLAG_EVEN_DERIVED != 0 { Layout::Published } else { Layout::Solved };
        let contents = if flags & FLAG_PLIES_U8 != 0 {
            Contents::Plies8
        } else if flags & FLAG_PLIES_U16 != 0 {
            Contents::Plies16
        } else if flags & FLAG_PLIES_PACKED != 0 {
            Contents::PliesPacked(Packing::SOLVED)
        } else if flags & FLAG_PLIES_PACKED_BYTES != 0 {
            // The period is in the JSON, read below.
            Contents::PliesPacked(Packing::published(1))
        } else {
            Contents::Values
        };
        let index_len = block_count * INDEX_ENTRY as u64 + 4;
        if index_offset.checked_add(index_len) != Some(file_len) {
            return Err(fail(ErrorKind::Length { file_len, index_says: index_offset.saturating_add(index_len) }));
        }
        let mut index = vec![0u8; index_len as usize];
        source.read_ranges(&mut [(index_offset, &mut index[..])]).map_err(io)?;
        let body = &index[..index.len() - 4];
        if crc32fast::hash(body) != le32(&index, body.len()) {
            return Err(fail(ErrorKind::IndexChecksum));
        }
        let v: serde_json::Value =
            serde_json::from_slice(&json).map_err(|e| fail(ErrorKind::HeaderJson(e.to_string())))?;
        let text = |k: &'static str| {
            v.get(k).and_then(|x| x.as_str()).map(String::from).ok_or_else(|| fail(ErrorKind::HeaderField(k)))
        };
        let header = TableHeader { game: text("game")?, variant: text("variant")?, tier: text("tier")?, slots };
        let contents = match contents {
            Contents::PliesPacked(packing) if packing.width == Width::Byte => {
                let period = v.get("period").and_then(|p| p.as_u64()).filter(|&p| p >= 1);
                Contents::PliesPacked(Packing::published(period.ok_or_else(|| fail(ErrorKind::HeaderField("period")))?))
            }
            other => other,
        };
        let values_period = if columns {
            // An even period and an even slot count.
            match v.get("period").and_then(|p| p.as_u64()) {
                Some(p) if crate::value_columns::fits(slots as usize, 0, p) => p,
                _ => return Err(fail(ErrorKind::HeaderField("period"))),
            }
        } else {
            1
        };
        let mut blocks = Vec::with_capacity(block_count as usize);
        let mut expected_offset = FIXED_HEADER as u64 + json_len as u64;
        for b in 0..block_count as usize {
            let e = &body[b * INDEX_ENTRY..(b + 1) * INDEX_ENTRY];
            let entry = BlockEntry { offset: le64(e, 0), stored_len: le32(e, 8), crc32: le32(e, 12) };
            if entry.offset != expected_offset || entry.offset + entry.stored_len as u64 > index_offset {
                return Err(fail(ErrorKind::BlockOutside { block: b as u64 }));
            }
            expected_offset += entry.stored_len as u64;
            blocks.push(entry);
        }
        if expected_offset != index_offset {
            return Err(fail(ErrorKind::BlocksEnd { end: expected_offset, index_offset }));
        }
        Ok(TableFile { header, block_slots, codec, layout, contents, values_period, blocks, file_len, source })
    }

    /// The file's name in messages (its path, or its object's URL).
    pub fn name(&self) -> &str {
        self.source.name()
    }

    /// Checks that this is the expected table.
    pub fn expect(&self, expect: &TableHeader) -> Result<(), TableError> {
        let (h, e) = (&self.header, expect);
        let kind = if h.tier != e.tier {
            ErrorKind::WrongTier { found: h.tier.clone(), expected: e.tier.clone() }
        } else if h.variant != e.variant || h.game != e.game {
            ErrorKind::WrongVariant {
                found: format!("{} {}", h.game, h.variant),
                expected: format!("{} {}", e.game, e.variant),
            }
        } else if h.slots != e.slots {
            ErrorKind::WrongSlots { found: h.slots, expected: e.slots }
        } else {
            return Ok(());
        };
        Err(TableError::new(self.name(), kind))
    }

    /// Slots in block `b`.
    pub fn slots_in_block(&self, b: usize) -> u64 {
        let start = b as u64 * self.block_slots as u64;
        (self.header.slots - start).min(self.block_slots as u64)
    }

    /// Reads, decompresses and checks blocks `range`, returning their raw
    /// bytes in order, as stored (a table in column order in that order:
    /// [`TableFile::block_of`] and [`TableFile::read_all`] read slot order).
    pub fn read_blocks(&self, range: std::ops::Range<usize>) -> Result<Vec<Vec<u8>>, TableError> {
        let mut stored: Vec<Vec<u8>> = range.clone().map(|b| vec![0u8; self.blocks[b].stored_len as usize]).collect();
        {
            let mut pieces: Vec<(u64, &mut [u8])> =
                range.clone().zip(stored.iter_mut()).map(|(b, buf)| (self.blocks[b].offset, &mut buf[..])).collect();
            self.source
                .read_ranges(&mut pieces)
                .map_err(|e| TableError::in_block(self.name(), range.start as u64, ErrorKind::Read(e)))?;
        }
        range.zip(stored).map(|(b, s)| self.decode_block(b, &s)).collect()
    }

    /// Decompresses one block's stored bytes and checks its CRC.
    fn decode_block(&self, b: usize, stored: &[u8]) -> Result<Vec<u8>, TableError> {
        let fail = |kind: ErrorKind| TableError::in_block(self.name(), b as u64, kind);
        let raw_len = self.contents.raw_len(self.slots_in_block(b)) as usize;
        let raw = match self.codec {
            CODEC_STORED => stored.to_vec(),
            _ => decompress_block(stored, raw_len).map_err(|e| fail(ErrorKind::Decompress(e.to_string())))?,
        };
        if raw.len() != raw_len && (self.contents.raw_len_is_exact() || raw.len() > raw_len) {
            return Err(fail(ErrorKind::RawLength { found: raw.len(), expected: raw_len }));
        }
        if crc32fast::hash(&raw) != self.blocks[b].crc32 {
            return Err(fail(ErrorKind::BlockChecksum));
        }
        Ok(raw)
    }

    /// Fails unless the file holds `contents` (a table read as plies, or plies as a table).
    pub fn expect_contents(&self, want: Contents) -> Result<(), TableError> {
        let plies = |c: Contents| c != Contents::Values;
        if plies(self.contents) != plies(want) {
            let what = |c: Contents| if plies(c) { "plies" } else { "values" };
            return Err(TableError::new(
                self.name(),
                ErrorKind::WrongContents { found: what(self.contents), expected: what(want) },
            ));
        }
        Ok(())
    }

    /// Every block's raw bytes in order, with several block reads in flight.
    fn read_all_raw(&self) -> Result<Vec<u8>, TableError> {
        // Grows with what was actually read and checked, never ahead of it.
        let mut bytes = Vec::new();
        let mut slot_order = crate::value_columns::SlotOrder::default();
        let step = crate::uring::QUEUE_DEPTH as usize * 4;
        let mut b = 0;
        while b < self.blocks.len() {
            let end = (b + step).min(self.blocks.len());
            for (k, raw) in self.read_blocks(b..end)?.into_iter().enumerate() {
                if self.values_period > 1 {
                    // A table in column order, back in slot order.
                    let (start, n) = ((b + k) as u64 * self.block_slots as u64, self.slots_in_block(b + k) as usize);
                    let index = crate::value_columns::ColumnIndex::new(n, start, self.values_period);
                    slot_order.append(&raw, &index, &mut bytes);
                } else {
                    bytes.extend_from_slice(&raw);
                }
            }
            b = end;
        }
        Ok(bytes)
    }

    /// All values, with several block reads in flight.
    pub fn read_all(&self) -> Result<PackedValues, TableError> {
        self.expect_contents(Contents::Values)?;
        let bytes = self.read_all_raw()?;
        Ok(PackedValues::from_bytes(self.header.slots, bytes).expect("block sizes add up to the slot count"))
    }

    /// All plies of a plies file, with several block reads in flight.
    /// `values` are the tier's values as its table file holds them
    /// ([`TableFile::read_all`]): a packed file's blocks are read with them
    /// ([`crate::plies_pack`]); the other files do not need them.
    pub fn read_all_plies(&self, values: &PackedValues) -> Result<Plies, TableError> {
        self.expect_contents(Contents::Plies8)?;
        let Contents::PliesPacked(packing) = self.contents else {
            return Ok(Plies::from_raw(self.contents, self.read_all_raw()?));
        };
        if values.len() != self.header.slots {
            let kind = ErrorKind::WrongSlots { found: self.header.slots, expected: values.len() };
            return Err(TableError::new(self.name(), kind));
        }
        let mut plies = Plies::zeros(self.header.slots);
        let step = crate::uring::QUEUE_DEPTH as usize * 4;
        let mut b = 0;
        while b < self.blocks.len() {
            let end = (b + step).min(self.blocks.len());
            for (b, raw) in (b..end).zip(self.read_blocks(b..end)?) {
                let start = b as u64 * self.block_slots as u64;
                let codes = &values.bytes()[(start / 4) as usize..];
                let counts = self.unpack(b, &raw, codes, packing)?;
                for (k, c) in counts.into_iter().enumerate() {
                    if c != 0 {
                        plies.set(start + k as u64, c);
                    }
                }
            }
            b = end;
        }
        Ok(plies)
    }

    /// Block `b` of a packed plies file from its raw bytes and the table's
    /// raw codes for its slots: every slot's count.
    fn unpack(&self, b: usize, raw: &[u8], codes: &[u8], packing: Packing) -> Result<Vec<u16>, TableError> {
        let n = self.slots_in_block(b) as usize;
        let block = Block::new(codes, n, self.layout, packing, b as u64 * self.block_slots as u64);
        crate::plies_pack::unpack(raw, &block).map_err(|m| {
            TableError::in_block(self.name(), b as u64, ErrorKind::PackedPlies { found: m.found, expected: m.expected })
        })
    }

    /// The raw block holding slot `i`.
    pub fn block_of(&self, i: u64) -> Result<RawBlock, TableError> {
        if i >= self.header.slots {
            return Err(TableError::new(self.name(), ErrorKind::PastEnd { index: i, slots: self.header.slots }));
        }
        let b = (i / self.block_slots as u64) as usize;
        let bytes = self.read_blocks(b..b + 1)?.pop().unwrap();
        let columns = (self.values_period > 1).then(|| {
            let start = b as u64 * self.block_slots as u64;
            crate::value_columns::ColumnIndex::new(self.slots_in_block(b) as usize, start, self.values_period)
        });
        Ok(RawBlock {
            block: b,
            block_slots: self.block_slots,
            bytes,
            columns,
            slot_order: std::sync::OnceLock::new(),
            members: std::sync::OnceLock::new(),
        })
    }

    /// The code of one slot, reading and decompressing only its block.
    pub fn code(&self, i: u64) -> Result<u8, TableError> {
        self.expect_contents(Contents::Values)?;
        Ok(self.block_of(i)?.code(i))
    }

    /// The plies of one slot of a plies file, reading only its block.
    /// `values` is the table's block holding `i` ([`TableFile::block_of`]),
    /// which a packed file is read with; the other files do not need it.
    pub fn plies_at(&self, i: u64, values: &RawBlock) -> Result<u32, TableError> {
        self.plies_in(i, values, &self.block_of(i)?)
    }

    /// [`TableFile::plies_at`] with this plies file's block holding `i`
    /// read already (`raw`, from [`TableFile::block_of`]; a reader's cache).
    pub fn plies_in(&self, i: u64, values: &RawBlock, raw: &RawBlock) -> Result<u32, TableError> {
        self.expect_contents(Contents::Plies8)?;
        let j = (i % self.block_slots as u64) as usize;
        Ok(match self.contents {
            Contents::Plies16 => u16::from_le_bytes([raw.bytes[2 * j], raw.bytes[2 * j + 1]]) as u32,
            Contents::PliesPacked(packing) => {
                if (values.block, values.block_slots) != (raw.block, raw.block_slots) {
                    let kind = ErrorKind::PackedBlocks { table: values.block_slots, plies: raw.block_slots };
                    return Err(TableError::new(self.name(), kind));
                }
                let n = self.slots_in_block(raw.block) as usize;
                let start = raw.block as u64 * self.block_slots as u64;
                // Values in the counts' column order are read as stored (no
                // pass that puts the block back in slot order: a cold probe's cost).
                let block = match &values.columns {
                    Some(index) if index.period() as u64 == packing.period => {
                        Block::in_columns(&values.bytes, n, packing, start, index)
                    }
                    _ => Block::new(values.slot_codes(), n, self.layout, packing, start),
                };
                let members = raw.members.get_or_init(|| crate::plies_pack::MemberIndex::new(&raw.bytes, &block));
                match members {
                    Ok(index) => index.count(&raw.bytes, &block, j) as u32,
                    Err(m) => {
                        let kind = ErrorKind::PackedPlies { found: m.found, expected: m.expected };
                        return Err(TableError::in_block(self.name(), raw.block as u64, kind));
                    }
                }
            }
            _ => raw.bytes[j] as u32,
        })
    }

    /// The whole file's bytes (for its CRC32 against a manifest).
    pub fn read_file(&self) -> Result<Vec<u8>, TableError> {
        self.source.read_all().map_err(|e| TableError::new(self.name(), ErrorKind::Io(e)))
    }
}

/// Reads a whole table file with every slot stored (what a solve writes)
/// and checks that it is the expected one. A published table, whose
/// fox-to-move values are derived rather than stored, is refused.
pub fn read_table(path: &Path, expect: &TableHeader) -> Result<PackedValues, TableError> {
    let t = TableFile::open(path)?;
    t.expect(expect)?;
    if t.layout != Layout::Solved {
        return Err(TableError::new(t.name(), ErrorKind::PublishedAsChild));
    }
    t.read_all()
}

/// Reads the header of a table file.
pub fn read_header(path: &Path) -> Result<TableHeader, TableError> {
    Ok(TableFile::open(path)?.header)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A relabelled table or plies file is the one written under the new
    /// variant, byte for byte, and a source that is not as its manifest
    /// records is refused with nothing written.
    #[test]
    fn a_relabelled_file_is_the_file_written_under_its_new_variant() {
        let dir = std::env::temp_dir().join(format!("foxbase-relabel-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let len = 300_000u64;
        let mut values = PackedValues::filled(len, 0);
        let mut plies = Plies::from_vec(vec![0; len as usize]);
        for i in 0..len {
            values.set_code(i, ((i * 7 / 5) % 4 % 3) as u8);
            plies.set(i, (i % 300) as u16);
        }
        let header = |variant: &str| TableHeader {
            game: "fox".into(),
            variant: variant.into(),
            tier: "f2-0.0.0.1.2.0.0".into(),
            slots: len,
        };
        let (a, b) = (header("{\"start\":\"a\"}"), header("{\"start\":\"a longer one\"}"));
        type Write<'a> = &'a dyn Fn(&Path, &TableHeader) -> (u32, u64);
        let table: Write = &|path, h| write_table(path, h, &values).unwrap();
        let plies: Write = &|path, h| write_plies(path, h, &plies, None, ZSTD_LEVEL, Layout::Solved).unwrap();
        for (name, write) in [("fxt", table), ("fxp", plies)] {
            let (from, want, to) =
                (dir.join(format!("a.{name}")), dir.join(format!("b.{name}")), dir.join(format!("c.{name}")));
            let (crc, _) = write(&from, &a);
            let (want_crc, want_len) = write(&want, &b);
            assert_eq!(relabel(&from, crc, &b.variant, &to).unwrap(), (want_crc, want_len));
            assert_eq!(std::fs::read(&to).unwrap(), std::fs::read(&want).unwrap(), "{name}");
            std::fs::remove_file(&to).unwrap();
            let refused = relabel(&from, crc ^ 1, &b.variant, &to).unwrap_err().to_string();
            assert!(refused.contains("but its manifest records"), "{refused}");
            assert!(!to.exists());
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 4, "no temporary file is left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A packed plies file reads back every won and lost slot's count, whole
    /// and one slot at a time, in both layouts, with the values its table
    /// file holds (unused slots filled); read with another tier's values it
    /// is refused, naming the block.
    #[test]
    fn packed_plies_read_back_beside_their_table() {
        let dir = std::env::temp_dir().join(format!("foxbase-packed-plies-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let len = 600_001u64; // three blocks, the last of one slot
        let mut values = PackedValues::filled(len, 0);
        let mut plies = Plies::zeros(len);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let code = [0u8, 1, 1, 2, 2, 3][(x % 6) as usize];
            values.set_code(i, code);
            // Short counts mostly, some past the nibble's 15 halves, a few past a byte.
            let half = [0u16, 0, 1, 2, 7, 14, 15, 16, 40, 300][((x >> 8) % 10) as usize];
            match code {
                1 => plies.set(i, 2 * half + 1),
                2 => plies.set(i, 2 * half),
                _ => {}
            }
        }
        let header =
            TableHeader { game: "fox".into(), variant: "{}".into(), tier: "f2-0.0.0.1.2.0.0".into(), slots: len };
        for layout in [Layout::Solved, Layout::Published] {
            let (table_path, plies_path) = (dir.join("t.fxt"), dir.join("t.fxp"));
            write_table_layout(&table_path, &header, &values, DEFAULT_BLOCK_SLOTS, ZSTD_LEVEL, layout).unwrap();
            write_plies(&plies_path, &header, &plies, Some(&values), ZSTD_LEVEL, layout).unwrap();
            let (table, file) = (TableFile::open(&table_path).unwrap(), TableFile::open(&plies_path).unwrap());
            assert_eq!((file.contents, file.layout), (Contents::PliesPacked(Packing::SOLVED), layout));
            let stored = table.read_all().unwrap();
            let read = file.read_all_plies(&stored).unwrap();
            let held = |i: u64| values.value(i).is_some_and(|v| v != foxbase_core::Value::Draw);
            let kept = |i: u64| layout == Layout::Solved || i % 2 == 1;
            for i in (0..len).filter(|&i| held(i) && kept(i)) {
                assert_eq!(read.get(i), plies.get(i), "{layout} slot {i}");
            }
            for i in (0..len).step_by(997).chain([len - 1]).filter(|&i| held(i) && kept(i)) {
                let block = table.block_of(i).unwrap();
                assert_eq!(file.plies_at(i, &block).unwrap(), plies.get(i) as u32, "{layout} slot {i}");
            }
            let other = PackedValues::filled(len, 1);
            let refused = file.read_all_plies(&other).unwrap_err().to_string();
            assert!(refused.contains("block 0") && refused.contains("packed plies of"), "{refused}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A reused zstd context writes the bytes a fresh one does, at every
    /// level a table is written with, whatever it compressed before.
    #[test]
    fn reused_zstd_contexts_write_the_same_frames() {
        let inputs: Vec<Vec<u8>> = (0..6u32)
            .map(|k| (0..(1000 << k)).map(|i: u32| (i.wrapping_mul(2654435761u32) >> (k + 20)) as u8).collect())
            .collect();
        for level in [ZSTD_LEVEL, PUBLISH_ZSTD_LEVEL, 9, ZSTD_LEVEL] {
            for raw in &inputs {
                let frame = compress_block(raw, level);
                assert_eq!(frame, zstd::bulk::compress(raw, level).unwrap(), "level {level}, {} bytes", raw.len());
                assert_eq!(&decompress_block(&frame, raw.len()).unwrap(), raw);
            }
        }
    }

    /// `len` pseudo-random codes: long runs without unused slots, and some
    /// dense with them.
    fn codes_with_unused_runs(len: u64) -> PackedValues {
        let mut values = PackedValues::filled(len, 0);
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for i in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let code = if (i / 700) % 3 == 0 { (x % 4) as u8 } else { (x % 3) as u8 };
            values.set_code(i, code);
        }
        values
    }

    /// The byte-at-a-time table of the published layout writes what the
    /// rule says pair by pair: both slots of a pair take the odd slot's
    /// code, an unused one the code written before it, and a last even
    /// slot without its odd one that code too.
    #[test]
    fn published_blocks_write_each_pair_as_its_odd_slot() {
        let len = 10_001u64;
        let values = codes_with_unused_runs(len);
        let mut pairs_unused = 0;
        for block_slots in [4u32, 64, 1000, 4096] {
            for b in 0..len.div_ceil(block_slots as u64) {
                let raw = raw_block_with(&values, block_slots, b, Layout::Published);
                let start = b * block_slots as u64;
                let n = (start + block_slots as u64).min(len) - start;
                let mut last = 0;
                for j in (0..n).step_by(2) {
                    let mut want = if j + 1 < n { values.code(start + j + 1) } else { last };
                    if want == UNUSED {
                        want = last;
                        pairs_unused += 1;
                    }
                    last = want;
                    for k in j..(j + 2).min(n) {
                        let got = (raw[(k / 4) as usize] >> ((k % 4) * 2)) & 3;
                        assert_eq!(got, want, "block {b} of {block_slots}, slot {k}");
                    }
                }
            }
        }
        assert!(pairs_unused > 1000, "the values hold unused odd slots: {pairs_unused}");
    }

    /// The word-at-a-time copy of the solved layout writes what the rule
    /// says slot by slot: an unused slot takes the code of the slot before it.
    #[test]
    fn solved_blocks_fill_unused_slots_with_the_code_before_them() {
        let len = 10_000u64;
        let values = codes_with_unused_runs(len);
        for block_slots in [4u32, 64, 1000, 4096] {
            for b in 0..len.div_ceil(block_slots as u64) {
                let raw = raw_block_with(&values, block_slots, b, Layout::Solved);
                let start = b * block_slots as u64;
                let n = (start + block_slots as u64).min(len) - start;
                let mut last = 0;
                for j in 0..n {
                    let mut want = values.code(start + j);
                    if want == UNUSED {
                        want = last;
                    }
                    last = want;
                    assert_eq!(
                        (raw[(j / 4) as usize] >> ((j % 4) * 2)) & 3,
                        want,
                        "block {b} of {block_slots}, slot {j}"
                    );
                }
            }
        }
    }
}
