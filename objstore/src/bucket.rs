//! One folder of an S3 bucket as a [`Store`] (whole objects: put, get,
//! conditional put, rename, list) and as a tablebase [`Location`] (objects
//! read by byte ranges).
//!
//! The callers are synchronous (the worker's lease loop, the table reader,
//! the coordinator's run state), the client is async: every request runs on
//! one process-wide tokio runtime that is never dropped, and the caller's
//! thread waits for its answer on a channel. That works the same from a
//! plain thread and from inside another runtime (the gRPC server), where a
//! nested `block_on` would panic.
//!
//! Large files go up as multipart uploads read from disk a part at a time
//! and come down streamed to a temporary file, so a table is never held
//! whole in memory. Errors name the object's URL; a refusal for the
//! credentials names the bucket and the variables to check.

use bytes::Bytes;
use foxbase_tables::durable;
use foxbase_tables::source::{ByteSource, Location};
use foxbase_worker::store::Store;
use futures::StreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, WriteMultipart};
use std::future::Future;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Files up to this size go up in one request; larger ones in parts of this size.
const PART_BYTES: usize = 16 << 20;
/// Parts of one upload in flight at once.
const PARTS_IN_FLIGHT: usize = 4;
/// A read of at most this many bytes fetches the aligned window of
/// [`WINDOW_BYTES`] around it instead, kept for the reads that follow: a
/// probe's reads are small and close together (the tier index's binary
/// search ends within one window; a table's header and block index are
/// adjacent), and each request costs a round trip.
const SMALL_READ: usize = 16 << 10;
const WINDOW_BYTES: u64 = 64 << 10;
/// Windows kept per object.
const WINDOWS_KEPT: usize = 4;

/// Requests and bytes that crossed the network, for metrics and for
/// measuring what a probe costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    pub requests: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

#[derive(Debug, Default)]
struct Counters {
    requests: AtomicU64,
    bytes_read: AtomicU64,
    bytes_written: AtomicU64,
}

impl Counters {
    fn request(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
    }
    fn read(&self, bytes: usize) {
        self.bytes_read.fetch_add(bytes as u64, Ordering::Relaxed);
    }
    fn written(&self, bytes: usize) {
        self.bytes_written.fetch_add(bytes as u64, Ordering::Relaxed);
    }
}

/// A folder (`PREFIX`) of one bucket.
#[derive(Clone, Debug)]
pub struct Bucket {
    /// For reads by range ([`Location`]): the client retries transient
    /// failures itself.
    client: Arc<AmazonS3>,
    /// For whole-object operations ([`Store`]): no retries of its own, so
    /// that a [`foxbase_worker::retry::RetryingStore`] around the bucket
    /// sees, counts and logs each one.
    store_client: Arc<AmazonS3>,
    bucket: String,
    prefix: String,
    counters: Arc<Counters>,
}

/// The runtime every request runs on (see the module documentation).
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("foxbase-objstore")
            .enable_all()
            .build()
            .expect("a tokio runtime for object-store requests")
    })
}

/// Runs `request` on the object-store runtime and waits for it.
fn run<T: Send + 'static>(request: impl Future<Output = T> + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime().spawn(async move {
        let _ = tx.send(request.await);
    });
    rx.recv().expect("an object-store request task ended without answering")
}

impl Bucket {
    /// The folder `prefix` of `bucket`, with credentials, region and
    /// endpoint from the environment. Makes no request.
    pub fn open(bucket: &str, prefix: &str) -> Result<Bucket, crate::OpenError> {
        // One TLS crypto provider for the whole process, ring (as tonic's);
        // installing it twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let url = crate::StoreUrl::Bucket { bucket: bucket.into(), prefix: prefix.into() }.to_string();
        let builder = AmazonS3Builder::from_env().with_bucket_name(bucket);
        let no_retries = object_store::RetryConfig { max_retries: 0, ..Default::default() };
        let (client, store_client) = (builder.clone().build(), builder.with_retry(no_retries).build());
        let (client, store_client) = client
            .and_then(|c| Ok((c, store_client?)))
            .map_err(|e| crate::OpenError::Client { url, message: e.to_string() })?;
        Ok(Bucket {
            client: Arc::new(client),
            store_client: Arc::new(store_client),
            bucket: bucket.into(),
            prefix: prefix.into(),
            counters: Arc::default(),
        })
    }

