//! The tier index, `tiers.idx`: what a probe needs to know about a
//! tablebase, found without reading the whole manifest.
//!
//! `manifest.json` lists every tier with its children, for people and for
//! whole-tablebase work (verify, publish); for the full game it is tens of
//! megabytes. A probe needs the variant, the layout and a handful of tiers,
//! so [`crate::manifest::Manifest::write`] writes this index beside it
//! (first, so that a manifest always has its index):
//!
//! ```text
//! offset  size  field
//!      0     8  magic "FOXBIDX\0"
//!      8     4  version (1), little-endian like every number here
//!     12     4  summary length S
//!     16     8  record count N
//!     24     4  record length (64)
//!     28     4  CRC32 of bytes 0..28 and the summary
//!     32     S  summary: JSON {"game", "variant", "layout", "tool", "start", "tiers", "slots", "bytes"}
//!   32+S  64*N  records, sorted by tier name (bytewise)
//! ```
//!
//! A record is the tier's name (up to 40 bytes of ASCII, NUL-padded), its
//! slot count (u64), its table file's length (u64) and CRC32 (u32), and the
//! CRC32 of the record's first 60 bytes. The table itself is at
//! `tiers/NAME.fxt` ([`crate::tier_files::key_of_name`]). A lookup is a
//! binary search that reads one record per step (18 reads for the full
//! game's 200,616 tiers), and checks each record it reads.

use crate::error::{ErrorKind, TableError};
use crate::manifest::{Manifest, StartValue};
use crate::source::{ByteSource, Location};
use crate::table::{le32, le64, Layout};
use serde::{Deserialize, Serialize};

/// File name of the index in a tablebase.
pub const INDEX_FILE: &str = "tiers.idx";
pub const INDEX_MAGIC: &[u8; 8] = b"FOXBIDX\0";
pub const INDEX_VERSION: u32 = 1;
const HEAD: usize = 32;
/// Bytes per record.
pub const RECORD: usize = 64;
/// Longest tier name a record holds.
pub const MAX_NAME: usize = 40;
/// Largest summary accepted when reading.
const MAX_SUMMARY: u32 = 1 << 16;

/// The small part of a manifest a probe needs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub game: String,
    /// The variant as JSON text (see the game's `variant_json`).
    pub variant: String,
    pub layout: Layout,
    pub tool: String,
    pub start: Option<StartValue>,
    pub tiers: u64,
    pub slots: u64,
    pub bytes: u64,
    /// Every tier has a plies file (absent in indexes written before plies existed: false).
    #[serde(default)]
    pub plies: bool,
    /// What the plies files count (absent: plies to the end, as in indexes written before DTZ existed).
    #[serde(default, skip_serializing_if = "crate::plies::Distance::is_dtm")]
    pub distance: crate::plies::Distance,
}

impl Summary {
    pub fn of(manifest: &Manifest) -> Summary {
        Summary {
            game: manifest.game.clone(),
            variant: manifest.variant.clone(),
            layout: manifest.layout,
            tool: manifest.tool.clone(),
            start: manifest.start.clone(),
            tiers: manifest.tiers.len() as u64,
            slots: manifest.total_slots(),
            bytes: manifest.total_bytes(),
            plies: manifest.has_plies(),
            distance: manifest.distance().unwrap_or_default(),
        }
    }
}

/// One tier as the index records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub name: String,
    pub slots: u64,
    pub bytes: u64,
    pub crc32: u32,
}

fn record_bytes(e: &IndexEntry) -> [u8; RECORD] {
    let mut r = [0u8; RECORD];
    r[..e.name.len()].copy_from_slice(e.name.as_bytes());
    r[40..48].copy_from_slice(&e.slots.to_le_bytes());
    r[48..56].copy_from_slice(&e.bytes.to_le_bytes());
    r[56..60].copy_from_slice(&e.crc32.to_le_bytes());
    let crc = crc32fast::hash(&r[..60]);
    r[60..64].copy_from_slice(&crc.to_le_bytes());
    r
}

/// A manifest entry the index cannot describe.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unindexable {
    #[error("tier name '{name}' cannot be indexed (1 to {MAX_NAME} visible ASCII bytes)")]
    Name { name: String },
    #[error("tier {name} is stored at '{file}', not at its standard key")]
    File { name: String, file: String },
    #[error("tier {name}: checksum '{crc32}' is not 8 hex digits")]
    Checksum { name: String, crc32: String },
    #[error("tier {name} is listed twice")]
    Twice { name: String },
}

/// The bytes of the index of `manifest`. Fails (naming the tier) when a
/// tier cannot be described: a name too long or not plain ASCII, a file
/// not at `tiers/NAME.fxt`, a CRC that is not 8 hex digits, or a name twice.
pub fn encode(manifest: &Manifest) -> Result<Vec<u8>, Unindexable> {
    let mut entries = Vec::with_capacity(manifest.tiers.len());
    for t in &manifest.tiers {
        let ok_name = !t.name.is_empty() && t.name.len() <= MAX_NAME && t.name.bytes().all(|b| b.is_ascii_graphic());
        if !ok_name {
            return Err(Unindexable::Name { name: t.name.clone() });
        }
        if t.file != crate::tier_files::key_of_name(&t.name) {
            return Err(Unindexable::File { name: t.name.clone(), file: t.file.clone() });
        }
        let crc32 = u32::from_str_radix(&t.crc32, 16)
            .ok()
            .filter(|_| t.crc32.len() == 8)
            .ok_or_else(|| Unindexable::Checksum { name: t.name.clone(), crc32: t.crc32.clone() })?;
        entries.push(IndexEntry { name: t.name.clone(), slots: t.slots, bytes: t.bytes, crc32 });
    }
    entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    if let Some(w) = entries.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(Unindexable::Twice { name: w[0].name.clone() });
    }
    let summary = serde_json::to_string(&Summary::of(manifest)).expect("a summary serialises");
    let mut out = Vec::with_capacity(HEAD + summary.len() + RECORD * entries.len());
    out.extend_from_slice(INDEX_MAGIC);
    out.extend_from_slice(&INDEX_VERSION.to_le_bytes());
    out.extend_from_slice(&(summary.len() as u32).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    out.extend_from_slice(&(RECORD as u32).to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&out);
    crc.update(summary.as_bytes());
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    out.extend_from_slice(summary.as_bytes());
    for e in &entries {
        out.extend_from_slice(&record_bytes(e));
    }
    Ok(out)
}

