//! The rules commands: `show`, `moves`, `play`, `perft` and `probe-ref`
//! (the reference solver). None of them needs tables. The first four take
//! `--game baghchal` for Bagh-Chal ([`foxbase_core::baghchal`]); each game
//! refuses the other's rule flags.

use crate::command::{position_arg, CommandResult, Failure};
use crate::output::{json, line, text};
use clap::Args;
use foxbase_core::baghchal as bc;
use foxbase_core::game::GameKind;
use foxbase_core::notation::{board_picture, format_position, parse_move};
use foxbase_core::perft::{divide, perft};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::{Geometry, Position, Rules, Side, Status, Variant};
use serde_json::{json, Value as Json};

/// The Fox Game's rule switches, for every command that plays its moves.
/// They have no clap default (the defaults are applied in [`RuleArgs::rules`]),
/// so that `--game baghchal` can tell a flag given from one left out.
#[derive(Args, Clone, Copy)]
pub struct RuleArgs {
    /// Fox Game: board lines, `classic` (orthogonal lines plus the alternating diagonals; the default) or
    /// `orthogonal` (no diagonals).
    #[arg(long, value_parser = parse_geometry)]
    pub geometry: Option<Geometry>,
    /// Fox Game: pen target K (1..=9; default 9): K sheep in the pen win for the sheep, fewer than K sheep left
    /// win for the foxes.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=9))]
    pub pen_target: Option<u32>,
    #[command(flatten)]
    pub floor: FloorArgs,
}

/// The sheep floor switches (RULES.md, "End of a fox move"), for every
/// command that builds a Fox Game variant from flags. Commands that read
/// tables take the floor from the tables' variant instead.
#[derive(Args, Clone, Copy, Default)]
pub struct FloorArgs {
    /// Fox Game: sheep floor F, from the pen target K to the start's sheep count (default K: no floor). The
    /// game ends when fewer than F sheep remain after a fox move, so only the tiers with at least F sheep are
    /// solved: with the foxes as the floor's winner every sheep win is a sheep win of the real game (a lower
    /// bound for the sheep).
    #[arg(long)]
    pub sheep_floor: Option<u32>,
    /// Fox Game: who wins below the sheep floor: `foxes` (the default: lower bounds for the sheep) or `sheep`
    /// (upper bounds: a position the sheep do not win here they do not win in the real game); `sheep` needs a
    /// --sheep-floor above the pen target.
    #[arg(long, value_parser = parse_floor_winner_arg)]
    pub floor_winner: Option<Side>,
}

fn parse_floor_winner_arg(s: &str) -> Result<Side, String> {
    foxbase_core::variant::parse_floor_winner(s).map_err(|_| format!("'{s}' is neither 'foxes' nor 'sheep'"))
}

impl FloorArgs {
    /// `variant` with these switches; a floor out of range or a sheep
    /// winner without a floor is bad input naming the flag.
    pub fn apply(&self, variant: Variant) -> Result<Variant, Failure> {
        self.check(variant.pen_target, variant.start.sheep_count())?;
        Ok(variant
            .with_sheep_floor(self.floor(variant.pen_target), self.winner())
            .expect("checked against the same rule"))
    }

    /// `rules` with these switches, for a game that starts with `sheep` sheep.
    pub fn apply_to_rules(&self, rules: Rules, sheep: u32) -> Result<Rules, Failure> {
        self.check(rules.pen_target, sheep)?;
        Ok(rules.with_sheep_floor(self.floor(rules.pen_target), self.winner()))
    }

    fn floor(&self, pen_target: u32) -> u32 {
        self.sheep_floor.unwrap_or(pen_target)
    }

    fn winner(&self) -> Side {
        self.floor_winner.unwrap_or(Side::Fox)
    }

