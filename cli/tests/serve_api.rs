//! `foxbase serve`'s JSON API over HTTP, against the command line and the
//! library it shares: `/api/probe` is `foxbase probe --json`, `/api/moves`
//! is `foxbase moves --json`, `/api/engine` is `engine_move`; bad requests
//! are 400s with a JSON error naming the problem, positions outside the
//! tables 404s; the page and its assets are served with their types. The
//! same for Bagh-Chal's and tic-tac-toe's tables: one server for every game.

mod common;

use common::{foxbase, spawn_for_process_lifetime, TempDir};
use foxbase_core::baghchal::{BaghChal, BaghChalVariant};
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tictactoe::TicTacToe;
use foxbase_core::tier::TierGame;
use foxbase_tables::engine::{engine_move, engine_move_at};
use foxbase_tables::TierTables;
use foxbase_tables::{FoxTables, Tablebase};
use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Stdio};
use std::sync::OnceLock;

/// Two foxes against three sheep, orthogonal, K = 2 (as perfect_play.rs).
const START: &str = "F.F/.../......./......./..SSS../.../... f";
const RULES: [&str; 4] = ["--geometry", "orthogonal", "--pen-target", "2"];

/// Tables solved once for this test binary, and a server on them.
struct Served {
    _dir: TempDir,
    tables: std::path::PathBuf,
    addr: String,
    _server: Child,
}

/// `foxbase solve SOLVE --out DIR`, then `foxbase serve --tables DIR` on a free port.
fn serve_solved(tag: &str, solve: &[&str]) -> Served {
    let dir = TempDir::new(tag);
    let tables = dir.0.join("tables");
    let out = foxbase().arg("solve").args(solve).arg("--out").arg(&tables).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut serve = foxbase();
    serve.args(["serve", "--listen", "127.0.0.1:0", "--tables"]).arg(&tables).stderr(Stdio::piped());
    // In a static, never dropped: killed when the test process exits.
    let mut child = spawn_for_process_lifetime(serve).unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("foxbase serve: serving http://").unwrap().trim_end_matches('/').to_string();
    Served { _dir: dir, tables, addr, _server: child }
}

/// The Fox Game's tables and server.
fn served() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let mut solve = vec!["--start", START, "--threads", "1"];
        solve.extend(RULES);
        serve_solved("serve-api", &solve)
    })
}

/// Bagh-Chal with 2 goats, capture target 2 (the README's small variant).
const BC_START: &str = "T...T/...../...../...../T...T g 2 0";
const BC_RULES: [&str; 6] = ["--game", "baghchal", "--goats", "2", "--capture-target", "2"];

fn served_baghchal() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let mut solve = BC_RULES.to_vec();
        solve.extend(["--threads", "1"]);
        serve_solved("serve-api-bc", &solve)
    })
}

const TTT_START: &str = ".../.../... x";
const TTT_RULES: [&str; 2] = ["--game", "tictactoe"];

fn served_tictactoe() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| serve_solved("serve-api-ttt", &TTT_RULES))
}

/// `GET path` from the Fox Game's server: (status, content type, body).
fn get(path: &str) -> (u16, String, String) {
    get_at(served(), path)
}

