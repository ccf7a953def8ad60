//! What the command line knows of each game, as one trait,
//! [`GameCommands`], with an impl per game in the modules below: how its
//! flags build its rules of play and its variant, where its solve writes,
//! and how a solve and a coordinator's run report on it. A command reaches
//! a game by [`foxbase_core::with_game_type`] (the registry's one dispatch)
//! and is written once, generic over `GameCommands`: no command has a
//! branch per game.

use crate::command::{CommandResult, Failure};
use crate::output::SolveProgress;
use crate::rules::GameArgs;
use crate::solve::{Solved, VariantArgs};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::baghchal::Layer;
use foxbase_core::play::{Playable, WithRules};
use foxbase_tables::publish::Publishable;
use foxbase_tables::seal::SealRun;
use foxbase_worker::kernel::SolveTier;
use serde_json::Value as Json;

mod baghchal;
mod fox;
mod tictactoe;

/// The position type of a game's rules of play.
pub type PlayPosition<G> = <<G as WithRules>::Rules as Playable>::Position;

/// A game of the registry as the command line builds it and reports on it.
pub trait GameCommands: SolveTier + SealRun + Publishable + WithRules + 'static {
    /// Where `solve` writes without `--out`.
    const DEFAULT_OUT: &'static str;

    /// The rules of play that the rules commands' flags give (`show`,
    /// `moves`, `play`, `perft`), for the command's position, if it has
    /// one: a flag out of range, or one that does not fit the position,
    /// is bad input naming the flag. The other games' flags are refused
    /// before ([`GameArgs::rules`]).
    fn play_rules(flags: &GameArgs, position: Option<&str>) -> Result<Self::Rules, Failure>;

    /// The rules of the game's standard variant: a text is a position of
    /// this game if they read it (the hint of a bad position).
    fn standard_rules() -> Self::Rules;

    /// The start of the game's standard variant under `rules`, in its
    /// notation: `perft`'s default.
    fn default_start(rules: &Self::Rules) -> String;

    /// The game and the tiers that `solve`'s and `coordinator`'s flags ask
    /// for; a flag out of range is bad input naming it.
    fn from_flags(flags: &VariantArgs) -> Result<(Self, TierPlan<Self>), Failure>
    where
        Self: Sized;

    /// The variant a run solves, in words (a coordinator's report).
    fn run_about(&self, flags: &VariantArgs) -> String;

    /// The game and variant a run solves, as the first fields of a run's JSON report.
    fn run_facts(&self, flags: &VariantArgs) -> Json;

    /// `solve --plan-only`: the size of the work, as text or JSON.
    fn print_plan(&self, plan: &TierPlan<Self>, json: bool) -> CommandResult
    where
        Self: Sized;

    /// A finished solve's report, as text or JSON: its tiers, time and
    /// tables, and what the game values (the start).
    fn report_solve(
        &self,
        flags: &VariantArgs,
        plan: &TierPlan<Self>,
        solved: Solved,
        progress: &SolveProgress,
        json: bool,
    ) -> CommandResult
    where
        Self: Sized;

    /// `perft --distinct`: whether the game counts its distinct positions.
    const COUNTS_DISTINCT_POSITIONS: bool = false;

    /// The distinct positions `depth` plies after `start` under `rules`,
    /// all and up to symmetry, where [`Self::COUNTS_DISTINCT_POSITIONS`].
    fn distinct_positions(_rules: &Self::Rules, _start: &PlayPosition<Self>, _depth: u32) -> Option<Layer> {
        None
    }
}
