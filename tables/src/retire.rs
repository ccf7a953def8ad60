//! Publishing a solve's tiers in place, one at a time, so that a solve
//! keeps within a disk budget (`foxbase solve --disk-budget`): a tier's
//! solved table is needed only until every tier that reads it is solved;
//! from then on the solve keeps its published form instead (0.24 to 0.26
//! bit a position on 20-sheep tiers of the Fox Game, against 0.52 solved).
//!
//! A tier is published in four steps, each durable before the next:
//!
//! 1. [`write()`] checks its solved files as `foxbase verify` does and
//!    writes its published files (the bytes `foxbase publish` writes)
//!    into `DIR/retiring/`, at the paths its entry names;
//! 2. [`check`] reads them back as a reader of the published tablebase gets them
//!    (what the layout leaves out derived from the files of its child
//!    tiers as they are then, solved or published) and compares them value
//!    for value and plies count for plies count with the solved files read
//!    the same way;
//! 3. the solve journals the published entry (the tier's second line in
//!    its journal);
//! 4. [`install`] moves the published files over the solved ones (the
//!    table, then the plies file) and syncs the folder.
//!
//! A solve stopped after step 1 or 2 removes the files of `retiring/`
//! whose tier is not journaled as published ([`clear_unjournaled`]) and
//! publishes the tier again; stopped after step 3, it does step 4 when it
//! resumes. Once every tier is published, the directory is the published
//! tablebase ([`check_finished`]; its `SHA256SUMS` last).

use crate::error::{io_error, Error};
use crate::manifest::{Manifest, TierEntry};
use crate::publish::{compare_tier, write_published_tier, Levels, Publishable, TierFiles};
use crate::table::Layout;
use crate::verify::{check_tier_as, check_tier_files_counted, OnTier, TierCounter};
use foxbase_core::tier::TierGame;
use std::collections::HashSet;
use std::fs;
use std::path::Path;

/// The folder of a solve's directory where published files wait until
/// their tier is journaled as published.
pub const RETIRING_DIR: &str = "retiring";

/// Step 1 for the solved tier `entry` of the solve in `dir`: its files
/// checked as `foxbase verify` checks them, its published files written
/// into `DIR/retiring/`. Returns the tier's published entry. Nothing in
/// `DIR/tiers` changes.
pub fn write<G: Publishable>(game: &G, dir: &Path, entry: &TierEntry, levels: Levels) -> Result<TierEntry, Error> {
    let checked = check_tier_as(game, dir, Layout::Solved, entry.plies.is_some(), entry)
        .map_err(|p| Error::SourceCheck(Box::new(p)))?;
    let staging = dir.join(RETIRING_DIR);
    if let Some(folder) = staging.join(&entry.file).parent() {
        fs::create_dir_all(folder).map_err(io_error(folder.display().to_string()))?;
    }
    write_published_tier(game, &checked, entry, &staging, levels)
}

/// Step 2: the tier `published` (its files in `DIR/retiring/`, written
/// from the solved tier `entry`) reads back as the solved tier does, value
/// for value and plies count for plies count, what the layout leaves out
/// derived from the files of its child tiers `children` (every child tier
/// of the plan, as journaled: their files are read where the entries name
/// them, solved or published).
pub fn check<G: Publishable>(
    game: &G,
    dir: &Path,
    entry: &TierEntry,
    published: &TierEntry,
    children: &[TierEntry],
) -> Result<(), Error> {
    let tier_of = |e: &TierEntry| game.parse_tier_name(&e.name).ok_or_else(|| Error::NoTable { tier: e.name.clone() });
    let tier = tier_of(entry)?;
    let files = |root: &Path, e: &TierEntry, tier| TierFiles::of(root, e, tier);
    let children = children.iter().map(|c| Ok(files(dir, c, tier_of(c)?))).collect::<Result<Vec<_>, Error>>()?;
    let distance = entry.plies.as_ref().map(|p| p.distance);
    let (solved, solved_plies) = game.read_whole(&files(dir, entry, tier), &children, distance)?;
    let staging = dir.join(RETIRING_DIR);
    let (values, plies) = game.read_whole(&files(&staging, published, tier), &children, distance)?;
    compare_tier(game, tier, published, &solved, solved_plies.as_ref(), &values, plies.as_ref())
}

/// Step 4: moves the files of the tier `published` (journaled as
/// published) from `DIR/retiring/` over its solved files in `dir`, the
/// table then the plies file, and syncs the folder. A file no longer in
/// `retiring/` was moved before (by a solve stopped between the two
/// moves): the one in `dir` must then have the published length.
pub fn install(dir: &Path, published: &TierEntry) -> Result<(), Error> {
    let mut files = vec![(&published.file, published.bytes)];
    if let Some(p) = &published.plies {
        files.push((&p.file, p.bytes));
    }
    for (file, bytes) in files {
        let (from, to) = (dir.join(RETIRING_DIR).join(file), dir.join(file));
        let name = to.display().to_string();
        if from.exists() {
            crate::durable::rename(&from, &to).map_err(io_error(name))?;
            continue;
        }
        let found = fs::metadata(&to).map_err(io_error(name.clone()))?.len();
        if found != bytes {
            let message = format!(
                "journaled as published ({bytes} bytes) but holds {found} bytes, and {} is gone",
                from.display()
            );
            return Err(io_error(name)(std::io::Error::other(message)).into());
        }
    }
    Ok(())
}

/// Removes the files of `DIR/retiring/` but those named in `keep` (the
/// files of tiers journaled as published, not yet installed): what a
/// stopped solve wrote in steps 1 and 2 and never journaled.
pub fn clear_unjournaled(dir: &Path, keep: &HashSet<String>) -> Result<(), Error> {
    let root = dir.join(RETIRING_DIR);
    let mut folders = vec![root.clone()];
    while let Some(folder) = folders.pop() {
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_error(folder.display().to_string())(e).into()),
        };
        for entry in entries {
            let path = entry.map_err(io_error(folder.display().to_string()))?.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let relative = path.strip_prefix(&root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if !keep.contains(&relative) {
                fs::remove_file(&path).map_err(io_error(path.display().to_string()))?;
            }
        }
    }
    Ok(())
}

/// The last check of a solve published in place: with every tier
/// published and `manifest` (in the published layout) sealed in `dir`,
/// every file is checked as `foxbase verify` checks it (header, blocks,
/// length, checksum, layout, the tier index), and `retiring/` is removed.
/// `on_tier` hears the count of tiers checked, from zero.
pub fn check_finished<G: TierGame>(game: &G, dir: &Path, manifest: &Manifest, on_tier: OnTier) -> Result<(), Error> {
    let counter = TierCounter::new(manifest.tiers.len(), manifest.total_slots(), on_tier);
    check_tier_files_counted(game, dir, manifest, &HashSet::new(), Some(&counter))
        .map_err(|p| Error::PublishedCheck(Box::new(p)))?;
    let retiring = dir.join(RETIRING_DIR);
    if retiring.exists() {
        fs::remove_dir_all(&retiring).map_err(io_error(retiring.display().to_string()))?;
    }
    Ok(())
}
