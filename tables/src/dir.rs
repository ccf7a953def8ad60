//! [`TableDir`]: the Fox Game's tablebase reader, for both layouts (the
//! other games' tables are read by [`crate::tiered`]; both are
//! [`crate::Tablebase`]s, the one reading API).
//!
//! It opens the tier index (never the whole manifest), answers single
//! values by reading one block of one table ([`TableDir::value`]), and
//! loads whole tables for work over every position ([`TableDir::stored`],
//! [`TableDir::complete`]) with a cache bounded in bytes, so that a child
//! read by many parents is decompressed once. Published tables store no
//! fox-to-move values: a single value is derived by one fox move, a whole
//! table by [`fill_derived`].

use crate::error::{Error, ErrorKind, TableError};
use crate::index::{IndexEntry, Summary, TierIndex};
use crate::packed::PackedValues;
use crate::plies::Distance;
use crate::read_cache::{BlockCache, PieceCache, DEFAULT_BLOCK_CACHE_BYTES, DEFAULT_PIECE_CACHE_BYTES};
use crate::reader::as_child;
use crate::source::{DirLocation, Location};
use crate::table::{Contents, Layout, RawBlock, TableFile};
use crate::tier_files::{key_of_name, plies_key_of_name, table_header};
use crate::tiered::{fill_derived, LocateChild, WholeTier};
use foxbase_core::board::Bits;
use foxbase_core::foxgame::{FoxGame, FoxTier, SetRank, TierIndex as RankIndex};
use foxbase_core::game::GameKind;
use foxbase_core::notation::format_position;
use foxbase_core::tier::TierGame;
pub use foxbase_core::Outcome;
use foxbase_core::{Move, Position, Side, Value, Variant};
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Whole tables kept in memory by default.
pub const DEFAULT_CACHE_BYTES: u64 = 1 << 30;

/// The Fox Game's child search for the one-step valuation: the table and
/// [`SetRank`] of a child's sheep set and fox count, remembered, since the
/// children of neighbouring positions share a few sheep sets; the slot
/// then follows from the foxes and the side to move alone.
impl LocateChild for FoxGame {
    type Memo = SheepSetRanks;

    #[inline]
    fn locate(
        &self,
        memo: &mut SheepSetRanks,
        loaded: &[&WholeTier<FoxGame>],
        child: &Position,
    ) -> Option<(usize, u64)> {
        let (k, rank) = memo.rank(loaded, child.sheep(), child.fox_count())?;
        Some((k, rank.slot(child.foxes(), child.side())))
    }
}

/// Recently ranked sheep sets by sheep and fox count, hashed into 256
/// entries ([`LocateChild::locate`] for the Fox Game).
pub struct SheepSetRanks(Vec<Option<RankEntry>>);

/// A remembered child rank: sheep, fox count, and the table and sheep rank
/// of their positions (`None` when their tier is not loaded).
type RankEntry = (Bits, u32, Option<(usize, SetRank)>);

impl Default for SheepSetRanks {
    fn default() -> SheepSetRanks {
        SheepSetRanks(vec![None; 256])
    }
}

