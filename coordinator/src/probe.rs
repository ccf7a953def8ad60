//! Answering queries from a solved table directory.

use crate::manifest::Manifest;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::tier::TierGame;
use foxbase_core::{Move, Position, Side, Value, Variant};
use foxbase_worker::job::table_header;
use foxbase_worker::table::{SlotLayout, TableFile};
use std::path::{Path, PathBuf};

/// A table directory of the Fox Game, opened for probing.
pub struct FoxTables {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub game: FoxGame,
}

impl FoxTables {
    pub fn open(dir: &Path) -> Result<FoxTables, String> {
        let manifest = Manifest::read(dir)?;
        if manifest.game != "fox" {
            return Err(format!("{}: tables of game '{}', not the Fox Game", dir.display(), manifest.game));
        }
        let variant = Variant::from_json(&manifest.variant)?;
        Ok(FoxTables { dir: dir.to_path_buf(), manifest, game: FoxGame::new(variant) })
    }

    /// The value of `pos` for the side to move.
    pub fn value(&self, pos: &Position) -> Result<Value, String> {
        if let Some(v) = self.game.primitive(pos) {
            return Ok(v);
        }
        let tier = self.game.tier_of(pos);
        let name = self.game.tier_name(tier);
        let entry = self.manifest.tier(&name).ok_or_else(|| {
            format!(
                "{} is in tier {name}, which these tables do not hold (they cover the positions reachable from {})",
                foxbase_core::notation::format_position(pos),
                foxbase_core::notation::format_position(&self.game.variant.start),
            )
        })?;
        let index = self.game.tier_index(tier);
        let i = self.game.rank(&index, &pos.canonical());
        let header = table_header(&self.game, tier, entry.slots);
        let path = self.dir.join(&entry.file);
        let table = TableFile::open(&path)?;
        table.expect(&path, &header)?;
        if table.layout == SlotLayout::EvenDerived && pos.side() == Side::Fox {
            // Published tables store no fox-to-move values: one fox move
            // reaches sheep-to-move positions, whose values are stored.
            let mut children = Vec::new();
            self.game.for_each_child(pos, |c| children.push(c));
            let mut best = Value::Loss;
            for child in children {
                match self.value(&child)? {
                    Value::Loss => return Ok(Value::Win),
                    Value::Draw => best = Value::Draw,
                    Value::Win => {}
                }
            }
            return Ok(best);
        }
        let code = table.code(i).map_err(|e| format!("{}: {e}", path.display()))?;
        Value::from_code(code).ok_or_else(|| format!("{}: slot {i} is marked unused but holds a position", entry.file))
    }

    /// The value of every legal move for the player making it.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<(Move, Value)>, String> {
        let rules = self.game.rules;
        rules.moves(pos).into_iter().map(|m| Ok((m, self.value(&rules.play(pos, m))?.for_mover()))).collect()
    }

    /// Checks that a position belongs to this variant's board (fox count at most the start's).
    pub fn check_position(&self, pos: &Position) -> Result<(), String> {
        let start = &self.game.variant.start;
        if pos.fox_count() > start.fox_count() || pos.sheep_count() > start.sheep_count() {
            return Err(format!(
                "{} has {} foxes and {} sheep, more than this variant's start ({} foxes, {} sheep)",
                foxbase_core::notation::format_position(pos),
                pos.fox_count(),
                pos.sheep_count(),
                start.fox_count(),
                start.sheep_count()
            ));
        }
        Ok(())
    }
}
