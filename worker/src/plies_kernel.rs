//! The counter kernel with plies to the end ([`foxbase_tables::plies`]):
//! values and, for every won or lost position, the plies until the game
//! ends under best play (the winner ends it as fast as it can, the loser
//! delays it as long as it can).
//!
//! It is [`crate::kernel`]'s counter-based induction with positions decided
//! in order of their plies, across tiers too: a child in another tier is
//! decided already, with its plies `d`, so it offers a win at `d + 1` (a
//! losing child) or raises the earliest ply at which the parent can be lost
//! (a winning child: a loss is 1 + the largest plies of its children). The
//! initial pass records, per position, either the ply at which its best
//! outside child wins it (the position waits in a bucket for that ply) or
//! the *floor* its outside children put under its loss. Then levels run
//! `0, 1, 2, ...`: level `L` holds the positions decided with `L` plies
//! (game over at 0; from the buckets; from level `L - 1`'s walk back), and
//! walking back from them decides parents at `L + 1`: a lost child makes a
//! parent won; a won child counts a parent down, and one counted to zero is
//! lost at `max(L + 1, floor)`, now or from the bucket of its floor.
//!
//! A position is decided at the first level its value is certain, which is
//! its plies: a win's smallest losing child was decided first, a loss's
//! largest child last. Nothing depends on the order within a level, so the
//! output is the same for any thread count. Memory: one state byte and two
//! bytes of plies per slot, plus the buckets of positions won from outside.

use crate::counter_kernel::{locate_child, pack, ChildAt, CHUNK, DRAW, EMPTY, LOSS, MAX_COUNTER, WIN};
use crate::kernel::{ChildTable, KernelError, Phases, SolvedTier};
use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use foxbase_tables::plies::{Distance, Plies};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering};

/// Undecided, won from outside the tier at the ply its `plies` slot holds
/// unless a child inside the tier wins it sooner.
const WIN_PENDING: u8 = 251;
/// Lost (every child won), at the ply its `plies` slot holds, which is later
/// than the level that counted it down to zero.
const LOSS_PENDING: u8 = MAX_COUNTER;

/// Positions decided now, and positions waiting for a later ply, as (ply, slot).
type Decided = (Vec<u32>, Vec<(u32, u32)>);

/// What the initial pass found for one position.
enum Start {
    /// Game over: WIN, LOSS or DRAW at 0 plies.
    Over(u8),
    /// A child outside the tier is lost for the opponent; the best one wins at this ply.
    WinAt(u32),
    /// `count` children inside the tier to wait for (plus one for a drawn
    /// child outside it, which never comes); a loss comes no sooner than `floor`.
    Count { count: usize, floor: u32 },
}

