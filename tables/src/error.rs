//! Typed errors of the tables crate.
//!
//! [`TableError`] is a failure tied to one file of a tablebase (a table, the
//! manifest, the tier index): the file, the block when the failure is one
//! block's, and what went wrong. Its `Display` is the message people see,
//! `PATH: block B: WHAT`; callers that need the parts (verify reports file
//! and block apart) read the fields, never the text. [`Error`] adds the
//! failures of a tablebase as a whole (a position it does not cover, a
//! publish that would overwrite something).

use std::fmt;
use std::io;

/// A failure tied to one file. See the module documentation.
#[derive(Debug)]
pub struct TableError {
    /// The file: a path on this machine, or an object's URL.
    pub path: String,
    /// The block of a table the failure is in, when it is one block's.
    pub block: Option<u64>,
    pub kind: ErrorKind,
}

impl TableError {
    pub fn new(path: impl Into<String>, kind: ErrorKind) -> TableError {
        TableError { path: path.into(), block: None, kind }
    }

    pub fn in_block(path: impl Into<String>, block: u64, kind: ErrorKind) -> TableError {
        TableError { path: path.into(), block: Some(block), kind }
    }

    /// The message without the path (the block, if any, and what went wrong).
    pub fn message(&self) -> String {
        match self.block {
            Some(b) => format!("block {b}: {}", self.kind),
            None => self.kind.to_string(),
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message())
    }
}

impl std::error::Error for TableError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) | ErrorKind::Read(e) => Some(e),
            _ => None,
        }
    }
}

