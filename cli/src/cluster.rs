//! `foxbase coordinator`, `foxbase worker` and `foxbase status`: flags,
//! credentials and output around the distributed solve's libraries.

use crate::command::{threads_or_all, CommandResult, Failure};
use crate::game_commands::GameCommands;
use crate::output::{json, line, phases_json};
use crate::solve::VariantArgs;
use clap::Args;
use foxbase_coordinator::error::CoordinatorError;
use foxbase_coordinator::grpc::client::{run_remote_worker, ClientTls, Credentials, GrpcLink};
use foxbase_coordinator::grpc::server::{serve_coordinator, CoordinatorConfig, Finished};
use foxbase_coordinator::metrics::{serve_metrics, MeteredLink, WorkerMetrics};
use foxbase_coordinator::plan::TierPlan;
use foxbase_worker::lease_loop::WorkerOptions;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Credentials of the coordinator.
#[derive(Args, Clone, Debug)]
pub struct ServerAuthArgs {
    /// File holding the shared token every call must carry (one line of visible ASCII).
    #[arg(long)]
    token_file: PathBuf,
    /// PEM certificate chain: serve over TLS (needs --tls-key).
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
}

/// Credentials of a worker or status client.
#[derive(Args, Clone, Debug)]
pub struct ClientAuthArgs {
    /// File holding the coordinator's shared token.
    #[arg(long)]
    token_file: PathBuf,
    /// PEM certificate of the CA that signed the coordinator's certificate: connect over TLS.
    #[arg(long)]
    tls_ca: Option<PathBuf>,
    /// Name in the coordinator's certificate (default: the URL's host).
    #[arg(long, requires = "tls_ca")]
    tls_domain: Option<String>,
}

#[derive(Args)]
pub struct CoordinatorArgs {
    /// The game and its variant, with the same flags as `solve`.
    #[command(flatten)]
    variant: VariantArgs,
    /// Shared store for the tables and manifest.json, which every worker must reach: a directory
    /// (shared by NFS or the like) or s3://BUCKET/PREFIX (credentials, region and endpoint from
    /// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL, AWS_ALLOW_HTTP).
    #[arg(long)]
    store: String,
    /// Address to listen on (port 0 picks a free port; the chosen address is logged).
    #[arg(long, default_value = "127.0.0.1:7341")]
    listen: std::net::SocketAddr,
    /// Continue the run journaled in the store (or in --journal) instead of starting a new one.
    #[arg(long)]
    resume: bool,
    /// Continue the journaled run if there is a journal, else start a new run: for services that
    /// restart the coordinator (systemd, Kubernetes, Slurm requeues) with the same command line.
    #[arg(long, conflicts_with = "resume")]
    resume_if_journaled: bool,
    /// Journal of finished tiers on a local disk (default: STORE/journal.log for a directory, the
    /// journal/ objects of the bucket for s3://, so that any machine can --resume from it).
    #[arg(long)]
    journal: Option<PathBuf>,
    #[command(flatten)]
    auth: ServerAuthArgs,
    /// Seconds a lease lasts without a heartbeat before its tier is handed to another worker.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(2..=86400))]
    lease_seconds: u64,
    /// Print one JSON summary object at the end instead of text.
    #[arg(long)]
    json: bool,
    /// Values only, no plies files (the workers then solve with their --kernel, planes by default).
    /// The same as --distance none.
    #[arg(long, conflicts_with = "distance")]
    no_distance: bool,
    /// The distance the plies files count: `dtz` (plies to zeroing, the default; the workers then
    /// fetch no plies of children), `dtm` (plies to the end) or `none` (values only).
    #[arg(long, value_parser = crate::solve::parse_distance, value_name = "dtz|dtm|none")]
    distance: Option<crate::solve::DistanceChoice>,
    #[command(flatten)]
    ops: OpsArgs,
}

/// Metrics and log format of a long-running process.
#[derive(Args, Clone, Debug)]
pub struct OpsArgs {
    /// Serve Prometheus metrics at http://ADDR/metrics (e.g. 0.0.0.0:9090; port 0 picks a free port,
    /// which is logged).
    #[arg(long)]
    metrics_listen: Option<std::net::SocketAddr>,
    /// Log lines on stderr as `text` (timestamp, level, message) or `json` (one object a line:
    /// timestamp, level, fields.message, fields.role, target).
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    log_format: String,
}