    /// The range check of [`foxbase_core::variant::check_sheep_floor`], as bad input naming the flag.
    fn check(&self, pen_target: u32, sheep: u32) -> Result<(), Failure> {
        let floor = self.floor(pen_target);
        match foxbase_core::variant::check_sheep_floor(pen_target, sheep, floor, self.winner()) {
            Ok(()) => Ok(()),
            Err(foxbase_core::VariantError::FloorWinnerWithoutFloor { .. }) => Err(Failure::bad_input(format!(
                "--floor-winner sheep needs a --sheep-floor above the pen target {pen_target} (and at most the \
                 start's {sheep} sheep)"
            ))),
            Err(_) => Err(Failure::bad_input(format!(
                "--sheep-floor {floor} is out of range: it must be from the pen target to the start's sheep count, \
                 here {pen_target}..={sheep}"
            ))),
        }
    }
}

impl RuleArgs {
    pub fn geometry(&self) -> Geometry {
        self.geometry.unwrap_or_default()
    }

    pub fn pen_target(&self) -> u32 {
        self.pen_target.unwrap_or(9)
    }

    /// The rules without the sheep floor ([`FloorArgs::apply_to_rules`] adds it
    /// once the start position is known).
    pub fn rules(&self) -> Rules {
        Rules::new(self.geometry(), self.pen_target())
    }
}

/// `--game` and the rule switches of both games.
#[derive(Args, Clone, Copy)]
pub struct GameArgs {
    /// The game: `fox` (the Fox Game, positions as in RULES.md) or `baghchal` (Bagh-Chal: 4 tigers against
    /// 20 goats, or --goats, on the 5x5 board; positions like 'T...T/...../...../...../T...T g 20 0': ranks 5
    /// down to 1, the side to move g or t, the goats still to place, the goats captured).
    #[arg(long, default_value_t = GameKind::Fox, value_parser = crate::command::parse_game)]
    game: GameKind,
    #[command(flatten)]
    fox: RuleArgs,
    /// Bagh-Chal: the goats in the game, 1..=20 (default 20; fewer make the small variants `solve
    /// --game baghchal --goats N` solves). A position's goats on the board, to place and captured add up to it.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=20))]
    goats: Option<u8>,
    /// Bagh-Chal: the tigers win on capturing this many goats, 1..=5 and at most --goats (default 5,
    /// or --goats when fewer).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
    capture_target: Option<u8>,
}

/// The rules of the game a command plays.
enum GameRules {
    Fox(Rules),
    /// The rules and the goats in the game.
    BaghChal(bc::Rules, u8),
}

impl GameArgs {
    /// The game's rules; a rule flag of the other game is bad input.
    fn resolve(&self) -> Result<GameRules, Failure> {
        match self.game {
            GameKind::TicTacToe => Err(Failure::bad_input(
                "--game tictactoe: show, moves, play and perft take the Fox Game and Bagh-Chal; probe a tic-tac-toe tablebase instead",
            )),
            GameKind::Fox => {
                for (flag, given) in [("--goats", self.goats.is_some()), ("--capture-target", self.capture_target.is_some())] {
                    if given {
                        return Err(Failure::bad_input(format!("{flag} is a Bagh-Chal flag; add --game baghchal")));
                    }
                }
                Ok(GameRules::Fox(self.fox.rules()))
            }
            GameKind::BaghChal => {
                let given = [
                    ("--geometry", self.fox.geometry.is_some()),
                    ("--pen-target", self.fox.pen_target.is_some()),
                    ("--sheep-floor", self.fox.floor.sheep_floor.is_some()),
                    ("--floor-winner", self.fox.floor.floor_winner.is_some()),
                ];
                if let Some((flag, _)) = given.iter().find(|(_, given)| *given) {
                    return Err(Failure::bad_input(format!(
                        "{flag} is a Fox Game flag; --game {} takes --goats and --capture-target", self.game
                    )));
                }
                let goats = self.goats.unwrap_or(bc::TOTAL_GOATS);
                let target = self.capture_target.unwrap_or(bc::DEFAULT_CAPTURE_TARGET.min(goats));
                let variant = bc::BaghChalVariant::new(goats, target)
                    .map_err(|e| Failure::bad_input(format!("--goats {goats} --capture-target {target}: {e}")))?;
                let rules = bc::Rules::new(variant.capture_target()).map_err(Failure::bad_input)?;
                Ok(GameRules::BaghChal(rules, goats))
            }
        }
    }
}