impl SheepSetRanks {
    /// The table (index into `loaded`) and sheep rank of the positions with
    /// `sheep` and `foxes` foxes; `None` when their tier is not loaded.
    #[inline]
    fn rank(&mut self, loaded: &[&WholeTier<FoxGame>], sheep: Bits, foxes: u32) -> Option<(usize, SetRank)> {
        let h = ((sheep ^ foxes as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize;
        if let Some((s, f, found)) = self.0[h] {
            if s == sheep && f == foxes {
                return found;
            }
        }
        let t = FoxTier::of(sheep, foxes);
        let found = loaded.iter().position(|l| l.tier == t).map(|k| (k, loaded[k].index.set_rank(sheep)));
        self.0[h] = Some((sheep, foxes, found));
        found
    }
}

/// Fills in what the files of `own` leave out (read as stored: a
/// published table's fox-to-move values, a DTZ file's fox-to-move counts)
/// from its stored slots and those of `children` (every child tier of
/// `own.tier` the tablebase holds, as stored), with `fox_side` where it
/// takes the values, else [`fill_derived`]: [`TableDir::complete`]'s
/// derivation, and that of a solve checking a tier it publishes
/// ([`crate::retire`]).
pub fn derive_left_out(
    game: &FoxGame,
    fox_side: Option<&dyn DeriveFoxSide>,
    own: &mut WholeTier<FoxGame>,
    children: &[&WholeTier<FoxGame>],
    distance: Option<Distance>,
) -> Result<(), Error> {
    let tier = own.tier;
    let whole = match fox_side {
        Some(deriver) if own.layout == Layout::Published && own.plies.is_none() => {
            deriver.derive(game, own.tier, &mut own.values, children)
        }
        _ => None,
    };
    match whole {
        Some(derived) => {
            let file = crate::tier_files::table_key(game, tier);
            derived.map_err(|message| Error::DeriveWhole { file, message })?;
            own.layout = Layout::Solved;
            own.plies_layout = Layout::Solved;
            Ok(())
        }
        None => fill_derived(game, distance, own, children),
    }
}

/// Whole tables in memory, oldest evicted first beyond a byte budget.
struct TableCache {
    budget: u64,
    /// Tables as stored (fox-to-move slots of published tables not yet derived).
    stored: HashMap<FoxTier, Arc<WholeTier<FoxGame>>>,
    /// Tables with every value present.
    complete: HashMap<FoxTier, Arc<WholeTier<FoxGame>>>,
    /// Insertion order of both maps, oldest first, for eviction.
    order: VecDeque<(bool, FoxTier)>,
    bytes: u64,
}

impl TableCache {
    fn remember(&mut self, complete: bool, loaded: Arc<WholeTier<FoxGame>>) {
        self.bytes += loaded.bytes();
        self.order.push_back((complete, loaded.tier));
        let map = if complete { &mut self.complete } else { &mut self.stored };
        map.insert(loaded.tier, loaded);
        while self.bytes > self.budget && self.order.len() > 1 {
            let (c, t) = self.order.pop_front().unwrap();
            let map = if c { &mut self.complete } else { &mut self.stored };
            if let Some(old) = map.remove(&t) {
                self.bytes -= old.bytes();
            }
        }
    }
}

/// A tablebase of the Fox Game, opened for reading. See the module documentation.
pub struct TableDir {
    location: Box<dyn Location>,
    /// The tablebase's variant, layout, start value and totals.
    pub summary: Summary,
    pub game: FoxGame,
    index: TierIndex,
    /// Index records looked up so far (`None`: the tablebase lacks the tier).
    entries: Mutex<HashMap<FoxTier, Option<IndexEntry>>>,
    /// Table files opened so far (header and block index read), for single values.
    files: Mutex<HashMap<FoxTier, Arc<TableFile>>>,
    /// Plies files opened so far, for single plies.
    plies_files: Mutex<HashMap<FoxTier, Arc<TableFile>>>,
    cache: Mutex<TableCache>,
    /// Blocks decompressed for single values and plies ([`TableDir::outcome`]).
    blocks: Mutex<BlockCache>,
    /// Pieces of them around each value read, in slot order.
    pieces: Mutex<PieceCache>,
    /// Rank indexes of the tiers single values were read from, at most
    /// [`RANK_INDEXES_KEPT`] (16 KiB each), the oldest dropped first.
    rank_indexes: Mutex<RankIndexes>,
    /// How [`TableDir::complete`] derives a published table's fox-to-move
    /// values: [`fox_side_deriver`] at open, else [`fill_derived`].
    fox_side: Option<&'static dyn DeriveFoxSide>,
}

/// A whole-table derivation of a published tier's fox-to-move values,
/// equal to [`fill_derived`]'s one fox move per position but faster:
/// the worker's plane kernel provides one (this crate has no kernel), and
/// a program that links it installs it once with
/// [`install_fox_side_deriver`]; every [`TableDir`] opened after that uses
/// it for values (plies are always derived by [`fill_derived`]).
pub trait DeriveFoxSide: Sync {
    /// Sets the even slots of `own` (read from a published table: its odd
    /// slots hold the sheep-to-move values) from its odd slots and the
    /// odd slots of `children` (every child tier of `tier` the tablebase
    /// holds), the unused code where a slot holds no position. `None`
    /// when it does not handle `game` (then [`fill_derived`] does).
    fn derive(
        &self,
        game: &FoxGame,
        tier: FoxTier,
        own: &mut PackedValues,
        children: &[&WholeTier<FoxGame>],
    ) -> Option<Result<(), String>>;
}

static FOX_SIDE_DERIVER: std::sync::OnceLock<&'static dyn DeriveFoxSide> = std::sync::OnceLock::new();

/// Makes `deriver` the derivation of every [`TableDir`] opened from now on
/// (the first call wins; later ones are ignored).
pub fn install_fox_side_deriver(deriver: &'static dyn DeriveFoxSide) {
    let _ = FOX_SIDE_DERIVER.set(deriver);
}

/// The installed [`DeriveFoxSide`], if any.
pub fn fox_side_deriver() -> Option<&'static dyn DeriveFoxSide> {
    FOX_SIDE_DERIVER.get().copied()
}

/// Kept rank indexes by tier, and their tiers oldest first.
type RankIndexes = (HashMap<FoxTier, Arc<RankIndex>>, VecDeque<FoxTier>);

/// How many tiers' rank indexes [`TableDir`] keeps for single values (64 MiB).
pub const RANK_INDEXES_KEPT: usize = 4096;

impl TableDir {
    /// Opens the tablebase in a directory.
    pub fn open(dir: &Path) -> Result<TableDir, Error> {
        TableDir::open_at(Box::new(DirLocation::new(dir)))
    }