/// An opened index: header and summary read, records read on demand.
pub struct TierIndex {
    source: Box<dyn ByteSource>,
    pub summary: Summary,
    count: u64,
    records_at: u64,
}

impl TierIndex {
    /// Opens `tiers.idx` of a tablebase and checks its header and summary.
    pub fn open(location: &dyn Location) -> Result<TierIndex, TableError> {
        let name = location.name_of(INDEX_FILE);
        let source = location.open(INDEX_FILE).map_err(|e| TableError::new(&name, ErrorKind::Io(e)))?;
        TierIndex::from_source(source)
    }

    pub fn from_source(source: Box<dyn ByteSource>) -> Result<TierIndex, TableError> {
        let bad = |m: String| TableError::new(source.name(), ErrorKind::Index(m));
        let io = |e: std::io::Error| TableError::new(source.name(), ErrorKind::Io(e));
        let len = source.len().map_err(io)?;
        if len < HEAD as u64 {
            return Err(bad(format!("{len} bytes, too short for a tier index")));
        }
        let mut head = [0u8; HEAD];
        source.read_ranges(&mut [(0, &mut head[..])]).map_err(io)?;
        if &head[..8] != INDEX_MAGIC {
            return Err(bad("not a foxbase tier index (bad magic)".into()));
        }
        let version = le32(&head, 8);
        if version != INDEX_VERSION {
            return Err(bad(format!("tier index version {version}, this build reads {INDEX_VERSION}")));
        }
        let summary_len = le32(&head, 12);
        let count = le64(&head, 16);
        let records_at = HEAD as u64 + summary_len as u64;
        if summary_len > MAX_SUMMARY
            || le32(&head, 24) != RECORD as u32
            || count.checked_mul(RECORD as u64).and_then(|r| r.checked_add(records_at)) != Some(len)
        {
            return Err(bad(format!("{len} bytes do not match the header's lengths (truncated or corrupt)")));
        }
        let mut summary = vec![0u8; summary_len as usize];
        source.read_ranges(&mut [(HEAD as u64, &mut summary[..])]).map_err(io)?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&head[..28]);
        crc.update(&summary);
        if crc.finalize() != le32(&head, 28) {
            return Err(bad("header checksum mismatch (the index is corrupt)".into()));
        }
        let summary: Summary = serde_json::from_slice(&summary).map_err(|e| bad(format!("unreadable summary: {e}")))?;
        if summary.tiers != count {
            return Err(bad(format!("the summary says {} tiers, the index holds {count}", summary.tiers)));
        }
        Ok(TierIndex { source, summary, count, records_at })
    }

    /// Number of tiers.
    pub fn len(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The `i`-th record in name order, checked.
    pub fn record(&self, i: u64) -> Result<IndexEntry, TableError> {
        let bad = |m: String| TableError::new(self.source.name(), ErrorKind::Index(m));
        let mut r = [0u8; RECORD];
        self.source
            .read_ranges(&mut [(self.records_at + i * RECORD as u64, &mut r[..])])
            .map_err(|e| TableError::new(self.source.name(), ErrorKind::Io(e)))?;
        if crc32fast::hash(&r[..60]) != le32(&r, 60) {
            return Err(bad(format!("record {i} fails its checksum")));
        }
        let end = r[..MAX_NAME].iter().position(|&b| b == 0).unwrap_or(MAX_NAME);
        let name = std::str::from_utf8(&r[..end])
            .ok()
            .filter(|n| !n.is_empty() && r[end..MAX_NAME].iter().all(|&b| b == 0))
            .ok_or_else(|| bad(format!("record {i} holds no tier name")))?;
        Ok(IndexEntry { name: name.to_string(), slots: le64(&r, 40), bytes: le64(&r, 48), crc32: le32(&r, 56) })
    }

    /// The record of the tier named `name`, or `None` if the tablebase has
    /// no such tier. Every record read on the way is checked.
    pub fn lookup(&self, name: &str) -> Result<Option<IndexEntry>, TableError> {
        let (mut lo, mut hi) = (0u64, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let e = self.record(mid)?;
            match e.name.as_bytes().cmp(name.as_bytes()) {
                std::cmp::Ordering::Equal => return Ok(Some(e)),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        Ok(None)
    }

    /// Every record in name order (for verify, which checks the index
    /// against the manifest).
    pub fn all(&self) -> Result<Vec<IndexEntry>, TableError> {
        let mut out = Vec::with_capacity(self.count as usize);
        for i in 0..self.count {
            let e = self.record(i)?;
            if out.last().is_some_and(|p: &IndexEntry| p.name.as_bytes() >= e.name.as_bytes()) {
                return Err(TableError::new(
                    self.source.name(),
                    ErrorKind::Index(format!("record {i} ({}) is out of order", e.name)),
                ));
            }
            out.push(e);
        }
        Ok(out)
    }
}
