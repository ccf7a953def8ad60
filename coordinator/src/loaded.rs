//! Tiers of a table directory held in memory, for `verify` and `publish`:
//! reading tables with their layout, deriving the fox-to-move values that
//! published tables leave out, valuing a position by one forward step, and a
//! bounded cache so that a child read by many parents is decompressed once.

use foxbase_core::foxgame::{FoxGame, FoxTier, TierIndex};
use foxbase_core::notation::format_position;
use foxbase_core::tier::TierGame;
use foxbase_core::{Position, Side, Value};
use foxbase_worker::job::table_header;
use foxbase_worker::packed::PackedValues;
use foxbase_worker::table::{SlotLayout, TableFile};
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A tier's values with its index layout.
pub struct Loaded {
    pub tier: FoxTier,
    pub index: TierIndex,
    pub values: PackedValues,
    /// Which slots of `values` hold values ([`SlotLayout::EvenDerived`]: the odd ones).
    pub layout: SlotLayout,
}

/// The value one forward step gives `pos`, from the values of its children
/// in `loaded` (a game-over position gets its game-over value).
///
/// Errors name a child whose tier is not in `loaded` or whose slot holds the
/// unused code.
pub fn value_by_one_step(game: &FoxGame, pos: &Position, loaded: &[&Loaded]) -> Result<Value, String> {
    if let Some(v) = game.primitive(pos) {
        return Ok(v);
    }
    let (mut any_loss, mut any_draw) = (false, false);
    let mut failure = None;
    game.for_each_child(pos, |child| {
        if failure.is_some() {
            return;
        }
        let v = match game.primitive(&child) {
            Some(v) => v,
            None => {
                let t = game.tier_of(&child);
                let Some(l) = loaded.iter().find(|l| l.tier == t) else {
                    failure = Some(format!("a child is in tier {}, which the directory does not hold", t.name()));
                    return;
                };
                match l.values.value(l.index.canonical_rank(&child)) {
                    Some(v) => v,
                    None => {
                        failure = Some(format!("its child {} holds the unused code 3", format_position(&child)));
                        return;
                    }
                }
            }
        };
        any_loss |= v == Value::Loss;
        any_draw |= v == Value::Draw;
    });
    if let Some(f) = failure {
        return Err(f);
    }
    Ok(if any_loss {
        Value::Win
    } else if any_draw {
        Value::Draw
    } else {
        Value::Loss
    })
}

/// Fills the fox-to-move (even) slots of `own` (whose odd slots were read
/// from a table with [`SlotLayout::EvenDerived`]) by one fox move from its sheep-to-move
/// slots and those of `children` (a fox move stays in the tier or captures
/// into a child tier, and always leaves the sheep to move).
///
/// Precondition: `children` holds every child tier of `own.tier` that the
/// directory holds; their sheep-to-move slots are read, never their even ones.
pub fn fill_fox_to_move(game: &FoxGame, own: &mut Loaded, children: &[&Loaded]) -> Result<(), String> {
    let size = game.tier_size(&own.index);
    let chunk = 1u64 << 16;
    let filled: Vec<Result<Vec<u8>, String>> = {
        let own: &Loaded = own;
        let mut all: Vec<&Loaded> = vec![own];
        all.extend_from_slice(children);
        (0..size.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut codes = Vec::with_capacity(chunk as usize / 2);
                let mut first = Ok(());
                game.for_each_slot(&own.index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                    if i % 2 != 0 || first.is_err() {
                        return;
                    }
                    let Some(pos) = pos else {
                        codes.push(foxbase_worker::packed::UNUSED);
                        return;
                    };
                    debug_assert_eq!(pos.side(), Side::Fox);
                    match value_by_one_step(game, &pos, &all) {
                        Ok(v) => codes.push(v.code()),
                        Err(e) => first = Err(format!("deriving {}: {e}", format_position(&pos))),
                    }
                });
                first.map(|_| codes)
            })
            .collect()
    };
    for (c, codes) in filled.into_iter().enumerate() {
        for (k, code) in codes?.into_iter().enumerate() {
            own.values.set_code(c as u64 * chunk + 2 * k as u64, code);
        }
    }
    own.layout = SlotLayout::AllStored;
    Ok(())
}

