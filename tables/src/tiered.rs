//! [`TierTables`]: a solved tablebase of any [`TierGame`] (Bagh-Chal,
//! tic-tac-toe), read through the tier contract alone.
//!
//! [`TableDir`](crate::TableDir) is the Fox Game's reader (published
//! layouts, the Fox Game's fast child ranks); this one knows nothing of a
//! game but its [`TierGame`] methods. Single values read one block of a
//! table and one of its plies file ([`TierTables::outcome`]); whole tiers
//! are loaded for work over every position ([`TierTables::load`], for
//! stats and [`crate::verify::verify_game`]). Positions are canonicalised
//! before lookup; a position that is over gets its game-over value from
//! [`TierGame::primitive`] (tiers whose positions are all over, such as
//! Bagh-Chal's at the capture target, have no table).
//!
//! A published tablebase ([`Layout::Published`], Bagh-Chal's) stores only
//! the odd slots; an even slot's position (the goats to move, in
//! Bagh-Chal) is valued by one move, from its children's stored odd slots.
//! The layout's precondition, which the game's `Publishable` states and
//! `publish` checks value by value: every child of an even slot's position
//! is over or sits in an odd slot.

use crate::error::{Error, ErrorKind, TableError};
use crate::manifest::Manifest;
use crate::packed::PackedValues;
use crate::plies::Distance;
use crate::plies::Plies;
use crate::source::{DirLocation, Location};
use crate::table::{Layout, TableFile};
use crate::tier_files::{plies_key, table_header, table_key};
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_core::{Outcome, Value};
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A tablebase of `G`, solved or published (see the module documentation).
pub struct TierTables<G: TierGame> {
    pub game: G,
    pub manifest: Manifest,
    /// The manifest's layout: with [`Layout::Published`] even slots are derived.
    layout: Layout,
    location: Box<dyn Location>,
    /// The manifest's tiers, by tier.
    held: HashMap<G::Tier, usize>,
    /// Table (and plies) files opened so far, for single values.
    open: Mutex<HashMap<G::Tier, Arc<OpenTier<G>>>>,
    /// Whole tiers read for work over many positions ([`TierTables::outcome_in_memory`]),
    /// oldest first, at most [`WHOLE_TIER_BYTES`] of them.
    whole: Mutex<VecDeque<Arc<WholeTier<G>>>>,
}

/// The memory [`TierTables::outcome_in_memory`] keeps whole tiers in (at least one tier).
pub const WHOLE_TIER_BYTES: u64 = 1 << 30;

/// A tier's files, opened (header and block index read).
struct OpenTier<G: TierGame> {
    index: G::Index,
    table: TableFile,
    plies: Option<TableFile>,
}

/// A whole tier in memory, of any game: its values and, in a tablebase
/// with plies, its plies, as its files store them or with what their
/// layout leaves out derived ([`fill_derived`]).
pub struct WholeTier<G: TierGame> {
    pub tier: G::Tier,
    pub index: G::Index,
    pub values: PackedValues,
    /// Which slots of `values` hold values ([`Layout::Published`]: the odd ones).
    pub layout: Layout,
    pub plies: Option<Plies>,
    /// Which slots of `plies` hold counts: those of `layout`, or the odd
    /// ones alone where a solved table's DTZ file stores them alone
    /// ([`Layout::holds_plies`]).
    pub plies_layout: Layout,
}

impl<G: TierGame> WholeTier<G> {
    /// The outcome stored at slot `i` (`None` for an unused slot); plies
    /// `None` for a draw or without plies.
    #[inline]
    pub fn outcome(&self, i: u64) -> Option<Outcome> {
        crate::plies::outcome_at(&self.values, self.plies.as_ref(), i)
    }

    /// Bytes held in memory.
    pub fn bytes(&self) -> u64 {
        crate::plies::held_bytes(&self.values, self.plies.as_ref())
    }

    /// Whether every slot's value and plies count is present (none left
    /// for [`fill_derived`]).
    pub fn is_complete(&self) -> bool {
        self.layout == Layout::Solved && self.plies_layout == Layout::Solved
    }
}

/// The outcome of a position that is over, in a tablebase with plies
/// (`plies`) or without: its value, and 0 plies for a win or a loss.
pub fn game_over<G: TierGame>(game: &G, pos: &G::Position, plies: bool) -> Option<Outcome> {
    let v = game.primitive(pos)?;
    Some(Outcome { value: v, plies: (v != Value::Draw && plies).then_some(0) })
}

impl<G: TierGame> TierTables<G> {
    /// Opens the tablebase in a directory.
    pub fn open(game: G, dir: &Path) -> Result<TierTables<G>, Error> {
        TierTables::open_at(game, Box::new(DirLocation::new(dir)))
    }

