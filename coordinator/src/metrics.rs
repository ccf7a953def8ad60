//! Prometheus metrics of the coordinator and the worker: the text
//! exposition format (version 0.0.4) and a small HTTP server that answers
//! `GET /metrics` with it (`--metrics-listen ADDR`).
//!
//! The coordinator's metrics are read from its run state at each scrape
//! ([`coordinator_metrics`]); a worker counts what its link reports
//! ([`WorkerMetrics`], [`MeteredLink`]).

use foxbase_worker::kernel::Phases;
use foxbase_worker::protocol::{Accepted, Completion, LeaseAnswer, Link, LinkError, Registration, RunStatus};
use foxbase_worker::retry::RetryCount;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Metrics in the Prometheus text format, built one family at a time.
#[derive(Default)]
pub struct Exposition {
    text: String,
}

/// A metric family's kind.
#[derive(Clone, Copy)]
pub enum Kind {
    Counter,
    Gauge,
}

impl Exposition {
    /// Adds the family `name` with one sample per `(labels, value)`.
    pub fn family(&mut self, name: &str, kind: Kind, help: &str, samples: &[(&[(&str, &str)], f64)]) -> &mut Self {
        use std::fmt::Write as _;
        let kind = match kind {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
        };
        let _ = writeln!(self.text, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (labels, value) in samples {
            let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{}\"", escape(v))).collect();
            let labels = if labels.is_empty() { String::new() } else { format!("{{{}}}", labels.join(",")) };
            let _ = writeln!(self.text, "{name}{labels} {value}");
        }
        self
    }

    /// Adds a family with a single unlabelled sample.
    pub fn single(&mut self, name: &str, kind: Kind, help: &str, value: f64) -> &mut Self {
        self.family(name, kind, help, &[(&[], value)])
    }

    pub fn text(self) -> String {
        self.text
    }
}

/// A label value with `\`, `"` and newlines escaped.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The coordinator's metrics from its status and the bytes it accepted into the store.
pub fn coordinator_metrics(
    status: &RunStatus,
    active_workers: usize,
    store_bytes_written: u64,
    store_retries: u64,
) -> String {
    let mut e = Exposition::default();
    let (done, running, pending) = (status.tiers_done as f64, status.tiers_running as f64, status.tiers_pending as f64);
    e.family(
        "foxbase_tiers",
        Kind::Gauge,
        "Tiers of the run by state (done includes tiers resumed from the journal).",
        &[(&[("state", "done")], done), (&[("state", "running")], running), (&[("state", "pending")], pending)],
    )
    .single(
        "foxbase_slots_solved_total",
        Kind::Counter,
        "Positions (slots) of the tiers finished, including those resumed from the journal.",
        status.slots_done as f64,
    )
    .single("foxbase_slots", Kind::Gauge, "Positions (slots) of the whole run.", status.slots_total as f64)
    .single("foxbase_leases_issued_total", Kind::Counter, "Leases handed to workers.", status.leases_issued as f64)
    .single(
        "foxbase_leases_expired_total",
        Kind::Counter,
        "Leases that ran out without a heartbeat; their tiers went back to the queue.",
        status.leases_expired as f64,
    )
    .single(
        "foxbase_completions_rejected_total",
        Kind::Counter,
        "Completions refused (bad upload, conflict, unknown tier).",
        status.completions_rejected as f64,
    )
    .single("foxbase_workers", Kind::Gauge, "Workers heard from within two lease periods.", active_workers as f64)
    .single(
        "foxbase_store_bytes_written_total",
        Kind::Counter,
        "Bytes of tables and plies files accepted into the store by this coordinator.",
        store_bytes_written as f64,
    )
    .single(
        "foxbase_retries_total",
        Kind::Counter,
        "Retries of failed operations on the store (checks, renames, the journal, the manifest).",
        store_retries as f64,
    )
    .single(
        "foxbase_finished",
        Kind::Gauge,
        "1 once every tier is solved.",
        if status.finished { 1.0 } else { 0.0 },
    );
    e.text()
}

/// What a worker has done, for its `/metrics`.
#[derive(Default)]
pub struct WorkerMetrics {
    tiers: AtomicU64,
    slots: AtomicU64,
    bytes_uploaded: AtomicU64,
    leases: AtomicU64,
    phases: Mutex<Phases>,
    /// Retries of store operations and of writes to a full disk ([`foxbase_worker::retry`]).
    pub store_retries: Arc<RetryCount>,
}

impl WorkerMetrics {
    /// Counts a completion the coordinator accepted.
    pub fn completed(&self, completion: &Completion) {
        let report = &completion.report;
        self.tiers.fetch_add(1, Ordering::Relaxed);
        self.slots.fetch_add(report.stats.slots, Ordering::Relaxed);
        let bytes = report.bytes + report.plies.map_or(0, |p| p.bytes);
        self.bytes_uploaded.fetch_add(bytes, Ordering::Relaxed);
        *self.phases.lock().unwrap() += report.phases;
    }

