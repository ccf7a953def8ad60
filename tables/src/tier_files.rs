//! Where a tier's table lives in a tablebase, and the header it must carry.
//! Every reader and writer (solve, coordinator, probe, verify, publish)
//! names tables through these functions.

use crate::table::TableHeader;
use foxbase_core::tier::TierGame;
use std::path::{Path, PathBuf};

/// File extension of tier tables.
pub const TABLE_EXT: &str = "fxt";

/// The key of a tier's table inside a tablebase: `tiers/NAME.fxt`.
pub fn table_key<G: TierGame>(game: &G, tier: G::Tier) -> String {
    key_of_name(&game.tier_name(tier))
}

/// The key of the table of the tier named `name`.
pub fn key_of_name(name: &str) -> String {
    format!("tiers/{name}.{TABLE_EXT}")
}

/// File extension of plies files ([`crate::plies`]).
pub const PLIES_EXT: &str = "fxp";

/// The key of a tier's plies file: `tiers/NAME.fxp`.
pub fn plies_key<G: TierGame>(game: &G, tier: G::Tier) -> String {
    plies_key_of_name(&game.tier_name(tier))
}

/// The key of the plies file of the tier named `name`.
pub fn plies_key_of_name(name: &str) -> String {
    format!("tiers/{name}.{PLIES_EXT}")
}

/// The key (or path) of the plies file beside the table `key`: the same
/// name with the plies extension (`tiers/NAME.fxp` beside `tiers/NAME.fxt`,
/// an upload's `incoming/NAME.LEASE.fxp` beside its `.fxt`).
pub fn plies_beside(key: &str) -> String {
    let stem = key.strip_suffix(&format!(".{TABLE_EXT}")).unwrap_or(key);
    format!("{stem}.{PLIES_EXT}")
}

/// Where a tier's plies file lives inside a tablebase directory.
pub fn plies_path<G: TierGame>(game: &G, dir: &Path, tier: G::Tier) -> PathBuf {
    dir.join(plies_key(game, tier))
}

/// Where a tier's table lives inside a tablebase directory.
pub fn table_path<G: TierGame>(game: &G, dir: &Path, tier: G::Tier) -> PathBuf {
    dir.join(table_key(game, tier))
}

/// The header a tier's table must carry.
pub fn table_header<G: TierGame>(game: &G, tier: G::Tier, slots: u64) -> TableHeader {
    TableHeader { game: game.game_name().into(), variant: game.variant_json(), tier: game.tier_name(tier), slots }
}
