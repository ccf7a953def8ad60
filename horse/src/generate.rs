//! Seeded random maps, for the property tests and the benchmark.

use crate::map::{Map, Tile};

/// SplitMix64 (Steele, Lea and Flood): a tiny seeded generator, enough for
/// test maps; the same seed gives the same map on every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0), by the multiply-shift reduction.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
}

/// How often each tile kind appears, in tiles per thousand.
#[derive(Clone, Copy, Debug)]
pub struct Mix {
    pub water: u64,
    pub rock: u64,
    pub cherry: u64,
    pub apple: u64,
    pub bees: u64,
    /// Portal pairs (at most 10).
    pub portals: usize,
}

impl Mix {
    /// The benchmark's mix: lakes and rocks enough that a dozen walls can
    /// close a pocket, and every tile kind.
    pub const BENCHMARK: Mix = Mix { water: 300, rock: 60, cherry: 30, apple: 8, bees: 30, portals: 2 };
}

/// A random `rows x cols` map with `walls` walls: each tile drawn from the
/// mix, the horse near the middle, portals on distinct tiles.
pub fn random_map(rows: usize, cols: usize, walls: usize, mix: Mix, seed: u64) -> Map {
    assert!(rows >= 1 && cols >= 1 && mix.portals <= 10 && rows * cols > 2 * mix.portals);
    let mut rng = Rng::new(seed);
    let mut tiles: Vec<Tile> = (0..rows * cols)
        .map(|_| {
            let x = rng.below(1000);
            let mut edge = mix.water;
            if x < edge {
                return Tile::Water;
            }
            for (share, tile) in
                [(mix.rock, Tile::Rock), (mix.cherry, Tile::Cherry), (mix.apple, Tile::Apple), (mix.bees, Tile::Bees)]
            {
                edge += share;
                if x < edge {
                    return tile;
                }
            }
            Tile::Grass
        })
        .collect();
    let horse = (rows / 2) * cols + cols / 2;
    tiles[horse] = Tile::Horse;
    for digit in 0..mix.portals as u8 {
        for _ in 0..2 {
            let at = loop {
                let i = rng.below((rows * cols) as u64) as usize;
                if !matches!(tiles[i], Tile::Horse | Tile::Portal(_)) {
                    break i;
                }
            };
            tiles[at] = Tile::Portal(digit);
        }
    }
    Map::from_tiles(walls, rows, cols, tiles, horse)
}

/// Map `m` of the benchmark's `size x size` maps under its `--seed`
/// (`horse/examples/bench.rs`): `walls` 8 + m mod 13 (8 to 20 in turn), the
/// benchmark's mix, and the map seed [`benchmark_seed`].
pub fn benchmark_map(size: usize, seed: u64, m: usize) -> Map {
    random_map(size, size, 8 + m % 13, Mix::BENCHMARK, benchmark_seed(size, seed, m))
}

/// The seed of the benchmark's map `m` of `size x size` under its `--seed`:
/// `seed * 1,000,003 + 1000 size + m`, what `horse random SIZE SIZE --walls
/// K --seed S` takes to rebuild the map.
pub fn benchmark_seed(size: usize, seed: u64, m: usize) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add((size * 1000 + m) as u64)
}