    /// Opens a tablebase anywhere: reads its tier index's header and summary.
    pub fn open_at(location: Box<dyn Location>) -> Result<TableDir, Error> {
        let index = TierIndex::open(location.as_ref())?;
        let summary = index.summary.clone();
        if summary.game.parse::<GameKind>() != Ok(GameKind::Fox) {
            return Err(Error::NotFoxGame { dir: location.describe(), game: summary.game });
        }
        let variant = Variant::from_json(&summary.variant)
            .map_err(|e| Error::Variant { dir: location.describe(), message: e.to_string() })?;
        Ok(TableDir {
            location,
            summary,
            game: FoxGame::new(variant),
            index,
            entries: Mutex::new(HashMap::new()),
            files: Mutex::new(HashMap::new()),
            plies_files: Mutex::new(HashMap::new()),
            cache: Mutex::new(TableCache {
                budget: DEFAULT_CACHE_BYTES,
                stored: HashMap::new(),
                complete: HashMap::new(),
                order: VecDeque::new(),
                bytes: 0,
            }),
            rank_indexes: Mutex::new((HashMap::new(), VecDeque::new())),
            blocks: Mutex::new(BlockCache::new(DEFAULT_BLOCK_CACHE_BYTES)),
            pieces: Mutex::new(PieceCache::new(DEFAULT_PIECE_CACHE_BYTES)),
            fox_side: fox_side_deriver(),
        })
    }

    /// Derives published fox-to-move values with `deriver`, or with
    /// `None` one fox move per position ([`fill_derived`]: what
    /// `foxbase verify --one-step` uses, independent of the kernel).
    pub fn with_fox_side(mut self, deriver: Option<&'static dyn DeriveFoxSide>) -> TableDir {
        self.fox_side = deriver;
        self
    }

    /// The rank index of `tier`, kept or built (building one is most of a
    /// single value's time when its block is in the cache).
    fn rank_index(&self, tier: FoxTier) -> Arc<RankIndex> {
        if let Some(index) = self.rank_indexes.lock().unwrap().0.get(&tier) {
            return index.clone();
        }
        let index = Arc::new(self.game.tier_index(tier));
        let mut kept = self.rank_indexes.lock().unwrap();
        if kept.0.insert(tier, index.clone()).is_none() {
            kept.1.push_back(tier);
            if kept.1.len() > RANK_INDEXES_KEPT {
                let old = kept.1.pop_front().unwrap();
                kept.0.remove(&old);
            }
        }
        index
    }

    /// The block of `file` (the table of `tier`, or its plies file) holding
    /// slot `i`, from the block cache or read, decompressed and remembered.
    fn block(&self, tier: FoxTier, plies: bool, file: &TableFile, i: u64) -> Result<Arc<RawBlock>, TableError> {
        let key = (tier, plies, (i / file.block_slots as u64) as usize);
        if let Some(b) = self.blocks.lock().unwrap().get(&key) {
            return Ok(b);
        }
        let block = Arc::new(file.block_of(i)?);
        self.blocks.lock().unwrap().insert(key, block.clone());
        Ok(block)
    }

