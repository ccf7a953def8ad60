//! The retrograde kernel: solves one tier given its child tiers' values.
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

use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use foxbase_tables::packed::{PackedValues, UNUSED};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};

/// Per-position solver state: a pending-child counter below `MAX_COUNTER`,
/// or one of the decided states.
const MAX_COUNTER: u8 = 248;
/// Decided by the initial pass and not yet propagated; becomes LOSS or WIN
/// when the first level walks back from it.
const LOSS_AT_START: u8 = 249;
const WIN_AT_START: u8 = 250;
const DRAW: u8 = 252;
const WIN: u8 = 253;
const LOSS: u8 = 254;
const EMPTY: u8 = 255;

/// Positions decided per parallel work item.
const CHUNK: usize = 1 << 14;

/// Why a tier could not be solved. Apart from [`KernelError::ThreadPool`],
/// each is a bug in a game's implementation of the tier contract or a
/// missing child table, never bad input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    #[error("cannot start {threads} threads: {message}")]
    ThreadPool { threads: usize, message: String },
    #[error("tier {tier} has {size} slots; the kernel handles fewer than 2^32")]
    TooLarge { tier: String, size: u64 },
    #[error("a position of tier {tier} has {children} children; at most {limit} are supported")]
    TooManyChildren { tier: String, children: usize, limit: u8 },
    /// A child table or the game's answers contradict the contract.
    #[error("{0}")]
    Inconsistent(String),
}

/// The solved values of a child tier, with its layout.
pub struct ChildTable<G: TierGame> {
    pub tier: G::Tier,
    pub index: G::Index,
    pub values: PackedValues,
}

/// Figures from one tier solve.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TierStats {
    pub slots: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub unused: u64,
    /// Propagation levels until nothing changed (the initial pass's decisions are level 1).
    pub levels: u32,
}

/// The result of solving a tier.
pub struct SolvedTier {
    pub values: PackedValues,
    pub stats: TierStats,
}

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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| KernelError::ThreadPool { threads, message: e.to_string() })?;
    pool.install(|| solve_in_pool(game, tier, children))
}

fn solve_in_pool<G: TierGame>(game: &G, tier: G::Tier, children: &[ChildTable<G>]) -> Result<SolvedTier, KernelError> {
    let index = game.tier_index(tier);
    let size = game.tier_size(&index);
    if size >= u32::MAX as u64 {
        return Err(KernelError::TooLarge { tier: game.tier_name(tier), size });
    }
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

    // Level 1 walks back from the positions the initial pass decided, found
    // by a scan of the state; later levels from the list the level before
    // made, kept in its per-chunk parts rather than copied into one list.
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
    let mut frontier: Vec<Vec<u32>> = chunks
        .par_iter()
        .map(|&c| {
            let (mut next, mut parents) = (Vec::new(), Vec::with_capacity(128));
            for i in c * CHUNK as u64..((c + 1) * CHUNK as u64).min(size) {
                let decided = match state[i as usize].load(Ordering::Relaxed) {
                    WIN_AT_START => WIN,
                    LOSS_AT_START => LOSS,
                    _ => continue,
                };
                // Only this thread touches this slot now: updates never change a decided state.
                state[i as usize].store(decided, Ordering::Relaxed);
                walk_back(i, &mut next, &mut parents);
            }
            next
        })
        .collect();
    let mut levels = 1;
    while frontier.iter().any(|part| !part.is_empty()) {
        levels += 1;
        frontier = frontier
            .par_iter()
            .flat_map(|part| part.par_chunks(CHUNK))
            .map(|chunk| {
                let (mut next, mut parents) = (Vec::new(), Vec::with_capacity(128));
                for &c in chunk {
                    walk_back(c as u64, &mut next, &mut parents);
                }
                next
            })
            .collect();
    }

    // Undecided positions are draws.
    let mut values = PackedValues::filled(size, 0);
    let mut stats = TierStats { slots: size, levels, ..TierStats::default() };
    for (i, s) in state.iter().enumerate() {
        let code = match s.load(Ordering::Relaxed) {
            WIN => Value::Win.code(),
            LOSS => Value::Loss.code(),
            EMPTY => UNUSED,
            _ => Value::Draw.code(),
        };
        match code {
            0 => stats.draws += 1,
            1 => stats.wins += 1,
            2 => stats.losses += 1,
            _ => stats.unused += 1,
        }
        if code != 0 {
            values.set_code(i as u64, code);
        }
    }
    Ok(SolvedTier { values, stats })
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
        let t = game.tier_of(&child);
        if t == tier {
            in_tier.push(game.canonical_rank(index, &child));
            return;
        }
        let value = match children.iter().find(|c| c.tier == t) {
            Some(table) => {
                let i = game.canonical_rank(&table.index, &child);
                match table.values.value(i) {
                    Some(v) => v,
                    None => {
                        error = Some(KernelError::Inconsistent(format!(
                            "child tier {} has an unused slot at {i}, where {child:?} belongs",
                            game.tier_name(t)
                        )));
                        return;
                    }
                }
            }
            None => match game.primitive(&child) {
                Some(v) => v,
                None => {
                    error = Some(KernelError::Inconsistent(format!(
                        "child {child:?} is in tier {}, which is not loaded (missing from child_tiers?)",
                        game.tier_name(t)
                    )));
                    return;
                }
            },
        };
        match value {
            Value::Loss => wins = true,
            Value::Draw => draw_outside = true,
            Value::Win => {}
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

/// Applies a decided child to an undecided parent; true if that decides the parent.
#[inline]
fn update_parent(parent: &AtomicU8, child: u8) -> bool {
    let mut s = parent.load(Ordering::Relaxed);
    loop {
        if s >= MAX_COUNTER {
            return false;
        }
        let new = if child == LOSS {
            WIN
        } else if s == 1 {
            LOSS
        } else {
            s - 1
        };
        match parent.compare_exchange_weak(s, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return new == WIN || new == LOSS,
            Err(actual) => s = actual,
        }
    }
}