/// Solves `tier` of `game` with plies (`distance`: to the end, or to
/// zeroing, where a move out of the tier counts 1 ply and the children's
/// plies are not read), on the calling thread's rayon pool.
///
/// Preconditions: those of [`crate::kernel::solve_in_pool`], and for DTM
/// every child table holds plies. The values equal the counter kernel's.
pub fn solve_plies_in_pool<G: TierGame>(
    game: &G,
    tier: G::Tier,
    children: &[ChildTable<G>],
    distance: Distance,
) -> Result<SolvedTier, KernelError> {
    let index = game.tier_index(tier);
    let size = game.tier_size(&index);
    if size >= u32::MAX as u64 {
        return Err(KernelError::TooLarge { tier: game.tier_name(tier), size });
    }
    for c in children {
        if distance == Distance::Dtm && c.plies.is_none() {
            return Err(KernelError::Inconsistent(format!(
                "child tier {} has no plies (solved with --no-distance?)",
                game.tier_name(c.tier)
            )));
        }
    }
    let started = std::time::Instant::now();
    let mut phases = Phases::default();
    let state: Vec<AtomicU8> = (0..size).map(|_| AtomicU8::new(EMPTY)).collect();
    let plies: Vec<AtomicU16> = (0..size).map(|_| AtomicU16::new(0)).collect();

    // Initial pass. Each chunk returns its game-over positions (level 0)
    // and the positions that wait for a later level, as (level, slot).
    let chunks: Vec<u64> = (0..size.div_ceil(CHUNK as u64)).collect();
    let parts: Vec<Result<Decided, KernelError>> = chunks
        .par_iter()
        .map(|&c| {
            let (mut over, mut waiting) = (Vec::new(), Vec::new());
            let mut in_tier: Vec<u64> = Vec::with_capacity(128);
            let mut result = Ok(());
            let (lo, hi) = (c * CHUNK as u64, ((c + 1) * CHUNK as u64).min(size));
            game.for_each_slot(&index, lo..hi, |i, pos| {
                let Some(pos) = pos else { return };
                if result.is_err() {
                    return;
                }
                let (s, p) = match start(game, tier, &index, children, &pos, distance, &mut in_tier) {
                    Ok(Start::Over(s)) => {
                        if s != DRAW {
                            over.push(i as u32);
                        }
                        (s, 0)
                    }
                    Ok(Start::WinAt(at)) => {
                        waiting.push((at, i as u32));
                        (WIN_PENDING, at)
                    }
                    Ok(Start::Count { count: 0, floor }) => {
                        waiting.push((floor, i as u32));
                        (LOSS_PENDING, floor)
                    }
                    Ok(Start::Count { count, floor }) => (count as u8, floor),
                    Err(e) => {
                        result = Err(e);
                        return;
                    }
                };
                let Ok(p) = u16::try_from(p) else {
                    result = Err(too_many_plies(game, tier, p));
                    return;
                };
                state[i as usize].store(s, Ordering::Relaxed);
                plies[i as usize].store(p, Ordering::Relaxed);
            });
            result.map(|_| (over, waiting))
        })
        .collect();
    let mut frontier: Vec<Vec<u32>> = Vec::new();
    let mut buckets: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut decided_at_start = 0u64;
    for part in parts {
        let (over, waiting) = part?;
        decided_at_start += over.len() as u64;
        frontier.push(over);
        decided_at_start += waiting.len() as u64;
        for (at, slot) in waiting {
            buckets.entry(at).or_default().push(slot);
        }
    }
    phases.init = started.elapsed().as_secs_f64();

    let started = std::time::Instant::now();
    let mut level = 0u32;
    let mut levels = 0u32;
    // Under a no-progress rule of N plies, nothing is won or lost more than
    // N plies from zeroing: the levels stop at N and what is left is drawn.
    let cap = match game.no_progress() {
        0 => u32::MAX,
        n => n,
    };
    loop {
        if level > cap {
            break;
        }
        // The positions whose ply has come: those still waiting are decided now.
        if let Some(due) = buckets.remove(&level) {
            let mut now: Vec<u32> = due
                .into_par_iter()
                .filter(|&slot| {
                    let s = &state[slot as usize];
                    match s.load(Ordering::Relaxed) {
                        WIN_PENDING => s.store(WIN, Ordering::Relaxed),
                        LOSS_PENDING => s.store(LOSS, Ordering::Relaxed),
                        // Won sooner from inside the tier.
                        _ => return false,
                    }
                    true
                })
                .collect();
            now.sort_unstable();
            frontier.push(now);
        }
        if frontier.iter().all(|part| part.is_empty()) {
            match buckets.keys().next() {
                Some(&next) => {
                    level = next;
                    frontier.clear();
                    continue;
                }
                None => break,
            }
        }
        if level == cap {
            break;
        }
        levels += 1;
        let next_level = level + 1;
        let walked: Vec<Decided> = frontier
            .par_iter()
            .flat_map(|part| part.par_chunks(CHUNK))
            .map(|chunk| {
                let (mut next, mut later, mut parents) = (Vec::new(), Vec::new(), Vec::new());
                for &c in chunk {
                    let decided = state[c as usize].load(Ordering::Relaxed);
                    let pos = game.unrank(&index, c as u64).expect("decided slot holds a position");
                    parents.clear();
                    game.for_each_parent_in_tier(&pos, |q| parents.push(game.canonical_rank(&index, &q)));
                    parents.sort_unstable();
                    parents.dedup();
                    for &p in parents.iter() {
                        match update_parent(&state[p as usize], &plies[p as usize], decided, next_level) {
                            Update::Now => next.push(p as u32),
                            Update::At(at) => later.push((at, p as u32)),
                            Update::Nothing => {}
                        }
                    }
                }
                next.sort_unstable();
                (next, later)
            })
            .collect();
        frontier.clear();
        for (next, later) in walked {
            frontier.push(next);
            for (at, slot) in later {
                buckets.entry(at).or_default().push(slot);
            }
        }
        level = next_level;
        if level > u16::MAX as u32 {
            return Err(too_many_plies(game, tier, level));
        }
    }
    phases.propagate = started.elapsed().as_secs_f64();

    let started = std::time::Instant::now();
    let (values, mut stats) = pack(&state);
    let plies = Plies::from_vec(
        state
            .par_iter()
            .zip(plies.par_iter())
            .map(|(s, p)| match s.load(Ordering::Relaxed) {
                WIN | LOSS => p.load(Ordering::Relaxed),
                _ => 0,
            })
            .collect(),
    );
    stats.levels = levels.max(1);
    stats.decided_at_start = decided_at_start;
    phases.pack = started.elapsed().as_secs_f64();
    Ok(SolvedTier { values, stats, phases, plies: Some(plies) })
}

