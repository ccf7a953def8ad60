//! enclose.horse: place at most K walls on the grass so that the horse's
//! region is sealed off from the grid's edge and worth the most.
//!
//! - [`map`]: the map format and the board (docs/horse.md);
//! - [`region`]: the flood fill that defines the score;
//! - [`milp`]: the exact solver, an integer program handed to HiGHS;
//! - [`mincut`]: the fewest walls, by a minimum vertex cut;
//! - [`heuristic`]: a good first placement, handed to HiGHS to prove;
//! - `flow`: the max flow (Dinic) behind both;
//! - [`brute`]: the brute force that checks the solver on small maps;
//! - [`generate`]: seeded random maps; [`svg`]: a picture.
//!
//! ```
//! use horse::{map::Map, milp::{solve, Formulation, Limits, Outcome}};
//! // The horse's pocket opens to the edge through a corridor; one wall at
//! // its end, on the edge itself, keeps the corridor too: 7 tiles, one a cherry.
//! let map = Map::parse("walls 1\n~~~~~~\n~H.C.~\n~..~.~\n~~~~.~\n").unwrap();
//! let Outcome::Trapped(answer) = solve(&map, Formulation::HorseFlow, Limits::default()).unwrap() else { panic!() };
//! assert_eq!((answer.enclosure.score, answer.optimal), (10, true));
//! assert_eq!(answer.walls.iter().map(|&w| map.position(w)).collect::<Vec<_>>(), [(3, 4)]);
//! ```

pub mod brute;
mod flow;
pub mod generate;
pub mod heuristic;
pub mod map;
pub mod milp;
pub mod mincut;
pub mod region;
pub mod svg;
