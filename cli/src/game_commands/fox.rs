//! The Fox Game on the command line: its rule switches, its solve's
//! variant (`--start` and the switches), and its reports, which name the
//! start's value and the bound a capture-bounded variant is.

use super::GameCommands;
use crate::command::{position_arg, CommandResult, Failure};
use crate::output::{json, line, SolveProgress};
use crate::rules::GameArgs;
use crate::solve::{Solved, VariantArgs};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::foxgame::FoxGame;
use foxbase_core::notation::{count, format_position};
use foxbase_core::variant::DEFAULT_START;
use foxbase_core::{Rules, Side, Value, Variant};
use serde_json::{json, Value as Json};

impl GameCommands for FoxGame {
    const DEFAULT_OUT: &'static str = "foxbase-tables";

    fn play_rules(flags: &GameArgs, position: Option<&str>) -> Result<Rules, Failure> {
        let rules = flags.fox.rules().with_no_progress(flags.no_progress.unwrap_or(0));
        let text = position.unwrap_or(DEFAULT_START);
        let sheep = match position_arg(text) {
            Ok(pos) => pos.sheep_count(),
            Err(_) => Variant::default().start.sheep_count(),
        };
        flags.fox.floor.apply_to_rules(rules, sheep)
    }

    fn standard_rules() -> Rules {
        Variant::default().rules()
    }

    fn default_start(_rules: &Rules) -> String {
        DEFAULT_START.to_string()
    }

    fn from_flags(flags: &VariantArgs) -> Result<(FoxGame, TierPlan<FoxGame>), Failure> {
        let game = FoxGame::new(flags.rules.variant(&flags.start)?);
        let plan = TierPlan::new(&game);
        Ok((game, plan))
    }

    fn run_about(&self, _flags: &VariantArgs) -> String {
        self.variant.to_string()
    }

    fn run_facts(&self, _flags: &VariantArgs) -> Json {
        json!({"game": foxbase_core::tier::TierGame::game_name(self), "variant": self.variant.to_json_value()})
    }

    fn print_plan(&self, plan: &TierPlan<FoxGame>, json_out: bool) -> CommandResult {
        let variant = &self.variant;
        let (largest, largest_slots) = plan.largest_tier().expect("every variant has a tier");
        let slots = plan.total_slots();
        if json_out {
            return json(&json!({"variant": variant.to_json_value(), "tiers": plan.order.len(), "positions": slots,
                "largest_tier": {"name": largest.name(), "positions": largest_slots}}));
        }
        line(format_args!("variant: {variant}"))?;
        line(format_args!(
            "{} tiers, {slots} positions; largest tier {largest}: {largest_slots} positions",
            plan.order.len()
        ))
    }

    fn report_solve(
        &self,
        _flags: &VariantArgs,
        plan: &TierPlan<FoxGame>,
        s: Solved,
        progress: &SolveProgress,
        json_out: bool,
    ) -> CommandResult {
        let variant = &self.variant;
        let manifest = &s.manifest;
        let value = manifest.start.as_ref().and_then(|start| value_named(&start.value));
        let value = value.ok_or_else(|| Failure::failed(format!("{}: a bad start value", s.out)))?;
        let start = variant.start;
        let slots = manifest.total_slots();
        let (largest, largest_slots) = plan.largest_tier().expect("every variant has a tier");
        if json_out {
            return json(&crate::views::with_bound(
                json!({
                    "variant": variant.to_json_value(), "start": format_position(&start), "value": value.name(),
                    "side_to_move": start.side().name(), "tiers": manifest.tiers.len(), "positions": slots,
                    "largest_tier": {"name": largest.name(), "positions": largest_slots},
                    "seconds": s.seconds, "threads": s.threads, "workers": s.workers,
                    "table_bytes": manifest.total_bytes(), "out": s.out.to_string(),
                    "phases": crate::output::phases_json(&progress.phases()), "kernel": s.kernel.name(),
                    "plies": s.output.plies(), "distance": s.output.distance().map(|d| d.name()),
                    "plies_bytes": s.plies_bytes(), "longest_plies": s.longest_plies(),
                    "tiers_resumed": s.resumed, "tiers_imported": s.imported,
                    "published": s.disk_high_water.is_some(), "disk_high_water_bytes": s.disk_high_water,
                }),
                variant.bound(),
            ));
        }
        line(format_args!("variant: {variant}"))?;
        if let Some(note) = variant.floor_note() {
            line(format_args!("bound: {note}"))?;
        }
        line(format_args!(
            "solved {} tiers{}, {slots} positions (largest tier {largest}: {largest_slots}) in {:.1}s ({:.2}M positions/s)",
            manifest.tiers.len(),
            s.resumed_note(),
            s.seconds,
            s.rate() / 1e6
        ))?;
        line(format_args!("tables: {} ({} bytes)", s.out, manifest.total_bytes()))?;
        if let Some(high_water) = s.disk_high_water {
            line(format_args!(
                "published in place (--disk-budget): at most {high_water} bytes of tables held at once"
            ))?;
        }
        if s.output.plies() {
            line(format_args!(
                "plies files ({}): {} bytes; longest win or loss: {}{}",
                s.output.distance().map_or("", |d| d.counts()),
                s.plies_bytes(),
                count(s.longest_plies(), "ply", "plies"),
                crate::tables::to_zeroing(s.output.distance())
            ))?;
        }
        let winner = match value {
            Value::Win => format!("the {} win", plural(start.side())),
            Value::Loss => format!("the {} win", plural(start.side().other())),
            Value::Draw => "neither side can force a win: a draw".to_string(),
        };
        line(format_args!("start {}: {value} for the {} to move, so {winner}", format_position(&start), start.side()))
    }
}

/// The value a manifest names (`win`, `draw`, `loss`).
fn value_named(name: &str) -> Option<Value> {
    [Value::Win, Value::Draw, Value::Loss].into_iter().find(|v| v.name() == name)
}

fn plural(side: Side) -> &'static str {
    match side {
        Side::Fox => "foxes",
        Side::Sheep => "sheep",
    }
}
