//! The counter kernel: solves one tier of any game given its child tiers'
//! values, through the tier contract alone; the oracle every other kernel's
//! tables are compared with.
//!
//! Counter-based backward induction. Every position starts with the number
//! of distinct canonical children it has inside the tier (plus one if a
//! child outside the tier is a draw, which can never be undone). Children
//! outside the tier and game-over children are looked up once. A position
//! with a losing child is a win; one with nothing left to count is a loss.
//! Newly decided positions then walk back through their in-tier un-moves:
//! a loss makes every parent a win, a win counts a parent down. What is
//! never decided is a draw. Only one pass over the tier generates moves;
//! after it, work is proportional to the decided positions.
//!
//! Propagation runs level by level (all positions decided at level d before
//! any at d + 1). The values do not depend on the order, so the output is
//! the same for any thread count; the levels are what a later
//! distance-to-win value will be read from.

use crate::kernel::{ChildTable, KernelError, Phases, SolvedTier, TierStats};
use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use foxbase_tables::packed::{PackedValues, UNUSED};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};

/// Per-position solver state: a pending-child counter below `MAX_COUNTER`,
/// or one of the decided states.
pub(crate) const MAX_COUNTER: u8 = 248;
/// Decided by the initial pass and not yet propagated; becomes LOSS or WIN
/// when the first level walks back from it.
pub(crate) const LOSS_AT_START: u8 = 249;
pub(crate) const WIN_AT_START: u8 = 250;
pub(crate) const DRAW: u8 = 252;
pub(crate) const WIN: u8 = 253;
pub(crate) const LOSS: u8 = 254;
pub(crate) const EMPTY: u8 = 255;

/// Positions decided per parallel work item.
pub(crate) const CHUNK: usize = 1 << 14;

/// Solves `tier` of `game` with `threads` threads.
///
/// Preconditions: `children` holds the solved tables of every tier in
/// `game.child_tiers(tier)`. An error names a missing child tier or an
/// inconsistency in the game's implementation (a bug, never bad input).
pub fn solve_tier<G: TierGame>(
    game: &G,
    tier: G::Tier,
    children: &[ChildTable<G>],
    threads: usize,
) -> Result<SolvedTier, KernelError> {
    crate::kernel::thread_pool(threads)?.install(|| solve_in_pool(game, tier, children))
}

/// [`solve_tier`] on the calling thread's rayon pool (the caller chose its size).
pub fn solve_in_pool<G: TierGame>(
    game: &G,
    tier: G::Tier,
    children: &[ChildTable<G>],
) -> Result<SolvedTier, KernelError> {
    let index = game.tier_index(tier);
    let size = game.tier_size(&index);
    if size >= u32::MAX as u64 {
        return Err(KernelError::TooLarge { tier: game.tier_name(tier), size });
    }
    let started = std::time::Instant::now();
    let mut phases = Phases::default();
    let state: Vec<AtomicU8> = (0..size).map(|_| AtomicU8::new(EMPTY)).collect();

    // Initial pass: primitive values, child lookups and counters. The
    // positions it decides are marked, not listed, so that no list as long
    // as the tier is ever held.
    let chunks: Vec<u64> = (0..size.div_ceil(CHUNK as u64)).collect();
    chunks.par_iter().try_for_each(|&c| {
        let mut in_tier: Vec<u64> = Vec::with_capacity(128);
        let mut result = Ok(());
        let (lo, hi) = (c * CHUNK as u64, ((c + 1) * CHUNK as u64).min(size));
        game.for_each_slot(&index, lo..hi, |i, pos| {
            if result.is_err() {
                return;
            }
            let s = match pos {
                None => EMPTY,
                Some(pos) => match init_position(game, tier, &index, children, &pos, &mut in_tier) {
                    Ok(WIN) => WIN_AT_START,
                    Ok(LOSS) => LOSS_AT_START,
                    Ok(s) => s,
                    Err(e) => {
                        result = Err(e);
                        return;
                    }
                },
            };
            state[i as usize].store(s, Ordering::Relaxed);
        });
        result
    })?;

    phases.init = started.elapsed().as_secs_f64();
    let walk_back = |c: u64, next: &mut Vec<u32>, parents: &mut Vec<u64>| {
        let decided = state[c as usize].load(Ordering::Relaxed);
        let pos = game.unrank(&index, c).expect("decided slot holds a position");
        parents.clear();
        game.for_each_parent_in_tier(&pos, |q| parents.push(game.canonical_rank(&index, &q)));
        parents.sort_unstable();
        parents.dedup();
        for &p in parents.iter() {
            if update_parent(&state[p as usize], decided) {
                next.push(p as u32);
            }
        }
    };
    Ok(propagate_and_pack(&state, &walk_back, phases))
}

