//! `foxbase serve`: a tablebase explorer in the browser, for every game. A
//! JSON API over the same views as the command line ([`crate::views`]) and
//! the engine of `foxbase versus`, written once over [`Tablebase`], and one
//! page (`board/`, embedded in the binary) that draws any game's board from
//! its shape ([`foxbase_core::play::BoardShape`]) and calls it.
//!
//! | request | answer |
//! | --- | --- |
//! | `GET /` | the page (`/board.js`, `/board.css` beside it) |
//! | `GET /api/variant` | the game, its variant, sides and start, the board's points, lines and region, the tables' layout ([`variant_json`]) |
//! | `GET /api/probe?position=P` | what `foxbase probe --json` prints |
//! | `GET /api/moves?position=P` | what `foxbase moves --json` prints (any position) |
//! | `GET /api/engine?position=P&seed=S` | the engine's move, its outcome and the position after it (no move when the game is over) |
//!
//! Under a no-progress rule (`solve --no-progress N`) a position carries
//! its counter as one more field, as on the command line (`... f 12`, 0
//! when absent): probes and the engine's choices are at that counter, and
//! the positions answered carry the counters their moves lead to, so the
//! page counts the plies without progress and shows the draw at N.
//!
//! Bad input is a 400 with `{"error": "..."}`; a position whose tier the
//! tables do not hold is a 404; a failing table read is a 500. Queries are
//! bounded ([`MAX_QUERY`]); nothing from a request names a file.

use crate::views::{moves_json, probe_view, variant_json};
use axum::extract::{RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use foxbase_core::play::{Playable, WithRules};
use foxbase_core::tier::TierGame;
use foxbase_tables::engine::engine_move_at;
use foxbase_tables::probe::probe_at;
use foxbase_tables::reader::PositionOf;
use foxbase_tables::Tablebase;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

/// Longest query string accepted, in bytes (a position is 43 characters).
pub const MAX_QUERY: usize = 512;

const PAGE: &str = include_str!("board/index.html");
const SCRIPT: &str = include_str!("board/board.js");
const STYLE: &str = include_str!("board/board.css");

struct Explorer<T> {
    tables: T,
    variant: Value,
    /// The start as a query parameter, for messages.
    example: String,
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

/// The `position` parameter, parsed by the game's rules, with its
/// no-progress counter (0 when absent or without the rule).
fn position<T: Tablebase>(x: &Explorer<T>, p: &HashMap<String, String>) -> Result<(PositionOf<T>, u32), ApiError> {
    let text =
        p.get("position").ok_or_else(|| bad(format!("missing parameter 'position' (e.g. ?position={})", x.example)))?;
    x.tables.game().rules().parse_position_at_counter(text).map_err(|e| bad(format!("bad position '{text}': {e}")))
}

/// Runs a table read off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the request failed: {e}")))?
}

async fn variant_api<T: Tablebase + 'static>(State(x): State<Arc<Explorer<T>>>) -> Json<Value> {
    Json(x.variant.clone())
}

async fn probe_api<T: Tablebase + 'static>(
    State(x): State<Arc<Explorer<T>>>,
    RawQuery(q): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let (pos, counter) = position(&x, &params(q, &["position"])?)?;
    blocking(move || Ok(Json(probe_view(&x.tables, &probe_at(&x.tables, &pos, counter)?, counter)?))).await
}

async fn moves_api<T: Tablebase + 'static>(
    State(x): State<Arc<Explorer<T>>>,
    RawQuery(q): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let (pos, counter) = position(&x, &params(q, &["position"])?)?;
    let rules = x.tables.game().rules();
    let mut view = moves_json(rules, &pos, counter);
    view["rules"] = rules.rule_switches();
    Ok(Json(view))
}

async fn engine_api<T: Tablebase + 'static>(
    State(x): State<Arc<Explorer<T>>>,
    RawQuery(q): RawQuery,
) -> Result<Json<Value>, ApiError> {
    let p = params(q, &["position", "seed"])?;
    let (pos, counter) = position(&x, &p)?;
    let seed = match p.get("seed") {
        None => 0,
        Some(s) => s.parse::<u64>().map_err(|_| bad(format!("bad seed '{s}': a number from 0 to 2^64-1")))?,
    };
    blocking(move || {
        let rules = x.tables.game().rules();
        let position = rules.format_position_at_counter(&pos, counter);
        let answer = match engine_move_at(&x.tables, &pos, counter, seed)? {
            // The game is over: no move, and the position's value as /api/probe gives it.
            None => {
                let over = x.tables.outcome_at(&pos, counter)?;
                json!({"position": position, "move": null, "value": over.value.name(),
                    "plies": over.plies, "next": null})
            }
            Some(c) => {
                let next = rules.play(&pos, c.mv);
                json!({"position": position, "move": c.mv.to_string(),
                    "value": c.outcome.value.name(), "plies": c.outcome.plies,
                    "next": rules.format_position_at_counter(&next, rules.counter_after(&pos, &next, counter))})
            }
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

/// The explorer's routes over `tables`, of any game.
pub fn router<T: Tablebase + 'static>(tables: T) -> Router {
    let variant = variant_json(&tables);
    let start = tables.game().rules().format_position(&tables.game().initial_position());
    let explorer = Arc::new(Explorer { example: start.replace(' ', "%20"), variant, tables });
    Router::new()
        .route("/", get(|| async { asset("text/html; charset=utf-8", PAGE) }))
        .route("/board.js", get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }))
        .route("/board.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
        .route("/api/variant", get(variant_api::<T>))
        .route("/api/probe", get(probe_api::<T>))
        .route("/api/moves", get(moves_api::<T>))
        .route("/api/engine", get(engine_api::<T>))
        .fallback(not_found)
        .with_state(explorer)
}

/// Serves the explorer on `listen` until the process is stopped; `log`
/// gets `serving http://ADDR/` once it listens.
pub fn serve<T: Tablebase + 'static>(tables: T, listen: SocketAddr, log: &dyn Fn(&str)) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        log(&format!("serving http://{}/", listener.local_addr()?));
        axum::serve(listener, router(tables)).await
    })
}
