//! `foxbase publish`: turns the tables a solve wrote into the distributable
//! tablebase: every table rewritten with its fox-to-move values left out
//! (derived by one fox move when read) and compressed harder, a manifest
//! saying so, and a check that the result gives back every solved value.

use crate::dir::TableDir;
use crate::error::{io_error, Error, ErrorKind, TableError};
use crate::manifest::{Layout, Manifest, PliesEntry, TierEntry};
use crate::plies::read_plies;
use crate::table::{read_table, write_plies, write_table_layout, TableFile, DEFAULT_BLOCK_SLOTS};
use crate::tier_files::table_header;
use crate::verify::OnTier;
use foxbase_core::foxgame::{FoxGame, FoxTier};
use foxbase_core::notation::format_position;
use foxbase_core::tier::TierGame;
use foxbase_core::{Value, Variant};
use rayon::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};

/// Figures from a publish.
#[derive(Clone, Debug)]
pub struct Published {
    pub tiers: usize,
    pub slots: u64,
    pub source_bytes: u64,
    pub bytes: u64,
    /// Bytes of the published plies files (0 without plies).
    pub plies_bytes: u64,
}

/// Publishes the solved directory `src` as the new directory `out`, with
/// zstd `level`. The tables are built in a sibling directory and renamed to
/// `out` only after every check passed, so `out` never holds part of a
/// tablebase. `on_tier(done, total)` reports progress over both passes
/// (writing, then checking: `total` is twice the number of tiers).
pub fn publish(src: &Path, out: &Path, level: i32, on_tier: OnTier) -> Result<Published, Error> {
    if out.exists() {
        return Err(Error::OutputExists(out.display().to_string()));
    }
    let manifest = Manifest::read(src)?;
    if manifest.layout != Layout::Solved {
        return Err(Error::AlreadyPublished(src.display().to_string()));
    }
    if manifest.game != "fox" {
        return Err(Error::NotFoxGame { dir: src.display().to_string(), game: manifest.game });
    }
    let variant = Variant::from_json(&manifest.variant)
        .map_err(|e| Error::Variant { dir: src.display().to_string(), message: e.to_string() })?;
    let game = FoxGame::new(variant);
    let name = out.file_name().ok_or_else(|| Error::NotADirectoryName(out.display().to_string()))?;
    let parent = crate::durable::parent_dir(out);
    let staging: PathBuf = parent.join(format!(".{}.partial", name.to_string_lossy()));
    if staging.exists() {
        // Left by an interrupted publish: nothing in it was ever published.
        fs::remove_dir_all(&staging).map_err(io_error(staging.display().to_string()))?;
    }
    let published = match build(src, &staging, &manifest, level, on_tier, &game) {
        Ok(p) => p,
        Err(e) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    crate::durable::rename(&staging, out).map_err(io_error(out.display().to_string()))?;
    Ok(published)
}

fn build(
    src: &Path,
    staging: &Path,
    manifest: &Manifest,
    level: i32,
    on_tier: OnTier,
    game: &FoxGame,
) -> Result<Published, Error> {
    fs::create_dir_all(staging.join("tiers")).map_err(io_error(staging.display().to_string()))?;
    let tiers: Vec<(FoxTier, &TierEntry)> = manifest
        .tiers
        .iter()
        .map(|e| {
            game.parse_tier_name(&e.name)
                .map(|t| (t, e))
                .ok_or_else(|| Error::Query(format!("unknown tier '{}'", e.name)))
        })
        .collect::<Result<_, _>>()?;
    let total = tiers.len() * 2;
    let done = std::sync::atomic::AtomicUsize::new(0);
    // Pass 1: rewrite every table (tiers in parallel: most are one block).
    let written: Vec<Result<TierEntry, TableError>> = tiers
        .par_iter()
        .map(|(tier, entry)| {
            let path = src.join(&entry.file);
            let bytes = fs::read(&path).map_err(io_error(path.display().to_string()))?;
            let crc = format!("{:08x}", crc32fast::hash(&bytes));
            if crc != entry.crc32 || bytes.len() as u64 != entry.bytes {
                return Err(TableError::new(
                    path.display().to_string(),
                    ErrorKind::NotAsRecorded(format!(
                        "does not match the manifest (checksum {crc}, {} bytes)",
                        bytes.len()
                    )),
                ));
            }
            drop(bytes);
            let header = table_header(game, *tier, entry.slots);
            let values = read_table(&path, &header)?;
            let target = staging.join(&entry.file);
            let (crc32, bytes) =
                write_table_layout(&target, &header, &values, DEFAULT_BLOCK_SLOTS, level, Layout::Published)?;
            // The plies file likewise: sheep-to-move plies stored, fox-to-move derived.
            let plies = match &entry.plies {
                Some(p) => {
                    let path = src.join(&p.file);
                    let file = TableFile::open(&path)?;
                    let whole = file.read_file()?;
                    if format!("{:08x}", crc32fast::hash(&whole)) != p.crc32 || whole.len() as u64 != p.bytes {
                        return Err(TableError::new(
                            path.display().to_string(),
                            ErrorKind::NotAsRecorded("does not match the manifest".into()),
                        ));
                    }
                    let plies = read_plies(&path, &header)?;
                    let (crc32, bytes) =
                        write_plies(&staging.join(&p.file), &header, &plies, level, Layout::Published)?;
                    Some(PliesEntry { crc32: format!("{crc32:08x}"), bytes, ..p.clone() })
                }
                None => None,
            };
            on_tier(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
            Ok(TierEntry { crc32: format!("{crc32:08x}"), bytes, plies, ..(*entry).clone() })
        })
        .collect();
    let entries: Vec<TierEntry> = written.into_iter().collect::<Result<_, _>>()?;
    let mut published = manifest.clone();
    published.layout = Layout::Published;
    published.tool = format!("foxbase {}", env!("CARGO_PKG_VERSION"));
    published.tiers = entries;
    published.write(staging)?;
    // Pass 2: every value read back through the published layout equals the solved one.
    let thin = TableDir::open(staging)?;
    for (n, (tier, entry)) in tiers.iter().enumerate() {
        let header = table_header(game, *tier, entry.slots);
        let solved = read_table(&src.join(&entry.file), &header)?;
        let solved_plies = match &entry.plies {
            Some(p) => Some(read_plies(&src.join(&p.file), &header)?),
            None => None,
        };
        let complete = thin.complete(*tier)?;
        let size = solved.len();
        let chunk = 1u64 << 16;
        let mismatch = (0..size.div_ceil(chunk)).into_par_iter().find_map_first(|c| {
            let mut found = None;
            game.for_each_slot(&complete.index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                if let Some(pos) = pos {
                    let plies_differ = match (&solved_plies, &complete.plies) {
                        (Some(a), Some(b)) => solved.code(i) != Value::Draw.code() && a.get(i) != b.get(i),
                        (None, None) => false,
                        _ => true,
                    };
                    if found.is_none() && (complete.values.code(i) != solved.code(i) || plies_differ) {
                        found = Some((i, pos));
                    }
                }
            });
            found
        });
        if let Some((i, pos)) = mismatch {
            // Equal codes: the plies differ.
            let values_differ = complete.values.code(i) != solved.code(i);
            let plies_file = entry.plies.as_ref().map(|p| p.file.clone());
            return Err(Error::PublishMismatch {
                file: if values_differ { entry.file.clone() } else { plies_file.unwrap_or(entry.file.clone()) },
                slot: i,
                position: format_position(&pos),
                published: complete.values.code(i),
                solved: solved.code(i),
            });
        }
        on_tier(tiers.len() + n + 1, total);
    }
    crate::verify::check_files(staging).map_err(|p| Error::PublishedCheck(Box::new(p)))?;
    Ok(Published {
        tiers: tiers.len(),
        slots: manifest.total_slots(),
        source_bytes: manifest.total_bytes(),
        bytes: published.total_bytes(),
        plies_bytes: published.tiers.iter().filter_map(|t| t.plies.as_ref()).map(|p| p.bytes).sum(),
    })
}
