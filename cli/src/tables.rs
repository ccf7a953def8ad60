//! The tablebase commands: `probe`, `verify`, `publish` and `survey`, thin
//! layers over `foxbase-tables`.

use crate::command::{CommandResult, Failure};
use crate::location::{self, TablesVisitor};
use crate::output::{json, line, TierBar};
use crate::views::with_bound;
use clap::Args;
use foxbase_core::game::GameKind;
use foxbase_core::notation::count;
use foxbase_core::notation::format_position;
use foxbase_core::play::{GameStatus, Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_core::variant::Bound;
use foxbase_core::{Outcome, Point, Side, Value};
use foxbase_objstore::StoreUrl;
use foxbase_tables::plies::Distance;
use foxbase_tables::probe::probe_at;
use foxbase_tables::seal::SealRun;
use foxbase_tables::tier_walk::WalkMemory;
use foxbase_tables::verify::{OnTier, Problem, Verified};
use foxbase_tables::Tablebase;
use foxbase_tables::TierTables;
use foxbase_worker::games::{with_game, GameVisitor};
use foxbase_worker::kernel::SolveTier;
use serde_json::json;
use std::path::PathBuf;

/// "bound: ..." for tables solved under a sheep floor (nothing otherwise):
/// printed before any value they show, so that nobody takes a bound for
/// the real game's value.
pub fn bound_line(bound: Option<Bound>) -> CommandResult {
    match bound {
        Some(bound) => line(format_args!("bound: {}", bound.note)),
        None => Ok(()),
    }
}

#[derive(Args)]
pub struct ProbeArgs {
    /// The position, in RULES.md notation (quote it); for tic-tac-toe tables, e.g. 'X../.O./... x';
    /// for Bagh-Chal tables, e.g. 'T...T/...../...../...../T...T g 20 0' (the goats to place and
    /// captured adding up to the variant's goats with those on the board). Fox Game tables solved under
    /// --no-progress N take the no-progress counter as a third field: '... f 12' (0 when absent).
    position: String,
    /// Tablebase written by `foxbase solve` or `foxbase publish`: a directory or s3://BUCKET/PREFIX
    /// (read by byte ranges; the game comes from its manifest).
    #[arg(long)]
    tables: String,
    /// Print {"position", "value": "win"|"draw"|"loss", "plies", "distance": "dtm"|"dtz"|null, "moves":
    /// [{"move", "value", "plies"}]} (a move's value for the mover, its plies counted from the position; plies
    /// null for a draw or in tables solved with --no-distance). Tables solved under --no-progress N add
    /// "no_progress": {"plies": N, "counter", "value_at_counter_0", "plies_at_counter_0"}: the value at any
    /// counter c is the one at 0 while plies_at_counter_0 <= N - c, else a draw.
    #[arg(long)]
    json: bool,
}

/// How a pass over a whole tablebase (verify, publish's check) holds the
/// complete tiers that later tiers read ([`WalkMemory`]).
#[derive(Args)]
pub struct WalkMemoryArgs {
    /// Keep at most about this many bytes of complete tiers in memory between the tiers that read
    /// them (a number, or with K, M, G or T: powers of 1024). Beyond it, the tier needed again latest
    /// goes to --spill-dir until its next reader.
    #[arg(long, value_name = "BYTES", value_parser = crate::cluster::parse_bytes,
        default_value = "2G")]
    memory: u64,
    /// Where the complete tiers beyond --memory wait, compressed, for their next reader, in a
    /// directory of the command's own that it removes when it ends (default: the system's temporary
    /// directory, $TMPDIR or /tmp). Reading a tier back from there is cheaper than reading and
    /// deriving it again.
    #[arg(long, value_name = "DIR")]
    spill_dir: Option<PathBuf>,
}

impl WalkMemoryArgs {
    fn walk_memory(&self) -> Result<WalkMemory, Failure> {
        let spill_dir = self.spill_dir.clone().unwrap_or_else(std::env::temp_dir);
        if !spill_dir.is_dir() {
            return Err(Failure::bad_input(format!("--spill-dir {}: not a directory", spill_dir.display())));
        }
        Ok(WalkMemory { kept_bytes: self.memory, spill_dir: Some(spill_dir) })
    }
}

