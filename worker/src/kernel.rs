//! The retrograde kernel: solves one tier given its child tiers' values.
//!
//! Counter-based backward induction. Every position starts with the number
//! of distinct canonical children it has inside the tier (plus one if a
//! child outside the tier is a draw, which can never be undone). Children
//! outside the tier and game-over children are looked up once. A position
//! with a losing child is a win; one with nothing left to count is a loss.
//! Newly decided positions then walk back through their in-tier un-moves:
//! a loss makes every parent a win, a win counts a parent down. What is
//! never decided is a draw. Only one pass over the tier generates moves;
//! after it, work is proportional to the decided positions.
//!
//! Propagation runs level by level (all positions decided at level d before
//! any at d + 1). The values do not depend on the order, so the output is
//! the same for any thread count; the levels are what a later
//! distance-to-win value will be read from.

use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use foxbase_tables::packed::{PackedValues, UNUSED};
use foxbase_tables::plies::{Distance, Plies};
use foxbase_tables::Layout;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// Per-position solver state: a pending-child counter below `MAX_COUNTER`,
/// or one of the decided states.
pub(crate) const MAX_COUNTER: u8 = 248;
/// Decided by the initial pass and not yet propagated; becomes LOSS or WIN
/// when the first level walks back from it.
pub(crate) const LOSS_AT_START: u8 = 249;
pub(crate) const WIN_AT_START: u8 = 250;
pub(crate) const DRAW: u8 = 252;
pub(crate) const WIN: u8 = 253;
pub(crate) const LOSS: u8 = 254;
pub(crate) const EMPTY: u8 = 255;

/// Positions decided per parallel work item.
pub(crate) const CHUNK: usize = 1 << 14;

/// Why a tier could not be solved. Apart from [`KernelError::ThreadPool`],
/// each is a bug in a game's implementation of the tier contract or a
/// missing child table, never bad input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    #[error("cannot start {threads} threads: {message}")]
    ThreadPool { threads: usize, message: String },
    #[error("tier {tier} has {size} slots; the kernel handles fewer than 2^32")]
    TooLarge { tier: String, size: u64 },
    #[error("a position of tier {tier} has {children} children; at most {limit} are supported")]
    TooManyChildren { tier: String, children: usize, limit: u8 },
    /// A position is more plies from the end than the solve's counts hold.
    #[error("a position of tier {tier} is more than {limit} plies from the end")]
    TooManyPlies { tier: String, limit: u32 },
    /// A child table or the game's answers contradict the contract.
    #[error("{0}")]
    Inconsistent(String),
}

/// Which kernel solves a tier. The tables are the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kernel {
    /// [`crate::plane_kernel`]: bit planes per sheep set, for the Fox Game
    /// (other games use the counter kernel).
    #[default]
    Planes,
    /// [`crate::fox_kernel`]: per sheep set and position, for the Fox Game.
    Block,
    /// This module's counter kernel, generic over [`TierGame`]: the oracle.
    Counter,
    /// [`crate::forward_kernel`]: Bagh-Chal's placing tiers in two forward
    /// passes (its moving tiers go to the counter kernel).
    Forward,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Planes => "planes",
            Kernel::Block => "block",
            Kernel::Counter => "counter",
            Kernel::Forward => "forward",
        }
    }
}

impl std::str::FromStr for Kernel {
    type Err = UnknownKernel;
    fn from_str(s: &str) -> Result<Kernel, UnknownKernel> {
        match s {
            "planes" => Ok(Kernel::Planes),
            "block" => Ok(Kernel::Block),
            "counter" => Ok(Kernel::Counter),
            "forward" => Ok(Kernel::Forward),
            _ => Err(UnknownKernel(s.to_string())),
        }
    }
}

/// A kernel name other than `planes`, `block`, `counter` or `forward`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown kernel '{0}' (planes, block, counter or forward)")]
pub struct UnknownKernel(pub String);

