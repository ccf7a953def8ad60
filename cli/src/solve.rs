//! `foxbase solve`: plan, solve locally with progress, seal the run
//! (manifest, tier index, start value), report. `--plan-only` prints the
//! size of the work without doing it.

use crate::command::{position_arg, refuse_other_games_flags_in, threads_or_all, CommandResult, Failure};
use crate::game_commands::GameCommands;
use crate::output::SolveProgress;
use clap::Args;
use foxbase_coordinator::error::CoordinatorError;
use foxbase_coordinator::local::{
    finish_published, solve_local_into, solve_local_journaled, tables_in, LocalOptions, LocalSolve,
    DEFAULT_TABLES_IN_MEMORY, LOCAL_JOURNAL,
};
use foxbase_coordinator::plan::TierPlan;
use foxbase_coordinator::reuse::TableSource;
use foxbase_core::game::GameKind;
use foxbase_core::{Geometry, Variant};
use foxbase_objstore::StoreUrl;
use foxbase_tables::plies::Distance;
use foxbase_tables::publish::{Levels, Publishable};
use foxbase_tables::seal::SealRun;
use foxbase_tables::source::Location;
use foxbase_worker::kernel::{choose_kernel, Kernel, Output, SolveTier};
use foxbase_worker::store::Store;
use std::time::Instant;

/// The default `solve` variant (docs/results.md says why it was chosen).
pub const DEFAULT_SOLVE_START: &str = ".F./.../......./......./SSSSSSS/.S./... f";
pub const DEFAULT_SOLVE_PEN_TARGET: u32 = 7;

/// Rule switches for `solve` and `coordinator`, whose defaults are the README's main job.
#[derive(Args, Clone, Copy)]
pub struct SolveRuleArgs {
    /// Board lines: `classic` (orthogonal lines plus the alternating diagonals) or `orthogonal` (no diagonals).
    #[arg(long, default_value = "classic", value_parser = crate::rules::parse_geometry)]
    pub geometry: Geometry,
    /// Pen target K (1..=9): K sheep in the pen win for the sheep, fewer than K sheep left win for the foxes.
    /// Default 7 here, to go with the default start; use 9 for the full rules.
    #[arg(long, default_value_t = DEFAULT_SOLVE_PEN_TARGET, value_parser = clap::value_parser!(u32).range(1..=9))]
    pub pen_target: u32,
    #[command(flatten)]
    pub floor: crate::rules::FloorArgs,
    /// Fox Game: a draw after N plies in a row without progress (no sheep rank sum raised, no piece off the
    /// board; RULES.md, "Draws"), 1..=255; 0, the default, for none. The solve then stores the values at
    /// counter 0 with exact distances to zeroing (--distance dtz; the plane kernel counts them a ply of each
    /// side at a time), from which
    /// `probe 'POSITION f C'` gives the value at counter C.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=255))]
    pub no_progress: u32,
}

impl SolveRuleArgs {
    /// The variant these switches give with the start position `start`.
    pub fn variant(&self, start: &str) -> Result<Variant, Failure> {
        let pos = position_arg(start)?;
        let variant = Variant::new(self.geometry, self.pen_target, pos).map_err(Failure::bad_input)?;
        self.floor.apply(variant)?.with_no_progress(self.no_progress).map_err(Failure::bad_input)
    }
}

/// The game and variant a solve or a coordinator's run solves: `--game`,
/// and each game's flags ([`GameCommands::from_flags`]).
#[derive(Args, Clone)]
pub struct VariantArgs {
    /// The game: `fox` (the Fox Game: --start and its rule switches), `tictactoe` (the second game of the
    /// tier engine, tiny) or `baghchal` (tigers and goats: --goats, --capture-target, --phase).
    #[arg(long, default_value_t = GameKind::DEFAULT, value_parser = crate::command::parse_game)]
    pub game: GameKind,
    /// Start position in RULES.md notation; its side to move moves first. The default (with
    /// --pen-target 7) is the README's main job: one fox on d7 against 8 sheep on rank 3 and d2.
    #[arg(long, default_value = DEFAULT_SOLVE_START)]
    pub start: String,
    #[command(flatten)]
    pub rules: SolveRuleArgs,
    #[command(flatten)]
    pub baghchal: BaghChalArgs,
}

