//! `foxbase serve`: a tablebase explorer in the browser. A JSON API over
//! the same views as the command line ([`crate::views`]) and the engine of
//! `foxbase versus`, and one page (`board/`, embedded in the binary) that
//! draws the board and calls it.
//!
//! | request | answer |
//! | --- | --- |
//! | `GET /` | the page (`/board.js`, `/board.css` beside it) |
//! | `GET /api/variant` | the variant, the board's points, lines and pen, the tables' layout |
//! | `GET /api/probe?position=P` | what `foxbase probe --json` prints |
//! | `GET /api/moves?position=P` | what `foxbase moves --json` prints (any position) |
//! | `GET /api/engine?position=P&seed=S` | the engine's move, its outcome and the position after it (no move when the game is over) |
//!
//! Bad input is a 400 with `{"error": "..."}`; a position whose tier the
//! tables do not hold is a 404; a failing table read is a 500. Queries are
//! bounded ([`MAX_QUERY`]); nothing from a request names a file.

use crate::views::{moves_json, probe_json, variant_json, with_bound};
use axum::extract::{RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::rules::Rules;
use foxbase_core::Position;
use foxbase_tables::engine::engine_move;
use foxbase_tables::probe::probe;
use foxbase_tables::TableDir;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

/// Longest query string accepted, in bytes (a position is 43 characters).
pub const MAX_QUERY: usize = 512;

const PAGE: &str = include_str!("board/index.html");
const SCRIPT: &str = include_str!("board/board.js");
const STYLE: &str = include_str!("board/board.css");

struct Explorer {
    tables: TableDir,
    rules: Rules,
    variant: Value,
}

/// A failed request: its status and message, sent as `{"error": message}`.
#[derive(Debug)]
pub struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({"error": self.1}))).into_response()
    }
}

fn bad(message: impl std::fmt::Display) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, message.to_string())
}

impl From<foxbase_tables::Error> for ApiError {
    fn from(e: foxbase_tables::Error) -> ApiError {
        use foxbase_tables::Error as E;
        let status = match &e {
            E::TierNotHeld { .. } | E::TierNotAmong { .. } => StatusCode::NOT_FOUND,
            E::TooManyPieces { .. } | E::Query(_) => StatusCode::BAD_REQUEST,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError(status, e.to_string())
    }
}

/// The parameters of a query string, bounded, each name once.
fn params(raw: Option<String>, allowed: &[&str]) -> Result<HashMap<String, String>, ApiError> {
    let raw = raw.unwrap_or_default();
    if raw.len() > MAX_QUERY {
        return Err(bad(format!("the query is {} bytes long; at most {MAX_QUERY}", raw.len())));
    }
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(&raw).map_err(|e| bad(format!("malformed query: {e}")))?;
    let mut out = HashMap::new();
    for (name, value) in pairs {
        if !allowed.contains(&name.as_str()) {
            return Err(bad(format!("unknown parameter '{name}' (this request takes {})", allowed.join(", "))));
        }
        if out.insert(name.clone(), value).is_some() {
            return Err(bad(format!("parameter '{name}' given twice")));
        }
    }
    Ok(out)
}

/// The `position` parameter, parsed.
fn position(p: &HashMap<String, String>) -> Result<Position, ApiError> {
    let text = p.get("position").ok_or_else(|| {
        bad("missing parameter 'position' (e.g. ?position=F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS%20f)")
    })?;
    parse_position(text).map_err(|e| bad(format!("bad position '{text}': {e}")))
}

/// Runs a table read off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the request failed: {e}")))?
}

async fn variant_api(State(x): State<Arc<Explorer>>) -> Json<Value> {
    let mut v = x.variant.clone();
    v["layout"] = json!(x.tables.layout().name());
    v["plies"] = json!(x.tables.has_plies());
    Json(v)
}

async fn probe_api(State(x): State<Arc<Explorer>>, RawQuery(q): RawQuery) -> Result<Json<Value>, ApiError> {
    let pos = position(&params(q, &["position"])?)?;
    blocking(move || {
        let view = probe_json(&x.rules, &probe(&x.tables, &pos)?);
        Ok(Json(with_bound(view, x.tables.game.variant.bound())))
    })
    .await
}

async fn moves_api(State(x): State<Arc<Explorer>>, RawQuery(q): RawQuery) -> Result<Json<Value>, ApiError> {
    let pos = position(&params(q, &["position"])?)?;
    let mut view = moves_json(&x.rules, &pos);
    view["rules"] = crate::rules::AnyRules::Fox(x.rules).switches_json();
    Ok(Json(view))
}

async fn engine_api(State(x): State<Arc<Explorer>>, RawQuery(q): RawQuery) -> Result<Json<Value>, ApiError> {
    let p = params(q, &["position", "seed"])?;
    let pos = position(&p)?;
    let seed = match p.get("seed") {
        None => 0,
        Some(s) => s.parse::<u64>().map_err(|_| bad(format!("bad seed '{s}': a number from 0 to 2^64-1")))?,
    };
    blocking(move || {
        let answer = match engine_move(&x.tables, &pos, seed)? {
            // The game is over: no move, and the position's value as /api/probe gives it.
            None => {
                let over = x.tables.outcome(&pos)?;
                json!({"position": format_position(&pos), "move": null, "value": over.value.name(),
                    "plies": over.plies, "next": null})
            }
            Some(c) => json!({"position": format_position(&pos), "move": c.mv.to_string(),
                "value": c.outcome.value.name(), "plies": c.outcome.plies,
                "next": format_position(&x.rules.play(&pos, c.mv))}),
        };
        Ok(Json(answer))
    })
    .await
}

fn asset(kind: &'static str, body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], body)
}

async fn not_found() -> ApiError {
    ApiError(StatusCode::NOT_FOUND, "no such page: the board is at /, the API under /api/".into())
}

/// The explorer's routes over `tables`.
pub fn router(tables: TableDir) -> Router {
    let variant = variant_json(&tables.game.variant);
    let explorer = Arc::new(Explorer { rules: tables.game.variant.rules(), variant, tables });
    Router::new()
        .route("/", get(|| async { asset("text/html; charset=utf-8", PAGE) }))
        .route("/board.js", get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }))
        .route("/board.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
        .route("/api/variant", get(variant_api))
        .route("/api/probe", get(probe_api))
        .route("/api/moves", get(moves_api))
        .route("/api/engine", get(engine_api))
        .fallback(not_found)
        .with_state(explorer)
}

/// Serves the explorer on `listen` until the process is stopped; `log`
/// gets `serving http://ADDR/` once it listens.
pub fn serve(tables: TableDir, listen: SocketAddr, log: &dyn Fn(&str)) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        log(&format!("serving http://{}/", listener.local_addr()?));
        axum::serve(listener, router(tables)).await
    })
}
