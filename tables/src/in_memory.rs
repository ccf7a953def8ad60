//! [`InMemory`]: every table of a small tablebase of any game ([`TierGame`])
//! read into memory, for the games other than the Fox Game (tic-tac-toe)
//! whose tablebases are tiny: the reader `foxbase probe`, `versus`, `stats`
//! and `export` use for them. The Fox Game's reader is [`crate::TableDir`].

use crate::error::{Error, ErrorKind, TableError};
use crate::manifest::Manifest;
use crate::packed::PackedValues;
use crate::plies::read_plies;
use crate::table::{read_table, Layout};
use crate::tier_files::table_header;
use foxbase_core::tier::TierGame;
use foxbase_core::{Outcome, Value};
use std::collections::HashMap;
use std::path::Path;

/// A solved tablebase of `game` held whole in memory.
pub struct InMemory<G: TierGame> {
    pub game: G,
    pub manifest: Manifest,
    tiers: HashMap<G::Tier, (G::Index, PackedValues, Option<crate::plies::Plies>)>,
}

impl<G: TierGame> InMemory<G> {
    /// Reads the manifest of `dir` and every table (and plies file) it
    /// lists; fails unless the manifest is `game`'s, solved (not published),
    /// and every file is there and checks.
    pub fn open(game: G, dir: &Path) -> Result<InMemory<G>, Error> {
        let manifest = Manifest::read(dir)?;
        if manifest.game != game.game_name() || manifest.variant != game.variant_json() {
            return Err(Error::Query(format!(
                "{}: tables of game '{}', not {}",
                dir.display(),
                manifest.game,
                game.game_name()
            )));
        }
        if manifest.layout != Layout::Solved {
            return Err(Error::Table(TableError::new(
                dir.display().to_string(),
                ErrorKind::LayoutMismatch { found: manifest.layout, expected: Layout::Solved },
            )));
        }
        let mut tiers = HashMap::new();
        for entry in &manifest.tiers {
            let tier = game
                .parse_tier_name(&entry.name)
                .ok_or_else(|| Error::Query(format!("the manifest names an unknown tier '{}'", entry.name)))?;
            let index = game.tier_index(tier);
            let header = table_header(&game, tier, game.tier_size(&index));
            let values = read_table(&dir.join(&entry.file), &header)?;
            let plies = match &entry.plies {
                Some(p) => Some(read_plies(&dir.join(&p.file), &header)?),
                None => None,
            };
            tiers.insert(tier, (index, values, plies));
        }
        Ok(InMemory { game, manifest, tiers })
    }

    /// Whether the tablebase has plies.
    pub fn has_plies(&self) -> bool {
        self.manifest.has_plies()
    }

    /// The outcome of `pos` for the side to move (plies `None` for a draw or without plies).
    pub fn outcome(&self, pos: &G::Position) -> Result<Outcome, Error> {
        if let Some(v) = self.game.primitive(pos) {
            return Ok(Outcome { value: v, plies: (v != Value::Draw && self.has_plies()).then_some(0) });
        }
        let tier = self.game.tier_of(pos);
        let (index, values, plies) =
            self.tiers.get(&tier).ok_or_else(|| Error::NoTable { tier: self.game.tier_name(tier) })?;
        let i = self.game.canonical_rank(index, pos);
        let value = values.value(i).ok_or_else(|| {
            Error::Table(TableError::new(self.game.tier_name(tier), ErrorKind::UnusedSlot { slot: i }))
        })?;
        let plies = plies.as_ref().filter(|_| value != Value::Draw).map(|p| p.get(i) as u32);
        Ok(Outcome { value, plies })
    }

    /// The outcome for the mover of playing into `after` from a position
    /// (plies counted from that position).
    pub fn move_outcome(&self, after: &G::Position) -> Result<Outcome, Error> {
        let o = self.outcome(after)?;
        Ok(Outcome { value: o.value.for_mover(), plies: o.plies.map(|p| p + 1) })
    }
}