#[derive(Args)]
pub struct VerifyArgs {
    /// Tablebase written by `foxbase solve` or `foxbase publish`: a directory or s3://BUCKET/PREFIX
    /// (a bucket's tablebase is downloaded to a temporary directory and checked there).
    dir: String,
    /// Print one JSON object: {"ok", "tiers", "positions", "problem", "walk": {"completed",
    /// "spilled", "spill_reads", "spill_high_water_bytes", "kept_high_water_bytes"}}, with
    /// --published "checksums" (files checked), with --against "against" (tiers compared) and with
    /// --journal "checked_before" (tiers the journal recorded, not checked again). "walk" says how the tiers were held: made complete from their files, written to and read
    /// back from --spill-dir, and the most bytes held on disk and in memory at once.
    #[arg(long)]
    json: bool,
    /// Check values one position at a time with the prober's one-step rule
    /// (independent of the solver's code, several times slower) instead of
    /// a whole tier at a time with the plane kernel's machinery. (Bagh-Chal and tic-tac-toe
    /// tables are always checked one position at a time.)
    #[arg(long)]
    one_step: bool,
    /// A published tablebase (a download): check its checksum list first (SHA256SUMS, which
    /// `foxbase publish` writes: every file listed, with its SHA-256, and no file unlisted).
    #[arg(long)]
    published: bool,
    /// With --published: also check, value for value and plies count for plies count, that the
    /// tablebase gives back the tables of the solve it was published from (a directory or
    /// s3://BUCKET/PREFIX).
    #[arg(long, value_name = "SOLVED", requires = "published")]
    against: Option<String>,
    /// Record each tier that passed in this file (created if missing, outside the tablebase), and
    /// do not check again the tiers it recorded: a verification stopped at any point goes on from
    /// where it was when run again with the same options. Refused if the file is the journal of
    /// another tablebase or of another check (--one-step, --against).
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    #[command(flatten)]
    memory: WalkMemoryArgs,
}

#[derive(Args)]
pub struct PublishArgs {
    /// Tablebase written by `foxbase solve` (any game; the game comes from its manifest): a
    /// directory or s3://BUCKET/PREFIX.
    src: String,
    /// Where the published tablebase goes: a new directory (must not exist; it appears only when
    /// complete) or s3://BUCKET/PREFIX holding no tablebase (uploaded with manifest.json last).
    out: String,
    /// zstd level of the published tables' blocks, 1..=22 (higher: smaller and slower; docs/format.md).
    #[arg(long, default_value_t = foxbase_tables::table::PUBLISH_ZSTD_LEVEL)]
    level: i32,
    /// zstd level of the published plies files' blocks, 1..=22 (docs/format.md).
    #[arg(long, default_value_t = foxbase_tables::table::PUBLISH_PLIES_ZSTD_LEVEL)]
    plies_level: i32,
    /// Print one JSON object: {"tiers", "positions", "source_bytes", "bytes", "bits_per_position",
    /// "plies_bytes", "plies_bits_per_position", "seconds"} (bytes of the tables; plies files apart).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    memory: WalkMemoryArgs,
}

#[derive(Args)]
pub struct SurveyArgs {
    /// Tablebase written by `foxbase solve` or `foxbase publish`: a directory or s3://BUCKET/PREFIX.
    #[arg(long)]
    tables: String,
    /// Number of sheep to arrange on the 20 points of ranks 1..4.
    #[arg(long)]
    sheep: u32,
    /// Fox squares, comma-separated (default: the foxes of the tables' start position).
    #[arg(long, value_delimiter = ',')]
    foxes: Vec<String>,
    /// Side to move, f or s (default: the tables' first mover).
    #[arg(long)]
    side: Option<String>,
    /// List at most this many arrangements of each value (0: counts only).
    #[arg(long, default_value_t = 20)]
    list: usize,
    /// Print one JSON object with the counts and the listed arrangements.
    #[arg(long)]
    json: bool,
}

