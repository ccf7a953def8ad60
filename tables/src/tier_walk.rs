//! [`TierWalk`]: every tier of a tablebase in turn, whole and complete,
//! with its complete child tiers: the pass of `verify`, and of the
//! comparison of a published tablebase with its solve.
//!
//! A tier is read (and, in a published tablebase, its left-out slots
//! derived, [`TierTables::derive_complete`]) when it is first needed, and
//! kept until the last tier that reads it has been visited. So each tier
//! is read and derived once, as long as what is kept fits a budget in
//! bytes; beyond it, the kept tier needed again latest is dropped first
//! (the choice that drops least: it is read, and derived, again when its
//! turn comes).
//!
//! The order keeps that small: by level of the child relation (a tier with
//! no child among the walked ones is at level 0, any other one level
//! above its highest child), the given order within a level. A tier's
//! parents then tend to follow it within a few levels. The 20-sheep tables
//! of the Fox Game (`--sheep-floor 20`, 17,108 tiers, 13.0 GB of values)
//! keep at most 1.7 GB at once in this order, 6.0 GB in the order of their
//! manifest. The whole game's band is wider (captures lead to the tiers of
//! one sheep fewer): 73.8 GB at once in this order, 130.0 GB in its plan's.
//!
//! So a tier that the budget drops while a parent still needs it is
//! spilled ([`WalkMemory::spill_dir`]): written, compressed, as a table
//! file of its exact bytes (docs/format.md, [`Layout::Solved`]:
//! [`crate::table::write_table_scratch`]) to a directory of the walk's
//! own, and read back from there by its later parents instead of being
//! read and derived again; its file is removed after its last parent, the
//! directory when the walk ends. Without a spill directory such a tier is
//! read and derived again. [`TierWalk::replay`] does the walk's
//! bookkeeping from the tiers' sizes alone, to size a walk before it runs.

use crate::error::{Error, ErrorKind, TableError};
use crate::table::{Layout, TableFile, TableHeader};
use crate::tier_tables::TierTables;
use crate::tiered::{LocateChild, WholeTier};
use foxbase_core::play::WithRules;
use foxbase_core::tier::TierGame;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How a [`TierWalk`] holds complete tiers between the tiers that read them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkMemory {
    /// Bytes of complete tiers kept in memory between visits (at most about this).
    pub kept_bytes: u64,
    /// Where the walk makes its spill directory (see the module
    /// documentation); `None`: a tier dropped from memory is read and
    /// derived again when a parent needs it.
    pub spill_dir: Option<PathBuf>,
}

impl Default for WalkMemory {
    /// [`KEPT_BYTES`] in memory, the rest spilled under the system's
    /// temporary directory (`$TMPDIR`, else `/tmp`).
    fn default() -> WalkMemory {
        WalkMemory { kept_bytes: KEPT_BYTES, spill_dir: Some(std::env::temp_dir()) }
    }
}

/// The default of [`WalkMemory::kept_bytes`]: the most the 20-sheep Fox
/// Game tables keep at once in the walk's order (1.7 GB), with room.
pub const KEPT_BYTES: u64 = 2 << 30;

/// What a [`TierWalk::walk`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkFigures {
    /// Tiers made complete from the tablebase's files: read and, where
    /// their layout leaves slots out, derived. Once a tier unless the
    /// budget dropped one without a spill.
    pub completed: u64,
    /// Complete tiers written to the spill directory.
    pub spilled: u64,
    /// Complete tiers read back from it.
    pub spill_reads: u64,
    /// The most bytes of spill files at once.
    pub spill_high_water: u64,
    /// The most bytes of complete tiers kept in memory at once between visits.
    pub kept_high_water: u64,
}

/// The tiers of a tablebase in walk order with their children. See the
/// module documentation.
pub struct TierWalk<G: TierGame> {
    /// The tiers walked, in walk order.
    order: Vec<G::Tier>,
    /// Per tier of `order`: whether the walk visits it (else it is walked
    /// only as a child of the tiers it visits).
    visits: Vec<bool>,
    /// Per tier of `order`: where its children are in `order` (for a tier
    /// not visited, none: no tier is read for it).
    children: Vec<Vec<usize>>,
    /// Per tier of `order`: all its children in the tablebase, in
    /// [`TierGame::child_tiers`] order, with their place in `order` if
    /// walked: what a tier is derived from when it is made complete.
    derived_from: Vec<Vec<(G::Tier, Option<usize>)>>,
    memory: WalkMemory,
}

