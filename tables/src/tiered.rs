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
use crate::plies::Plies;
use crate::source::{DirLocation, Location};
use crate::table::{Layout, TableFile};
use crate::tier_files::{plies_key, table_header, table_key};
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

/// A whole tier in memory: its values and, in a tablebase with plies, its plies.
pub struct WholeTier<G: TierGame> {
    pub tier: G::Tier,
    pub index: G::Index,
    pub values: PackedValues,
    pub plies: Option<Plies>,
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
        let v = self.game.primitive(pos)?;
        Some(Outcome { value: v, plies: (v != Value::Draw && self.has_plies()).then_some(0) })
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

    /// The outcome for the mover of playing into `after` from a position
    /// (plies counted from that position).
    pub fn move_outcome(&self, after: &G::Position) -> Result<Outcome, Error> {
        let o = self.outcome(after)?;
        Ok(Outcome { value: o.value.for_mover(), plies: o.plies.map(|p| p + 1) })
    }

    /// Reads a whole tier (values, and plies in a tablebase with plies),
    /// checking every block; [`Error::NoTable`] when it is not held. A
    /// published tier comes with its derived slots filled in, from its own
    /// stored slots and its held child tiers'.
    pub fn load(&self, tier: G::Tier) -> Result<WholeTier<G>, Error> {
        let mut own = self.load_stored(tier)?;
        if self.layout == Layout::Published {
            let mut children = Vec::new();
            for child in self.game.child_tiers(tier) {
                if self.holds(child) {
                    children.push(self.load_stored(child)?);
                }
            }
            fill_derived(&self.game, self.distance(), &mut own, &children)?;
        }
        Ok(own)
    }

    /// A whole tier as its files store it.
    fn load_stored(&self, tier: G::Tier) -> Result<WholeTier<G>, Error> {
        let t = self.opened(tier)?;
        let values = t.table.read_all()?;
        let plies = match &t.plies {
            Some(p) => Some(p.read_all_plies(&values)?),
            None => None,
        };
        Ok(WholeTier { tier, index: self.game.tier_index(tier), values, plies })
    }
}

/// Fills the even slots of `own` (as stored in a published table) by one
/// move from the odd slots of `own` and `children` (its held child tiers,
/// as stored): [`TierTables::load`]'s derivation, and that of a solve
/// checking a tier it publishes ([`crate::retire`]).
pub fn fill_derived<G: TierGame>(
    game: &G,
    distance: Option<crate::plies::Distance>,
    own: &mut WholeTier<G>,
    children: &[WholeTier<G>],
) -> Result<(), Error> {
    let size = own.values.len();
    let chunk = 1u64 << 16;
    let with_plies = own.plies.is_some();
    let filled: Vec<Result<Vec<DerivedSlot>, Error>> = {
        let mut all: Vec<&WholeTier<G>> = vec![own];
        all.extend(children);
        let all = &all;
        (0..size.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut codes = Vec::with_capacity(chunk as usize / 2);
                let mut outcomes = Vec::with_capacity(64);
                let mut first = Ok(());
                let format = |p: &G::Position| format!("{p:?}");
                game.for_each_slot(&all[0].index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                    let Some(pos) = pos.filter(|_| i % 2 == 0 && first.is_ok()) else { return };
                    match game_outcome_by_one_step(game, &pos, all, &format, distance, &mut outcomes) {
                        Ok(o) => codes.push((i, o.value.code(), o.plies.filter(|_| with_plies).unwrap_or(0) as u16)),
                        Err(e) => first = Err(e.into_error(game.tier_name(all[0].tier), i)),
                    }
                });
                first.map(|_| codes)
            })
            .collect()
    };
    for codes in filled {
        for (i, code, plies) in codes? {
            own.values.set_code(i, code);
            if let Some(p) = own.plies.as_mut() {
                p.set(i, plies);
            }
        }
    }
    Ok(())
}

/// A derived slot as [`fill_derived`] fills it: slot, value code, plies.
type DerivedSlot = (u64, u8, u16);

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

/// Why one forward step could not value a position of a [`TierGame`].
pub(crate) enum GameStepError {
    /// A child that is not over, in a tier the tablebase does not hold.
    MissingTier(String),
    /// A child whose slot holds the unused code.
    UnusedChild(String),
}

impl GameStepError {
    /// The error of a derived slot `slot` of `tier` that could not be filled.
    fn into_error(self, tier: String, slot: u64) -> Error {
        let message = match self {
            GameStepError::MissingTier(t) => format!("a child is in tier {t}, which the tablebase does not hold"),
            GameStepError::UnusedChild(child) => format!("its child {child} holds the unused code 3"),
        };
        Error::Query(format!("deriving slot {slot} of tier {tier}: {message}"))
    }
}

/// The outcome one forward step gives `pos` from its children's stored
/// outcomes in `loaded` (a game-over position: its game-over value and 0
/// plies; a child in a tier without a table must be over).
pub(crate) fn game_outcome_by_one_step<G: TierGame>(
    game: &G,
    pos: &G::Position,
    loaded: &[&WholeTier<G>],
    format: &(dyn Fn(&G::Position) -> String + Sync),
    distance: Option<crate::plies::Distance>,
    outcomes: &mut Vec<foxbase_core::Outcome>,
) -> Result<foxbase_core::Outcome, GameStepError> {
    use foxbase_core::Outcome;
    let over = |v: Value| Outcome { value: v, plies: (v != Value::Draw).then_some(0) };
    if let Some(v) = game.primitive(pos) {
        return Ok(over(v));
    }
    outcomes.clear();
    let mut failure = None;
    game.for_each_child(pos, |child| {
        if failure.is_some() {
            return;
        }
        let tier = game.tier_of(&child);
        let o = match loaded.iter().find(|l| l.tier == tier) {
            Some(l) => match l.outcome(game.canonical_rank(&l.index, &child)) {
                // With DTZ a move into another tier is zeroing.
                Some(o) if distance == Some(crate::plies::Distance::Dtz) && tier != loaded[0].tier => {
                    Outcome { plies: crate::plies::Distance::zeroing_child_plies(o.value, game.no_progress() > 0), ..o }
                }
                Some(o) => o,
                None => {
                    failure = Some(GameStepError::UnusedChild(format(&game.canonical(&child))));
                    return;
                }
            },
            None => match game.primitive(&child) {
                Some(v) => over(v),
                None => {
                    failure = Some(GameStepError::MissingTier(game.tier_name(tier)));
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