pub fn probe_command(args: ProbeArgs) -> CommandResult {
    struct Probing<'a>(&'a ProbeArgs);
    impl TablesVisitor for Probing<'_> {
        fn visit<T: Tablebase>(self, tables: T) -> CommandResult {
            let args = self.0;
            let rules = tables.game().rules();
            let (pos, counter) = rules.parse_position_at_counter(&args.position).map_err(|e| {
                Failure::bad_input(format!(
                    "bad position '{}' (these tables: {}): {e}",
                    args.position,
                    tables.game().about()
                ))
            })?;
            let p = probe_at(&tables, &pos, counter)?;
            let n = tables.no_progress();
            if args.json {
                return json(&crate::views::probe_view(&tables, &p, counter).map_err(Failure::failed)?);
            }
            bound_line(tables.bound())?;
            let side = rules.to_move(&pos);
            let at = if n > 0 { format!(" {counter}") } else { String::new() };
            if n > 0 {
                line(format_args!(
                    "no-progress rule: a draw after {n} plies without progress; this position's counter: {counter}"
                ))?;
            }
            line(format_args!(
                "{}{at}: {} for {} to move{}",
                rules.format_position(&pos),
                p.outcome.value,
                side.team,
                who_wins(rules, &pos, p.outcome, tables.distance())
            ))?;
            if let GameStatus::Over { .. } = rules.status(&pos) {
                return line(format_args!("  {}", rules.status(&pos).describe()));
            }
            for (m, o) in p.moves {
                line(format_args!(
                    "  {:7} {} for {}{}",
                    m.to_string(),
                    o.value,
                    side.team,
                    who_wins(rules, &pos, o, tables.distance())
                ))?;
            }
            Ok(())
        }
    }
    location::with_tables("--tables", &args.tables, Probing(&args))
}

/// ": the sheep win in 37 plies" (DTZ tables: ": the sheep win, 7 plies
/// to zeroing") for an outcome of the side to move in `pos` (its value, or
/// a move's for the mover) from tables whose plies count `distance`;
/// nothing for a draw or without plies.
pub fn who_wins<P: Playable>(rules: &P, pos: &P::Position, o: Outcome, distance: Option<Distance>) -> String {
    let mover = rules.to_move(pos);
    let winner = match o.value {
        Value::Win => mover,
        Value::Loss => rules.players().into_iter().find(|p| *p != mover).expect("two sides"),
        Value::Draw => return String::new(),
    };
    match (o.plies, distance) {
        (Some(n), Some(Distance::Dtz)) => format!(": {}, {} to zeroing", winner.wins(), count(n, "ply", "plies")),
        (Some(n), _) => format!(": {} in {}", winner.wins(), count(n, "ply", "plies")),
        (None, _) => String::new(),
    }
}

/// " to zeroing" after a plies count of DTZ tables; nothing otherwise.
pub fn to_zeroing(distance: Option<Distance>) -> &'static str {
    if distance == Some(Distance::Dtz) {
        " to zeroing"
    } else {
        ""
    }
}