/// The kernel a solve of `game` for `output` uses: `asked` (`--kernel`) or
/// the game's default (the first of [`SolveTier::kernels`]), or the kernel
/// that stands in for the default where it cannot compute `output`
/// ([`SolveTier::stand_in`]). A kernel the game does not take is refused,
/// naming those it takes, as is an asked kernel that cannot compute
/// `output` (`block` for a solve with plies; `planes` for the plies the
/// game's stand-in computes), so that the kernel a solve reports is the
/// one that ran.
pub fn choose_kernel<G: SolveTier>(game: &G, asked: Option<Kernel>, output: Output) -> Result<Kernel, String> {
    let kernels = game.kernels();
    let Some(kernel) = asked else {
        return Ok(game.stand_in(kernels[0], output).map_or(kernels[0], |(other, _)| other));
    };
    if !kernels.contains(&kernel) {
        let mut names: Vec<String> = kernels.iter().map(|k| k.name().to_string()).collect();
        names[0] += " (the default)";
        let list = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        };
        return Err(format!("--kernel {}: the game {} takes {list}", kernel.name(), game.game_name()));
    }
    if kernel == Kernel::Block && output.plies() {
        let others: Vec<&str> = kernels.iter().filter(|&&k| k != Kernel::Block).map(|k| k.name()).collect();
        return Err(format!("--kernel block computes values only; add --no-distance, or use {}", others.join(" or ")));
    }
    if let Some((other, what)) = game.stand_in(kernel, output) {
        return Err(format!(
            "--kernel {} does not compute {what}; use --kernel {} or leave --kernel out",
            kernel.name(),
            other.name()
        ));
    }
    Ok(kernel)
}

/// What a solve computes: the values alone, or with a distance for every
/// won or lost position ([`foxbase_tables::plies`]): plies to the end
/// (`Dtm`) or to zeroing (`Dtz`, [`Distance::Dtz`]). Plies come from the
/// plane kernel (the Fox Game's default) or from the counter kernel with
/// plies ([`crate::plies_kernel`], every game); the block kernel computes
/// values only. Both distances are the same induction: DTM counts a move
/// out of the tier as 1 + the child's plies, DTZ as 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Values,
    Dtm,
    Dtz,
}

impl Output {
    /// Whether the solve writes a plies file.
    pub fn plies(self) -> bool {
        self != Output::Values
    }

    /// What its plies count, if it has any.
    pub fn distance(self) -> Option<Distance> {
        match self {
            Output::Values => None,
            Output::Dtm => Some(Distance::Dtm),
            Output::Dtz => Some(Distance::Dtz),
        }
    }

    /// The output computing `distance` (`None`: values only).
    pub fn with(distance: Option<Distance>) -> Output {
        match distance {
            None => Output::Values,
            Some(Distance::Dtm) => Output::Dtm,
            Some(Distance::Dtz) => Output::Dtz,
        }
    }

    /// Whether the solve reads its children's plies: DTM only (DTZ needs their values alone).
    pub fn children_plies(self) -> bool {
        self == Output::Dtm
    }
}

