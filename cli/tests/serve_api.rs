//! `foxbase serve`'s JSON API over HTTP, against the command line and the
//! library it shares: `/api/probe` is `foxbase probe --json`, `/api/moves`
//! is `foxbase moves --json`, `/api/engine` is `engine_move`; bad requests
//! are 400s with a JSON error naming the problem, positions outside the
//! tables 404s; the page and its assets are served with their types.

mod common;

use common::{foxbase, spawn_for_process_lifetime, TempDir};
use foxbase_core::notation::{format_position, parse_position};
use foxbase_tables::engine::engine_move;
use foxbase_tables::TableDir;
use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Stdio};
use std::sync::OnceLock;

/// Two foxes against three sheep, orthogonal, K = 2 (as perfect_play.rs).
const START: &str = "F.F/.../......./......./..SSS../.../... f";
const RULES: [&str; 4] = ["--geometry", "orthogonal", "--pen-target", "2"];

/// The tables, solved once for this test binary, and a server on them.
struct Served {
    _dir: TempDir,
    tables: std::path::PathBuf,
    addr: String,
    _server: Child,
}

fn served() -> &'static Served {
    static SERVED: OnceLock<Served> = OnceLock::new();
    SERVED.get_or_init(|| {
        let dir = TempDir::new("serve-api");
        let tables = dir.0.join("tables");
        let out = foxbase()
            .args(["solve", "--start", START, "--threads", "1", "--out"])
            .arg(&tables)
            .args(RULES)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let mut serve = foxbase();
        serve.args(["serve", "--listen", "127.0.0.1:0", "--tables"]).arg(&tables).stderr(Stdio::piped());
        // In a static, never dropped: killed when the test process exits.
        let mut child = spawn_for_process_lifetime(serve).unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
        let addr =
            line.trim().strip_prefix("foxbase serve: serving http://").unwrap().trim_end_matches('/').to_string();
        Served { _dir: dir, tables, addr, _server: child }
    })
}

/// `GET path` from the server: (status, content type, body).
fn get(path: &str) -> (u16, String, String) {
    let mut s = std::net::TcpStream::connect(&served().addr).unwrap();
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
    let (status, kind, body) = get(path);
    assert_eq!(status, 200, "{path}: {body}");
    assert_eq!(kind, "application/json", "{path}");
    serde_json::from_str(&body).unwrap()
}

/// A 4xx answer's status and error message.
fn get_error(path: &str) -> (u16, String) {
    let (status, kind, body) = get(path);
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
    let mut all = vec![START.to_string()];
    let first = get_json(&format!("/api/moves?position={}", q(START)));
    for m in first["moves"].as_array().unwrap() {
        let p = m["position"].as_str().unwrap().to_string();
        let next = get_json(&format!("/api/moves?position={}", q(&p)));
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
    let tables = TableDir::open(&served().tables).unwrap();
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