/// A Fox Game position argument ([`position_arg`]); a text that reads as a
/// Bagh-Chal position gets a hint to add `--game baghchal`.
fn fox_position_arg(text: &str) -> Result<Position, Failure> {
    position_arg(text).map_err(|e| match (e, bc::parse_position(text)) {
        (Failure::BadInput(m), Ok(_)) => Failure::BadInput(format!("{m} (a Bagh-Chal position: add --game baghchal)")),
        (e, _) => e,
    })
}

/// Parses a Bagh-Chal position argument and checks it against the capture target.
fn bc_position_arg(rules: &bc::Rules, goats: u8, text: &str) -> Result<bc::Position, Failure> {
    let bad = |e: &dyn std::fmt::Display| Failure::bad_input(format!("bad position '{text}': {e}"));
    let pos = bc::parse_position_with_goats(text, goats).map_err(|e| bad(&e))?;
    rules.check_position(&pos).map_err(|e| bad(&e))?;
    Ok(pos)
}

fn bc_status_text(rules: &bc::Rules, pos: &bc::Position) -> String {
    match rules.status(pos) {
        bc::Status::Ongoing => "game goes on".into(),
        bc::Status::Over { winner, reason } => {
            format!("game over: the {} won ({})", winner.plural(), reason.describe())
        }
    }
}

fn bc_status_json(rules: &bc::Rules, pos: &bc::Position) -> Json {
    match rules.status(pos) {
        bc::Status::Ongoing => json!({"over": false}),
        bc::Status::Over { winner, reason } => {
            json!({"over": true, "winner": winner.name(), "reason": reason.describe()})
        }
    }
}

pub fn parse_geometry(s: &str) -> Result<Geometry, foxbase_core::ParseError> {
    s.parse()
}

#[derive(Args)]
pub struct ShowArgs {
    /// The position, in RULES.md notation, or Bagh-Chal's with --game baghchal (quote it).
    position: String,
    #[command(flatten)]
    game: GameArgs,
}

#[derive(Args)]
pub struct MovesArgs {
    /// The position, in RULES.md notation, or Bagh-Chal's with --game baghchal (quote it).
    position: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    game: GameArgs,
}

#[derive(Args)]
pub struct PlayArgs {
    /// The position, in RULES.md notation, or Bagh-Chal's with --game baghchal (quote it).
    position: String,
    /// The moves to play in order, e.g. c7-c6 or e5xc3 (Bagh-Chal: a placement c3, a step c3-c4, a jump a1xc3).
    #[arg(required = true)]
    moves: Vec<String>,
    #[command(flatten)]
    game: GameArgs,
}

#[derive(Args)]
pub struct PerftArgs {
    /// Number of plies.
    #[arg(long)]
    depth: u32,
    /// Start position (default: the game's start; for the Fox Game the default start, foxes to move, for
    /// Bagh-Chal 'T...T/...../...../...../T...T g 20 0', with --goats N '... g N 0').
    #[arg(long, visible_alias = "start")]
    position: Option<String>,
    /// Also print the count below each first move.
    #[arg(long)]
    divide: bool,
    /// Bagh-Chal: also count the distinct positions after exactly --depth plies, all and up to the board's
    /// 8 symmetries (held in memory: from the start, under a second and 70 MB at depth 6, 8 s and 320 MB at depth 7).
    #[arg(long)]
    distinct: bool,
    /// Print one JSON object: {"depth", "nodes", "position", "geometry", "pen_target"[, "divide"]}; with
    /// --game baghchal {"game", "depth", "nodes", "position", "capture_target"[, "divide"][, "positions",
    /// "positions_up_to_symmetry"]}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    game: GameArgs,
}