    pub fn render(&self) -> String {
        let p = *self.phases.lock().unwrap();
        let mut e = Exposition::default();
        e.single(
            "foxbase_worker_tiers_solved_total",
            Kind::Counter,
            "Tiers this worker solved and the coordinator accepted.",
            self.tiers.load(Ordering::Relaxed) as f64,
        )
        .single(
            "foxbase_worker_slots_solved_total",
            Kind::Counter,
            "Positions (slots) of those tiers.",
            self.slots.load(Ordering::Relaxed) as f64,
        )
        .single(
            "foxbase_worker_leases_total",
            Kind::Counter,
            "Leases this worker was given.",
            self.leases.load(Ordering::Relaxed) as f64,
        )
        .single(
            "foxbase_store_bytes_written_total",
            Kind::Counter,
            "Bytes of tables and plies files this worker uploaded for accepted tiers.",
            self.bytes_uploaded.load(Ordering::Relaxed) as f64,
        )
        .single(
            "foxbase_retries_total",
            Kind::Counter,
            "Retries of failed store operations (fetches, uploads), of calls to an unavailable coordinator and of tables written to a full disk.",
            self.store_retries.get() as f64,
        )
        .family(
            "foxbase_worker_phase_seconds_total",
            Kind::Counter,
            "Seconds spent in each phase of solving a tier.",
            &[
                (&[("phase", "load")], p.load),
                (&[("phase", "init")], p.init),
                (&[("phase", "propagate")], p.propagate),
                (&[("phase", "pack")], p.pack),
                (&[("phase", "write")], p.write),
            ],
        );
        e.text()
    }
}

/// A link that counts what passes through it into [`WorkerMetrics`].
pub struct MeteredLink<'a> {
    pub inner: &'a dyn Link,
    pub metrics: Arc<WorkerMetrics>,
}

impl Link for MeteredLink<'_> {
    fn register(&self, worker_name: &str, threads: u32) -> Result<Registration, LinkError> {
        self.inner.register(worker_name, threads)
    }

    fn lease(&self, worker_id: &str) -> Result<LeaseAnswer, LinkError> {
        let answer = self.inner.lease(worker_id)?;
        if matches!(answer, LeaseAnswer::Assigned(_)) {
            self.metrics.leases.fetch_add(1, Ordering::Relaxed);
        }
        Ok(answer)
    }

    fn heartbeat(&self, worker_id: &str, lease_id: u64) -> Result<bool, LinkError> {
        self.inner.heartbeat(worker_id, lease_id)
    }

    fn release(&self, worker_id: &str, lease_id: u64) -> Result<(), LinkError> {
        self.inner.release(worker_id, lease_id)
    }

    fn complete(&self, completion: &Completion) -> Result<Accepted, LinkError> {
        let accepted = self.inner.complete(completion)?;
        if !accepted.duplicate {
            self.metrics.completed(completion);
        }
        Ok(accepted)
    }
}

/// Serves `GET /metrics` on `addr` with what `render` returns at each
/// request, on a thread of its own, for as long as the process runs.
/// Returns the address bound (port 0 picks a free one).
pub fn serve_metrics(addr: SocketAddr, render: Arc<dyn Fn() -> String + Send + Sync>) -> io::Result<SocketAddr> {
    let listener = TcpListener::bind(addr)?;
    let bound = listener.local_addr()?;
    std::thread::Builder::new().name("foxbase-metrics".into()).spawn(move || {
        for stream in listener.incoming().flatten() {
            // One scrape at a time: a scraper asks every few seconds.
            let _ = answer(stream, render.as_ref());
        }
    })?;
    Ok(bound)
}

/// Answers one HTTP/1.1 request and closes the connection.
fn answer(stream: TcpStream, render: &dyn Fn() -> String) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.by_ref().take(8192).read_line(&mut request)?;
    // The headers are read and ignored (up to the blank line, bounded).
    let mut line = String::new();
    for _ in 0..100 {
        line.clear();
        if reader.by_ref().take(8192).read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut parts = request.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (status, kind, body) = match (method, path.split('?').next().unwrap_or("")) {
        ("GET", "/metrics") => ("200 OK", "text/plain; version=0.0.4; charset=utf-8", render()),
        ("GET", _) => ("404 Not Found", "text/plain; charset=utf-8", "metrics are at /metrics\n".to_string()),
        _ => ("405 Method Not Allowed", "text/plain; charset=utf-8", "GET /metrics only\n".to_string()),
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

use std::io::Read as _;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_format_has_help_type_and_escaped_labels() {
        let mut e = Exposition::default();
        e.family("x_total", Kind::Counter, "Things.", &[(&[("a", "q\"b\\")], 2.0), (&[], 0.5)]);
        assert_eq!(
            e.text(),
            "# HELP x_total Things.\n# TYPE x_total counter\nx_total{a=\"q\\\"b\\\\\"} 2\nx_total 0.5\n"
        );
    }

    #[test]
    fn the_server_answers_metrics_and_refuses_other_paths() {
        let addr = serve_metrics("127.0.0.1:0".parse().unwrap(), Arc::new(|| "m 1\n".to_string())).unwrap();
        let get = |request: &str| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(request.as_bytes()).unwrap();
            let mut reply = String::new();
            s.read_to_string(&mut reply).unwrap();
            reply
        };
        let ok = get("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.contains("text/plain; version=0.0.4") && ok.ends_with("\r\n\r\nm 1\n"), "{ok}");
        assert!(get("GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get("POST /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
    }
}
