//! The worker's side of the gRPC protocol: a [`Link`] to a coordinator at a
//! URL, with the shared token and protocol version on every call and TLS
//! when asked for, and [`run_remote_worker`], the whole of `foxbase
//! worker`. Calls block; the client runs on its own small tokio runtime (or
//! one shared by many links, [`GrpcLink::on_runtime`]), so the solver's
//! threads never see async code. Messages are converted to and
//! from the protocol's plain types at this edge.

use crate::error::CoordinatorError;
use foxbase_core::game::GameKind;
use foxbase_proto::v1::coordinator_client::CoordinatorClient;
use foxbase_proto::v1::{HeartbeatRequest, LeaseRequest, RegisterRequest, ReleaseRequest, StatusRequest};
use foxbase_proto::{PROTOCOL_HEADER, PROTOCOL_VERSION};
use foxbase_tables::seal::SealRun;
use foxbase_worker::games::{with_game, GameVisitor};
use foxbase_worker::kernel::{choose_kernel, Kernel, Output, SolveTier};
use foxbase_worker::lease_loop::{register, run_lease_loop, WorkerOptions, WorkerSummary};
use foxbase_worker::protocol::{Accepted, Completion, LeaseAnswer, Link, LinkError, Registration, RunStatus};
use foxbase_worker::retry::{RetryPolicy, RetryingStore};
use foxbase_worker::store::{DirStore, Store};
use foxbase_worker::WorkerError;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Code, Request, Status};

/// Adds the token and protocol version to every call.
#[derive(Clone)]
pub struct Credentials {
    authorization: MetadataValue<tonic::metadata::Ascii>,
}

/// A token that cannot travel in a header.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the token must be non-empty visible ASCII (no spaces or control characters)")]
pub struct BadToken;

impl Credentials {
    /// Refuses tokens that cannot travel in a header (empty, or not visible ASCII).
    pub fn new(token: &str) -> Result<Credentials, BadToken> {
        let token = token.trim();
        if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(BadToken);
        }
        let authorization = format!("Bearer {token}").parse().map_err(|_| BadToken)?;
        Ok(Credentials { authorization })
    }
}

impl tonic::service::Interceptor for Credentials {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        req.metadata_mut().insert("authorization", self.authorization.clone());
        req.metadata_mut().insert(PROTOCOL_HEADER, MetadataValue::from(PROTOCOL_VERSION));
        Ok(req)
    }
}

/// TLS settings of a client: the CA that signed the coordinator's
/// certificate, and the name the certificate was issued to.
#[derive(Clone, Debug)]
pub struct ClientTls {
    pub ca_pem: Vec<u8>,
    pub domain: String,
}

/// A connection to a coordinator.
pub struct GrpcLink {
    runtime: Arc<tokio::runtime::Runtime>,
    client: CoordinatorClient<InterceptedService<Channel, Credentials>>,
}

fn link_error(s: Status) -> LinkError {
    let m = format!("{}: {}", s.code().description(), s.message());
    match s.code() {
        Code::NotFound => LinkError::UnknownWorker(m),
        Code::Unauthenticated
        | Code::PermissionDenied
        | Code::FailedPrecondition
        | Code::InvalidArgument
        | Code::AlreadyExists
        | Code::OutOfRange
        | Code::Unimplemented => LinkError::Refused(m),
        _ => LinkError::Unavailable(m),
    }
}

impl GrpcLink {
    /// A link to the coordinator at `url` (`http://host:port`, or
    /// `https://…` with `tls`), on a runtime of its own. Connects lazily, so
    /// a coordinator that is not up yet is retried by the calls, not
    /// refused here.
    pub fn new(url: &str, credentials: Credentials, tls: Option<ClientTls>) -> Result<GrpcLink, ConnectError> {
        GrpcLink::on_runtime(url, credentials, tls, link_runtime()?)
    }