impl<G: LocateChild + WithRules> TierWalk<G> {
    /// A walk over `tiers` (each once), their children being those among
    /// `tiers` ([`TierGame::child_tiers`]), holding complete tiers between
    /// visits as `memory` says.
    ///
    /// Panics if the child relation has a cycle: the tier contract
    /// (`foxbase_core::tier`) rules that out.
    pub fn new(game: &G, tiers: &[G::Tier], memory: WalkMemory) -> TierWalk<G> {
        TierWalk::visiting(game, tiers, |_| true, memory)
    }

    /// A walk that visits the tiers of `tiers` for which `visit` holds
    /// (each once), each with its children among `tiers`; a child not
    /// visited itself is walked only to be read for its parents (a
    /// verification going on from its journal: the tiers checked before
    /// are read only where a tier still to check reads them). The order
    /// is by level of the child relation among the tiers walked.
    ///
    /// Panics if the child relation has a cycle.
    pub fn visiting(game: &G, tiers: &[G::Tier], visit: impl Fn(G::Tier) -> bool, memory: WalkMemory) -> TierWalk<G> {
        let at: HashMap<G::Tier, usize> = tiers.iter().enumerate().map(|(i, t)| (*t, i)).collect();
        let all_kids: Vec<Vec<usize>> =
            tiers.iter().map(|t| game.child_tiers(*t).iter().filter_map(|c| at.get(c).copied()).collect()).collect();
        let visited: Vec<bool> = tiers.iter().map(|&t| visit(t)).collect();
        let mut walked = visited.clone();
        for i in (0..tiers.len()).filter(|&i| visited[i]) {
            for &c in &all_kids[i] {
                walked[c] = true;
            }
        }
        let kept: Vec<usize> = (0..tiers.len()).filter(|&i| walked[i]).collect();
        let mut kept_at = vec![usize::MAX; tiers.len()];
        for (k, &i) in kept.iter().enumerate() {
            kept_at[i] = k;
        }
        let kids: Vec<Vec<usize>> =
            kept.iter().map(|&i| all_kids[i].iter().filter(|&&c| walked[c]).map(|&c| kept_at[c]).collect()).collect();
        let level = levels(&kids, |k| game.tier_name(tiers[kept[k]]));
        let mut walk: Vec<usize> = (0..kept.len()).collect();
        walk.sort_by_key(|&k| (level[k], k));
        let mut place = vec![0; kept.len()];
        for (p, &k) in walk.iter().enumerate() {
            place[k] = p;
        }
        let place_of = |i: usize| walked[i].then(|| place[kept_at[i]]);
        TierWalk {
            order: walk.iter().map(|&k| tiers[kept[k]]).collect(),
            visits: walk.iter().map(|&k| visited[kept[k]]).collect(),
            children: walk
                .iter()
                .map(|&k| match visited[kept[k]] {
                    true => kids[k].iter().map(|&c| place[c]).collect(),
                    false => Vec::new(),
                })
                .collect(),
            derived_from: walk
                .iter()
                .map(|&k| all_kids[kept[k]].iter().map(|&c| (tiers[c], place_of(c))).collect())
                .collect(),
            memory,
        }
    }

    /// The tiers walked, in the order [`TierWalk::walk`] comes to them
    /// (those it does not visit among them: [`TierWalk::visiting`]).
    pub fn order(&self) -> &[G::Tier] {
        &self.order
    }

    /// Visits every tier it visits in turn, complete, with its complete
    /// children (in [`TierGame::child_tiers`] order, those walked), read from
    /// `tables`. A tier that cannot be read, derived, spilled or read back
    /// stops the walk with `load_error(tier, why)`; `visit`'s first error
    /// stops it too.
    pub fn walk<E>(
        &self,
        tables: &TierTables<G>,
        load_error: impl Fn(G::Tier, Error) -> E,
        visit: impl FnMut(&WholeTier<G>, &[&WholeTier<G>]) -> Result<(), E>,
    ) -> Result<WalkFigures, E> {
        let spill = match (&self.memory.spill_dir, self.order.first()) {
            (Some(parent), Some(&first)) => Some(Spill::new(parent).map_err(|e| load_error(first, e))?),
            _ => None,
        };
        self.drive(&mut Tables { walk: self, tables, spill, load_error, visit })
    }

    /// What [`TierWalk::walk`] would do, from the bytes each tier takes
    /// complete (`bytes`) alone: the same figures, but for
    /// [`WalkFigures::spill_high_water`], which counts the spilled tiers'
    /// `bytes` (their files are compressed, so smaller).
    pub fn replay(&self, bytes: impl Fn(G::Tier) -> u64) -> WalkFigures {
        let mut sizes = Sizes {
            bytes: self.order.iter().map(|&t| bytes(t)).collect(),
            spills: self.memory.spill_dir.is_some(),
            spilled: HashMap::new(),
            spill_bytes: 0,
        };
        match self.drive(&mut sizes) {
            Ok(figures) => figures,
            Err(never) => match never {},
        }
    }

