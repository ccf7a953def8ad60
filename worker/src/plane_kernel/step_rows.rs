//! A block's sheep steps into child blocks of [`ChildPlanes`](super::child_planes::ChildPlanes),
//! sixteen rows at a time: values and plies to zeroing (where those child
//! blocks are built), two foxes, at most [`ROWS_ONCE_PER_SET`] free points.
//!
//! Such a child block is one [`Line`]: its won and lost rows (fox to move),
//! sixteen 16-bit rows a plane, so four 64-bit words a plane. A sheep step
//! frees one point and fills another, so the child's free points are the
//! parent's (for a child stored mirrored, those of the parent's mirror
//! image: the step's *frame*) but for one point each way, and its rows
//! map onto the frame's as its columns do ([`ColumnMap`]): the rows between
//! the two points move by one, the others stay. Both maps are masks and
//! shifts of whole words, four rows at once, where a row at a time took a
//! count of bits to find the row, the column map and (for a mirrored
//! child) four table reads to mirror it.
//!
//! What a step gives (the frame's placements where the child is lost for
//! the foxes: won for the sheep; where it is not won: the sheep cannot
//! lose) only ever adds bits to the sheep planes, so the steps of both
//! frames are gathered apart and added to the planes once per block
//! ([`StepRows::add_to`]); the mirrored frame's rows and columns are then
//! mirrored once, by the block's [`MirrorTable`], not once per step.

use super::*;

/// Lanes of 16 bits, four to a word: lane `j` of a plane is word `j / 4`,
/// bits `16 (j % 4)` up.
type Lanes = [u64; 4];

/// The lanes of the four bits of a nibble, each bit a full lane.
const LANES_OF_NIBBLE: [u64; 16] = {
    let mut table = [0u64; 16];
    let mut v = 0;
    while v < 16 {
        let mut lane = 0;
        while lane < 4 {
            if v & (1 << lane) != 0 {
                table[v] |= 0xFFFF << (16 * lane);
            }
            lane += 1;
        }
        v += 1;
    }
    table
};

/// A 16-bit mask in every lane of a word.
const EVERY_LANE: u64 = 0x0001_0001_0001_0001;

/// Lanes `j` full where bit `j` of `rows` is set.
#[inline(always)]
fn lanes_of(rows: u16) -> Lanes {
    let r = rows as usize;
    [LANES_OF_NIBBLE[r & 15], LANES_OF_NIBBLE[(r >> 4) & 15], LANES_OF_NIBBLE[(r >> 8) & 15], LANES_OF_NIBBLE[r >> 12]]
}

/// Lane `j` of `lanes`.
#[inline(always)]
fn lane(lanes: &Lanes, j: usize) -> u32 {
    ((lanes[j / 4] >> (16 * (j % 4))) & 0xFFFF) as u32
}

/// A plane's sixteen rows of a [`Line`] as words.
#[inline(always)]
fn words(rows: &[u16]) -> Lanes {
    let word = |k: usize| {
        rows[4 * k] as u64
            | (rows[4 * k + 1] as u64) << 16
            | (rows[4 * k + 2] as u64) << 32
            | (rows[4 * k + 3] as u64) << 48
    };
    [word(0), word(1), word(2), word(3)]
}

/// The won and lost rows a block's sheep steps into [`ChildPlanes`](super::child_planes::ChildPlanes) give
/// its sheep planes, gathered per frame (0: the block's own coordinates,
/// 1: its mirror image's).
#[derive(Default)]
pub(super) struct StepRows {
    /// Where a step's child is lost for the foxes: won for the sheep.
    won: [Lanes; 2],
    /// Where a step's child is not won for the foxes: the sheep cannot lose.
    open: [Lanes; 2],
    /// Where a step's child is won for the foxes (with plies to zeroing,
    /// a child of 0 plies lost for the sheep).
    child_won: [Lanes; 2],
    /// Rows `0..n`, each without its own bit (the foxes on two points),
    /// and nothing past `n`: the placements of `n` free points.
    placements: Lanes,
    n: usize,
    /// A step of the frame was added.
    any: [bool; 2],
}

