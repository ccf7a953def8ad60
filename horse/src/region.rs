//! The horse's region for a given set of walls, by flood fill: the rules'
//! own definition, used to score every answer and by the brute force.

use crate::map::Map;

/// What a set of walls does to the horse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enclosure {
    /// Whether the region holds no tile on the grid's edge.
    pub trapped: bool,
    /// The tiles the horse reaches, in index order.
    pub region: Vec<usize>,
    /// The sum of the region's tile values (meaningful when trapped).
    pub score: i64,
}

/// Why a wall set is not a legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WallError {
    #[error("wall {index}: ({row}, {col}) is outside the {rows}x{cols} grid")]
    Outside { index: usize, row: usize, col: usize, rows: usize, cols: usize },
    #[error("wall {index}: ({row}, {col}) is {tile:?}, and walls go on plain grass only")]
    NotGrass { index: usize, row: usize, col: usize, tile: char },
    #[error("wall {index}: ({row}, {col}) is given twice")]
    Twice { index: usize, row: usize, col: usize },
    #[error("{count} walls, more than the map's {allowed}")]
    TooMany { count: usize, allowed: usize },
}

/// Checks walls given as (row, column) and returns their tile indexes.
pub fn checked_walls(map: &Map, walls: &[(usize, usize)]) -> Result<Vec<usize>, WallError> {
    if walls.len() > map.walls() {
        return Err(WallError::TooMany { count: walls.len(), allowed: map.walls() });
    }
    let mut indexes = Vec::with_capacity(walls.len());
    for (index, &(row, col)) in walls.iter().enumerate() {
        if row >= map.rows() || col >= map.cols() {
            return Err(WallError::Outside { index, row, col, rows: map.rows(), cols: map.cols() });
        }
        let i = row * map.cols() + col;
        if !map.tile(i).is_wallable() {
            return Err(WallError::NotGrass { index, row, col, tile: map.tile(i).to_char() });
        }
        if indexes.contains(&i) {
            return Err(WallError::Twice { index, row, col });
        }
        indexes.push(i);
    }
    Ok(indexes)
}

/// Flood fills the horse's region with walls on the tiles marked in `walled`
/// (one flag a tile). `walled` must not mark the horse.
pub fn enclose(map: &Map, walled: &[bool]) -> Enclosure {
    debug_assert!(!walled[map.horse()]);
    let mut seen = vec![false; map.len()];
    let mut stack = vec![map.horse()];
    seen[map.horse()] = true;
    let mut region = Vec::new();
    while let Some(u) = stack.pop() {
        region.push(u);
        for &v in map.neighbours(u) {
            if !seen[v] && !walled[v] {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    region.sort_unstable();
    let trapped = !region.iter().any(|&i| map.is_edge(i));
    let score = region.iter().map(|&i| map.tile(i).value()).sum();
    Enclosure { trapped, region, score }
}

/// [`enclose`] with the walls as a list of tile indexes.
pub fn enclose_with(map: &Map, walls: &[usize]) -> Enclosure {
    let mut walled = vec![false; map.len()];
    for &w in walls {
        walled[w] = true;
    }
    enclose(map, &walled)
}

/// The walls that touch the region; the others change nothing (removing a
/// wall no region tile steps onto leaves the region as it is).
pub fn walls_that_matter(map: &Map, walls: &[usize], region: &[usize]) -> Vec<usize> {
    let mut in_region = vec![false; map.len()];
    for &i in region {
        in_region[i] = true;
    }
    let mut kept: Vec<usize> =
        walls.iter().copied().filter(|&w| map.neighbours(w).iter().any(|&n| in_region[n])).collect();
    kept.sort_unstable();
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flood_fill_scores_the_trapped_region() {
        // The horse's pocket is H, C and B once the gap at (1, 3) is walled.
        let map = Map::parse("walls 1\n~~~~~~\n~HC.~~\n~B~..~\n~~~~.~\n").unwrap();
        let open = enclose_with(&map, &[]);
        assert!(!open.trapped);
        let walls = checked_walls(&map, &[(1, 3)]).unwrap();
        let e = enclose_with(&map, &walls);
        assert!(e.trapped);
        assert_eq!(e.region, vec![7, 8, 13]);
        assert_eq!(e.score, 1 + 4 - 4);
    }

    #[test]
    fn walls_are_checked() {
        let map = Map::parse("walls 2\n~~~~\n~HC.\n~~..\n").unwrap();
        assert_eq!(
            checked_walls(&map, &[(1, 2)]).unwrap_err().to_string(),
            "wall 0: (1, 2) is 'C', and walls go on plain grass only"
        );
        assert_eq!(checked_walls(&map, &[(1, 3), (1, 3)]).unwrap_err().to_string(), "wall 1: (1, 3) is given twice");
        assert_eq!(checked_walls(&map, &[(3, 0)]).unwrap_err().to_string(), "wall 0: (3, 0) is outside the 3x4 grid");
        assert_eq!(
            checked_walls(&map, &[(1, 3), (2, 2), (2, 3)]).unwrap_err().to_string(),
            "3 walls, more than the map's 2"
        );
    }
}
