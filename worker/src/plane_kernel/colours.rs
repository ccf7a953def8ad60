//! Values only: the phases as passes over the blocks of one colour at a
//! time, each block's sheep phase and then its fox phase in one visit.
//!
//! A sideways sheep step moves a sheep to the next point of its rank, so
//! the number of sheep on odd-numbered points changes by one; a rank's
//! mirror image keeps every point's parity (ranks have an odd width). So
//! the *colour* of a sheep set (that number's parity, [`colour`]) is its
//! stored form's too, and every sideways step leads to a block of the
//! other colour ([`sideways_steps_change_colour`] checks this of the
//! board). A colour pass computes the blocks of one colour: a block's sheep
//! phase reads only the fox planes of the other colour, which no one writes
//! in that pass, and its fox phase, right after, reads only the block's own
//! sheep planes. So the passes need no copies and no locks (the only
//! atomics are the marks of the blocks the next pass visits, which threads
//! only set during a pass: [`colour_passes`]), and the planes after each
//! pass are the same for any thread count.
//!
//! Each pass reads what the pass before it decided, so a position is
//! decided in fewer block visits than by alternating a fox phase over
//! every block with a sheep phase over every block, where a sheep phase
//! reads fox planes one phase old (the crowded stand-in of
//! docs/results.md: 12.6 M sheep phases instead of 15.7 M). The order in
//! which positions are decided is no longer one ply a phase, so a solve
//! with plies keeps the alternating phases ([`super::solve`]). Values only
//! grow, so the fixpoint is the same ([`super`]).

use super::*;
use foxbase_core::board::{Board, RANK_MASK_OF_POINT};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};

/// Points with an odd number: a sheep set's colour counts its sheep there.
const ODD_POINTS: Bits = 0xAAAA_AAAA;

/// The colour of a sheep set (0 or 1): the parity of its sheep on odd-numbered points.
#[inline]
pub(super) fn colour(sheep: Bits) -> usize {
    ((sheep & ODD_POINTS).count_ones() & 1) as usize
}

/// Whether every sideways sheep step of `board` (one within a rank) moves a
/// sheep between points of different parity and every rank's mirror image
/// keeps each point's parity: then every sideways step changes a set's
/// [`colour`], stored mirrored or not. What the colour passes rest on.
pub(super) fn sideways_steps_change_colour(board: &Board) -> bool {
    (0..RANK_WIDTH.len()).all(|rank| RANK_WIDTH[rank] % 2 == 1)
        && (0..33u8).all(|from| {
            let same_rank = RANK_MASK_OF_POINT[from as usize];
            BitIter(board.sheep_steps[from as usize] & same_rank).all(|to| (from ^ to) & 1 == 1)
        })
        && (0..33u8).all(|p| mirror_point(p) & 1 == p & 1)
}

/// Whether every sideways sheep step of `board` has its reverse (a sheep
/// may step back to where it came from): then a block's sideways steps lead
/// to exactly the blocks with a sideways step into it, which is how
/// [`colour_passes`] finds the blocks to visit.
pub(super) fn sideways_steps_reverse(board: &Board) -> bool {
    (0..33u8).all(|from| {
        let same_rank = RANK_MASK_OF_POINT[from as usize];
        BitIter(board.sheep_steps[from as usize] & same_rank)
            .all(|to| board.sheep_steps[to as usize] & (1 << from) != 0)
    })
}

/// The fox planes of a tier while a colour pass computes the blocks of one
/// colour (or any per-block array of `T`, `stride` a block): each block of
/// that colour is written by the one work item that holds it; the blocks
/// of the other colour are only read.
pub(super) struct ColourPlanes<'a, T = u32> {
    planes: *mut T,
    stride: usize,
    blocks: usize,
    _planes: PhantomData<&'a mut [T]>,
}

// SAFETY: the pointer is to `blocks * stride` `T`s borrowed mutably for
// 'a; the passes share it between threads under the rule of
// `ColourPlanes::read` and `ColourPlanes::write`.
unsafe impl<T: Send> Send for ColourPlanes<'_, T> {}
unsafe impl<T: Sync> Sync for ColourPlanes<'_, T> {}

