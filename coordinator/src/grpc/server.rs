//! `foxbase coordinator`: the gRPC server over [`RunState`], for any game
//! with a last step ([`SealRun`]: the Fox Game, Bagh-Chal). It checks the
//! token and protocol version of every call, expires leases, and when every
//! tier is solved seals the run (the manifest; for the Fox Game the start
//! position's value), tells the workers to stop and exits.

use crate::error::CoordinatorError;
use crate::journal::Journal;
use crate::plan::TierPlan;
use crate::run::{Admission, Refusal, RunCounters, RunOptions, RunState};
use foxbase_core::tier::TierGame;
use foxbase_objstore::StoreUrl;
use foxbase_proto::v1::coordinator_server::{Coordinator, CoordinatorServer};
use foxbase_proto::v1::*;
use foxbase_proto::{PROTOCOL_HEADER, PROTOCOL_VERSION};
use foxbase_tables::error::io_error;
use foxbase_tables::manifest::Manifest;
use foxbase_tables::seal::SealRun;
use foxbase_worker::retry::{RetryCount, RetryPolicy, RetryingStore};
use foxbase_worker::store::{clear_incoming, Store};
use std::collections::HashSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tonic::{Request, Response, Status};

/// How to run a coordinator.
#[derive(Clone, Debug)]
pub struct CoordinatorConfig {
    pub listen: SocketAddr,
    /// Where the tables go: a directory or `s3://BUCKET/PREFIX`
    /// ([`foxbase_objstore::StoreUrl`]).
    pub store: String,
    /// The journal file; `None`: `journal.log` in a directory store, the
    /// `journal/` objects in a bucket ([`Journal::create_in_store`]).
    pub journal: Option<PathBuf>,
    pub resume: bool,
    /// Resume when the journal exists, start a new run when it does not
    /// (`--resume-if-journaled`, for services that restart the coordinator).
    pub resume_if_journaled: bool,
    pub token: String,
    /// PEM certificate chain and private key; plain TCP when `None`.
    pub tls: Option<(Vec<u8>, Vec<u8>)>,
    pub lease: Duration,
    /// The plies the run computes (`--distance`; `None`: values only).
    pub distance: Option<foxbase_tables::plies::Distance>,
    /// Where to serve Prometheus metrics at `/metrics` (none: no metrics server).
    pub metrics_listen: Option<SocketAddr>,
}

/// What a finished run produced.
#[derive(Clone, Debug)]
pub struct Finished {
    pub manifest: Manifest,
    pub resumed: usize,
    pub counters: RunCounters,
    /// Phase seconds summed over the tiers this run finished.
    pub phases: foxbase_worker::kernel::Phases,
}

/// Refuses calls without the token or with another protocol version.
#[derive(Clone)]
struct Gate {
    expected: Arc<str>,
}

impl tonic::service::Interceptor for Gate {
    fn call(&mut self, req: Request<()>) -> Result<Request<()>, Status> {
        let version = req.metadata().get(PROTOCOL_HEADER).and_then(|v| v.to_str().ok());
        if version != Some(PROTOCOL_VERSION.to_string().as_str()) {
            return Err(Status::failed_precondition(format!(
                "protocol version {}, this coordinator speaks {PROTOCOL_VERSION}",
                version.unwrap_or("missing")
            )));
        }
        let token = req.metadata().get("authorization").and_then(|v| v.to_str().ok());
        // Compared in full whatever the first difference, so timing tells nothing.
        let given = token.unwrap_or("").as_bytes();
        let want = self.expected.as_bytes();
        let same = given.len() == want.len() && given.iter().zip(want).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
        if !same {
            return Err(Status::unauthenticated(if token.is_none() { "no token" } else { "wrong token" }));
        }
        Ok(req)
    }
}

struct Service<G: TierGame + 'static> {
    state: Arc<Mutex<RunState<'static, G>>>,
    told_done: Arc<Mutex<HashSet<String>>>,
    start_value: Arc<Mutex<Option<String>>>,
}

