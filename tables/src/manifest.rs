//! The manifest, `manifest.json`: what a tablebase holds, with checksums,
//! readable by people. Every tier's entry names its table file, its size,
//! the CRC32 of the whole file, its value counts and its child tiers.
//! Writing a manifest also writes the tier index ([`crate::index`]) that
//! probes read instead.

use crate::error::{ErrorKind, TableError};
use crate::index::INDEX_FILE;
use crate::plies::Distance;
use crate::source::Location;
pub use crate::table::Layout;
use foxbase_core::tier::TierGame;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const MANIFEST_FILE: &str = "manifest.json";
pub const MANIFEST_FORMAT: u32 = 1;

/// One tier's table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct TierEntry {
    pub name: String,
    /// Path relative to the directory.
    pub file: String,
    pub slots: u64,
    pub bytes: u64,
    /// CRC32 of the whole file, 8 hex digits.
    pub crc32: String,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub unused: u64,
    pub children: Vec<String>,
    /// Propagation levels the solve needed (absent in manifests written before it was recorded: 0).
    #[serde(default)]
    pub levels: u32,
    /// Positions the solve's initial pass decided, before any propagation (absent before it was recorded: 0).
    #[serde(default)]
    pub decided_at_start: u64,
    /// The tier's plies file ([`crate::plies`]); absent when solved with `--no-distance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plies: Option<PliesEntry>,
}

/// A tier's plies file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct PliesEntry {
    /// Path relative to the directory.
    pub file: String,
    pub bytes: u64,
    /// CRC32 of the whole file, 8 hex digits.
    pub crc32: String,
    /// The largest plies count of the tier (its longest win or loss).
    pub longest: u32,
    /// What the file counts: plies to the end (absent: `dtm`, as in
    /// manifests written before DTZ existed) or to zeroing.
    #[serde(default, skip_serializing_if = "Distance::is_dtm")]
    pub distance: Distance,
}

/// The value of the variant's start position.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct StartValue {
    pub position: String,
    pub value: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub format: u32,
    pub tool: String,
    pub game: String,
    /// The variant as JSON text (see the game's `variant_json`).
    pub variant: String,
    /// Absent in manifests written before publishing existed: `solved`.
    #[serde(default)]
    pub layout: Layout,
    pub tiers: Vec<TierEntry>,
    pub start: Option<StartValue>,
    pub solve_seconds: f64,
}

impl Manifest {
    pub fn new<G: TierGame>(game: &G, tiers: Vec<TierEntry>, solve_seconds: f64) -> Manifest {
        Manifest {
            format: MANIFEST_FORMAT,
            tool: format!("foxbase {}", env!("CARGO_PKG_VERSION")),
            game: game.game_name().into(),
            variant: game.variant_json(),
            layout: Layout::Solved,
            tiers,
            start: None,
            // To the microsecond: a short decimal reads back as the same f64, so that a
            // manifest read and written again (a finished solve resumed) keeps its bytes
            // (serde_json's parser is not correctly rounded for 17 digits).
            solve_seconds: (solve_seconds * 1e6).round() / 1e6,
        }
    }

    /// The files of this manifest in the order they must be written: the
    /// tier index, then `manifest.json` (a reader that finds the manifest
    /// finds its index). Fails when a tier cannot be indexed.
    pub fn files(&self) -> Result<Vec<(&'static str, Vec<u8>)>, TableError> {
        let index =
            crate::index::encode(self).map_err(|e| TableError::new(MANIFEST_FILE, ErrorKind::Unindexable(e)))?;
        let text = serde_json::to_string_pretty(self).expect("a manifest serialises") + "\n";
        Ok(vec![(INDEX_FILE, index), (MANIFEST_FILE, text.into_bytes())])
    }

    /// Writes the tier index and `manifest.json` into `dir`, each durably.
    pub fn write(&self, dir: &Path) -> Result<(), TableError> {
        for (name, bytes) in self.files()? {
            let path = dir.join(name);
            crate::durable::write(&path, &bytes).map_err(crate::error::io_error(path.display().to_string()))?;
        }
        Ok(())
    }

    /// Reads `manifest.json` of the tablebase in `dir`.
    pub fn read(dir: &Path) -> Result<Manifest, TableError> {
        Manifest::read_from(&crate::source::DirLocation::new(dir))
    }

    /// Reads `manifest.json` of a tablebase anywhere.
    pub fn read_from(location: &dyn Location) -> Result<Manifest, TableError> {
        let name = location.name_of(MANIFEST_FILE);
        let fail = |kind: ErrorKind| TableError::new(&name, kind);
        let bytes = location.open(MANIFEST_FILE).and_then(|s| s.read_all()).map_err(|e| fail(ErrorKind::Io(e)))?;
        let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| fail(ErrorKind::ManifestJson(e.to_string())))?;
        if m.format != MANIFEST_FORMAT {
            return Err(fail(ErrorKind::ManifestFormat { found: m.format, supported: MANIFEST_FORMAT }));
        }
        Ok(m)
    }

    pub fn tier(&self, name: &str) -> Option<&TierEntry> {
        self.tiers.iter().find(|t| t.name == name)
    }

    pub fn total_slots(&self) -> u64 {
        self.tiers.iter().map(|t| t.slots).sum()
    }

    /// Whether every tier has a plies file (a solve without `--no-distance`).
    pub fn has_plies(&self) -> bool {
        self.distance().is_some()
    }

    /// What the tables' plies files count, when every tier has one and
    /// all count the same ([`Distance`]); `None` otherwise (values only).
    pub fn distance(&self) -> Option<Distance> {
        let first = self.tiers.first()?.plies.as_ref()?.distance;
        self.tiers.iter().all(|t| t.plies.as_ref().is_some_and(|p| p.distance == first)).then_some(first)
    }

    pub fn total_bytes(&self) -> u64 {
        self.tiers.iter().map(|t| t.bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foxbase_core::tictactoe::TicTacToe;

    /// A manifest read back and written again keeps its bytes (a finished
    /// solve resumed writes nothing new), whatever its seconds were.
    #[test]
    fn solve_seconds_read_back_as_written() {
        for seconds in [1.513_588_292_000_000_1, 0.1 + 0.2, 1e-7, 12_345.678_901_234_567] {
            let m = Manifest::new(&TicTacToe, Vec::new(), seconds);
            let text = serde_json::to_string_pretty(&m).unwrap();
            let again: Manifest = serde_json::from_str(&text).unwrap();
            assert_eq!(serde_json::to_string_pretty(&again).unwrap(), text, "{seconds}");
        }
        assert_eq!(Manifest::new(&TicTacToe, Vec::new(), 1.513_588_292_000_000_1).solve_seconds, 1.513588);
    }
}
