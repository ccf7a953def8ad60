//! The manifest: what a table directory holds, with checksums.

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
}

/// The value of the variant's start position.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct StartValue {
    pub position: String,
    pub value: String,
}

/// What the tables of a directory store.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// Every slot holds its value: what a solve writes, and what a solve
    /// can read back as child tables.
    #[default]
    Solved,
    /// Written by `foxbase publish`: fox-to-move values are derived by one
    /// fox move from the stored sheep-to-move values (docs/format.md).
    Published,
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
            solve_seconds,
        }
    }

    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).unwrap() + "\n";
        foxbase_worker::table::write_atomic(&dir.join(MANIFEST_FILE), text.as_bytes())
            .map_err(|e| format!("{}: {e}", dir.join(MANIFEST_FILE).display()))
    }

    pub fn read(dir: &Path) -> Result<Manifest, String> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let m: Manifest =
            serde_json::from_str(&text).map_err(|e| format!("{}: not a foxbase manifest: {e}", path.display()))?;
        if m.format != MANIFEST_FORMAT {
            return Err(format!(
                "{}: manifest format {}, this build reads {MANIFEST_FORMAT}",
                path.display(),
                m.format
            ));
        }
        Ok(m)
    }

    pub fn tier(&self, name: &str) -> Option<&TierEntry> {
        self.tiers.iter().find(|t| t.name == name)
    }

    pub fn total_slots(&self) -> u64 {
        self.tiers.iter().map(|t| t.slots).sum()
    }

    pub fn total_bytes(&self) -> u64 {
        self.tiers.iter().map(|t| t.bytes).sum()
    }
}
