//! Sealing a finished run: the last step of every solve (local, distributed,
//! benchmark), written once.
//!
//! The manifest and its tier index are written, the start position is
//! valued from the tables just written, and the manifest is written again
//! with that value. A crash in between leaves a complete tablebase whose
//! manifest lacks only the start's value.

use crate::dir::TableDir;
use crate::error::Error;
use crate::manifest::{Manifest, StartValue};
use foxbase_core::notation::format_position;
use foxbase_core::Value;
use std::path::Path;

/// Seals the run whose tables are in `dir` with `manifest` (every tier
/// finished, `start` not yet set). Returns the manifest as written and the
/// value of the variant's start position for its side to move.
pub fn seal(dir: &Path, mut manifest: Manifest) -> Result<(Manifest, Value), Error> {
    manifest.start = None;
    manifest.write(dir)?;
    let tables = TableDir::open(dir)?;
    let start = tables.game.variant.start;
    let value = tables.value(&start)?;
    manifest.start = Some(StartValue { position: format_position(&start), value: value.name().into() });
    manifest.write(dir)?;
    Ok((manifest, value))
}