fn status_of(r: Refusal) -> Status {
    match r {
        Refusal::UnknownWorker(m) => Status::not_found(m),
        Refusal::Invalid(m) => Status::invalid_argument(m),
        Refusal::Conflict(m) => Status::already_exists(m),
        Refusal::Internal(m) => Status::internal(m),
    }
}

#[tonic::async_trait]
impl<G: TierGame + 'static> Coordinator for Service<G> {
    async fn register(&self, req: Request<RegisterRequest>) -> Result<Response<RegisterResponse>, Status> {
        let r = req.into_inner();
        Ok(Response::new(self.state.lock().unwrap().register(&r.worker_name, r.threads, Instant::now()).into()))
    }

    async fn lease(&self, req: Request<LeaseRequest>) -> Result<Response<LeaseResponse>, Status> {
        let r = req.into_inner();
        let answer = self.state.lock().unwrap().lease(&r.worker_id, Instant::now()).map_err(status_of)?;
        if answer == foxbase_worker::protocol::LeaseAnswer::Done {
            self.told_done.lock().unwrap().insert(r.worker_id);
        }
        Ok(Response::new(answer.into()))
    }

    async fn heartbeat(&self, req: Request<HeartbeatRequest>) -> Result<Response<HeartbeatResponse>, Status> {
        let r = req.into_inner();
        let valid =
            self.state.lock().unwrap().heartbeat(&r.worker_id, r.lease_id, Instant::now()).map_err(status_of)?;
        Ok(Response::new(HeartbeatResponse { lease_valid: valid }))
    }

    async fn release(&self, req: Request<ReleaseRequest>) -> Result<Response<ReleaseResponse>, Status> {
        let r = req.into_inner();
        self.state.lock().unwrap().release(&r.worker_id, r.lease_id, Instant::now()).map_err(status_of)?;
        Ok(Response::new(ReleaseResponse {}))
    }

    async fn complete(&self, req: Request<CompleteRequest>) -> Result<Response<CompleteResponse>, Status> {
        let completion = req.into_inner().into();
        let state = self.state.clone();
        // Checking the uploads reads whole tables: off the async threads, and
        // outside the state's lock, so that other calls go on meanwhile.
        let result = tokio::task::spawn_blocking(move || {
            let (admitted, store) = {
                let mut s = state.lock().unwrap();
                (s.admit(&completion, Instant::now())?, s.store())
            };
            match admitted {
                Admission::Decided(accepted) => Ok(accepted),
                Admission::Check(pending) => {
                    let checked = pending.check(store);
                    state.lock().unwrap().commit(&completion, pending, checked)
                }
            }
        })
        .await
        .map_err(|e| Status::internal(format!("completion check failed: {e}")))?;
        result.map(|a| Response::new(a.into())).map_err(status_of)
    }

    async fn status(&self, _: Request<StatusRequest>) -> Result<Response<StatusResponse>, Status> {
        let start = self.start_value.lock().unwrap().clone();
        Ok(Response::new(self.state.lock().unwrap().status(Instant::now(), start.as_deref()).into()))
    }
}