fn too_many_plies<G: TierGame>(game: &G, tier: G::Tier, plies: u32) -> KernelError {
    KernelError::Inconsistent(format!(
        "a position of tier {} is {plies} plies from the end; at most {} are supported",
        game.tier_name(tier),
        u16::MAX
    ))
}

/// What a decided child did to a parent.
enum Update {
    Nothing,
    /// The parent is decided at this level.
    Now,
    /// The parent is lost, at this later ply (its floor).
    At(u32),
}

/// Applies a child decided (WIN or LOSS) at `at - 1` plies to a parent:
/// a lost child makes an undecided parent won at `at`; a won child counts
/// it down, and the last one makes it lost at `max(at, floor)`.
#[inline]
fn update_parent(parent: &AtomicU8, plies: &AtomicU16, child: u8, at: u32) -> Update {
    let mut s = parent.load(Ordering::Relaxed);
    loop {
        let undecided = s < MAX_COUNTER || s == WIN_PENDING;
        let (new, update) = if !undecided {
            return Update::Nothing;
        } else if child == LOSS {
            (WIN, Update::Now)
        } else if s == WIN_PENDING {
            return Update::Nothing; // won anyway; its losing children do not count
        } else if s == 1 {
            let floor = plies.load(Ordering::Relaxed) as u32;
            if floor > at {
                (LOSS_PENDING, Update::At(floor))
            } else {
                (LOSS, Update::Now)
            }
        } else {
            (s - 1, Update::Nothing)
        };
        match parent.compare_exchange_weak(s, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => {
                if matches!(update, Update::Now) {
                    // Only the thread whose exchange decided the parent writes its plies.
                    plies.store(at as u16, Ordering::Relaxed);
                }
                return update;
            }
            Err(actual) => s = actual,
        }
    }
}

/// The initial state of a position (see [`Start`]): game over, or its
/// children. Errors as [`crate::kernel::solve_in_pool`]'s.
fn start<G: TierGame>(
    game: &G,
    tier: G::Tier,
    index: &G::Index,
    children: &[ChildTable<G>],
    pos: &G::Position,
    distance: Distance,
    in_tier: &mut Vec<u64>,
) -> Result<Start, KernelError> {
    match game.primitive(pos) {
        Some(Value::Win) => return Ok(Start::Over(WIN)),
        Some(Value::Loss) => return Ok(Start::Over(LOSS)),
        Some(Value::Draw) => return Ok(Start::Over(DRAW)),
        None => {}
    }
    in_tier.clear();
    let mut win_at: Option<u32> = None;
    let mut floor = 0u32;
    let mut draw_outside = false;
    let mut error = None;
    game.for_each_child(pos, |child| {
        if error.is_some() {
            return;
        }
        // With DTZ a move out of the tier is zeroing: its child counts as
        // a loss at 0 or a win at 1 plies, whatever follows.
        let located = match locate_child(game, tier, index, children, &child) {
            Ok(ChildAt::Outside(v, _)) if distance == Distance::Dtz => {
                Ok(ChildAt::Outside(v, Distance::zeroing_child_plies(v, game.no_progress() > 0).unwrap_or(0)))
            }
            other => other,
        };
        match located {
            Ok(ChildAt::InTier(rank)) => in_tier.push(rank),
            Ok(ChildAt::Outside(Value::Loss, plies)) => win_at = Some(win_at.map_or(plies + 1, |w| w.min(plies + 1))),
            Ok(ChildAt::Outside(Value::Draw, _)) => draw_outside = true,
            Ok(ChildAt::Outside(Value::Win, plies)) => floor = floor.max(plies + 1),
            Err(e) => error = Some(e),
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    if let Some(at) = win_at {
        return Ok(Start::WinAt(at));
    }
    in_tier.sort_unstable();
    in_tier.dedup();
    let count = in_tier.len() + draw_outside as usize;
    if count >= MAX_COUNTER as usize {
        return Err(KernelError::TooManyChildren { tier: game.tier_name(tier), children: count, limit: MAX_COUNTER });
    }
    Ok(Start::Count { count, floor })
}