#[derive(Args)]
pub struct WorkerArgs {
    /// The coordinator's URL, e.g. http://10.0.0.5:7341 (https://… with --tls-ca).
    #[arg(long)]
    coordinator: String,
    #[command(flatten)]
    auth: ClientAuthArgs,
    /// Kernel threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Local directory for fetched child tables and tables before upload.
    #[arg(long, default_value = "foxbase-cache")]
    cache: PathBuf,
    /// Keep the cache under this size, dropping the least recently used child tables first (never
    /// one the tier being solved needs): bytes, or with a suffix K, M, G or T (powers of 1024),
    /// e.g. 20G. Default: no limit.
    #[arg(long, value_parser = parse_bytes, value_name = "BYTES")]
    cache_max: Option<u64>,
    /// The shared store as mounted on this machine (default: where the coordinator says it is).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Name shown by `foxbase status` (default: host name and process id).
    #[arg(long)]
    name: Option<String>,
    /// Give up after the coordinator has been unreachable this many seconds.
    #[arg(long, default_value_t = 600)]
    give_up_after: u64,
    /// Hold each lease this many milliseconds before solving (for tests of failures mid-tier).
    #[arg(long, default_value_t = 0, hide = true)]
    hold_ms: u64,
    /// End that hold once a heartbeat says the lease is lost (for the test of a lease that expires).
    #[arg(long, hide = true)]
    hold_until_lost: bool,
    #[command(flatten)]
    ops: OpsArgs,
    /// Kernel, for the game the coordinator solves. The Fox Game: `planes` (bit planes per sheep
    /// set, the default) or `counter` (the generic oracle). Bagh-Chal: `forward` (the
    /// placing tiers in two passes, the default) or `counter`; its moving tiers are solved by the
    /// counter kernel either way. The files are the same whichever solves them.
    #[arg(long, value_parser = crate::solve::parse_kernel)]
    kernel: Option<foxbase_worker::kernel::Kernel>,
}

#[derive(Args)]
pub struct StatusArgs {
    /// The coordinator's URL, e.g. http://10.0.0.5:7341.
    url: String,
    #[command(flatten)]
    auth: ClientAuthArgs,
    /// Print the status as one JSON object.
    #[arg(long)]
    json: bool,
}

fn read_file(path: &Path, what: &str) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::bad_input(format!("{what} {}: {e}", path.display())))
}

fn read_token(path: &Path) -> Result<String, Failure> {
    let bytes = read_file(path, "--token-file")?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::bad_input(format!("--token-file {}: not text", path.display())))?;
    let token = text.trim().to_string();
    Credentials::new(&token).map_err(|e| Failure::bad_input(format!("--token-file {}: {e}", path.display())))?;
    Ok(token)
}

fn coordinator_config(args: &CoordinatorArgs) -> Result<CoordinatorConfig, Failure> {
    let auth = &args.auth;
    let token = read_token(&auth.token_file)?;
    let tls = match (&auth.tls_cert, &auth.tls_key) {
        (Some(cert), Some(key)) => Some((read_file(cert, "--tls-cert")?, read_file(key, "--tls-key")?)),
        _ => None,
    };
    Ok(CoordinatorConfig {
        listen: args.listen,
        journal: args.journal.clone(),
        store: args.store.clone(),
        resume: args.resume,
        resume_if_journaled: args.resume_if_journaled,
        token,
        tls,
        lease: Duration::from_secs(args.lease_seconds),
        distance: crate::solve::chosen_distance(args.no_distance, args.distance),
        metrics_listen: args.ops.metrics_listen,
    })
}

/// Sends log lines through `tracing` to stderr, as text or JSON lines.
fn init_logging(format: &str) {
    let builder = tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_target(false);
    let _ = match format {
        "json" => builder.json().try_init(),
        _ => builder.try_init(),
    };
}

/// The operator's log: one event per line, with the process's role as a field.
fn log_line(role: &'static str) -> impl Fn(&str) + Sync {
    move |line: &str| tracing::info!(role, "{line}")
}

pub fn coordinator(args: CoordinatorArgs, matches: &clap::ArgMatches) -> CommandResult {
    init_logging(&args.ops.log_format);
    crate::command::refuse_other_games_flags_in(matches, args.variant.game)?;
    foxbase_core::with_game_type!(args.variant.game, G => coordinate::<G>(&args))
}