#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// Where the tables and manifest.json go: a directory (created if missing), or, for the Fox
    /// Game, s3://BUCKET/PREFIX (tables uploaded as they are solved, manifest.json last; credentials
    /// from AWS_* variables; no journal, no --resume). A directory gets the solve's journal,
    /// DIR/journal.log, so that a solve killed midway can be continued with --resume; a directory
    /// that holds a journal or tables already is refused without --resume. Default: foxbase-tables,
    /// or tictactoe-tables / baghchal-tables with --game tictactoe / baghchal.
    #[arg(long)]
    out: Option<String>,
    /// Continue the solve journaled in --out DIR (DIR/journal.log) after it was killed or crashed:
    /// the tiers it finished (whose files are in DIR/tiers with their journaled lengths) are not
    /// solved again. It must be the same solve: the same game, variant, --phase and --no-distance
    /// (another is refused, naming the difference). A finished solve is left as it is; a DIR with no
    /// journal and no tables starts a new solve, so one command line serves a first run and every
    /// resumption.
    #[arg(long)]
    resume: bool,
    /// Take the tables of tiers that DIR holds instead of solving them (repeatable; the first DIR
    /// holding a tier gives it). DIR is a finished solve's --out directory of the same game and
    /// rules but for the start: for the capture-bounded solves, a 20-sheep solve under
    /// --sheep-floor 19 takes the 19-sheep tiers of the solve from a 19-sheep start. Each file is
    /// checked against the CRC32 its manifest records and copied into --out with this solve's
    /// variant in its header: the result is the directory a full solve writes. Not with a bucket
    /// --out; with distances, only tiers solved with distances are taken.
    #[arg(long, value_name = "DIR")]
    tables_from: Vec<std::path::PathBuf>,
    /// Kernel threads in all, shared out among the workers (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// In-process workers solving independent tiers at the same time, each with --threads /
    /// --workers kernel threads (default: 2 with two threads or more, else 1). Each holds its
    /// own tier and its children in memory; --workers 1 solves one tier at a time with every
    /// thread, in the least memory.
    #[arg(long)]
    workers: Option<usize>,
    /// Megabytes of solved tables (their values, and the planes the first parent derives from
    /// a crowded one) kept in memory for the parents solved after them, so that those read
    /// them without decompressing and deriving them again (shared by the workers; the least
    /// recently used go first). 0 reads every child from its file.
    #[arg(long, value_name = "MB", default_value_t = DEFAULT_TABLES_IN_MEMORY >> 20)]
    tables_in_memory: u64,
    /// Keep the tables in --out DIR within this many bytes (a number, or with K, M, G or T: powers
    /// of 1024): each tier is published in place (the bytes `foxbase publish` writes, at
    /// --publish-level, checked value for value against the solved table, journaled) once every
    /// tier that reads it is solved, and a tier is begun only when the bytes held and its unpacked
    /// size (2 bits a position, 2 bytes with plies) fit; a budget too small for the next tier stops
    /// the solve with an error (resume with a larger one). The finished DIR is the published tablebase, with its SHA256SUMS. A
    /// directory --out only; resume such a solve with --disk-budget too.
    #[arg(long, value_name = "BYTES", value_parser = crate::cluster::parse_bytes)]
    disk_budget: Option<u64>,
    /// With --disk-budget: the zstd level of the tiers published in place, tables and plies files
    /// alike, 1..=22 (default: those of `foxbase publish`). The finished DIR is then what `foxbase
    /// publish --level LEVEL --plies-level LEVEL` writes. Publishing spends its time compressing: a
    /// solve within a budget has taken 5 times the CPU of the same solve without one at `foxbase
    /// publish`'s level 15, 2.4 times at 3, for tables about a fifth larger (docs/results.md, "Open
    /// runs"). A resumed solve may take another level; the tiers published already keep theirs.
    #[arg(long, value_name = "LEVEL", requires = "disk_budget", value_parser = clap::value_parser!(i32).range(1..=22))]
    publish_level: Option<i32>,
    /// Print one JSON summary object at the end instead of text.
    #[arg(long)]
    json: bool,
    /// Only plan: print the number of tiers, positions and the largest tier, and solve nothing.
    #[arg(long)]
    plan_only: bool,
    #[command(flatten)]
    output: OutputArgs,
}

/// The Bagh-Chal variant and which part of it to solve, for `solve` and `coordinator`.
#[derive(Args, Clone)]
pub struct BaghChalArgs {
    /// With --game baghchal: goats in the game, 1..20 (20 is the real game; fewer make small variants).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u8).range(1..=20))]
    pub goats: u8,
    /// With --game baghchal: goats the tigers must capture to win, 1..5 (at most --goats).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub capture_target: u8,
    /// With --game baghchal: `all` (the placing and the moving phase) or `moving` (only the
    /// positions after the placing: the moving tiers).
    #[arg(long, default_value = "all", value_parser = ["all", "moving"])]
    pub phase: String,
}