/// A game the worker can solve, with the kernels it supports: every game
/// has the counter kernel; a game with a kernel of its own names it in
/// [`SolveTier::kernels`] and overrides [`SolveTier::solve_values`].
pub trait SolveTier: TierGame + Sized {
    /// The kernels this game's tiers are solved with, its default first:
    /// all that `--kernel` may name for it ([`choose_kernel`]).
    fn kernels(&self) -> &'static [Kernel] {
        &[Kernel::Counter]
    }

    /// The kernel that computes `output` in `kernel`'s place for this game,
    /// with what `kernel` does not compute (for an error message), or `None`
    /// where `kernel` computes it itself.
    fn stand_in(&self, _kernel: Kernel, _output: Output) -> Option<(Kernel, &'static str)> {
        None
    }

    /// Solves `tier` for `output` with `kernel` (for values alone) on the
    /// calling thread's rayon pool. Preconditions as [`solve_tier`]; with
    /// plies, every child table holds plies.
    fn solve_with(
        &self,
        kernel: Kernel,
        output: Output,
        tier: Self::Tier,
        children: &[ChildTable<Self>],
    ) -> Result<SolvedTier, KernelError> {
        match output.distance() {
            Some(distance) => self.solve_plies(kernel, distance, tier, children),
            None => self.solve_values(kernel, tier, children),
        }
    }

    /// Values and plies (`distance`) of `tier` with `kernel` where the game
    /// has a kernel with plies of its own, else the counter kernel with plies.
    fn solve_plies(
        &self,
        kernel: Kernel,
        distance: Distance,
        tier: Self::Tier,
        children: &[ChildTable<Self>],
    ) -> Result<SolvedTier, KernelError> {
        let _ = kernel;
        crate::plies_kernel::solve_plies_in_pool(self, tier, children, distance)
    }

    /// The values of `tier` with `kernel`. Preconditions as [`solve_tier`].
    fn solve_values(
        &self,
        kernel: Kernel,
        tier: Self::Tier,
        children: &[ChildTable<Self>],
    ) -> Result<SolvedTier, KernelError> {
        let _ = kernel;
        solve_in_pool(self, tier, children)
    }

    /// [`SolveTier::solve_with`] that may free the child tables before it
    /// returns (as soon as the kernel no longer reads them).
    fn solve_owning(
        &self,
        kernel: Kernel,
        output: Output,
        tier: Self::Tier,
        children: Vec<ChildTable<Self>>,
    ) -> Result<SolvedTier, KernelError> {
        self.solve_with(kernel, output, tier, &children)
    }

    /// The layout a solve writes its packed DTZ files in
    /// ([`foxbase_tables::plies::Distance::packs`]): every won and lost
    /// slot's count ([`Layout::Solved`], the default), or the odd slots'
    /// alone ([`Layout::Published`]) for a game whose reader derives an even
    /// slot's count by one move, as it derives a published table's values.
    fn packed_plies_layout(&self) -> Layout {
        Layout::Solved
    }
}

impl SolveTier for foxbase_core::foxgame::FoxGame {
    fn kernels(&self) -> &'static [Kernel] {
        &[Kernel::Planes, Kernel::Block, Kernel::Counter]
    }

    /// The sheep-to-move counts alone: [`foxbase_tables::TableDir`] derives
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
            Kernel::Block => crate::fox_kernel::solve_fox_in_pool(self, tier, children),
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

/// The solved values of a child tier, with its layout.
pub struct ChildTable<G: TierGame> {
    pub tier: G::Tier,
    pub index: G::Index,
    /// Shared: a worker's [`crate::table_cache::TableCache`] may hold the same table.
    pub values: Arc<PackedValues>,
    /// Its plies to the end, for a solve with plies.
    pub plies: Option<Plies>,
}

/// Figures from one tier solve.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TierStats {
    pub slots: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub unused: u64,
    /// Propagation levels until nothing changed (the initial pass's decisions are level 1).
    pub levels: u32,
    /// Positions decided by the initial pass, before any propagation
    /// (game-over positions, and positions with a losing child in another tier).
    pub decided_at_start: u64,
}

impl TierStats {
    /// The stats of `slots` slots from counts of the 2-bit codes (draw,
    /// win, loss, unused) of its parts; `levels` and `decided_at_start` 0.
    pub(crate) fn from_code_counts(slots: u64, parts: impl IntoIterator<Item = [u64; 4]>) -> TierStats {
        let mut stats = TierStats { slots, ..TierStats::default() };
        for c in parts {
            stats.draws += c[0];
            stats.wins += c[1];
            stats.losses += c[2];
            stats.unused += c[3];
        }
        stats
    }
}

/// Seconds spent in each phase of a tier's solve; summed over tiers in reports.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Phases {
    /// Reading and decoding the child tables.
    pub load: f64,
    /// The initial pass: game-over positions, child lookups, counters.
    pub init: f64,
    /// Walking back from decided positions until nothing changes.
    pub propagate: f64,
    /// Turning the solver's state into 2-bit values and counts.
    pub pack: f64,
    /// Compressing and writing the table.
    pub write: f64,
}

impl std::ops::AddAssign for Phases {
    fn add_assign(&mut self, o: Phases) {
        self.load += o.load;
        self.init += o.init;
        self.propagate += o.propagate;
        self.pack += o.pack;
        self.write += o.write;
    }
}

impl Phases {
    pub fn total(&self) -> f64 {
        self.load + self.init + self.propagate + self.pack + self.write
    }
}

