//! The rules commands: `show`, `moves`, `play`, `perft` and `probe-ref`
//! (the reference solver). None of them needs tables. The first four are
//! written once over the rules of play ([`Playable`]) and take every game
//! (`--game`); each game refuses the others' rule flags.

use crate::command::{position_arg, CommandResult, Failure};
use crate::game_commands::GameCommands;
use crate::output::{json, line, text};
use clap::Args;
use foxbase_core::baghchal as bc;
use foxbase_core::game::GameKind;
use foxbase_core::notation::{count, format_position};
use foxbase_core::perft::{divide, perft};
use foxbase_core::play::Playable;
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::{Geometry, Rules, Side, Variant};
use serde_json::json;

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

/// `--game` and the rule switches of every game.
#[derive(Args, Clone, Copy)]
pub struct GameArgs {
    /// The game: `fox` (the Fox Game, positions as in RULES.md), `baghchal` (Bagh-Chal: 4 tigers against
    /// 20 goats, or --goats, on the 5x5 board; positions like 'T...T/...../...../...../T...T g 20 0': ranks 5
    /// down to 1, the side to move g or t, the goats still to place, the goats captured) or `tictactoe`
    /// (positions like 'X../.O./... x': rows top to bottom, then the side to move).
    #[arg(long, default_value_t = GameKind::DEFAULT, value_parser = crate::command::parse_game)]
    pub game: GameKind,
    #[command(flatten)]
    pub fox: RuleArgs,
    /// Bagh-Chal: the goats in the game, 1..=20 (default: the position's goats on the board + to place
    /// + captured, or 20 without a position; fewer make the small variants `solve --game baghchal
    /// --goats N` solves). A position whose goats add up to another number is refused, naming both.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=20))]
    pub goats: Option<u8>,
    /// Bagh-Chal: the tigers win on capturing this many goats, 1..=5 and at most --goats (default 5,
    /// or --goats when fewer).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub capture_target: Option<u8>,
    /// Fox Game: the no-progress rule of N plies, 0..=255 (RULES.md, "Draws"; default 0: none). A position
    /// may then carry its counter, the plies since the last progress move, as a third field ('... f 12',
    /// 0 to N): `show` prints it, `moves` gives each move's, `play` counts it and stops at a draw.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=foxbase_core::variant::MAX_NO_PROGRESS as i64))]
    pub no_progress: Option<u32>,
}

impl GameArgs {
    /// The rules of play of `G`, the game `--game` names
    /// ([`GameCommands::play_rules`]); a rule flag of another game is bad
    /// input naming it. `position` (the command's, or the default start)
    /// bounds the Fox Game's sheep floor by its sheep.
    pub fn rules<G: GameCommands>(&self, position: Option<&str>) -> Result<G::Rules, Failure> {
        // This command's rule flags: the Fox Game's but --start, Bagh-Chal's but --phase.
        let given = |id: &str| match id {
            "geometry" => self.fox.geometry.is_some(),
            "pen_target" => self.fox.pen_target.is_some(),
            "sheep_floor" => self.fox.floor.sheep_floor.is_some(),
            "floor_winner" => self.fox.floor.floor_winner.is_some(),
            "no_progress" => self.no_progress.is_some(),
            "goats" => self.goats.is_some(),
            "capture_target" => self.capture_target.is_some(),
            _ => false,
        };
        let has = |id: &str| !matches!(id, "start" | "phase");
        crate::command::refuse_other_games_flags(self.game, has, given)?;
        G::play_rules(self, position)
    }
}

/// A position argument of `rules`' game; a text that reads as a position
/// of another game gets a hint to add its `--game`.
fn position_of<P: Playable>(rules: &P, text: &str) -> Result<P::Position, Failure> {
    rules.parse_position(text).map_err(|e| bad_position(rules, text, e))
}

/// [`position_of`] with the no-progress counter it may carry as one more
/// field (0 when absent; refused beyond the rule's N, or without the rule).
fn position_at_counter_of<P: Playable>(rules: &P, text: &str) -> Result<(P::Position, u32), Failure> {
    rules.parse_position_at_counter(text).map_err(|e| bad_position(rules, text, e))
}