/// `GET path` from `server`: (status, content type, body).
fn get_at(server: &Served, path: &str) -> (u16, String, String) {
    let mut s = std::net::TcpStream::connect(&server.addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let kind = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-type: ").map(str::to_string))
        .unwrap_or_default();
    (status, kind, body.to_string())
}

/// `GET path` that must answer 200 with JSON.
fn get_json(path: &str) -> Json {
    json_at(served(), path)
}

fn json_at(server: &Served, path: &str) -> Json {
    let (status, kind, body) = get_at(server, path);
    assert_eq!(status, 200, "{path}: {body}");
    assert_eq!(kind, "application/json", "{path}");
    serde_json::from_str(&body).unwrap()
}

/// A 4xx answer's status and error message.
fn get_error(path: &str) -> (u16, String) {
    error_at(served(), path)
}

fn error_at(server: &Served, path: &str) -> (u16, String) {
    let (status, kind, body) = get_at(server, path);
    assert_eq!(kind, "application/json", "{path}: {body}");
    let j: Json = serde_json::from_str(&body).unwrap();
    (status, j["error"].as_str().unwrap_or_else(|| panic!("no error in {body}")).to_string())
}

fn q(position: &str) -> String {
    position.replace(' ', "%20")
}

fn cli_json(args: &[&str]) -> Json {
    let out = foxbase().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Positions of the variant: the start, and the positions after each of its moves and theirs.
fn positions() -> Vec<String> {
    positions_at(served(), START)
}

/// Positions from `start` on `server`: the start, the positions after each
/// of its moves, and after two of each of theirs.
fn positions_at(server: &Served, start: &str) -> Vec<String> {
    let mut all = vec![start.to_string()];
    let first = json_at(server, &format!("/api/moves?position={}", q(start)));
    for m in first["moves"].as_array().unwrap() {
        let p = m["position"].as_str().unwrap().to_string();
        let next = json_at(server, &format!("/api/moves?position={}", q(&p)));
        all.extend(
            next["moves"].as_array().unwrap().iter().take(2).map(|m| m["position"].as_str().unwrap().to_string()),
        );
        all.push(p);
    }
    all
}

#[test]
fn the_variant_has_the_boards_points_lines_and_pen() {
    let v = get_json("/api/variant");
    assert_eq!(v["game"], "fox");
    assert_eq!(v["geometry"], "orthogonal");
    assert_eq!(v["pen_target"], 2);
    assert_eq!(v["foxes"], 2);
    assert_eq!(v["start"], START);
    assert_eq!(v["first_mover"], "fox");
    assert_eq!(v["layout"], "solved");
    assert_eq!(v["plies"], true);
    assert_eq!(v["board"]["points"].as_array().unwrap().len(), 33);
    // RULES.md: 52 lines without the diagonals; the pen, the nine points
    // of the top arm and the three below it, where the foxes start.
    assert_eq!(v["board"]["lines"].as_array().unwrap().len(), 52);
    let pen: Vec<&str> = v["board"]["pen"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(pen, ["c5", "d5", "e5", "c6", "d6", "e6", "c7", "d7", "e7"]);
    let point = |name: &str| {
        let p = v["board"]["points"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap().clone();
        (p["x"].as_i64().unwrap(), p["y"].as_i64().unwrap())
    };
    assert_eq!((point("a3"), point("d7"), point("g5")), ((1, 3), (4, 7), (7, 5)));
}

#[test]
fn probe_and_moves_answer_what_the_command_line_prints() {
    let tables = served().tables.display().to_string();
    let positions = positions();
    assert!(positions.len() > 10, "{}", positions.len());
    for p in &positions {
        let api = get_json(&format!("/api/probe?position={}", q(p)));
        assert_eq!(api, cli_json(&["probe", p, "--json", "--tables", &tables]), "{p}");
        let mut moves_args = vec!["moves", p.as_str(), "--json"];
        moves_args.extend(RULES);
        assert_eq!(get_json(&format!("/api/moves?position={}", q(p))), cli_json(&moves_args), "{p}");
    }
    // Some position has a win with its distance.
    let any_plies = positions.iter().any(|p| {
        let j = get_json(&format!("/api/probe?position={}", q(p)));
        j["moves"].as_array().unwrap().iter().any(|m| m["plies"].is_u64())
    });
    assert!(any_plies);
}

#[test]
fn the_engine_answers_what_engine_move_chooses() {
    let tables = FoxTables::open(&served().tables).unwrap();
    for (n, p) in positions().iter().enumerate() {
        let seed = n as u64 * 7919;
        let api = get_json(&format!("/api/engine?position={}&seed={seed}", q(p)));
        let pos = parse_position(p).unwrap();
        match engine_move(&tables, &pos, seed).unwrap() {
            None => {
                assert_eq!(api["move"], Json::Null, "{p}");
                assert_eq!(api["value"], tables.outcome(&pos).unwrap().value.name());
            }
            Some(c) => {
                assert_eq!(api["move"], c.mv.to_string(), "{p}");
                assert_eq!(api["value"], c.outcome.value.name());
                assert_eq!(api["plies"].as_u64(), c.outcome.plies.map(u64::from));
                let next = tables.game.variant.rules().play(&pos, c.mv);
                assert_eq!(api["next"], format_position(&next));
            }
        }
    }
    // A game over: no move, the position's value.
    let over = "F.F/.../......./......./..S..../.../... s";
    let api = get_json(&format!("/api/engine?position={}", q(over)));
    let probe = get_json(&format!("/api/probe?position={}", q(over)));
    assert_eq!((&api["move"], &api["value"], &api["plies"]), (&Json::Null, &probe["value"], &probe["plies"]));
    assert_eq!(probe["plies"], 0);
    // No seed: seed 0.
    let zero = get_json(&format!("/api/engine?position={}&seed=0", q(START)));
    assert_eq!(get_json(&format!("/api/engine?position={}", q(START))), zero);
}

#[test]
fn bad_requests_are_400s_naming_the_problem_and_unheld_tiers_404s() {
    for (path, status, says) in [
        ("/api/probe", 400, "missing parameter 'position'"),
        ("/api/probe?position=xyz", 400, "bad position 'xyz'"),
        ("/api/probe?position=F.F/.../......./......./..SSS../.../...%20q", 400, "bad position"),
        ("/api/probe?position=a&position=b", 400, "given twice"),
        ("/api/probe?position=a&file=/etc/passwd", 400, "unknown parameter 'file'"),
        ("/api/engine?position=F.F/.../......./......./..SSS../.../...%20f&seed=-1", 400, "bad seed '-1'"),
        ("/api/moves?position=%ZZ", 400, "bad position"),
        // More sheep than the start has.
        ("/api/probe?position=F.F/.../......./......./.SSSS../.../...%20f", 400, "more than this variant's start"),
        // Sheep never step back: a sheep on rank 1 is in no tier of these tables.
        ("/api/probe?position=F.F/.../......./......./..SS.../.../S..%20f", 404, "which these tables do not hold"),
        ("/nothing/here", 404, "no such page"),
    ] {
        let (got, message) = get_error(path);
        assert_eq!(got, status, "{path}: {message}");
        assert!(message.contains(says), "{path}: '{message}' should say '{says}'");
    }
    let long = format!("/api/probe?position={}", "S".repeat(600));
    let (status, message) = get_error(&long);
    assert_eq!((status, message.contains("at most 512")), (400, true), "{message}");
    // Outside the tables, the moves still come.
    let outside = get_json("/api/moves?position=F.F/.../......./......./..SS.../.../S..%20f");
    assert!(!outside["moves"].as_array().unwrap().is_empty());
}

#[test]
fn the_page_and_its_assets_are_served_with_their_types() {
    let (status, kind, body) = get("/");
    assert_eq!((status, kind.as_str()), (200, "text/html; charset=utf-8"));
    assert!(body.contains("/board.js") && body.contains("/board.css"), "{body}");
    let (status, kind, _) = get("/board.js");
    assert_eq!((status, kind.as_str()), (200, "text/javascript; charset=utf-8"));
    let (status, kind, _) = get("/board.css");
    assert_eq!((status, kind.as_str()), (200, "text/css; charset=utf-8"));
    // A query on the page is the page (the script reads it).
    assert_eq!(get(&format!("/?position={}", q(START))).0, 200);
}

// ---- Bagh-Chal and tic-tac-toe ---------------------------------------------

/// The points of `/api/variant`'s board by name: (x, y).
fn point_at(v: &Json, name: &str) -> (i64, i64) {
    let p = v["board"]["points"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap();
    (p["x"].as_i64().unwrap(), p["y"].as_i64().unwrap())
}

fn side_names(v: &Json) -> Vec<String> {
    v["sides"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn the_variant_of_baghchal_and_tictactoe() {
    let v = json_at(served_baghchal(), "/api/variant");
    assert_eq!((v["game"].as_str(), v["title"].as_str()), (Some("baghchal"), Some("Bagh-Chal")));
    assert_eq!((v["start"].as_str(), v["first_mover"].as_str()), (Some(BC_START), Some("goat")));
    assert_eq!((v["goats"].as_u64(), v["capture_target"].as_u64()), (Some(2), Some(2)));
    assert_eq!((v["layout"].as_str(), v["plies"].as_bool(), &v["bound"]), (Some("solved"), Some(true), &Json::Null));
    assert_eq!(side_names(&v), ["goat", "tiger"]);
    let pieces: Vec<_> = v["sides"].as_array().unwrap().iter().map(|s| (&s["piece"], &s["letter"])).collect();
    assert_eq!(format!("{pieces:?}"), r#"[(String("G"), String("g")), (String("T"), String("t"))]"#);
    // 25 points, 40 orthogonal lines and 16 diagonals, no region; the counts after the side.
    assert_eq!(v["board"]["points"].as_array().unwrap().len(), 25);
    assert_eq!(v["board"]["lines"].as_array().unwrap().len(), 56);
    assert!(v["board"]["lines"].as_array().unwrap().contains(&serde_json::json!(["a1", "b2"])));
    assert!(!v["board"]["lines"].as_array().unwrap().contains(&serde_json::json!(["b1", "a2"])));
    assert_eq!((point_at(&v, "a1"), point_at(&v, "c3"), point_at(&v, "e5")), ((1, 1), (3, 3), (5, 5)));
    assert_eq!((&v["board"]["cells"], &v["board"]["region"]), (&Json::Bool(false), &Json::Null));
    let counts: Vec<_> = v["board"]["counts"].as_array().unwrap().iter().map(|c| c["key"].as_str().unwrap()).collect();
    assert_eq!(counts, ["to_place", "captured"]);
    assert_eq!(v["words"], serde_json::json!(["2 goats", "capture target 2"]));

    let v = json_at(served_tictactoe(), "/api/variant");
    assert_eq!(
        (v["game"].as_str(), v["start"].as_str(), v["first_mover"].as_str()),
        (Some("tictactoe"), Some(TTT_START), Some("x"))
    );
    assert_eq!(side_names(&v), ["x", "o"]);
    assert_eq!(v["board"]["points"].as_array().unwrap().len(), 9);
    assert_eq!((point_at(&v, "a3"), point_at(&v, "b2"), point_at(&v, "c1")), ((1, 3), (2, 2), (3, 1)));
    assert_eq!((&v["board"]["cells"], v["board"]["lines"].as_array().unwrap().len()), (&Json::Bool(true), 0));
    assert_eq!((v["layout"].as_str(), v["plies"].as_bool()), (Some("solved"), Some(true)));
    // The Fox Game's own fields are the Fox Game's only.
    for key in ["geometry", "pen_target", "foxes", "goats"] {
        assert!(v.get(key).is_none(), "{key} in {v}");
    }
}

/// /api/probe and /api/moves of `server` against `foxbase probe --json` and
/// `foxbase moves --json RULES` on every position of [`positions_at`].
fn answers_as_the_command_line(server: &Served, start: &str, rules: &[&str]) -> Vec<String> {
    let tables = server.tables.display().to_string();
    let positions = positions_at(server, start);
    assert!(positions.len() > 10, "{}", positions.len());
    for p in &positions {
        let api = json_at(server, &format!("/api/probe?position={}", q(p)));
        assert_eq!(api, cli_json(&["probe", p, "--json", "--tables", &tables]), "{p}");
        let mut moves_args = vec!["moves", p.as_str(), "--json"];
        moves_args.extend(rules);
        assert_eq!(json_at(server, &format!("/api/moves?position={}", q(p))), cli_json(&moves_args), "{p}");
    }
    positions
}

/// /api/engine of `server` against [`engine_move`] on `positions` and `over` (a game over).
fn engine_as_the_library<T: Tablebase>(server: &Served, tables: &T, positions: &[String], over: &str) {
    let rules = tables.game().rules();
    for (n, p) in positions.iter().enumerate() {
        let seed = n as u64 * 7919;
        let api = json_at(server, &format!("/api/engine?position={}&seed={seed}", q(p)));
        let pos = rules.parse_position(p).unwrap();
        match engine_move(tables, &pos, seed).unwrap() {
            None => {
                assert_eq!(api["move"], Json::Null, "{p}");
                assert_eq!(api["value"], tables.outcome(&pos).unwrap().value.name());
            }
            Some(c) => {
                assert_eq!(api["move"], c.mv.to_string(), "{p}");
                assert_eq!(api["value"], c.outcome.value.name());
                assert_eq!(api["plies"].as_u64(), c.outcome.plies.map(u64::from));
                assert_eq!(api["next"], rules.format_position(&rules.play(&pos, c.mv)));
            }
        }
    }
    let api = json_at(server, &format!("/api/engine?position={}", q(over)));
    let probe = json_at(server, &format!("/api/probe?position={}", q(over)));
    assert_eq!((&api["move"], &api["value"], &api["plies"]), (&Json::Null, &probe["value"], &probe["plies"]));
    assert_eq!((probe["value"].as_str(), probe["plies"].as_u64()), (Some("loss"), Some(0)), "{over}");
}

#[test]
fn baghchal_probe_moves_and_engine_answer_as_the_command_line() {
    let server = served_baghchal();
    let positions = answers_as_the_command_line(server, BC_START, &BC_RULES);
    // A capture and the game it ends, by the tigers' jump.
    let jump = ".T..T/...../...../.G.../T...T t 0 1";
    let probe = json_at(server, &format!("/api/probe?position={}", q(jump)));
    assert_eq!(probe["moves"][0], serde_json::json!({"move": "a1xc3", "value": "win", "plies": 1}));
    let moves = json_at(server, &format!("/api/moves?position={}", q(jump)));
    let capture = moves["moves"].as_array().unwrap().iter().find(|m| m["move"] == "a1xc3").unwrap();
    assert_eq!(capture["position"], ".T..T/...../..T../...../....T g 0 2");
    assert_eq!(capture["status"]["winner"], "tiger");
    let tables = TierTables::<BaghChal>::open(&server.tables).unwrap();
    let expected = BaghChal::new(BaghChalVariant::new(2, 2).unwrap());
    assert_eq!(TierGame::variant_json(&tables.game), TierGame::variant_json(&expected));
    engine_as_the_library(server, &tables, &positions, ".T..T/...../..T../...../....T g 0 2");
    // Bad input names the problem; the example is the start.
    for (path, says) in [
        ("/api/probe", "missing parameter 'position' (e.g. ?position=T...T/...../...../...../T...T%20g%202%200)"),
        ("/api/probe?position=T...T/...../...../...../T...T%20g%2020%200", "make 20, not 2"),
        ("/api/moves?position=T...T/...../...../...../T...T%20f%202%200", "bad position"),
        ("/api/engine?position=T...T/...../...../...../T...T%20g%202%200&seed=x", "bad seed 'x'"),
    ] {
        let (status, message) = error_at(server, path);
        assert_eq!(status, 400, "{path}: {message}");
        assert!(message.contains(says), "{path}: '{message}' should say '{says}'");
    }
}

#[test]
fn tictactoe_probe_moves_and_engine_answer_as_the_command_line() {
    let server = served_tictactoe();
    let positions = answers_as_the_command_line(server, TTT_START, &TTT_RULES);
    let tables = TierTables::<TicTacToe>::open(&server.tables).unwrap();
    // O to move after X's line: lost, no move.
    engine_as_the_library(server, &tables, &positions, "XXX/OO./... o");
    let full = json_at(server, &format!("/api/moves?position={}", q("XOX/XOO/OXX o")));
    assert_eq!(full["status"], serde_json::json!({"over": true, "winner": null, "reason": "the board is full"}));
    assert_eq!(full["side_to_move"], "o");
    let (status, message) = error_at(server, &format!("/api/probe?position={}", q("XX./.../... o")));
    assert_eq!(status, 400, "{message}");
    assert!(message.starts_with("bad position 'XX./.../... o'"), "{message}");
    // The page is the same page.
    let (status, kind, body) = get_at(server, "/");
    assert_eq!((status, kind.as_str()), (200, "text/html; charset=utf-8"));
    assert!(body.contains("/board.js"));
}

/// The Fox Game's tables under a no-progress rule of 6 plies, and a server on them.
fn served_no_progress() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let mut solve = vec!["--start", START, "--threads", "1", "--no-progress", "6"];
        solve.extend(RULES);
        serve_solved("serve-api-np", &solve)
    })
}

#[test]
fn under_the_no_progress_rule_positions_carry_their_counters() {
    let server = served_no_progress();
    let tables_dir = server.tables.display().to_string();
    let v = json_at(server, "/api/variant");
    assert_eq!(v["no_progress"], 6);
    assert_eq!(v["board"]["counts"], serde_json::json!([{"key": "no_progress", "words": "plies without progress"}]));
    assert!(v["words"].as_array().unwrap().iter().any(|w| w == "a draw after 6 plies without progress"), "{v}");

    // A position without its counter is at counter 0; a fox move (no
    // progress) leads to counter 1, and the answers are the command line's.
    let start_moves = json_at(server, &format!("/api/moves?position={}", q(START)));
    assert_eq!(start_moves["position"], format!("{START} 0"));
    assert_eq!(start_moves["moves"][0]["position"].as_str().unwrap().rsplit(' ').next(), Some("1"));
    let positions = positions_at(server, START);
    assert!(positions.iter().any(|p| p.ends_with(" 2")), "{positions:?}");
    let mut moves_args = vec!["--json", "--no-progress", "6"];
    moves_args.extend(RULES);
    for p in &positions {
        let probe = json_at(server, &format!("/api/probe?position={}", q(p)));
        assert_eq!(probe, cli_json(&["probe", p, "--json", "--tables", &tables_dir]), "{p}");
        // The counter: the third field, 0 where the start leaves it out.
        let counter = p.rsplit(' ').next().unwrap().parse::<u64>().unwrap_or(0);
        assert_eq!(probe["no_progress"]["counter"].as_u64(), Some(counter), "{p}");
        let mut args = vec!["moves", p.as_str()];
        args.extend(&moves_args);
        assert_eq!(json_at(server, &format!("/api/moves?position={}", q(p))), cli_json(&args), "{p}");
    }

    // The engine chooses as engine_move_at at the counter, and its next
    // position carries the counter its move leads to.
    let tables = FoxTables::open(&server.tables).unwrap();
    let rules = tables.game.variant.rules();
    for (n, p) in positions.iter().enumerate() {
        let seed = n as u64 * 7919;
        let api = json_at(server, &format!("/api/engine?position={}&seed={seed}", q(p)));
        let (pos, counter) = rules.parse_position_at_counter(p).unwrap();
        let c = engine_move_at(&tables, &pos, counter, seed).unwrap().expect("a move");
        assert_eq!(api["move"], c.mv.to_string(), "{p}");
        assert_eq!(api["value"], c.outcome.value.name(), "{p}");
        let next = rules.play(&pos, c.mv);
        assert_eq!(api["next"], rules.format_position_at_counter(&next, rules.counter_after(&pos, &next, counter)));
    }

    // At the rule's 6 plies the game is a draw: no moves, no engine move.
    let drawn = format!("{START} 6");
    let moves = json_at(server, &format!("/api/moves?position={}", q(&drawn)));
    assert_eq!(
        moves["status"],
        serde_json::json!({"over": true, "winner": null, "reason": "no progress for the rule's plies"})
    );
    assert_eq!(moves["moves"], serde_json::json!([]));
    let engine = json_at(server, &format!("/api/engine?position={}", q(&drawn)));
    assert_eq!(
        (&engine["move"], &engine["value"], &engine["next"]),
        (&Json::Null, &serde_json::json!("draw"), &Json::Null)
    );
    // A counter beyond the rule is bad input.
    let (status, message) = error_at(server, &format!("/api/probe?position={}", q(&format!("{START} 7"))));
    assert_eq!(status, 400);
    assert!(message.contains("the no-progress counter 7 is out of range: 0 to 6"), "{message}");
}

#[test]
fn capture_bounded_tables_say_whose_moves_are_a_real_game_strategy() {
    // Two foxes against three sheep on rank 1 under a floor of 3 (K = 2):
    // every capture ends the game, won by the floor's winner.
    let start = "F.F/.../......./......./......./.../SSS f";
    for (winner, says) in [
        ("foxes", "the sheep's winning moves are a winning strategy in the real game, the foxes' moves are not a strategy of it"),
        ("sheep", "the foxes' moves that hold a draw or a win are a strategy for it in the real game, the sheep's moves are not a strategy of it"),
    ] {
        let server = serve_solved(
            &format!("serve-bound-{winner}"),
            &["--start", start, "--pen-target", "2", "--sheep-floor", "3", "--floor-winner", winner, "--threads", "1", "--no-distance"],
        );
        let variant = json_at(&server, "/api/variant");
        let probed = json_at(&server, &format!("/api/probe?position={}", q(start)));
        for v in [&variant, &probed] {
            assert_eq!(v["bound"]["floor_winner"], winner, "{v}");
            assert!(v["bound"]["note"].as_str().unwrap().ends_with(says), "{v}");
        }
    }
}