/// `coordinator` of the game `G`: its plan served to the workers until
/// every tier is solved, then the run's report.
fn coordinate<G: GameCommands>(args: &CoordinatorArgs) -> CommandResult {
    let (game, plan) = G::from_flags(&args.variant)?;
    let config = coordinator_config(args)?;
    crate::solve::check_no_progress(game.no_progress(), config.distance)?;
    let about = game.run_about(&args.variant);
    let facts = game.run_facts(&args.variant);
    let started = std::time::Instant::now();
    let done = serve(game, plan, &config)?;
    report(args, &config, &about, facts, &done, started)
}

/// Serves `game`'s tiers in `plan` until they are all solved.
fn serve<G>(game: G, plan: TierPlan<G>, config: &CoordinatorConfig) -> Result<Finished, Failure>
where
    G: foxbase_tables::seal::SealRun + 'static,
{
    // Both live as long as the process: the server's tasks borrow them.
    let game: &'static G = Box::leak(Box::new(game));
    let plan: &'static TierPlan<G> = Box::leak(Box::new(plan));
    serve_coordinator(game, plan, config, &log_line("coordinator")).map_err(Failure::failed)
}

/// The coordinator's summary of a finished run of the variant `about`:
/// text, or with `--json` one object of `facts` (game, variant) and the
/// run's figures; the start's value where the run valued it.
fn report(
    args: &CoordinatorArgs,
    config: &CoordinatorConfig,
    about: &str,
    mut facts: serde_json::Value,
    done: &Finished,
    started: std::time::Instant,
) -> CommandResult {
    let start = done.manifest.start.as_ref();
    let c = done.counters;
    if args.json {
        let more = json!({"start": start.map(|s| &s.position), "value": start.map(|s| &s.value),
            "tiers": done.manifest.tiers.len(), "tiers_resumed": done.resumed, "positions": done.manifest.total_slots(),
            "table_bytes": done.manifest.total_bytes(), "seconds": started.elapsed().as_secs_f64(),
            "leases_issued": c.leases_issued, "leases_expired": c.leases_expired,
            "completions_rejected": c.completions_rejected, "store": config.store,
            "phases": phases_json(&done.phases)});
        let object = facts.as_object_mut().expect("an object");
        object.extend(more.as_object().expect("an object").clone());
        return json(&facts);
    }
    line(format_args!("variant: {about}"))?;
    line(format_args!(
        "solved {} tiers ({} finished before this run), {} positions in {:.1}s; leases: {} issued, {} expired",
        done.manifest.tiers.len(),
        done.resumed,
        done.manifest.total_slots(),
        started.elapsed().as_secs_f64(),
        c.leases_issued,
        c.leases_expired
    ))?;
    line(format_args!("tables: {} ({} bytes)", config.store, done.manifest.total_bytes()))?;
    match start {
        Some(start) => line(format_args!("start {}: {} for the side to move", start.position, start.value)),
        None => Ok(()),
    }
}

fn connect(url: &str, auth: &ClientAuthArgs) -> Result<GrpcLink, Failure> {
    let credentials = Credentials::new(&read_token(&auth.token_file)?)
        .map_err(|e| Failure::bad_input(format!("--token-file: {e}")))?;
    let tls = match &auth.tls_ca {
        Some(ca) => {
            let host = url.split("://").nth(1).unwrap_or(url).split([':', '/']).next().unwrap_or("").to_string();
            Some(ClientTls { ca_pem: read_file(ca, "--tls-ca")?, domain: auth.tls_domain.clone().unwrap_or(host) })
        }
        None => None,
    };
    GrpcLink::new(url, credentials, tls).map_err(Failure::bad_input)
}

/// A size in bytes: digits, optionally followed by K, M, G or T (powers of 1024).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("'{text}': the suffix must be K, M, G or T")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 =
        digits.parse().map_err(|_| format!("'{text}' is not a size (bytes, or a number with K, M, G or T)"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("'{text}' is too large"))
}

fn default_worker_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string());
    format!("{}-{}", host.unwrap_or_else(|_| "worker".into()), std::process::id())
}

/// Sets `stop` on SIGTERM or SIGINT.
fn stop_on_signal(stop: &'static AtomicBool) {
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        rt.block_on(async {
            use tokio::signal::unix::{signal, SignalKind};
            let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
                return;
            };
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            tracing::info!(role = "worker", "stopping: the tier being solved is finished and reported first");
            stop.store(true, Ordering::Relaxed);
        });
    });
}