/// What `--distance` names: a [`Distance`], or none (values only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DistanceChoice(pub Option<Distance>);

/// `--distance`: `dtm`, `dtz` or `none` (values only).
pub fn parse_distance(text: &str) -> Result<DistanceChoice, String> {
    match text {
        "dtm" => Ok(DistanceChoice(Some(Distance::Dtm))),
        "dtz" => Ok(DistanceChoice(Some(Distance::Dtz))),
        "none" => Ok(DistanceChoice(None)),
        other => Err(format!("'{other}' is not a distance: dtm (plies to the end), dtz (plies to zeroing) or none")),
    }
}

/// The distance `--no-distance` and `--distance` ask for: DTZ unless told
/// otherwise; `None` for values only.
pub fn chosen_distance(no_distance: bool, distance: Option<DistanceChoice>) -> Option<Distance> {
    match (no_distance, distance) {
        (true, _) => None,
        (false, Some(DistanceChoice(distance))) => distance,
        (false, None) => Some(Distance::Dtz),
    }
}

/// Under a no-progress rule of `no_progress` plies a solve computes DTZ,
/// from which the value at every counter follows: another distance is bad input.
pub fn check_no_progress(no_progress: u32, distance: Option<Distance>) -> Result<(), Failure> {
    if no_progress > 0 && distance != Some(Distance::Dtz) {
        return Err(Failure::bad_input(format!(
            "--no-progress {no_progress} computes distances to zeroing (--distance dtz), from which the value at \
             every counter follows; not --distance {}",
            distance.map_or("none", |d| d.name())
        )));
    }
    Ok(())
}

/// What a solve computes, for `solve` and `coordinator`.
#[derive(Args, Clone, Copy)]
pub struct OutputArgs {
    /// Values only, no plies files: a faster solve with less memory, for tables that need no
    /// distances (probe, versus and puzzles then show no plies). The same as --distance none.
    #[arg(long, conflicts_with = "distance")]
    pub no_distance: bool,
    /// The distance the plies files count: `dtz` (plies to zeroing, the default: to the next move
    /// that leaves the tier, a sheep advance, a capture or a fox removed; needs only the children's
    /// values, so faster and smaller), `dtm` (plies to the end of the game: the shortest win and
    /// the longest resistance) or `none` (values only).
    #[arg(long, value_parser = parse_distance, value_name = "dtz|dtm|none")]
    pub distance: Option<DistanceChoice>,
    /// Kernel: `planes` (bit planes per sheep set, the default) or `counter` (the generic oracle);
    /// the tables and plies are the same.
    /// With --game baghchal: `forward` (the placing tiers in two passes, the default) or `counter`;
    /// with --game tictactoe: `counter`.
    #[arg(long, value_parser = parse_kernel)]
    pub kernel: Option<Kernel>,
}

impl OutputArgs {
    /// What these flags ask a solve to compute.
    pub fn output(self) -> Output {
        Output::with(chosen_distance(self.no_distance, self.distance))
    }

    /// What these flags ask a solve under a no-progress rule of `no_progress`
    /// plies to compute: DTZ (the default), or bad input if another distance was asked.
    pub fn output_for(self, no_progress: u32) -> Result<Output, Failure> {
        check_no_progress(no_progress, self.output().distance())?;
        Ok(self.output())
    }

    /// The kernel for `game` ([`choose_kernel`]): `--kernel`, or the game's
    /// default; one the game does not take, or `block` with distances, is bad input.
    pub fn kernel<G: SolveTier>(self, game: &G) -> Result<Kernel, Failure> {
        choose_kernel(game, self.kernel, self.output()).map_err(Failure::bad_input)
    }
}

/// `--kernel`'s parser.
pub fn parse_kernel(s: &str) -> Result<Kernel, foxbase_worker::kernel::UnknownKernel> {
    s.parse()
}

pub fn solve(args: SolveArgs, matches: &clap::ArgMatches) -> CommandResult {
    foxbase_core::with_game_type!(args.variant.game, G => solve_game::<G>(args, matches))
}

/// `solve` of the game `G`: its flags (another game's are refused), its
/// plan, the solve ([`run`]), and its report.
fn solve_game<G: GameCommands>(args: SolveArgs, matches: &clap::ArgMatches) -> CommandResult {
    refuse_other_games_flags_in(matches, args.variant.game)?;
    let (game, plan) = G::from_flags(&args.variant)?;
    let settings = settings(&game, &args)?;
    if args.plan_only {
        return game.print_plan(&plan, args.json);
    }
    let progress = SolveProgress::new(args.json);
    let solved = run(&game, &plan, &args, settings, G::DEFAULT_OUT, &progress)?;
    game.report_solve(&args.variant, &plan, solved, &progress, args.json)
}

