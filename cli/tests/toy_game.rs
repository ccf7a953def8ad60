//! A fourth game, added through docs/design.md's "Adding a game" list
//! alone and kept outside the registry (so no `--game` names it): a race
//! on a ring, solved, probed, verified and published through the generic
//! paths, its values checked against a plain solve of its whole graph.
//!
//! The race: two players, A and B, each with a counter from 0 to
//! [`GOAL`], and one marker on a ring of [`RING`] points. A move either
//! steps the marker to a neighbouring point (the move stays in its tier)
//! or, with the marker on an even point, raises the mover's counter by
//! one (the move leaves the tier: counters never go down). The first
//! counter at the goal wins. Tiers are the two counters; a slot is the
//! marker's point and the side to move, A's positions in the even slots,
//! so that every child of an even slot sits in an odd one, as the
//! published layout needs.

use foxbase_coordinator::local::{solve_local_journaled, LocalOptions, Progress};
use foxbase_coordinator::plan::TierPlan;
use foxbase_core::play::{BoardShape, GameStatus, Playable, Player, ShapePoint, SidePieces, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_core::Value;
use foxbase_tables::publish::{publish_as, Levels, Publishable};
use foxbase_tables::seal::SealRun;
use foxbase_tables::source::DirLocation;
use foxbase_tables::table::Layout;
use foxbase_tables::tiered::{locate_by_tier, LocateChild, WholeTier};
use foxbase_tables::verify::verify_game;
use foxbase_tables::TierTables;
use foxbase_worker::job::TierReport;
use foxbase_worker::kernel::{Kernel, Output, SolveTier};
use std::collections::HashMap;
use std::path::Path;

mod common;

const GOAL: u8 = 2;
const RING: u8 = 5;

/// A position: the counters, the marker's point, and whether B is to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct RacePos {
    a: u8,
    b: u8,
    marker: u8,
    b_to_move: bool,
}

impl RacePos {
    /// (the mover's counter, the other's).
    fn counters(&self) -> (u8, u8) {
        if self.b_to_move {
            (self.b, self.a)
        } else {
            (self.a, self.b)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RaceMove {
    Left,
    Right,
    Advance,
}

impl std::fmt::Display for RaceMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RaceMove::Left => "l",
            RaceMove::Right => "r",
            RaceMove::Advance => "+",
        })
    }
}

/// The tier game.
#[derive(Clone, Copy)]
struct Race;

/// Its rules of play.
struct RaceRules;

const A: Player = Player { name: "a", team: "A", plural: false };
const B: Player = Player { name: "b", team: "B", plural: false };

impl RaceRules {
    /// Every move of a position that is not over, with the position after it.
    fn each_move(pos: &RacePos, mut f: impl FnMut(RaceMove, RacePos)) {
        let flip = |p: RacePos| RacePos { b_to_move: !p.b_to_move, ..p };
        f(RaceMove::Left, flip(RacePos { marker: (pos.marker + RING - 1) % RING, ..*pos }));
        f(RaceMove::Right, flip(RacePos { marker: (pos.marker + 1) % RING, ..*pos }));
        if pos.marker.is_multiple_of(2) {
            let raised =
                if pos.b_to_move { RacePos { b: pos.b + 1, ..*pos } } else { RacePos { a: pos.a + 1, ..*pos } };
            f(RaceMove::Advance, flip(raised));
        }
    }

    /// The value for the side to move when the game is over: a counter at the goal.
    fn over(pos: &RacePos) -> Option<Value> {
        let (mine, theirs) = pos.counters();
        if theirs == GOAL {
            Some(Value::Loss)
        } else if mine == GOAL {
            Some(Value::Win)
        } else {
            None
        }
    }
}

impl TierGame for Race {
    type Tier = (u8, u8);
    type Position = RacePos;
    /// The tier itself: a slot is its marker point and side to move.
    type Index = (u8, u8);