    /// The walk's bookkeeping, whatever is held of a tier (`H`): each tier
    /// in turn with its children, loaded unless kept; what a later tier
    /// reads again kept, the kept tier needed again latest set aside while
    /// the kept bytes are over the budget; a tier released after its last
    /// reader.
    fn drive<H: Holder>(&self, holder: &mut H) -> Result<WalkFigures, H::Error> {
        // Where each tier is read: its own place, then each parent's (ascending).
        // A tier not visited is read at its parents' places alone.
        let mut uses: Vec<VecDeque<usize>> = vec![VecDeque::new(); self.order.len()];
        for (k, kids) in self.children.iter().enumerate().filter(|&(k, _)| self.visits[k]) {
            uses[k].push_back(k);
            for &c in kids {
                uses[c].push_back(k);
            }
        }
        let mut figures = WalkFigures::default();
        let mut kept: HashMap<usize, H::Held> = HashMap::new();
        let mut kept_bytes = 0;
        for k in (0..self.order.len()).filter(|&k| self.visits[k]) {
            let needed: Vec<usize> = std::iter::once(k).chain(self.children[k].iter().copied()).collect();
            let mut loaded = Vec::with_capacity(needed.len());
            for &u in &needed {
                loaded.push(match kept.get(&u) {
                    Some(held) => held.clone(),
                    None => holder.load(u, &kept, &mut figures)?,
                });
            }
            holder.visit(&loaded)?;
            for (&u, held) in needed.iter().zip(loaded) {
                while uses[u].front().is_some_and(|&at| at <= k) {
                    uses[u].pop_front();
                }
                if uses[u].is_empty() {
                    if let Some(held) = kept.remove(&u) {
                        kept_bytes -= holder.bytes(&held);
                    }
                    holder.release(u);
                } else if let std::collections::hash_map::Entry::Vacant(slot) = kept.entry(u) {
                    kept_bytes += holder.bytes(&held);
                    slot.insert(held);
                }
            }
            while kept_bytes > self.memory.kept_bytes {
                let latest = *kept.keys().max_by_key(|&&u| (uses[u][0], u)).expect("kept bytes of no tier");
                let held = kept.remove(&latest).expect("just found");
                kept_bytes -= holder.bytes(&held);
                holder.set_aside(latest, &held, &mut figures)?;
            }
            figures.kept_high_water = figures.kept_high_water.max(kept_bytes);
        }
        Ok(figures)
    }

    /// The tier at `u` complete: read and derived from its children, kept
    /// or read.
    fn complete(
        &self,
        tables: &TierTables<G>,
        u: usize,
        kept: &HashMap<usize, Arc<WholeTier<G>>>,
    ) -> Result<Arc<WholeTier<G>>, Error> {
        let stored = tables.stored(self.order[u])?;
        if stored.is_complete() {
            return Ok(stored);
        }
        let children = self.derived_from[u]
            .iter()
            .map(|&(tier, c)| c.and_then(|c| kept.get(&c)).map_or_else(|| tables.stored(tier), |w| Ok(w.clone())))
            .collect::<Result<Vec<_>, Error>>()?;
        let refs: Vec<&WholeTier<G>> = children.iter().map(|w| w.as_ref()).collect();
        Ok(Arc::new(tables.derive_complete(&stored, &refs)?))
    }
}

/// What a walk holds of each tier and how it gets it ([`TierWalk::drive`]).
trait Holder {
    /// What is held of a tier.
    type Held: Clone;
    type Error;
    fn bytes(&self, held: &Self::Held) -> u64;
    /// The tier at walk place `u`, not kept: read back if it was set
    /// aside, else made complete (`kept` may hold its children).
    fn load(
        &mut self,
        u: usize,
        kept: &HashMap<usize, Self::Held>,
        figures: &mut WalkFigures,
    ) -> Result<Self::Held, Self::Error>;
    /// A tier's turn: `loaded` is it, then its children.
    fn visit(&mut self, loaded: &[Self::Held]) -> Result<(), Self::Error>;
    /// The tier at `u`, which a later tier reads, no longer kept in memory.
    fn set_aside(&mut self, u: usize, held: &Self::Held, figures: &mut WalkFigures) -> Result<(), Self::Error>;
    /// No later tier reads the tier at `u`.
    fn release(&mut self, u: usize);
}