    /// The code of slot `i` of `tier`'s table: from the piece cache, or
    /// read from its block (which the block cache and the piece cache keep).
    fn code(&self, tier: FoxTier, file: &TableFile, i: u64) -> Result<u8, TableError> {
        if let Some(code) = self.pieces.lock().unwrap().code(tier, i) {
            return Ok(code);
        }
        let block = self.block(tier, false, file, i)?;
        self.pieces.lock().unwrap().remember(tier, &block, i);
        Ok(block.code(i))
    }

    /// Bounds what single reads keep: about `blocks` bytes of whole
    /// decompressed blocks and `pieces` bytes of pieces of them (each at
    /// least one; [`crate::read_cache`]).
    pub fn with_read_caches(self, blocks: u64, pieces: u64) -> TableDir {
        *self.blocks.lock().unwrap() = BlockCache::new(blocks);
        *self.pieces.lock().unwrap() = PieceCache::new(pieces);
        self
    }

    /// [`TableDir::with_read_caches`] with `bytes` in all, split as the
    /// defaults are ([`crate::read_cache::split_read_cache`]).
    pub fn with_read_cache_bytes(self, bytes: u64) -> TableDir {
        let (blocks, pieces) = crate::read_cache::split_read_cache(bytes);
        self.with_read_caches(blocks, pieces)
    }

    /// Keeps at most about `bytes` of whole tables in memory (at least one table).
    pub fn with_cache_budget(self, bytes: u64) -> TableDir {
        self.cache.lock().unwrap().budget = bytes;
        self
    }

    /// Where the tablebase is, for messages.
    pub fn describe(&self) -> String {
        self.location.describe()
    }

    pub fn layout(&self) -> Layout {
        self.summary.layout
    }

    /// The index record of `tier`, or `None` if the tablebase does not hold it.
    pub fn entry(&self, tier: FoxTier) -> Result<Option<IndexEntry>, TableError> {
        if let Some(e) = self.entries.lock().unwrap().get(&tier) {
            return Ok(e.clone());
        }
        let e = self.index.lookup(&tier.name())?;
        self.entries.lock().unwrap().insert(tier, e.clone());
        Ok(e)
    }

    /// Whether the tablebase holds `tier`.
    pub fn holds(&self, tier: FoxTier) -> Result<bool, TableError> {
        Ok(self.entry(tier)?.is_some())
    }

    /// The table file of `tier`, opened and checked against its header.
    fn file(&self, tier: FoxTier, entry: &IndexEntry) -> Result<Arc<TableFile>, TableError> {
        self.open_file(&self.files, &key_of_name(&entry.name), tier, entry, Contents::Values)
    }

    /// The file at `key` for `tier` from `files`, or opened, checked against
    /// its header and contents, and remembered there.
    fn open_file(
        &self,
        files: &Mutex<HashMap<FoxTier, Arc<TableFile>>>,
        key: &str,
        tier: FoxTier,
        entry: &IndexEntry,
        contents: Contents,
    ) -> Result<Arc<TableFile>, TableError> {
        if let Some(f) = files.lock().unwrap().get(&tier) {
            return Ok(f.clone());
        }
        let source =
            self.location.open(key).map_err(|e| TableError::new(self.location.name_of(key), ErrorKind::Io(e)))?;
        let t = TableFile::from_source(source)?;
        t.expect(&table_header(&self.game, tier, entry.slots))?;
        t.expect_contents(contents)?;
        let t = Arc::new(t);
        files.lock().unwrap().insert(tier, t.clone());
        Ok(t)
    }

    /// The plies file of `tier`, opened and checked against its header and the tablebase's layout.
    fn plies_file(&self, tier: FoxTier, entry: &IndexEntry) -> Result<Arc<TableFile>, TableError> {
        let t = self.open_file(&self.plies_files, &plies_key_of_name(&entry.name), tier, entry, Contents::Plies8)?;
        if !self.summary.layout.holds_plies(t.layout, t.contents) {
            return Err(TableError::new(
                t.name(),
                ErrorKind::LayoutMismatch { found: t.layout, expected: self.summary.layout },
            ));
        }
        Ok(t)
    }

    /// The outcome of a position that is over (0 plies, in a tablebase with plies).
    fn game_over(&self, pos: &Position) -> Option<Outcome> {
        crate::tiered::game_over(&self.game, pos, self.has_plies())
    }

    /// Whether the tablebase has plies files (solved without `--no-distance`).
    pub fn has_plies(&self) -> bool {
        self.summary.plies
    }

    /// What its plies files count ([`Distance`]); `None` without plies.
    pub fn distance(&self) -> Option<Distance> {
        self.summary.plies.then_some(self.summary.distance)
    }