    fn game_name(&self) -> &'static str {
        "race"
    }

    fn variant_json(&self) -> String {
        format!("{{\"goal\":{GOAL},\"ring\":{RING}}}")
    }

    fn from_variant_json(variant: &str) -> Result<Race, String> {
        match variant == Race.variant_json() {
            true => Ok(Race),
            false => Err(format!("the race has one variant, {}", Race.variant_json())),
        }
    }

    fn initial_position(&self) -> RacePos {
        RacePos { a: 0, b: 0, marker: 1, b_to_move: false }
    }

    fn tier_of(&self, pos: &RacePos) -> (u8, u8) {
        (pos.a, pos.b)
    }

    fn tier_name(&self, (a, b): (u8, u8)) -> String {
        format!("r{a}-{b}")
    }

    fn parse_tier_name(&self, name: &str) -> Option<(u8, u8)> {
        let (a, b) = name.strip_prefix('r')?.split_once('-')?;
        let (a, b) = (a.parse().ok()?, b.parse().ok()?);
        (a <= GOAL && b <= GOAL).then_some((a, b))
    }

    fn tier_index(&self, tier: (u8, u8)) -> (u8, u8) {
        tier
    }

    fn tier_size(&self, _: &(u8, u8)) -> u64 {
        2 * RING as u64
    }

    fn child_tiers(&self, (a, b): (u8, u8)) -> Vec<(u8, u8)> {
        // A counter raised to the goal ends the game: no tier holds those positions.
        let mut children = Vec::new();
        if b + 1 < GOAL {
            children.push((a, b + 1));
        }
        if a + 1 < GOAL {
            children.push((a + 1, b));
        }
        children
    }

    fn canonical(&self, pos: &RacePos) -> RacePos {
        *pos
    }

    fn rank(&self, _: &(u8, u8), pos: &RacePos) -> u64 {
        2 * pos.marker as u64 + pos.b_to_move as u64
    }

    fn unrank(&self, &(a, b): &(u8, u8), i: u64) -> Option<RacePos> {
        Some(RacePos { a, b, marker: (i / 2) as u8, b_to_move: i % 2 == 1 })
    }

    fn primitive(&self, pos: &RacePos) -> Option<Value> {
        RaceRules::over(pos)
    }

    fn for_each_child(&self, pos: &RacePos, mut f: impl FnMut(RacePos)) {
        RaceRules::each_move(pos, |_, child| f(child));
    }

    fn for_each_parent_in_tier(&self, pos: &RacePos, mut f: impl FnMut(RacePos)) {
        for step in [1, RING - 1] {
            let parent = RacePos { marker: (pos.marker + step) % RING, b_to_move: !pos.b_to_move, ..*pos };
            if RaceRules::over(&parent).is_none() {
                f(parent);
            }
        }
    }
}

impl Playable for RaceRules {
    type Position = RacePos;
    type Move = RaceMove;