/// Runs a coordinator of `game`'s tiers in `plan` until every tier is
/// solved, then seals the run ([`SealRun`]); `log` gets one line per event
/// for the operator (the first is `listening on ADDR`). Workers learn the
/// game and variant when they register.
pub fn serve_coordinator<G>(
    game: &'static G,
    plan: &'static TierPlan<G>,
    config: &CoordinatorConfig,
    log: &(dyn Fn(&str) + Sync),
) -> Result<Finished, CoordinatorError>
where
    G: SealRun + 'static,
{
    let url = StoreUrl::parse(&config.store).map_err(foxbase_objstore::OpenError::from)?;
    // Transient failures of the store (a bucket that restarts or answers
    // 503, a full disk) are retried for as long as a worker waits for an
    // unreachable coordinator, counted in /metrics.
    let retries = Arc::new(RetryCount::default());
    let retrying = |store: Box<dyn Store>| -> Box<dyn Store> {
        Box::new(RetryingStore::new(
            store,
            RetryPolicy::giving_up_after(Duration::from_secs(600)),
            retries.clone(),
            Arc::new(|line: &str| tracing::warn!(role = "coordinator", "{line}")),
        ))
    };
    let raw = foxbase_objstore::open_store(&config.store)?;
    match &url {
        StoreUrl::Dir(dir) => std::fs::create_dir_all(dir.join("tiers"))
            .map_err(|source| CoordinatorError::Io { path: dir.display().to_string(), source })?,
        // One request before anything is written, not retried: wrong
        // credentials, a missing bucket or a wrong endpoint stop the
        // coordinator here, with their name.
        StoreUrl::Bucket { .. } => {
            raw.size(foxbase_tables::manifest::MANIFEST_FILE).map_err(foxbase_objstore::OpenError::Access)?;
        }
    }
    let store: &'static dyn Store = Box::leak(retrying(raw));
    let (game_name, variant) = (game.game_name(), game.variant_json());
    let journal_file = match (&config.journal, &url) {
        (Some(path), _) => Some(path.clone()),
        (None, StoreUrl::Dir(dir)) => Some(dir.join("journal.log")),
        (None, StoreUrl::Bucket { .. }) => None,
    };
    let resume = config.resume
        || config.resume_if_journaled
            && match &journal_file {
                Some(path) => path.exists(),
                None => store
                    .size(crate::journal::STORE_JOURNAL_RUN)
                    .map_err(|source| CoordinatorError::Io { path: store.url(), source })?
                    .is_some(),
            };
    let (journal, finished) = match (journal_file, resume) {
        (Some(path), true) => Journal::resume(&path, game_name, &variant)?,
        (Some(path), false) => (Journal::create(&path, game_name, &variant)?, Vec::new()),
        (None, true) => {
            Journal::resume_from_store(retrying(foxbase_objstore::open_store(&config.store)?), game_name, &variant)?
        }
        (None, false) => (
            Journal::create_in_store(retrying(foxbase_objstore::open_store(&config.store)?), game_name, &variant)?,
            Vec::new(),
        ),
    };
    let options =
        RunOptions { lease: config.lease, retry_after: Duration::from_millis(200), distance: config.distance };
    let state = RunState::new(game, plan, store, Some(journal), finished, options)?;
    if resume {
        log(&format!("resumed: {} of {} tiers were finished", state.resumed(), plan.order.len()));
    }
    let runtime =
        tokio::runtime::Runtime::new().map_err(|e| CoordinatorError::Server(format!("tokio runtime: {e}")))?;
    runtime.block_on(serve(game, plan, store, state, config, retries, log))
}

