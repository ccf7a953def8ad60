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

use crate::manifest::Manifest;
use crate::probe::FoxTables;
use foxbase_core::foxgame::{FoxGame, FoxTier, TierIndex};
use foxbase_core::notation::format_position;
use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use foxbase_worker::job::table_header;
use foxbase_worker::packed::PackedValues;
use foxbase_worker::table::{read_table, TableFile};
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

/// A tier's values with its layout.
struct Loaded {
    tier: FoxTier,
    index: TierIndex,
    values: PackedValues,
}

/// Figures from a successful verification.
#[derive(Debug, Clone, Default)]
pub struct Verified {
    pub tiers: usize,
    pub slots: u64,
    pub positions_checked: u64,
}

/// Called after each tier with (tiers done, tiers in all).
pub type OnTier<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// Verifies a table directory; the error is the first problem found.
pub fn verify(dir: &Path, on_tier: OnTier) -> Result<Verified, Problem> {
    let manifest = Manifest::read(dir).map_err(|e| problem(None, e))?;
    let tables = FoxTables::open(dir).map_err(|e| problem(None, e))?;
    let game = &tables.game;
    // 1 and 2: files, checksums, headers, blocks. Values are not kept: step
    // 3 loads each tier with its children, as a solve does, so memory stays
    // that of one tier however large the directory.
    let mut block_slots: HashMap<FoxTier, u64> = HashMap::new();
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
        block_slots.insert(tier, t.block_slots as u64);
        tiers.push((tier, entry.file.clone()));
    }
    // 3: one forward step from every position.
    let files: HashMap<FoxTier, &str> = tiers.iter().map(|(t, f)| (*t, f.as_str())).collect();
    let load = |t: FoxTier| -> Result<Loaded, Problem> {
        let file = files[&t];
        let index = game.tier_index(t);
        let header = table_header(game, t, game.tier_size(&index));
        let values = read_table(&dir.join(file), &header).map_err(|e| problem(Some(file), e))?;
        Ok(Loaded { tier: t, index, values })
    };
    let mut checked = 0;
    for (n, (tier, file)) in tiers.iter().enumerate() {
        let mut loaded = vec![load(*tier)?];
        for child in game.child_tiers(*tier) {
            if files.contains_key(&child) {
                loaded.push(load(child)?);
            }
        }
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
                    if first.is_err() {
                        return;
                    }
                    count += 1;
                    let fail = |message: String| Problem {
                        file: Some(file.clone()),
                        block: Some(i / block_slots[tier]),
                        position: Some(format_position(&pos)),
                        message,
                    };
                    let Some(stored) = own.value(i) else {
                        first = Err(fail(format!("slot {i} holds the unused code 3, but a position belongs there")));
                        return;
                    };
                    let derived = derive(game, &pos, &loaded);
                    first = match derived {
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

/// The value one forward step gives, from the stored values of the children.
fn derive(game: &FoxGame, pos: &foxbase_core::Position, loaded: &[Loaded]) -> Result<Value, String> {
    if let Some(v) = game.primitive(pos) {
        return Ok(v);
    }
    let (mut any_loss, mut any_draw) = (false, false);
    let mut missing = None;
    let mut bad_child = None;
    game.for_each_child(pos, |child| {
        let v = match game.primitive(&child) {
            Some(v) => v,
            None => {
                let t = game.tier_of(&child);
                match loaded.iter().find(|l| l.tier == t) {
                    Some(l) => match l.values.value(l.index.canonical_rank(&child)) {
                        Some(v) => v,
                        None => {
                            bad_child = Some(child);
                            return;
                        }
                    },
                    None => {
                        missing = Some(t);
                        return;
                    }
                }
            }
        };
        any_loss |= v == Value::Loss;
        any_draw |= v == Value::Draw;
    });
    if let Some(child) = bad_child {
        return Err(format!("its child {} holds the unused code 3", format_position(&child)));
    }
    if let Some(t) = missing {
        return Err(format!("a child is in tier {}, which the directory does not hold", t.name()));
    }
    Ok(if any_loss {
        Value::Win
    } else if any_draw {
        Value::Draw
    } else {
        Value::Loss
    })
}
