//! Bagh-Chal on the command line: `--goats` and `--capture-target` (which
//! a position's own goat total stands in for when left out), `--phase`
//! for a solve, and its reports, one line per tier.

use super::{GameCommands, PlayPosition};
use crate::command::{CommandResult, Failure};
use crate::output::{json, line, SolveProgress};
use crate::rules::GameArgs;
use crate::solve::{Solved, VariantArgs};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::baghchal::{self as bc, BaghChal, BaghChalVariant, BaghTier, Layer};
use foxbase_core::tier::TierGame;
use serde_json::{json, Value as Json};

impl GameCommands for BaghChal {
    const DEFAULT_OUT: &'static str = "baghchal-tables";

    fn play_rules(flags: &GameArgs, position: Option<&str>) -> Result<bc::PlayRules, Failure> {
        // Without --goats a position gives its own total (on the board + to place +
        // captured); --goats that disagrees with it is refused when the position is read.
        let from_position =
            position.and_then(|text| bc::goat_total(text).ok()).filter(|n| (1..=bc::TOTAL_GOATS).contains(n));
        let goats = flags.goats.or(from_position).unwrap_or(bc::TOTAL_GOATS);
        let target = flags.capture_target.unwrap_or(bc::DEFAULT_CAPTURE_TARGET.min(goats));
        let variant = BaghChalVariant::new(goats, target)
            .map_err(|e| Failure::bad_input(format!("--goats {goats} --capture-target {target}: {e}")))?;
        Ok(bc::PlayRules::new(variant))
    }

    fn standard_rules() -> bc::PlayRules {
        bc::PlayRules::new(BaghChalVariant::default())
    }

    fn default_start(rules: &bc::PlayRules) -> String {
        bc::format_position(&rules.variant().start())
    }

    /// Every tier of the variant, or with `--phase moving` the moving tiers alone.
    fn from_flags(flags: &VariantArgs) -> Result<(BaghChal, TierPlan<BaghChal>), Failure> {
        let b = &flags.baghchal;
        let variant = BaghChalVariant::new(b.goats, b.capture_target).map_err(|e| {
            Failure::bad_input(format!("--goats {} --capture-target {}: {e}", b.goats, b.capture_target))
        })?;
        let game = BaghChal::new(variant);
        let plan = match b.phase.as_str() {
            "moving" => TierPlan::from_root(&game, BaghTier { to_place: 0, captured: 0 }),
            _ => TierPlan::new(&game),
        };
        Ok((game, plan))
    }

    fn run_about(&self, flags: &VariantArgs) -> String {
        format!("{}, {} phase", self.about(), flags.baghchal.phase)
    }

    fn run_facts(&self, flags: &VariantArgs) -> Json {
        json!({"game": self.game_name(), "variant": self.variant_json(), "phase": flags.baghchal.phase})
    }

    fn print_plan(&self, plan: &TierPlan<BaghChal>, _json: bool) -> CommandResult {
        let (largest, largest_slots) = plan.largest_tier().expect("every variant has a tier");
        line(format_args!(
            "{} tiers, {} positions; largest tier {}: {largest_slots} positions",
            plan.order.len(),
            plan.total_slots(),
            self.tier_name(largest)
        ))
    }

    fn report_solve(
        &self,
        flags: &VariantArgs,
        _plan: &TierPlan<BaghChal>,
        s: Solved,
        _progress: &SolveProgress,
        json_out: bool,
    ) -> CommandResult {
        let manifest = &s.manifest;
        let used = |t: &foxbase_tables::manifest::TierEntry| t.slots - t.unused;
        if json_out {
            let tiers: Vec<_> = manifest
                .tiers
                .iter()
                .map(|t| {
                    json!({"tier": t.name, "positions": used(t), "slots": t.slots, "wins": t.wins, "draws": t.draws,
                        "losses": t.losses})
                })
                .collect();
            return json(
                &json!({"game": self.game_name(), "variant": self.variant_json(), "phase": flags.baghchal.phase,
                "tiers": tiers, "positions": manifest.tiers.iter().map(used).sum::<u64>(),
                "slots": manifest.total_slots(), "seconds": s.seconds, "out": s.out.to_string(),
                "plies_files": s.output.plies(), "tiers_resumed": s.resumed, "tiers_imported": s.imported,
                "threads": s.threads, "workers": s.workers, "disk_high_water_bytes": s.disk_high_water}),
            );
        }
        line(format_args!(
            "solved {}, {} phase: {} tiers{}, {} positions up to symmetry ({} slots) in {:.1}s; tables: {}",
            self.about(),
            flags.baghchal.phase,
            manifest.tiers.len(),
            s.resumed_note(),
            manifest.tiers.iter().map(used).sum::<u64>(),
            manifest.total_slots(),
            s.seconds,
            s.out
        ))?;
        for t in &manifest.tiers {
            line(format_args!(
                "  {:8} {:>12} positions: {} won, {} drawn, {} lost for the side to move",
                t.name,
                used(t),
                t.wins,
                t.draws,
                t.losses
            ))?;
        }
        Ok(())
    }

    const COUNTS_DISTINCT_POSITIONS: bool = true;

    fn distinct_positions(rules: &bc::PlayRules, start: &PlayPosition<BaghChal>, depth: u32) -> Option<Layer> {
        Some(*bc::distinct_positions(rules.rules(), start, depth).last().expect("layer 0 at least"))
    }
}
