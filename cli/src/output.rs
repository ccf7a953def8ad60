//! Where output goes: one line of text or one JSON object at a time on
//! standard output (a closed pipe becomes [`Failure::ClosedOutput`] instead
//! of a panic), and progress on standard error: a bar on a terminal (not
//! with `--json`), plain lines otherwise (a solve's at most every 5 s, a
//! count of tiers' every 30 s, so that a short verify or publish prints
//! none).

use crate::command::Failure;
use foxbase_tables::verify::TierProgress;
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

/// Tiers done, on standard error: a bar on a terminal when the output is
/// not JSON; otherwise a plain line at most every [`TierBar::EVERY`], with
/// the time so far and an estimate of the time left, so that a verify of
/// hours in a batch job shows that it is alive, and a run of seconds prints
/// nothing (standard output stays one line or one JSON object).
pub struct TierBar {
    bar: Option<ProgressBar>,
    /// What the tiers are being counted for in each pass, in turn
    /// ("checking files", "checking tiers"), named on each line: a count
    /// at zero starts the next pass (the last one stays).
    passes: Vec<&'static str>,
    /// The passes started so far.
    started_passes: Mutex<usize>,
    started: Instant,
    /// When the count last started from zero (the time left is estimated from its pace since).
    counting_since: Mutex<Instant>,
    last_line: Mutex<Instant>,
}

impl TierBar {
    /// The least time between two plain lines.
    pub const EVERY: Duration = Duration::from_secs(30);

    pub fn new(doing: &'static str, json: bool) -> TierBar {
        TierBar::passes(&[doing], json)
    }

    /// A bar for a count in several passes, each named: a count at zero
    /// starts the next of `passes` (the last one stays).
    pub fn passes(passes: &[&'static str], json: bool) -> TierBar {
        let doing = passes[0];
        let bar = (!json && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:30}] {human_pos}/{human_len} positions, {elapsed} so far, ETA {eta}",
                )
                .expect("a valid template"),
            );
            bar.set_message(doing);
            bar
        });
        let now = Instant::now();
        TierBar {
            bar,
            passes: passes.to_vec(),
            started_passes: Mutex::new(0),
            started: now,
            counting_since: Mutex::new(now),
            last_line: Mutex::new(now),
        }
    }

    /// What the pass under way counts for.
    fn doing(&self) -> &'static str {
        let started = *self.started_passes.lock().unwrap();
        self.passes[started.saturating_sub(1).min(self.passes.len() - 1)]
    }

    /// Progress: tiers and their slots done, of those in all. A count at
    /// zero is a pass starting ([`foxbase_tables::verify::TierCounter`]
    /// says so): the time left is estimated from the pace since then, not
    /// counting the work before it (verify's checks of every file).
    pub fn set(&self, p: TierProgress) {
        if p.tiers_done == 0 {
            *self.counting_since.lock().unwrap() = Instant::now();
            *self.started_passes.lock().unwrap() += 1;
            if let Some(b) = &self.bar {
                b.reset_eta();
            }
        }
        match &self.bar {
            Some(b) => {
                b.set_length(p.slots);
                b.set_position(p.slots_done);
                b.set_message(format!("{} ({}/{} tiers)", self.doing(), p.tiers_done, p.tiers));
            }
            None => {
                let mut last = self.last_line.lock().unwrap();
                if last.elapsed() < Self::EVERY {
                    return;
                }
                *last = Instant::now();
                let counting = self.counting_since.lock().unwrap().elapsed();
                eprintln!("foxbase: {}", tiers_line(self.doing(), p, self.started.elapsed(), counting));
            }
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// `checking tiers: 10/40 tiers, 1000 of 4000 positions, 1m 40s so far,
/// about 4m 30s left`: the time left is the count's pace in slots since it
/// started from zero (`counting` ago) kept up for the slots not done
/// (tiers differ in size by orders of magnitude: a count of tiers would
/// say seconds where one huge tier takes hours).
fn tiers_line(doing: &str, p: TierProgress, so_far: Duration, counting: Duration) -> String {
    let left = time_left(counting, p.slots_done, p.slots.saturating_sub(p.slots_done));
    format!(
        "{doing}: {}/{} tiers, {} of {} positions, {} so far{left}",
        p.tiers_done,
        p.tiers,
        p.slots_done,
        p.slots,
        clock(so_far)
    )
}

/// `, about 4m 30s left`: `spent` doing `done` slots, kept up for `left`
/// more; nothing before any slot is done.
fn time_left(spent: Duration, done: u64, left: u64) -> String {
    match done {
        0 => String::new(),
        _ => format!(", about {} left", clock(spent.mul_f64(left as f64 / done as f64))),
    }
}

/// `1h 02m 03s`, `2m 03s` or `3s`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s:02}s"),
        (h, m, s) => format!("{h}h {m:02}m {s:02}s"),
    }
}

