//! Table locations on the command line: a directory or `s3://BUCKET/PREFIX`
//! ([`foxbase_objstore::StoreUrl`]). Probing reads a bucket by byte ranges;
//! verifying and publishing, which read every byte anyway, work on a local
//! copy (downloaded, or staged and then uploaded with `manifest.json` last).

use crate::command::{CommandResult, Failure};
use foxbase_core::game::GameKind;
use foxbase_objstore::{Bucket, StoreUrl};
use foxbase_tables::checksums::SUMS_FILE;
use foxbase_tables::index::{TierIndex, INDEX_FILE};
use foxbase_tables::manifest::{Manifest, MANIFEST_FILE};
use foxbase_tables::seal::SealRun;
use foxbase_tables::source::Location;
use foxbase_tables::FoxTables;
use foxbase_tables::Tablebase;
use foxbase_tables::TierTables;
use foxbase_worker::games::{with_game, GameVisitor};
use foxbase_worker::kernel::SolveTier;
use foxbase_worker::retry::{RetryPolicy, RetryingStore};
use foxbase_worker::store::Store;
use std::path::{Path, PathBuf};

/// Parses the location given to `flag`.
pub fn parse(flag: &str, arg: &str) -> Result<StoreUrl, Failure> {
    StoreUrl::parse(arg).map_err(|e| Failure::bad_input(format!("{flag}: {e}")))
}

/// The bucket of a bucket location. Makes no request: its first one (a
/// check of `manifest.json`, [`require_manifest`], [`require_empty`], or
/// [`Bucket::check_access`] before a solve writes) fails for wrong
/// credentials, naming the bucket.
pub fn bucket(flag: &str, bucket: &str, prefix: &str) -> Result<Bucket, Failure> {
    Bucket::open(bucket, prefix).map_err(|e| Failure::bad_input(format!("{flag}: {e}")))
}

/// The bucket as a store whose transient failures (a server that restarts
/// or answers 503 for a while) are retried with backoff for up to ten
/// minutes, each first failure and its recovery told on stderr
/// ([`foxbase_worker::retry`]).
pub fn retrying(bucket: &Bucket) -> RetryingStore {
    RetryingStore::new(
        Box::new(bucket.clone()),
        RetryPolicy::giving_up_after(std::time::Duration::from_secs(600)),
        Default::default(),
        std::sync::Arc::new(|line: &str| eprintln!("foxbase: {line}")),
    )
}

/// Opens the tablebase at `arg` for probing.
pub fn open_tables(flag: &str, arg: &str) -> Result<FoxTables, Failure> {
    let location: Box<dyn Location> = match parse(flag, arg)? {
        StoreUrl::Dir(dir) => return FoxTables::open(&dir).map_err(Failure::bad_input),
        StoreUrl::Bucket { bucket: b, prefix } => Box::new(bucket(flag, &b, &prefix)?),
    };
    require_manifest(flag, location.as_ref())?;
    FoxTables::open_at(location).map_err(Failure::bad_input)
}

/// Code generic over the tablebase a command reads, run by [`with_tables`].
pub trait TablesVisitor {
    fn visit<T: Tablebase + 'static>(self, tables: T) -> CommandResult;
}

/// Opens the tablebase at `arg` (a directory or a bucket) with the one
/// reader, [`TierTables`], of its game (the game from its tier index,
/// [`game_in`], built by the registry, [`with_game`]) and runs `visitor`
/// on it.
pub fn with_tables(flag: &str, arg: &str, visitor: impl TablesVisitor) -> CommandResult {
    with_tables_keeping(flag, arg, None, visitor)
}

/// [`with_tables`] keeping about `read_cache_bytes` of decompressed tables
/// for single values (the default when `None`).
pub fn with_tables_keeping(
    flag: &str,
    arg: &str,
    read_cache_bytes: Option<u64>,
    visitor: impl TablesVisitor,
) -> CommandResult {
    let location = open_location(flag, arg)?;
    let kind = game_in(flag, location.as_ref())?;
    let summary = TierIndex::open(location.as_ref()).map_err(Failure::bad_input)?.summary;
    struct Open<V>(Box<dyn Location>, Option<u64>, V);
    impl<V: TablesVisitor> GameVisitor for Open<V> {
        type Output = CommandResult;
        fn visit<G: SolveTier + SealRun + foxbase_tables::publish::Publishable + 'static>(
            self,
            game: G,
        ) -> CommandResult {
            let Open(location, read_cache_bytes, visitor) = self;
            let tables = TierTables::open_game_at(game, location).map_err(Failure::bad_input)?;
            visitor.visit(match read_cache_bytes {
                Some(bytes) => tables.with_read_cache_bytes(bytes),
                None => tables,
            })
        }
    }
    with_game(kind, &summary.variant, Open(location, read_cache_bytes, visitor)).map_err(Failure::bad_input)?
}

/// The tablebase at `arg` as a [`Location`] to read by byte ranges (a
/// bucket's checked for its `manifest.json` first).
pub fn open_location(flag: &str, arg: &str) -> Result<Box<dyn Location>, Failure> {
    match parse(flag, arg)? {
        StoreUrl::Dir(dir) => Ok(Box::new(foxbase_tables::source::DirLocation::new(&dir))),
        StoreUrl::Bucket { bucket: b, prefix } => {
            let b = bucket(flag, &b, &prefix)?;
            require_manifest(flag, &b)?;
            Ok(Box::new(b))
        }
    }
}

