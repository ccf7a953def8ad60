//! `foxbase publish`: turns the tables a solve wrote into the distributable
//! tablebase: every table and plies file checked as `verify` checks its
//! files, rewritten compressed harder, a manifest saying so, and a check
//! that the result gives back every solved value.
//!
//! The Fox Game's tables are rewritten in the published layout (their
//! fox-to-move values left out, derived by one fox move when read: about
//! half the size, docs/format.md); Bagh-Chal's keep every slot (the solved
//! layout, which every reader of the game's tables reads), only compressed
//! at the publish level. Everything else is one code path for both games.

use crate::dir::TableDir;
use crate::error::{io_error, Error};
use crate::manifest::{Layout, Manifest, PliesEntry, TierEntry};
use crate::packed::PackedValues;
use crate::plies::{read_plies, Plies};
use crate::table::{read_table, write_plies, write_table_layout, DEFAULT_BLOCK_SLOTS};
use crate::tier_files::table_header;
use crate::verify::{check_index, check_tier, check_tier_files, OnTier};
use foxbase_core::baghchal::{BaghChal, BaghChalVariant};
use foxbase_core::foxgame::FoxGame;
use foxbase_core::game::GameKind;
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tictactoe::TicTacToe;
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

/// Publishes the solved directory `src` (the Fox Game's or Bagh-Chal's
/// tables, as its manifest says) as the new directory `out`, with zstd
/// `level`. The tables are built in a sibling directory, each file written
/// durably (a temporary name, fsync, rename) and the manifest last, and
/// the directory is renamed to `out` only after every check passed, so
/// `out` never holds part of a tablebase; an `out` that exists is refused.
/// `on_tier(done, total)` reports progress over both passes (writing,
/// then checking: `total` is twice the number of tiers).
pub fn publish(src: &Path, out: &Path, level: i32, on_tier: OnTier) -> Result<Published, Error> {
    if out.exists() {
        return Err(Error::OutputExists(out.display().to_string()));
    }
    let manifest = Manifest::read(src)?;
    if manifest.layout != Layout::Solved {
        return Err(Error::AlreadyPublished(src.display().to_string()));
    }
    let bad_variant = |message: String| Error::Variant { dir: src.display().to_string(), message };
    match manifest.game.parse::<GameKind>() {
        Ok(GameKind::Fox) => {
            let variant = Variant::from_json(&manifest.variant).map_err(|e| bad_variant(e.to_string()))?;
            publish_game(&FoxGame::new(variant), src, out, &manifest, level, on_tier)
        }
        Ok(GameKind::BaghChal) => {
            let variant = BaghChalVariant::from_json(&manifest.variant).map_err(|e| bad_variant(e.to_string()))?;
            publish_game(&BaghChal::new(variant), src, out, &manifest, level, on_tier)
        }
        Ok(GameKind::TicTacToe) if manifest.variant == TicTacToe.variant_json() => {
            publish_game(&TicTacToe, src, out, &manifest, level, on_tier)
        }
        Ok(GameKind::TicTacToe) | Err(_) => {
            Err(Error::NotPublishable { dir: src.display().to_string(), game: manifest.game })
        }
    }
}

/// A check of a tier's values and plies as read back.
type Check<'c> = &'c mut dyn FnMut(&PackedValues, Option<&Plies>) -> Result<(), Error>;

/// Reads a tier (with its manifest entry) back from a published directory
/// as a reader of it gets it, and hands its values and plies to a check.
type Reader<'d, T> = Box<dyn Fn(T, &TierEntry, Check) -> Result<(), Error> + 'd>;

/// What publishing needs of a game beyond the tier contract.
pub trait Publishable: WithRules + Sized {
    /// The layout its published tables are written in.
    const LAYOUT: Layout;

    /// The reader of its tables published in `dir`, for the check that
    /// they give back the solved values. By default the files as stored.
    fn reader<'d>(&'d self, dir: &'d Path) -> Result<Reader<'d, Self::Tier>, Error> {
        Ok(Box::new(move |tier, entry, check| {
            let header = table_header(self, tier, entry.slots);
            let values = read_table(&dir.join(&entry.file), &header)?;
            let plies = match &entry.plies {
                Some(p) => Some(read_plies(&dir.join(&p.file), &header, &values)?),
                None => None,
            };
            check(&values, plies.as_ref())
        }))
    }
}

impl Publishable for FoxGame {
    /// Fox-to-move values left out, derived by one fox move.
    const LAYOUT: Layout = Layout::Published;

    /// [`TableDir`], which derives the fox-to-move values.
    fn reader<'d>(&'d self, dir: &'d Path) -> Result<Reader<'d, Self::Tier>, Error> {
        let thin = TableDir::open(dir)?;
        Ok(Box::new(move |tier, _, check| {
            let complete = thin.complete(tier)?;
            check(&complete.values, complete.plies.as_ref())
        }))
    }
}

impl Publishable for BaghChal {
    /// Every slot stored, as solved.
    const LAYOUT: Layout = Layout::Solved;
}

impl Publishable for TicTacToe {
    /// Every slot stored, as solved.
    const LAYOUT: Layout = Layout::Solved;
}