    /// The value of `pos` for the side to move and, in a tablebase with
    /// plies, its plies to the end (`None` for a draw, or without plies).
    /// Reads one block of the table and one of the plies file (a
    /// fox-to-move position of a published tablebase, or one with plies
    /// whose plies file stores the sheep-to-move counts alone: those of its children).
    pub fn outcome(&self, pos: &Position) -> Result<Outcome, Error> {
        if let Some(o) = self.game_over(pos) {
            return Ok(o);
        }
        let tier = self.game.tier_of(pos);
        let entry = self.entry_of(pos, tier)?;
        let table = self.file(tier, &entry)?;
        if table.layout == Layout::Published && pos.side() == Side::Fox {
            return self.outcome_by_one_fox_move(pos);
        }
        let i = self.game.rank(&*self.rank_index(tier), &pos.canonical());
        let code = self.code(tier, &table, i)?;
        let value = Value::from_code(code).ok_or_else(|| {
            Error::Table(TableError::new(key_of_name(&entry.name), ErrorKind::UnusedSlot { slot: i }))
        })?;
        let plies = if value != Value::Draw && self.has_plies() {
            let plies_file = self.plies_file(tier, &entry)?;
            if plies_file.layout == Layout::Published && pos.side() == Side::Fox {
                // The stored value stands; its count is derived (the derived
                // value is the stored one in a consistent tablebase: verify checks it).
                return Ok(Outcome { value, plies: self.outcome_by_one_fox_move(pos)?.plies });
            }
            let block = self.block(tier, false, &table, i)?;
            Some(plies_file.plies_in(i, &block, &*self.block(tier, true, &plies_file, i)?)?)
        } else {
            None
        };
        Ok(Outcome { value, plies })
    }

    /// The outcome of a fox-to-move position by one fox move, from its
    /// children's (sheep to move: stored in every layout).
    fn outcome_by_one_fox_move(&self, pos: &Position) -> Result<Outcome, Error> {
        let mut children = Vec::new();
        self.game.for_each_child(pos, |c| children.push(c));
        let outcomes: Vec<Outcome> = children
            .iter()
            .map(|c| Ok(as_child(&self.game, self.distance(), pos, c, self.outcome(c)?)))
            .collect::<Result<_, Error>>()?;
        Ok(crate::plies::capped(Outcome::from_children(&outcomes), self.game.rules.no_progress))
    }

    /// [`TableDir::outcome`] from whole tables in memory ([`TableDir::complete`],
    /// kept in the cache): for work over many positions of a few tiers.
    pub fn outcome_in_memory(&self, pos: &Position) -> Result<Outcome, Error> {
        if let Some(o) = self.game_over(pos) {
            return Ok(o);
        }
        let tier = self.game.tier_of(pos);
        let entry = self.entry_of(pos, tier)?;
        let loaded = self.complete(tier)?;
        let i = self.game.rank(&loaded.index, &pos.canonical());
        loaded
            .outcome(i)
            .ok_or_else(|| Error::Table(TableError::new(key_of_name(&entry.name), ErrorKind::UnusedSlot { slot: i })))
    }

    /// The index entry of `pos`'s tier, or the error saying the tablebase lacks it.
    fn entry_of(&self, pos: &Position, tier: FoxTier) -> Result<IndexEntry, Error> {
        self.entry(tier)?.ok_or_else(|| Error::TierNotHeld {
            position: format_position(pos),
            tier: tier.name(),
            start: format_position(&self.game.variant.start),
        })
    }

    fn held_entry(&self, tier: FoxTier) -> Result<IndexEntry, Error> {
        self.entry(tier)?.ok_or_else(|| Error::NoTable { tier: tier.name() })
    }