#[derive(Args)]
pub struct ProbeRefArgs {
    /// The position to solve from, in RULES.md notation (quote it); it is also the variant's start.
    position: String,
    /// Refuse to explore more than this many positions.
    #[arg(long, default_value_t = 20_000_000)]
    max_positions: usize,
    /// Print one JSON object with a "value" field: "win", "draw" or "loss" for the side to move.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    rules: RuleArgs,
}

fn status_text(rules: &Rules, pos: &Position) -> String {
    match rules.status(pos) {
        Status::Ongoing => "game goes on".into(),
        Status::Over { winner, reason } => format!("game over: {winner} won ({})", reason.describe()),
    }
}

pub fn show(args: ShowArgs) -> CommandResult {
    let rules = match args.game.resolve()? {
        GameRules::Fox(rules) => rules,
        GameRules::BaghChal(rules, goats) => {
            let pos = bc_position_arg(&rules, goats, &args.position)?;
            text(&bc::board_picture(&pos))?;
            return line(bc_status_text(&rules, &pos));
        }
    };
    let pos = fox_position_arg(&args.position)?;
    let rules = args.game.fox.floor.apply_to_rules(rules, pos.sheep_count())?;
    text(&board_picture(&pos))?;
    line(status_text(&rules, &pos))
}

pub fn moves(args: MovesArgs) -> CommandResult {
    let rules = match args.game.resolve()? {
        GameRules::Fox(rules) => rules,
        GameRules::BaghChal(rules, goats) => return bc_moves(&rules, goats, &args),
    };
    let pos = fox_position_arg(&args.position)?;
    let rules = args.game.fox.floor.apply_to_rules(rules, pos.sheep_count())?;
    let moves = rules.moves(&pos);
    if args.json {
        return json(&crate::views::moves_json(&rules, &pos));
    }
    line(format_args!("{} ({} legal moves; {})", format_position(&pos), moves.len(), status_text(&rules, &pos)))?;
    for m in moves {
        let child = rules.play(&pos, m);
        line(format_args!("{m:7} {}  {}", format_position(&child), status_text(&rules, &child)))?;
    }
    Ok(())
}

/// `moves --game baghchal`.
fn bc_moves(rules: &bc::Rules, goats: u8, args: &MovesArgs) -> CommandResult {
    let pos = bc_position_arg(rules, goats, &args.position)?;
    let moves = rules.moves(&pos);
    if args.json {
        let list: Vec<_> = moves
            .iter()
            .map(|&m| {
                let child = rules.play(&pos, m);
                json!({"move": m.to_string(), "position": bc::format_position(&child),
                    "status": bc_status_json(rules, &child)})
            })
            .collect();
        return json(&json!({"game": GameKind::BaghChal.name(), "position": bc::format_position(&pos),
            "capture_target": rules.capture_target(), "status": bc_status_json(rules, &pos), "moves": list}));
    }
    line(format_args!("{} ({} legal moves; {})", bc::format_position(&pos), moves.len(), bc_status_text(rules, &pos)))?;
    for m in moves {
        let child = rules.play(&pos, m);
        line(format_args!("{m:7} {}  {}", bc::format_position(&child), bc_status_text(rules, &child)))?;
    }
    Ok(())
}

pub fn play(args: PlayArgs) -> CommandResult {
    let rules = match args.game.resolve()? {
        GameRules::Fox(rules) => rules,
        GameRules::BaghChal(rules, goats) => {
            let mut pos = bc_position_arg(&rules, goats, &args.position)?;
            for text in &args.moves {
                let m = bc::parse_move(&rules, &pos, text).map_err(|e| Failure::bad_input(format!("bad move: {e}")))?;
                pos = rules.play(&pos, m);
            }
            line(bc::format_position(&pos))?;
            return line(bc_status_text(&rules, &pos));
        }
    };
    let mut pos = fox_position_arg(&args.position)?;
    let rules = args.game.fox.floor.apply_to_rules(rules, pos.sheep_count())?;
    for text in &args.moves {
        let m = parse_move(&rules, &pos, text).map_err(|e| Failure::bad_input(format!("bad move: {e}")))?;
        pos = rules.play(&pos, m);
    }
    line(format_position(&pos))?;
    line(status_text(&rules, &pos))
}

