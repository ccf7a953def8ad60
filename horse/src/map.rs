//! The map format (docs/horse.md) and the board it describes.
//!
//! ```text
//! # a comment: only before the `walls` line
//! walls 3
//! ~~~~~
//! ~.H.~
//! ~C.1.
//! ~.1~~
//! ```
//!
//! Lines starting with `#` before the `walls K` line are comments. After it
//! every line is a row of the grid, one character a tile (a row may start
//! with rock `#`, so comments end where the grid begins); trailing empty
//! lines are ignored. All rows have the same length. `.` grass, `~` water,
//! `#` rock, `H` the horse (on grass; exactly one), `C` a cherry, `A` a
//! golden apple, `B` bees (all three on grass), and a digit a portal tile
//! (grass), each digit on exactly two tiles, which are joined as if they
//! were neighbours. Walls go on plain grass (`.`) only.

use std::fmt;

/// One tile of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tile {
    Grass,
    Water,
    Rock,
    Horse,
    Cherry,
    Apple,
    Bees,
    /// A portal tile; the digit names its pair.
    Portal(u8),
}

impl Tile {
    /// The tile a map character stands for.
    pub fn from_char(c: char) -> Option<Tile> {
        Some(match c {
            '.' => Tile::Grass,
            '~' => Tile::Water,
            '#' => Tile::Rock,
            'H' => Tile::Horse,
            'C' => Tile::Cherry,
            'A' => Tile::Apple,
            'B' => Tile::Bees,
            '0'..='9' => Tile::Portal(c as u8 - b'0'),
            _ => return None,
        })
    }

    /// The map character of the tile ([`Tile::from_char`]'s inverse).
    pub fn to_char(self) -> char {
        match self {
            Tile::Grass => '.',
            Tile::Water => '~',
            Tile::Rock => '#',
            Tile::Horse => 'H',
            Tile::Cherry => 'C',
            Tile::Apple => 'A',
            Tile::Bees => 'B',
            Tile::Portal(d) => (b'0' + d) as char,
        }
    }

    /// Whether the horse can stand on the tile (everything but water and rock).
    pub fn is_passable(self) -> bool {
        !matches!(self, Tile::Water | Tile::Rock)
    }

    /// Whether a wall may go on the tile: plain grass only.
    pub fn is_wallable(self) -> bool {
        self == Tile::Grass
    }

    /// What the tile is worth inside a trapped region: its point plus its
    /// bonus. This is the game's one table of values.
    pub fn value(self) -> i64 {
        match self {
            Tile::Grass | Tile::Horse | Tile::Portal(_) => 1,
            Tile::Cherry => 1 + 3,
            Tile::Apple => 1 + 10,
            Tile::Bees => 1 - 5,
            Tile::Water | Tile::Rock => 0,
        }
    }
}

/// What is wrong with a map's text, and where (lines and columns from 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("line {line}: expected `walls K` (K a number of walls), found {found:?}")]
    WallsLine { line: usize, found: String },
    #[error("the map has no `walls K` line")]
    NoWallsLine,
    #[error("the map has no grid after its `walls` line")]
    NoGrid,
    #[error("line {line}, column {column}: unexpected character {character:?} (expected one of . ~ # H C A B 0-9)")]
    Character { line: usize, column: usize, character: char },
    #[error("line {line}: the row has {found} tiles, the first row has {expected}")]
    RowLength { line: usize, found: usize, expected: usize },
    #[error("line {line}, column {column}: a second horse (the first is at line {first_line}, column {first_column})")]
    SecondHorse { line: usize, column: usize, first_line: usize, first_column: usize },
    #[error("the map has no horse (`H`)")]
    NoHorse,
    #[error(
        "line {line}, column {column}: portal {digit} is used {count} times; each portal digit marks exactly two tiles"
    )]
    Portal { line: usize, column: usize, digit: u8, count: usize },
}

/// A parsed map: the grid, its walls budget, and each tile's neighbours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    walls: usize,
    rows: usize,
    cols: usize,
    tiles: Vec<Tile>,
    horse: usize,
    /// For each tile, the passable tiles one step away: up, down, left,
    /// right, then the portal twin. Empty for water and rock.
    neighbours: Vec<Vec<usize>>,
}