/// [`TierWalk::walk`]'s holder: complete tiers read from a tablebase,
/// spilled to disk when set aside (without a spill, dropped).
struct Tables<'a, G: LocateChild + WithRules, L, V> {
    walk: &'a TierWalk<G>,
    tables: &'a TierTables<G>,
    spill: Option<Spill>,
    load_error: L,
    visit: V,
}

impl<G, E, L, V> Holder for Tables<'_, G, L, V>
where
    G: LocateChild + WithRules,
    L: Fn(G::Tier, Error) -> E,
    V: FnMut(&WholeTier<G>, &[&WholeTier<G>]) -> Result<(), E>,
{
    type Held = Arc<WholeTier<G>>;
    type Error = E;

    fn bytes(&self, held: &Self::Held) -> u64 {
        held.bytes()
    }

    fn load(
        &mut self,
        u: usize,
        kept: &HashMap<usize, Self::Held>,
        figures: &mut WalkFigures,
    ) -> Result<Self::Held, E> {
        let tier = self.walk.order[u];
        if let Some(read) = self.spill.as_ref().and_then(|s| s.read(&self.tables.game, tier, u)) {
            figures.spill_reads += 1;
            return Ok(Arc::new(read.map_err(|e| (self.load_error)(tier, e))?));
        }
        figures.completed += 1;
        self.walk.complete(self.tables, u, kept).map_err(|e| (self.load_error)(tier, e))
    }

    fn visit(&mut self, loaded: &[Self::Held]) -> Result<(), E> {
        let refs: Vec<&WholeTier<G>> = loaded.iter().map(|w| w.as_ref()).collect();
        (self.visit)(refs[0], &refs[1..])
    }

    fn set_aside(&mut self, u: usize, held: &Self::Held, figures: &mut WalkFigures) -> Result<(), E> {
        if let Some(spill) = self.spill.as_mut() {
            let wrote =
                spill.write(&self.tables.game, u, held).map_err(|e| (self.load_error)(self.walk.order[u], e))?;
            if wrote {
                figures.spilled += 1;
                figures.spill_high_water = figures.spill_high_water.max(spill.bytes);
            }
        }
        Ok(())
    }

    fn release(&mut self, u: usize) {
        if let Some(spill) = self.spill.as_mut() {
            spill.remove(u);
        }
    }
}

/// [`TierWalk::replay`]'s holder: each tier's bytes alone.
struct Sizes {
    bytes: Vec<u64>,
    spills: bool,
    /// The tiers set aside, with their bytes.
    spilled: HashMap<usize, u64>,
    spill_bytes: u64,
}

impl Holder for Sizes {
    type Held = u64;
    type Error = std::convert::Infallible;

    fn bytes(&self, held: &u64) -> u64 {
        *held
    }

    fn load(&mut self, u: usize, _: &HashMap<usize, u64>, figures: &mut WalkFigures) -> Result<u64, Self::Error> {
        match self.spilled.contains_key(&u) {
            true => figures.spill_reads += 1,
            false => figures.completed += 1,
        }
        Ok(self.bytes[u])
    }

    fn visit(&mut self, _: &[u64]) -> Result<(), Self::Error> {
        Ok(())
    }

    fn set_aside(&mut self, u: usize, held: &u64, figures: &mut WalkFigures) -> Result<(), Self::Error> {
        if self.spills && !self.spilled.contains_key(&u) {
            self.spilled.insert(u, *held);
            self.spill_bytes += held;
            figures.spilled += 1;
            figures.spill_high_water = figures.spill_high_water.max(self.spill_bytes);
        }
        Ok(())
    }

    fn release(&mut self, u: usize) {
        if let Some(bytes) = self.spilled.remove(&u) {
            self.spill_bytes -= bytes;
        }
    }
}

/// A walk's spill directory (see the module documentation): complete
/// tiers by their place in the walk, as table files of their exact bytes
/// (and plies files), not synced: nothing outlives the walk, which removes
/// the directory when it ends, however it ends.
struct Spill {
    dir: PathBuf,
    /// Per spilled tier, the bytes of its files and whether it has plies.
    files: HashMap<usize, (u64, bool)>,
    /// The bytes of all of them.
    bytes: u64,
}