impl<'a, T> ColourPlanes<'a, T> {
    pub(super) fn new(planes: &'a mut [T], stride: usize) -> ColourPlanes<'a, T> {
        assert_eq!(planes.len() % stride, 0, "whole blocks");
        ColourPlanes { planes: planes.as_mut_ptr(), stride, blocks: planes.len() / stride, _planes: PhantomData }
    }

    /// Block `b`'s planes, to read.
    ///
    /// # Safety
    /// No one writes block `b` while the slice lives: in a colour pass, `b`
    /// is of the other colour.
    #[inline]
    pub(super) unsafe fn read(&self, b: usize) -> &[T] {
        assert!(b < self.blocks, "block {b} of {}", self.blocks);
        // SAFETY: in bounds (above); no writer, by the caller.
        unsafe { std::slice::from_raw_parts(self.planes.add(b * self.stride), self.stride) }
    }

    /// Block `b`'s planes, to write.
    ///
    /// # Safety
    /// No one else reads or writes block `b` while the slice lives: in a
    /// colour pass, `b` is of the pass's colour and in the caller's work item.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(super) unsafe fn write(&self, b: usize) -> &mut [T] {
        assert!(b < self.blocks, "block {b} of {}", self.blocks);
        // SAFETY: in bounds (above); the caller's alone.
        unsafe { std::slice::from_raw_parts_mut(self.planes.add(b * self.stride), self.stride) }
    }
}

/// The fox planes a colour pass's sheep phases read: those of the blocks
/// of the colour other than the pass's, and their lines ([`fox_line`]) where the
/// tier has [`BlockTraps`].
pub(super) struct OtherColour<'p, 'a> {
    planes: &'p ColourPlanes<'a>,
    lines: Option<&'p ColourPlanes<'a, Line>>,
}

impl FoxPlanes for OtherColour<'_, '_> {
    #[inline]
    fn block(&self, b: usize) -> &[u32] {
        // SAFETY: a sideways step leads to a block of the other colour
        // (`colour_passes` runs only where `sideways_steps_change_colour`),
        // which this pass does not write.
        unsafe { self.planes.read(b) }
    }

    #[inline]
    fn line(&self, b: usize) -> Option<&Line> {
        // SAFETY: as for `block`.
        self.lines.map(|lines| unsafe { &lines.read(b)[0] })
    }
}

/// A block's fox-to-move won and lost rows as the sheep steps into it read
/// them, with its placements that have a trapped fox ([`BlockTraps::trapped`],
/// valued by the initial pass) taken out: counted won (they never keep a
/// parent's loss from holding) and not lost. One cache line a block, where
/// the planes and the trapped rows are three to four: the sheep phase reads
/// a line at random per sideways step.
fn fox_line(f: &[u32], trapped: &[u16], rows: usize) -> Line {
    let (mut won, mut lost) = ([0u32; 16], [0u32; 16]);
    for i in 0..rows {
        won[i] = f[WON * rows + i] | trapped[i] as u32;
        lost[i] = f[LOST * rows + i] & !(trapped[i] as u32);
    }
    Line::of(&won, &lost, rows)
}