    /// `s3://BUCKET/PREFIX`.
    pub fn url_string(&self) -> String {
        crate::StoreUrl::Bucket { bucket: self.bucket.clone(), prefix: self.prefix.clone() }.to_string()
    }

    /// What this bucket handle has sent and received so far.
    pub fn traffic(&self) -> Traffic {
        Traffic {
            requests: self.counters.requests.load(Ordering::Relaxed),
            bytes_read: self.counters.bytes_read.load(Ordering::Relaxed),
            bytes_written: self.counters.bytes_written.load(Ordering::Relaxed),
        }
    }

    /// Checks that the bucket answers to these credentials, with one
    /// request: run before writing anything, so that a wrong key or bucket
    /// fails at once with a message naming them.
    pub fn check_access(&self) -> io::Result<()> {
        self.size(foxbase_tables::manifest::MANIFEST_FILE).map(|_| ())
    }

    /// The object path of `key`, refusing keys that would leave the folder
    /// (the same rule as a directory's, [`foxbase_tables::source::key_path`]).
    fn path(&self, key: &str) -> io::Result<ObjectPath> {
        foxbase_tables::source::key_path(Path::new(""), key)?;
        let full = if self.prefix.is_empty() { key.to_string() } else { format!("{}/{key}", self.prefix) };
        ObjectPath::parse(&full)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("bad key '{key}': {e}")))
    }

    fn name(&self, key: &str) -> String {
        format!("{}/{key}", self.url_string())
    }

    /// An `io::Error` of the right kind, naming the object (and for access
    /// refusals, the credentials to check).
    fn error(&self, key: &str, e: object_store::Error) -> io::Error {
        use object_store::Error as E;
        let kind = match &e {
            E::NotFound { .. } => io::ErrorKind::NotFound,
            E::AlreadyExists { .. } | E::Precondition { .. } => io::ErrorKind::AlreadyExists,
            E::PermissionDenied { .. } | E::Unauthenticated { .. } => io::ErrorKind::PermissionDenied,
            _ => io::ErrorKind::Other,
        };
        let hint = match kind {
            io::ErrorKind::PermissionDenied => format!(
                " (bucket '{}' refused these credentials: check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the bucket's policy)",
                self.bucket
            ),
            _ => String::new(),
        };
        io::Error::new(kind, format!("{}: {e}{hint}", self.name(key)))
    }

    /// Runs `request(client, path)` for `key` on `client` (`self.client` for
    /// reads by range, `self.store_client` for the [`Store`] operations),
    /// counting it, mapping its error.
    fn call<T: Send + 'static, F>(
        &self,
        client: &Arc<AmazonS3>,
        key: &str,
        request: impl FnOnce(Arc<AmazonS3>, ObjectPath) -> F,
    ) -> io::Result<T>
    where
        F: Future<Output = object_store::Result<T>> + Send + 'static,
    {
        let path = self.path(key)?;
        self.counters.request();
        run(request(client.clone(), path)).map_err(|e| self.error(key, e))
    }
}

impl Store for Bucket {
    fn describe(&self) -> String {
        format!("bucket {}", self.url_string())
    }

    fn url(&self) -> String {
        self.url_string()
    }

    fn local_path(&self, _key: &str) -> Option<std::path::PathBuf> {
        None
    }

    fn put_file(&self, key: &str, from: &Path) -> io::Result<()> {
        let mut file = std::fs::File::open(from)?;
        let len = file.metadata()?.len();
        if len <= PART_BYTES as u64 {
            // One request; the bytes read are the payload (no second copy).
            let mut bytes = Vec::with_capacity(len as usize);
            file.read_to_end(&mut bytes)?;
            let n = bytes.len();
            let payload = PutPayload::from(Bytes::from(bytes));
            self.call(&self.store_client, key, move |client, path| async move {
                client.put(&path, payload).await.map(|_| ())
            })?;
            self.counters.written(n);
            return Ok(());
        }
        let counters = self.counters.clone();
        self.call(&self.store_client, key, move |client, path| async move {
            let upload = client.put_multipart(&path).await?;
            let mut parts = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
            let mut buf = vec![0u8; PART_BYTES];
            loop {
                // At most PARTS_IN_FLIGHT parts in memory: reading waits for uploads.
                parts.wait_for_capacity(PARTS_IN_FLIGHT).await?;
                let n = read_full(&mut file, &mut buf)
                    .map_err(|e| object_store::Error::Generic { store: "file", source: Box::new(e) })?;
                if n == 0 {
                    break;
                }
                parts.write(&buf[..n]);
                counters.written(n);
            }
            parts.finish().await.map(|_| ())
        })
    }

