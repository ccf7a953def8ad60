//! perft: the number of move sequences of a given length, a check on move
//! generation, for every game ([`Playable`]).
//!
//! ```
//! use foxbase_core::{perft::perft, Variant};
//! let v = Variant::default();
//! assert_eq!(perft(&v.rules(), &v.start, 0), 1);
//! assert_eq!(perft(&v.rules(), &v.start, 1), 6);
//! ```

use crate::play::Playable;

/// perft(p, 0) = 1; perft(p, d) = sum over legal moves m of perft(child(p, m), d - 1).
/// A position whose game is over has no moves.
pub fn perft<P: Playable>(rules: &P, pos: &P::Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    rules.for_each_move(pos, |_, after| {
        total += if depth == 1 { 1 } else { perft(rules, &after, depth - 1) };
    });
    total
}

/// perft split by first move, in move-generation order.
pub fn divide<P: Playable>(rules: &P, pos: &P::Position, depth: u32) -> Vec<(P::Move, u64)> {
    assert!(depth >= 1, "divide needs depth >= 1");
    rules.moves(pos).into_iter().map(|(m, after)| (m, perft(rules, &after, depth - 1))).collect()
}