/// A bad position argument, with the hint of [`position_of`].
fn bad_position<P: Playable>(rules: &P, text: &str, e: String) -> Failure {
    let mine = rules.game_kind();
    let reads = |kind: GameKind| foxbase_core::with_game_type!(kind, G => <G as GameCommands>::standard_rules().parse_position(text).is_ok());
    let other = GameKind::ALL.into_iter().filter(|k| Some(*k) != mine).find(|k| reads(*k));
    match other {
        Some(k) => {
            Failure::bad_input(format!("bad position '{text}': {e} (a position of {}: add --game {k})", k.title()))
        }
        None => Failure::bad_input(format!("bad position '{text}': {e}")),
    }
}

pub fn parse_geometry(s: &str) -> Result<Geometry, foxbase_core::ParseError> {
    s.parse()
}

#[derive(Args)]
pub struct ShowArgs {
    /// The position in its game's notation (quote it): RULES.md's, or see --game.
    position: String,
    #[command(flatten)]
    game: GameArgs,
}

#[derive(Args)]
pub struct MovesArgs {
    /// The position in its game's notation (quote it): RULES.md's, or see --game.
    position: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    game: GameArgs,
}

#[derive(Args)]
pub struct PlayArgs {
    /// The position in its game's notation (quote it): RULES.md's, or see --game.
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

pub fn show(args: ShowArgs) -> CommandResult {
    foxbase_core::with_game_type!(args.game.game, G => show_in(&args.game.rules::<G>(Some(&args.position))?, &args))
}

fn show_in<P: Playable>(rules: &P, args: &ShowArgs) -> CommandResult {
    let (pos, counter) = position_at_counter_of(rules, &args.position)?;
    text(&rules.board_picture(&pos))?;
    if rules.no_progress() > 0 {
        line(format_args!(
            "no-progress counter: {counter} of {} (plies since the last progress move)",
            count(rules.no_progress() as u64, "ply", "plies")
        ))?;
    }
    line(rules.status_at(&pos, counter).describe())
}

pub fn moves(args: MovesArgs) -> CommandResult {
    foxbase_core::with_game_type!(args.game.game, G => moves_in(&args.game.rules::<G>(Some(&args.position))?, &args))
}

fn moves_in<P: Playable>(rules: &P, args: &MovesArgs) -> CommandResult {
    let (pos, counter) = position_at_counter_of(rules, &args.position)?;
    if args.json {
        let mut view = crate::views::moves_json(rules, &pos, counter);
        view["rules"] = rules.rule_switches();
        return json(&view);
    }
    // A game drawn by the no-progress rule has no moves left.
    let moves = if rules.status_at(&pos, counter).is_over() { Vec::new() } else { rules.moves(&pos) };
    line(format_args!(
        "{} ({}; {})",
        rules.format_position_at_counter(&pos, counter),
        count(moves.len() as u64, "legal move", "legal moves"),
        rules.status_at(&pos, counter).describe()
    ))?;
    for (m, child) in moves {
        let after = rules.counter_after(&pos, &child, counter);
        line(format_args!(
            "{:7} {}  {}",
            m.to_string(),
            rules.format_position_at_counter(&child, after),
            rules.status_at(&child, after).describe()
        ))?;
    }
    Ok(())
}

pub fn play(args: PlayArgs) -> CommandResult {
    foxbase_core::with_game_type!(args.game.game, G => play_in(&args.game.rules::<G>(Some(&args.position))?, &args))
}

fn play_in<P: Playable>(rules: &P, args: &PlayArgs) -> CommandResult {
    let (mut pos, mut counter) = position_at_counter_of(rules, &args.position)?;
    for text in &args.moves {
        if rules.no_progress() > 0 && rules.status_at(&pos, counter).is_over() && !rules.status(&pos).is_over() {
            return Err(Failure::bad_input(format!(
                "bad move: {text}: the game is drawn, {} without progress",
                count(counter as u64, "ply", "plies")
            )));
        }
        let m = rules.parse_move(&pos, text).map_err(|e| Failure::bad_input(format!("bad move: {e}")))?;
        let child = rules.play(&pos, m);
        counter = rules.counter_after(&pos, &child, counter);
        pos = child;
    }
    line(rules.format_position_at_counter(&pos, counter))?;
    line(rules.status_at(&pos, counter).describe())
}

pub fn perft_command(args: PerftArgs) -> CommandResult {
    foxbase_core::with_game_type!(args.game.game, G => perft_of::<G>(&args))
}

/// `perft` of the game `G`, with its distinct positions where it counts them.
fn perft_of<G: GameCommands>(args: &PerftArgs) -> CommandResult {
    let rules = args.game.rules::<G>(args.position.as_deref())?;
    if args.distinct && !G::COUNTS_DISTINCT_POSITIONS {
        return Err(Failure::bad_input(format!(
            "--distinct counts Bagh-Chal's positions; not a flag of --game {}",
            args.game.game
        )));
    }
    let start = args.position.clone().unwrap_or_else(|| G::default_start(&rules));
    let pos = position_of(&rules, &start)?;
    let layer = if args.distinct { G::distinct_positions(&rules, &pos, args.depth) } else { None };
    perft_report(args, &rules, &pos, layer)
}

/// Counts and prints `perft` from `pos` (with Bagh-Chal's `--distinct` layer, when counted).
fn perft_report<P: Playable>(
    args: &PerftArgs,
    rules: &P,
    pos: &P::Position,
    layer: Option<bc::Layer>,
) -> CommandResult {
    let depth = args.depth;
    let (nodes, parts) = if args.divide && depth > 0 {
        let parts = divide(rules, pos, depth);
        (parts.iter().map(|p| p.1).sum(), parts)
    } else {
        (perft(rules, pos, depth), Vec::new())
    };
    if args.json {
        let mut out = json!({"game": rules.game_name(), "depth": depth, "nodes": nodes,
            "position": rules.format_position(pos), "rules": rules.rule_switches()});
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
            "positions after {}: {} distinct, {} up to symmetry",
            count(depth, "ply", "plies"),
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
    use foxbase_core::foxgame::FoxGame;

    /// `perft`'s flags alone, as the command line gives them.
    #[derive(Parser)]
    struct Perft {
        #[command(flatten)]
        args: PerftArgs,
    }

    /// The rules `perft`'s flags give, as `G`'s (the game `--game` names).
    fn resolve_as<G: GameCommands>(flags: &[&str]) -> Result<G::Rules, String> {
        let parsed = Perft::try_parse_from([&["perft", "--depth", "1"], flags].concat()).map_err(|e| e.to_string())?;
        parsed.args.game.rules::<G>(None).map_err(|e| match e {
            Failure::BadInput(m) => m,
            other => panic!("{other:?}"),
        })
    }

    /// The rules `perft`'s flags give, for messages: the game `--game` names.
    fn resolve(flags: &[&str]) -> Result<String, String> {
        let parsed = Perft::try_parse_from([&["perft", "--depth", "1"], flags].concat()).map_err(|e| e.to_string())?;
        foxbase_core::with_game_type!(parsed.args.game.game, G => resolve_as::<G>(flags).map(|r| r.game_name().to_string()))
    }

    fn bc_rules(flags: &[&str]) -> (u8, u8) {
        let r = resolve_as::<bc::BaghChal>(flags).unwrap_or_else(|e| panic!("{flags:?}: {e}"));
        (r.variant().goats(), r.variant().capture_target())
    }

    #[test]
    fn each_game_takes_its_own_rule_flags() {
        assert_eq!(resolve_as::<FoxGame>(&[]).map(|r| r.pen_target), Ok(9));
        assert_eq!(resolve_as::<FoxGame>(&["--pen-target", "7"]).map(|r| r.pen_target), Ok(7));
        assert_eq!(resolve(&[]).as_deref(), Ok("fox"));
        assert_eq!(resolve(&["--game", "tictactoe"]).as_deref(), Ok("tictactoe"));
        assert_eq!(bc_rules(&["--game", "baghchal"]), (20, 5));
        assert_eq!(bc_rules(&["--game", "baghchal", "--capture-target", "4"]), (20, 4));
        assert_eq!(bc_rules(&["--game", "baghchal", "--goats", "2"]), (2, 2), "at most the goats");
        assert_eq!(bc_rules(&["--game", "baghchal", "--goats", "3", "--capture-target", "1"]), (3, 1));
        let refused = |flags: &[&str]| resolve(flags).err().unwrap_or_else(|| panic!("{flags:?} accepted"));
        assert_eq!(
            refused(&["--game", "baghchal", "--geometry", "classic"]),
            "--geometry is a Fox Game flag; --game baghchal takes --goats and --capture-target"
        );
        assert_eq!(
            refused(&["--game", "baghchal", "--pen-target", "9"]),
            "--pen-target is a Fox Game flag; --game baghchal takes --goats and --capture-target"
        );
        assert_eq!(
            refused(&["--capture-target", "5"]),
            "--capture-target is a Bagh-Chal flag; --game fox takes --geometry, --pen-target, --sheep-floor, \
             --floor-winner and --no-progress"
        );
        assert_eq!(
            refused(&["--game", "baghchal", "--no-progress", "40"]),
            "--no-progress is a Fox Game flag; --game baghchal takes --goats and --capture-target"
        );
        assert_eq!(
            refused(&["--game", "tictactoe", "--goats", "5"]),
            "--goats is a Bagh-Chal flag; --game tictactoe takes none"
        );
        assert!(refused(&["--game", "baghchal", "--capture-target", "6"]).contains("6 is not in 1..=5"));
        assert!(refused(&["--game", "baghchal", "--goats", "2", "--capture-target", "3"])
            .starts_with("--goats 2 --capture-target 3: "));
        assert!(refused(&["--game", "chess"]).contains("unknown game 'chess' (the games: fox, baghchal, tictactoe)"));
    }

    #[test]
    fn a_baghchal_position_without_goats_gives_its_own_total() {
        let two = "T...T/...../...../...../T...T g 2 0";
        let at = |flags: &[&str], position: &str| {
            let parsed = Perft::try_parse_from([&["perft", "--depth", "1", "--game", "baghchal"], flags].concat())
                .unwrap_or_else(|e| panic!("{e}"));
            parsed.args.game.rules::<bc::BaghChal>(Some(position)).unwrap_or_else(|_| panic!("{flags:?} {position}"))
        };
        let rules = at(&[], two);
        assert_eq!((rules.variant().goats(), rules.variant().capture_target()), (2, 2));
        assert!(position_of(&rules, two).is_ok());
        let rules = at(&[], "TGG.T/...../...../...../T...T t 14 4");
        assert_eq!((rules.variant().goats(), rules.variant().capture_target()), (20, 5));
        // --goats that disagrees with the position is refused, naming both numbers.
        let Err(Failure::BadInput(m)) = position_of(&at(&["--goats", "3"], two), two) else { panic!() };
        assert_eq!(
            m,
            format!("bad position '{two}': goats on the board (0) + to place (2) + captured (0) make 2, not 3")
        );
        // A position that does not read keeps the default and reports its own fault.
        let rules = at(&[], "T...T/...../T...T g 2 0");
        assert_eq!(rules.variant().goats(), 20);
    }

    #[test]
    fn positions_of_another_game_get_a_hint() {
        let fox = foxbase_core::Variant::default().rules();
        let Err(Failure::BadInput(m)) = position_of(&fox, "T...T/...../...../...../T...T g 20 0") else { panic!() };
        assert!(m.ends_with("(a position of Bagh-Chal: add --game baghchal)"), "{m}");
        let Err(Failure::BadInput(m)) = position_of(&fox, "X../.O./... x") else { panic!() };
        assert!(m.ends_with("(a position of tic-tac-toe: add --game tictactoe)"), "{m}");
        let four = bc::PlayRules::new(bc::BaghChalVariant::new(20, 4).unwrap());
        let Err(Failure::BadInput(m)) = position_of(&four, "T...T/...../...../...../T...T g 15 5") else { panic!() };
        assert_eq!(
            m,
            "bad position 'T...T/...../...../...../T...T g 15 5': 5 goats captured, but the tigers win on \
             capturing 4: no game gets there"
        );
    }
}
