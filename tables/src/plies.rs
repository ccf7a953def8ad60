//! Plies to the end: for every won or lost position of a tier, the number
//! of plies until the game ends when the winner ends it as fast as it can
//! and the loser delays it as long as it can (0 when the game is over). A
//! draw has none. The value a minimax search with those preferences returns:
//! a win is 1 + the smallest plies among the children lost for the
//! opponent, a loss 1 + the largest among all children.
//!
//! A tier's plies live in their own file beside its table, `tiers/NAME.fxp`
//! ([`crate::tier_files::plies_key_of_name`]), in the table file format with
//! one byte a slot ([`Contents::Plies8`], when every count of the tier is
//! below 256) or two ([`Contents::Plies16`]); draws and unused slots hold 0
//! (the value table says which they are). In memory a tier's plies are one
//! `u16` a slot ([`Plies`]).

use crate::table::{Contents, Layout};

/// A tier's plies to the end, one per slot (0 for draws and unused slots).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plies {
    plies: Vec<u16>,
}

impl Plies {
    /// `len` slots of 0.
    pub fn zeros(len: u64) -> Plies {
        Plies { plies: vec![0; len as usize] }
    }

    pub fn from_vec(plies: Vec<u16>) -> Plies {
        Plies { plies }
    }

    pub fn len(&self) -> u64 {
        self.plies.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.plies.is_empty()
    }

    /// The plies of slot `i` (0 for a draw or an unused slot).
    #[inline]
    pub fn get(&self, i: u64) -> u16 {
        self.plies[i as usize]
    }

    #[inline]
    pub fn set(&mut self, i: u64, plies: u16) {
        self.plies[i as usize] = plies;
    }

    pub fn as_slice(&self) -> &[u16] {
        &self.plies
    }

    /// The largest plies count of the tier.
    pub fn max(&self) -> u16 {
        self.plies.iter().copied().max().unwrap_or(0)
    }

    /// How a file stores these plies: one byte a slot when every count fits.
    pub fn contents(&self) -> Contents {
        if self.max() <= u8::MAX as u16 {
            Contents::Plies8
        } else {
            Contents::Plies16
        }
    }

    /// Raw bytes of block `b` of `block_slots` slots. With
    /// [`Layout::Published`] an even slot holds a copy of the next odd
    /// slot's plies (its own are derived by one move, as its value is).
    pub(crate) fn raw_block(&self, block_slots: u32, b: u64, contents: Contents, layout: Layout) -> Vec<u8> {
        let start = (b * block_slots as u64) as usize;
        let end = (start + block_slots as usize).min(self.plies.len());
        let stored = |i: usize| -> u16 {
            match layout {
                Layout::Solved => self.plies[i],
                Layout::Published => {
                    let odd = i | 1;
                    if odd < self.plies.len() {
                        self.plies[odd]
                    } else {
                        0
                    }
                }
            }
        };
        match contents {
            Contents::Plies8 => (start..end).map(|i| stored(i) as u8).collect(),
            Contents::Plies16 => (start..end).flat_map(|i| stored(i).to_le_bytes()).collect(),
            Contents::Values => unreachable!("plies are written as plies"),
        }
    }

    /// The plies in the raw bytes of a plies file's blocks.
    pub(crate) fn from_raw(contents: Contents, raw: &[u8]) -> Plies {
        let plies = match contents {
            Contents::Plies16 => raw.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect(),
            _ => raw.iter().map(|&b| b as u16).collect(),
        };
        Plies { plies }
    }
}

/// Reads a whole plies file written by a solve and checks that it is the
/// expected tier's (a published one is refused, as [`crate::table::read_table`] refuses tables).
pub fn read_plies(path: &std::path::Path, expect: &crate::table::TableHeader) -> Result<Plies, crate::TableError> {
    let t = crate::table::TableFile::open(path)?;
    t.expect(expect)?;
    if t.layout != Layout::Solved {
        return Err(crate::TableError::new(t.name(), crate::ErrorKind::PublishedAsChild));
    }
    t.read_all_plies()
}
