//! Generates the gRPC code from foxbase.proto with protox, a protobuf
//! compiler written in Rust, so no system `protoc` is needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=foxbase.proto");
    let descriptors = protox::compile(["foxbase.proto"], ["."])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