/// The checked settings of a solve of `game`: its kernel (`--kernel` or the
/// game's default), what it computes, and the kernel threads.
fn settings<G: SolveTier>(game: &G, args: &SolveArgs) -> Result<(Kernel, Output, usize), Failure> {
    let output = args.output.output_for(game.no_progress())?;
    let kernel = args.output.kernel(game)?;
    let threads = threads_or_all(args.threads);
    if threads == 0 || args.workers == Some(0) {
        return Err(Failure::bad_input("--threads and --workers must be at least 1"));
    }
    Ok((kernel, output, threads))
}

/// The in-process workers of a solve with `threads` kernel threads: as
/// `--workers` says, or two (one with a single thread). Two tiers at a
/// time keep the cores busy through each tier's serial parts (reading its
/// children, compressing and writing its table) and its phases' joins,
/// which one tier on every thread does not (docs/results.md, "The kernel
/// on 20-sheep tiers": 34.4 s of wall on one worker of two threads, 25.5 s
/// on two of one), for at most twice the memory of one tier; more workers
/// would multiply it further, so they are asked for, not assumed.
fn workers(args: &SolveArgs, threads: usize) -> usize {
    args.workers.unwrap_or(threads.min(2))
}

/// A finished solve, for its game's report ([`GameCommands::report_solve`]).
pub struct Solved {
    /// The manifest as sealed (with the start's value where the game values it).
    pub manifest: foxbase_tables::manifest::Manifest,
    /// Under --disk-budget (the tables published in place): the most bytes of tables held at once.
    pub disk_high_water: Option<u64>,
    /// Where the tables are: `--out`, and a reader of it.
    pub out: StoreUrl,
    pub location: Box<dyn Location>,
    /// Tiers this run did not solve: finished before it, taken from `--tables-from`; and their slots.
    pub resumed: usize,
    pub imported: usize,
    pub not_solved_slots: u64,
    pub seconds: f64,
    pub threads: usize,
    pub workers: usize,
    pub kernel: Kernel,
    pub output: Output,
}

impl Solved {
    /// Slots per second of the tiers this run solved.
    pub fn rate(&self) -> f64 {
        (self.manifest.total_slots() - self.not_solved_slots) as f64 / self.seconds
    }