/// The game of the tablebase at `location`, from its tier index's summary
/// (a few hundred bytes, where the manifest of the full game is tens of
/// MB); from the manifest where there is no tier index (a tablebase
/// written before tier indexes).
pub fn game_in(flag: &str, location: &dyn Location) -> Result<GameKind, Failure> {
    use foxbase_tables::error::ErrorKind;
    let name = match TierIndex::open(location) {
        Ok(index) => index.summary.game,
        Err(e) if matches!(&e.kind, ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound) => {
            Manifest::read_from(location).map_err(Failure::bad_input)?.game
        }
        Err(e) => return Err(Failure::bad_input(e)),
    };
    name.parse().map_err(|e| Failure::bad_input(format!("{flag} {}: {e}", location.describe())))
}

/// Fails with a clear message when a bucket holds no `manifest.json`: the
/// manifest is written last, so without it the tablebase is incomplete.
fn require_manifest(flag: &str, location: &dyn Location) -> Result<(), Failure> {
    match location.open(MANIFEST_FILE).and_then(|s| s.len()) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Failure::bad_input(format!(
            "{flag} {}: no {MANIFEST_FILE}: not a tablebase, or an incomplete one (a solve or publish writes the manifest last)",
            location.describe()
        ))),
        Err(e) => Err(Failure::failed(format!("{flag}: {e}"))),
    }
}

/// A local directory that is removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(what: &str) -> Result<Scratch, Failure> {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!("foxbase-{what}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Failure::failed(format!("{}: {e}", dir.display())))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A directory holding the tablebase at `arg`: the directory itself, or a
/// temporary copy of a bucket's (removed when the [`Scratch`] is dropped).
pub fn local_copy(flag: &str, arg: &str, what: &str) -> Result<(PathBuf, Option<Scratch>), Failure> {
    match parse(flag, arg)? {
        StoreUrl::Dir(dir) => Ok((dir, None)),
        StoreUrl::Bucket { bucket: b, prefix } => {
            let scratch = Scratch::new(what)?;
            download(flag, &bucket(flag, &b, &prefix)?, &scratch.0)?;
            Ok((scratch.0.clone(), Some(scratch)))
        }
    }
}

/// Copies the tablebase in `bucket` (its manifest, tier index, every
/// file the manifest lists and its checksum list, if any) into the directory `to`.
pub fn download(flag: &str, bucket: &Bucket, to: &Path) -> Result<(), Failure> {
    require_manifest(flag, bucket)?;
    let manifest = Manifest::read_from(bucket).map_err(Failure::bad_input)?;
    let mut keys = vec![INDEX_FILE.to_string()];
    for t in &manifest.tiers {
        keys.push(t.file.clone());
        keys.extend(t.plies.as_ref().map(|p| p.file.clone()));
    }
    // A published tablebase's checksum list, where it has one.
    if bucket.size(SUMS_FILE).map_err(|e| Failure::failed(e.to_string()))?.is_some() {
        keys.push(SUMS_FILE.to_string());
    }
    keys.push(MANIFEST_FILE.to_string());
    let store = retrying(bucket);
    for key in keys {
        let at = foxbase_tables::source::key_path(to, &key).map_err(|e| Failure::bad_input(format!("{key}: {e}")))?;
        store.get_file(&key, &at).map_err(|e| Failure::failed(e.to_string()))?;
    }
    Ok(())
}

/// Uploads the tablebase in the directory `from` into `bucket`: every file
/// the manifest lists, the tier index, the checksum list if any, and `manifest.json` last, so that a
/// reader never finds a manifest whose files are not all there.
pub fn upload(from: &Path, bucket: &Bucket) -> Result<(), Failure> {
    let manifest = Manifest::read(from).map_err(Failure::failed)?;
    let mut keys = Vec::new();
    for t in &manifest.tiers {
        keys.extend(t.plies.as_ref().map(|p| p.file.clone()));
        keys.push(t.file.clone());
    }
    keys.push(INDEX_FILE.to_string());
    if from.join(SUMS_FILE).exists() {
        keys.push(SUMS_FILE.to_string());
    }
    keys.push(MANIFEST_FILE.to_string());
    let store = retrying(bucket);
    for key in keys {
        store.put_file(&key, &from.join(&key)).map_err(|e| Failure::failed(e.to_string()))?;
    }
    Ok(())
}

/// Fails unless `bucket` holds no tablebase yet (no manifest, no tables).
pub fn require_empty(flag: &str, bucket: &Bucket) -> Result<(), Failure> {
    let found = bucket.size(MANIFEST_FILE).map_err(|e| Failure::failed(e.to_string()))?.is_some()
        || !bucket.list("tiers").map_err(|e| Failure::failed(e.to_string()))?.is_empty();
    if found {
        return Err(Failure::bad_input(format!("{flag} {}: holds a tablebase already", bucket.url_string())));
    }
    Ok(())
}