    /// Opens a tablebase anywhere: reads its manifest and checks that it is
    /// `game`'s (name and variant), solved, with known tiers. Opens no table.
    pub fn open_at(game: G, location: Box<dyn Location>) -> Result<TierTables<G>, Error> {
        let manifest = Manifest::read_from(location.as_ref())?;
        if manifest.game != game.game_name() {
            return Err(Error::Query(format!(
                "{}: tables of game '{}', not {}",
                location.describe(),
                manifest.game,
                game.game_name()
            )));
        }
        if manifest.variant != game.variant_json() {
            return Err(Error::Variant {
                dir: location.describe(),
                message: format!("'{}', expected '{}'", manifest.variant, game.variant_json()),
            });
        }
        let mut held = HashMap::new();
        for (k, entry) in manifest.tiers.iter().enumerate() {
            let tier = game
                .parse_tier_name(&entry.name)
                .ok_or_else(|| Error::Query(format!("the manifest names an unknown tier '{}'", entry.name)))?;
            held.insert(tier, k);
        }
        Ok(TierTables {
            game,
            layout: manifest.layout,
            manifest,
            location,
            held,
            open: Mutex::new(HashMap::new()),
            whole: Mutex::new(VecDeque::new()),
        })
    }

    /// Where the tablebase is, for messages.
    pub fn describe(&self) -> String {
        self.location.describe()
    }

    /// Whether the tablebase holds a table of `tier`.
    pub fn holds(&self, tier: G::Tier) -> bool {
        self.held.contains_key(&tier)
    }

    /// The held tiers, for messages: "tiers p0-c0, p0-c1" (the first ten, then how many more).
    pub fn held_names(&self) -> String {
        let names: Vec<&str> = self.manifest.tiers.iter().map(|t| t.name.as_str()).collect();
        match names.len() {
            0 => "no tier".to_string(),
            n if n <= 10 => format!("tiers {}", names.join(", ")),
            n => format!("tiers {} and {} more", names[..10].join(", "), n - 10),
        }
    }

    /// The tiers held, in the manifest's order (children first).
    pub fn tiers(&self) -> Vec<G::Tier> {
        self.manifest.tiers.iter().filter_map(|t| self.game.parse_tier_name(&t.name)).collect()
    }

    /// Whether every tier has a plies file (solved without `--no-distance`).
    pub fn has_plies(&self) -> bool {
        self.manifest.has_plies()
    }

    /// What its plies files count ([`crate::plies::Distance`]); `None` without plies.
    pub fn distance(&self) -> Option<crate::plies::Distance> {
        self.manifest.distance()
    }

    /// The outcome of a position that is over (0 plies, in a tablebase with plies).
    pub fn game_over(&self, pos: &G::Position) -> Option<Outcome> {
        game_over(&self.game, pos, self.has_plies())
    }

    /// Opens `tier`'s table (and plies file), once; [`Error::NoTable`] when it is not held.
    fn opened(&self, tier: G::Tier) -> Result<Arc<OpenTier<G>>, Error> {
        if let Some(t) = self.open.lock().unwrap().get(&tier) {
            return Ok(t.clone());
        }
        let k = *self.held.get(&tier).ok_or_else(|| Error::NoTable { tier: self.game.tier_name(tier) })?;
        let entry = &self.manifest.tiers[k];
        let index = self.game.tier_index(tier);
        let header = table_header(&self.game, tier, self.game.tier_size(&index));
        let open = |key: &str| -> Result<TableFile, TableError> {
            let source =
                self.location.open(key).map_err(|e| TableError::new(self.location.name_of(key), ErrorKind::Io(e)))?;
            let t = TableFile::from_source(source)?;
            t.expect(&header)?;
            if t.layout != self.layout {
                return Err(TableError::new(
                    t.name(),
                    ErrorKind::LayoutMismatch { found: t.layout, expected: self.layout },
                ));
            }
            Ok(t)
        };
        let table = open(&table_key(&self.game, tier))?;
        let plies = match &entry.plies {
            Some(_) if self.has_plies() => Some(open(&plies_key(&self.game, tier))?),
            _ => None,
        };
        let t = Arc::new(OpenTier { index, table, plies });
        self.open.lock().unwrap().insert(tier, t.clone());
        Ok(t)
    }

