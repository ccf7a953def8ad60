//! [`TierTables`]: the one reader of a tablebase, of every game, solved or
//! published ([`crate::Tablebase`] is its reading API).
//!
//! It opens the tier index (never the whole manifest: the full Fox Game's
//! is tens of megabytes), answers single values by reading one block of one
//! table ([`TierTables::outcome`], [`TierTables::value`]), and loads whole
//! tiers for work over every position ([`TierTables::stored`],
//! [`TierTables::complete`]) with a cache bounded in bytes, so that a child
//! read by many parents is decompressed once. Positions are canonicalised
//! before lookup; a position that is over gets its game-over value from
//! [`TierGame::primitive`] (tiers whose positions are all over, such as
//! Bagh-Chal's at the capture target, have no table).
//!
//! A published tablebase ([`Layout::Published`]) stores only the odd
//! slots; an even slot's position (the foxes to move in the Fox Game, the
//! goats in Bagh-Chal) is valued by one move, from its children's stored
//! odd slots: a single value by reading them, a whole tier by
//! [`fill_derived`] or by the game's faster [`DeriveWhole`] where a
//! program installed one ([`LocateChild::installed_deriver`]). The
//! layout's precondition, which the game's `Publishable` states and
//! `publish` checks value by value: every child of an even slot's position
//! is over or sits in an odd slot; a reader that meets an even child
//! reports it ([`ErrorKind::DerivedChild`]) rather than give a wrong value.

use crate::error::{Error, ErrorKind, TableError};
use crate::index::{IndexEntry, Summary, TierIndex};
use crate::manifest::Manifest;
use crate::packed::PackedValues;
use crate::plies::Distance;
use crate::read_cache::{BlockCache, PieceCache, DEFAULT_BLOCK_CACHE_BYTES, DEFAULT_PIECE_CACHE_BYTES};
use crate::reader::as_child;
use crate::source::{DirLocation, Location};
use crate::table::{Contents, Layout, RawBlock, TableFile};
use crate::tier_files::{key_of_name, plies_key_of_name, table_header};
use crate::tiered::{fill_derived, LocateChild, WholeTier};
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_core::{Outcome, Value};
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Whole tiers kept in memory by default.
pub const DEFAULT_CACHE_BYTES: u64 = 1 << 30;

/// How many tiers' rank indexes [`TierTables`] keeps for single values
/// (the Fox Game's take 16 KiB each: 64 MiB).
pub const RANK_INDEXES_KEPT: usize = 4096;

/// A whole-tier derivation of a published tier's even slots, equal to
/// [`fill_derived`]'s one move per position but faster: a kernel provides
/// one (this crate has none), and a program that links it installs it
/// where the game's [`LocateChild::installed_deriver`] finds it (the Fox
/// Game's: [`crate::fox_tables::install_fox_side_deriver`]). Every
/// [`TierTables`] opened after that uses it for values (plies are always
/// derived by [`fill_derived`]).
pub trait DeriveWhole<G: TierGame>: Sync {
    /// Sets the even slots of `own` (read from a published table: its odd
    /// slots hold the stored values) from its odd slots and the odd slots
    /// of `children` (every child tier of `tier` the tablebase holds), the
    /// unused code where a slot holds no position. `None` when it does not
    /// handle `game`'s variant (then [`fill_derived`] does).
    fn derive(
        &self,
        game: &G,
        tier: G::Tier,
        own: &mut PackedValues,
        children: &[&WholeTier<G>],
    ) -> Option<Result<(), String>>;
}

/// Fills in what the files of `own` leave out (read as stored: a
/// published table's even slots, a DTZ file's even counts) from its stored
/// slots and those of `children` (every child tier of `own.tier` the
/// tablebase holds, as stored), with `deriver` where it takes the values,
/// else [`fill_derived`]: [`TierTables::complete`]'s derivation, and that
/// of a solve checking a tier it publishes ([`crate::retire`]).
pub fn derive_left_out<G: LocateChild + WithRules>(
    game: &G,
    deriver: Option<&dyn DeriveWhole<G>>,
    own: &mut WholeTier<G>,
    children: &[&WholeTier<G>],
    distance: Option<Distance>,
) -> Result<(), Error> {
    let whole = match deriver {
        Some(d) if own.layout == Layout::Published && own.plies.is_none() => {
            d.derive(game, own.tier, &mut own.values, children)
        }
        _ => None,
    };
    match whole {
        Some(derived) => {
            let file = crate::tier_files::table_key(game, own.tier);
            derived.map_err(|message| Error::DeriveWhole { file, message })?;
            own.layout = Layout::Solved;
            own.plies_layout = Layout::Solved;
            Ok(())
        }
        None => fill_derived(game, distance, own, children),
    }
}

