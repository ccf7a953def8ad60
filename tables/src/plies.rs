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
//! byte a slot where they fit, else two ([`Plies`]).

use crate::table::{Contents, Layout};

/// What a tier's plies count (the manifest records it per plies file,
/// [`crate::manifest::PliesEntry::distance`]).
///
/// - [`Distance::Dtm`]: plies to the end of the game, as above.
/// - [`Distance::Dtz`]: plies to *zeroing*: to the first move that leaves
///   the tier (a sheep advance, a capture, a fox removed: every such move is
///   irreversible) or ends the game, under best play with the same
///   preferences, rounded up to the parity of the value: a win always has
///   an odd count and a loss an even one, as with DTM. The move out of the
///   tier counts as one ply whatever follows it, so a tier's DTZ needs only
///   its children's values, not their distances
///   ([`Distance::zeroing_child_plies`]). The rounding touches only a loss
///   whose longest resistance ends with the loser's own zeroing move (it is
///   counted as if the winner's reply were part of it: 2 plies where the
///   zeroing move alone is 1); it keeps the plane kernel's one phase per two
///   plies and lets a file store half the number. A winner that always
///   makes a move of smallest DTZ keeping the win reaches a zeroing move
///   into a won child (the DTZ falls by at least one a ply), and the tiers
///   form a DAG, so the game ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Distance {
    #[default]
    Dtm,
    Dtz,
}

impl Distance {
    /// The name `--distance` takes and the manifest writes.
    pub fn name(self) -> &'static str {
        match self {
            Distance::Dtm => "dtm",
            Distance::Dtz => "dtz",
        }
    }

    /// What a count of this distance is, for a sentence: "plies to the end", "plies to zeroing".
    pub fn counts(self) -> &'static str {
        match self {
            Distance::Dtm => "plies to the end",
            Distance::Dtz => "plies to zeroing",
        }
    }

    pub fn is_dtm(&self) -> bool {
        *self == Distance::Dtm
    }

    /// Whether plies files of this distance are packed beside their
    /// values ([`crate::plies_pack`]): DTZ rounded to the value's parity,
    /// not the exact counts of a no-progress rule (`exact`). DTM has the
    /// parity too, but keeps a byte or two a slot, as it was first written.
    pub fn packs(self, exact: bool) -> bool {
        self == Distance::Dtz && !exact
    }

    /// With DTZ, the plies a position in another tier than its parent (one
    /// zeroing move away) counts for the parent, 1 + which is the move's:
    /// 0 for a child lost for its side to move (the parent's zeroing win
    /// takes 1 ply), 1 for a won child (the parent's zeroing loss is counted
    /// 2 plies, the parity rule above). A draw has none. Under a
    /// no-progress rule (`exact`) the count is exact, not rounded: 0 for both.
    pub fn zeroing_child_plies(value: foxbase_core::Value, exact: bool) -> Option<u32> {
        match value {
            foxbase_core::Value::Loss => Some(0),
            foxbase_core::Value::Win => Some(!exact as u32),
            foxbase_core::Value::Draw => None,
        }
    }
}

/// An outcome one step derives from its children's (exact DTZ under a
/// no-progress rule of `n` plies) as a solve under that rule stores it: a
/// win or loss more than `n` plies from zeroing is a draw at counter 0.
pub fn capped(derived: foxbase_core::Outcome, n: u32) -> foxbase_core::Outcome {
    at_counter(derived, 0, n)
}

/// The outcome at no-progress counter `counter` of a position whose
/// outcome at counter 0 is `at_zero`, under a no-progress rule of `n` plies
/// (0: none, the outcome is `at_zero`): a win or loss whose exact distance
/// to zeroing is at most `n - counter` stays, anything else is a draw
/// (RULES.md, "Draws"; the distances are those of a solve under the rule).
/// A counter of `n` or more is a draw already, unless the position is over
/// (0 plies): a move that ends the game ends it whatever the counter.
pub fn at_counter(at_zero: foxbase_core::Outcome, counter: u32, n: u32) -> foxbase_core::Outcome {
    let draw = foxbase_core::Outcome { value: foxbase_core::Value::Draw, plies: None };
    if n == 0 || at_zero.plies == Some(0) {
        return at_zero;
    }
    if counter >= n {
        return draw;
    }
    match at_zero.plies {
        Some(d) if d <= n - counter => at_zero,
        _ if at_zero.value == foxbase_core::Value::Draw => at_zero,
        _ => draw,
    }
}

impl Distance {}

impl std::fmt::Display for Distance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A tier's plies to the end, one per slot (0 for draws and unused slots),
/// one byte each while every count fits, else two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plies {
    store: Store,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Store {
    Bytes(Vec<u8>),
    Wide(Vec<u16>),
}

impl Plies {
    /// `len` slots of 0.
    pub fn zeros(len: u64) -> Plies {
        Plies { store: Store::Bytes(vec![0; len as usize]) }
    }

    pub fn from_vec(plies: Vec<u16>) -> Plies {
        Plies { store: Store::Wide(plies) }
    }

