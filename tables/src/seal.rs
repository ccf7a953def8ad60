//! Sealing a finished run: the last step of every solve (local, distributed,
//! benchmark), written once.
//!
//! The manifest and its tier index are written, the start position is
//! valued from the tables just written, and the manifest is written again
//! with that value. A crash in between leaves a complete tablebase whose
//! manifest lacks only the start's value. The tables may be in a directory
//! ([`seal`]) or anywhere a [`Location`] reads and a writer puts objects
//! ([`seal_at`]: a bucket).
//!
//! [`SealRun`] is the same last step for a run of any game, as the
//! distributed coordinator and the local solve take it: the Fox Game's is
//! [`seal_at`], tic-tac-toe's values its start the same way; a game whose
//! start is not valued here (Bagh-Chal, whose plan may hold only the
//! moving tiers) gets the manifest and tier index without a start value.

use crate::error::Error;
use crate::fox_tables::FoxTables;
use crate::manifest::{Manifest, StartValue};
use crate::source::{DirLocation, Location};
use foxbase_core::notation::format_position;
use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use std::path::Path;

/// Seals the run whose tables are in `dir` with `manifest` (every tier
/// finished, `start` not yet set). Returns the manifest as written and the
/// value of the variant's start position for its side to move.
pub fn seal(dir: &Path, manifest: Manifest) -> Result<(Manifest, Value), Error> {
    let put = |key: &str, bytes: &[u8]| {
        let path = dir.join(key);
        crate::durable::write(&path, bytes).map_err(crate::error::io_error(path.display().to_string()))
    };
    seal_at(Box::new(DirLocation::new(dir)), &put, manifest)
}

/// Writes one object of a tablebase durably: `(key, bytes)`.
pub type PutObject<'a> = &'a dyn Fn(&str, &[u8]) -> Result<(), crate::TableError>;

/// [`seal`] for tables anywhere: `put(key, bytes)` writes an object durably
/// where `location` reads it (each of the manifest's files, in the order
/// [`Manifest::files`] gives: the manifest last).
pub fn seal_at(
    location: Box<dyn Location>,
    put: PutObject,
    mut manifest: Manifest,
) -> Result<(Manifest, Value), Error> {
    manifest.start = None;
    for (name, bytes) in manifest.files()? {
        put(name, &bytes)?;
    }
    let tables = FoxTables::open_at(location)?;
    let start = tables.game.variant.start;
    let value = tables.value(&start)?;
    manifest.start = Some(StartValue { position: format_position(&start), value: value.name().into() });
    for (name, bytes) in manifest.files()? {
        put(name, &bytes)?;
    }
    Ok((manifest, value))
}

/// The last step of a finished run of a game, wherever its tables are.
pub trait SealRun: TierGame {
    /// Writes `manifest` (every tier finished) through `put` where
    /// `location` reads it, each of [`Manifest::files`] in order (the
    /// manifest last), and returns it as written. By default no start value
    /// is recorded (`start` is `None`); a game that values its start
    /// records it.
    fn seal_run(&self, location: Box<dyn Location>, put: PutObject, mut manifest: Manifest) -> Result<Manifest, Error> {
        let _ = location;
        manifest.start = None;
        for (name, bytes) in manifest.files()? {
            put(name, &bytes)?;
        }
        Ok(manifest)
    }
}

impl SealRun for foxbase_core::foxgame::FoxGame {
    /// [`seal_at`]: the start valued from the tables just written.
    fn seal_run(&self, location: Box<dyn Location>, put: PutObject, manifest: Manifest) -> Result<Manifest, Error> {
        seal_at(location, put, manifest).map(|(m, _)| m)
    }
}

impl SealRun for foxbase_core::baghchal::BaghChal {}

impl SealRun for foxbase_core::tictactoe::TicTacToe {
    /// The manifest and tier index, then the start valued from the tables
    /// just written and the manifest again, as [`seal_at`] does for the Fox Game.
    fn seal_run(&self, location: Box<dyn Location>, put: PutObject, mut manifest: Manifest) -> Result<Manifest, Error> {
        use foxbase_core::tictactoe::{format_ttt, TicTacToe};
        manifest.start = None;
        for (name, bytes) in manifest.files()? {
            put(name, &bytes)?;
        }
        let start = TicTacToe.initial_position();
        let value = crate::TierTables::open_game_at(TicTacToe, location)?.outcome(&start)?.value;
        manifest.start = Some(StartValue { position: format_ttt(&start), value: value.name().into() });
        for (name, bytes) in manifest.files()? {
            put(name, &bytes)?;
        }
        Ok(manifest)
    }
}