/// Whole tiers in memory, oldest evicted first beyond a byte budget.
struct WholeTiers<G: TierGame> {
    budget: u64,
    /// Tiers as stored (the even slots of published tables not yet derived).
    stored: HashMap<G::Tier, Arc<WholeTier<G>>>,
    /// Tiers with every value present.
    complete: HashMap<G::Tier, Arc<WholeTier<G>>>,
    /// Insertion order of both maps, oldest first, for eviction.
    order: VecDeque<(bool, G::Tier)>,
    bytes: u64,
}

impl<G: TierGame> WholeTiers<G> {
    fn remember(&mut self, complete: bool, whole: Arc<WholeTier<G>>) {
        self.bytes += whole.bytes();
        self.order.push_back((complete, whole.tier));
        let map = if complete { &mut self.complete } else { &mut self.stored };
        map.insert(whole.tier, whole);
        while self.bytes > self.budget && self.order.len() > 1 {
            let (c, t) = self.order.pop_front().unwrap();
            let map = if c { &mut self.complete } else { &mut self.stored };
            if let Some(old) = map.remove(&t) {
                self.bytes -= old.bytes();
            }
        }
    }
}

/// Kept rank indexes by tier, and their tiers oldest first.
type RankIndexes<G> = (HashMap<<G as TierGame>::Tier, Arc<<G as TierGame>::Index>>, VecDeque<<G as TierGame>::Tier>);

/// A tablebase of `G`, opened for reading. See the module documentation.
pub struct TierTables<G: TierGame + 'static> {
    location: Box<dyn Location>,
    /// The tablebase's variant, layout, start value and totals.
    pub summary: Summary,
    pub game: G,
    index: TierIndex,
    /// Index records looked up so far (`None`: the tablebase lacks the tier).
    entries: Mutex<HashMap<G::Tier, Option<IndexEntry>>>,
    /// Table files opened so far (header and block index read), for single values.
    files: Mutex<HashMap<G::Tier, Arc<TableFile>>>,
    /// Plies files opened so far, for single plies.
    plies_files: Mutex<HashMap<G::Tier, Arc<TableFile>>>,
    whole: Mutex<WholeTiers<G>>,
    /// Blocks decompressed for single values and plies ([`TierTables::outcome`]).
    blocks: Mutex<BlockCache<G::Tier>>,
    /// Pieces of them around each value read, in slot order.
    pieces: Mutex<PieceCache<G::Tier>>,
    /// Rank indexes of the tiers single values were read from, at most
    /// [`RANK_INDEXES_KEPT`], the oldest dropped first.
    rank_indexes: Mutex<RankIndexes<G>>,
    /// How [`TierTables::complete`] derives a published tier's even slots:
    /// the game's installed [`DeriveWhole`] at open, else [`fill_derived`].
    deriver: Option<&'static dyn DeriveWhole<G>>,
}

impl<G: LocateChild + WithRules> TierTables<G> {
    /// Opens the tablebase in a directory; its game is the variant it records.
    pub fn open(dir: &Path) -> Result<TierTables<G>, Error> {
        TierTables::open_at(Box::new(DirLocation::new(dir)))
    }

    /// Opens a tablebase anywhere: reads its tier index's header and
    /// summary, and builds `G` under the variant it records
    /// ([`TierGame::from_variant_json`]). Opens no table.
    pub fn open_at(location: Box<dyn Location>) -> Result<TierTables<G>, Error> {
        let index = TierIndex::open(location.as_ref())?;
        let game = G::from_variant_json(&index.summary.variant).map_err(|message| Error::Variant {
            dir: location.describe(),
            message: format!("tables of game '{}': {message}", index.summary.game),
        })?;
        TierTables::with_index(game, location, index)
    }

