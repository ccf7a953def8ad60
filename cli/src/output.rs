//! Where output goes: one line of text or one JSON object at a time on
//! standard output (a closed pipe becomes [`Failure::ClosedOutput`] instead
//! of a panic), and progress on standard error: a bar on a terminal, plain
//! lines otherwise, nothing with `--json`.

use crate::command::Failure;
use foxbase_worker::job::TierReport;
use foxbase_worker::kernel::Phases;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Writes one line to standard output.
pub fn line(text: impl std::fmt::Display) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// Writes text that holds its own line ends (a board picture).
pub fn text(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes one JSON object on one line.
pub fn json(value: &serde_json::Value) -> Result<(), Failure> {
    line(value)
}

/// A bar counting tiers on standard error, when it is a terminal and the
/// output is not JSON.
pub struct TierBar(Option<ProgressBar>);

impl TierBar {
    pub fn new(json: bool) -> TierBar {
        TierBar((!json && std::io::stderr().is_terminal()).then(|| ProgressBar::new(0)))
    }

    /// Progress: `done` of `total` tiers.
    pub fn set(&self, done: usize, total: usize) {
        if let Some(b) = &self.0 {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// A solve's progress on standard error: a bar of positions on a terminal
/// (not with `--json`), plain log lines (at most one per 5 s) otherwise.
pub struct SolveProgress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Mutex<Instant>,
    tiers: Mutex<usize>,
    /// Slots finished before a resumed run started (not counted in its rate).
    resumed_slots: Mutex<u64>,
    phases: Mutex<Phases>,
}

impl SolveProgress {
    pub fn new(json: bool) -> SolveProgress {
        let bar = (!json && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:30}] {human_pos}/{human_len} positions, {per_sec}, ETA {eta}",
                )
                .unwrap()
                .progress_chars("=> "),
            );
            bar
        });
        SolveProgress {
            bar,
            started: Instant::now(),
            last_line: Mutex::new(Instant::now()),
            tiers: Mutex::new(0),
            resumed_slots: Mutex::new(0),
            phases: Mutex::new(Phases::default()),
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// One line on standard error (above the bar on a terminal).
    pub fn note(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(format!("foxbase: {text}")),
            None => eprintln!("foxbase: {text}"),
        }
    }

    /// Phase seconds summed over the tiers solved so far.
    pub fn phases(&self) -> Phases {
        *self.phases.lock().unwrap()
    }
}

/// Phase seconds as a JSON object.
pub fn phases_json(p: &Phases) -> serde_json::Value {
    serde_json::json!({"load": p.load, "init": p.init, "propagate": p.propagate, "pack": p.pack, "write": p.write})
}

impl foxbase_coordinator::local::Progress for SolveProgress {
    fn planned(&self, tiers: usize, slots: u64) {
        *self.tiers.lock().unwrap() = tiers;
        match &self.bar {
            Some(bar) => {
                bar.set_length(slots);
                bar.set_message(format!("tiers 0/{tiers}"));
            }
            None => eprintln!("foxbase: planned {tiers} tiers, {slots} positions"),
        }
    }

    fn resumed(&self, tiers_done: usize, slots_done: u64) {
        *self.resumed_slots.lock().unwrap() = slots_done;
        let tiers = *self.tiers.lock().unwrap();
        if let Some(bar) = &self.bar {
            bar.set_position(slots_done);
            bar.set_message(format!("tiers {tiers_done}/{tiers}"));
            bar.reset_eta();
        }
        self.note(&format!(
            "resuming: {tiers_done} of {tiers} tiers ({slots_done} positions) were finished before; {} left to solve",
            tiers - tiers_done
        ));
    }

    fn imported(&self, tiers: usize, slots: u64, finished: bool) {
        let before = *self.resumed_slots.lock().unwrap();
        if let Some(bar) = &self.bar {
            bar.set_position(before + slots);
        }
        if finished {
            // Not solved by this run: left out of its rate, like a resume's tiers.
            *self.resumed_slots.lock().unwrap() = before + slots;
            if let Some(bar) = &self.bar {
                bar.reset_eta();
            }
            self.note(&format!("took {tiers} tiers ({slots} positions) from --tables-from"));
            return;
        }
        let mut last = self.last_line.lock().unwrap();
        if last.elapsed() >= Duration::from_secs(5) {
            *last = Instant::now();
            self.note(&format!("--tables-from: {tiers} tiers ({slots} positions) copied so far"));
        }
    }

    fn tier_done(&self, report: &TierReport, tiers_done: usize, slots_done: u64) {
        *self.phases.lock().unwrap() += report.phases;
        let tiers = *self.tiers.lock().unwrap();
        match &self.bar {
            Some(bar) => {
                bar.set_position(slots_done);
                bar.set_message(format!("tiers {tiers_done}/{tiers}"));
            }
            None => {
                let mut last = self.last_line.lock().unwrap();
                if last.elapsed() >= Duration::from_secs(5) || tiers_done == tiers {
                    *last = Instant::now();
                    let secs = self.started.elapsed().as_secs_f64();
                    let solved_here = slots_done - *self.resumed_slots.lock().unwrap();
                    eprintln!(
                        "foxbase: tiers {tiers_done}/{tiers}, {slots_done} positions, {:.0} positions/s, last {} ({:.2}s)",
                        solved_here as f64 / secs.max(1e-9),
                        report.tier_name,
                        report.seconds
                    );
                }
            }
        }
    }
}