/// [`publish`] once the game is known: builds the tablebase in a staging
/// directory beside `out`, then renames it to `out`.
fn publish_game<G: Publishable>(
    game: &G,
    src: &Path,
    out: &Path,
    manifest: &Manifest,
    level: i32,
    on_tier: OnTier,
) -> Result<Published, Error> {
    let name = out.file_name().ok_or_else(|| Error::NotADirectoryName(out.display().to_string()))?;
    let parent = crate::durable::parent_dir(out);
    let staging: PathBuf = parent.join(format!(".{}.partial", name.to_string_lossy()));
    if staging.exists() {
        // Left by an interrupted publish: nothing in it was ever published.
        fs::remove_dir_all(&staging).map_err(io_error(staging.display().to_string()))?;
    }
    let published = match build(game, src, &staging, manifest, level, on_tier) {
        Ok(p) => p,
        Err(e) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    crate::durable::rename(&staging, out).map_err(io_error(out.display().to_string()))?;
    Ok(published)
}

/// Both passes into `staging`, the manifest between them, and the final
/// check of the staging directory's files.
fn build<G: Publishable>(
    game: &G,
    src: &Path,
    staging: &Path,
    manifest: &Manifest,
    level: i32,
    on_tier: OnTier,
) -> Result<Published, Error> {
    let source_problem = |p| Error::SourceCheck(Box::new(p));
    check_index(src, manifest).map_err(source_problem)?;
    fs::create_dir_all(staging.join("tiers")).map_err(io_error(staging.display().to_string()))?;
    let total = manifest.tiers.len() * 2;
    let done = std::sync::atomic::AtomicUsize::new(0);
    // Pass 1: check and rewrite every table and plies file (tiers in
    // parallel: most are one block).
    let written: Vec<Result<(G::Tier, TierEntry), Error>> = manifest
        .tiers
        .par_iter()
        .map(|entry| {
            // What verify checks of the files: header, blocks, length, checksum, layout, slots.
            let checked = check_tier(game, src, manifest, entry).map_err(source_problem)?;
            let header = table_header(game, checked.tier, entry.slots);
            let (crc32, bytes) = write_table_layout(
                &staging.join(&entry.file),
                &header,
                &checked.values,
                DEFAULT_BLOCK_SLOTS,
                level,
                G::LAYOUT,
            )?;
            let plies = match (&entry.plies, &checked.plies) {
                (Some(p), Some(plies)) => {
                    let packed_with = p.distance.packs(game.no_progress() > 0).then_some(&checked.values);
                    let (crc32, bytes) =
                        write_plies(&staging.join(&p.file), &header, plies, packed_with, level, G::LAYOUT)?;
                    Some(PliesEntry { crc32: format!("{crc32:08x}"), bytes, ..p.clone() })
                }
                _ => None,
            };
            on_tier(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
            Ok((checked.tier, TierEntry { crc32: format!("{crc32:08x}"), bytes, plies, ..entry.clone() }))
        })
        .collect();
    let (tiers, entries): (Vec<G::Tier>, Vec<TierEntry>) =
        written.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().unzip();
    let mut published = manifest.clone();
    published.layout = G::LAYOUT;
    published.tool = format!("foxbase {}", env!("CARGO_PKG_VERSION"));
    published.tiers = entries;
    // The tier index, then the manifest: a reader that finds the manifest finds everything.
    published.write(staging)?;
    // Pass 2: every value and plies count read back from the published
    // tables equals the solved one.
    let reader = game.reader(staging)?;
    for (n, (tier, entry)) in tiers.iter().zip(&manifest.tiers).enumerate() {
        let header = table_header(game, *tier, entry.slots);
        let solved = read_table(&src.join(&entry.file), &header)?;
        let solved_plies = match &entry.plies {
            Some(p) => Some(read_plies(&src.join(&p.file), &header, &solved)?),
            None => None,
        };
        let new_entry = &published.tiers[n];
        let mut check = |values: &PackedValues, plies: Option<&Plies>| {
            match first_difference(game, *tier, &solved, solved_plies.as_ref(), values, plies) {
                None => Ok(()),
                Some((i, pos)) => {
                    // Equal codes: the plies differ.
                    let values_differ = values.code(i) != solved.code(i);
                    let plies_file = new_entry.plies.as_ref().map(|p| p.file.clone());
                    Err(Error::PublishMismatch {
                        file: if values_differ {
                            new_entry.file.clone()
                        } else {
                            plies_file.unwrap_or(new_entry.file.clone())
                        },
                        slot: i,
                        position: game.rules().format_position(&pos),
                        published: values.code(i),
                        solved: solved.code(i),
                    })
                }
            }
        };
        reader(*tier, new_entry, &mut check)?;
        on_tier(tiers.len() + n + 1, total);
    }
    drop(reader);
    check_tier_files(game, staging, &published).map_err(|p| Error::PublishedCheck(Box::new(p)))?;
    Ok(Published {
        tiers: tiers.len(),
        slots: manifest.total_slots(),
        source_bytes: manifest.total_bytes(),
        bytes: published.total_bytes(),
        plies_bytes: published.tiers.iter().filter_map(|t| t.plies.as_ref()).map(|p| p.bytes).sum(),
    })
}

/// The first used slot of `tier` (with its position) whose value, or whose
/// plies (for a win or a loss), differs between the solved tables and
/// those read back.
fn first_difference<G: TierGame>(
    game: &G,
    tier: G::Tier,
    solved: &PackedValues,
    solved_plies: Option<&Plies>,
    values: &PackedValues,
    plies: Option<&Plies>,
) -> Option<(u64, G::Position)> {
    let index = game.tier_index(tier);
    let size = solved.len();
    let chunk = 1u64 << 16;
    (0..size.div_ceil(chunk)).into_par_iter().find_map_first(|c| {
        let mut found = None;
        game.for_each_slot(&index, c * chunk..((c + 1) * chunk).min(size), |i, pos| {
            if let Some(pos) = pos {
                let plies_differ = match (solved_plies, plies) {
                    (Some(a), Some(b)) => solved.code(i) != Value::Draw.code() && a.get(i) != b.get(i),
                    (None, None) => false,
                    _ => true,
                };
                if found.is_none() && (values.code(i) != solved.code(i) || plies_differ) {
                    found = Some((i, pos));
                }
            }
        });
        found
    })
}
