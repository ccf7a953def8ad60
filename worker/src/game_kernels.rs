//! Each game's [`SolveTier`]: the kernels it is solved with (its default
//! first) and what it refuses. The Fox Game: the plane kernel (values, and
//! plies where its phases count them), the counter kernels otherwise;
//! Bagh-Chal: the forward kernel for its placing tiers; tic-tac-toe: the
//! counter kernels.

use crate::kernel::{solve_in_pool, ChildTable, Kernel, KernelError, Output, SolveTier, SolvedTier};
use foxbase_tables::plies::Distance;
use foxbase_tables::Layout;

impl SolveTier for foxbase_core::foxgame::FoxGame {
    fn kernels(&self) -> &'static [Kernel] {
        &[Kernel::Planes, Kernel::Counter]
    }

    /// The sheep-to-move counts alone: [`foxbase_tables::FoxTables`] derives
    /// a fox-to-move count by one fox move (every fox move leaves the sheep
    /// to move), which halves the DTZ files (docs/results.md).
    fn packed_plies_layout(&self) -> Layout {
        Layout::Published
    }

    fn stand_in(&self, kernel: Kernel, output: Output) -> Option<(Kernel, &'static str)> {
        if kernel != Kernel::Planes || !output.plies() || planes_count_plies(self) {
            return None;
        }
        Some((Kernel::Counter, "plies under --floor-winner sheep"))
    }

    fn solve_values(
        &self,
        kernel: Kernel,
        tier: Self::Tier,
        children: &[ChildTable<Self>],
    ) -> Result<SolvedTier, KernelError> {
        refuse_below_floor(self, tier)?;
        refuse_no_progress_without_dtz(self, None)?;
        match kernel {
            Kernel::Planes => crate::plane_kernel::solve_planes_in_pool(self, tier, children),
            Kernel::Counter | Kernel::Forward => solve_in_pool(self, tier, children),
        }
    }

    fn solve_plies(
        &self,
        kernel: Kernel,
        distance: Distance,
        tier: Self::Tier,
        children: &[ChildTable<Self>],
    ) -> Result<SolvedTier, KernelError> {
        refuse_below_floor(self, tier)?;
        refuse_no_progress_without_dtz(self, Some(distance))?;
        match kernel {
            Kernel::Planes if planes_count_plies(self) => {
                crate::plane_kernel::solve_planes_with_plies(self, tier, children, distance)
            }
            _ => crate::plies_kernel::solve_plies_in_pool(self, tier, children, distance),
        }
    }

    fn solve_owning(
        &self,
        kernel: Kernel,
        output: Output,
        tier: Self::Tier,
        children: Vec<ChildTable<Self>>,
    ) -> Result<SolvedTier, KernelError> {
        refuse_below_floor(self, tier)?;
        refuse_no_progress_without_dtz(self, output.distance())?;
        match kernel {
            Kernel::Planes if !output.plies() || planes_count_plies(self) => {
                crate::plane_kernel::solve_planes_owning(self, tier, children, output.distance())
            }
            _ => self.solve_with(kernel, output, tier, &children),
        }
    }
}

/// Whether the plane kernel's plies hold for `game`. Its phases decide a
/// side's wins at odd plies and losses at even ones; below a floor won by
/// the sheep the game ends after a fox move with the sheep to move the
/// winner (a win at even plies), so those plies come from the counter
/// kernel. Under a no-progress rule the plane kernel counts exact plies to
/// zeroing instead, a ply of each side at a time (`plane_kernel::exact`),
/// which holds for either floor winner.
fn planes_count_plies(game: &foxbase_core::foxgame::FoxGame) -> bool {
    game.rules.floor_winner == foxbase_core::Side::Fox || game.rules.no_progress > 0
}

/// A solve under a no-progress rule computes its exact distances to
/// zeroing (the values at other counters follow from them): anything else
/// is refused.
fn refuse_no_progress_without_dtz(
    game: &foxbase_core::foxgame::FoxGame,
    distance: Option<Distance>,
) -> Result<(), KernelError> {
    if game.rules.no_progress > 0 && distance != Some(Distance::Dtz) {
        return Err(KernelError::Inconsistent(format!(
            "a solve under the no-progress rule ({} plies) computes distances to zeroing (dtz), not {}",
            game.rules.no_progress,
            distance.map_or("values alone", |d| d.name())
        )));
    }
    Ok(())
}

/// A tier with K..F-1 sheep (below a sheep floor F) is never planned: its
/// sheep-to-move positions are over. The Fox Game kernels assume that only
/// tiers with fewer than K sheep are over that way, so such a tier is refused.
fn refuse_below_floor(
    game: &foxbase_core::foxgame::FoxGame,
    tier: foxbase_core::foxgame::FoxTier,
) -> Result<(), KernelError> {
    let rules = &game.rules;
    if tier.sheep() >= rules.pen_target && tier.sheep() < rules.sheep_floor {
        return Err(KernelError::Inconsistent(format!(
            "tier {} has {} sheep, below the sheep floor {}: its positions are over and it is never solved",
            tier.name(),
            tier.sheep(),
            rules.sheep_floor
        )));
    }
    Ok(())
}

impl SolveTier for foxbase_core::tictactoe::TicTacToe {}
/// Bagh-Chal: the forward kernel for its placing tiers when asked (the
/// default of `solve --game baghchal`), the counter kernels otherwise.
impl SolveTier for foxbase_core::baghchal::BaghChal {
    fn kernels(&self) -> &'static [Kernel] {
        &[Kernel::Forward, Kernel::Counter]
    }

    fn solve_with(
        &self,
        kernel: Kernel,
        output: Output,
        tier: Self::Tier,
        children: &[ChildTable<Self>],
    ) -> Result<SolvedTier, KernelError> {
        if kernel == Kernel::Forward && crate::forward_kernel::handles(self, tier) {
            return crate::forward_kernel::solve_forward_in_pool(self, tier, children, output.distance());
        }
        match output.distance() {
            Some(distance) => crate::plies_kernel::solve_plies_in_pool(self, tier, children, distance),
            None => solve_in_pool(self, tier, children),
        }
    }
}
