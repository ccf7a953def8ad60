//! `foxbase verify`: checks a table directory end to end.
//!
//! 1. The manifest names every file, each file exists with the recorded
//!    length and CRC32, and its header is the tier and variant the manifest
//!    says (so swapped or foreign files are caught).
//! 2. Every block decompresses and matches its CRC32.
//! 3. Every stored value agrees with its children's stored values after one
//!    forward step: a game-over position holds its game-over value; a win has
//!    a child lost for the opponent; a loss has only children won for the
//!    opponent; a draw has no losing child and at least one drawn child.
//!    Published tables store no fox-to-move values: those are derived by
//!    this same step from the sheep-to-move values, which are then checked.

use crate::loaded::{value_by_one_step, Loaded, TierCache};
use crate::manifest::Layout;
use crate::probe::FoxTables;
use foxbase_core::foxgame::FoxTier;
use foxbase_core::notation::format_position;
use foxbase_core::tier::TierGame;
use foxbase_core::Side;
use foxbase_worker::job::table_header;
use foxbase_worker::table::{SlotLayout, TableFile};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// The first problem found, precisely.
#[derive(Debug, Clone)]
pub struct Problem {
    pub file: Option<String>,
    pub block: Option<u64>,
    pub position: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        if let Some(b) = self.block {
            write!(f, "block {b}: ")?;
        }
        if let Some(p) = &self.position {
            write!(f, "position {p}: ")?;
        }
        f.write_str(&self.message)
    }
}

fn problem(file: Option<&str>, message: impl Into<String>) -> Problem {
    Problem { file: file.map(String::from), block: None, position: None, message: message.into() }
}

/// Figures from a successful verification.
#[derive(Debug, Clone, Default)]
pub struct Verified {
    pub tiers: usize,
    pub slots: u64,
    pub positions_checked: u64,
}

/// Tables kept in memory between tiers (a child is read by each of its parents).
const CACHE_BYTES: u64 = 1 << 30;

/// Called after each tier with (tiers done, tiers in all).
pub type OnTier<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// What steps 1 and 2 found: each tier, its file and its block size.
pub struct CheckedFiles {
    pub tables: FoxTables,
    pub tiers: Vec<(FoxTier, String, u64)>,
}

/// Steps 1 and 2: the manifest, every file's length, checksum and header,
/// every block's CRC. Values are not kept.
pub fn check_files(dir: &Path) -> Result<CheckedFiles, Problem> {
    let tables = FoxTables::open(dir).map_err(|e| problem(None, e))?;
    let manifest = &tables.manifest;
    let game = &tables.game;
    let want_layout = match manifest.layout {
        Layout::Solved => SlotLayout::AllStored,
        Layout::Published => SlotLayout::EvenDerived,
    };
    let mut tiers = Vec::new();
    for entry in &manifest.tiers {
        let file = Some(entry.file.as_str());
        let tier = game
            .parse_tier_name(&entry.name)
            .ok_or_else(|| problem(file, format!("manifest names an unknown tier '{}'", entry.name)))?;
        let path = dir.join(&entry.file);
        let real_slots = game.tier_size(&game.tier_index(tier));
        if entry.slots != real_slots {
            return Err(problem(
                file,
                format!("the manifest says {} slots, tier {} has {real_slots}", entry.slots, entry.name),
            ));
        }
        // Header first (a swapped file is named as such), then blocks (a
        // damaged block is named), then the whole-file length and checksum.
        // TableFile's messages start with the full path; the problem names the file already.
        let prefix = format!("{}: ", path.display());
        let local = |e: String| e.strip_prefix(&prefix).map(String::from).unwrap_or(e);
        let t = TableFile::open(&path).map_err(|e| problem(file, local(e)))?;
        t.expect(&path, &table_header(game, tier, entry.slots)).map_err(|e| problem(file, local(e)))?;
        let v = t.read_all().map_err(|e| {
            let block = e.strip_prefix("block ").and_then(|r| r.split(':').next()).and_then(|b| b.parse().ok());
            Problem { file: file.map(String::from), block, position: None, message: e }
        })?;
        let bytes = std::fs::read(&path).map_err(|e| problem(file, format!("cannot read: {e}")))?;
        if bytes.len() as u64 != entry.bytes {
            return Err(problem(file, format!("{} bytes, the manifest says {}", bytes.len(), entry.bytes)));
        }
        let crc = format!("{:08x}", crc32fast::hash(&bytes));
        if crc != entry.crc32 {
            return Err(problem(file, format!("file checksum {crc}, the manifest says {}", entry.crc32)));
        }
        drop(v);
        if t.layout != want_layout {
            return Err(problem(
                file,
                format!("table layout {:?}, but the manifest says the directory is {:?}", t.layout, manifest.layout),
            ));
        }
        tiers.push((tier, entry.file.clone(), t.block_slots as u64));
    }
    Ok(CheckedFiles { tables, tiers })
}