pub fn verify(args: VerifyArgs) -> CommandResult {
    let bar = TierBar::passes(&["checking files", "checking tiers"], args.json);
    let (dir, _scratch) = location::local_copy("DIR", &args.dir, "verify")?;
    let on_tier = |p| bar.set(p);
    let problem_out = |p: foxbase_tables::verify::Problem| -> CommandResult {
        if args.json {
            json(&json!({"ok": false, "problem": {"file": p.file, "block": p.block, "position": p.position,
                "message": p.message, "text": p.to_string()}}))?;
        }
        Err(Failure::failed(format!("verify failed: {p}")))
    };
    // A download is checked against its checksum list before anything in it is read.
    let checksums = if args.published {
        match foxbase_tables::checksums::check_sums(&dir) {
            Ok(n) => Some(n),
            Err(p) => return problem_out(p),
        }
    } else {
        None
    };
    // Value for value against the solve it came from, during the check.
    let against = match &args.against {
        None => None,
        Some(solved) => Some((solved.as_str(), location::local_copy("--against", solved, "verify-against")?)),
    };
    // Every game's tables through one check ([`foxbase_tables::verify::verify_game_then`]); a missing or
    // unreadable manifest, or one of no known game, is a problem found.
    let manifest_problem =
        |message: String| Problem { file: Some("manifest.json".into()), block: None, position: None, message };
    // The journal of this very check of this very tablebase, if asked for.
    let mut journal = match &args.journal {
        None => None,
        Some(path) => match foxbase_tables::checksums::sha256_file(&dir.join("manifest.json")) {
            Err(e) => return problem_out(manifest_problem(e.to_string())),
            Ok(digest) => {
                let check = format!(
                    "{}{}",
                    if args.one_step { "one-step" } else { "kernel" },
                    if args.against.is_some() { "+against" } else { "" }
                );
                let opened = foxbase_tables::verify_journal::VerifyJournal::open(path, &digest, &check);
                Some(opened.map_err(|e| Failure::bad_input(e.to_string()))?)
            }
        },
    };
    struct Verify<'a>(
        &'a std::path::Path,
        OnTier<'a>,
        bool,
        Option<(&'a str, &'a std::path::Path)>,
        &'a WalkMemory,
        Option<&'a mut foxbase_tables::verify_journal::VerifyJournal>,
    );
    impl GameVisitor for Verify<'_> {
        type Output = (Result<(Verified, Option<usize>), Problem>, Option<Bound>);
        fn visit<G: SolveTier + SealRun + foxbase_tables::publish::Publishable + 'static>(
            self,
            game: G,
        ) -> Self::Output {
            let Verify(dir, on_tier, one_step, against, memory, journal) = self;
            // Tables solved under a sheep floor say so.
            let bound = game.bound();
            (verify_as(game, dir, on_tier, one_step, against, memory, journal), bound)
        }
    }
    let against_dir = against.as_ref().map(|(solved, (dir, _))| (*solved, dir.as_path()));
    let memory = args.memory.walk_memory()?;
    let (result, bound) = match foxbase_tables::manifest::Manifest::read(&dir) {
        Err(e) => (Err(Problem { file: None, block: None, position: None, message: e.to_string() }), None),
        Ok(manifest) => match manifest.game.parse::<GameKind>() {
            Err(e) => (Err(manifest_problem(e.to_string())), None),
            Ok(kind) => with_game(
                kind,
                &manifest.variant,
                Verify(&dir, &on_tier, args.one_step, against_dir, &memory, journal.as_mut()),
            )
            .unwrap_or_else(|e| (Err(manifest_problem(e.to_string())), None)),
        },
    };
    let (v, compared) = match result {
        Ok(v) => v,
        Err(p) => {
            bar.finish();
            return problem_out(p);
        }
    };
    bar.finish();
    if args.json {
        let w = v.walk;
        let walk = json!({"completed": w.completed, "spilled": w.spilled, "spill_reads": w.spill_reads,
            "spill_high_water_bytes": w.spill_high_water, "kept_high_water_bytes": w.kept_high_water});
        let mut view =
            json!({"ok": true, "tiers": v.tiers, "positions": v.positions_checked, "problem": null, "walk": walk});
        if let Some(n) = checksums {
            view["checksums"] = json!(n);
        }
        if let Some(n) = compared {
            view["against"] = json!(n);
        }
        if args.journal.is_some() {
            view["checked_before"] = json!(v.checked_before);
        }
        return json(&with_bound(view, bound));
    }
    if let Some(n) = checksums {
        line(format_args!("ok: {n} files match their SHA-256 in SHA256SUMS"))?;
    }
    line(format_args!("ok: {} tiers, {} positions checked against their children", v.tiers, v.positions_checked))?;
    if let Some(path) = &args.journal {
        line(format_args!(
            "of which {} tiers were checked before, as the journal {} records",
            v.checked_before,
            path.display()
        ))?;
    }
    if v.walk.spilled > 0 {
        line(format_args!(
            "held: {} tiers spilled beyond --memory (at most {} bytes on disk), read back {} times",
            v.walk.spilled, v.walk.spill_high_water, v.walk.spill_reads
        ))?;
    }
    if let (Some(n), Some(solved)) = (compared, &args.against) {
        line(format_args!("ok: {n} tiers give back the values and plies of the solve in {solved}"))?;
    }
    bound_line(bound)
}