/// The result of solving a tier.
pub struct SolvedTier {
    pub values: PackedValues,
    /// Its plies, when the solve computed them ([`Output::plies`]).
    pub plies: Option<Plies>,
    pub stats: TierStats,
    /// `init`, `propagate` and `pack` (the kernel neither loads nor writes).
    pub phases: Phases,
}

/// Solves `tier` of `game` with `threads` threads.
///
/// Preconditions: `children` holds the solved tables of every tier in
/// `game.child_tiers(tier)`. An error names a missing child tier or an
/// inconsistency in the game's implementation (a bug, never bad input).
pub fn solve_tier<G: TierGame>(
    game: &G,
    tier: G::Tier,
    children: &[ChildTable<G>],
    threads: usize,
) -> Result<SolvedTier, KernelError> {
    thread_pool(threads)?.install(|| solve_in_pool(game, tier, children))
}

/// A rayon pool of `threads` threads (at least one), for one tier's work.
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, KernelError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| KernelError::ThreadPool { threads, message: e.to_string() })
}

/// [`solve_tier`] on the calling thread's rayon pool (the caller chose its size).
pub fn solve_in_pool<G: TierGame>(
    game: &G,
    tier: G::Tier,
    children: &[ChildTable<G>],
) -> Result<SolvedTier, KernelError> {
    let index = game.tier_index(tier);
    let size = game.tier_size(&index);
    if size >= u32::MAX as u64 {
        return Err(KernelError::TooLarge { tier: game.tier_name(tier), size });
    }
    let started = std::time::Instant::now();
    let mut phases = Phases::default();
    let state: Vec<AtomicU8> = (0..size).map(|_| AtomicU8::new(EMPTY)).collect();

    // Initial pass: primitive values, child lookups and counters. The
    // positions it decides are marked, not listed, so that no list as long
    // as the tier is ever held.
    let chunks: Vec<u64> = (0..size.div_ceil(CHUNK as u64)).collect();
    chunks.par_iter().try_for_each(|&c| {
        let mut in_tier: Vec<u64> = Vec::with_capacity(128);
        let mut result = Ok(());
        let (lo, hi) = (c * CHUNK as u64, ((c + 1) * CHUNK as u64).min(size));
        game.for_each_slot(&index, lo..hi, |i, pos| {
            if result.is_err() {
                return;
            }
            let s = match pos {
                None => EMPTY,
                Some(pos) => match init_position(game, tier, &index, children, &pos, &mut in_tier) {
                    Ok(WIN) => WIN_AT_START,
                    Ok(LOSS) => LOSS_AT_START,
                    Ok(s) => s,
                    Err(e) => {
                        result = Err(e);
                        return;
                    }
                },
            };
            state[i as usize].store(s, Ordering::Relaxed);
        });
        result
    })?;

    phases.init = started.elapsed().as_secs_f64();
    let walk_back = |c: u64, next: &mut Vec<u32>, parents: &mut Vec<u64>| {
        let decided = state[c as usize].load(Ordering::Relaxed);
        let pos = game.unrank(&index, c).expect("decided slot holds a position");
        parents.clear();
        game.for_each_parent_in_tier(&pos, |q| parents.push(game.canonical_rank(&index, &q)));
        parents.sort_unstable();
        parents.dedup();
        for &p in parents.iter() {
            if update_parent(&state[p as usize], decided) {
                next.push(p as u32);
            }
        }
    };
    Ok(propagate_and_pack(&state, &walk_back, phases))
}

/// The end of a solve, shared by the kernels: [`propagate`], then [`pack`],
/// timed into `phases`.
pub(crate) fn propagate_and_pack<S: Default>(
    state: &[AtomicU8],
    walk_back: &(impl Fn(u64, &mut Vec<u32>, &mut S) + Sync),
    mut phases: Phases,
) -> SolvedTier {
    let started = std::time::Instant::now();
    let (levels, decided_at_start) = propagate(state, walk_back);
    phases.propagate = started.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let (values, mut stats) = pack(state);
    stats.levels = levels;
    stats.decided_at_start = decided_at_start;
    phases.pack = started.elapsed().as_secs_f64();
    SolvedTier { values, stats, phases, plies: None }
}

