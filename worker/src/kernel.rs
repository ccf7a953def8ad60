//! Choosing a kernel, and the contract every kernel keeps: what a solve of
//! one tier takes (its child tiers' tables, [`ChildTable`]), what it gives
//! back ([`SolvedTier`]), and [`SolveTier`], the kernels a game is solved
//! with. The kernels themselves: [`crate::counter_kernel`] (any game, the
//! oracle), [`crate::plies_kernel`] (the same with plies),
//! [`crate::plane_kernel`] (the Fox Game) and [`crate::forward_kernel`]
//! (Bagh-Chal's placing tiers); each game's choice among them is in
//! [`crate::game_kernels`].

pub use crate::counter_kernel::{solve_in_pool, solve_tier};
use crate::plane_kernel::KeptPlanes;
use foxbase_core::tier::TierGame;
use foxbase_tables::packed::PackedValues;
use foxbase_tables::plies::{Distance, Plies};
use foxbase_tables::Layout;
use std::sync::Arc;

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
    /// [`crate::counter_kernel`], generic over [`TierGame`]: the oracle.
    Counter,
    /// [`crate::forward_kernel`]: Bagh-Chal's placing tiers in two forward
    /// passes (its moving tiers go to the counter kernel).
    Forward,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Planes => "planes",
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
            "counter" => Ok(Kernel::Counter),
            "forward" => Ok(Kernel::Forward),
            _ => Err(UnknownKernel(s.to_string())),
        }
    }
}

/// A kernel name other than `planes`, `counter` or `forward`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown kernel '{0}' (planes, counter or forward)")]
pub struct UnknownKernel(pub String);

/// The kernel a solve of `game` for `output` uses: `asked` (`--kernel`) or
/// the game's default (the first of [`SolveTier::kernels`]), or the kernel
/// that stands in for the default where it cannot compute `output`
/// ([`SolveTier::stand_in`]). A kernel the game does not take is refused,
/// naming those it takes, as is an asked kernel that cannot compute
/// `output` (`planes` for the plies the game's stand-in computes), so that
/// the kernel a solve reports is the one that ran.
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
/// plies ([`crate::plies_kernel`], every game). Both distances are the same induction: DTM counts a move
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

/// The solved values of a child tier, with its layout.
pub struct ChildTable<G: TierGame> {
    pub tier: G::Tier,
    pub index: G::Index,
    /// Shared: a worker's [`crate::table_cache::TableCache`] may hold the same table.
    pub values: Arc<PackedValues>,
    /// Its plies to the end, for a solve with plies.
    pub plies: Option<Plies>,
    /// What the Fox Game's plane kernel derives from the table for the
    /// sheep steps into it, shared like `values` ([`KeptPlanes`]).
    pub planes: Arc<KeptPlanes>,
}

impl<G: TierGame> ChildTable<G> {
    /// A child table with nothing derived from it yet.
    pub fn new(tier: G::Tier, index: G::Index, values: Arc<PackedValues>, plies: Option<Plies>) -> ChildTable<G> {
        ChildTable { tier, index, values, plies, planes: Arc::default() }
    }
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

/// A rayon pool of `threads` threads (at least one), for one tier's work.
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, KernelError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| KernelError::ThreadPool { threads, message: e.to_string() })
}