    /// The outcome of `pos` for the side to move: its game-over value, or
    /// the stored one (plies `None` for a draw, or without plies). Reads one
    /// block of the table and one of the plies file; a derived slot of a
    /// published tablebase reads those of its children. [`Error::NoTable`]
    /// for a position that is not over in a tier the tablebase does not hold.
    pub fn outcome(&self, pos: &G::Position) -> Result<Outcome, Error> {
        if let Some(o) = self.game_over(pos) {
            return Ok(o);
        }
        let (t, i) = self.slot_of(pos)?;
        if self.layout == Layout::Published && i % 2 == 0 {
            let mut children = Vec::new();
            self.game.for_each_child(pos, |c| children.push(c));
            let mut outcomes = Vec::with_capacity(children.len());
            for child in &children {
                let o = match self.game_over(child) {
                    Some(o) => o,
                    None => {
                        let (ct, ci) = self.slot_of(child)?;
                        if ci % 2 == 0 {
                            // The published layout's precondition broken: never a wrong value.
                            let kind = ErrorKind::DerivedChild { slot: ci };
                            return Err(Error::Table(TableError::new(ct.table.name(), kind)));
                        }
                        self.stored_at(&ct, ci)?
                    }
                };
                outcomes.push(crate::reader::as_child(&self.game, self.distance(), pos, child, o));
            }
            return Ok(crate::plies::capped(Outcome::from_children(&outcomes), self.game.no_progress()));
        }
        self.stored_at(&t, i)
    }

    /// The opened tier of a position that is not over, and its slot.
    fn slot_of(&self, pos: &G::Position) -> Result<(Arc<OpenTier<G>>, u64), Error> {
        let t = self.opened(self.game.tier_of(pos))?;
        let i = self.game.canonical_rank(&t.index, pos);
        Ok((t, i))
    }

    /// The outcome stored in slot `i` of an opened tier.
    fn stored_at(&self, t: &OpenTier<G>, i: u64) -> Result<Outcome, Error> {
        let block = t.table.block_of(i)?;
        let value = Value::from_code(block.code(i))
            .ok_or_else(|| Error::Table(TableError::new(t.table.name(), ErrorKind::UnusedSlot { slot: i })))?;
        let plies = match &t.plies {
            Some(p) if value != Value::Draw => Some(p.plies_at(i, &block)?),
            _ => None,
        };
        Ok(Outcome { value, plies })
    }

    /// The outcome for the mover of playing into `after` from a position
    /// (plies counted from that position).
    pub fn move_outcome(&self, after: &G::Position) -> Result<Outcome, Error> {
        let o = self.outcome(after)?;
        Ok(Outcome { value: o.value.for_mover(), plies: o.plies.map(|p| p + 1) })
    }

    /// A whole tier as its files store it.
    fn load_stored(&self, tier: G::Tier) -> Result<WholeTier<G>, Error> {
        let t = self.opened(tier)?;
        let values = t.table.read_all()?;
        let plies = match &t.plies {
            Some(p) => Some(p.read_all_plies(&values)?),
            None => None,
        };
        let plies_layout = t.plies.as_ref().map_or(t.table.layout, |p| p.layout);
        let (index, layout) = (self.game.tier_index(tier), t.table.layout);
        Ok(WholeTier { tier, index, values, layout, plies, plies_layout })
    }
}

/// What needs the one-step valuation ([`outcome_by_one_step`]).
impl<G: LocateChild + WithRules> TierTables<G> {
    /// [`TierTables::outcome`] from whole tiers in memory (read once, kept
    /// up to [`WHOLE_TIER_BYTES`]): for work over many positions of a few tiers.
    pub fn outcome_in_memory(&self, pos: &G::Position) -> Result<Outcome, Error> {
        if let Some(o) = self.game_over(pos) {
            return Ok(o);
        }
        let tier = self.game.tier_of(pos);
        let kept = self.whole.lock().unwrap().iter().find(|w| w.tier == tier).cloned();
        let whole = match kept {
            Some(w) => w,
            None => {
                let w = Arc::new(self.load(tier)?);
                let mut whole = self.whole.lock().unwrap();
                whole.push_back(w.clone());
                while whole.len() > 1 && whole.iter().map(|w| w.bytes()).sum::<u64>() > WHOLE_TIER_BYTES {
                    whole.pop_front();
                }
                w
            }
        };
        let i = self.game.canonical_rank(&whole.index, pos);
        whole
            .outcome(i)
            .ok_or_else(|| Error::Table(TableError::new(self.game.tier_name(tier), ErrorKind::UnusedSlot { slot: i })))
    }

