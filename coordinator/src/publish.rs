//! `foxbase publish`: turns the tables a solve wrote into the distributable
//! tablebase: every table rewritten with its fox-to-move values left out
//! (derived by one fox move when read) and compressed harder, a manifest
//! saying so, and a check that the result gives back every solved value.

use crate::loaded::TierCache;
use crate::manifest::{Layout, Manifest, TierEntry};
use crate::probe::FoxTables;
use crate::verify::OnTier;
use foxbase_core::foxgame::FoxTier;
use foxbase_core::notation::format_position;
use foxbase_core::tier::TierGame;
use foxbase_worker::job::table_header;
use foxbase_worker::table::{read_table, write_table_layout, SlotLayout, DEFAULT_BLOCK_SLOTS};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

/// Figures from a publish.
#[derive(Clone, Debug)]
pub struct Published {
    pub tiers: usize,
    pub slots: u64,
    pub source_bytes: u64,
    pub bytes: u64,
}

/// Publishes the solved directory `src` as the new directory `out`, with
/// zstd `level`. The tables are built in a sibling directory and renamed to
/// `out` only after every check passed, so `out` never holds part of a
/// tablebase. `on_tier(done, total)` reports progress over both passes
/// (writing, then checking: `total` is twice the number of tiers).
pub fn publish(src: &Path, out: &Path, level: i32, on_tier: OnTier) -> Result<Published, String> {
    if out.exists() {
        return Err(format!("{}: already exists; publish writes a new directory", out.display()));
    }
    let source = FoxTables::open(src)?;
    let manifest = &source.manifest;
    if manifest.layout != Layout::Solved {
        return Err(format!("{}: already a published tablebase", src.display()));
    }
    let game = &source.game;
    let name = out.file_name().ok_or_else(|| format!("{}: not a directory name", out.display()))?;
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let staging: PathBuf = parent.join(format!(".{}.partial", name.to_string_lossy()));
    if staging.exists() {
        // Left by an interrupted publish: nothing in it was ever published.
        fs::remove_dir_all(&staging).map_err(|e| format!("{}: {e}", staging.display()))?;
    }
    let result = build(src, &staging, manifest, level, on_tier, game);
    let published = match result {
        Ok(p) => p,
        Err(e) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    fs::rename(&staging, out).map_err(|e| format!("{}: {e}", out.display()))?;
    File::open(parent).and_then(|d| d.sync_all()).map_err(|e| format!("{}: {e}", parent.display()))?;
    Ok(published)
}

fn build(
    src: &Path,
    staging: &Path,
    manifest: &Manifest,
    level: i32,
    on_tier: OnTier,
    game: &foxbase_core::foxgame::FoxGame,
) -> Result<Published, String> {
    fs::create_dir_all(staging.join("tiers")).map_err(|e| format!("{}: {e}", staging.display()))?;
    let tiers: Vec<(FoxTier, &TierEntry)> = manifest
        .tiers
        .iter()
        .map(|e| game.parse_tier_name(&e.name).map(|t| (t, e)).ok_or_else(|| format!("unknown tier '{}'", e.name)))
        .collect::<Result<_, _>>()?;
    let total = tiers.len() * 2;
    let done = std::sync::atomic::AtomicUsize::new(0);
    // Pass 1: rewrite every table (tiers in parallel: most are one block).
    let written: Vec<Result<TierEntry, String>> = tiers
        .par_iter()
        .map(|(tier, entry)| {
            let path = src.join(&entry.file);
            let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let crc = format!("{:08x}", crc32fast::hash(&bytes));
            if crc != entry.crc32 || bytes.len() as u64 != entry.bytes {
                return Err(format!(
                    "{}: does not match the manifest (checksum {crc}, {} bytes)",
                    path.display(),
                    bytes.len()
                ));
            }
            drop(bytes);
            let values = read_table(&path, &table_header(game, *tier, entry.slots))?;
            let target = staging.join(&entry.file);
            let header = table_header(game, *tier, entry.slots);
            let (crc32, bytes) =
                write_table_layout(&target, &header, &values, DEFAULT_BLOCK_SLOTS, level, SlotLayout::EvenDerived)
                    .map_err(|e| format!("{}: {e}", target.display()))?;
            on_tier(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
            Ok(TierEntry { crc32: format!("{crc32:08x}"), bytes, ..(*entry).clone() })
        })
        .collect();
    let entries: Vec<TierEntry> = written.into_iter().collect::<Result<_, _>>()?;
    // Pass 2: every value read back through the published layout equals the solved one.
    let files: HashMap<FoxTier, String> = tiers.iter().map(|(t, e)| (*t, e.file.clone())).collect();
    let mut cache = TierCache::new(game, staging, files, 1 << 30);
    for (n, (tier, entry)) in tiers.iter().enumerate() {
        let solved = read_table(&src.join(&entry.file), &table_header(game, *tier, entry.slots))?;
        let complete = cache.complete(*tier)?;
        let size = solved.len();
        let chunk = 1u64 << 16;
        let mismatch = (0..size.div_ceil(chunk)).into_par_iter().find_map_first(|c| {
            let mut found = None;
            game.for_each_slot(&complete.index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
                if let Some(pos) = pos {
                    if found.is_none() && complete.values.code(i) != solved.code(i) {
                        found = Some((i, pos));
                    }
                }
            });
            found
        });
        if let Some((i, pos)) = mismatch {
            return Err(format!(
                "{}: slot {i} ({}) reads back as code {}, the solve stored {}",
                entry.file,
                format_position(&pos),
                complete.values.code(i),
                solved.code(i)
            ));
        }
        on_tier(tiers.len() + n + 1, total);
    }
    let mut published = manifest.clone();
    published.layout = Layout::Published;
    published.tool = format!("foxbase {}", env!("CARGO_PKG_VERSION"));
    published.tiers = entries;
    published.write(staging)?;
    crate::verify::check_files(staging).map_err(|p| format!("the published tables fail their own check: {p}"))?;
    Ok(Published {
        tiers: tiers.len(),
        slots: manifest.total_slots(),
        source_bytes: manifest.total_bytes(),
        bytes: published.total_bytes(),
    })
}