/// Colour passes from the planes after the initial pass (and its fox
/// phase) until a pass changes no fox plane: first every block of colour
/// 0, then every block of colour 1, then by turns the blocks of a colour
/// with a sideways step into a block whose fox planes the pass before
/// changed. Returns the passes that changed a fox plane.
///
/// A block whose fox planes change marks the blocks its own sideways steps
/// lead to, for the next pass: sideways steps go both ways
/// ([`sideways_steps_reverse`], which the caller checks), so those are
/// the blocks with a step into it, and a pass looks at a flag a block
/// instead of the blocks behind each of its steps. A mark is set only on
/// blocks of the colour the pass does not compute, and read and cleared
/// only by the pass that computes them, so a relaxed store and load do:
/// the marks after a pass are the same for any thread count and order.
pub(super) fn colour_passes<const BMI2: bool>(
    ctx: &Ctx,
    fox_planes: &mut [u32],
    sheep_planes: &mut [u32],
    sideways: &[Sideways],
    set_bits: &[Bits],
) -> u32 {
    let stride = ctx.stride;
    let item = BLOCKS_PER_ITEM * stride;
    // Per block: a block its sideways steps lead to changed its fox planes
    // since the block's own last pass.
    let marked: Vec<AtomicBool> = (0..set_bits.len()).map(|_| AtomicBool::new(false)).collect();
    // With block traps, every block's fox line, kept with its planes.
    let rows = ctx.rows;
    let mut lines: Vec<Line> = match &ctx.block_traps {
        Some(traps) => {
            fox_planes.par_chunks(stride).enumerate().map(|(b, f)| fox_line(f, traps.trapped(b), rows)).collect()
        }
        None => Vec::new(),
    };
    let fox_lines = ColourPlanes::new(&mut lines, 1);
    let fox_lines = ctx.block_traps.as_ref().map(|traps| (&fox_lines, traps));
    let fox = ColourPlanes::new(fox_planes, stride);
    let (mut passes, mut first, mut levels) = (0u32, true, 0u32);
    loop {
        let pass_colour = (passes % 2) as usize;
        let any = sheep_planes
            .par_chunks_mut(item)
            .zip(sideways)
            .enumerate()
            .map(|(it, (s, sideways))| {
                let mut mirror = MirrorTable::default();
                let other = OtherColour { planes: &fox, lines: fox_lines.map(|(lines, _)| lines) };
                let mut any = false;
                for (b, sb) in s.chunks_mut(stride).enumerate() {
                    let set = it * BLOCKS_PER_ITEM + b;
                    let sheep = set_bits[set];
                    if colour(sheep) != pass_colour {
                        continue;
                    }
                    // The first pass of a colour looks at every block of it
                    // (one without sideways steps may be lost already); then
                    // only the marked ones.
                    let was_marked = marked[set].load(Ordering::Relaxed);
                    if was_marked {
                        marked[set].store(false, Ordering::Relaxed);
                    }
                    if !first && !was_marked {
                        continue;
                    }
                    let steps = sideways.block(b);
                    if !ctx.sheep_phase::<BMI2, _>(sheep, sb, &other, steps, sideways, &mut mirror) {
                        continue;
                    }
                    // SAFETY: `set` is of this pass's colour and in this work item.
                    let fb = unsafe { fox.write(set) };
                    if !ctx.fox_phase_any::<BMI2>(sheep, fb, sb) {
                        continue;
                    }
                    if let Some((lines, traps)) = fox_lines {
                        // SAFETY: as for the planes.
                        unsafe { lines.write(set)[0] = fox_line(fb, traps.trapped(set), rows) };
                    }
                    for step in steps {
                        marked[step.child as usize].store(true, Ordering::Relaxed);
                    }
                    any = true;
                }
                any
            })
            .reduce(|| false, |a, b| a || b);
        passes += 1;
        levels += any as u32;
        first = passes < 2;
        if !first && !any {
            return levels;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foxbase_core::board::{mirror_bits, ALL_POINTS};
    use foxbase_core::Geometry;

    /// Every sideways sheep step of both boards, from sets of every size
    /// around it, changes the set's colour; a set's mirror image has its
    /// colour: what the colour passes rest on, which the board check says.
    #[test]
    fn every_sideways_step_changes_a_sets_colour() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut random_set = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state & ALL_POINTS
        };
        for geometry in Geometry::ALL {
            let board = Board::get(geometry);
            assert!(sideways_steps_change_colour(board), "{geometry:?}");
            assert!(sideways_steps_reverse(board), "{geometry:?}");
            let mut steps = 0;
            for from in 0..33u8 {
                for to in BitIter(board.sheep_steps[from as usize] & RANK_MASK_OF_POINT[from as usize]) {
                    steps += 1;
                    for _ in 0..200 {
                        let sheep = (random_set() | 1 << from) & !(1 << to);
                        let moved = sheep ^ (1 << from) ^ (1 << to);
                        assert_ne!(colour(sheep), colour(moved), "{geometry:?} {from} -> {to} from {sheep:#x}");
                        assert_eq!(colour(moved), colour(mirror_bits(moved)), "{moved:#x}");
                    }
                }
            }
            // Each point steps to its neighbours in its rank: four steps in
            // each of the four ranks of three, twelve in each rank of seven.
            assert_eq!(steps, 4 * 4 + 3 * 12, "{geometry:?}");
        }
    }
}
