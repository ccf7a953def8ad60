//! The block kernel: the counter kernel's algorithm ([`crate::kernel`]),
//! organised around the structure of the Fox Game, where a sheep set is
//! shared by every placement of its foxes.
//!
//! A *block* is one canonical sheep set with all its fox placements (up to
//! C(32, 2) of them, both sides to move). What a child's index costs in the
//! counter kernel (its tier, the search for its child table, mirroring and
//! ranking its sheep set) depends only on the sheep set the move leads to,
//! so it is worked out once per block and move ([`Target`]); per position
//! only the foxes are indexed (two popcounts). Moves are generated here move
//! by move rather than through `for_each_child`, so that each knows its
//! target; tests check that the tables are byte-identical to the counter
//! kernel's on every variant of the test suite. Propagation is the counter
//! kernel's, with in-tier parents ranked through a small cache of sheep
//! sets, since the parents of one position share at most a few.
//!
//! Values are a function of the position, so any correct order of decisions
//! gives the same table: the counter kernel is the oracle (`--kernel counter`).

use crate::kernel::{
    propagate_and_pack, update_parent, update_parent_alone, ChildTable, KernelError, Phases, SolvedTier, CHUNK, EMPTY,
    LOSS, LOSS_AT_START, MAX_COUNTER, WIN, WIN_AT_START,
};
use foxbase_core::board::{mirror_bits, BitIter, Bits, ALL_POINTS, PEN, RANK_MASK_OF_POINT};
use foxbase_core::foxgame::{FoxGame, FoxTier, SetRank, TierIndex};
use foxbase_core::tier::TierGame;
use foxbase_core::{Position, Side, Value};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};

/// A sheep set a move leads to: where its positions are (this tier, a
/// child table, or nowhere: every such position is over) and the sheep part
/// of their indexes there.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    InTier(SetRank),
    Child(usize, SetRank),
    NoTable,
}

impl Target {
    pub(crate) fn new(
        tier: FoxTier,
        index: &TierIndex,
        children: &[ChildTable<FoxGame>],
        sheep: Bits,
        foxes: u32,
    ) -> Target {
        Target::among(tier, index, children.iter().map(|c| (c.tier, &c.index)), sheep, foxes)
    }

    /// [`Target::new`] with the child tables given as (tier, layout) pairs, in order.
    pub(crate) fn among<'a>(
        tier: FoxTier,
        index: &TierIndex,
        children: impl Iterator<Item = (FoxTier, &'a TierIndex)>,
        sheep: Bits,
        foxes: u32,
    ) -> Target {
        let t = FoxTier::of(sheep, foxes);
        if t == tier {
            return Target::InTier(index.set_rank(sheep));
        }
        for (k, (child, child_index)) in children.enumerate() {
            if child == t {
                return Target::Child(k, child_index.set_rank(sheep));
            }
        }
        Target::NoTable
    }

    /// The sheep part of the rank. Precondition: the positions have a table.
    #[inline]
    fn rank(&self) -> &SetRank {
        match self {
            Target::InTier(r) | Target::Child(_, r) => r,
            Target::NoTable => unreachable!("positions of a tier without a table have no slot"),
        }
    }

    /// The slot of `foxes` (as they stand before any mirroring) and `side`.
    #[inline]
    fn slot(&self, foxes: Bits, side: Side) -> u64 {
        self.rank().slot(foxes, side)
    }
}

/// A sheep step of a block: where it goes, and the sheep set after it.
struct SheepStep {
    to: u8,
    moved: Bits,
    /// The pen is not yet filled after it, so trapped foxes are removed.
    removes: bool,
    /// The target with all foxes kept, and with one fox removed (two-fox tiers).
    keep: Target,
    fewer: Option<Target>,
}

/// What the block's moves need, worked out once per sheep set.
struct Block {
    sheep: Bits,
    own: Target,
    steps: Vec<SheepStep>,
    /// Per point: the target of capturing the sheep there.
    captures: [Option<Target>; 33],
    /// Every fox-to-move position is over (the pen holds K sheep).
    fox_over: bool,
    /// Every sheep-to-move position is over (fewer than K sheep).
    sheep_over: bool,
    /// Two sheep steps lead to the same canonical sheep set of this tier,
    /// so a position's in-tier children may coincide and must be deduplicated.
    steps_may_merge: bool,
}

