//! Cold probes of a tablebase in a bucket: for each of N positions (random
//! walks from the start), a fresh bucket handle and table reader value the
//! position, as `foxbase probe --tables s3://...` does in a new process; it
//! prints the requests, bytes read and wall time of each probe and their
//! medians. Credentials and endpoint from the AWS_* variables.
//!
//! `cargo run --release -p foxbase-benches --example bucket_probe -- s3://BUCKET/PREFIX [N]`

use foxbase_core::notation::format_position;
use foxbase_core::tier::TierGame;
use foxbase_objstore::{Bucket, StoreUrl};
use foxbase_tables::engine::SplitMix64;
use foxbase_tables::FoxTables;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: bucket_probe s3://BUCKET/PREFIX [N]";
    let url = args.get(1).expect(usage);
    let n: usize = args.get(2).map_or(20, |s| s.parse().expect(usage));
    let StoreUrl::Bucket { bucket, prefix } = StoreUrl::parse(url).expect(usage) else { panic!("{usage}") };
    let open = || {
        let b = Bucket::open(&bucket, &prefix).unwrap();
        (FoxTables::open_at(Box::new(b.clone())).unwrap(), b)
    };
    let (tables, _) = open();
    let game = foxbase_core::foxgame::FoxGame::new(tables.game.variant);
    let mut rng = SplitMix64(7);
    let mut rows = Vec::new();
    while rows.len() < n {
        // A random walk of up to 40 plies from the start.
        let mut pos = game.variant.start;
        for _ in 0..rng.next() % 41 {
            let moves = game.rules.moves(&pos);
            if moves.is_empty() || game.primitive(&pos).is_some() {
                break;
            }
            pos = game.rules.play(&pos, moves[(rng.next() % moves.len() as u64) as usize]);
        }
        let started = Instant::now();
        let (tables, bucket) = open();
        let value = tables.value(&pos).unwrap();
        let seconds = started.elapsed().as_secs_f64();
        let t = bucket.traffic();
        println!(
            "{}  {value:4}  {} requests  {} bytes  {:.1} ms",
            format_position(&pos),
            t.requests,
            t.bytes_read,
            seconds * 1e3
        );
        rows.push((t.requests, t.bytes_read, seconds));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    println!(
        "{n} cold probes: median {} requests, {} bytes, {:.1} ms; most {} requests, {} bytes",
        median(rows.iter().map(|r| r.0 as f64).collect()),
        median(rows.iter().map(|r| r.1 as f64).collect()),
        median(rows.iter().map(|r| r.2).collect()) * 1e3,
        rows.iter().map(|r| r.0).max().unwrap(),
        rows.iter().map(|r| r.1).max().unwrap()
    );
}