    /// Opens the tablebase at `location`, which must be `game`'s: its name
    /// and variant.
    pub fn open_game_at(game: G, location: Box<dyn Location>) -> Result<TierTables<G>, Error> {
        let index = TierIndex::open(location.as_ref())?;
        if index.summary.variant != game.variant_json() && index.summary.game == game.game_name() {
            return Err(Error::Variant {
                dir: location.describe(),
                message: format!("'{}', expected '{}'", index.summary.variant, game.variant_json()),
            });
        }
        TierTables::with_index(game, location, index)
    }

    fn with_index(game: G, location: Box<dyn Location>, index: TierIndex) -> Result<TierTables<G>, Error> {
        let summary = index.summary.clone();
        if summary.game != game.game_name() {
            return Err(Error::NotGame { dir: location.describe(), game: summary.game, expected: game.game_title() });
        }
        Ok(TierTables {
            location,
            summary,
            deriver: G::installed_deriver(),
            game,
            index,
            entries: Mutex::new(HashMap::new()),
            files: Mutex::new(HashMap::new()),
            plies_files: Mutex::new(HashMap::new()),
            whole: Mutex::new(WholeTiers {
                budget: DEFAULT_CACHE_BYTES,
                stored: HashMap::new(),
                complete: HashMap::new(),
                order: VecDeque::new(),
                bytes: 0,
            }),
            rank_indexes: Mutex::new((HashMap::new(), VecDeque::new())),
            blocks: Mutex::new(BlockCache::new(DEFAULT_BLOCK_CACHE_BYTES)),
            pieces: Mutex::new(PieceCache::new(DEFAULT_PIECE_CACHE_BYTES)),
        })
    }

    /// Derives published even slots with `deriver`, or with `None` one
    /// move per position ([`fill_derived`]: what `foxbase verify
    /// --one-step` uses, independent of any kernel).
    pub fn with_deriver(mut self, deriver: Option<&'static dyn DeriveWhole<G>>) -> TierTables<G> {
        self.deriver = deriver;
        self
    }

    /// Bounds what single reads keep: about `blocks` bytes of whole
    /// decompressed blocks and `pieces` bytes of pieces of them (each at
    /// least one; [`crate::read_cache`]).
    pub fn with_read_caches(self, blocks: u64, pieces: u64) -> TierTables<G> {
        *self.blocks.lock().unwrap() = BlockCache::new(blocks);
        *self.pieces.lock().unwrap() = PieceCache::new(pieces);
        self
    }

    /// [`TierTables::with_read_caches`] with `bytes` in all, split as the
    /// defaults are ([`crate::read_cache::split_read_cache`]).
    pub fn with_read_cache_bytes(self, bytes: u64) -> TierTables<G> {
        let (blocks, pieces) = crate::read_cache::split_read_cache(bytes);
        self.with_read_caches(blocks, pieces)
    }

    /// Keeps at most about `bytes` of whole tiers in memory (at least one tier).
    pub fn with_cache_budget(self, bytes: u64) -> TierTables<G> {
        self.whole.lock().unwrap().budget = bytes;
        self
    }

    /// Where the tablebase is, for messages.
    pub fn describe(&self) -> String {
        self.location.describe()
    }

    pub fn layout(&self) -> Layout {
        self.summary.layout
    }

    /// Whether the tablebase has plies files (solved without `--no-distance`).
    pub fn has_plies(&self) -> bool {
        self.summary.plies
    }

    /// What its plies files count ([`Distance`]); `None` without plies.
    pub fn distance(&self) -> Option<Distance> {
        self.summary.plies.then_some(self.summary.distance)
    }

    /// The index record of `tier`, or `None` if the tablebase does not hold it.
    pub fn entry(&self, tier: G::Tier) -> Result<Option<IndexEntry>, TableError> {
        if let Some(e) = self.entries.lock().unwrap().get(&tier) {
            return Ok(e.clone());
        }
        let e = self.index.lookup(&self.game.tier_name(tier))?;
        self.entries.lock().unwrap().insert(tier, e.clone());
        Ok(e)
    }

    /// Whether the tablebase holds `tier`.
    pub fn holds(&self, tier: G::Tier) -> Result<bool, TableError> {
        Ok(self.entry(tier)?.is_some())
    }

    /// The tiers held, in the manifest's order (children first).
    pub fn tiers(&self) -> Result<Vec<G::Tier>, Error> {
        let manifest = Manifest::read_from(self.location.as_ref())?;
        Ok(manifest.tiers.iter().filter_map(|t| self.game.parse_tier_name(&t.name)).collect())
    }