/// What went wrong with a file.
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    /// Opening, reading or writing failed.
    #[error("{0}")]
    Io(#[source] io::Error),
    /// Reading a block failed.
    #[error("read: {0}")]
    Read(#[source] io::Error),
    #[error("{len} bytes, too short for a table header")]
    TooShort { len: u64 },
    #[error("not a foxbase table (bad magic)")]
    BadMagic,
    #[error("table format version {found}, this build reads {supported}")]
    Version { found: u32, supported: u32 },
    #[error("header length {json_len} does not fit the file")]
    HeaderLength { json_len: u32 },
    #[error("header checksum mismatch (the header is corrupt)")]
    HeaderChecksum,
    #[error("implausible block size of {block_slots} slots")]
    BlockSize { block_slots: u32 },
    #[error("{block_count} blocks cannot hold {slots} slots of {block_slots}")]
    BlockCount { block_count: u64, slots: u64, block_slots: u32 },
    #[error("unknown codec {codec}")]
    Codec { codec: u32 },
    #[error("implausible slot count {slots} (fewer than {limit} expected)")]
    SlotCount { slots: u64, limit: u64 },
    #[error("reserved header fields are not zero (a newer format, or corrupt)")]
    Reserved,
    #[error("file is {file_len} bytes, but its index says {index_says} (truncated or extended?)")]
    Length { file_len: u64, index_says: u64 },
    #[error("block index checksum mismatch")]
    IndexChecksum,
    #[error("unreadable table header: {0}")]
    HeaderJson(String),
    #[error("table header lacks '{0}'")]
    HeaderField(&'static str),
    #[error("block {block} lies outside the data area (index corrupt)")]
    BlockOutside { block: u64 },
    #[error("blocks end at {end}, the index starts at {index_offset}")]
    BlocksEnd { end: u64, index_offset: u64 },
    #[error("holds tier {found}, expected tier {expected}")]
    WrongTier { found: String, expected: String },
    #[error("was built for {found}, expected {expected}")]
    WrongVariant { found: String, expected: String },
    #[error("has {found} slots, expected {expected}")]
    WrongSlots { found: u64, expected: u64 },
    #[error("cannot decompress: {0}")]
    Decompress(String),
    #[error("{found} bytes after decompression, expected {expected}")]
    RawLength { found: usize, expected: usize },
    #[error("checksum mismatch")]
    BlockChecksum,
    /// A packed plies block does not fit the values its table holds.
    #[error("packed plies of {found} bytes where the table's values need {expected} (a plies file of another table?)")]
    PackedPlies { found: usize, expected: usize },
    /// A packed plies file and its table have blocks of different sizes.
    #[error("packed plies in blocks of {plies} slots, the table's blocks are {table} slots")]
    PackedBlocks { table: u32, plies: u32 },
    #[error("index {index} is past the table's {slots} slots")]
    PastEnd { index: u64, slots: u64 },
    #[error("holds {found}, expected {expected} (a table and a plies file swapped?)")]
    WrongContents { found: &'static str, expected: &'static str },
    #[error("a published table (fox-to-move values not stored); a solve needs the tables a solve wrote")]
    PublishedAsChild,
    #[error("slot {slot} is marked unused but holds a position")]
    UnusedSlot { slot: u64 },
    /// A derived slot's child sits in a derived slot too: the published
    /// layout does not fit the game (docs/format.md, "Published tables").
    #[error("slot {slot} is derived in the published layout, yet a derived position's child sits there")]
    DerivedChild { slot: u64 },
    /// The file's layout is not the one its manifest says.
    #[error("table layout {found}, but the manifest says the directory is {expected}")]
    LayoutMismatch { found: crate::table::Layout, expected: crate::table::Layout },
    /// The file's length or checksum is not the one its manifest records.
    #[error("{0}")]
    NotAsRecorded(String),
    #[error("not a foxbase manifest: {0}")]
    ManifestJson(String),
    #[error("manifest format {found}, this build reads {supported}")]
    ManifestFormat { found: u32, supported: u32 },
    /// A tier index that is damaged or disagrees with its manifest.
    #[error("{0}")]
    Index(String),
    /// A manifest entry the tier index cannot describe.
    #[error(transparent)]
    Unindexable(#[from] crate::index::Unindexable),
}

/// A failure of a tablebase as a whole. See the module documentation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("{position} is in tier {tier}, which these tables do not hold (they cover the positions reachable from {start})")]
    TierNotHeld { position: String, tier: String, start: String },
    /// [`Error::TierNotHeld`] in tables of part of a game (a phase): `held` names their tiers.
    #[error("{position} is in tier {tier}, which these tables do not hold (they hold {held})")]
    TierNotAmong { position: String, tier: String, held: String },
    #[error("{position} has {foxes} foxes and {sheep} sheep, more than this variant's start ({start_foxes} foxes, {start_sheep} sheep)")]
    TooManyPieces { position: String, foxes: u32, sheep: u32, start_foxes: u32, start_sheep: u32 },
    /// A fox-to-move position with fewer sheep than the tables' sheep floor:
    /// its tier is never solved (only sheep-to-move positions there are decided, as over).
    #[error(
        "{position}: {sheep} sheep with the foxes to move, below these tables' sheep floor {floor}; \
         their tiers are not solved (with the sheep to move the game is over)"
    )]
    BelowSheepFloor { position: String, sheep: u32, floor: u32 },
    /// Tables of another game than the reader's (`expected`: its title).
    #[error("{dir}: tables of game '{game}', not {expected}")]
    NotGame { dir: String, game: String, expected: &'static str },
    #[error("{dir}: the manifest's variant: {message}")]
    Variant { dir: String, message: String },
    /// A published value disagrees with the solved one it was made from.
    #[error("{file}: slot {slot} ({position}) reads back as code {published}, the solve stored {solved}")]
    PublishMismatch { file: String, slot: u64, position: String, published: u8, solved: u8 },
    /// A published tablebase compared with a solve it was not made from.
    #[error("{published} was not published from {solved}: {what}")]
    NotTheSource { published: String, solved: String, what: String },
    #[error("{0}: already exists; publish writes a new directory")]
    OutputExists(String),
    #[error("{0}: already a published tablebase")]
    AlreadyPublished(String),
    #[error("{0}: not a directory name")]
    NotADirectoryName(String),
    #[error("the published tables fail their own check: {0}")]
    PublishedCheck(Box<crate::verify::Problem>),
    /// The tablebase to publish fails `verify`'s check of its files.
    #[error("the tables to publish fail their check: {0}")]
    SourceCheck(Box<crate::verify::Problem>),
    #[error("{dir}: tables of game '{game}', which publish does not take")]
    NotPublishable { dir: String, game: String },
    #[error("the directory holds no table of tier {tier}")]
    NoTable { tier: String },
    /// The fox-to-move values of a published table could not be derived.
    #[error("{file}: {source}")]
    Derive {
        file: String,
        #[source]
        source: crate::tiered::DeriveError,
    },
    /// A whole published table's fox-to-move values could not be derived
    /// ([`crate::tier_tables::DeriveWhole`]).
    #[error("{file}: cannot derive the fox-to-move values: {message}")]
    DeriveWhole { file: String, message: String },
    /// Bad arguments of a query (a survey's counts, squares).
    #[error("{0}")]
    Query(String),
}

impl Error {
    /// The file the failure is tied to, when there is one.
    pub fn table(&self) -> Option<&TableError> {
        match self {
            Error::Table(t) => Some(t),
            _ => None,
        }
    }
}

/// `map_err` helper: an I/O failure of the file `path`.
pub fn io_error(path: impl Into<String>) -> impl FnOnce(io::Error) -> TableError {
    let path = path.into();
    move |e| TableError::new(path, ErrorKind::Io(e))
}