impl Block {
    fn new(game: &FoxGame, tier: FoxTier, index: &TierIndex, children: &[ChildTable<FoxGame>], sheep: Bits) -> Block {
        let foxes = tier.foxes();
        let board = game.rules.board;
        let own = Target::new(tier, index, children, sheep, foxes);
        let mut steps = Vec::new();
        for from in BitIter(sheep) {
            for to in BitIter(board.sheep_steps[from as usize] & !sheep) {
                let moved = sheep ^ (1 << from) ^ (1 << to);
                steps.push(SheepStep {
                    to,
                    moved,
                    removes: (moved & PEN).count_ones() < game.rules.pen_target,
                    keep: Target::new(tier, index, children, moved, foxes),
                    fewer: (foxes > 1).then(|| Target::new(tier, index, children, moved, foxes - 1)),
                });
            }
        }
        let mut captures = [None; 33];
        for over in BitIter(sheep) {
            captures[over as usize] = Some(Target::new(tier, index, children, sheep ^ (1 << over), foxes));
        }
        let mut in_tier_sets: Vec<u64> =
            steps.iter().filter(|s| matches!(s.keep, Target::InTier(_))).map(|s| s.keep.rank().base).collect();
        let n = in_tier_sets.len();
        in_tier_sets.sort_unstable();
        in_tier_sets.dedup();
        let k = game.rules.pen_target;
        Block {
            sheep,
            own,
            steps,
            captures,
            fox_over: (sheep & PEN).count_ones() >= k,
            sheep_over: sheep.count_ones() < k,
            steps_may_merge: in_tier_sets.len() < n,
        }
    }
}

