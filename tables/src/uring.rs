//! Positioned file I/O on io_uring, with a portable fallback.
//!
//! [`Backend::get`] picks io_uring when the kernel offers it and plain
//! positioned reads and writes (`pread`/`pwrite`) otherwise, says which once
//! on stderr when it falls back, and can be forced with the environment
//! variable `FOXBASE_IO=uring` or `FOXBASE_IO=std` (tests run both). All
//! unsafe code of the crate's I/O is in this module.

use io_uring::{opcode, types, IoUring};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::sync::OnceLock;

/// Writes or reads in flight at once on io_uring.
pub const QUEUE_DEPTH: u32 = 8;

/// Which I/O path table files use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Uring,
    Std,
}

impl Backend {
    /// The backend for this process: `FOXBASE_IO` if set, else io_uring when it works.
    pub fn get() -> Backend {
        static CHOSEN: OnceLock<Backend> = OnceLock::new();
        *CHOSEN.get_or_init(|| match std::env::var("FOXBASE_IO").as_deref() {
            Ok("std") => Backend::Std,
            Ok("uring") => Backend::Uring,
            _ => match IoUring::new(QUEUE_DEPTH) {
                Ok(_) => Backend::Uring,
                Err(e) => {
                    eprintln!("foxbase: io_uring is unavailable ({e}); using positioned reads and writes");
                    Backend::Std
                }
            },
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Uring => "io_uring",
            Backend::Std => "pread/pwrite",
        }
    }

    /// Writes each `(offset, bytes)` piece, then syncs the file to disk.
    pub fn write_all_at(self, file: &File, pieces: &[(u64, &[u8])]) -> std::io::Result<()> {
        self.write_pieces(file, pieces, true)
    }

    /// [`Backend::write_all_at`] without the fsync (the caller syncs later).
    pub fn write_all_at_unsynced(self, file: &File, pieces: &[(u64, &[u8])]) -> std::io::Result<()> {
        self.write_pieces(file, pieces, false)
    }

    fn write_pieces(self, file: &File, pieces: &[(u64, &[u8])], sync: bool) -> std::io::Result<()> {
        match self {
            Backend::Std => {
                for (offset, bytes) in pieces {
                    file.write_all_at(bytes, *offset)?;
                }
                if sync {
                    file.sync_all()?;
                }
                Ok(())
            }
            Backend::Uring => with_ring(|ring| uring_write_on(ring, file, pieces, sync)),
        }
    }

    /// Fills each `(offset, buffer)` from the file; a short read is an error.
    pub fn read_exact_at(self, file: &File, pieces: &mut [(u64, &mut [u8])]) -> std::io::Result<()> {
        match self {
            Backend::Std => {
                for (offset, buf) in pieces.iter_mut() {
                    file.read_exact_at(buf, *offset)?;
                }
                Ok(())
            }
            Backend::Uring => uring_read(file, pieces),
        }
    }
}

/// One piece's progress: how much of it is done.
struct Pending {
    piece: usize,
    done: usize,
}

thread_local! {
    /// One ring per thread, set up on first use: setting one up costs
    /// system calls and mappings that a table of many small tiers would
    /// otherwise pay per file.
    static RING: std::cell::RefCell<Option<IoUring>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's ring. Every entry `f` submits is completed
/// before it returns, so the ring is empty between uses.
fn with_ring<T>(f: impl FnOnce(&mut IoUring) -> std::io::Result<T>) -> std::io::Result<T> {
    RING.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(IoUring::new(QUEUE_DEPTH)?);
        }
        f(slot.as_mut().unwrap())
    })
}

fn uring_read(file: &File, pieces: &mut [(u64, &mut [u8])]) -> std::io::Result<()> {
    with_ring(|ring| uring_read_on(ring, file, pieces))
}

fn uring_write_on(ring: &mut IoUring, file: &File, pieces: &[(u64, &[u8])], sync: bool) -> std::io::Result<()> {
    let fd = types::Fd(file.as_raw_fd());
    let lens: Vec<usize> = pieces.iter().map(|p| p.1.len()).collect();
    run(ring, &lens, |piece, done| {
        let (offset, bytes) = pieces[piece];
        let rest = &bytes[done..];
        opcode::Write::new(fd, rest.as_ptr(), rest.len().min(1 << 30) as u32).offset(offset + done as u64).build()
    })?;
    if !sync {
        return Ok(());
    }
    let sqe = opcode::Fsync::new(fd).build().user_data(u64::MAX);
    // SAFETY: fsync takes no buffer.
    unsafe { ring.submission().push(&sqe).map_err(std::io::Error::other)? };
    wait(ring)?;
    let result = ring.completion().next().map(|c| c.result()).unwrap_or(-libc::EIO);
    if result < 0 {
        return Err(std::io::Error::from_raw_os_error(-result));
    }
    Ok(())
}