/// [`foxbase_tables::verify::verify_game_then`], each tier compared with the solve `against`
/// (as named, and where it is) after its check: the tiers compared.
fn verify_as<G: foxbase_tables::publish::Publishable>(
    game: G,
    dir: &std::path::Path,
    on_tier: OnTier,
    one_step: bool,
    against: Option<(&str, &std::path::Path)>,
    memory: &WalkMemory,
    journal: Option<&mut foxbase_tables::verify_journal::VerifyJournal>,
) -> Result<(Verified, Option<usize>), Problem> {
    let against_problem = |solved: &str, e: foxbase_tables::Error| Problem {
        file: None,
        block: None,
        position: None,
        message: format!("against {solved}: {e}"),
    };
    let comparison = match against {
        None => None,
        Some((solved, solved_dir)) => {
            let manifest = foxbase_tables::manifest::Manifest::read(dir).map_err(|e| Problem {
                file: None,
                block: None,
                position: None,
                message: e.to_string(),
            })?;
            let opened = foxbase_tables::publish::SolveComparison::<G>::open(dir, &manifest, solved_dir);
            Some((solved, opened.map_err(|e| against_problem(solved, e))?))
        }
    };
    let mut compared = 0;
    let verified = foxbase_tables::verify::verify_game_then(game, dir, on_tier, one_step, memory, journal, |own| {
        if let Some((solved, comparison)) = &comparison {
            comparison.compare(own).map_err(|e| against_problem(solved, e))?;
            compared += 1;
        }
        Ok(())
    })?;
    Ok((verified, comparison.map(|_| compared)))
}

pub fn publish(args: PublishArgs) -> CommandResult {
    for (flag, level) in [("--level", args.level), ("--plies-level", args.plies_level)] {
        if !(1..=22).contains(&level) {
            return Err(Failure::bad_input(format!("{flag} {level}: zstd levels run from 1 to 22")));
        }
    }
    let levels = foxbase_tables::publish::Levels { values: args.level, plies: args.plies_level };
    let memory = args.memory.walk_memory()?;
    let started = std::time::Instant::now();
    let (src, _src_scratch) = location::local_copy("SRC", &args.src, "publish-source")?;
    let (out, target, _out_scratch) = match location::parse("OUT", &args.out)? {
        StoreUrl::Dir(dir) => (dir, None, None),
        StoreUrl::Bucket { bucket, prefix } => {
            let b = location::bucket("OUT", &bucket, &prefix)?;
            location::require_empty("OUT", &b)?;
            let scratch = location::Scratch::new("publish")?;
            (scratch.0.join("published"), Some(b), Some(scratch))
        }
    };
    let bar = TierBar::new("publishing", args.json);
    let result = foxbase_tables::publish::publish(&src, &out, levels, &memory, &|p| bar.set(p));
    bar.finish();
    let p = result.map_err(|e| Failure::failed(format!("publish failed: {e}")))?;
    if let Some(bucket) = &target {
        location::upload(&out, bucket)?;
    }
    let bits = p.bytes as f64 * 8.0 / p.slots as f64;
    let plies_bits = p.plies_bytes as f64 * 8.0 / p.slots as f64;
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        return json(&json!({"tiers": p.tiers, "positions": p.slots, "source_bytes": p.source_bytes, "bytes": p.bytes,
            "bits_per_position": bits, "plies_bytes": p.plies_bytes, "plies_bits_per_position": plies_bits,
            "seconds": seconds}));
    }
    line(format_args!(
        "published {} tiers, {} positions: {} bytes ({bits:.3} bit per position; the solve's tables: {} bytes) in {seconds:.1} s",
        p.tiers, p.slots, p.bytes, p.source_bytes
    ))?;
    if p.plies_bytes > 0 {
        line(format_args!("plies files: {} bytes ({plies_bits:.3} bit per position)", p.plies_bytes))?;
    }
    Ok(())
}

