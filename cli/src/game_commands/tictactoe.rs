//! Tic-tac-toe on the command line: no rule flags, one variant, and a
//! solve's report that values the empty board.

use super::GameCommands;
use crate::command::{CommandResult, Failure};
use crate::output::{json, line, SolveProgress};
use crate::rules::GameArgs;
use crate::solve::{Solved, VariantArgs};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::tictactoe::{format_ttt, TicTacToe};
use foxbase_core::tier::TierGame;
use foxbase_tables::TierTables;
use serde_json::{json, Value as Json};

impl GameCommands for TicTacToe {
    const DEFAULT_OUT: &'static str = "tictactoe-tables";

    fn play_rules(_flags: &GameArgs, _position: Option<&str>) -> Result<TicTacToe, Failure> {
        Ok(TicTacToe)
    }

    fn standard_rules() -> TicTacToe {
        TicTacToe
    }

    fn default_start(_rules: &TicTacToe) -> String {
        format_ttt(&TicTacToe.initial_position())
    }

    fn from_flags(_flags: &VariantArgs) -> Result<(TicTacToe, TierPlan<TicTacToe>), Failure> {
        Ok((TicTacToe, TierPlan::new(&TicTacToe)))
    }

    fn run_about(&self, _flags: &VariantArgs) -> String {
        self.about()
    }

    fn run_facts(&self, _flags: &VariantArgs) -> Json {
        json!({"game": self.game_name(), "variant": self.variant_json()})
    }

    fn print_plan(&self, plan: &TierPlan<TicTacToe>, _json: bool) -> CommandResult {
        line(format_args!("{} tiers, {} positions", plan.order.len(), plan.total_slots()))
    }

    fn report_solve(
        &self,
        _flags: &VariantArgs,
        _plan: &TierPlan<TicTacToe>,
        s: Solved,
        _progress: &SolveProgress,
        json_out: bool,
    ) -> CommandResult {
        let resumed_note = s.resumed_note();
        let start = self.initial_position();
        let start_text = format_ttt(&start);
        let value =
            TierTables::open_game_at(TicTacToe, s.location).and_then(|t| t.outcome(&start)).map_err(Failure::failed)?;
        let manifest = &s.manifest;
        if json_out {
            return json(&json!({"game": self.game_name(), "start": start_text, "value": value.value.name(),
                "plies": value.plies, "tiers": manifest.tiers.len(), "positions": manifest.total_slots(),
                "seconds": s.seconds, "out": s.out.to_string(), "plies_files": s.output.plies(),
                "tiers_resumed": s.resumed, "tiers_imported": s.imported, "threads": s.threads, "workers": s.workers,
                "disk_high_water_bytes": s.disk_high_water}));
        }
        line(format_args!(
            "solved tic-tac-toe: {} tiers{}, {} positions in {:.2}s; tables: {}",
            manifest.tiers.len(),
            resumed_note,
            manifest.total_slots(),
            s.seconds,
            s.out
        ))?;
        line(format_args!("start {start_text}: {} for x to move", value.value))
    }
}
