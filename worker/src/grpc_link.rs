//! The worker's side of the gRPC protocol: a [`Link`] to a coordinator at a
//! URL, with the shared token and protocol version on every call and TLS
//! when asked for. Calls block; the client runs on its own small tokio
//! runtime, so the solver's threads never see async code.

use crate::lease_loop::{Link, LinkError};
use foxbase_proto::v1::coordinator_client::CoordinatorClient;
use foxbase_proto::v1::{
    CompleteRequest, CompleteResponse, HeartbeatRequest, LeaseRequest, LeaseResponse, RegisterRequest,
    RegisterResponse, ReleaseRequest, StatusRequest, StatusResponse,
};
use foxbase_proto::{PROTOCOL_HEADER, PROTOCOL_VERSION};
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

impl Credentials {
    /// Refuses tokens that cannot travel in a header (empty, or not visible ASCII).
    pub fn new(token: &str) -> Result<Credentials, String> {
        let token = token.trim();
        if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("the token must be non-empty visible ASCII (no spaces or control characters)".into());
        }
        let authorization = format!("Bearer {token}").parse().map_err(|_| "the token cannot be sent in a header")?;
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
    runtime: tokio::runtime::Runtime,
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
    /// `https://…` with `tls`). Connects lazily, so a coordinator that is
    /// not up yet is retried by the calls, not refused here.
    pub fn new(url: &str, credentials: Credentials, tls: Option<ClientTls>) -> Result<GrpcLink, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| format!("tokio runtime: {e}"))?;
        let mut endpoint = Endpoint::from_shared(url.to_string())
            .map_err(|e| format!("bad coordinator URL '{url}': {e}"))?
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(300));
        if let Some(tls) = tls {
            let config =
                ClientTlsConfig::new().ca_certificate(Certificate::from_pem(tls.ca_pem)).domain_name(tls.domain);
            endpoint = endpoint.tls_config(config).map_err(|e| format!("TLS: {e}"))?;
        } else if url.starts_with("https:") {
            return Err(format!("{url}: an https URL needs --tls-ca"));
        }
        let channel = {
            let _guard = runtime.enter();
            endpoint.connect_lazy()
        };
        Ok(GrpcLink { runtime, client: CoordinatorClient::with_interceptor(channel, credentials) })
    }

    /// The coordinator's status.
    pub fn status(&self) -> Result<StatusResponse, LinkError> {
        let mut c = self.client.clone();
        self.runtime.block_on(c.status(StatusRequest {})).map(|r| r.into_inner()).map_err(link_error)
    }
}

impl Link for GrpcLink {
    fn register(&self, worker_name: &str, threads: u32) -> Result<RegisterResponse, LinkError> {
        let mut c = self.client.clone();
        let req = RegisterRequest { worker_name: worker_name.to_string(), threads };
        self.runtime.block_on(c.register(req)).map(|r| r.into_inner()).map_err(link_error)
    }

    fn lease(&self, req: LeaseRequest) -> Result<LeaseResponse, LinkError> {
        let mut c = self.client.clone();
        self.runtime.block_on(c.lease(req)).map(|r| r.into_inner()).map_err(link_error)
    }

    fn heartbeat(&self, req: HeartbeatRequest) -> Result<bool, LinkError> {
        let mut c = self.client.clone();
        self.runtime.block_on(c.heartbeat(req)).map(|r| r.into_inner().lease_valid).map_err(link_error)
    }

    fn release(&self, req: ReleaseRequest) -> Result<(), LinkError> {
        let mut c = self.client.clone();
        self.runtime.block_on(c.release(req)).map(|_| ()).map_err(link_error)
    }

    fn complete(&self, req: CompleteRequest) -> Result<CompleteResponse, LinkError> {
        let mut c = self.client.clone();
        self.runtime.block_on(c.complete(req)).map(|r| r.into_inner()).map_err(link_error)
    }
}