impl StepRows {
    /// Empty, for a block of `n` free points (at most 16).
    #[inline]
    pub(super) fn start(&mut self, n: usize) {
        debug_assert!(n <= ROWS_ONCE_PER_SET, "{n} free points");
        if self.n != n {
            let full = row_mask(n) as u64;
            self.placements = std::array::from_fn(|k| {
                (0..4).fold(0u64, |word, lane| {
                    let j = 4 * k + lane;
                    let row = if j < n { full & !(1 << j) } else { 0 };
                    word | row << (16 * lane)
                })
            });
            self.n = n;
        }
        self.won = [[0; 4]; 2];
        self.open = [[0; 4]; 2];
        self.child_won = [[0; 4]; 2];
        self.any = [false; 2];
    }

    /// The sheep step whose child block is `line` (in the child's stored
    /// coordinates), read in the frame through `map`; `kt`: the index in
    /// the frame of the point the sheep steps to (a fox there blocks the
    /// step). Returns false, adding nothing, where the map is not one point
    /// each way (then the step takes the row-at-a-time path).
    #[inline(always)]
    pub(super) fn add(&mut self, line: &Line, map: &ColumnMap, kt: usize) -> bool {
        let Some((keep, down, up)) = map.one_each_way() else { return false };
        let (won_rows, lost_rows) = line.planes(16);
        let (won, lost) = (words(won_rows), words(lost_rows));
        // Rows: frame row `j` is the child's row `j`, `j + 1` or `j - 1`.
        let (rows_keep, rows_down, rows_up) = (lanes_of(keep), lanes_of(down), lanes_of(up));
        // Columns, in every lane; a shift never carries a bit into the next lane.
        let (cols_keep, cols_down, cols_up) =
            (keep as u64 * EVERY_LANE, (down & 0x7FFF) as u64 * EVERY_LANE, (up & 0xFFFE) as u64 * EVERY_LANE);
        let map_block = |w: &Lanes| -> Lanes {
            let word = |k: usize| {
                let next = if k < 3 { w[k + 1] << 48 } else { 0 };
                let before = if k > 0 { w[k - 1] >> 48 } else { 0 };
                let row = (w[k] & rows_keep[k])
                    | (((w[k] >> 16) | next) & rows_down[k])
                    | (((w[k] << 16) | before) & rows_up[k]);
                (row & cols_keep) | ((row >> 1) & cols_down) | ((row << 1) & cols_up)
            };
            [word(0), word(1), word(2), word(3)]
        };
        let (won, lost) = (map_block(&won), map_block(&lost));
        // Not a fox on `kt`: neither its row nor its column.
        let blocked_column = ((1u64 << kt) & 0xFFFF) * EVERY_LANE;
        let frame = map.mirrored as usize;
        for k in 0..4 {
            let blocked_row = if kt / 4 == k { 0xFFFFu64 << (16 * (kt % 4)) } else { 0 };
            let ok = self.placements[k] & !blocked_column & !blocked_row;
            self.won[frame][k] |= lost[k] & ok;
            self.open[frame][k] |= !won[k] & ok;
            self.child_won[frame][k] |= won[k] & ok;
        }
        self.any[frame] = true;
        true
    }

    /// Adds what the steps gave to the block's sheep planes `s` (`won_plane`:
    /// where a child lost for the foxes goes), the mirrored frame's through
    /// `mirror` (set to the block's free points here); with plies to
    /// zeroing, the children of 0 plies to `zeroing` too.
    #[inline]
    pub(super) fn add_to(
        &self,
        view: &SetView,
        s: &mut [u32],
        won_plane: usize,
        mirror: &mut MirrorTable,
        mut zeroing: Option<&mut PlyScratch>,
    ) {
        if self.any[0] {
            for i in 0..self.n {
                self.add_row(s, won_plane, zeroing.as_deref_mut(), (0, i), i, |row| row);
            }
        }
        if self.any[1] {
            mirror.set_free(view.free);
            let mirror = &*mirror;
            // Row `j` of the mirror image is the fox on the mirror of its point.
            for (j, q) in BitIter(mirror_bits(view.free)).enumerate() {
                let i = view.index_of(mirror_point(q));
                self.add_row(s, won_plane, zeroing.as_deref_mut(), (1, j), i, |row| mirror.apply(row));
            }
        }
    }

