//! `foxbase coordinator`, `foxbase worker` and `foxbase status`: flags,
//! credentials and output around the distributed solve's libraries.

use clap::Args;
use foxbase_coordinator::plan::TierPlan;
use foxbase_coordinator::server::{run_coordinator as serve, CoordinatorConfig};
use foxbase_core::foxgame::FoxGame;
use foxbase_core::Variant;
use foxbase_worker::grpc_link::{ClientTls, Credentials, GrpcLink};
use foxbase_worker::lease_loop::{register, run_worker as work, WorkerOptions};
use foxbase_worker::store::{open_store, DirStore, Store};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
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

fn read_file(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{what} {}: {e}", path.display()))
}

fn read_token(path: &Path) -> Result<String, String> {
    let bytes = read_file(path, "--token-file")?;
    let text = String::from_utf8(bytes).map_err(|_| format!("--token-file {}: not text", path.display()))?;
    let token = text.trim().to_string();
    Credentials::new(&token).map_err(|e| format!("--token-file {}: {e}", path.display()))?;
    Ok(token)
}

pub fn coordinator_config(
    store: PathBuf,
    listen: std::net::SocketAddr,
    resume: bool,
    journal: Option<PathBuf>,
    auth: &ServerAuthArgs,
    lease_seconds: u64,
) -> Result<CoordinatorConfig, String> {
    let token = read_token(&auth.token_file)?;
    let tls = match (&auth.tls_cert, &auth.tls_key) {
        (Some(cert), Some(key)) => Some((read_file(cert, "--tls-cert")?, read_file(key, "--tls-key")?)),
        _ => None,
    };
    Ok(CoordinatorConfig {
        listen,
        journal: journal.unwrap_or_else(|| store.join("journal.log")),
        store,
        resume,
        token,
        tls,
        lease: Duration::from_secs(lease_seconds),
    })
}

fn log_line(prefix: &'static str) -> impl Fn(&str) + Sync {
    move |line: &str| eprintln!("foxbase {prefix}: {line}")
}

pub fn run_coordinator(variant: Variant, config: &CoordinatorConfig, json_out: bool) -> Result<(), String> {
    // Both live as long as the process: the server's tasks borrow them.
    let game: &'static FoxGame = Box::leak(Box::new(FoxGame::new(variant)));
    let plan: &'static TierPlan<FoxGame> = Box::leak(Box::new(TierPlan::new(game)));
    let started = std::time::Instant::now();
    let done = serve(game, plan, config, &log_line("coordinator"))?;
    let start = done.manifest.start.clone().expect("a finished run values its start");
    let c = done.counters;
    if json_out {
        let out = json!({"variant": variant.to_json_value(), "start": start.position, "value": start.value,
            "tiers": done.manifest.tiers.len(), "tiers_resumed": done.resumed, "positions": done.manifest.total_slots(),
            "table_bytes": done.manifest.total_bytes(), "seconds": started.elapsed().as_secs_f64(),
            "leases_issued": c.leases_issued, "leases_expired": c.leases_expired,
            "completions_rejected": c.completions_rejected, "store": config.store.display().to_string()});
        println!("{out}");
    } else {
        println!("variant: {variant}");
        println!(
            "solved {} tiers ({} finished before this run), {} positions in {:.1}s; leases: {} issued, {} expired",
            done.manifest.tiers.len(),
            done.resumed,
            done.manifest.total_slots(),
            started.elapsed().as_secs_f64(),
            c.leases_issued,
            c.leases_expired
        );
        println!("tables: {} ({} bytes)", config.store.display(), done.manifest.total_bytes());
        println!("start {}: {} for the side to move", start.position, start.value);
    }
    Ok(())
}