/// The initial state of the position `(block.sheep, foxes, side)`, as
/// [`crate::kernel`]'s `init_position` gives it (a counter, or WIN, LOSS, DRAW).
#[inline]
fn init_position(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildTable<FoxGame>],
    block: &Block,
    foxes: Bits,
    side: Side,
    in_tier: &mut Vec<u64>,
) -> Result<u8, KernelError> {
    let sheep = block.sheep;
    // Game over by the last move (`Rules::ended_by_last_move`; a tier's
    // positions always have foxes). A position without moves needs no
    // check of its own: it has no children, so its counter is 0, a loss,
    // which is what `primitive` says of it.
    let (over, need_dedup) = match side {
        Side::Fox => (block.fox_over, block.own.rank().symmetric),
        Side::Sheep => (block.sheep_over, block.steps_may_merge),
    };
    if over {
        return Ok(LOSS);
    }
    // In-tier children are listed (to deduplicate) only when two of them
    // can be one position; otherwise they are just counted.
    in_tier.clear();
    let mut in_tier_count = 0usize;
    let mut draw_outside = false;
    // The value of a child outside the tier.
    let outside =
        |target: &Target, child_sheep: Bits, child_foxes: Bits, child_side: Side| -> Result<Value, KernelError> {
            match *target {
                Target::Child(k, rank) => {
                    let i = rank.slot(child_foxes, child_side);
                    children[k].values.value(i).ok_or_else(|| {
                        KernelError::Inconsistent(format!(
                            "child tier {} has an unused slot at {i}, where {:?} belongs",
                            children[k].tier.name(),
                            Position::from_parts_unchecked(child_sheep, child_foxes, child_side)
                        ))
                    })
                }
                Target::NoTable => {
                    let child = Position::from_parts_unchecked(child_sheep, child_foxes, child_side);
                    game.primitive(&child).ok_or_else(|| {
                        KernelError::Inconsistent(format!(
                            "child {child:?} is in tier {}, which is not loaded (missing from child_tiers?)",
                            game.tier_of(&child).name()
                        ))
                    })
                }
                Target::InTier(_) => unreachable!("in-tier children are counted, not valued"),
            }
        };
    let board = game.rules.board;
    let empty = ALL_POINTS & !(sheep | foxes);
    match side {
        Side::Fox => {
            for from in BitIter(foxes) {
                let rest = foxes ^ (1 << from);
                for j in board.jumps_from(from) {
                    if sheep & (1 << j.over) != 0 && empty & (1 << j.to) != 0 {
                        let target = block.captures[j.over as usize].as_ref().expect("a capture target per sheep");
                        let child_foxes = rest | (1 << j.to);
                        match target {
                            Target::InTier(_) => unreachable!("a capture leaves the tier"),
                            _ => match outside(target, sheep ^ (1 << j.over), child_foxes, Side::Sheep)? {
                                Value::Loss => return Ok(WIN),
                                Value::Draw => draw_outside = true,
                                Value::Win => {}
                            },
                        }
                    }
                }
            }
            for from in BitIter(foxes) {
                let steps = board.neighbours[from as usize] & empty;
                if need_dedup {
                    let rest = foxes ^ (1 << from);
                    for to in BitIter(steps) {
                        in_tier.push(block.own.slot(rest | (1 << to), Side::Sheep));
                    }
                } else {
                    in_tier_count += steps.count_ones() as usize;
                }
            }
        }
        Side::Sheep => {
            // A fox with two or more empty neighbours keeps a step after any
            // one sheep move (which fills one point and empties another), so
            // it cannot be trapped by it: most positions skip the check.
            let may_trap = BitIter(foxes).any(|f| (board.neighbours[f as usize] & empty).count_ones() <= 1);
            for step in &block.steps {
                if foxes & (1 << step.to) != 0 {
                    continue;
                }
                let mut left = foxes;
                if step.removes && may_trap {
                    left &= !game.rules.trapped_foxes(step.moved, foxes);
                }
                let target = if left == foxes {
                    &step.keep
                } else if left != 0 && left.count_ones() + 1 == foxes.count_ones() {
                    step.fewer.as_ref().expect("a target with one fox fewer")
                } else {
                    // No fox left: the foxes have lost.
                    return Ok(WIN);
                };
                match target {
                    Target::InTier(rank) if need_dedup => in_tier.push(rank.slot(left, Side::Fox)),
                    Target::InTier(_) => in_tier_count += 1,
                    _ => match outside(target, step.moved, left, Side::Fox)? {
                        Value::Loss => return Ok(WIN),
                        Value::Draw => draw_outside = true,
                        Value::Win => {}
                    },
                }
            }
        }
    }
    if need_dedup {
        in_tier.sort_unstable();
        in_tier.dedup();
        in_tier_count = in_tier.len();
    }
    let counter = in_tier_count + draw_outside as usize;
    if counter == 0 {
        return Ok(LOSS);
    }
    if counter >= MAX_COUNTER as usize {
        return Err(KernelError::TooManyChildren { tier: tier.name(), children: counter, limit: MAX_COUNTER });
    }
    Ok(counter as u8)
}

/// A decoded sheep set, kept while consecutive decided positions share it.
struct DecodedSet {
    set: u64,
    sheep: Bits,
    /// Its points without sheep, in order.
    free_points: [u8; 33],
    /// Where its own positions are (for fox un-steps).
    own: Target,
    /// The pen holds K sheep: its sheep-to-move positions have no parents
    /// (a fox-to-move parent would already be over).
    pen_filled: bool,
    /// Sideways sheep un-steps into it: the point the sheep came from, and
    /// the target of the sheep set before the step.
    unsteps: Vec<(u8, Target)>,
    /// Parents of its sheep-to-move positions may coincide (it is its own mirror).
    symmetric: bool,
    /// Parents of its fox-to-move positions may coincide: two sideways
    /// un-steps lead to the same canonical sheep set.
    unsteps_may_merge: bool,
}

