//! Fox Game tier keys: (fox count, sheep on each rank).

use crate::board::{Bits, RANK_START, RANK_WIDTH};
use std::fmt;

/// A tier of the Fox Game: the fox count and the number of sheep on each
/// rank. Sheep never step to a lower rank, so sideways sheep steps and fox
/// steps stay in a tier while forward steps, captures and fox removals leave it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FoxTier {
    foxes: u8,
    /// counts[0] is rank 1.
    counts: [u8; 7],
}

impl FoxTier {
    /// A tier key, or `None` if a count does not fit its rank or there are more than 2 foxes.
    pub fn new(foxes: u8, counts: [u8; 7]) -> Option<FoxTier> {
        if foxes > 2 || counts.iter().zip(RANK_WIDTH).any(|(&c, w)| c > w) {
            return None;
        }
        Some(FoxTier { foxes, counts })
    }

    /// The tier of a set of sheep with `foxes` foxes.
    #[inline]
    pub fn of(sheep: Bits, foxes: u32) -> FoxTier {
        let mut counts = [0u8; 7];
        for (y, c) in counts.iter_mut().enumerate() {
            let mask = ((1u64 << RANK_WIDTH[y]) - 1) << RANK_START[y];
            *c = (sheep & mask).count_ones() as u8;
        }
        FoxTier { foxes: foxes as u8, counts }
    }

    pub fn foxes(&self) -> u32 {
        self.foxes as u32
    }

    /// Sheep on each rank, rank 1 first.
    pub fn counts(&self) -> [u8; 7] {
        self.counts
    }

    pub fn sheep(&self) -> u32 {
        self.counts.iter().map(|&c| c as u32).sum()
    }

    /// File-name-safe name: `f2-3.3.7.7.0.0.0` (fox count, then sheep on ranks 1..7).
    pub fn name(&self) -> String {
        let c = self.counts;
        format!("f{}-{}.{}.{}.{}.{}.{}.{}", self.foxes, c[0], c[1], c[2], c[3], c[4], c[5], c[6])
    }

    /// Parses [`FoxTier::name`]; only the exact spelling `name()` gives is
    /// accepted, so one tier never has two file names.
    pub fn parse(name: &str) -> Option<FoxTier> {
        let rest = name.strip_prefix('f')?;
        let (f, counts) = rest.split_once('-')?;
        let foxes = f.parse().ok()?;
        let parts: Vec<u8> = counts.split('.').map(|p| p.parse().ok()).collect::<Option<_>>()?;
        FoxTier::new(foxes, parts.try_into().ok()?).filter(|t| t.name() == name)
    }
}

impl fmt::Debug for FoxTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Display for FoxTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}