    /// A link like [`GrpcLink::new`] whose calls run on `runtime`, which
    /// other links may share. Each runtime holds file descriptors of its
    /// own (an epoll and an event fd), so a process that holds many links
    /// (the fleet test's 200 simulated workers, under a limit of 1,024 open
    /// files) shares one. Calls from many threads at once are fine: each
    /// blocks its own thread, and the runtime's thread drives the sockets.
    pub fn on_runtime(
        url: &str,
        credentials: Credentials,
        tls: Option<ClientTls>,
        runtime: Arc<tokio::runtime::Runtime>,
    ) -> Result<GrpcLink, ConnectError> {
        let mut endpoint = Endpoint::from_shared(url.to_string())
            .map_err(|e| ConnectError::Url { url: url.to_string(), message: e.to_string() })?
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(300));
        if let Some(tls) = tls {
            let config =
                ClientTlsConfig::new().ca_certificate(Certificate::from_pem(tls.ca_pem)).domain_name(tls.domain);
            endpoint = endpoint.tls_config(config).map_err(|e| ConnectError::Tls(e.to_string()))?;
        } else if url.starts_with("https:") {
            return Err(ConnectError::HttpsWithoutCa { url: url.to_string() });
        }
        let channel = {
            let _guard = runtime.enter();
            endpoint.connect_lazy()
        };
        Ok(GrpcLink { runtime, client: CoordinatorClient::with_interceptor(channel, credentials) })
    }

    /// The coordinator's status.
    pub fn status(&self) -> Result<RunStatus, LinkError> {
        let mut c = self.client.clone();
        self.runtime.block_on(c.status(StatusRequest {})).map(|r| r.into_inner().into()).map_err(link_error)
    }
}

/// The small runtime a link's calls run on: one thread for the socket, and
/// the calling thread blocks on each call.
pub fn link_runtime() -> Result<Arc<tokio::runtime::Runtime>, ConnectError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| ConnectError::Runtime(e.to_string()))?;
    Ok(Arc::new(runtime))
}

/// Why a link to a coordinator cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConnectError {
    #[error("tokio runtime: {0}")]
    Runtime(String),
    #[error("bad coordinator URL '{url}': {message}")]
    Url { url: String, message: String },
    #[error("TLS: {0}")]
    Tls(String),
    #[error("{url}: an https URL needs --tls-ca")]
    HttpsWithoutCa { url: String },
}

impl Link for GrpcLink {
    fn register(&self, worker_name: &str, threads: u32) -> Result<Registration, LinkError> {
        let mut c = self.client.clone();
        let req = RegisterRequest { worker_name: worker_name.to_string(), threads };
        self.runtime.block_on(c.register(req)).map(|r| r.into_inner().into()).map_err(link_error)
    }

    fn lease(&self, worker_id: &str) -> Result<LeaseAnswer, LinkError> {
        let mut c = self.client.clone();
        let req = LeaseRequest { worker_id: worker_id.to_string() };
        self.runtime.block_on(c.lease(req)).map(|r| r.into_inner().into()).map_err(link_error)
    }

    fn heartbeat(&self, worker_id: &str, lease_id: u64) -> Result<bool, LinkError> {
        let mut c = self.client.clone();
        let req = HeartbeatRequest { worker_id: worker_id.to_string(), lease_id };
        self.runtime.block_on(c.heartbeat(req)).map(|r| r.into_inner().lease_valid).map_err(link_error)
    }

    fn release(&self, worker_id: &str, lease_id: u64) -> Result<(), LinkError> {
        let mut c = self.client.clone();
        let req = ReleaseRequest { worker_id: worker_id.to_string(), lease_id };
        self.runtime.block_on(c.release(req)).map(|_| ()).map_err(link_error)
    }

    fn complete(&self, completion: &Completion) -> Result<Accepted, LinkError> {
        let mut c = self.client.clone();
        let req: foxbase_proto::v1::CompleteRequest = completion.clone().into();
        self.runtime.block_on(c.complete(req)).map(|r| r.into_inner().into()).map_err(link_error)
    }
}

