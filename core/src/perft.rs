//! perft: the number of move sequences of a given length, a check on move generation.
//!
//! ```
//! use foxbase_core::{perft::perft, Variant};
//! let v = Variant::default();
//! assert_eq!(perft(&v.rules(), &v.start, 0), 1);
//! assert_eq!(perft(&v.rules(), &v.start, 1), 6);
//! ```

use crate::position::Position;
use crate::rules::{Move, Rules};

/// perft(p, 0) = 1; perft(p, d) = sum over legal moves m of perft(child(p, m), d - 1).
/// A position whose game is over has no moves.
pub fn perft(rules: &Rules, pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    rules.for_each_move(pos, |m| {
        total += if depth == 1 { 1 } else { perft(rules, &rules.play(pos, m), depth - 1) };
    });
    total
}

/// perft split by first move, in move-generation order.
pub fn divide(rules: &Rules, pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    assert!(depth >= 1, "divide needs depth >= 1");
    rules.moves(pos).into_iter().map(|m| (m, perft(rules, &rules.play(pos, m), depth - 1))).collect()
}