pub fn perft_command(args: PerftArgs) -> CommandResult {
    let r = match args.game.resolve()? {
        GameRules::Fox(rules) => rules,
        GameRules::BaghChal(rules, goats) => return bc_perft(&rules, goats, &args),
    };
    if args.distinct {
        return Err(Failure::bad_input("--distinct is for --game baghchal only"));
    }
    let pos = fox_position_arg(args.position.as_deref().unwrap_or(foxbase_core::variant::DEFAULT_START))?;
    let r = args.game.fox.floor.apply_to_rules(r, pos.sheep_count())?;
    let depth = args.depth;
    let (nodes, parts) = if args.divide && depth > 0 {
        let parts = divide(&r, &pos, depth);
        (parts.iter().map(|p| p.1).sum(), parts)
    } else {
        (perft(&r, &pos, depth), Vec::new())
    };
    if args.json {
        let mut out = json!({"depth": depth, "nodes": nodes, "position": format_position(&pos),
            "geometry": r.geometry().name(), "pen_target": r.pen_target});
        if args.divide {
            out["divide"] = parts.iter().map(|(m, n)| json!({"move": m.to_string(), "nodes": n})).collect();
        }
        return json(&out);
    }
    for (m, n) in &parts {
        line(format_args!("{m}: {n}"))?;
    }
    line(format_args!("perft({depth}) = {nodes}"))
}

/// `perft --game baghchal`: from the start unless --position (or --start) says otherwise.
fn bc_perft(rules: &bc::Rules, goats: u8, args: &PerftArgs) -> CommandResult {
    let variant = bc::BaghChalVariant::new(goats, rules.capture_target()).expect("checked by GameArgs::resolve");
    let start = args.position.clone().unwrap_or_else(|| {
        bc::format_position(&foxbase_core::tier::TierGame::initial_position(&bc::BaghChal::new(variant)))
    });
    let pos = bc_position_arg(rules, goats, &start)?;
    let depth = args.depth;
    let (nodes, parts) = if args.divide && depth > 0 {
        let parts = bc::divide(rules, &pos, depth);
        (parts.iter().map(|p| p.1).sum(), parts)
    } else {
        (bc::perft(rules, &pos, depth), Vec::new())
    };
    let layer = args.distinct.then(|| *bc::distinct_positions(rules, &pos, depth).last().expect("layer 0 at least"));
    if args.json {
        let mut out = json!({"game": GameKind::BaghChal.name(), "depth": depth, "nodes": nodes,
            "position": bc::format_position(&pos), "capture_target": rules.capture_target()});
        if args.divide {
            out["divide"] = parts.iter().map(|(m, n)| json!({"move": m.to_string(), "nodes": n})).collect();
        }
        if let Some(layer) = layer {
            out["positions"] = layer.positions.into();
            out["positions_up_to_symmetry"] = layer.up_to_symmetry.into();
        }
        return json(&out);
    }
    for (m, n) in &parts {
        line(format_args!("{m}: {n}"))?;
    }
    line(format_args!("perft({depth}) = {nodes}"))?;
    if let Some(layer) = layer {
        line(format_args!(
            "positions after {depth} {}: {} distinct, {} up to symmetry",
            if depth == 1 { "ply" } else { "plies" },
            layer.positions,
            layer.up_to_symmetry
        ))?;
    }
    Ok(())
}