    /// The held tiers, for messages: "tiers p0-c0, p0-c1" (the first ten,
    /// then how many more), in the manifest's order.
    pub fn held_names(&self) -> String {
        let names = match self.tiers() {
            Ok(tiers) => tiers.into_iter().map(|t| self.game.tier_name(t)).collect(),
            Err(_) => Vec::new(),
        };
        match names.len() {
            0 => "no tier".to_string(),
            n if n <= 10 => format!("tiers {}", names.join(", ")),
            n => format!("tiers {} and {} more", names[..10].join(", "), n - 10),
        }
    }

    /// The error for a position that is not over in a tier the tablebase
    /// does not hold: beside a start it values, the positions it covers;
    /// else (tables of part of a game) the tiers it holds.
    fn not_held(&self, pos: &G::Position, tier: G::Tier) -> Error {
        let rules = self.game.rules();
        let (position, tier) = (rules.format_position(pos), self.game.tier_name(tier));
        match &self.summary.start {
            Some(_) => {
                Error::TierNotHeld { position, tier, start: rules.format_position(&self.game.initial_position()) }
            }
            None => Error::TierNotAmong { position, tier, held: self.held_names() },
        }
    }

    /// The index entry of `pos`'s tier, or the error saying the tablebase lacks it.
    fn entry_of(&self, pos: &G::Position, tier: G::Tier) -> Result<IndexEntry, Error> {
        self.entry(tier)?.ok_or_else(|| self.not_held(pos, tier))
    }

    fn held_entry(&self, tier: G::Tier) -> Result<IndexEntry, Error> {
        self.entry(tier)?.ok_or_else(|| Error::NoTable { tier: self.game.tier_name(tier) })
    }

    /// Checks that `pos` belongs to the tables: the game's own check of its
    /// variant ([`LocateChild::check_position`]), then, for a position that
    /// is not over, that its tier is held.
    pub fn check_position(&self, pos: &G::Position) -> Result<(), Error> {
        self.game.check_position(pos)?;
        if self.game_over(pos).is_some() {
            return Ok(());
        }
        self.entry_of(pos, self.game.tier_of(pos)).map(|_| ())
    }

