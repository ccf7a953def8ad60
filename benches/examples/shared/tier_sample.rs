//! The arguments of the examples that measure every Nth tier of a solved
//! Fox Game tablebase (`implied_values`, `rule_values`): `DIR [EVERY_NTH_TIER]`.

use foxbase_tables::manifest::Manifest;
use foxbase_tables::FoxTables;

/// A tablebase opened for sampling, and how many tiers apart its samples are.
pub struct TierSample {
    pub manifest: Manifest,
    pub tables: FoxTables,
    pub every: usize,
}

/// The tablebase and step the command line names (`example` for the usage line).
pub fn from_args(example: &str) -> TierSample {
    let args: Vec<String> = std::env::args().collect();
    let usage = format!("usage: {example} DIR [EVERY_NTH_TIER]");
    let dir = std::path::Path::new(args.get(1).expect(&usage));
    let every = args.get(2).map_or(1, |n| n.parse().expect("EVERY_NTH_TIER is a number"));
    TierSample { manifest: Manifest::read(dir).unwrap(), tables: FoxTables::open(dir).unwrap(), every }
}

impl TierSample {
    /// Every `every`-th tier of the manifest, with its tier and rank index.
    pub fn tiers(
        &self,
    ) -> impl Iterator<
        Item = (&foxbase_tables::manifest::TierEntry, foxbase_core::foxgame::FoxTier, foxbase_core::foxgame::TierIndex),
    > {
        use foxbase_core::tier::TierGame;
        self.manifest.tiers.iter().step_by(self.every).map(|entry| {
            let tier = self.tables.game.parse_tier_name(&entry.name).unwrap();
            (entry, tier, self.tables.game.tier_index(tier))
        })
    }
}

/// The sampled tiers' sheep-to-move codes compressed two ways (column
/// order, blocks of 2^18 codes, zstd 15): as they are, and with some
/// slots made don't-care. Needs `code_blocks` beside it.
#[derive(Default)]
pub struct TwoCodings {
    slots: u64,
    as_is: u64,
    dont_care: u64,
}

impl TwoCodings {
    /// Adds a tier of `slots` slots, its fox placements `period`.
    pub fn add(&mut self, slots: u64, period: usize, as_is: &[u8], dont_care: &[u8]) {
        self.slots += slots;
        self.as_is += crate::code_blocks::compressed_bits_by_columns(as_is, period, 15);
        self.dont_care += crate::code_blocks::compressed_bits_by_columns(dont_care, period, 15);
    }

    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// Prints both in bits per position, the second as "the same with `what` don't-care".
    pub fn print(&self, what: &str) {
        let per_position = |bits: u64| bits as f64 / self.slots as f64;
        println!("sheep-to-move values in column order, zstd 15: {:.3} bit per position", per_position(self.as_is));
        println!("the same with {what} don't-care: {:.3} bit per position", per_position(self.dont_care));
    }
}