/// Propagation, shared by the kernels: level 1 walks back from the
/// positions the initial pass decided (marked `WIN_AT_START` or
/// `LOSS_AT_START`), found by a scan of the state; later levels from the
/// list the level before made, kept in its per-chunk parts rather than
/// copied into one list. `walk_back(slot, next, scratch)` applies a decided
/// slot to its in-tier parents with [`update_parent`] and lists those it
/// decides in `next`. Returns the number of levels and of positions decided
/// at the start.
pub(crate) fn propagate<S: Default>(
    state: &[AtomicU8],
    walk_back: &(impl Fn(u64, &mut Vec<u32>, &mut S) + Sync),
) -> (u32, u64) {
    let size = state.len() as u64;
    let chunks: Vec<u64> = (0..size.div_ceil(CHUNK as u64)).collect();
    let (mut frontier, at_start): (Vec<Vec<u32>>, Vec<u64>) = chunks
        .par_iter()
        .map(|&c| {
            let (mut next, mut scratch, mut decided_here) = (Vec::new(), S::default(), 0);
            for i in c * CHUNK as u64..((c + 1) * CHUNK as u64).min(size) {
                let decided = match state[i as usize].load(Ordering::Relaxed) {
                    WIN_AT_START => WIN,
                    LOSS_AT_START => LOSS,
                    _ => continue,
                };
                decided_here += 1;
                // Only this thread touches this slot now: updates never change a decided state.
                state[i as usize].store(decided, Ordering::Relaxed);
                walk_back(i, &mut next, &mut scratch);
            }
            next.sort_unstable();
            (next, decided_here)
        })
        .unzip();
    let mut levels = 1;
    while frontier.iter().any(|part| !part.is_empty()) {
        levels += 1;
        frontier = frontier
            .par_iter()
            .flat_map(|part| part.par_chunks(CHUNK))
            .map(|chunk| {
                let (mut next, mut scratch) = (Vec::new(), S::default());
                for &c in chunk {
                    walk_back(c as u64, &mut next, &mut scratch);
                }
                // In slot order, the next level reads the state (and decodes
                // sheep sets) in order.
                next.sort_unstable();
                next
            })
            .collect();
    }
    (levels, at_start.iter().sum())
}

/// Turns the final state into 2-bit values (undecided positions are draws)
/// and counts, in parallel a byte (four slots) at a time, so chunks never
/// share a byte. `levels` and `decided_at_start` are left at 0.
pub(crate) fn pack(state: &[AtomicU8]) -> (PackedValues, TierStats) {
    let size = state.len() as u64;
    let mut values = PackedValues::filled(size, 0);
    const PACK_BYTES: usize = CHUNK / 4;
    let counts: Vec<[u64; 4]> = values
        .bytes_mut()
        .par_chunks_mut(PACK_BYTES)
        .enumerate()
        .map(|(c, bytes)| {
            let mut counts = [0u64; 4];
            let first = c * PACK_BYTES * 4;
            for (k, byte) in bytes.iter_mut().enumerate() {
                let mut packed = 0u8;
                for j in 0..4 {
                    let i = first + k * 4 + j;
                    if i as u64 >= size {
                        break;
                    }
                    let code = match state[i].load(Ordering::Relaxed) {
                        WIN => Value::Win.code(),
                        LOSS => Value::Loss.code(),
                        EMPTY => UNUSED,
                        _ => Value::Draw.code(),
                    };
                    counts[code as usize] += 1;
                    packed |= code << (2 * j);
                }
                *byte = packed;
            }
            counts
        })
        .collect();
    (values, TierStats::from_code_counts(size, counts))
}