pub fn connect(url: &str, auth: &ClientAuthArgs) -> Result<GrpcLink, String> {
    let credentials = Credentials::new(&read_token(&auth.token_file)?).map_err(|e| format!("--token-file: {e}"))?;
    let tls = match &auth.tls_ca {
        Some(ca) => {
            let host = url.split("://").nth(1).unwrap_or(url).split([':', '/']).next().unwrap_or("").to_string();
            Some(ClientTls { ca_pem: read_file(ca, "--tls-ca")?, domain: auth.tls_domain.clone().unwrap_or(host) })
        }
        None => None,
    };
    GrpcLink::new(url, credentials, tls)
}

pub fn default_worker_name() -> String {
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
            eprintln!("foxbase worker: stopping: the tier being solved is finished and reported first");
            stop.store(true, Ordering::Relaxed);
        });
    });
}

pub fn run_worker(link: &GrpcLink, store: Option<PathBuf>, options: &WorkerOptions) -> Result<(), String> {
    static STOP: AtomicBool = AtomicBool::new(false);
    stop_on_signal(&STOP);
    let log = log_line("worker");
    let me = register(link, options, &log)?;
    if me.game != "fox" {
        return Err(format!("the coordinator solves the game '{}', which this worker cannot", me.game));
    }
    let variant = Variant::from_json(&me.variant).map_err(|e| format!("the coordinator's variant: {e}"))?;
    let game = FoxGame::new(variant);
    let store: Box<dyn Store> = match store {
        Some(dir) => Box::new(DirStore::new(&dir)),
        None => open_store(&me.store_url)?,
    };
    log(&format!("registered as {} for {variant}; store {}", me.worker_id, store.describe()));
    std::fs::create_dir_all(&options.cache).map_err(|e| format!("--cache {}: {e}", options.cache.display()))?;
    let summary = work(&game, link, store.as_ref(), options, Some(me), &STOP, &log)?;
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
    Ok(())
}

pub fn print_status(link: &GrpcLink, json_out: bool) -> Result<(), String> {
    let s = link.status().map_err(|e| format!("status: {e}"))?;
    if json_out {
        let workers: Vec<_> = s
            .workers
            .iter()
            .map(|w| {
                json!({"id": w.worker_id, "name": w.name, "threads": w.threads, "leases": w.leased_tiers,
                            "seconds_since_seen": w.seconds_since_seen})
            })
            .collect();
        let out = json!({"variant": s.variant, "tiers": {"total": s.tiers_total, "done": s.tiers_done,
            "running": s.tiers_running, "pending": s.tiers_pending, "resumed": s.tiers_resumed},
            "positions": {"total": s.slots_total, "done": s.slots_done}, "positions_per_second": s.positions_per_second,
            "eta_seconds": (s.eta_seconds >= 0.0).then_some(s.eta_seconds), "workers": workers,
            "leases_issued": s.leases_issued, "leases_expired": s.leases_expired,
            "completions_rejected": s.completions_rejected, "finished": s.finished,
            "start_value": (!s.start_value.is_empty()).then_some(&s.start_value)});
        println!("{out}");
        return Ok(());
    }
    println!("variant: {}", s.variant);
    println!(
        "tiers: {} done ({} before this run), {} running, {} pending, of {}",
        s.tiers_done, s.tiers_resumed, s.tiers_running, s.tiers_pending, s.tiers_total
    );
    let eta = if s.eta_seconds >= 0.0 { format!("{:.0} s", s.eta_seconds) } else { "unknown".into() };
    println!("positions: {} of {} ({:.0} per second), ETA {eta}", s.slots_done, s.slots_total, s.positions_per_second);
    println!(
        "leases: {} issued, {} expired; completions rejected: {}",
        s.leases_issued, s.leases_expired, s.completions_rejected
    );
    for w in &s.workers {
        let leases = if w.leased_tiers.is_empty() { "idle".to_string() } else { w.leased_tiers.join(", ") };
        println!(
            "  {} ({}, {} threads, seen {:.0} s ago): {leases}",
            w.worker_id, w.name, w.threads, w.seconds_since_seen
        );
    }
    if s.finished {
        println!("finished: the start is a {} for the side to move", s.start_value);
    }
    Ok(())
}
