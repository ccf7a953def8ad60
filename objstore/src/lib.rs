//! Tablebases in an object store: one bucket (S3, or any S3-compatible
//! server such as SeaweedFS, MinIO or Cloudflare R2) serves as the shared
//! [`Store`] of a distributed solve and as the byte-range [`Location`] the
//! table reader probes, so that every command that takes a table location
//! takes `s3://BUCKET/PREFIX` as well as a directory.
//!
//! This crate is the only one of foxbase that speaks HTTP to a bucket: the
//! tables crate and the worker crate stay free of network code, so a plain
//! prober compiles none. Credentials, region and endpoint come from the
//! standard variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ENDPOINT_URL`, and
//! `AWS_ALLOW_HTTP=true` for a plain-http local server).
//!
//! ```
//! use foxbase_objstore::StoreUrl;
//! let url = StoreUrl::parse("s3://tables/full/classic").unwrap();
//! assert_eq!(url, StoreUrl::Bucket { bucket: "tables".into(), prefix: "full/classic".into() });
//! assert_eq!(StoreUrl::parse("gs://x").unwrap_err().to_string(),
//!     "'gs://x': scheme 'gs' is not supported (a directory, file:///DIR or s3://BUCKET/PREFIX)");
//! ```

mod bucket;
mod url;

pub use bucket::{Bucket, Traffic};
pub use url::{StoreUrl, UrlError};

use foxbase_tables::source::{DirLocation, Location};
use foxbase_worker::store::{DirStore, Store};
use std::io;

/// Why a store or tablebase location cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Url(#[from] UrlError),
    /// The bucket client could not be set up (a bad region or endpoint variable).
    #[error("{url}: {message}")]
    Client { url: String, message: String },
    /// The bucket answered, but not as asked (wrong credentials, no such bucket).
    #[error(transparent)]
    Access(io::Error),
}

/// Opens the store `url` names: a directory (a path or `file:///DIR`) or a
/// bucket (`s3://BUCKET/PREFIX`).
pub fn open_store(url: &str) -> Result<Box<dyn Store>, OpenError> {
    Ok(match StoreUrl::parse(url)? {
        StoreUrl::Dir(path) => Box::new(DirStore::new(&path)),
        StoreUrl::Bucket { bucket, prefix } => Box::new(Bucket::open(&bucket, &prefix)?),
    })
}

/// Opens the tablebase at `url` (a directory or a bucket) for reading by
/// byte ranges.
pub fn open_location(url: &str) -> Result<Box<dyn Location>, OpenError> {
    Ok(match StoreUrl::parse(url)? {
        StoreUrl::Dir(path) => Box::new(DirLocation::new(&path)),
        StoreUrl::Bucket { bucket, prefix } => Box::new(Bucket::open(&bucket, &prefix)?),
    })
}
