//! Tables taken from another solve instead of solved again (`foxbase
//! solve --tables-from DIR`).
//!
//! A tier's table depends on the game's rules, not on where play starts
//! ([`TierGame::play_only_variant_keys`]), so solves from different starts
//! share the tiers both plan. The capture-bounded solves of docs/results.md
//! are the case in point: a 20-sheep solve under the floor F = 19 needs
//! every 19-sheep tier under F = 19, which the solve from a 19-sheep start
//! holds already, so it solves only the 20-sheep tiers.
//!
//! An imported tier is written as this solve would have written it: its
//! files are copied with this solve's variant in their headers
//! ([`foxbase_tables::table::relabel`]; the blocks as they are stored),
//! after each source file is checked against the CRC32 its manifest
//! records. Then it is journaled like a tier the solve finished.

use crate::error::CoordinatorError;
use crate::plan::TierPlan;
use foxbase_core::tier::TierGame;
use foxbase_tables::manifest::{Manifest, PliesEntry, TierEntry};
use foxbase_tables::plies::Distance;
use foxbase_tables::table::{relabel, Layout};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A finished solve's directory whose tables a solve may take: same game,
/// same rules but for the keys no table depends on, solved layout.
pub struct TableSource {
    dir: PathBuf,
    manifest: Manifest,
}

impl TableSource {
    /// Opens `dir` (a directory a solve finished: it has `manifest.json`)
    /// as a source of `game`'s tables. Refused, naming the difference: a
    /// directory without a readable manifest, of another game, of other
    /// rules, or a published tablebase (its tables are not a solve's).
    pub fn open<G: TierGame>(game: &G, dir: &Path) -> Result<TableSource, CoordinatorError> {
        let refuse = |why: String| CoordinatorError::Output(format!("--tables-from {}: {why}", dir.display()));
        let manifest = Manifest::read(dir).map_err(|e| {
            refuse(format!(
                "{e} (a finished solve's directory is needed; an unfinished one can be finished with --resume)"
            ))
        })?;
        if manifest.game != game.game_name() {
            return Err(refuse(format!("tables of the game {}, this solve is of {}", manifest.game, game.game_name())));
        }
        let (theirs, ours) = (table_rules(game, &manifest.variant), table_rules(game, &game.variant_json()));
        if theirs.is_none() || theirs != ours {
            let ignored = game.play_only_variant_keys().join(", ");
            return Err(refuse(format!(
                "solved under the variant {}, this solve's is {} (they must agree but for: {})",
                manifest.variant,
                game.variant_json(),
                if ignored.is_empty() { "nothing" } else { &ignored }
            )));
        }
        if manifest.layout != Layout::Solved {
            return Err(refuse(format!(
                "a {} tablebase; a solve takes only tables a solve wrote (its --out directory)",
                manifest.layout.name()
            )));
        }
        Ok(TableSource { dir: dir.to_path_buf(), manifest })
    }
}

/// The variant JSON `variant` without the keys no table depends on; `None`
/// when it is not a JSON object.
fn table_rules<G: TierGame>(game: &G, variant: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let serde_json::Value::Object(mut map) = serde_json::from_str(variant).ok()? else { return None };
    for key in game.play_only_variant_keys() {
        map.remove(*key);
    }
    Some(map)
}

/// Imports into the solve directory `dir` the tiers of `plan` that are not
/// `finished` and that a source holds (the first that does), and returns
/// their manifest entries, in plan order, once their files are in
/// `dir/tiers` (not synced: the caller syncs the filesystem before it
/// journals them). A solve with a `distance` takes only tiers solved with
/// plies of that distance; a values-only solve takes the tables alone.
///
/// A source file that is missing or not as its manifest records fails the
/// import, and the files it wrote so far are removed.
pub fn import<G: TierGame>(
    game: &G,
    plan: &TierPlan<G>,
    sources: &[TableSource],
    dir: &Path,
    finished: &[TierEntry],
    distance: Option<Distance>,
    progress: &dyn Fn(usize, u64),
) -> Result<Vec<TierEntry>, CoordinatorError> {
    let done: HashSet<&str> = finished.iter().map(|e| e.name.as_str()).collect();
    let mut offered: HashMap<&str, (&TableSource, &TierEntry)> = HashMap::new();
    for source in sources.iter().rev() {
        for entry in &source.manifest.tiers {
            if distance.is_none_or(|d| entry.plies.as_ref().is_some_and(|p| p.distance == d)) {
                offered.insert(entry.name.as_str(), (source, entry));
            }
        }
    }
    let variant = game.variant_json();
    let mut written: Vec<PathBuf> = Vec::new();
    let mut imported = Vec::new();
    let mut slots = 0u64;
    for &tier in &plan.order {
        let name = game.tier_name(tier);
        let Some(&(source, entry)) = offered.get(name.as_str()).filter(|_| !done.contains(name.as_str())) else {
            continue;
        };
        let copied = copy_tier(source, entry, dir, &variant, distance.is_some(), &mut written);
        match copied {
            Ok(entry) => {
                slots += entry.slots;
                imported.push(entry);
                progress(imported.len(), slots);
            }
            Err(e) => {
                for path in &written {
                    let _ = std::fs::remove_file(path);
                }
                return Err(e);
            }
        }
    }
    Ok(imported)
}

/// Copies one tier's files from `source` into `dir`, relabelled with
/// `variant`, noting each path in `written`; returns its entry here.
fn copy_tier(
    source: &TableSource,
    entry: &TierEntry,
    dir: &Path,
    variant: &str,
    plies: bool,
    written: &mut Vec<PathBuf>,
) -> Result<TierEntry, CoordinatorError> {
    let copy = |file: &str, crc: &str, written: &mut Vec<PathBuf>| -> Result<(String, u64), CoordinatorError> {
        let (from, to) = (source.dir.join(file), dir.join(file));
        let expect = u32::from_str_radix(crc, 16).map_err(|_| {
            CoordinatorError::Output(format!(
                "--tables-from {}: tier {}: the manifest's CRC32 '{crc}' is not 8 hex digits",
                source.dir.display(),
                entry.name
            ))
        })?;
        written.push(to.clone());
        let (crc, bytes) = relabel(&from, expect, variant, &to)?;
        Ok((format!("{crc:08x}"), bytes))
    };
    let (crc32, bytes) = copy(&entry.file, &entry.crc32, written)?;
    let plies = match (&entry.plies, plies) {
        (Some(p), true) => {
            let (crc32, bytes) = copy(&p.file, &p.crc32, written)?;
            Some(PliesEntry { crc32, bytes, ..p.clone() })
        }
        _ => None,
    };
    Ok(TierEntry { crc32, bytes, plies, ..entry.clone() })
}