    /// The rank index of `tier`, kept or built (building one is most of a
    /// single value's time when its block is in the cache).
    fn rank_index(&self, tier: G::Tier) -> Arc<G::Index> {
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
    fn block(&self, tier: G::Tier, plies: bool, file: &TableFile, i: u64) -> Result<Arc<RawBlock>, TableError> {
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
    fn code(&self, tier: G::Tier, file: &TableFile, i: u64) -> Result<u8, TableError> {
        if let Some(code) = self.pieces.lock().unwrap().code(tier, i) {
            return Ok(code);
        }
        let block = self.block(tier, false, file, i)?;
        self.pieces.lock().unwrap().remember(tier, &block, i);
        Ok(block.code(i))
    }

    /// The table file of `tier`, opened and checked against its header.
    fn file(&self, tier: G::Tier, entry: &IndexEntry) -> Result<Arc<TableFile>, TableError> {
        self.open_file(&self.files, &key_of_name(&entry.name), tier, entry, Contents::Values)
    }

    /// The file at `key` for `tier` from `files`, or opened, checked against
    /// its header and contents, and remembered there.
    fn open_file(
        &self,
        files: &Mutex<HashMap<G::Tier, Arc<TableFile>>>,
        key: &str,
        tier: G::Tier,
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
    fn plies_file(&self, tier: G::Tier, entry: &IndexEntry) -> Result<Arc<TableFile>, TableError> {
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
    pub fn game_over(&self, pos: &G::Position) -> Option<Outcome> {
        crate::tiered::game_over(&self.game, pos, self.has_plies())
    }

    /// Where a position that is not over is stored: its tier, the tier's
    /// index entry and table, and its slot.
    fn locate(&self, pos: &G::Position) -> Result<Stored<G>, Error> {
        let tier = self.game.tier_of(pos);
        let entry = self.entry_of(pos, tier)?;
        let table = self.file(tier, &entry)?;
        let slot = self.game.canonical_rank(&*self.rank_index(tier), pos);
        Ok(Stored { tier, entry, table, slot })
    }

    /// [`TierTables::locate`] for a child of an even slot's position, which
    /// must sit in an odd slot: an even one is the published layout's
    /// precondition broken, reported (never a wrong value, nor a loop).
    fn locate_odd(&self, child: &G::Position) -> Result<Stored<G>, Error> {
        let at = self.locate(child)?;
        if at.table.layout == Layout::Published && at.slot.is_multiple_of(2) {
            let kind = ErrorKind::DerivedChild { slot: at.slot };
            return Err(Error::Table(TableError::new(key_of_name(&at.entry.name), kind)));
        }
        Ok(at)
    }

    /// Whether a located slot is one its table leaves out (an even slot of
    /// a published table), to be valued by one move.
    fn left_out(at: &Stored<G>) -> bool {
        at.table.layout == Layout::Published && at.slot.is_multiple_of(2)
    }

    /// The outcome of `pos` for the side to move: its game-over value, or
    /// the stored one (plies `None` for a draw, or without plies). Reads
    /// one block of the table and one of the plies file; an even slot of a
    /// published tablebase (or one whose plies file stores the odd slots'
    /// counts alone) reads those of its children. The tablebase must hold
    /// the tier of a position that is not over.
    pub fn outcome(&self, pos: &G::Position) -> Result<Outcome, Error> {
        if let Some(o) = self.game_over(pos) {
            return Ok(o);
        }
        let at = self.locate(pos)?;
        if Self::left_out(&at) {
            return self.outcome_by_one_move(pos);
        }
        self.outcome_at(pos, &at)
    }

    /// The outcome stored at a located slot (its plies derived by one move
    /// where the plies file leaves them out).
    fn outcome_at(&self, pos: &G::Position, at: &Stored<G>) -> Result<Outcome, Error> {
        let Stored { tier, entry, table, slot: i } = at;
        let value = Value::from_code(self.code(*tier, table, *i)?).ok_or_else(|| unused(entry, *i))?;
        let plies = if value != Value::Draw && self.has_plies() {
            let plies_file = self.plies_file(*tier, entry)?;
            if plies_file.layout == Layout::Published && i.is_multiple_of(2) {
                // The stored value stands; its count is derived (the derived
                // value is the stored one in a consistent tablebase: verify checks it).
                return Ok(Outcome { value, plies: self.outcome_by_one_move(pos)?.plies });
            }
            let block = self.block(*tier, false, table, *i)?;
            Some(plies_file.plies_in(*i, &block, &*self.block(*tier, true, &plies_file, *i)?)?)
        } else {
            None
        };
        Ok(Outcome { value, plies })
    }

    /// The outcome of an even slot's position by one move, from its
    /// children's (over, or stored in odd slots).
    fn outcome_by_one_move(&self, pos: &G::Position) -> Result<Outcome, Error> {
        let mut children = Vec::new();
        self.game.for_each_child(pos, |c| children.push(c));
        let mut outcomes = Vec::with_capacity(children.len());
        for child in &children {
            let o = match self.game_over(child) {
                Some(o) => o,
                None => self.outcome_at(child, &self.locate_odd(child)?)?,
            };
            outcomes.push(as_child(&self.game, self.distance(), pos, child, o));
        }
        Ok(crate::plies::capped(Outcome::from_children(&outcomes), self.game.no_progress()))
    }

    /// The outcome for the mover of playing into `after` from a position
    /// (plies counted from that position).
    pub fn move_outcome(&self, after: &G::Position) -> Result<Outcome, Error> {
        let o = self.outcome(after)?;
        Ok(Outcome { value: o.value.for_mover(), plies: o.plies.map(|p| p + 1) })
    }

    /// The value of `pos` for the side to move, reading one block (and for
    /// an even slot of a published tablebase, one block per distinct child
    /// table), or none where the read caches hold its piece.
    pub fn value(&self, pos: &G::Position) -> Result<Value, Error> {
        if let Some(v) = self.game.primitive(pos) {
            return Ok(v);
        }
        let at = self.locate(pos)?;
        if !Self::left_out(&at) {
            return self.value_at(&at);
        }
        let mut children = Vec::new();
        self.game.for_each_child(pos, |c| children.push(c));
        let mut values = Vec::with_capacity(children.len());
        for child in &children {
            values.push(match self.game.primitive(child) {
                Some(v) => v,
                None => self.value_at(&self.locate_odd(child)?)?,
            });
        }
        Ok(Value::from_children(values))
    }

    fn value_at(&self, at: &Stored<G>) -> Result<Value, Error> {
        Value::from_code(self.code(at.tier, &at.table, at.slot)?).ok_or_else(|| unused(&at.entry, at.slot))
    }

    /// The value of every legal move for the player making it, in the
    /// game's generation order.
    #[allow(clippy::type_complexity)]
    pub fn move_values(&self, pos: &G::Position) -> Result<Vec<(<G::Rules as Playable>::Move, Value)>, Error> {
        let mut moves = Vec::new();
        self.game.rules().for_each_move(pos, |m, after| moves.push((m, after)));
        moves.into_iter().map(|(m, after)| Ok((m, self.value(&after)?.for_mover()))).collect()
    }

    /// [`TierTables::outcome`] from whole tiers in memory ([`TierTables::complete`],
    /// kept in the cache): for work over many positions of a few tiers.
    pub fn outcome_in_memory(&self, pos: &G::Position) -> Result<Outcome, Error> {
        if let Some(o) = self.game_over(pos) {
            return Ok(o);
        }
        let tier = self.game.tier_of(pos);
        let entry = self.entry_of(pos, tier)?;
        let whole = self.complete(tier)?;
        let i = self.game.canonical_rank(&whole.index, pos);
        whole.outcome(i).ok_or_else(|| unused(&entry, i))
    }

    /// A whole tier as its files store it (every block checked);
    /// [`Error::NoTable`] when it is not held.
    pub fn stored(&self, tier: G::Tier) -> Result<Arc<WholeTier<G>>, Error> {
        if let Some(w) = self.whole.lock().unwrap().stored.get(&tier) {
            return Ok(w.clone());
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
        let whole = Arc::new(WholeTier { tier, index, values, layout: t.layout, plies, plies_layout });
        // The whole tier is in memory now; its open files are not needed again.
        self.plies_files.lock().unwrap().remove(&tier);
        self.files.lock().unwrap().remove(&tier);
        self.whole.lock().unwrap().remember(false, whole.clone());
        Ok(whole)
    }

    /// A whole tier with every value (and plies count) present: as
    /// stored, or with what its files leave out (a published table's even
    /// slots, a DTZ file's even counts) derived from its own stored slots
    /// and those of the child tiers the tablebase holds ([`derive_left_out`]).
    pub fn complete(&self, tier: G::Tier) -> Result<Arc<WholeTier<G>>, Error> {
        if let Some(w) = self.whole.lock().unwrap().complete.get(&tier) {
            return Ok(w.clone());
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
        let refs: Vec<&WholeTier<G>> = children.iter().map(|c| c.as_ref()).collect();
        let own = Arc::new(self.derive_complete(&stored, &refs)?);
        self.whole.lock().unwrap().remember(true, own.clone());
        Ok(own)
    }

    /// `stored` (a tier as [`TierTables::stored`] reads it) with what its
    /// files leave out derived ([`derive_left_out`], by this reader's
    /// derivation) from its stored slots and those of `children`: every
    /// child tier of its tier the tablebase holds, as stored or complete
    /// (a complete child's stored slots are the ones read). Keeps nothing:
    /// [`TierTables::complete`] with the children in the caller's hands.
    pub fn derive_complete(&self, stored: &WholeTier<G>, children: &[&WholeTier<G>]) -> Result<WholeTier<G>, Error> {
        let mut own = WholeTier {
            tier: stored.tier,
            index: self.game.tier_index(stored.tier),
            values: stored.values.clone(),
            layout: stored.layout,
            plies: stored.plies.clone(),
            plies_layout: stored.plies_layout,
        };
        derive_left_out(&self.game, self.deriver, &mut own, children, self.distance())?;
        Ok(own)
    }
}

/// Where a position is stored ([`TierTables::locate`]).
struct Stored<G: TierGame> {
    tier: G::Tier,
    entry: IndexEntry,
    table: Arc<TableFile>,
    slot: u64,
}

/// The error for an unused slot read as a position's.
fn unused(entry: &IndexEntry, slot: u64) -> Error {
    Error::Table(TableError::new(key_of_name(&entry.name), ErrorKind::UnusedSlot { slot }))
}