    /// Reads a whole tier (values, and plies in a tablebase with plies),
    /// checking every block; [`Error::NoTable`] when it is not held. A
    /// published tier (or a plies file storing the odd slots' counts alone)
    /// comes with its derived slots filled in, from its own stored slots and
    /// its held child tiers' ([`fill_derived`]).
    pub fn load(&self, tier: G::Tier) -> Result<WholeTier<G>, Error> {
        let mut own = self.load_stored(tier)?;
        if !own.is_complete() {
            let mut children = Vec::new();
            for child in self.game.child_tiers(tier) {
                if self.holds(child) {
                    children.push(self.load_stored(child)?);
                }
            }
            let children: Vec<&WholeTier<G>> = children.iter().collect();
            fill_derived(&self.game, self.distance(), &mut own, &children)?;
        }
        Ok(own)
    }
}

/// Fills in what the files of `own` leave out (read as stored: a
/// published table's even slots, a plies file's even counts where it
/// stores the odd ones alone) by one move from the odd slots of `own` and
/// `children` (every child tier of `own.tier` the tablebase holds, as
/// stored), for plies to `distance`; an even slot that holds no position
/// gets the unused code. Values stored in every slot stay as stored. Then
/// `own` is complete. [`TierTables::load`]'s derivation, and that of a
/// solve checking a tier it publishes ([`crate::retire`]).
///
/// Precondition (the published layout's, which `publish` checks value by
/// value): every child of an even slot's position is over or sits in an
/// odd slot, so that only stored slots are read.
pub fn fill_derived<G: LocateChild + WithRules>(
    game: &G,
    distance: Option<Distance>,
    own: &mut WholeTier<G>,
    children: &[&WholeTier<G>],
) -> Result<(), Error> {
    let size = own.values.len();
    let chunk = 1u64 << 16;
    let values_stored = own.layout == Layout::Solved;
    let filled: Vec<Result<Vec<DerivedSlot>, Error>> = {
        let mut all: Vec<&WholeTier<G>> = vec![own];
        all.extend_from_slice(children);
        let all = &all;
        (0..size.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut codes = Vec::with_capacity(chunk as usize / 2);
                let mut scratch = StepScratch::default();
                let mut first = Ok(());
                game.for_each_slot(&all[0].index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                    if i % 2 != 0 || first.is_err() {
                        return;
                    }
                    let Some(pos) = pos else {
                        codes.push((i, crate::packed::UNUSED, 0));
                        return;
                    };
                    match outcome_by_one_step(game, &pos, all, distance, &mut scratch) {
                        Ok(o) => codes.push((i, o.value.code(), o.plies.unwrap_or(0) as u16)),
                        Err(source) => {
                            let position = game.rules().format_position(&pos);
                            let file = crate::tier_files::table_key(game, all[0].tier);
                            first = Err(Error::Derive { file, source: DeriveError { position, source } });
                        }
                    }
                });
                first.map(|_| codes)
            })
            .collect()
    };
    for codes in filled {
        for (i, code, plies) in codes? {
            if !values_stored {
                own.values.set_code(i, code);
            }
            if let Some(p) = own.plies.as_mut() {
                p.set(i, plies);
            }
        }
    }
    own.layout = Layout::Solved;
    own.plies_layout = Layout::Solved;
    Ok(())
}

/// A derived slot as [`fill_derived`] fills it: slot, value code, plies.
type DerivedSlot = (u64, u8, u16);

/// Finds a child's slot among whole tiers in memory, for the one-step
/// valuation ([`outcome_by_one_step`]). A game without a faster search
/// than its tier and canonical rank implements it with [`locate_by_tier`]
/// and a `Memo` of `()`.
pub trait LocateChild: TierGame + Sized {
    /// What the search remembers from one child to the next (a loop over
    /// a tier keeps one, in its [`StepScratch`]).
    type Memo: Default + Send;

    /// The index in `loaded` of the tier holding `child` and the slot of
    /// its canonical form there; `None` when no tier of `loaded` holds it.
    fn locate(
        &self,
        memo: &mut Self::Memo,
        loaded: &[&WholeTier<Self>],
        child: &Self::Position,
    ) -> Option<(usize, u64)>;
}

/// [`LocateChild::locate`] by the child's tier and canonical rank.
pub fn locate_by_tier<G: TierGame>(game: &G, loaded: &[&WholeTier<G>], child: &G::Position) -> Option<(usize, u64)> {
    let tier = game.tier_of(child);
    let k = loaded.iter().position(|l| l.tier == tier)?;
    Some((k, game.canonical_rank(&loaded[k].index, child)))
}

/// Scratch of [`outcome_by_one_step`], reused between calls so that loops
/// over a tier allocate nothing: the children's outcomes and the game's
/// [`LocateChild::Memo`].
pub struct StepScratch<G: LocateChild> {
    outcomes: Vec<Outcome>,
    memo: G::Memo,
}

