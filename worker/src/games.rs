//! Any game of the registry ([`GameKind`]) as a value generic code runs on:
//! [`with_game`] builds the game a name and a variant (a manifest's, a
//! coordinator's registration, a command line's) describe, through the
//! registry's one dispatch ([`foxbase_core::with_game_kind`]), and hands
//! it to a [`GameVisitor`]; code that works on every game is written once,
//! as a visitor, over the contracts every game implements ([`SolveTier`],
//! which includes `TierGame`, [`SealRun`], and [`Publishable`], which
//! includes the rules of play, `WithRules`).

use crate::kernel::SolveTier;
use foxbase_core::game::GameKind;
use foxbase_tables::publish::Publishable;
use foxbase_tables::seal::SealRun;

/// Code generic over the game, run by [`with_game`].
pub trait GameVisitor {
    type Output;
    fn visit<G: SolveTier + SealRun + Publishable + 'static>(self, game: G) -> Self::Output;
}

pub use foxbase_core::game::BadVariant;

/// Builds `kind`'s game under `variant_json` (its `TierGame::variant_json`)
/// and runs `visitor` on it ([`foxbase_core::with_game_kind`]).
pub fn with_game<V: GameVisitor>(kind: GameKind, variant_json: &str, visitor: V) -> Result<V::Output, BadVariant> {
    foxbase_core::with_game_kind!(kind, variant_json, |game| visitor.visit(game))
}

#[cfg(test)]
mod tests {
    use super::*;
    use foxbase_core::baghchal::{BaghChal, BaghChalVariant};
    use foxbase_core::foxgame::FoxGame;
    use foxbase_core::tictactoe::TicTacToe;
    use foxbase_core::tier::TierGame;
    use foxbase_core::Variant;

    struct Described;
    impl GameVisitor for Described {
        type Output = (GameKind, String);
        fn visit<G: SolveTier + SealRun + Publishable + 'static>(self, game: G) -> (GameKind, String) {
            (game.game_kind().expect("a registered game"), game.variant_json())
        }
    }

    #[test]
    fn every_game_is_built_from_its_own_variant() {
        let games = [
            FoxGame::new(Variant::default()).variant_json(),
            BaghChal::new(BaghChalVariant::default()).variant_json(),
            TicTacToe.variant_json(),
        ];
        for (kind, variant) in GameKind::ALL.into_iter().zip(games) {
            let (built, json) = with_game(kind, &variant, Described).unwrap();
            assert_eq!((built, json.as_str()), (kind, variant.as_str()));
        }
        let err = with_game(GameKind::TicTacToe, "{}", Described).unwrap_err().to_string();
        assert_eq!(err, "tic-tac-toe variant {}: tic-tac-toe has one variant, {\"game\":\"tictactoe\"}");
        assert!(with_game(GameKind::BaghChal, &FoxGame::new(Variant::default()).variant_json(), Described).is_err());
    }
}