impl DecodedSet {
    fn new(game: &FoxGame, tier: FoxTier, index: &TierIndex, set: u64) -> DecodedSet {
        let sheep = index.sheep_set(set);
        let mut free_points = [0u8; 33];
        for (k, p) in BitIter(ALL_POINTS & !sheep).enumerate() {
            free_points[k] = p;
        }
        let mut unsteps = Vec::new();
        for to in BitIter(sheep) {
            let froms = game.rules.board.sheep_unsteps[to as usize] & !sheep & RANK_MASK_OF_POINT[to as usize];
            for from in BitIter(froms) {
                let q = (sheep & !(1 << to)) | 1 << from;
                unsteps.push((from, Target::new(tier, index, &[], q, tier.foxes())));
            }
        }
        let mut bases: Vec<u64> = unsteps.iter().map(|(_, t)| t.rank().base).collect();
        let n = bases.len();
        bases.sort_unstable();
        bases.dedup();
        DecodedSet {
            set,
            sheep,
            free_points,
            own: Target::new(tier, index, &[], sheep, tier.foxes()),
            pen_filled: (sheep & PEN).count_ones() >= game.rules.pen_target,
            unsteps,
            symmetric: sheep == mirror_bits(sheep),
            unsteps_may_merge: bases.len() < n,
        }
    }
}

/// Recently decoded sheep sets, direct-mapped by set index.
struct SetCache {
    entries: Vec<Option<DecodedSet>>,
}

impl Default for SetCache {
    fn default() -> SetCache {
        SetCache { entries: (0..16).map(|_| None).collect() }
    }
}

impl SetCache {
    #[inline]
    fn get(&mut self, game: &FoxGame, tier: FoxTier, index: &TierIndex, set: u64) -> &DecodedSet {
        let e = &mut self.entries[(set % 16) as usize];
        if e.as_ref().is_none_or(|d| d.set != set) {
            *e = Some(DecodedSet::new(game, tier, index, set));
        }
        e.as_ref().unwrap()
    }
}

/// Scratch of one propagation work item.
#[derive(Default)]
struct Scratch {
    parents: Vec<u64>,
    sets: SetCache,
}

/// The initial pass over every slot of a tier: unused slots stay EMPTY,
/// every position gets its counter or its decided state (`WIN_AT_START`,
/// `LOSS_AT_START`). Each child value is read once; nothing propagates.
fn initial_pass(
    game: &FoxGame,
    tier: FoxTier,
    index: &TierIndex,
    children: &[ChildTable<FoxGame>],
    state: &[AtomicU8],
) -> Result<(), KernelError> {
    let per_set = index.fox_slots * 2;
    // Work items of whole sheep sets, about CHUNK slots each.
    let sets_per_item = (CHUNK as u64 / per_set).max(1);
    let items: Vec<u64> = (0..index.sheep_sets.div_ceil(sets_per_item)).collect();
    let fox_count = tier.foxes();
    items.par_iter().try_for_each(|&item| -> Result<(), KernelError> {
        let mut in_tier: Vec<u64> = Vec::with_capacity(128);
        let mut free_points = [0u8; 33];
        for set in item * sets_per_item..((item + 1) * sets_per_item).min(index.sheep_sets) {
            let sheep = index.sheep_set(set);
            let block = Block::new(game, tier, index, children, sheep);
            let symmetric = block.own.rank().symmetric;
            let free = ALL_POINTS & !sheep;
            let n = free.count_ones() as usize;
            for (k, p) in BitIter(free).enumerate() {
                free_points[k] = p;
            }
            let base = set * per_set;
            let mut put = |fox_idx: u64, foxes: Bits| -> Result<(), KernelError> {
                let slot = base + fox_idx * 2;
                if symmetric && mirror_bits(foxes) < foxes {
                    return Ok(());
                }
                for (side, s) in [(Side::Fox, slot), (Side::Sheep, slot + 1)] {
                    let v = match init_position(game, tier, children, &block, foxes, side, &mut in_tier)? {
                        WIN => WIN_AT_START,
                        LOSS => LOSS_AT_START,
                        v => v,
                    };
                    state[s as usize].store(v, Ordering::Relaxed);
                }
                Ok(())
            };
            if fox_count == 1 {
                for (i, &p) in free_points[..n].iter().enumerate() {
                    put(i as u64, 1 << p)?;
                }
            } else {
                let mut idx = 0;
                for h in 1..n {
                    for l in 0..h {
                        put(idx, (1 << free_points[h]) | (1 << free_points[l]))?;
                        idx += 1;
                    }
                }
            }
        }
        Ok(())
    })
}