/// The initial state of a position.
///
/// Game-over positions are decided here and, like every decided position,
/// walk back to their parents during propagation; so a parent counts each
/// in-tier child without asking whether it is over. Children in other tiers
/// are read from the child tables, which hold game-over positions too; a
/// child in a tier with no table must be over, or the game's `child_tiers`
/// missed a tier.
#[inline]
fn init_position<G: TierGame>(
    game: &G,
    tier: G::Tier,
    index: &G::Index,
    children: &[ChildTable<G>],
    pos: &G::Position,
    in_tier: &mut Vec<u64>,
) -> Result<u8, KernelError> {
    match game.primitive(pos) {
        Some(Value::Win) => return Ok(WIN),
        Some(Value::Loss) => return Ok(LOSS),
        Some(Value::Draw) => return Ok(DRAW),
        None => {}
    }
    in_tier.clear();
    let mut wins = false;
    let mut draw_outside = false;
    let mut error = None;
    game.for_each_child(pos, |child| {
        if wins || error.is_some() {
            return;
        }
        match locate_child(game, tier, index, children, &child) {
            Ok(ChildAt::InTier(rank)) => in_tier.push(rank),
            Ok(ChildAt::Outside(Value::Loss, _)) => wins = true,
            Ok(ChildAt::Outside(Value::Draw, _)) => draw_outside = true,
            Ok(ChildAt::Outside(Value::Win, _)) => {}
            Err(e) => error = Some(e),
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    if wins {
        return Ok(WIN);
    }
    in_tier.sort_unstable();
    in_tier.dedup();
    let counter = in_tier.len() + draw_outside as usize;
    if counter == 0 {
        return Ok(LOSS);
    }
    if counter >= MAX_COUNTER as usize {
        return Err(KernelError::TooManyChildren { tier: game.tier_name(tier), children: counter, limit: MAX_COUNTER });
    }
    Ok(counter as u8)
}

/// Where a child of a position of `tier` is: in the tier (its rank), or
/// outside it with its value for its side to move and its plies (0 when
/// its table has none).
pub(crate) enum ChildAt {
    InTier(u64),
    Outside(Value, u32),
}

/// Finds `child` of a position of `tier`: its in-tier rank, or its value
/// (and plies) from the child tables, or, in a tier without a table, its
/// game-over value (anything else is an error naming the tier: missing
/// from `child_tiers`, or a table with an unused slot where it belongs).
#[inline]
pub(crate) fn locate_child<G: TierGame>(
    game: &G,
    tier: G::Tier,
    index: &G::Index,
    children: &[ChildTable<G>],
    child: &G::Position,
) -> Result<ChildAt, KernelError> {
    let t = game.tier_of(child);
    if t == tier {
        return Ok(ChildAt::InTier(game.canonical_rank(index, child)));
    }
    match children.iter().find(|c| c.tier == t) {
        Some(table) => {
            let i = game.canonical_rank(&table.index, child);
            match table.values.value(i) {
                Some(v) => Ok(ChildAt::Outside(v, table.plies.as_ref().map_or(0, |p| p.get(i) as u32))),
                None => Err(KernelError::Inconsistent(format!(
                    "child tier {} has an unused slot at {i}, where {child:?} belongs",
                    game.tier_name(t)
                ))),
            }
        }
        None => match game.primitive(child) {
            Some(v) => Ok(ChildAt::Outside(v, 0)),
            None => Err(KernelError::Inconsistent(format!(
                "child {child:?} is in tier {}, which is not loaded (missing from child_tiers?)",
                game.tier_name(t)
            ))),
        },
    }
}

/// The state of a parent in state `s` after a child decided as `child`
/// (WIN or LOSS): a loss below makes it a win, a win counts it down (a loss
/// at zero); `None` when the parent is decided already.
#[inline]
fn after_child(s: u8, child: u8) -> Option<u8> {
    if s >= MAX_COUNTER {
        None
    } else if child == LOSS {
        Some(WIN)
    } else if s == 1 {
        Some(LOSS)
    } else {
        Some(s - 1)
    }
}

/// Applies a decided child to an undecided parent; true if that decides the parent.
#[inline]
pub(crate) fn update_parent(parent: &AtomicU8, child: u8) -> bool {
    let mut s = parent.load(Ordering::Relaxed);
    loop {
        let Some(new) = after_child(s, child) else { return false };
        match parent.compare_exchange_weak(s, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return new == WIN || new == LOSS,
            Err(actual) => s = actual,
        }
    }
}

/// [`update_parent`] with a plain load and store: only when one thread propagates.
#[inline]
pub(crate) fn update_parent_alone(parent: &AtomicU8, child: u8) -> bool {
    let Some(new) = after_child(parent.load(Ordering::Relaxed), child) else { return false };
    parent.store(new, Ordering::Relaxed);
    new == WIN || new == LOSS
}