/// A solve's progress on standard error: a bar of positions on a terminal
/// (not with `--json`), plain log lines (at most one per 5 s) otherwise.
pub struct SolveProgress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Mutex<Instant>,
    tiers: Mutex<usize>,
    /// The plan's slots in all.
    slots: Mutex<u64>,
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
            slots: Mutex::new(0),
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
        *self.slots.lock().unwrap() = slots;
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
                    let solved_here = slots_done - *self.resumed_slots.lock().unwrap();
                    let slots = *self.slots.lock().unwrap();
                    let pace = Pace { slots_done, slots, solved_here, seconds: self.started.elapsed().as_secs_f64() };
                    eprintln!(
                        "foxbase: tiers {tiers_done}/{tiers}, {}, last {} ({:.2}s)",
                        pace.line(),
                        report.tier_name,
                        report.seconds
                    );
                }
            }
        }
    }
}

/// How far a solve is by slots, the measure of a tier's work the plan
/// uses: tiers differ in size by orders of magnitude, so the time left is
/// the slots left at this run's rate in slots, not the tiers left at its
/// rate in tiers.
struct Pace {
    /// Slots finished, this run's and those finished before it.
    slots_done: u64,
    /// The plan's slots.
    slots: u64,
    /// Slots this run solved itself (its rate's measure).
    solved_here: u64,
    /// This run's time so far.
    seconds: f64,
}

impl Pace {
    /// `1000 of 4000 positions, 250 positions/s, about 12s left`.
    fn line(&self) -> String {
        let rate = self.solved_here as f64 / self.seconds.max(1e-9);
        let spent = Duration::from_secs_f64(self.seconds);
        let left = time_left(spent, self.solved_here, self.slots.saturating_sub(self.slots_done));
        format!("{} of {} positions, {rate:.0} positions/s{left}", self.slots_done, self.slots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solves_time_left_counts_the_slots_left_not_the_tiers() {
        // Three small tiers of one slot done in 3 s, one of 1,000 slots to go:
        // about 1,000 s are left, not the 1 s that a count of tiers would say.
        let pace = Pace { slots_done: 3, slots: 1003, solved_here: 3, seconds: 3.0 };
        assert_eq!(pace.line(), "3 of 1003 positions, 1 positions/s, about 16m 40s left");
        // A resumed run: its rate counts only the slots it solved itself.
        let pace = Pace { slots_done: 1500, slots: 2000, solved_here: 500, seconds: 10.0 };
        assert_eq!(pace.line(), "1500 of 2000 positions, 50 positions/s, about 10s left");
        let pace = Pace { slots_done: 800, slots: 2000, solved_here: 0, seconds: 0.5 };
        assert_eq!(pace.line(), "800 of 2000 positions, 0 positions/s");
    }

    /// A pass that starts (a count at zero) restarts the pace: verify's
    /// checks of every file before its first tier do not slow its estimate.
    #[test]
    fn a_count_at_zero_restarts_the_pace() {
        let p = |tiers_done, slots_done| TierProgress { tiers_done, tiers: 2, slots_done, slots: 20 };
        let bar = TierBar::new("checking tiers", true);
        let before = *bar.counting_since.lock().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        bar.set(p(0, 0));
        let started = *bar.counting_since.lock().unwrap();
        assert!(started >= before + Duration::from_millis(20));
        bar.set(p(1, 10));
        assert_eq!(*bar.counting_since.lock().unwrap(), started);
    }

    /// Each count from zero is the next pass, named on its lines (verify:
    /// its files, then its tiers); the last name stays.
    #[test]
    fn each_count_from_zero_is_the_next_named_pass() {
        let p = |tiers_done, slots_done| TierProgress { tiers_done, tiers: 2, slots_done, slots: 20 };
        let bar = TierBar::passes(&["checking files", "checking tiers"], true);
        let mut seen = Vec::new();
        for (tiers, slots) in [(0, 0), (1, 10), (2, 20), (0, 0), (1, 10), (0, 0)] {
            bar.set(p(tiers, slots));
            seen.push(bar.doing());
        }
        let (files, tiers) = ("checking files", "checking tiers");
        assert_eq!(seen, [files, files, files, tiers, tiers, tiers]);
    }

    #[test]
    fn a_tier_count_line_says_the_time_so_far_and_left_by_slots() {
        let secs = Duration::from_secs;
        let p = |tiers_done, tiers, slots_done, slots| TierProgress { tiers_done, tiers, slots_done, slots };
        assert_eq!(
            tiers_line("checking tiers", p(10, 40, 1000, 4000), secs(100), secs(90)),
            "checking tiers: 10/40 tiers, 1000 of 4000 positions, 1m 40s so far, about 4m 30s left"
        );
        // Three tiers of one slot in 3 s, and one of 1,000 slots left:
        // about 1,000 s left, not the 1 s that a count of tiers says.
        assert_eq!(
            tiers_line("checking tiers", p(3, 4, 3, 1003), secs(3), secs(3)),
            "checking tiers: 3/4 tiers, 3 of 1003 positions, 3s so far, about 16m 40s left"
        );
        assert_eq!(
            tiers_line("publishing", p(0, 7, 0, 700), secs(31), secs(31)),
            "publishing: 0/7 tiers, 0 of 700 positions, 31s so far"
        );
        assert_eq!(
            tiers_line("checking tiers", p(1053, 1053, 9, 9), secs(3 * 3600 + 62), secs(600)),
            "checking tiers: 1053/1053 tiers, 9 of 9 positions, 3h 01m 02s so far, about 0s left"
        );
    }
}