    /// Plies that all fit in a byte, kept one byte a slot.
    pub fn from_bytes(plies: Vec<u8>) -> Plies {
        Plies { store: Store::Bytes(plies) }
    }

    pub fn len(&self) -> u64 {
        match &self.store {
            Store::Bytes(v) => v.len() as u64,
            Store::Wide(v) => v.len() as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The plies of slot `i` (0 for a draw or an unused slot).
    #[inline]
    pub fn get(&self, i: u64) -> u16 {
        match &self.store {
            Store::Bytes(v) => v[i as usize] as u16,
            Store::Wide(v) => v[i as usize],
        }
    }

    /// Sets slot `i` (two bytes a slot from then on if `plies` needs them).
    pub fn set(&mut self, i: u64, plies: u16) {
        if let Store::Bytes(v) = &mut self.store {
            if plies <= u8::MAX as u16 {
                v[i as usize] = plies as u8;
                return;
            }
            self.store = Store::Wide(v.iter().map(|&b| b as u16).collect());
        }
        if let Store::Wide(v) = &mut self.store {
            v[i as usize] = plies;
        }
    }

    /// The largest plies count of the tier.
    pub fn max(&self) -> u16 {
        match &self.store {
            Store::Bytes(v) => v.iter().copied().max().unwrap_or(0) as u16,
            Store::Wide(v) => v.iter().copied().max().unwrap_or(0),
        }
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
        let len = self.len() as usize;
        let start = (b * block_slots as u64) as usize;
        let end = (start + block_slots as usize).min(len);
        let stored = |i: usize| -> u16 {
            match layout {
                Layout::Solved => self.get(i as u64),
                Layout::Published => {
                    let odd = i | 1;
                    if odd < len {
                        self.get(odd as u64)
                    } else {
                        0
                    }
                }
            }
        };
        match contents {
            Contents::Plies8 => (start..end).map(|i| stored(i) as u8).collect(),
            Contents::Plies16 => (start..end).flat_map(|i| stored(i).to_le_bytes()).collect(),
            Contents::Values | Contents::PliesPacked(_) => unreachable!("packed and slot plies are written apart"),
        }
    }

    /// The plies in the raw bytes of a plies file's blocks (one byte a
    /// slot in memory when the file has one).
    pub(crate) fn from_raw(contents: Contents, raw: Vec<u8>) -> Plies {
        match contents {
            Contents::Plies16 => {
                Plies::from_vec(raw.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect())
            }
            _ => Plies::from_bytes(raw),
        }
    }
}

/// Reads a whole plies file written by a solve and checks that it is the
/// expected tier's (a published one is refused, as [`crate::table::read_table`] refuses tables).
/// `values` are the tier's values as read from its table (a packed file is read with them).
pub fn read_plies(
    path: &std::path::Path,
    expect: &crate::table::TableHeader,
    values: &crate::packed::PackedValues,
) -> Result<Plies, crate::TableError> {
    let t = crate::table::TableFile::open(path)?;
    t.expect(expect)?;
    if t.layout != Layout::Solved {
        return Err(crate::TableError::new(t.name(), crate::ErrorKind::PublishedAsChild));
    }
    t.read_all_plies(values)
}

/// The outcome stored at slot `i` of a tier held whole: its value, and its
/// plies where there are plies and the value is not a draw; `None` for an
/// unused slot. What a whole tier answers ([`crate::tiered::WholeTier`]).
#[inline]
pub fn outcome_at(
    values: &crate::packed::PackedValues,
    plies: Option<&Plies>,
    i: u64,
) -> Option<foxbase_core::Outcome> {
    let value = values.value(i)?;
    let plies = plies.filter(|_| value != foxbase_core::Value::Draw).map(|p| p.get(i) as u32);
    Some(foxbase_core::Outcome { value, plies })
}

/// Bytes a tier held whole takes in memory: its values and (two bytes a slot at most) its plies.
pub fn held_bytes(values: &crate::packed::PackedValues, plies: Option<&Plies>) -> u64 {
    values.bytes().len() as u64 + plies.map_or(0, |p| 2 * p.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One byte a slot until a count needs two; the counts stay what was set,
    /// and the raw blocks of both stores are the same bytes.
    #[test]
    fn plies_widen_to_two_bytes_when_a_count_needs_them() {
        let mut p = Plies::zeros(10);
        p.set(3, 200);
        assert_eq!((p.get(3), p.contents()), (200, Contents::Plies8));
        let wide = Plies::from_vec((0..10).map(|i| p.get(i)).collect());
        for layout in [Layout::Solved, Layout::Published] {
            assert_eq!(p.raw_block(8, 1, Contents::Plies8, layout), wide.raw_block(8, 1, Contents::Plies8, layout));
        }
        p.set(4, 300);
        assert_eq!((p.get(3), p.get(4), p.max(), p.contents()), (200, 300, 300, Contents::Plies16));
        let raw = p.raw_block(16, 0, Contents::Plies16, Layout::Solved);
        assert_eq!(Plies::from_raw(Contents::Plies16, raw), p);
    }
}
