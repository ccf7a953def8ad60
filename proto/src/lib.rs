//! foxbase-proto: the coordinator/worker protocol (`foxbase.proto` beside
//! this crate), compiled at build time by protox and tonic-prost-build, and
//! the `From` conversions between its messages and the plain types of
//! `foxbase_worker::protocol` ([`convert`]).

pub mod convert;

/// The protocol's version, sent with every call; peers with another version are refused.
pub const PROTOCOL_VERSION: u32 = 2;

/// Metadata key carrying [`PROTOCOL_VERSION`].
pub const PROTOCOL_HEADER: &str = "foxbase-protocol";

/// The protocol definition.
pub const PROTO: &str = include_str!("../foxbase.proto");

/// Generated messages, client and server of package `foxbase.v1`.
pub mod v1 {
    #![allow(clippy::all)]
    tonic::include_proto!("foxbase.v1");
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_generated_code_has_the_service_and_its_messages() {
        assert!(super::PROTO.contains("package foxbase.v1;"));
        let lease = super::v1::LeaseResponse { retry_after_ms: 250, ..Default::default() };
        let bytes = prost::Message::encode_to_vec(&lease);
        let back: super::v1::LeaseResponse = prost::Message::decode(&bytes[..]).unwrap();
        assert_eq!(back.retry_after_ms, 250);
        assert!(back.assignment.is_none() && !back.done);
        // Both sides of the service exist.
        let _ = super::v1::coordinator_client::CoordinatorClient::<tonic::transport::Channel>::new;
        let _ = super::v1::coordinator_server::CoordinatorServer::<Never>::new;
    }

    struct Never;
    #[tonic::async_trait]
    impl super::v1::coordinator_server::Coordinator for Never {
        async fn register(
            &self,
            _: tonic::Request<super::v1::RegisterRequest>,
        ) -> Result<tonic::Response<super::v1::RegisterResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("test"))
        }
        async fn lease(
            &self,
            _: tonic::Request<super::v1::LeaseRequest>,
        ) -> Result<tonic::Response<super::v1::LeaseResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("test"))
        }
        async fn heartbeat(
            &self,
            _: tonic::Request<super::v1::HeartbeatRequest>,
        ) -> Result<tonic::Response<super::v1::HeartbeatResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("test"))
        }
        async fn release(
            &self,
            _: tonic::Request<super::v1::ReleaseRequest>,
        ) -> Result<tonic::Response<super::v1::ReleaseResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("test"))
        }
        async fn complete(
            &self,
            _: tonic::Request<super::v1::CompleteRequest>,
        ) -> Result<tonic::Response<super::v1::CompleteResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("test"))
        }
        async fn status(
            &self,
            _: tonic::Request<super::v1::StatusRequest>,
        ) -> Result<tonic::Response<super::v1::StatusResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("test"))
        }
    }
}