pub fn probe_ref(args: ProbeRefArgs) -> CommandResult {
    let pos = position_arg(&args.position)?;
    let variant = Variant::new(args.rules.geometry(), args.rules.pen_target(), pos).map_err(Failure::bad_input)?;
    let variant = args.rules.floor.apply(variant)?;
    let sol = ReferenceSolution::solve(&variant, args.max_positions).map_err(Failure::bad_input)?;
    let value = sol.value(&pos).expect("the start is always solved");
    if args.json {
        return json(&json!({"position": format_position(&pos), "value": value.name(),
            "side_to_move": pos.side().name(), "variant": variant.to_json_value(),
            "positions": sol.len()}));
    }
    line(format_args!(
        "{}: {} for the {} to move ({} positions solved)",
        format_position(&pos),
        value,
        pos.side(),
        sol.len()
    ))?;
    match variant.floor_note() {
        Some(note) => line(format_args!("bound: {note}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `perft`'s flags alone, as the command line gives them.
    #[derive(Parser)]
    struct Perft {
        #[command(flatten)]
        args: PerftArgs,
    }

    fn resolve(flags: &[&str]) -> Result<GameRules, String> {
        let parsed = Perft::try_parse_from([&["perft", "--depth", "1"], flags].concat()).map_err(|e| e.to_string())?;
        parsed.args.game.resolve().map_err(|e| match e {
            Failure::BadInput(m) => m,
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn each_game_takes_its_own_rule_flags() {
        assert!(matches!(resolve(&[]), Ok(GameRules::Fox(r)) if r.pen_target == 9));
        assert!(matches!(resolve(&["--pen-target", "7"]), Ok(GameRules::Fox(r)) if r.pen_target == 7));
        assert!(matches!(resolve(&["--game", "baghchal"]), Ok(GameRules::BaghChal(r, 20)) if r.capture_target() == 5));
        let four = resolve(&["--game", "baghchal", "--capture-target", "4"]);
        assert!(matches!(four, Ok(GameRules::BaghChal(r, 20)) if r.capture_target() == 4));
        let small = resolve(&["--game", "baghchal", "--goats", "2"]);
        assert!(matches!(small, Ok(GameRules::BaghChal(r, 2)) if r.capture_target() == 2), "at most the goats");
        let small = resolve(&["--game", "baghchal", "--goats", "3", "--capture-target", "1"]);
        assert!(matches!(small, Ok(GameRules::BaghChal(r, 3)) if r.capture_target() == 1));
        let refused = |flags: &[&str]| resolve(flags).err().unwrap_or_else(|| panic!("{flags:?} accepted"));
        assert_eq!(
            refused(&["--game", "baghchal", "--geometry", "classic"]),
            "--geometry is a Fox Game flag; --game baghchal takes --goats and --capture-target"
        );
        assert_eq!(
            refused(&["--game", "baghchal", "--pen-target", "9"]),
            "--pen-target is a Fox Game flag; --game baghchal takes --goats and --capture-target"
        );
        assert_eq!(refused(&["--capture-target", "5"]), "--capture-target is a Bagh-Chal flag; add --game baghchal");
        assert_eq!(refused(&["--goats", "5"]), "--goats is a Bagh-Chal flag; add --game baghchal");
        assert!(refused(&["--game", "baghchal", "--capture-target", "6"]).contains("6 is not in 1..=5"));
        assert!(refused(&["--game", "baghchal", "--goats", "2", "--capture-target", "3"])
            .starts_with("--goats 2 --capture-target 3: "));
        assert!(refused(&["--game", "chess"]).contains("unknown game 'chess' (the games: fox, baghchal, tictactoe)"));
    }

    #[test]
    fn positions_of_the_other_game_get_a_hint() {
        let Err(Failure::BadInput(m)) = fox_position_arg("T...T/...../...../...../T...T g 20 0") else { panic!() };
        assert!(m.ends_with("(a Bagh-Chal position: add --game baghchal)"), "{m}");
        let rules = bc::Rules::new(4).unwrap();
        let Err(Failure::BadInput(m)) = bc_position_arg(&rules, 20, "T...T/...../...../...../T...T g 15 5") else {
            panic!()
        };
        assert_eq!(
            m,
            "bad position 'T...T/...../...../...../T...T g 15 5': 5 goats captured, but the tigers win on \
             capturing 4: no game gets there"
        );
    }
}