    fn game_name(&self) -> &'static str {
        "race"
    }

    fn players(&self) -> [Player; 2] {
        [A, B]
    }

    fn to_move(&self, pos: &RacePos) -> Player {
        if pos.b_to_move {
            B
        } else {
            A
        }
    }

    /// `ABM S`: A's counter, B's, the marker's point, then `a` or `b` to move (`001 a`).
    fn parse_position(&self, text: &str) -> Result<RacePos, String> {
        let bad = || format!("'{text}' is not ABM S (counters 0..={GOAL}, marker 0..{RING}, side a or b)");
        let (digits, side) = text.split_once(' ').ok_or_else(bad)?;
        let d: Vec<u8> = digits.bytes().map(|c| c.wrapping_sub(b'0')).collect();
        let b_to_move = match side {
            "a" => false,
            "b" => true,
            _ => return Err(bad()),
        };
        match d[..] {
            [a, b, marker] if a <= GOAL && b <= GOAL && marker < RING => Ok(RacePos { a, b, marker, b_to_move }),
            _ => Err(bad()),
        }
    }

    fn format_position(&self, pos: &RacePos) -> String {
        format!("{}{}{} {}", pos.a, pos.b, pos.marker, if pos.b_to_move { 'b' } else { 'a' })
    }

    fn board_picture(&self, pos: &RacePos) -> String {
        let ring: String = (0..RING).map(|p| if p == pos.marker { 'M' } else { '.' }).collect();
        format!("A {} B {} ring {ring}\n", pos.a, pos.b)
    }

    fn board_shape(&self) -> BoardShape {
        let points = (0..RING).map(|p| ShapePoint { name: format!("p{p}"), x: p as i32 + 1, y: 1 }).collect();
        let lines = (0..RING).map(|p| [format!("p{p}"), format!("p{}", (p + 1) % RING)]).collect();
        let side = |player, piece, letter| SidePieces { player, piece, letter, one: player.team };
        BoardShape {
            points,
            lines,
            cells: false,
            region: None,
            sides: [side(A, 'A', 'a'), side(B, 'B', 'b')],
            counts: Vec::new(),
        }
    }

    fn parse_move(&self, pos: &RacePos, text: &str) -> Result<RaceMove, String> {
        let mut found = None;
        self.for_each_move(pos, |m, _| {
            if m.to_string() == text {
                found = Some(m);
            }
        });
        found.ok_or_else(|| format!("'{text}' is not a move here (l, r, or + with the marker on an even point)"))
    }

    fn status(&self, pos: &RacePos) -> GameStatus {
        match RaceRules::over(pos) {
            None => GameStatus::Ongoing,
            Some(v) => {
                let mover = self.to_move(pos);
                let winner = if v == Value::Win {
                    mover
                } else if mover == A {
                    B
                } else {
                    A
                };
                GameStatus::Over { winner: Some(winner), reason: "a counter reached the goal" }
            }
        }
    }

    fn for_each_move(&self, pos: &RacePos, f: impl FnMut(RaceMove, RacePos)) {
        if RaceRules::over(pos).is_none() {
            RaceRules::each_move(pos, f);
        }
    }

    fn play(&self, pos: &RacePos, mv: RaceMove) -> RacePos {
        let mut after = None;
        RaceRules::each_move(pos, |m, p| {
            if m == mv {
                after = Some(p);
            }
        });
        after.expect("a legal move")
    }
}

impl WithRules for Race {
    type Rules = RaceRules;

    fn rules(&self) -> &RaceRules {
        &RaceRules
    }
}

/// The counter kernel, the default.
impl SolveTier for Race {}

/// No start value recorded, the default.
impl SealRun for Race {}

/// A child is found by its tier and canonical rank.
impl LocateChild for Race {
    type Memo = ();

    fn locate(&self, _: &mut (), loaded: &[&WholeTier<Race>], child: &RacePos) -> Option<(usize, u64)> {
        locate_by_tier(self, loaded, child)
    }
}

/// A's positions (the even slots) left out of published tables and
/// derived by one move (the trait's default reading), as Bagh-Chal's goats' are.
impl Publishable for Race {
    const LAYOUT: Layout = Layout::Published;

    fn column_period(&self, _: (u8, u8)) -> u64 {
        1
    }
}

