//! `foxbase-bench`: measurements, not tests.
//!
//! - default: the kernel benchmark ([`kernels`]): on two foxes against six
//!   sheep, the sweep, the counter kernel and the plane kernel with 1 and 2
//!   threads, checked against the kernel targets (exit status 1 when one is
//!   missed);
//! - `--reference mid|readme`: the tiered solver against the reference
//!   solver ([`reference`]);
//! - `--compression DIR`: the tables of a solved directory re-encoded with
//!   other block sizes and zstd levels ([`compression`]).
//! - `--crowded`: the plane kernel on real 20-sheep tiers (values, DTZ and
//!   the initial pass alone), with `--threads` kernel threads, and with
//!   `--largest-from DIR` the 20-sheep game's largest tier ([`crowded`]);
//! - `--published [DIR ...]`: bits per position and probe latencies of
//!   published tablebases, or of the README's main job, against the size and
//!   latency targets ([`published`]; exit status 1 when one is missed).
//!
//! Run: `cargo run --release -p foxbase-benches -- [--json] [--threads-list 1,2]`

use clap::Parser;
use std::path::PathBuf;

mod compression;
mod crowded;
mod kernels;
mod latency;
mod published;
mod reference;

#[derive(Parser)]
#[command(about = "Benchmark the solver: kernels against each other, the tiered solver against the reference solver")]
struct Args {
    /// Print one JSON object per line (each run, then a summary per thread count).
    #[arg(long)]
    json: bool,
    /// Thread counts of the kernel benchmark, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    threads_list: Vec<usize>,
    /// Instead: compare the tiered solver with the reference solver on this variant.
    #[arg(long, value_enum)]
    reference: Option<reference::Which>,
    /// Kernel threads per worker (with --reference or --crowded; and of one internal run).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// In-process workers for the tiered solver (with --reference).
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Instead: measure compression of the tables in this solved directory.
    #[arg(long)]
    compression: Option<PathBuf>,
    /// zstd levels measured with --compression, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "3,9,19")]
    levels: Vec<i32>,
    /// Block sizes (slots) measured with --compression, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "16384,65536,262144,1048576")]
    block_slots: Vec<u32>,
    /// Instead: bits per position and probe latencies of these published (or solved, then
    /// published) Fox Game tablebases against the targets (0.1 bit per position for
    /// values, 0.3 for distances, cold probe p99 1 ms, warm 20 µs); without DIR, of the
    /// README's main job, solved with distances to zeroing and published.
    #[arg(long, num_args = 0.., value_name = "DIR")]
    published: Option<Vec<PathBuf>>,
    /// Instead: the plane kernel on crowded tiers (1,226 tiers of 20 sheep, 687 M slots) with
    /// --threads kernel threads: values, DTZ and the initial pass alone, in slots per core-second.
    #[arg(long)]
    crowded: bool,
    /// With --crowded: also solve and sweep the largest tier of the 20-sheep game under F = 20
    /// (f2-2.2.4.4.4.2.2, 271 M slots), its children read from DIR, a finished solve of that game
    /// (`foxbase solve --start 'F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f' --pen-target 9
    /// --sheep-floor 20 --no-distance --out DIR`); the table must equal DIR's.
    #[arg(long, value_name = "DIR", requires = "crowded")]
    largest_from: Option<PathBuf>,
    /// Internal: run one crowded-tier run in this process and print its JSON.
    #[arg(long, hide = true)]
    crowded_phase: Option<String>,
    /// Positions probed per tablebase with --published.
    #[arg(long, default_value_t = 10_000)]
    positions: usize,
    /// Internal: run one phase in this process and print its JSON.
    #[arg(long, hide = true)]
    phase: Option<String>,
    /// Internal: where a run writes its tables.
    #[arg(long, hide = true)]
    out: Option<PathBuf>,
    /// Internal: the tables a sweep reads.
    #[arg(long, hide = true)]
    children: Option<PathBuf>,
}

fn main() {
    let args = Args::parse();
    foxbase_tables::fox_tables::install_fox_side_deriver(&foxbase_worker::plane_kernel::PlaneFoxSide);
    foxbase_tables::fox_tables::install_fox_tier_check(&foxbase_worker::plane_kernel::PlaneCheck);
    if let Some(dir) = &args.compression {
        let report = compression::measure(dir, &args.block_slots, &args.levels);
        println!("{}", serde_json::to_string_pretty(&report).unwrap());
        return;
    }
    if let Some(dirs) = &args.published {
        if args.positions == 0 {
            eprintln!("foxbase-bench: --positions must be at least 1");
            std::process::exit(2);
        }
        let met = published::run(dirs, args.positions, args.json).unwrap_or_else(|e| {
            eprintln!("foxbase-bench: --published {e}");
            std::process::exit(2);
        });
        if !met {
            eprintln!(
                "foxbase-bench: a published-tablebase target was missed (0.1 bit per position for values, 0.3 for distances, cold probe p99 1 ms, warm 20 µs)"
            );
            std::process::exit(1);
        }
        return;
    }
    if let Some(run) = &args.crowded_phase {
        println!("{}", crowded::run_one(run, args.threads, args.out.as_deref().unwrap(), args.children.as_deref()));
        return;
    }
    if args.crowded {
        if args.threads == 0 {
            eprintln!("foxbase-bench: --threads must be at least 1");
            std::process::exit(2);
        }
        if let Some(dir) = &args.largest_from {
            if let Err(e) = crowded::largest_in(dir) {
                eprintln!("foxbase-bench: --largest-from {e}");
                std::process::exit(2);
            }
        }
        if !crowded::run(args.threads, args.json, args.largest_from.as_deref()) {
            eprintln!(
                "foxbase-bench: the crowded DTZ run's tables differ from the values run's, or the largest tier's from --largest-from's"
            );
            std::process::exit(1);
        }
        return;
    }
    if let Some(phase) = &args.phase {
        let json = match args.reference {
            Some(which) => reference::run_phase(phase, &reference::variant(which), args.threads, args.workers),
            None => kernels::run_one(phase, args.threads, args.out.as_deref().unwrap(), args.children.as_deref()),
        };
        println!("{json}");
        return;
    }
    if let Some(which) = args.reference {
        reference::run(which, args.threads, args.workers);
        return;
    }
    if args.threads_list.is_empty() || args.threads_list.contains(&0) {
        eprintln!("foxbase-bench: --threads-list takes thread counts of at least 1");
        std::process::exit(2);
    }
    let missed = kernels::run(&args.threads_list, args.json);
    if !missed.is_empty() {
        for target in &missed {
            eprintln!("foxbase-bench: a kernel target was missed: {target}");
        }
        std::process::exit(1);
    }
}