    /// Row `j` of frame `frame`, through `map`, into row `i` of the planes.
    #[inline(always)]
    fn add_row(
        &self,
        s: &mut [u32],
        won_plane: usize,
        zeroing: Option<&mut PlyScratch>,
        (frame, j): (usize, usize),
        i: usize,
        map: impl Fn(u32) -> u32,
    ) {
        let n = self.n;
        let lost_child = map(lane(&self.won[frame], j));
        s[won_plane * n + i] |= lost_child;
        s[CANNOT_LOSE * n + i] |= map(lane(&self.open[frame], j));
        if let Some(plies) = zeroing {
            plies.zeroing_children(SHEEP, i, lost_child, map(lane(&self.child_won[frame], j)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foxbase_core::board::{Board, ALL_POINTS};
    use foxbase_core::Geometry;

    /// Every sheep step from random crowded sets (13 to 16 free points) of
    /// both boards, into a child stored as it is or mirrored, with random
    /// child rows: the sheep planes from [`StepRows`] are those of the
    /// row-at-a-time path ([`ColumnMap::row`] for every row), bit for bit.
    #[test]
    fn steps_sixteen_rows_at_a_time_give_the_rows_of_a_row_at_a_time() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut steps, mut mirrored_steps) = (0, 0);
        for geometry in Geometry::ALL {
            let board = Board::get(geometry);
            for _ in 0..300 {
                // Free points: 13 to 16 of the 33.
                let n = 13 + (next() % 4) as usize;
                let mut free = 0u64;
                while (free.count_ones() as usize) < n {
                    free |= 1 << (next() % 33);
                }
                let sheep = ALL_POINTS & !free;
                let view = SetView::new(sheep);
                let mut rows = StepRows::default();
                rows.start(n);
                let (mut want, mut got) = ([0u32; PLANES * 16], [0u32; PLANES * 16]);
                let mut mirror = MirrorTable::default();
                mirror.set_free(view.free);
                for from in BitIter(sheep) {
                    for to in BitIter(board.sheep_steps[from as usize] & free) {
                        let child_free = free ^ (1 << from) ^ (1 << to);
                        let mirrored = next() % 2 == 1;
                        let stored_free = if mirrored { mirror_bits(child_free) } else { child_free };
                        let map = ColumnMap::new(stored_free, mirrored, free);
                        let mut line = Line::EMPTY;
                        for i in 0..n {
                            line.0[i] = (next() as u16) & row_mask(n) as u16;
                            line.0[16 + i] = (next() as u16) & row_mask(n) as u16;
                        }
                        let kt = view.index_of(to);
                        let kt_in_frame = if mirrored {
                            (mirror_bits(free) & ((1u64 << mirror_point(to)) - 1)).count_ones() as usize
                        } else {
                            kt
                        };
                        assert!(rows.add(&line, &map, kt_in_frame), "one point each way");
                        let (won, lost) = line.planes(n);
                        for i in (0..n).filter(|&i| i != kt) {
                            let ok = row_mask(n) & !(1 << i) & !(1 << kt);
                            want[WON * n + i] |= map.row(lost, view.points[i], &mirror) & ok;
                            want[CANNOT_LOSE * n + i] |= !map.row(won, view.points[i], &mirror) & ok;
                        }
                        steps += 1;
                        mirrored_steps += mirrored as u32;
                    }
                }
                rows.add_to(&view, &mut got, WON, &mut mirror, None);
                assert_eq!(want, got, "{geometry:?}, sheep {sheep:#x}");
            }
        }
        assert!(steps > 3_000 && mirrored_steps > 1_000, "{steps} steps, {mirrored_steps} mirrored");
    }

    #[test]
    fn lanes_of_a_mask_are_its_bits_sixteen_wide() {
        let lanes = lanes_of(0b1000_0000_0010_0101);
        for j in 0..16 {
            let full = [0, 2, 5, 15].contains(&j);
            assert_eq!(lane(&lanes, j), if full { 0xFFFF } else { 0 }, "lane {j}");
        }
    }
}