/// Every position of the game's tiers, valued by a plain fixpoint over the
/// whole graph (no tiers, no tables): a win where a move reaches a loss,
/// a loss where every move reaches a win, the rest drawn.
fn plain_values() -> HashMap<RacePos, Value> {
    let mut all = Vec::new();
    for a in 0..GOAL {
        for b in 0..GOAL {
            for i in 0..Race.tier_size(&(a, b)) {
                all.push(Race.unrank(&(a, b), i).unwrap());
            }
        }
    }
    let mut known: HashMap<RacePos, Value> = HashMap::new();
    let value_of = |known: &HashMap<RacePos, Value>, p: &RacePos| RaceRules::over(p).or_else(|| known.get(p).copied());
    loop {
        let mut changed = false;
        for p in &all {
            if known.contains_key(p) {
                continue;
            }
            let mut children = Vec::new();
            Race.for_each_child(p, |c| children.push(value_of(&known, &c)));
            let value = if children.contains(&Some(Value::Loss)) {
                Some(Value::Win)
            } else if children.iter().all(|c| *c == Some(Value::Win)) {
                Some(Value::Loss)
            } else {
                None
            };
            if let Some(v) = value {
                known.insert(*p, v);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    all.into_iter().map(|p| (p, known.get(&p).copied().unwrap_or(Value::Draw))).collect()
}

struct Quiet;

impl Progress for Quiet {
    fn planned(&self, _: usize, _: u64) {}
    fn tier_done(&self, _: &TierReport, _: usize, _: u64) {}
}

/// Every position's value read from the tables in `dir`, against the plain solve.
fn probe_all(dir: &Path, plain: &HashMap<RacePos, Value>) {
    let tables = TierTables::<Race>::open(dir).unwrap();
    for (pos, value) in plain {
        assert_eq!(tables.outcome(pos).unwrap().value, *value, "{}", RaceRules.format_position(pos));
    }
}

#[test]
fn a_game_outside_the_registry_is_solved_probed_verified_and_published() {
    let tmp = common::TempDir::new("toy-game");
    let solved = tmp.0.join("solved");
    let plan = TierPlan::new(&Race);
    assert_eq!(plan.order.len(), 4, "tiers r0-0, r0-1, r1-0, r1-1");
    let options = LocalOptions { kernel: Kernel::Counter, output: Output::Values, ..LocalOptions::default() };
    let run = solve_local_journaled(&Race, &plan, &solved, options, false, &[], &Quiet).unwrap();
    let put = |key: &str, bytes: &[u8]| {
        let path = solved.join(key);
        foxbase_tables::durable::write(&path, bytes)
            .map_err(foxbase_tables::error::io_error(path.display().to_string()))
    };
    let manifest = Race.seal_run(Box::new(DirLocation::new(&solved)), &put, run.manifest).unwrap();
    assert_eq!(manifest.game, "race");
    assert_eq!(manifest.total_slots(), 40);

    let plain = plain_values();
    assert_eq!(plain.len(), 40);
    let count = |v| plain.values().filter(|x| **x == v).count();
    let counts = (count(Value::Win), count(Value::Draw), count(Value::Loss));
    assert_eq!(counts, (12, 20, 8), "wins, draws and losses for the side to move");
    probe_all(&solved, &plain);
    let start = RaceRules.parse_position("001 a").unwrap();
    assert_eq!(TierTables::<Race>::open(&solved).unwrap().outcome(&start).unwrap().value, Value::Draw);

    let verified =
        verify_game(Race, &solved, &|_| {}, false, &foxbase_tables::tier_walk::WalkMemory::default()).unwrap();
    assert_eq!((verified.tiers, verified.slots, verified.positions_checked), (4, 40, 40));

    let published = tmp.0.join("published");
    let figures = publish_as(
        &Race,
        &solved,
        &published,
        Levels::default(),
        &foxbase_tables::tier_walk::WalkMemory::default(),
        &|_| {},
    )
    .unwrap();
    assert_eq!((figures.tiers, figures.slots), (4, 40));
    probe_all(&published, &plain);
    let verified =
        verify_game(Race, &published, &|_| {}, false, &foxbase_tables::tier_walk::WalkMemory::default()).unwrap();
    assert_eq!((verified.tiers, verified.slots), (4, 40));
    // A published tablebase is not published again.
    let again = publish_as(
        &Race,
        &published,
        &tmp.0.join("again"),
        Levels::default(),
        &foxbase_tables::tier_walk::WalkMemory::default(),
        &|_| {},
    );
    assert!(again.unwrap_err().to_string().contains("published"));
}