    /// ` (N finished before this run, M taken from --tables-from)` after a
    /// tier count, for what of it this run did not solve.
    pub fn resumed_note(&self) -> String {
        let mut parts = Vec::new();
        if self.resumed > 0 {
            parts.push(format!("{} finished before this run", self.resumed));
        }
        if self.imported > 0 {
            parts.push(format!("{} taken from --tables-from", self.imported));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    }

    /// Bytes of the plies files.
    pub fn plies_bytes(&self) -> u64 {
        self.manifest.tiers.iter().filter_map(|t| t.plies.as_ref()).map(|p| p.bytes).sum()
    }

    /// The largest plies count of the tiers.
    pub fn longest_plies(&self) -> u32 {
        self.manifest.tiers.iter().filter_map(|t| t.plies.as_ref()).map(|p| p.longest).max().unwrap_or(0)
    }
}

/// The solve of every game, written once: `plan` of `game` into `--out`
/// (default `default_out`), a directory (journaled: `--resume`,
/// `--tables-from`) or a bucket, sealed by the game's [`SealRun`].
fn run<G: SolveTier + SealRun + Publishable>(
    game: &G,
    plan: &TierPlan<G>,
    args: &SolveArgs,
    (kernel, output, threads): (Kernel, Output, usize),
    default_out: &str,
    progress: &SolveProgress,
) -> Result<Solved, Failure> {
    let out = crate::location::parse("--out", args.out.as_deref().unwrap_or(default_out))?;
    let started = Instant::now();
    let workers = workers(args, threads);
    let options = LocalOptions {
        workers,
        threads_per_worker: (threads / workers).max(1),
        kernel,
        output,
        tables_in_memory: args.tables_in_memory.saturating_mul(1 << 20),
        disk_budget: args.disk_budget,
        publish_levels: args.publish_level.map_or_else(Levels::default, |level| Levels { values: level, plies: level }),
    };
    let mut disk_high_water = None;
    let (manifest, location, resumed, imported, not_solved_slots): (_, Box<dyn Location>, _, _, _) = match &out {
        StoreUrl::Dir(dir) => {
            let solved = solve_dir(game, plan, dir, options, args.resume, &args.tables_from, progress)?;
            let manifest = match solved.sealed {
                Some(m) if m.start.is_some() => m,
                // Finished, but not sealed (or by a game that values no start): sealed (again).
                sealed => {
                    let put = |key: &str, bytes: &[u8]| {
                        let path = dir.join(key);
                        foxbase_tables::durable::write(&path, bytes)
                            .map_err(foxbase_tables::error::io_error(path.display().to_string()))
                    };
                    let manifest = sealed.unwrap_or(solved.manifest);
                    game.seal_run(Box::new(foxbase_tables::source::DirLocation::new(dir)), &put, manifest)
                        .map_err(Failure::failed)?
                }
            };
            if solved.published_in_place {
                let bar = crate::output::TierBar::new("checking the published files", args.json);
                finish_published(game, dir, &manifest, &|p| bar.set(p)).map_err(Failure::failed)?;
                bar.finish();
                disk_high_water = solved.disk_high_water;
            }
            let not_solved = solved.resumed_slots + solved.imported_slots;
            let location = Box::new(foxbase_tables::source::DirLocation::new(dir));
            (manifest, location, solved.resumed, solved.imported, not_solved)
        }
        StoreUrl::Bucket { .. } if !args.tables_from.is_empty() => {
            return Err(Failure::bad_input(format!(
                "--tables-from: a solve into a bucket ({out}) takes no tables from elsewhere; use a directory --out"
            )))
        }
        StoreUrl::Bucket { .. } if args.disk_budget.is_some() => {
            return Err(Failure::bad_input(format!(
                "--disk-budget: a solve into a bucket ({out}) is not published in place; use a directory --out"
            )))
        }
        StoreUrl::Bucket { .. } if args.resume => {
            return Err(Failure::bad_input(format!(
                "--resume: a solve into a bucket ({out}) keeps no journal; --resume needs a directory --out"
            )))
        }
        StoreUrl::Bucket { bucket, prefix } => {
            // Checked before anything is solved or written.
            let bucket = crate::location::bucket("--out", bucket, prefix)?;
            bucket.check_access().map_err(|e| Failure::failed(format!("--out: {e}")))?;
            let cache = crate::location::Scratch::new("solve-cache")?;
            let store = crate::location::retrying(&bucket);
            let manifest =
                solve_local_into(game, plan, &store, &cache.0, options, progress).map_err(Failure::failed)?;
            progress.finish();
            let put = |key: &str, bytes: &[u8]| {
                store.put_bytes(key, bytes).map_err(foxbase_tables::error::io_error(bucket.name_of(key)))
            };
            let manifest = game.seal_run(Box::new(bucket.clone()), &put, manifest).map_err(Failure::failed)?;
            (manifest, Box::new(bucket), 0, 0, 0)
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    Ok(Solved {
        manifest,
        disk_high_water,
        out,
        location,
        resumed,
        imported,
        not_solved_slots,
        seconds,
        threads,
        workers,
        kernel,
        output,
    })
}

/// A journaled local solve into the directory `dir` (`solve_local_journaled`):
/// a new one, or with `resume` the one journaled there. A refusal of what
/// `dir` holds is bad input.
///
/// The `--tables-from` directories are opened and checked before anything is written.
fn solve_dir<G: SolveTier + Publishable>(
    game: &G,
    plan: &TierPlan<G>,
    dir: &std::path::Path,
    options: LocalOptions,
    resume: bool,
    tables_from: &[std::path::PathBuf],
    progress: &SolveProgress,
) -> Result<LocalSolve, Failure> {
    let sources = tables_from
        .iter()
        .map(|from| TableSource::open(game, from).map_err(Failure::bad_input))
        .collect::<Result<Vec<_>, _>>()?;
    if resume && !dir.join(LOCAL_JOURNAL).exists() && tables_in(dir).is_empty() {
        progress.note(&format!("{}: no journal, nothing to resume: a new solve", dir.display()));
    }
    let solved = solve_local_journaled(game, plan, dir, options, resume, &sources, progress).map_err(|e| match e {
        CoordinatorError::Output(m) => Failure::bad_input(m),
        e => Failure::failed(e),
    })?;
    progress.finish();
    if solved.sealed.is_some() {
        progress.note(&format!(
            "{}: this solve was finished already ({} tiers): nothing to do",
            dir.display(),
            solved.manifest.tiers.len()
        ));
    }
    Ok(solved)
}