pub fn worker(args: WorkerArgs) -> CommandResult {
    init_logging(&args.ops.log_format);
    let threads = threads_or_all(args.threads);
    if threads == 0 {
        return Err(Failure::bad_input("--threads must be at least 1"));
    }
    let link = connect(&args.coordinator, &args.auth)?;
    let metrics = Arc::new(WorkerMetrics::default());
    let options = WorkerOptions {
        name: args.name.unwrap_or_else(default_worker_name),
        threads,
        // Replaced by the kernel for the coordinator's game (`choose_kernel`), once it is known.
        kernel: args.kernel.unwrap_or_default(),
        cache: args.cache,
        cache_max: args.cache_max,
        retries: metrics.store_retries.clone(),
        give_up_after: Duration::from_secs(args.give_up_after),
        hold_before_solving: Duration::from_millis(args.hold_ms),
        hold_until_lost: args.hold_until_lost,
        refusal_is_fatal: false,
        sync_each_table: true,
        tables_in_memory: None,
    };
    static STOP: AtomicBool = AtomicBool::new(false);
    stop_on_signal(&STOP);
    let log = log_line("worker");
    if let Some(at) = args.ops.metrics_listen {
        let m = metrics.clone();
        let bound = serve_metrics(at, Arc::new(move || m.render()))
            .map_err(|e| Failure::failed(format!("--metrics-listen {at}: {e}")))?;
        log(&format!("metrics on http://{bound}/metrics"));
    }
    let metered = MeteredLink { inner: &link, metrics };
    let summary = run_remote_worker(&metered, args.store, &options, args.kernel, &STOP, &log).map_err(|e| match e {
        e @ CoordinatorError::Kernel(_) => Failure::bad_input(e),
        e => Failure::failed(e),
    })?;
    log(&format!(
        "{}: {} tiers, {} positions solved{}",
        if summary.stopped { "stopped" } else { "the solve is over" },
        summary.tiers,
        summary.slots,
        if summary.duplicates > 0 {
            format!(" ({} already done elsewhere)", summary.duplicates)
        } else {
            String::new()
        }
    ));
    log(&format!("time: {}", summary.time));
    Ok(())
}

pub fn status(args: StatusArgs) -> CommandResult {
    let link = connect(&args.url, &args.auth)?;
    let s = link.status().map_err(|e| Failure::failed(format!("status: {e}")))?;
    if args.json {
        let workers: Vec<_> = s
            .workers
            .iter()
            .map(|w| {
                json!({"id": w.worker_id, "name": w.name, "threads": w.threads, "leases": w.leased_tiers,
                            "seconds_since_seen": w.seconds_since_seen})
            })
            .collect();
        return json(&json!({"variant": s.variant, "tiers": {"total": s.tiers_total, "done": s.tiers_done,
            "running": s.tiers_running, "pending": s.tiers_pending, "resumed": s.tiers_resumed},
            "positions": {"total": s.slots_total, "done": s.slots_done}, "positions_per_second": s.positions_per_second,
            "eta_seconds": s.eta_seconds, "workers": workers,
            "leases_issued": s.leases_issued, "leases_expired": s.leases_expired,
            "completions_rejected": s.completions_rejected, "finished": s.finished,
            "start_value": s.start_value}));
    }
    line(format_args!("variant: {}", s.variant))?;
    line(format_args!(
        "tiers: {} done ({} before this run), {} running, {} pending, of {}",
        s.tiers_done, s.tiers_resumed, s.tiers_running, s.tiers_pending, s.tiers_total
    ))?;
    let eta = s.eta_seconds.map_or("unknown".into(), |e| format!("{e:.0} s"));
    line(format_args!(
        "positions: {} of {} ({:.0} per second), ETA {eta}",
        s.slots_done, s.slots_total, s.positions_per_second
    ))?;
    line(format_args!(
        "leases: {} issued, {} expired; completions rejected: {}",
        s.leases_issued, s.leases_expired, s.completions_rejected
    ))?;
    for w in &s.workers {
        let leases = if w.leased_tiers.is_empty() { "idle".to_string() } else { w.leased_tiers.join(", ") };
        line(format_args!(
            "  {} ({}, {} threads, seen {:.0} s ago): {leases}",
            w.worker_id, w.name, w.threads, w.seconds_since_seen
        ))?;
    }
    if let (true, Some(v)) = (s.finished, &s.start_value) {
        line(format_args!("finished: the start is a {v} for the side to move"))?;
    }
    Ok(())
}
