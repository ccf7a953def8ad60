//! Probe latency over random positions of one Fox Game tablebase (issue
//! 26's targets; the measurement is `foxbase-bench`'s, `src/latency.rs`):
//! prints one JSON object with p50 and p99 of a cold and a warm pass in
//! microseconds, and exits 1 unless cold p99 <= 1,000 µs and warm p99 <= 20 µs.
//! `foxbase-bench --published` measures the same beside the sizes.
//!
//! Run: `cargo run --release -p foxbase-benches --example probe_latency -- DIR [N]`

#[path = "../src/latency.rs"]
mod latency;

use foxbase_tables::manifest::Manifest;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(1).expect("usage: probe_latency DIR [N]"));
    let n: usize = args.get(2).map_or(10_000, |s| s.parse().expect("N: a number"));
    let layout = Manifest::read(dir).unwrap().layout;
    let measured = latency::measure(dir, n);
    let mut view = measured.to_json();
    view["dir"] = dir.display().to_string().into();
    view["layout"] = layout.name().into();
    view["targets_met"] = measured.met().into();
    println!("{view}");
    std::process::exit(if measured.met() { 0 } else { 1 });
}