impl Map {
    /// Parses a map's text. Errors name the line and column.
    pub fn parse(text: &str) -> Result<Map, MapError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)));
        let walls = loop {
            let Some((number, line)) = lines.next() else { return Err(MapError::NoWallsLine) };
            if line.starts_with('#') {
                continue;
            }
            let mut words = line.split_whitespace();
            match (words.next(), words.next().map(str::parse::<usize>), words.next()) {
                (Some("walls"), Some(Ok(k)), None) => break k,
                _ => return Err(MapError::WallsLine { line: number, found: line.to_string() }),
            }
        };
        let mut grid: Vec<(usize, &str)> = lines.collect();
        while grid.last().is_some_and(|(_, l)| l.trim().is_empty()) {
            grid.pop();
        }
        let Some(&(_, first)) = grid.first() else { return Err(MapError::NoGrid) };
        let cols = first.chars().count();
        let mut tiles = Vec::with_capacity(cols * grid.len());
        let mut horse: Option<(usize, usize, usize)> = None;
        let mut portals: [Vec<(usize, usize, usize)>; 10] = Default::default();
        for &(line, row) in &grid {
            let found = row.chars().count();
            if found != cols {
                return Err(MapError::RowLength { line, found, expected: cols });
            }
            for (c, character) in row.chars().enumerate() {
                let column = c + 1;
                let tile = Tile::from_char(character).ok_or(MapError::Character { line, column, character })?;
                match tile {
                    Tile::Horse => {
                        if let Some((_, first_line, first_column)) = horse {
                            return Err(MapError::SecondHorse { line, column, first_line, first_column });
                        }
                        horse = Some((tiles.len(), line, column));
                    }
                    Tile::Portal(d) => portals[d as usize].push((tiles.len(), line, column)),
                    _ => {}
                }
                tiles.push(tile);
            }
        }
        let (horse, _, _) = horse.ok_or(MapError::NoHorse)?;
        for (digit, uses) in portals.iter().enumerate() {
            if !uses.is_empty() && uses.len() != 2 {
                let (_, line, column) = uses[if uses.len() > 2 { 2 } else { 0 }];
                return Err(MapError::Portal { line, column, digit: digit as u8, count: uses.len() });
            }
        }
        Ok(Map::from_tiles(walls, grid.len(), cols, tiles, horse))
    }

    /// A map from its parts; the tiles are row by row. Panics unless there is
    /// exactly one horse, at `horse`, and every portal digit is on 0 or 2 tiles.
    pub fn from_tiles(walls: usize, rows: usize, cols: usize, tiles: Vec<Tile>, horse: usize) -> Map {
        assert_eq!(tiles.len(), rows * cols, "tiles must be rows * cols");
        assert_eq!(tiles.iter().filter(|&&t| t == Tile::Horse).count(), 1, "exactly one horse");
        assert_eq!(tiles[horse], Tile::Horse, "the horse's index");
        let mut twins: [Vec<usize>; 10] = Default::default();
        for (i, t) in tiles.iter().enumerate() {
            if let Tile::Portal(d) = t {
                twins[*d as usize].push(i);
            }
        }
        assert!(twins.iter().all(|t| t.is_empty() || t.len() == 2), "each portal digit on exactly two tiles");
        let mut neighbours = vec![Vec::new(); tiles.len()];
        for (i, tile) in tiles.iter().enumerate() {
            if !tile.is_passable() {
                continue;
            }
            let (r, c) = (i / cols, i % cols);
            let steps = [
                (r > 0).then(|| i - cols),
                (r + 1 < rows).then(|| i + cols),
                (c > 0).then(|| i - 1),
                (c + 1 < cols).then(|| i + 1),
            ];
            neighbours[i].extend(steps.into_iter().flatten().filter(|&j| tiles[j].is_passable()));
            if let Tile::Portal(d) = tile {
                let twin = twins[*d as usize].iter().copied().find(|&j| j != i).expect("a portal pair");
                if !neighbours[i].contains(&twin) {
                    neighbours[i].push(twin);
                }
            }
        }
        Map { walls, rows, cols, tiles, horse, neighbours }
    }

    /// The same map with another walls budget.
    pub fn with_walls(mut self, walls: usize) -> Map {
        self.walls = walls;
        self
    }

    /// How many walls may be placed (the `walls` line).
    pub fn walls(&self) -> usize {
        self.walls
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Number of tiles, `rows * cols`; tiles are indexed row by row.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    pub fn tile(&self, index: usize) -> Tile {
        self.tiles[index]
    }

    /// The horse's tile.
    pub fn horse(&self) -> usize {
        self.horse
    }

    /// Row and column of a tile, from 0 at the top left.
    pub fn position(&self, index: usize) -> (usize, usize) {
        (index / self.cols, index % self.cols)
    }

    /// Whether the tile is on the grid's edge (a horse there escapes).
    pub fn is_edge(&self, index: usize) -> bool {
        let (r, c) = self.position(index);
        r == 0 || c == 0 || r + 1 == self.rows || c + 1 == self.cols
    }

    /// The passable tiles one step (or one portal jump) from a passable tile.
    pub fn neighbours(&self, index: usize) -> &[usize] {
        &self.neighbours[index]
    }

    /// The tiles the horse reaches when no wall is placed, in index order.
    /// No wall set reaches more, so every solver works on these alone.
    pub fn reachable(&self) -> Vec<usize> {
        let mut seen = vec![false; self.len()];
        let mut stack = vec![self.horse];
        seen[self.horse] = true;
        while let Some(u) = stack.pop() {
            for &v in self.neighbours(u) {
                if !seen[v] {
                    seen[v] = true;
                    stack.push(v);
                }
            }
        }
        (0..self.len()).filter(|&i| seen[i]).collect()
    }
}