/// The end of a solve, shared by the kernels: [`propagate`], then [`pack`],
/// timed into `phases`.
pub(crate) fn propagate_and_pack<S: Default>(
    state: &[AtomicU8],
    walk_back: &(impl Fn(u64, &mut Vec<u32>, &mut S) + Sync),
    mut phases: Phases,
) -> SolvedTier {
    let started = std::time::Instant::now();
    let (levels, decided_at_start) = propagate(state, walk_back);
    phases.propagate = started.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let (values, mut stats) = pack(state);
    stats.levels = levels;
    stats.decided_at_start = decided_at_start;
    phases.pack = started.elapsed().as_secs_f64();
    SolvedTier { values, stats, phases, plies: None }
}

/// Propagation, shared by the kernels: level 1 walks back from the
/// positions the initial pass decided (marked `WIN_AT_START` or
/// `LOSS_AT_START`), found by a scan of the state; later levels from the
/// list the level before made, kept in its per-chunk parts rather than
/// copied into one list. `walk_back(slot, next, scratch)` applies a decided
/// slot to its in-tier parents with [`update_parent`] and lists those it
/// decides in `next`. Returns the number of levels and of positions decided
/// at the start.
pub(crate) fn propagate<S: Default>(
    state: &[AtomicU8],
    walk_back: &(impl Fn(u64, &mut Vec<u32>, &mut S) + Sync),
) -> (u32, u64) {
    let size = state.len() as u64;
    let chunks: Vec<u64> = (0..size.div_ceil(CHUNK as u64)).collect();
    let (mut frontier, at_start): (Vec<Vec<u32>>, Vec<u64>) = chunks
        .par_iter()
        .map(|&c| {
            let (mut next, mut scratch, mut decided_here) = (Vec::new(), S::default(), 0);
            for i in c * CHUNK as u64..((c + 1) * CHUNK as u64).min(size) {
                let decided = match state[i as usize].load(Ordering::Relaxed) {
                    WIN_AT_START => WIN,
                    LOSS_AT_START => LOSS,
                    _ => continue,
                };
                decided_here += 1;
                // Only this thread touches this slot now: updates never change a decided state.
                state[i as usize].store(decided, Ordering::Relaxed);
                walk_back(i, &mut next, &mut scratch);
            }
            next.sort_unstable();
            (next, decided_here)
        })
        .unzip();
    let mut levels = 1;
    while frontier.iter().any(|part| !part.is_empty()) {
        levels += 1;
        frontier = frontier
            .par_iter()
            .flat_map(|part| part.par_chunks(CHUNK))
            .map(|chunk| {
                let (mut next, mut scratch) = (Vec::new(), S::default());
                for &c in chunk {
                    walk_back(c as u64, &mut next, &mut scratch);
                }
                // In slot order, the next level reads the state (and decodes
                // sheep sets) in order.
                next.sort_unstable();
                next
            })
            .collect();
    }
    (levels, at_start.iter().sum())
}

/// Turns the final state into 2-bit values (undecided positions are draws)
/// and counts, in parallel a byte (four slots) at a time, so chunks never
/// share a byte. `levels` and `decided_at_start` are left at 0.
pub(crate) fn pack(state: &[AtomicU8]) -> (PackedValues, TierStats) {
    let size = state.len() as u64;
    let mut values = PackedValues::filled(size, 0);
    const PACK_BYTES: usize = CHUNK / 4;
    let counts: Vec<[u64; 4]> = values
        .bytes_mut()
        .par_chunks_mut(PACK_BYTES)
        .enumerate()
        .map(|(c, bytes)| {
            let mut counts = [0u64; 4];
            let first = c * PACK_BYTES * 4;
            for (k, byte) in bytes.iter_mut().enumerate() {
                let mut packed = 0u8;
                for j in 0..4 {
                    let i = first + k * 4 + j;
                    if i as u64 >= size {
                        break;
                    }
                    let code = match state[i].load(Ordering::Relaxed) {
                        WIN => Value::Win.code(),
                        LOSS => Value::Loss.code(),
                        EMPTY => UNUSED,
                        _ => Value::Draw.code(),
                    };
                    counts[code as usize] += 1;
                    packed |= code << (2 * j);
                }
                *byte = packed;
            }
            counts
        })
        .collect();
    (values, TierStats::from_code_counts(size, counts))
}