/// Verifies a table directory; the error is the first problem found.
pub fn verify(dir: &Path, on_tier: OnTier) -> Result<Verified, Problem> {
    let CheckedFiles { tables, tiers } = check_files(dir)?;
    let game = &tables.game;
    let manifest = &tables.manifest;
    // Step 3 loads each tier with its children, as a solve does, so memory
    // stays that of a few tiers however large the directory.
    // 3: one forward step from every position.
    let files: HashMap<FoxTier, String> = tiers.iter().map(|(t, f, _)| (*t, f.clone())).collect();
    let mut cache = TierCache::new(game, dir, files, CACHE_BYTES);
    let mut checked = 0;
    for (n, (tier, file, block_slots)) in tiers.iter().enumerate() {
        let load = |cache: &mut TierCache, t: FoxTier| {
            let f = cache.file(t).to_string();
            cache.complete(t).map_err(|e| problem(Some(&f), e))
        };
        let derived_fox_side = cache.stored(*tier).map_err(|e| problem(Some(file), e))?.layout != SlotLayout::AllStored;
        let mut loaded = vec![load(&mut cache, *tier)?];
        for child in game.child_tiers(*tier) {
            if cache.holds(child) {
                loaded.push(load(&mut cache, child)?);
            }
        }
        let refs: Vec<&Loaded> = loaded.iter().map(|l| l.as_ref()).collect();
        let index = &loaded[0].index;
        let own = &loaded[0].values;
        let size = game.tier_size(index);
        let chunk = 1u64 << 16;
        let results: Vec<Result<u64, Problem>> = (0..size.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut count = 0;
                let mut first: Result<(), Problem> = Ok(());
                game.for_each_slot(index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                    let Some(pos) = pos else { return };
                    // A published table's fox-to-move values were just derived by this very step.
                    if first.is_err() || (derived_fox_side && pos.side() == Side::Fox) {
                        return;
                    }
                    count += 1;
                    let fail = |message: String| Problem {
                        file: Some(file.clone()),
                        block: Some(i / block_slots),
                        position: Some(format_position(&pos)),
                        message,
                    };
                    let Some(stored) = own.value(i) else {
                        first = Err(fail(format!("slot {i} holds the unused code 3, but a position belongs there")));
                        return;
                    };
                    first = match value_by_one_step(game, &pos, &refs) {
                        Err(e) => Err(fail(e)),
                        Ok(d) if d != stored => Err(fail(format!(
                            "stored {stored}, but its children say {d} (slot {i} of tier {})",
                            tier.name()
                        ))),
                        Ok(_) => Ok(()),
                    };
                });
                first.map(|_| count)
            })
            .collect();
        for r in results {
            checked += r?;
        }
        on_tier(n + 1, tiers.len());
    }
    Ok(Verified { tiers: tiers.len(), slots: manifest.total_slots(), positions_checked: checked })
}