/// Reads tier tables of one directory, completing published ones, and keeps
/// recently used tables up to a byte budget.
pub struct TierCache<'a> {
    game: &'a FoxGame,
    dir: PathBuf,
    files: HashMap<FoxTier, String>,
    budget: u64,
    /// Tables as stored (fox-to-move slots of published tables not yet derived).
    stored: HashMap<FoxTier, Arc<Loaded>>,
    /// Tables with every value present.
    complete: HashMap<FoxTier, Arc<Loaded>>,
    /// Insertion order of both maps, oldest first, for eviction.
    order: VecDeque<(bool, FoxTier)>,
    bytes: u64,
}

impl<'a> TierCache<'a> {
    /// `files` maps each tier the directory holds to its file, relative to `dir`.
    pub fn new(game: &'a FoxGame, dir: &Path, files: HashMap<FoxTier, String>, budget: u64) -> TierCache<'a> {
        TierCache {
            game,
            dir: dir.to_path_buf(),
            files,
            budget,
            stored: HashMap::new(),
            complete: HashMap::new(),
            order: VecDeque::new(),
            bytes: 0,
        }
    }

    pub fn holds(&self, tier: FoxTier) -> bool {
        self.files.contains_key(&tier)
    }

    pub fn file(&self, tier: FoxTier) -> &str {
        &self.files[&tier]
    }

    fn remember(&mut self, complete: bool, loaded: Arc<Loaded>) {
        self.bytes += loaded.values.bytes().len() as u64;
        self.order.push_back((complete, loaded.tier));
        let map = if complete { &mut self.complete } else { &mut self.stored };
        map.insert(loaded.tier, loaded);
        while self.bytes > self.budget && self.order.len() > 1 {
            let (c, t) = self.order.pop_front().unwrap();
            let map = if c { &mut self.complete } else { &mut self.stored };
            if let Some(old) = map.remove(&t) {
                self.bytes -= old.values.bytes().len() as u64;
            }
        }
    }

    /// A table as stored.
    pub fn stored(&mut self, tier: FoxTier) -> Result<Arc<Loaded>, String> {
        if let Some(l) = self.stored.get(&tier) {
            return Ok(l.clone());
        }
        let file =
            self.files.get(&tier).ok_or_else(|| format!("the directory holds no table of tier {}", tier.name()))?;
        let path = self.dir.join(file);
        let t = TableFile::open(&path)?;
        let index = self.game.tier_index(tier);
        t.expect(&path, &table_header(self.game, tier, self.game.tier_size(&index)))?;
        let values = t.read_all().map_err(|e| format!("{}: {e}", path.display()))?;
        let loaded = Arc::new(Loaded { tier, index, values, layout: t.layout });
        self.remember(false, loaded.clone());
        Ok(loaded)
    }

    /// A table with every value present: as stored, or for a published
    /// table with its fox-to-move values derived from its own and its
    /// children's sheep-to-move values.
    pub fn complete(&mut self, tier: FoxTier) -> Result<Arc<Loaded>, String> {
        if let Some(l) = self.complete.get(&tier) {
            return Ok(l.clone());
        }
        let stored = self.stored(tier)?;
        if stored.layout == SlotLayout::AllStored {
            return Ok(stored);
        }
        let mut children = Vec::new();
        for child in self.game.child_tiers(tier) {
            if self.holds(child) {
                children.push(self.stored(child)?);
            }
        }
        let mut own = Loaded {
            tier,
            index: self.game.tier_index(tier),
            values: stored.values.clone(),
            layout: SlotLayout::AllStored,
        };
        let refs: Vec<&Loaded> = children.iter().map(|c| c.as_ref()).collect();
        fill_fox_to_move(self.game, &mut own, &refs).map_err(|e| format!("{}: {e}", self.files[&tier]))?;
        let own = Arc::new(own);
        self.remember(true, own.clone());
        Ok(own)
    }
}