/// The initial state of a position.
///
/// Game-over positions are decided here and, like every decided position,
/// walk back to their parents during propagation; so a parent counts each
/// in-tier child without asking whether it is over. Children in other tiers
/// are read from the child tables, which hold game-over positions too; a
/// child in a tier with no table must be over, or the game's `child_tiers`
/// missed a tier.
#[inline]
fn init_position<G: TierGame>(
    game: &G,
    tier: G::Tier,
    index: &G::Index,
    children: &[ChildTable<G>],
    pos: &G::Position,
    in_tier: &mut Vec<u64>,
) -> Result<u8, KernelError> {
    match game.primitive(pos) {
        Some(Value::Win) => return Ok(WIN),
        Some(Value::Loss) => return Ok(LOSS),
        Some(Value::Draw) => return Ok(DRAW),
        None => {}
    }
    in_tier.clear();
    let mut wins = false;
    let mut draw_outside = false;
    let mut error = None;
    game.for_each_child(pos, |child| {
        if wins || error.is_some() {
            return;
        }
        match locate_child(game, tier, index, children, &child) {
            Ok(ChildAt::InTier(rank)) => in_tier.push(rank),
            Ok(ChildAt::Outside(Value::Loss, _)) => wins = true,
            Ok(ChildAt::Outside(Value::Draw, _)) => draw_outside = true,
            Ok(ChildAt::Outside(Value::Win, _)) => {}
            Err(e) => error = Some(e),
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    if wins {
        return Ok(WIN);
    }
    in_tier.sort_unstable();
    in_tier.dedup();
    let counter = in_tier.len() + draw_outside as usize;
    if counter == 0 {
        return Ok(LOSS);
    }
    if counter >= MAX_COUNTER as usize {
        return Err(KernelError::TooManyChildren { tier: game.tier_name(tier), children: counter, limit: MAX_COUNTER });
    }
    Ok(counter as u8)
}

/// Where a child of a position of `tier` is: in the tier (its rank), or
/// outside it with its value for its side to move and its plies (0 when
/// its table has none).
pub(crate) enum ChildAt {
    InTier(u64),
    Outside(Value, u32),
}

/// Finds `child` of a position of `tier`: its in-tier rank, or its value
/// (and plies) from the child tables, or, in a tier without a table, its
/// game-over value (anything else is an error naming the tier: missing
/// from `child_tiers`, or a table with an unused slot where it belongs).
#[inline]
pub(crate) fn locate_child<G: TierGame>(
    game: &G,
    tier: G::Tier,
    index: &G::Index,
    children: &[ChildTable<G>],
    child: &G::Position,
) -> Result<ChildAt, KernelError> {
    let t = game.tier_of(child);
    if t == tier {
        return Ok(ChildAt::InTier(game.canonical_rank(index, child)));
    }
    match children.iter().find(|c| c.tier == t) {
        Some(table) => {
            let i = game.canonical_rank(&table.index, child);
            match table.values.value(i) {
                Some(v) => Ok(ChildAt::Outside(v, table.plies.as_ref().map_or(0, |p| p.get(i) as u32))),
                None => Err(KernelError::Inconsistent(format!(
                    "child tier {} has an unused slot at {i}, where {child:?} belongs",
                    game.tier_name(t)
                ))),
            }
        }
        None => match game.primitive(child) {
            Some(v) => Ok(ChildAt::Outside(v, 0)),
            None => Err(KernelError::Inconsistent(format!(
                "child {child:?} is in tier {}, which is not loaded (missing from child_tiers?)",
                game.tier_name(t)
            ))),
        },
    }
}

/// The state of a parent in state `s` after a child decided as `child`
/// (WIN or LOSS): a loss below makes it a win, a win counts it down (a loss
/// at zero); `None` when the parent is decided already.
#[inline]
fn after_child(s: u8, child: u8) -> Option<u8> {
    if s >= MAX_COUNTER {
        None
    } else if child == LOSS {
        Some(WIN)
    } else if s == 1 {
        Some(LOSS)
    } else {
        Some(s - 1)
    }
}

/// Applies a decided child to an undecided parent; true if that decides the parent.
#[inline]
pub(crate) fn update_parent(parent: &AtomicU8, child: u8) -> bool {
    let mut s = parent.load(Ordering::Relaxed);
    loop {
        let Some(new) = after_child(s, child) else { return false };
        match parent.compare_exchange_weak(s, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return new == WIN || new == LOSS,
            Err(actual) => s = actual,
        }
    }
}