async fn serve<G>(
    game: &'static G,
    plan: &'static TierPlan<G>,
    store: &'static dyn Store,
    state: RunState<'static, G>,
    config: &CoordinatorConfig,
    retries: Arc<RetryCount>,
    log: &(dyn Fn(&str) + Sync),
) -> Result<Finished, CoordinatorError>
where
    G: SealRun + 'static,
{
    let state = Arc::new(Mutex::new(state));
    let told_done = Arc::new(Mutex::new(HashSet::new()));
    let start_value = Arc::new(Mutex::new(None));
    let service = Service { state: state.clone(), told_done: told_done.clone(), start_value: start_value.clone() };
    let gate = Gate { expected: format!("Bearer {}", config.token.trim()).into() };
    // TCP_NODELAY: a bound `TcpIncoming` does not set it, and without it
    // every small answer waited for the worker's delayed ACK (Nagle), about
    // 40 ms a call: 19 of the 38 s of the README's variant on two workers.
    let incoming = TcpIncoming::bind(config.listen)
        .map_err(|e| CoordinatorError::Server(format!("listen on {}: {e}", config.listen)))?
        .with_nodelay(Some(true));
    let addr = incoming.local_addr().map_err(|e| CoordinatorError::Server(e.to_string()))?;
    if let Some(at) = config.metrics_listen {
        let (state, lease) = (state.clone(), config.lease);
        let render = move || {
            let s = state.lock().unwrap();
            let now = Instant::now();
            let active = s.active_workers(now, 2 * lease).len();
            crate::metrics::coordinator_metrics(
                &s.status(now, None),
                active,
                s.counters().store_bytes_written,
                retries.get(),
            )
        };
        let bound = crate::metrics::serve_metrics(at, Arc::new(render))
            .map_err(|e| CoordinatorError::Server(format!("--metrics-listen {at}: {e}")))?;
        log(&format!("metrics on http://{bound}/metrics"));
    }
    let mut builder = Server::builder();
    if let Some((cert, key)) = &config.tls {
        builder = builder
            .tls_config(ServerTlsConfig::new().identity(Identity::from_pem(cert, key)))
            .map_err(|e| CoordinatorError::Server(format!("TLS: {e}")))?;
    }
    log(&format!(
        "listening on {addr}{} for {} tiers, {} positions",
        if config.tls.is_some() { " (TLS)" } else { "" },
        plan.order.len(),
        plan.total_slots()
    ));
    let (shutdown, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(
        builder.add_service(CoordinatorServer::with_interceptor(service, gate)).serve_with_incoming_shutdown(
            incoming,
            async {
                let _ = shutdown_rx.await;
            },
        ),
    );
    // Expire leases, log progress every 10 s, and watch for the end.
    let lease = config.lease;
    let mut last_log = (Instant::now(), u32::MAX);
    let finished_at = loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if last_log.0.elapsed() >= Duration::from_secs(10) {
            let st = state.lock().unwrap().status(Instant::now(), None);
            if st.tiers_done != last_log.1 {
                let eta = st.eta_seconds.map_or("unknown".into(), |s| format!("{s:.0} s"));
                log(&format!(
                    "tiers {}/{} ({} running), {} of {} positions, {:.0} positions/s, ETA {eta}, {} workers",
                    st.tiers_done,
                    st.tiers_total,
                    st.tiers_running,
                    st.slots_done,
                    st.slots_total,
                    st.positions_per_second,
                    st.workers.iter().filter(|w| w.seconds_since_seen < 2.0 * lease.as_secs_f64()).count()
                ));
            }
            last_log = (Instant::now(), st.tiers_done);
        }
        if server.is_finished() {
            return Err(CoordinatorError::Server(match server.await {
                Ok(Err(e)) => format!("server: {e}"),
                _ => "server stopped".into(),
            }));
        }
        let mut s = state.lock().unwrap();
        s.expire(Instant::now());
        if s.is_finished() {
            break Instant::now();
        }
    };
    let manifest = state.lock().unwrap().manifest();
    let location = foxbase_objstore::open_location(&config.store)?;
    let put = |key: &str, bytes: &[u8]| store.put_bytes(key, bytes).map_err(io_error(format!("{}/{key}", store.url())));
    let manifest = tokio::task::block_in_place(|| game.seal_run(location, &put, manifest))?;
    match &manifest.start {
        Some(start) => {
            *start_value.lock().unwrap() = Some(start.value.clone());
            log(&format!("finished: start {} is a {} for the side to move", start.position, start.value));
        }
        None => log(&format!("finished: {} tiers solved", manifest.tiers.len())),
    }
    // Every tier is done: whatever is left in incoming/ (uploads of workers
    // that died, or that a crash resurrected) will never be used.
    let _ = tokio::task::block_in_place(|| clear_incoming(store));
    // Let the workers that are still around hear that the solve is over:
    // with nothing left to lease, a live worker asks every 200 ms.
    loop {
        let everyone_told = {
            let active = state.lock().unwrap().active_workers(Instant::now(), Duration::from_secs(2));
            let told = told_done.lock().unwrap();
            active.iter().all(|w| told.contains(w))
        };
        if everyone_told || finished_at.elapsed() > lease.min(Duration::from_secs(10)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = shutdown.send(());
    let _ = server.await;
    let s = state.lock().unwrap();
    Ok(Finished { manifest, resumed: s.resumed(), counters: s.counters(), phases: s.phases() })
}
