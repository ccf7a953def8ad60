//! Tier table files (format version 1: a JSON header and raw 2-bit values).
//!
//! ```text
//! offset 0   8 bytes   magic "FOXBTBL\0"
//! offset 8   u32 LE    format version (1)
//! offset 12  u32 LE    header length H
//! offset 16  H bytes   header, UTF-8 JSON: {"game", "variant", "tier", "slots", "encoding"}
//! 16 + H     ceil(slots / 4) bytes of 2-bit codes, four to a byte, lowest bits first
//! ```
//!
//! Files are written durably: to a temporary name, fsync'd, renamed, and
//! the directory fsync'd, so a crash leaves the old file or the new one.

use crate::packed::PackedValues;
use serde_json::json;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"FOXBTBL\0";
pub const FORMAT_VERSION: u32 = 1;
/// How the 2-bit codes map to values.
pub const ENCODING: &str = "2bit: 0 draw, 1 win, 2 loss, 3 unused; side to move";
/// Largest header accepted when reading.
const MAX_HEADER: u32 = 1 << 16;

/// What a table file says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableHeader {
    pub game: String,
    pub variant: String,
    pub tier: String,
    pub slots: u64,
}

impl TableHeader {
    fn to_json(&self) -> String {
        json!({"game": self.game, "variant": self.variant, "tier": self.tier, "slots": self.slots, "encoding": ENCODING})
            .to_string()
    }
}

/// Writes `bytes` to `path` durably (temporary file, fsync, rename, fsync of the directory).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| std::io::Error::other("path has no file name"))?;
    let tmp = dir.join(format!(".{}.tmp", name.to_string_lossy()));
    {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    File::open(dir)?.sync_all()
}

/// The bytes of a table file.
pub fn encode(header: &TableHeader, values: &PackedValues) -> Vec<u8> {
    assert_eq!(header.slots, values.len(), "header and values disagree on the slot count");
    let h = header.to_json();
    let mut out = Vec::with_capacity(16 + h.len() + values.bytes().len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(h.len() as u32).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(values.bytes());
    out
}

/// Writes a table file durably; returns its bytes' CRC32 and length.
pub fn write_table(path: &Path, header: &TableHeader, values: &PackedValues) -> std::io::Result<(u32, u64)> {
    let bytes = encode(header, values);
    write_atomic(path, &bytes)?;
    Ok((crc32fast::hash(&bytes), bytes.len() as u64))
}

fn parse_header(path: &Path, prefix: &[u8], header_bytes: &[u8]) -> Result<TableHeader, String> {
    let p = path.display();
    if &prefix[..8] != MAGIC {
        return Err(format!("{p}: not a foxbase table (bad magic)"));
    }
    let version = u32::from_le_bytes(prefix[8..12].try_into().unwrap());
    if version != FORMAT_VERSION {
        return Err(format!("{p}: table format version {version}, this build reads {FORMAT_VERSION}"));
    }
    let v: serde_json::Value =
        serde_json::from_slice(header_bytes).map_err(|e| format!("{p}: unreadable table header: {e}"))?;
    let text = |k: &str| {
        v.get(k).and_then(|x| x.as_str()).map(String::from).ok_or_else(|| format!("{p}: table header lacks '{k}'"))
    };
    let slots = v.get("slots").and_then(|x| x.as_u64()).ok_or_else(|| format!("{p}: table header lacks 'slots'"))?;
    Ok(TableHeader { game: text("game")?, variant: text("variant")?, tier: text("tier")?, slots })
}

fn read_prefix(f: &mut File, path: &Path) -> Result<(TableHeader, u64), String> {
    let p = path.display();
    let mut prefix = [0u8; 16];
    f.read_exact(&mut prefix).map_err(|e| format!("{p}: too short for a table header: {e}"))?;
    let len = u32::from_le_bytes(prefix[12..16].try_into().unwrap());
    if len > MAX_HEADER {
        return Err(format!("{p}: table header length {len} is implausible"));
    }
    let mut h = vec![0u8; len as usize];
    f.read_exact(&mut h).map_err(|e| format!("{p}: truncated table header: {e}"))?;
    Ok((parse_header(path, &prefix, &h)?, 16 + len as u64))
}

/// Reads a whole table file and checks that it is the expected one.
pub fn read_table(path: &Path, expect: &TableHeader) -> Result<PackedValues, String> {
    let p = path.display();
    let mut f = File::open(path).map_err(|e| format!("{p}: {e}"))?;
    let (header, offset) = read_prefix(&mut f, path)?;
    if header != *expect {
        return Err(format!("{p}: table is for {header:?}, expected {expect:?}"));
    }
    let want = header.slots.div_ceil(4);
    let have = f.metadata().map_err(|e| format!("{p}: {e}"))?.len().saturating_sub(offset);
    if have != want {
        return Err(format!("{p}: {have} value bytes, expected {want} for {} slots", header.slots));
    }
    let mut bytes = vec![0u8; want as usize];
    f.read_exact(&mut bytes).map_err(|e| format!("{p}: {e}"))?;
    Ok(PackedValues::from_bytes(header.slots, bytes).unwrap())
}

/// Reads the header of a table file.
pub fn read_header(path: &Path) -> Result<TableHeader, String> {
    let mut f = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(read_prefix(&mut f, path)?.0)
}

/// Reads one value code from a table file with a single positioned read of its byte.
pub fn read_code(path: &Path, expect: &TableHeader, i: u64) -> Result<u8, String> {
    let p = path.display();
    let mut f = File::open(path).map_err(|e| format!("{p}: {e}"))?;
    let (header, offset) = read_prefix(&mut f, path)?;
    if header != *expect {
        return Err(format!("{p}: table is for {header:?}, expected {expect:?}"));
    }
    if i >= header.slots {
        return Err(format!("{p}: index {i} is past the table's {} slots", header.slots));
    }
    f.seek(SeekFrom::Start(offset + i / 4)).map_err(|e| format!("{p}: {e}"))?;
    let mut b = [0u8; 1];
    f.read_exact(&mut b).map_err(|e| format!("{p}: truncated table: {e}"))?;
    Ok((b[0] >> ((i % 4) * 2)) & 3)
}
