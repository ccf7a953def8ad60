//! perft: the number of move sequences of a given length, and the number of
//! distinct positions after exactly so many plies (all, and up to the
//! board's symmetries): the checks on move generation that published
//! figures exist for.
//!
//! ```
//! use foxbase_core::baghchal::{perft, Position, Rules};
//! assert_eq!(perft(&Rules::default(), &Position::START, 2), 252);
//! ```

use super::position::Position;
use super::rules::{Move, Rules};
use super::symmetry::canonical;
use std::collections::HashSet;

/// perft(p, 0) = 1; perft(p, d) = the sum over the legal moves m of p of
/// perft(child(p, m), d - 1). A position whose game is over has no moves.
pub fn perft(rules: &Rules, pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => rules.move_count(pos),
        _ => {
            let mut total = 0;
            rules.for_each_move(pos, |m| total += perft(rules, &rules.play(pos, m), depth - 1));
            total
        }
    }
}

/// perft split by first move, in move-generation order.
pub fn divide(rules: &Rules, pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    assert!(depth >= 1, "divide needs depth >= 1");
    rules.moves(pos).into_iter().map(|m| (m, perft(rules, &rules.play(pos, m), depth - 1))).collect()
}

/// The distinct positions after exactly `plies` plies.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Layer {
    pub plies: u32,
    /// Distinct positions.
    pub positions: u64,
    /// Distinct positions up to the board's 8 symmetries.
    pub up_to_symmetry: u64,
}

/// The layers 0..=`depth` from `start`: layer k holds every position that
/// some sequence of exactly k legal moves reaches (a position whose game is
/// over starts no sequence). Memory grows with the layers: from the start,
/// 747,485 positions after 6 plies (about a second).
pub fn distinct_positions(rules: &Rules, start: &Position, depth: u32) -> Vec<Layer> {
    let mut layers = Vec::with_capacity(depth as usize + 1);
    let mut current: HashSet<Position> = HashSet::from([*start]);
    for plies in 0..=depth {
        let up_to_symmetry = current.iter().map(canonical).collect::<HashSet<_>>().len() as u64;
        layers.push(Layer { plies, positions: current.len() as u64, up_to_symmetry });
        if plies == depth {
            break;
        }
        let mut next = HashSet::with_capacity(current.len() * 16);
        for pos in &current {
            rules.for_each_move(pos, |m| {
                next.insert(rules.play(pos, m));
            });
        }
        current = next;
    }
    layers
}
