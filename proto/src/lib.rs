//! foxbase-proto: the coordinator/worker protocol.
//!
//! `foxbase.proto` beside this crate is the protocol the distributed solve
//! speaks. Today only the local solve exists, which drives the same
//! scheduler in-process, so no code is generated from it yet; the file and
//! its version are what the distributed mode will be built against.

/// The protocol's version; peers with another version are refused.
pub const PROTOCOL_VERSION: u32 = 1;

/// The protocol definition.
pub const PROTO: &str = include_str!("../foxbase.proto");

#[cfg(test)]
mod tests {
    #[test]
    fn the_proto_declares_its_package_and_service() {
        assert!(super::PROTO.contains("package foxbase.v1;"));
        assert!(super::PROTO.contains("service Coordinator"));
    }
}