/// The map's text: [`Map::parse`] reads it back to the same map.
impl fmt::Display for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "walls {}", self.walls)?;
        for row in self.tiles.chunks(self.cols) {
            let line: String = row.iter().map(|t| t.to_char()).collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "# a comment\n# another\nwalls 2\n#~~~#\n~.H1~\n~C.A~\n~1B.~\n#~.~#\n";

    #[test]
    fn a_map_parses_and_prints_back() {
        let map = Map::parse(SMALL).unwrap();
        assert_eq!((map.rows(), map.cols(), map.walls()), (5, 5, 2));
        assert_eq!(map.position(map.horse()), (1, 2));
        assert_eq!(map.tile(5 * 2 + 3), Tile::Apple);
        let text = map.to_string();
        assert_eq!(Map::parse(&text).unwrap(), map);
        assert_eq!(text, SMALL.lines().skip(2).map(|l| format!("{l}\n")).collect::<String>());
    }

    #[test]
    fn portals_join_their_two_tiles() {
        let map = Map::parse(SMALL).unwrap();
        let (a, b) = (5 + 3, 3 * 5 + 1);
        assert!(map.neighbours(a).contains(&b));
        assert!(map.neighbours(b).contains(&a));
        // Rock and water have no neighbours and are nobody's.
        assert!(map.neighbours(0).is_empty());
        assert!((0..map.len()).all(|i| map.neighbours(i).iter().all(|&j| map.tile(j).is_passable())));
    }

    #[test]
    fn the_values_are_the_rules() {
        let values: Vec<i64> = "..HCAB1~#".chars().map(|c| Tile::from_char(c).unwrap().value()).collect();
        assert_eq!(values, [1, 1, 1, 4, 11, -4, 1, 0, 0]);
    }

    #[test]
    fn errors_name_line_column_and_character() {
        let err = |text: &str| Map::parse(text).unwrap_err().to_string();
        assert_eq!(
            err("walls 1\n...\n.Hx\n..."),
            "line 3, column 3: unexpected character 'x' (expected one of . ~ # H C A B 0-9)"
        );
        assert_eq!(err("# c\nwall 3\n.H."), "line 2: expected `walls K` (K a number of walls), found \"wall 3\"");
        assert_eq!(err("walls -1\n.H."), "line 1: expected `walls K` (K a number of walls), found \"walls -1\"");
        assert_eq!(err("walls 1\n...\n.H\n..."), "line 3: the row has 2 tiles, the first row has 3");
        assert_eq!(err("walls 1\n.H.\n..H"), "line 3, column 3: a second horse (the first is at line 2, column 2)");
        assert_eq!(err("walls 1\n...\n..."), "the map has no horse (`H`)");
        assert_eq!(
            err("walls 1\n.H1\n1.1"),
            "line 3, column 3: portal 1 is used 3 times; each portal digit marks exactly two tiles"
        );
        assert_eq!(
            err("walls 1\n.H7\n..."),
            "line 2, column 3: portal 7 is used 1 times; each portal digit marks exactly two tiles"
        );
        assert_eq!(err("# only a comment\n"), "the map has no `walls K` line");
        assert_eq!(err("walls 4\n\n"), "the map has no grid after its `walls` line");
    }

    #[test]
    fn a_grid_row_may_start_with_rock() {
        let map = Map::parse("walls 0\n###\n#H#\n###\n").unwrap();
        assert_eq!(map.rows(), 3);
        assert_eq!(map.reachable(), vec![4]);
    }
}