impl<G: LocateChild> Default for StepScratch<G> {
    fn default() -> StepScratch<G> {
        StepScratch { outcomes: Vec::with_capacity(64), memo: G::Memo::default() }
    }
}

/// Why one forward step could not value a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    #[error("a child is in tier {tier}, which the directory does not hold")]
    MissingTier { tier: String },
    #[error("its child {child} holds the unused code 3")]
    UnusedChild { child: String },
}

/// Why what a table's layout leaves out could not be derived.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("deriving {position}: {source}")]
pub struct DeriveError {
    pub position: String,
    #[source]
    pub source: StepError,
}

/// The outcome one forward step gives `pos`, from the values (and plies)
/// of its children in `loaded` ([`Outcome::from_children`]; a game-over
/// position gets its game-over value and 0 plies). A child in a loaded
/// tier is read from its table, which holds game-over positions too (and
/// is checked against the rules when its own tier is verified); a child in
/// a tier without a table must be over. Plies are `None` where a child
/// that counts has none (tables without plies).
///
/// With [`Distance::Dtz`] a child in another tier than `pos` (a zeroing
/// move) counts [`Distance::zeroing_child_plies`], whatever its own.
///
/// Errors name a child whose tier is not in `loaded` and which is not over,
/// or whose slot holds the unused code.
pub fn outcome_by_one_step<G: LocateChild + WithRules>(
    game: &G,
    pos: &G::Position,
    loaded: &[&WholeTier<G>],
    distance: Option<Distance>,
    scratch: &mut StepScratch<G>,
) -> Result<Outcome, StepError> {
    if let Some(o) = game_over(game, pos, true) {
        return Ok(o);
    }
    let own_tier = (distance == Some(Distance::Dtz)).then(|| game.tier_of(pos));
    let zeroing_plies = |v| Distance::zeroing_child_plies(v, game.no_progress() > 0);
    let StepScratch { outcomes, memo } = scratch;
    outcomes.clear();
    let mut failure = None;
    game.for_each_child(pos, |child| {
        if failure.is_some() {
            return;
        }
        let o = match game.locate(memo, loaded, &child) {
            Some((k, slot)) => match loaded[k].outcome(slot) {
                Some(o) if own_tier.is_some_and(|t| t != loaded[k].tier) => {
                    Outcome { plies: zeroing_plies(o.value), ..o }
                }
                Some(o) => o,
                None => {
                    failure = Some(StepError::UnusedChild { child: game.rules().format_position(&child) });
                    return;
                }
            },
            None => match game_over(game, &child, true) {
                Some(o) => o,
                None => {
                    failure = Some(StepError::MissingTier { tier: game.tier_name(game.tier_of(&child)) });
                    return;
                }
            },
        };
        outcomes.push(o);
    });
    match failure {
        Some(f) => Err(f),
        None => Ok(crate::plies::capped(Outcome::from_children(outcomes), game.no_progress())),
    }
}

/// The values of a tier's positions (its used slots; an unused slot holds
/// a don't-care code, docs/format.md), for the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierCounts {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The most plies of a won position and its slot (tables with plies, a tier with a win).
    pub longest_win: Option<(u32, u64)>,
}

impl TierCounts {
    /// Positions counted.
    pub fn positions(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    fn add(mut self, other: TierCounts) -> TierCounts {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        // The longest; among equals the lowest slot, whatever the order of the parts.
        self.longest_win = match (self.longest_win, other.longest_win) {
            (Some(a), Some(b)) => {
                Some(if (b.0, std::cmp::Reverse(b.1)) > (a.0, std::cmp::Reverse(a.1)) { b } else { a })
            }
            (a, b) => a.or(b),
        };
        self
    }
}

impl<G: TierGame> WholeTier<G> {
    /// Counts the values of every used slot (a position of `game`, whose tier this is).
    pub fn counts(&self, game: &G) -> TierCounts {
        let size = self.values.len();
        let chunk = 1u64 << 16;
        (0..size.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut n = TierCounts::default();
                game.for_each_slot(&self.index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                    if pos.is_none() {
                        return;
                    }
                    match self.values.value(i) {
                        Some(Value::Win) => {
                            n.wins += 1;
                            if let Some(p) = &self.plies {
                                let p = p.get(i) as u32;
                                if n.longest_win.is_none_or(|(b, _)| p > b) {
                                    n.longest_win = Some((p, i));
                                }
                            }
                        }
                        Some(Value::Draw) => n.draws += 1,
                        Some(Value::Loss) => n.losses += 1,
                        None => {}
                    }
                });
                n
            })
            .reduce(TierCounts::default, TierCounts::add)
    }
}