fn uring_read_on(ring: &mut IoUring, file: &File, pieces: &mut [(u64, &mut [u8])]) -> std::io::Result<()> {
    let fd = types::Fd(file.as_raw_fd());
    let lens: Vec<usize> = pieces.iter().map(|p| p.1.len()).collect();
    run(ring, &lens, |piece, done| {
        let offset = pieces[piece].0;
        let rest = &mut pieces[piece].1[done..];
        opcode::Read::new(fd, rest.as_mut_ptr(), rest.len().min(1 << 30) as u32).offset(offset + done as u64).build()
    })
}

/// Drives pieces of the given lengths through the ring, at most
/// `QUEUE_DEPTH` in flight; `entry(piece, done)` builds the entry for the
/// rest of a piece. Short transfers are resubmitted for the rest; a
/// transfer of zero bytes is an error (end of file, or a full disk).
///
/// The buffers `entry` points into must stay valid and untouched until this
/// returns: every submitted entry is completed before it does, on errors too.
fn run(
    ring: &mut IoUring,
    lens: &[usize],
    mut entry: impl FnMut(usize, usize) -> io_uring::squeue::Entry,
) -> std::io::Result<()> {
    let mut todo: Vec<Pending> =
        (0..lens.len()).rev().filter(|&piece| lens[piece] > 0).map(|piece| Pending { piece, done: 0 }).collect();
    let mut in_flight: Vec<Option<Pending>> = (0..QUEUE_DEPTH).map(|_| None).collect();
    let mut busy = 0;
    loop {
        while busy < QUEUE_DEPTH as usize && !todo.is_empty() {
            let p = todo.pop().unwrap();
            let slot = in_flight.iter().position(|s| s.is_none()).unwrap();
            let sqe = entry(p.piece, p.done).user_data(slot as u64);
            // SAFETY: the entry points into a buffer the caller keeps alive and
            // untouched until this function returns, and every submitted entry
            // is completed before it returns (see `drain`).
            unsafe { ring.submission().push(&sqe).map_err(std::io::Error::other)? };
            in_flight[slot] = Some(p);
            busy += 1;
        }
        if busy == 0 {
            return Ok(());
        }
        if let Err(e) = wait(ring) {
            drain(ring, busy);
            return Err(e);
        }
        let completed: Vec<(u64, i32)> = ring.completion().map(|c| (c.user_data(), c.result())).collect();
        // Account for every completion of this round before reacting to a failure,
        // so that `busy` counts exactly the entries still in the kernel.
        let mut failure = None;
        for (slot, result) in completed {
            let Some(mut p) = in_flight.get_mut(slot as usize).and_then(Option::take) else {
                continue;
            };
            busy -= 1;
            if result <= 0 {
                failure.get_or_insert(if result < 0 {
                    std::io::Error::from_raw_os_error(-result)
                } else {
                    std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "io_uring transferred nothing (end of file?)",
                    )
                });
                continue;
            }
            p.done += result as usize;
            if p.done < lens[p.piece] {
                todo.push(p);
            }
        }
        if let Some(e) = failure {
            drain(ring, busy);
            return Err(e);
        }
    }
}

/// Submits and waits for at least one completion, retrying when a signal interrupts the wait.
fn wait(ring: &mut IoUring) -> std::io::Result<()> {
    loop {
        match ring.submit_and_wait(1) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other.map(|_| ()),
        }
    }
}

/// Waits for the `busy` entries still in flight and discards their results,
/// so no buffer is freed while the kernel may still use it. If the ring
/// itself fails meanwhile, the process cannot know when those buffers are
/// free again and aborts rather than risk memory corruption.
fn drain(ring: &mut IoUring, mut busy: usize) {
    while busy > 0 {
        if let Err(e) = wait(ring) {
            eprintln!("foxbase: io_uring failed with {busy} requests in flight ({e}); aborting");
            std::process::abort();
        }
        busy -= ring.completion().count();
    }
}