pub fn survey(args: SurveyArgs) -> CommandResult {
    let tables = location::open_tables("--tables", &args.tables)?;
    let start = tables.game.variant.start;
    let fox_bits = if args.foxes.is_empty() {
        start.foxes()
    } else {
        let mut bits = 0;
        for f in &args.foxes {
            let p: Point = f.parse().map_err(|e| Failure::bad_input(format!("--foxes: {e}")))?;
            bits |= p.bit();
        }
        bits
    };
    let side = match args.side.as_deref() {
        None => start.side(),
        Some("f") => Side::Fox,
        Some("s") => Side::Sheep,
        Some(other) => return Err(Failure::bad_input(format!("--side '{other}' is not f or s"))),
    };
    let sheep = args.sheep;
    let s = foxbase_tables::survey::survey(&tables, sheep, fox_bits, side)?;
    let count = |v: Value| s.by_value.get(&v).map_or(0, |l| l.len());
    let listed = |v: Value| -> Vec<String> {
        s.by_value.get(&v).map_or(vec![], |l| l.iter().take(args.list).map(format_position).collect())
    };
    use Value::{Draw, Loss, Win};
    let variant = &tables.game.variant;
    if args.json {
        return json(&with_bound(
            json!({"arrangements": s.arrangements, "side_to_move": side.name(),
            "win": count(Win), "draw": count(Draw), "loss": count(Loss),
            "listed": {"win": listed(Win), "draw": listed(Draw), "loss": listed(Loss)}}),
            variant.bound(),
        ));
    }
    bound_line(variant.bound())?;
    line(format_args!(
        "{} of {sheep} sheep, {} to move: {} win, {} draw, {} loss (for the {} to move)",
        foxbase_core::notation::count(s.arrangements, "arrangement", "arrangements"),
        side,
        count(Win),
        count(Draw),
        count(Loss),
        side
    ))?;
    for v in [Win, Draw, Loss] {
        for p in listed(v) {
            line(format_args!("  {v:4} {p}"))?;
        }
    }
    Ok(())
}

#[derive(Args)]
pub struct StatsArgs {
    /// Directory written by `foxbase solve` or `foxbase publish`.
    #[arg(long)]
    tables: PathBuf,
    /// Print one JSON object: {"game", the variant's fields, "positions", "start": {"position", "value",
    /// "plies"} | null, "tiers": [{"tier", "positions", "wins", "draws", "losses", "longest_win"}],
    /// "longest_win": {"plies", "position"} | null, "distance"}; for the Fox Game also "by_material":
    /// [{"foxes", "sheep", "side", "wins", "draws", "losses"}] and "by_fox_square": [{"square", "side",
    /// "wins", "draws", "losses"}], and "bound" for tables solved under a sheep floor.
    #[arg(long)]
    json: bool,
}

/// `foxbase stats`: counts of the whole tablebase, for every game
/// ([`crate::tier_stats::print_stats`]).
pub fn stats(args: StatsArgs) -> CommandResult {
    let kind = crate::games::game_of(&args.tables)?;
    let location = || Box::new(foxbase_tables::source::DirLocation::new(&args.tables));
    let summary = foxbase_tables::index::TierIndex::open(location().as_ref()).map_err(Failure::bad_input)?.summary;
    foxbase_core::with_game_kind!(kind, &summary.variant, |game| {
        let tables = TierTables::open_game_at(game, location()).map_err(Failure::bad_input)?;
        crate::tier_stats::print_stats(&tables, args.json)
    })
    .map_err(Failure::bad_input)?
}

#[derive(Args)]
pub struct ServeArgs {
    /// Tablebase to explore: a directory written by `foxbase solve` or `foxbase publish`, or
    /// s3://BUCKET/PREFIX.
    #[arg(long)]
    tables: String,
    /// Address to serve on (loopback unless told otherwise; port 0 picks a free port, which is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: std::net::SocketAddr,
    /// MiB of decompressed tables kept for single values: three quarters whole blocks
    /// (2^18 values each, for positions near a recent one), a quarter pieces of 2,048 values around
    /// each value read (for scattered positions read again).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    read_cache_mib: u64,
}

/// `foxbase serve`: the board in a browser ([`crate::serve`]), for the tables of any game.
pub fn serve(args: ServeArgs) -> CommandResult {
    struct Serving(std::net::SocketAddr);
    impl TablesVisitor for Serving {
        fn visit<T: Tablebase + 'static>(self, tables: T) -> CommandResult {
            let log = |l: &str| eprintln!("foxbase serve: {l}");
            crate::serve::serve(tables, self.0, &log).map_err(|e| Failure::failed(format!("--listen {}: {e}", self.0)))
        }
    }
    location::with_tables_keeping("--tables", &args.tables, Some(args.read_cache_mib << 20), Serving(args.listen))
}
