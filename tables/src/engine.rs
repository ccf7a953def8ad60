//! Perfect play from the tables: the move `foxbase versus` (and the web
//! board) plays.
//!
//! With plies ([`crate::plies`]) the engine wins as fast as it can (a
//! winning move with the fewest plies), loses as slowly as it can (the most
//! plies), and among drawing moves picks one at random; ties between equal
//! moves are broken at random too. The randomness is a small generator
//! seeded by the caller, so a game is reproducible from its seed. Without
//! plies (tables solved with `--no-distance`) a winning move is picked at
//! random among the winning ones, which keeps the win but may not end it.

use crate::error::Error;
use crate::reader::{MoveOf, PositionOf, Tablebase};
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::{Outcome, Value};

/// A move chosen by [`engine_move`], with its outcome for the player making
/// it (plies counted from the position it was chosen in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice<M> {
    pub mv: M,
    pub outcome: Outcome,
}

/// The engine's move in `pos`, or `None` when the game is over. The same
/// `seed` and position always give the same move.
///
/// Fails as [`crate::probe::probe`] does (a position outside the tables, a
/// table that cannot be read).
pub fn engine_move<T: Tablebase>(
    tables: &T,
    pos: &PositionOf<T>,
    seed: u64,
) -> Result<Option<Choice<MoveOf<T>>>, Error> {
    engine_move_at(tables, pos, 0, seed)
}

/// [`engine_move`] at no-progress counter `counter` (tables solved under a
/// no-progress rule; 0 for any other): moves valued at the counters they
/// lead to ([`Tablebase::move_outcomes_at`]); `None` also when the rule
/// has drawn the game at this counter.
pub fn engine_move_at<T: Tablebase>(
    tables: &T,
    pos: &PositionOf<T>,
    counter: u32,
    seed: u64,
) -> Result<Option<Choice<MoveOf<T>>>, Error> {
    tables.check_position(pos)?;
    let rules = tables.game().rules();
    // Over by the rules, or drawn by the no-progress rule at this counter.
    if rules.status_at(pos, counter).is_over() {
        return Ok(None);
    }
    let moves = tables.move_outcomes_at(pos, counter)?;
    let hash = position_hash(&rules.format_position(pos));
    Ok(choose(&moves, seed ^ hash).map(|(mv, outcome)| Choice { mv, outcome }))
}

/// The rule of [`engine_move`] over moves (of any game) with their
/// outcomes for the mover: the best by [`preference`], ties broken by `seed`.
pub fn choose<M: Copy>(moves: &[(M, Outcome)], seed: u64) -> Option<(M, Outcome)> {
    let best = moves.iter().map(|(_, o)| preference(o)).max()?;
    let ties: Vec<&(M, Outcome)> = moves.iter().filter(|(_, o)| preference(o) == best).collect();
    let pick = (SplitMix64(seed).next() % ties.len() as u64) as usize;
    Some(*ties[pick])
}

/// Orders moves with their outcomes for the mover best first, the order
/// `probe` lists them in for every game: wins by fewest plies, then draws,
/// then losses by most plies ([`preference`]); equal moves keep the order
/// they came in (the game's move generation order).
pub fn best_first<M>(moves: &mut [(M, Outcome)]) {
    moves.sort_by_key(|(_, o)| std::cmp::Reverse(preference(o)));
}

/// How much the mover likes an outcome (greater is better): a win over a
/// draw over a loss; a quicker win, a slower loss. A missing plies count
/// ranks a win or loss by its value alone.
pub fn preference(o: &Outcome) -> (u8, i64) {
    let plies = o.plies.map_or(0, |p| p as i64);
    match o.value {
        Value::Win => (2, -plies),
        Value::Draw => (1, 0),
        Value::Loss => (0, plies),
    }
}

/// A position's notation mixed into one number (FNV-1a, then SplitMix64),
/// so that one seed gives different (but repeatable) choices in different
/// positions, the same for every game.
fn position_hash(notation: &str) -> u64 {
    let fnv = notation.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    SplitMix64(fnv).next()
}

/// SplitMix64 (Steele, Lea and Flood): a tiny generator that is enough to
/// break ties reproducibly.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foxbase_core::notation::parse_move_text;
    use foxbase_core::Move;

    fn o(value: Value, plies: Option<u32>) -> Outcome {
        Outcome { value, plies }
    }

    #[test]
    fn the_engine_wins_fast_loses_slowly_and_draws_rather_than_loses() {
        let m = |t: &str| parse_move_text(t).unwrap();
        let wins = [(m("c1-c2"), o(Value::Win, Some(7))), (m("d1-d2"), o(Value::Win, Some(3)))];
        let mixed = [(m("e1-e2"), o(Value::Loss, Some(9))), (m("c2-c3"), o(Value::Draw, None))];
        let losses = [(m("d2-d3"), o(Value::Loss, Some(4))), (m("e2-e3"), o(Value::Loss, Some(10)))];
        for seed in 0..20 {
            assert_eq!(choose(&wins, seed).unwrap().0, m("d1-d2"));
            assert_eq!(choose(&mixed, seed).unwrap().0, m("c2-c3"));
            assert_eq!(choose(&losses, seed).unwrap().0, m("e2-e3"));
        }
        assert_eq!(choose::<Move>(&[], 1), None);
    }

    #[test]
    fn draws_are_picked_at_random_but_the_same_for_the_same_seed() {
        let draws: Vec<(Move, Outcome)> = ["c1-c2", "d1-d2", "e1-e2", "c2-c3"]
            .iter()
            .map(|t| (parse_move_text(t).unwrap(), o(Value::Draw, None)))
            .collect();
        let picks: std::collections::BTreeSet<String> =
            (0..64).map(|seed| choose(&draws, seed).unwrap().0.to_string()).collect();
        assert_eq!(picks.len(), 4, "every drawing move gets picked by some seed: {picks:?}");
        for seed in 0..64 {
            assert_eq!(choose(&draws, seed), choose(&draws, seed));
        }
    }
}