impl Spill {
    /// A new directory of this walk's own under `parent`.
    fn new(parent: &Path) -> Result<Spill, Error> {
        static WALKS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let walk = WALKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = parent.join(format!("foxbase-walk-{}-{walk}", std::process::id()));
        let io = |e| Error::Table(TableError::new(dir.display().to_string(), ErrorKind::Io(e)));
        // A directory left by an earlier process of the same id is stale: it is replaced.
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(io)?;
        }
        std::fs::create_dir(&dir).map_err(io)?;
        Ok(Spill { dir, files: HashMap::new(), bytes: 0 })
    }

    fn path(&self, u: usize, plies: bool) -> PathBuf {
        self.dir.join(if plies { format!("{u}.plies") } else { format!("{u}.values") })
    }

    /// Writes the complete tier at walk place `u` unless it is there
    /// already; whether it wrote it.
    fn write<G: TierGame>(&mut self, game: &G, u: usize, whole: &WholeTier<G>) -> Result<bool, Error> {
        if self.files.contains_key(&u) {
            return Ok(false);
        }
        let header = TableHeader {
            game: game.game_name().to_string(),
            variant: game.variant_json(),
            tier: game.tier_name(whole.tier),
            slots: whole.values.len(),
        };
        let mut bytes = crate::table::write_table_scratch(&self.path(u, false), &header, &whole.values)?;
        if let Some(plies) = &whole.plies {
            let path = self.path(u, true);
            bytes += crate::table::write_plies_upload(&path, &header, plies, None, Layout::Solved, false)?.1;
        }
        self.files.insert(u, (bytes, whole.plies.is_some()));
        self.bytes += bytes;
        Ok(true)
    }

    /// The complete tier `tier` at walk place `u`, if it was spilled.
    fn read<G: TierGame>(&self, game: &G, tier: G::Tier, u: usize) -> Option<Result<WholeTier<G>, Error>> {
        self.files.get(&u).map(|&(_, has_plies)| {
            let values = TableFile::open(&self.path(u, false))?.read_all()?;
            let plies = match has_plies {
                true => Some(TableFile::open(&self.path(u, true))?.read_all_plies(&values)?),
                false => None,
            };
            let index = game.tier_index(tier);
            Ok(WholeTier { tier, index, values, layout: Layout::Solved, plies, plies_layout: Layout::Solved })
        })
    }

    /// Removes the files of the tier at walk place `u`, if it was spilled.
    fn remove(&mut self, u: usize) {
        if let Some((bytes, _)) = self.files.remove(&u) {
            self.bytes -= bytes;
            // What cannot be removed now goes with the directory.
            let _ = std::fs::remove_file(self.path(u, false));
            let _ = std::fs::remove_file(self.path(u, true));
        }
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        // Nothing in it is needed once the walk is over; a failure leaves
        // files in a temporary directory, which is no reason to fail.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Each node's level in the DAG whose edges are `kids` (node to child): 0
/// without children, else one more than its highest child's. `name` names
/// a node of a cycle in the panic.
fn levels(kids: &[Vec<usize>], name: impl Fn(usize) -> String) -> Vec<u32> {
    const NOT_YET: u32 = u32::MAX;
    let mut level = vec![NOT_YET; kids.len()];
    let mut on_path = vec![false; kids.len()];
    for root in 0..kids.len() {
        if level[root] != NOT_YET {
            continue;
        }
        // Depth first, children before their parent; (node, next child to look at).
        let mut path = vec![(root, 0)];
        on_path[root] = true;
        while let Some((node, next)) = path.last_mut() {
            let node = *node;
            if let Some(&c) = kids[node].get(*next) {
                *next += 1;
                if level[c] == NOT_YET {
                    assert!(!on_path[c], "tier {} is its own descendant: the tier contract has no cycles", name(c));
                    on_path[c] = true;
                    path.push((c, 0));
                }
            } else {
                level[node] = kids[node].iter().map(|&c| level[c] + 1).max().unwrap_or(0);
                on_path[node] = false;
                path.pop();
            }
        }
    }
    level
}

#[cfg(test)]
mod tests {
    use super::levels;

    #[test]
    fn levels_count_from_the_leaves() {
        // 0 <- 1 <- 3, 0 <- 2 <- 3, 3 <- 4, and 5 alone.
        let kids = vec![vec![], vec![0], vec![0], vec![1, 2], vec![3], vec![]];
        assert_eq!(levels(&kids, |i| i.to_string()), vec![0, 1, 1, 2, 3, 0]);
        // A longer path decides: 4 reads 0 directly and through 3.
        let kids = vec![vec![], vec![0], vec![0], vec![1, 2], vec![3, 0], vec![]];
        assert_eq!(levels(&kids, |i| i.to_string())[4], 3);
    }

    #[test]
    #[should_panic(expected = "tier 0 is its own descendant")]
    fn a_cycle_is_a_broken_contract() {
        levels(&[vec![1], vec![0]], |i| i.to_string());
    }
}