/// The kernel a worker solves `game` with for a run with or without
/// plies (`distance`): `asked` (`--kernel`) or the game's default
/// ([`choose_kernel`]); refused as the coordinator's `title` ("the Fox Game") says.
fn worker_kernel<G: SolveTier>(
    game: &G,
    asked: Option<Kernel>,
    distance: Option<foxbase_tables::plies::Distance>,
) -> Result<Kernel, CoordinatorError> {
    choose_kernel(game, asked, Output::with(distance))
        .map_err(|e| CoordinatorError::Kernel(format!("the coordinator solves {}: {e}", game.game_title())))
}

/// `foxbase worker`: registers with the coordinator behind `link`, builds
/// the game it solves from the registration (any game of the registry,
/// [`with_game`], with the registration's variant), picks the kernel
/// for it (`worker_kernel` with `kernel`, `--kernel`; `options.kernel` is
/// replaced by it), opens the store the coordinator names (or `store`, the
/// same store as mounted here), and runs the lease loop until the solve is
/// over or `stop` is set. `log` gets one line per event for the operator.
pub fn run_remote_worker(
    link: &dyn Link,
    store: Option<PathBuf>,
    options: &WorkerOptions,
    kernel: Option<Kernel>,
    stop: &AtomicBool,
    log: &(dyn Fn(&str) + Sync),
) -> Result<WorkerSummary, CoordinatorError> {
    let me = register(link, options, log)?;
    let kind = me.game.parse::<GameKind>().map_err(|e| {
        CoordinatorError::from(WorkerError::Protocol(format!("the coordinator solves a game this worker cannot: {e}")))
    })?;
    let variant = me.variant.clone();
    let leasing = Leasing { link, store, options, kernel, me, stop, log };
    with_game(kind, &variant, leasing)
        .map_err(|e| CoordinatorError::from(WorkerError::Protocol(format!("the coordinator's variant: {e}"))))?
}

/// [`run_remote_worker`]'s work once the game is a type.
struct Leasing<'a> {
    link: &'a dyn Link,
    store: Option<PathBuf>,
    options: &'a WorkerOptions,
    kernel: Option<Kernel>,
    me: Registration,
    stop: &'a AtomicBool,
    log: &'a (dyn Fn(&str) + Sync),
}

impl GameVisitor for Leasing<'_> {
    type Output = Result<WorkerSummary, CoordinatorError>;

    fn visit<G: SolveTier + SealRun + 'static>(self, game: G) -> Self::Output {
        let kernel = worker_kernel(&game, self.kernel, self.me.distance)?;
        let options = WorkerOptions { kernel, ..self.options.clone() };
        lease_game(&game, &game.about(), self.link, self.store, &options, self.me, self.stop, self.log)
    }
}

/// [`run_remote_worker`] once the game is known: opens the store and the
/// cache, then runs the lease loop for the registration `me`.
#[allow(clippy::too_many_arguments)]
fn lease_game<G: SolveTier>(
    game: &G,
    about: &str,
    link: &dyn Link,
    store: Option<PathBuf>,
    options: &WorkerOptions,
    me: Registration,
    stop: &AtomicBool,
    log: &(dyn Fn(&str) + Sync),
) -> Result<WorkerSummary, CoordinatorError> {
    let store: Box<dyn Store> = match store {
        Some(dir) => Box::new(DirStore::new(&dir)),
        None => foxbase_objstore::open_store(&me.store_url)?,
    };
    let store = RetryingStore::new(
        store,
        RetryPolicy::giving_up_after(options.give_up_after),
        options.retries.clone(),
        Arc::new(|line: &str| tracing::warn!(role = "worker", "{line}")),
    );
    log(&format!(
        "registered as {} for {about}; kernel {}; store {}",
        me.worker_id,
        options.kernel.name(),
        store.describe()
    ));
    std::fs::create_dir_all(&options.cache)
        .map_err(|source| CoordinatorError::Io { path: format!("--cache {}", options.cache.display()), source })?;
    Ok(run_lease_loop(game, link, &store, options, Some(me), stop, log)?)
}