/// Solves a Fox Game tier with the block kernel, on the calling thread's
/// rayon pool. Same preconditions and results as [`crate::kernel::solve_in_pool`].
pub fn solve_fox_in_pool(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildTable<FoxGame>],
) -> Result<SolvedTier, KernelError> {
    let index = game.tier_index(tier);
    let size = game.tier_size(&index);
    if size >= u32::MAX as u64 {
        return Err(KernelError::TooLarge { tier: tier.name(), size });
    }
    let started = std::time::Instant::now();
    let mut phases = Phases::default();
    let state: Vec<AtomicU8> = (0..size).map(|_| AtomicU8::new(EMPTY)).collect();
    let per_set = index.fox_slots * 2;
    let fox_count = tier.foxes();
    initial_pass(game, tier, &index, children, &state)?;
    phases.init = started.elapsed().as_secs_f64();

    // Fox index -> positions of the foxes among the free points (the same
    // for every sheep set of the tier).
    let fox_places: Vec<(u8, u8)> = if fox_count == 1 {
        (0..index.fox_slots as u8).map(|i| (i, i)).collect()
    } else {
        let n = 33 - tier.sheep() as u8;
        (1..n).flat_map(|h| (0..h).map(move |l| (h, l))).collect()
    };
    debug_assert_eq!(fox_places.len() as u64, index.fox_slots);
    // One thread owns every counter: no atomic read-modify-writes needed.
    let alone = rayon::current_num_threads() == 1;
    let board = game.rules.board;
    // A sheep-to-move parent is over with fewer than K sheep (the tier's count).
    let sheep_parents_over = tier.sheep() < game.rules.pen_target;
    // The in-tier parents of a decided position, as `for_each_parent_in_tier`
    // gives them (the tests compare the tables with the counter kernel's),
    // ranked through the decoded sheep set's targets.
    let walk_back = |c: u64, next: &mut Vec<u32>, scratch: &mut Scratch| {
        let decided = state[c as usize].load(Ordering::Relaxed);
        let set = c / per_set;
        let Scratch { parents, sets, .. } = scratch;
        let d = sets.get(game, tier, &index, set);
        let (h, l) = fox_places[((c % per_set) >> 1) as usize];
        let foxes = (1u64 << d.free_points[h as usize]) | (1u64 << d.free_points[l as usize]);
        let empty = ALL_POINTS & !(d.sheep | foxes);
        parents.clear();
        let dedup = if c & 1 == 1 {
            // Sheep to move: a fox stepped last (fox un-steps, same sheep set).
            if d.pen_filled {
                return;
            }
            for to in BitIter(foxes) {
                let rest = foxes & !(1 << to);
                for from in BitIter(board.neighbours[to as usize] & empty) {
                    parents.push(d.own.slot(rest | 1 << from, Side::Fox));
                }
            }
            d.symmetric
        } else {
            // Fox to move: a sheep stepped sideways last, and removed no fox,
            // so no fox may be trapped now unless the pen is full. A fox with
            // an empty neighbour is not trapped.
            if sheep_parents_over {
                return;
            }
            let may_be_trapped = BitIter(foxes).any(|f| board.neighbours[f as usize] & empty == 0);
            if !d.pen_filled && may_be_trapped && game.rules.trapped_foxes(d.sheep, foxes) != 0 {
                return;
            }
            for (from, target) in &d.unsteps {
                if foxes & (1 << from) == 0 {
                    parents.push(target.slot(foxes, Side::Sheep));
                }
            }
            d.unsteps_may_merge
        };
        if dedup {
            parents.sort_unstable();
            parents.dedup();
        }
        for &p in parents.iter() {
            let now_decided = if alone {
                update_parent_alone(&state[p as usize], decided)
            } else {
                update_parent(&state[p as usize], decided)
            };
            if now_decided {
                next.push(p as u32);
            }
        }
    };
    Ok(propagate_and_pack(&state, &walk_back, phases))
}