    fn put_bytes(&self, key: &str, bytes: &[u8]) -> io::Result<()> {
        let payload = PutPayload::from(Bytes::copy_from_slice(bytes));
        self.call(
            &self.store_client,
            key,
            move |client, path| async move { client.put(&path, payload).await.map(|_| ()) },
        )?;
        self.counters.written(bytes.len());
        Ok(())
    }

    fn put_new(&self, key: &str, bytes: &[u8]) -> io::Result<bool> {
        let payload = PutPayload::from(Bytes::copy_from_slice(bytes));
        let options = PutOptions { mode: PutMode::Create, ..Default::default() };
        match self.call(&self.store_client, key, move |client, path| async move {
            client.put_opts(&path, payload, options).await
        }) {
            Ok(_) => {
                self.counters.written(bytes.len());
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn get_file(&self, key: &str, to: &Path) -> io::Result<()> {
        std::fs::create_dir_all(durable::parent_dir(to))?;
        // A name of its own: two workers sharing a cache may fetch the same
        // child at once, and each must rename a whole file into place.
        static FETCHES: AtomicU64 = AtomicU64::new(0);
        let n = FETCHES.fetch_add(1, Ordering::Relaxed);
        let tmp = durable::temp_path(to)?.with_extension(format!("{}.{n}.tmp", std::process::id()));
        let mut file = std::fs::File::create(&tmp)?;
        let sink = tmp.clone();
        let counters = self.counters.clone();
        let got = self.call(&self.store_client, key, move |client, path| async move {
            let mut stream = client.get(&path).await?.into_stream();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk?;
                counters.read(chunk.len());
                file.write_all(&chunk).map_err(|e| object_store::Error::Generic {
                    store: "file",
                    source: format!("{}: {e}", sink.display()).into(),
                })?;
            }
            file.sync_all().map_err(|e| object_store::Error::Generic { store: "file", source: Box::new(e) })
        });
        match got {
            Ok(()) => durable::rename(&tmp, to),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }

    fn get_bytes(&self, key: &str) -> io::Result<Vec<u8>> {
        let bytes =
            self.call(&self.store_client, key, |client, path| async move { client.get(&path).await?.bytes().await })?;
        self.counters.read(bytes.len());
        Ok(bytes.to_vec())
    }

    fn size(&self, key: &str) -> io::Result<Option<u64>> {
        match self.call(&self.store_client, key, |client, path| async move { client.head(&path).await }) {
            Ok(meta) => Ok(Some(meta.size)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        let target = self.path(to)?;
        // A copy on the server, then a delete of the source.
        self.call(&self.store_client, from, move |client, path| async move { client.rename(&path, &target).await })
    }

    fn delete(&self, key: &str) -> io::Result<()> {
        match self.call(&self.store_client, key, |client, path| async move { client.delete(&path).await }) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn list(&self, prefix: &str) -> io::Result<Vec<String>> {
        let strip = if self.prefix.is_empty() { String::new() } else { format!("{}/", self.prefix) };
        let mut keys: Vec<String> = self
            .call(&self.store_client, prefix, |client, path| async move {
                client
                    .list(Some(&path))
                    .map(|meta| meta.map(|m| m.location.to_string()))
                    .collect::<Vec<_>>()
                    .await
                    .into_iter()
                    .collect::<object_store::Result<Vec<String>>>()
            })?
            .into_iter()
            .filter_map(|full| full.strip_prefix(&strip).map(str::to_string))
            .collect();
        keys.sort();
        Ok(keys)
    }
}

/// Reads until `buf` is full or the file ends; the bytes read.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

impl Location for Bucket {
    fn describe(&self) -> String {
        self.url_string()
    }

    fn name_of(&self, key: &str) -> String {
        self.name(key)
    }

    fn open(&self, key: &str) -> io::Result<Box<dyn ByteSource>> {
        self.path(key)?;
        Ok(Box::new(BucketObject {
            bucket: self.clone(),
            key: key.into(),
            name: self.name(key),
            len: OnceLock::new(),
            windows: std::sync::Mutex::new(Vec::new()),
        }))
    }
}

/// One object, read by ranges. Its length is asked for (one HEAD request)
/// only when needed. Small reads go through windows ([`SMALL_READ`]).
struct BucketObject {
    bucket: Bucket,
    key: String,
    name: String,
    len: OnceLock<u64>,
    /// Recently fetched windows, `(offset, bytes)`, the newest last.
    windows: std::sync::Mutex<Vec<(u64, Bytes)>>,
}

impl BucketObject {
    /// Fills `buf` from a kept window if one holds it all.
    fn read_window(&self, at: u64, buf: &mut [u8]) -> bool {
        let windows = self.windows.lock().unwrap();
        let found = windows
            .iter()
            .rev()
            .find(|(start, bytes)| at >= *start && at + buf.len() as u64 <= start + bytes.len() as u64);
        if let Some((start, bytes)) = found {
            let from = (at - start) as usize;
            buf.copy_from_slice(&bytes[from..from + buf.len()]);
        }
        found.is_some()
    }

    /// Fetches the window around a small read at `at` (clamped to the object).
    fn fetch_window(&self, at: u64, len: usize) -> io::Result<()> {
        let size = self.len()?;
        let start = at / WINDOW_BYTES * WINDOW_BYTES;
        let end = ((at + len as u64).div_ceil(WINDOW_BYTES) * WINDOW_BYTES).min(size);
        if at + len as u64 > size {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("{}: {len} bytes at {at} asked, the object has {size}", self.name),
            ));
        }
        let bytes = self.bucket.call(&self.bucket.client, &self.key, move |client, path| async move {
            client.get_range(&path, start..end).await
        })?;
        self.bucket.counters.read(bytes.len());
        let mut windows = self.windows.lock().unwrap();
        if windows.len() == WINDOWS_KEPT {
            windows.remove(0);
        }
        windows.push((start, bytes));
        Ok(())
    }
}

impl ByteSource for BucketObject {
    fn name(&self) -> &str {
        &self.name
    }

    fn len(&self) -> io::Result<u64> {
        if let Some(len) = self.len.get() {
            return Ok(*len);
        }
        let len = self
            .bucket
            .size(&self.key)?
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{}: no such object", self.name)))?;
        Ok(*self.len.get_or_init(|| len))
    }

    fn read_ranges(&self, ranges: &mut [(u64, &mut [u8])]) -> io::Result<()> {
        if let [(at, buf)] = ranges {
            if buf.len() <= SMALL_READ {
                if !self.read_window(*at, buf) {
                    self.fetch_window(*at, buf.len())?;
                    assert!(self.read_window(*at, buf), "a window just fetched holds the read");
                }
                return Ok(());
            }
        }
        let wanted: Vec<std::ops::Range<u64>> = ranges.iter().map(|(at, buf)| *at..*at + buf.len() as u64).collect();
        if wanted.iter().all(|r| r.is_empty()) {
            return Ok(());
        }
        // One call; the client merges nearby ranges and fetches the rest concurrently.
        let got = self.bucket.call(&self.bucket.client, &self.key, move |client, path| async move {
            client.get_ranges(&path, &wanted).await
        })?;
        for ((at, buf), bytes) in ranges.iter_mut().zip(got) {
            if bytes.len() != buf.len() {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("{}: {} bytes at {at} asked, {} read", self.name, buf.len(), bytes.len()),
                ));
            }
            self.bucket.counters.read(bytes.len());
            buf.copy_from_slice(&bytes);
        }
        Ok(())
    }

    fn read_all(&self) -> io::Result<Vec<u8>> {
        // One GET, no HEAD first.
        let bytes = self.bucket.get_bytes(&self.key)?;
        let _ = self.len.set(bytes.len() as u64);
        Ok(bytes)
    }
}