    /// The value of `pos` for the side to move, reading one block (and for
    /// a fox-to-move position of a published tablebase, one block per
    /// distinct child table), or none where the read caches hold its piece.
    pub fn value(&self, pos: &Position) -> Result<Value, Error> {
        if let Some(v) = self.game.primitive(pos) {
            return Ok(v);
        }
        let tier = self.game.tier_of(pos);
        let Some(entry) = self.entry(tier)? else {
            return Err(Error::TierNotHeld {
                position: format_position(pos),
                tier: tier.name(),
                start: format_position(&self.game.variant.start),
            });
        };
        let table = self.file(tier, &entry)?;
        if table.layout == Layout::Published && pos.side() == Side::Fox {
            // Published tables store no fox-to-move values: one fox move
            // reaches sheep-to-move positions, whose values are stored.
            let mut children = Vec::new();
            self.game.for_each_child(pos, |c| children.push(c));
            let values: Vec<Value> = children.iter().map(|c| self.value(c)).collect::<Result<_, _>>()?;
            return Ok(Value::from_children(values));
        }
        let i = self.game.rank(&*self.rank_index(tier), &pos.canonical());
        let code = self.code(tier, &table, i)?;
        Value::from_code(code)
            .ok_or_else(|| Error::Table(TableError::new(key_of_name(&entry.name), ErrorKind::UnusedSlot { slot: i })))
    }

    /// The value of every legal move for the player making it.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<(Move, Value)>, Error> {
        let rules = self.game.rules;
        rules.moves(pos).into_iter().map(|m| Ok((m, self.value(&rules.play(pos, m))?.for_mover()))).collect()
    }

    /// Checks that a position belongs to this variant's board (no more
    /// foxes or sheep than the start) and to its solved tiers (a fox-to-move
    /// position has at least the sheep floor's sheep).
    pub fn check_position(&self, pos: &Position) -> Result<(), Error> {
        let start = &self.game.variant.start;
        if pos.fox_count() > start.fox_count() || pos.sheep_count() > start.sheep_count() {
            return Err(Error::TooManyPieces {
                position: format_position(pos),
                foxes: pos.fox_count(),
                sheep: pos.sheep_count(),
                start_foxes: start.fox_count(),
                start_sheep: start.sheep_count(),
            });
        }
        let rules = &self.game.rules;
        let floored = rules.sheep_floor > rules.pen_target;
        if floored && pos.side() == foxbase_core::Side::Fox && pos.sheep_count() < rules.sheep_floor {
            return Err(Error::BelowSheepFloor {
                position: format_position(pos),
                sheep: pos.sheep_count(),
                floor: rules.sheep_floor,
            });
        }
        Ok(())
    }

    /// A whole table as stored.
    pub fn stored(&self, tier: FoxTier) -> Result<Arc<WholeTier<FoxGame>>, Error> {
        if let Some(l) = self.cache.lock().unwrap().stored.get(&tier) {
            return Ok(l.clone());
        }
        let entry = self.held_entry(tier)?;
        let t = self.file(tier, &entry)?;
        let values = t.read_all()?;
        let (plies, plies_layout) = if self.has_plies() {
            let p = self.plies_file(tier, &entry)?;
            (Some(p.read_all_plies(&values)?), p.layout)
        } else {
            (None, t.layout)
        };
        let index = self.game.tier_index(tier);
        let loaded = Arc::new(WholeTier { tier, index, values, layout: t.layout, plies, plies_layout });
        self.plies_files.lock().unwrap().remove(&tier);
        // The whole table is in memory now; the open file is not needed again.
        self.files.lock().unwrap().remove(&tier);
        self.cache.lock().unwrap().remember(false, loaded.clone());
        Ok(loaded)
    }

    /// A whole table with every value (and plies count) present: as
    /// stored, or for a published table with its fox-to-move values derived
    /// from its own and its children's sheep-to-move values (and for a
    /// solved table whose plies file stores the sheep-to-move counts alone,
    /// the fox-to-move counts so derived).
    pub fn complete(&self, tier: FoxTier) -> Result<Arc<WholeTier<FoxGame>>, Error> {
        if let Some(l) = self.cache.lock().unwrap().complete.get(&tier) {
            return Ok(l.clone());
        }
        let stored = self.stored(tier)?;
        if stored.is_complete() {
            return Ok(stored);
        }
        let mut children = Vec::new();
        for child in self.game.child_tiers(tier) {
            if self.holds(child)? {
                children.push(self.stored(child)?);
            }
        }
        let mut own = WholeTier {
            tier,
            index: self.game.tier_index(tier),
            values: stored.values.clone(),
            layout: stored.layout,
            plies: stored.plies.clone(),
            plies_layout: stored.plies_layout,
        };
        let refs: Vec<&WholeTier<FoxGame>> = children.iter().map(|c| c.as_ref()).collect();
        derive_left_out(&self.game, self.fox_side, &mut own, &refs, self.distance())?;
        let own = Arc::new(own);
        self.cache.lock().unwrap().remember(true, own.clone());
        Ok(own)
    }
}
