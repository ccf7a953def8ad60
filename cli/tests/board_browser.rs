//! The board page of `foxbase serve` in a real browser: headless Chromium
//! (Debian's `chromium` and `chromium-driver`) driven over the W3C
//! WebDriver protocol by a small client written here. Each test starts its
//! own chromedriver and `foxbase serve` over tables of a small variant
//! solved once per test binary, and checks the page against the JSON API:
//! the board, the move list, clicks, the engine, errors, a phone-sized
//! screen, undo and redo; for the Fox Game, Bagh-Chal (placing a goat, a
//! tiger's capture, the tigers' win) and tic-tac-toe (placing marks, a win
//! against the engine, the engine's draw against itself), all on the same
//! page. Screenshots go to `target/board-screenshots/`.

use foxbase_core::baghchal as bc;
use foxbase_core::game::GameKind;
use foxbase_core::notation::parse_position;
use foxbase_core::tictactoe::{parse_ttt, square_name};
use foxbase_core::Point;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// One fox against four sheep, K = 3, classic: a draw from the start, with
/// wins and losses at known distances a few plies in. Solves in well under a second.
const START: &str = ".F./.../......./......./SSSS.../.../... f";
const K: &str = "3";
/// Fox to move: the fox wins in 5 plies, only by the jump d6xb4; draws and losses in 18 too.
const FOX_WINS: &str = ".../.F./..S..../......./.SSS.../.../... f";
/// Sheep to move: the sheep win in 17 plies (c5-c6), draws, losses in 4 and 10.
const SHEEP_WIN: &str = ".../.../..S.F../......./.SSS.../.../... s";
/// A legal position the tables do not hold: a sheep on rank 2, below the start's sheep.
const OUTSIDE: &str = ".F./.../......./......./SSS..../.S./... f";
/// Malformed: no side 'x'.
const MALFORMED: &str = ".F./.../......./......./SSSS.../.../... x";

/// How long any one thing may take to show up in the page.
const WAIT: Duration = Duration::from_secs(30);

// ---- fixtures ---------------------------------------------------------------

/// `target/tmp/board-browser`: the tables and the browsers' profiles.
fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("board-browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Tables solved with the binary (`foxbase solve ARGS --out DIR`) into
/// `tables-PID-TAG`. The first call removes tables left by earlier runs
/// (whose process is gone).
fn solve(tag: &str, args: &[&str]) -> PathBuf {
    static CLEANED: OnceLock<()> = OnceLock::new();
    let root = scratch();
    CLEANED.get_or_init(|| {
        for entry in std::fs::read_dir(&root).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let pid = name.strip_prefix("tables-").or_else(|| name.strip_prefix("profile-"));
            if let Some(pid) = pid.and_then(|p| p.split('-').next()) {
                if !Path::new("/proc").join(pid).exists() {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
    });
    let dir = root.join(format!("tables-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out =
        Command::new(env!("CARGO_BIN_EXE_foxbase")).arg("solve").args(args).arg("--out").arg(&dir).output().unwrap();
    assert!(out.status.success(), "foxbase solve failed: {}", String::from_utf8_lossy(&out.stderr));
    dir
}

/// Tables of the test variant, solved once per test binary, with plies to
/// the end (the distances these tests count; the no-progress tables below
/// have plies to zeroing, the default).
fn tables() -> &'static Path {
    static TABLES: OnceLock<PathBuf> = OnceLock::new();
    TABLES.get_or_init(|| solve("fox", &["--start", START, "--pen-target", K, "--threads", "1", "--distance", "dtm"]))
}

/// The test variant under a no-progress rule of 4 plies, solved once per test binary.
fn no_progress_tables() -> &'static Path {
    static TABLES: OnceLock<PathBuf> = OnceLock::new();
    TABLES
        .get_or_init(|| solve("fox-np", &["--start", START, "--pen-target", K, "--threads", "1", "--no-progress", "4"]))
}

/// Bagh-Chal with 2 goats, capture target 2, solved once per test binary
/// (plies to the end).
fn baghchal_tables() -> &'static Path {
    static TABLES: OnceLock<PathBuf> = OnceLock::new();
    TABLES.get_or_init(|| {
        let args =
            ["--game", "baghchal", "--goats", "2", "--capture-target", "2", "--threads", "1", "--distance", "dtm"];
        solve("baghchal", &args)
    })
}

/// Tic-tac-toe, solved once per test binary (plies to the end).
fn tictactoe_tables() -> &'static Path {
    static TABLES: OnceLock<PathBuf> = OnceLock::new();
    TABLES.get_or_init(|| solve("tictactoe", &["--game", "tictactoe", "--distance", "dtm"]))
}

/// The tables of `game`'s test variant.
fn tables_of(game: GameKind) -> &'static Path {
    match game {
        GameKind::Fox => tables(),
        GameKind::BaghChal => baghchal_tables(),
        GameKind::TicTacToe => tictactoe_tables(),
    }
}

/// Browser tests run one at a time: Chromium is heavy for a 2-core machine.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A child process killed (and reaped) on drop.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A browser profile directory. On drop, any Chromium still running on it
/// (a session that failed half-way, or was never closed) is ended, by its
/// process id, and the directory removed.
struct Profile(PathBuf);

impl Profile {
    /// The ids of the processes whose command line names this profile.
    fn users(&self) -> Vec<i32> {
        let flag = format!("--user-data-dir={}", self.0.display());
        let Ok(procs) = std::fs::read_dir("/proc") else { return Vec::new() };
        procs
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                cmdline.split(|&b| b == 0).any(|arg| arg == flag.as_bytes())
            })
            .collect()
    }
}

impl Drop for Profile {
    fn drop(&mut self) {
        for signal in [libc::SIGTERM, libc::SIGKILL] {
            let users = self.users();
            if users.is_empty() {
                break;
            }
            for pid in users {
                // SAFETY: kill(2) with a process id read from /proc and a signal number.
                unsafe { libc::kill(pid, signal) };
            }
            let until = Instant::now() + Duration::from_secs(3);
            while !self.users().is_empty() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `foxbase serve` over the test tables of a game on a free loopback port.
struct Server {
    _child: Killed,
    base: String,
    game: GameKind,
}

impl Server {
    /// `foxbase serve` on the tables of `game`, of its test variant or `tables`.
    fn start(game: GameKind, tables: Option<&Path>) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_foxbase"))
            .args(["serve", "--listen", "127.0.0.1:0", "--tables"])
            .arg(tables.unwrap_or_else(|| tables_of(game)))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let child = Killed(child);
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let until = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(rest) = line.strip_prefix("foxbase serve: serving http://") {
                        let addr = rest.trim_end_matches('/').to_string();
                        return Server { _child: child, base: format!("http://{addr}"), game };
                    }
                    seen.push(line);
                }
                Err(_) => panic!("foxbase serve did not say where it serves; its stderr: {seen:?}"),
            }
        }
    }

    /// `GET /api/{path}?{query}`: the status and the JSON body.
    fn api(&self, path: &str, query: &[(&str, &str)]) -> (u16, Json) {
        let q: Vec<String> = query.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect();
        let url = format!("{}/api/{path}?{}", self.base, q.join("&"));
        let mut r = agent().get(&url).call().unwrap_or_else(|e| panic!("GET {url}: {e}"));
        let status = r.status().as_u16();
        let body = r.body_mut().read_to_vec().unwrap();
        (status, serde_json::from_slice(&body).unwrap_or_else(|e| panic!("GET {url}: not JSON: {e}")))
    }

    fn ok(&self, path: &str, position: &str) -> Json {
        let (status, body) = self.api(path, &[("position", position)]);
        assert_eq!(status, 200, "api/{path} of {position}: {body}");
        body
    }

    fn page(&self, position: Option<&str>, extra: &str) -> String {
        match position {
            None => format!("{}/{extra}", self.base),
            Some(p) => format!("{}/?position={}{extra}", self.base, encode(p)),
        }
    }
}

fn agent() -> ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT
        .get_or_init(|| {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(120)))
                .build()
                .new_agent()
        })
        .clone()
}

/// Percent-encodes everything but the unreserved characters.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The value of parameter `name` in a query string (`?a=b&c=d`), decoded.
fn query_param(search: &str, name: &str) -> Option<String> {
    search.trim_start_matches('?').split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == name).then(|| {
            let bytes = v.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'+' => out.push(b' '),
                    b'%' if i + 2 < bytes.len() => {
                        let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                        out.push(u8::from_str_radix(hex, 16).unwrap());
                        i += 2;
                    }
                    b => out.push(b),
                }
                i += 1;
            }
            String::from_utf8(out).unwrap()
        })
    })
}

/// chromedriver on a free loopback port.
struct Driver {
    _child: Killed,
    base: String,
}

impl Driver {
    fn start() -> Driver {
        for path in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(path).exists(),
                "{path} is missing: the browser tests need Debian's Chromium and its WebDriver \
                 (apt-get install chromium chromium-driver)"
            );
        }
        let mut last = String::new();
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let mut child = Killed(
                Command::new(CHROMEDRIVER)
                    .arg(format!("--port={port}"))
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap_or_else(|e| panic!("{CHROMEDRIVER}: {e} (apt-get install chromium chromium-driver)")),
            );
            let base = format!("http://127.0.0.1:{port}");
            let until = Instant::now() + WAIT;
            while Instant::now() < until {
                if let Ok(Some(status)) = child.0.try_wait() {
                    last = format!("chromedriver exited ({status}) on port {port}");
                    break;
                }
                if let Ok(mut r) = agent().get(&format!("{base}/status")).call() {
                    let body: Json = r.body_mut().read_json().unwrap_or(Json::Null);
                    if body["value"]["ready"] == json!(true) {
                        return Driver { _child: child, base };
                    }
                    last = format!("chromedriver not ready: {body}");
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        panic!("chromedriver did not start: {last}");
    }
}

/// A browser window: one WebDriver session over Chromium.
struct Browser {
    session: String,
    _profile: Profile,
    // Dropped after the session is closed (fields drop in order).
    driver: Driver,
    server: Server,
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Browser {
    /// A desktop-sized window (1100×900) on the Fox Game's tables.
    fn desktop() -> (MutexGuard<'static, ()>, Browser) {
        Browser::open(GameKind::Fox, None, None)
    }

    /// A desktop-sized window on the tables of `game`.
    fn desktop_of(game: GameKind) -> (MutexGuard<'static, ()>, Browser) {
        Browser::open(game, None, None)
    }

    /// A desktop-sized window on the Fox Game's `tables`.
    fn desktop_on(tables: &Path) -> (MutexGuard<'static, ()>, Browser) {
        Browser::open(GameKind::Fox, Some(tables), None)
    }

    /// A phone: Chromium's mobile emulation at 390×844, 3 device pixels per CSS pixel.
    fn phone() -> (MutexGuard<'static, ()>, Browser) {
        Browser::open(
            GameKind::Fox,
            None,
            Some(
                json!({"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 3.0, "mobile": true, "touch": true}}),
            ),
        )
    }

    fn open(game: GameKind, tables: Option<&Path>, mobile: Option<Json>) -> (MutexGuard<'static, ()>, Browser) {
        let lock = one_at_a_time();
        let server = Server::start(game, tables);
        let driver = Driver::start();
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let profile = Profile(scratch().join(format!("profile-{}-{n}", std::process::id())));
        std::fs::create_dir_all(&profile.0).unwrap();
        let mut options = json!({
            "binary": CHROMIUM,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
                "--window-size=1100,900",
                format!("--user-data-dir={}", profile.0.display()),
            ],
        });
        if let Some(m) = mobile {
            options["mobileEmulation"] = m;
        }
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}});
        let answer = post(&format!("{}/session", driver.base), &caps);
        let session = answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {answer}"))
            .to_string();
        let browser = Browser { session, _profile: profile, driver, server };
        browser.cmd("POST", "timeouts", json!({"pageLoad": 60_000, "script": 30_000, "implicit": 0}));
        (lock, browser)
    }

    /// One WebDriver command of this session; its `value`.
    fn cmd(&self, method: &str, path: &str, body: Json) -> Json {
        let url = format!("{}/session/{}/{path}", self.driver.base, self.session);
        let answer = match method {
            "GET" => read(agent().get(&url).call(), &url),
            "POST" => return post(&url, &body)["value"].take(),
            "DELETE" => read(agent().delete(&url).call(), &url),
            _ => unreachable!(),
        };
        if let Some(error) = answer["value"]["error"].as_str() {
            panic!("WebDriver {method} {path}: {error}: {}", answer["value"]["message"]);
        }
        answer["value"].clone()
    }

    /// Opens `url` and waits until the page has shown a position (or an error).
    fn goto(&self, url: &str) -> Page {
        self.cmd("POST", "url", json!({ "url": url }));
        self.settled()
    }

    /// The element ids matching a CSS selector.
    fn find_all(&self, css: &str) -> Vec<String> {
        let found = self.cmd("POST", "elements", json!({"using": "css selector", "value": css}));
        let list = found.as_array().unwrap_or_else(|| panic!("find {css}: {found}"));
        list.iter().map(|e| e[ELEMENT].as_str().unwrap_or_else(|| panic!("find {css}: {found}")).to_string()).collect()
    }

    /// The one element matching a CSS selector.
    fn find(&self, css: &str) -> String {
        let all = self.find_all(css);
        assert_eq!(all.len(), 1, "elements matching {css}: {}", all.len());
        all[0].clone()
    }

    /// A real click (WebDriver Element Click: scrolled into view, hit-tested).
    fn click(&self, css: &str) {
        let id = self.find(css);
        self.cmd("POST", &format!("element/{id}/click"), json!({}));
    }

    fn displayed(&self, css: &str) -> bool {
        let id = self.find(css);
        self.cmd("GET", &format!("element/{id}/displayed"), Json::Null).as_bool().unwrap()
    }

    fn attribute(&self, css: &str, name: &str) -> Option<String> {
        let id = self.find(css);
        self.cmd("GET", &format!("element/{id}/attribute/{name}"), Json::Null).as_str().map(String::from)
    }

    /// Types into a text box (after clearing it); `\u{E007}` is Enter.
    fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.cmd("POST", &format!("element/{id}/clear"), json!({}));
        self.cmd("POST", &format!("element/{id}/value"), json!({ "text": text }));
    }

    fn script(&self, js: &str) -> Json {
        self.cmd("POST", "execute/sync", json!({"script": js, "args": []}))
    }

    /// A PNG of the viewport, written to `target/board-screenshots/{name}.png`.
    fn screenshot(&self, name: &str) -> PathBuf {
        let data = self.cmd("GET", "screenshot", Json::Null);
        let png = base64_decode(data.as_str().unwrap());
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a screenshot is a PNG");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join("board-screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        path
    }

    /// The page's state once `body[data-ready="true"]` (and whatever `until` asks for).
    fn wait_for(&self, what: &str, until: impl Fn(&Page) -> bool) -> Page {
        let end = Instant::now() + WAIT;
        loop {
            let page = self.page();
            if page.ready && until(&page) {
                assert_eq!(page.script_errors, 0, "the page's script failed: {}", page.error_text);
                return page;
            }
            assert!(Instant::now() < end, "waited {WAIT:?} for {what}; the page: {page:#?}");
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    fn settled(&self) -> Page {
        self.wait_for("the page to be ready", |_| true)
    }

    /// Waits until the page shows `position`.
    fn showing(&self, position: &str) -> Page {
        self.wait_for(&format!("the page to show {position}"), |p| p.position == position)
    }

    /// Everything the tests look at, read in one script.
    fn page(&self) -> Page {
        Page::from(&self.script(SNAPSHOT))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Closes Chromium; chromedriver and the server are killed after.
        let url = format!("{}/session/{}", self.driver.base, self.session);
        let _ = agent().delete(&url).call();
    }
}

fn read(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>, url: &str) -> Json {
    let mut r = r.unwrap_or_else(|e| panic!("{url}: {e}"));
    let body = r.body_mut().with_config().limit(64 << 20).read_to_vec().unwrap();
    serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{url}: not JSON ({e})"))
}

fn post(url: &str, body: &Json) -> Json {
    let answer = read(agent().post(url).send_json(body), url);
    if let Some(error) = answer["value"]["error"].as_str() {
        panic!("WebDriver POST {url} {body}: {error}: {}", answer["value"]["message"]);
    }
    answer
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c) << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    out
}

const SNAPSHOT: &str = r#"
const q = (r) => document.querySelector(`[data-role="${r}"]`);
const b = document.body;
const err = q('error');
const shown = (e) => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
return {
  ready: b.dataset.ready === 'true',
  position: b.dataset.position || '',
  ply: Number(b.dataset.ply || -1),
  engine_pending: b.dataset.enginePending === 'true',
  script_errors: Number(b.dataset.scriptErrors || 0),
  search: location.search,
  input: q('position').value,
  side: q('side-to-move').textContent,
  value: q('value').textContent,
  value_data: q('value').dataset.value || '',
  error_text: err.textContent,
  error_shown: shown(err),
  board_shown: shown(q('board')),
  squares: [...document.querySelectorAll('[data-square]')].map(e => [e.dataset.square, e.dataset.piece]),
  moves: [...document.querySelectorAll('[data-role="moves"] [data-move]')]
    .map(e => [e.dataset.move, e.dataset.value, e.dataset.plies]),
  history: [...q('history').querySelectorAll('[data-ply]')].map(e => [e.textContent, e.className]),
  undo_disabled: q('undo').disabled,
  redo_disabled: q('redo').disabled,
  selected: [...document.querySelectorAll('[data-square].selected')].map(e => e.dataset.square),
  targets: [...document.querySelectorAll('[data-square].target')].map(e => e.dataset.square),
  drops: [...document.querySelectorAll('[data-square].drop')].map(e => e.dataset.square),
  notice: q('notice').hidden ? '' : q('notice').textContent,
  counts: q('counts').hidden ? '' : q('counts').textContent,
};
"#;

/// What the page shows, as read by [`SNAPSHOT`].
#[derive(Debug)]
struct Page {
    ready: bool,
    position: String,
    ply: i64,
    engine_pending: bool,
    script_errors: u64,
    search: String,
    input: String,
    side: String,
    value: String,
    value_data: String,
    error_text: String,
    error_shown: bool,
    board_shown: bool,
    /// (square, piece) in document order.
    squares: Vec<(String, String)>,
    /// (move, value, plies) in the list's order.
    moves: Vec<(String, String, String)>,
    /// (move, class: done, current or future).
    history: Vec<(String, String)>,
    undo_disabled: bool,
    redo_disabled: bool,
    selected: Vec<String>,
    targets: Vec<String>,
    /// Points where a piece may be placed.
    drops: Vec<String>,
    notice: String,
    /// The numbers after the side to move, in words ("" when hidden).
    counts: String,
}

impl From<&Json> for Page {
    fn from(v: &Json) -> Page {
        let s = |k: &str| v[k].as_str().unwrap_or_else(|| panic!("snapshot field {k}: {v}")).to_string();
        let b = |k: &str| v[k].as_bool().unwrap_or_else(|| panic!("snapshot field {k}: {v}"));
        let strings = |x: &Json| -> Vec<String> {
            x.as_array().unwrap().iter().map(|e| e.as_str().unwrap_or_default().to_string()).collect()
        };
        let rows = |k: &str| -> Vec<Vec<String>> { v[k].as_array().unwrap().iter().map(strings).collect() };
        Page {
            ready: b("ready"),
            position: s("position"),
            ply: v["ply"].as_i64().unwrap(),
            engine_pending: b("engine_pending"),
            script_errors: v["script_errors"].as_u64().unwrap(),
            search: s("search"),
            input: s("input"),
            side: s("side"),
            value: s("value"),
            value_data: s("value_data"),
            error_text: s("error_text"),
            error_shown: b("error_shown"),
            board_shown: b("board_shown"),
            squares: rows("squares").into_iter().map(|r| (r[0].clone(), r[1].clone())).collect(),
            moves: rows("moves").into_iter().map(|r| (r[0].clone(), r[1].clone(), r[2].clone())).collect(),
            history: rows("history").into_iter().map(|r| (r[0].clone(), r[1].clone())).collect(),
            undo_disabled: b("undo_disabled"),
            redo_disabled: b("redo_disabled"),
            selected: strings(&v["selected"]),
            targets: strings(&v["targets"]),
            drops: strings(&v["drops"]),
            notice: s("notice"),
            counts: s("counts"),
        }
    }
}

impl Page {
    fn pieces(&self) -> BTreeMap<String, String> {
        self.squares.iter().cloned().collect()
    }

    /// The moves listed, sorted.
    fn move_set(&self) -> Vec<(String, String, String)> {
        let mut m = self.moves.clone();
        m.sort();
        m
    }

    /// The `position` parameter of the page's URL.
    fn url_position(&self) -> String {
        query_param(&self.search, "position").unwrap_or_else(|| panic!("no position in the URL: {}", self.search))
    }

    fn history_moves(&self) -> Vec<String> {
        self.history.iter().map(|(m, _)| m.clone()).collect()
    }
}

/// The piece on every point of `position`, by the project's own parser.
fn pieces(position: &str) -> BTreeMap<String, String> {
    let pos = parse_position(position).unwrap();
    Point::all()
        .map(|p| {
            let piece = if pos.foxes() & p.bit() != 0 {
                "fox"
            } else if pos.sheep() & p.bit() != 0 {
                "sheep"
            } else {
                "empty"
            };
            (p.to_string(), piece.to_string())
        })
        .collect()
}

/// The piece on every point of a Bagh-Chal position of 2 goats, by the project's own parser.
fn baghchal_pieces(position: &str) -> BTreeMap<String, String> {
    let pos = bc::parse_position_with_goats(position, 2).unwrap();
    bc::Point::all()
        .map(|p| {
            let piece = if pos.tigers() & p.bit() != 0 {
                "tiger"
            } else if pos.goats() & p.bit() != 0 {
                "goat"
            } else {
                "empty"
            };
            (p.to_string(), piece.to_string())
        })
        .collect()
}

/// The mark on every square of a tic-tac-toe position, by the project's own parser.
fn tictactoe_pieces(position: &str) -> BTreeMap<String, String> {
    let pos = parse_ttt(position).unwrap();
    (0..9u8)
        .map(|c| {
            let mark = if pos.x & (1 << c) != 0 {
                "x"
            } else if pos.o & (1 << c) != 0 {
                "o"
            } else {
                "empty"
            };
            (square_name(c), mark.to_string())
        })
        .collect()
}

/// The pieces of a position of `game`'s test variant.
fn pieces_of(game: GameKind, position: &str) -> BTreeMap<String, String> {
    match game {
        GameKind::Fox => pieces(position),
        GameKind::BaghChal => baghchal_pieces(position),
        GameKind::TicTacToe => tictactoe_pieces(position),
    }
}

/// /api/probe's moves as (move, value, plies or ""), sorted.
fn probe_moves(probe: &Json) -> Vec<(String, String, String)> {
    let mut m: Vec<_> = probe["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let plies = m["plies"].as_u64().map(|p| p.to_string()).unwrap_or_default();
            (m["move"].as_str().unwrap().to_string(), m["value"].as_str().unwrap().to_string(), plies)
        })
        .collect();
    m.sort();
    m
}

/// The position after `mv` per /api/moves.
fn after(server: &Server, position: &str, mv: &str) -> String {
    let moves = server.ok("moves", position);
    let found = moves["moves"].as_array().unwrap().iter().find(|m| m["move"] == json!(mv));
    found.unwrap_or_else(|| panic!("{mv} is not legal in {position}: {moves}"))["position"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Checks that the page shows `position` completely: pieces, URL, text box,
/// the move list and the value as /api/probe gives them, no error.
fn assert_shows(page: &Page, server: &Server, position: &str) {
    assert_eq!(page.position, position);
    assert_eq!(page.pieces(), pieces_of(server.game, position), "the board of {position}");
    assert_eq!(page.url_position(), position, "the URL {}", page.search);
    assert_eq!(page.input, position, "the notation box");
    let probe = server.ok("probe", position);
    assert_eq!(page.move_set(), probe_moves(&probe), "the move list of {position}");
    assert_eq!(page.value_data, probe["value"].as_str().unwrap(), "the value of {position}");
    assert!(!page.error_shown, "an error for {position}: {}", page.error_text);
    assert!(page.board_shown);
}

// ---- the tests -------------------------------------------------------------

/// The page at `/` draws the variant's 33 points, its lines and pen, and
/// the start position's pieces; it names the side to move and the value.
#[test]
fn page_shows_the_start_position() {
    let (_lock, b) = Browser::desktop();
    let page = b.goto(&b.server.page(None, ""));
    assert_eq!(page.squares.len(), 33);
    assert_shows(&page, &b.server, START);
    assert_eq!(page.side, "Fox to move");
    assert_eq!(page.value, "draw");
    assert_eq!(page.ply, 0);
    assert!(page.history.is_empty() && page.undo_disabled && page.redo_disabled);
    let (_, variant) = b.server.api("variant", &[]);
    let lines = b.script("return document.querySelectorAll('[data-role=\"board\"] .lines line').length");
    assert_eq!(lines, json!(variant["board"]["lines"].as_array().unwrap().len()));
    assert_eq!(lines, json!(72), "the classic board's lines");
    let pen = b.script("return [...document.querySelectorAll('[data-square].in-pen')].map(e => e.dataset.square)");
    assert_eq!(pen, variant["board"]["pen"]);
    // Every fox and sheep is drawn as its own picture.
    let drawn = b.script(
        "return [...document.querySelectorAll('[data-square]')].filter(e => e.dataset.piece !== 'empty')
           .map(e => [e.dataset.piece, e.querySelector('use').getAttribute('href'), e.querySelector('use').getClientRects().length > 0])",
    );
    assert_eq!(drawn.as_array().unwrap().len(), 5);
    for d in drawn.as_array().unwrap() {
        assert_eq!(d[1], json!(format!("#piece-{}", d[0].as_str().unwrap())), "{d}");
        assert_eq!(d[2], json!(true), "{d}");
    }
    let empty_drawn = b.script(
        "return [...document.querySelectorAll('[data-piece=\"empty\"] use')].filter(u => u.getClientRects().length > 0).length",
    );
    assert_eq!(empty_drawn, json!(0));
}

/// The move list is /api/probe's: the same moves, values for the mover and
/// plies, for a fox-to-move and a sheep-to-move position with wins, draws and
/// losses; coloured green, grey and red; the value in words.
#[test]
fn move_list_matches_probe() {
    let (_lock, b) = Browser::desktop();
    for (position, side, value) in [
        (START, "Fox to move", "draw"),
        (FOX_WINS, "Fox to move", "win — the fox wins in 5 plies"),
        (SHEEP_WIN, "Sheep to move", "win — the sheep win in 17 plies"),
    ] {
        let page = b.goto(&b.server.page(Some(position), ""));
        assert_shows(&page, &b.server, position);
        assert_eq!((page.side.as_str(), page.value.as_str()), (side, value));
        if position != START {
            for v in ["win", "draw", "loss"] {
                assert!(page.moves.iter().any(|m| m.1 == v), "a {v} in {position}: {:?}", page.moves);
            }
            // Best first: the fastest win, draws, then the slowest loss.
            assert_eq!(page.moves[0].1, "win");
            assert_eq!(page.moves.last().unwrap().1, "loss");
        }
        let colours = b.script(
            "return [...document.querySelectorAll('[data-move]')].map(e => [e.dataset.value, getComputedStyle(e).borderLeftColor])",
        );
        for c in colours.as_array().unwrap() {
            let want = match c[0].as_str().unwrap() {
                "win" => "rgb(46, 125, 50)",
                "draw" => "rgb(107, 107, 107)",
                "loss" => "rgb(198, 40, 40)",
                other => panic!("value {other}"),
            };
            assert_eq!(c[1], json!(want), "{c}");
        }
    }
    let page = b.page();
    assert_eq!(
        page.moves.iter().find(|m| m.0 == "c5-c6"),
        Some(&("c5-c6".to_string(), "win".to_string(), "17".to_string()))
    );
    assert!(page.moves.iter().any(|m| m.1 == "draw" && m.2.is_empty()));
}

/// Clicking a piece selects it and marks its targets; clicking a target
/// plays the move (a jump here); clicking a move-list entry plays it. Each
/// time the board, the URL, the notation box and the move list follow.
#[test]
fn clicks_play_moves() {
    let (_lock, b) = Browser::desktop();
    let page = b.goto(&b.server.page(Some(FOX_WINS), ""));
    assert_shows(&page, &b.server, FOX_WINS);
    b.click("[data-square=\"d6\"]");
    let page = b.page();
    assert_eq!(page.selected, ["d6"]);
    let mut targets = page.targets.clone();
    targets.sort();
    let moves = b.server.ok("moves", FOX_WINS);
    let mut want: Vec<String> =
        moves["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap()[3..].to_string()).collect();
    want.sort();
    assert_eq!(targets, want);
    b.screenshot("desktop-selected");
    // A click on a square that is no target changes nothing but the selection.
    b.click("[data-square=\"a3\"]");
    let page = b.page();
    assert!(page.selected.is_empty() && page.targets.is_empty());
    assert_eq!(page.position, FOX_WINS);
    b.click("[data-square=\"d6\"]");
    b.click("[data-square=\"b4\"]");
    let one = after(&b.server, FOX_WINS, "d6xb4");
    let page = b.showing(&one);
    assert_shows(&page, &b.server, &one);
    assert_eq!((page.pieces()["d6"].as_str(), page.pieces()["c5"].as_str()), ("empty", "empty"));
    assert_eq!(page.pieces()["b4"], "fox");
    assert_eq!(page.history_moves(), ["d6xb4"]);
    assert_eq!(page.side, "Sheep to move");
    assert_eq!(page.value, "loss — the fox wins in 4 plies");
    // Now a move from the list: the sheep's slowest loss.
    let reply = page.moves.last().unwrap().0.clone();
    b.click(&format!("[data-role=\"moves\"] [data-move=\"{reply}\"]"));
    let two = after(&b.server, &one, &reply);
    let page = b.showing(&two);
    assert_shows(&page, &b.server, &two);
    assert_eq!(page.history_moves(), ["d6xb4", reply.as_str()]);
    assert_eq!(page.ply, 2);
    // The fox selected again, for the picture: its targets are its moves' targets.
    let fox = page.pieces().into_iter().find(|(_, piece)| piece == "fox").unwrap().0;
    b.click(&format!("[data-square=\"{fox}\"]"));
    let page = b.page();
    assert_eq!(page.selected, [fox.as_str()]);
    let mut want: Vec<String> = page.moves.iter().map(|m| m.0[3..].to_string()).collect();
    let mut targets = page.targets.clone();
    want.sort();
    targets.sort();
    assert_eq!(targets, want);
    b.screenshot("desktop");
}

/// The engine plays the sheep: each answer is /api/engine's move for the
/// position and the seed the page uses (the ply number), until the fox wins.
#[test]
fn engine_answers_moves() {
    let (_lock, b) = Browser::desktop();
    let page = b.goto(&b.server.page(Some(FOX_WINS), "&delay=0"));
    assert_shows(&page, &b.server, FOX_WINS);
    b.click("[data-role=\"engine\"] option[value=\"sheep\"]");
    assert_eq!(b.script("return document.querySelector('[data-role=\"engine\"]').value"), json!("sheep"));
    let mut position = FOX_WINS.to_string();
    let mut played = Vec::new();
    for round in 0.. {
        assert!(round < 5, "the fox should have won in 5 plies: {played:?}");
        // The fox's fastest win, clicked in the list.
        let probe = b.server.ok("probe", &position);
        let best = probe["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["value"] == json!("win"))
            .min_by_key(|m| m["plies"].as_u64().unwrap())
            .unwrap()["move"]
            .as_str()
            .unwrap()
            .to_string();
        b.click(&format!("[data-move=\"{best}\"]"));
        played.push(best.clone());
        let mine = after(&b.server, &position, &best);
        let ply = played.len() as i64;
        let moves = b.server.ok("moves", &mine);
        if moves["status"]["over"] == json!(true) {
            let page = b.showing(&mine);
            assert_eq!(page.notice, "Game over: the fox wins.");
            assert!(page.value.starts_with("loss — game over: the fox wins"), "{}", page.value);
            assert!(page.moves.is_empty() && !page.engine_pending);
            break;
        }
        // The engine answers: wait until the fox is to move again.
        let page = b.wait_for("the engine's answer", |p| p.ply == ply + 1 && !p.engine_pending);
        let seed = ply.to_string();
        let (status, engine) = b.server.api("engine", &[("position", &mine), ("seed", &seed)]);
        assert_eq!(status, 200, "{engine}");
        let answer = engine["move"].as_str().unwrap().to_string();
        assert_eq!(page.history_moves().last(), Some(&answer), "the engine's move at ply {ply}");
        assert_eq!(page.position, engine["next"].as_str().unwrap());
        assert_shows(&page, &b.server, &page.position);
        // It is the sheep's best: a loss, as slow as any.
        let probe = b.server.ok("probe", &mine);
        let slowest = probe["moves"].as_array().unwrap().iter().filter_map(|m| m["plies"].as_u64()).max().unwrap();
        let chosen = probe["moves"].as_array().unwrap().iter().find(|m| m["move"] == json!(answer)).unwrap();
        assert_eq!((chosen["value"].as_str(), chosen["plies"].as_u64()), (Some("loss"), Some(slowest)));
        assert_eq!(page.side, "Fox to move");
        played.push(answer);
        position = page.position.clone();
    }
    assert_eq!(played.len(), 5, "{played:?}");
    assert_eq!(b.page().history_moves(), played);
}

/// A malformed `?position=` shows the API's error instead of a board; a
/// good position typed into the notation box then loads; a bad one typed
/// there is refused with the error while the board stays.
#[test]
fn malformed_position_shows_the_error() {
    let (_lock, b) = Browser::desktop();
    let (status, error) = b.server.api("moves", &[("position", MALFORMED)]);
    assert_eq!(status, 400);
    let message = error["error"].as_str().unwrap();
    assert!(message.contains("side to move 'x'"), "{message}");
    let page = b.goto(&b.server.page(Some(MALFORMED), ""));
    assert!(page.error_shown, "{page:#?}");
    assert_eq!(page.error_text, message);
    assert!(b.displayed("[data-role=\"error\"]"));
    assert!(!page.board_shown, "a board for a malformed position");
    assert!(page.moves.is_empty());
    assert_eq!(page.input, MALFORMED, "the text stays to be corrected");
    b.screenshot("desktop-error");
    // Correct it in the box and press Enter.
    b.type_into("[data-role=\"position\"]", &format!("{SHEEP_WIN}\u{E007}"));
    let page = b.showing(SHEEP_WIN);
    assert_shows(&page, &b.server, SHEEP_WIN);
    assert!(!b.displayed("[data-role=\"error\"]"));
    // A bad position typed in: the error, and the board stays as it was.
    b.type_into("[data-role=\"position\"]", "F/F s");
    b.click("[data-role=\"load\"]");
    let (_, error) = b.server.api("moves", &[("position", "F/F s")]);
    let page = b.wait_for("the error", |p| p.error_shown);
    assert_eq!(page.error_text, error["error"].as_str().unwrap());
    assert!(page.board_shown);
    assert_eq!(page.position, SHEEP_WIN);
    assert_eq!(page.pieces(), pieces(SHEEP_WIN));
}

/// A legal position the tables do not hold: the API's 404 text is shown,
/// the board is drawn and moves (from /api/moves, values unknown) still play.
#[test]
fn outside_the_tables_still_moves() {
    let (_lock, b) = Browser::desktop();
    let (status, error) = b.server.api("probe", &[("position", OUTSIDE)]);
    assert_eq!(status, 404, "{error}");
    let page = b.goto(&b.server.page(Some(OUTSIDE), ""));
    assert!(page.error_shown);
    assert_eq!(page.error_text, error["error"].as_str().unwrap());
    assert!(page.board_shown);
    assert_eq!(page.pieces(), pieces(OUTSIDE));
    let moves = b.server.ok("moves", OUTSIDE);
    let mut want: Vec<_> = moves["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["move"].as_str().unwrap().to_string(), "unknown".to_string(), String::new()))
        .collect();
    want.sort();
    assert_eq!(page.move_set(), want);
    assert_eq!(page.value_data, "unknown");
    b.click("[data-square=\"d7\"]");
    b.click("[data-square=\"d6\"]");
    let next = after(&b.server, OUTSIDE, "d7-d6");
    let page = b.showing(&next);
    assert_eq!(page.pieces(), pieces(&next));
    assert_eq!(page.url_position(), next);
}

/// At 390×844 (a phone, mobile emulation) the page does not scroll
/// sideways and the whole board is inside the viewport's width.
#[test]
fn phone_viewport_fits() {
    let (_lock, b) = Browser::phone();
    let page = b.goto(&b.server.page(Some(SHEEP_WIN), ""));
    assert_shows(&page, &b.server, SHEEP_WIN);
    let m = b.script(
        "const r = document.querySelector('[data-role=\"board\"]').getBoundingClientRect();
         return {inner: window.innerWidth, scroll: document.documentElement.scrollWidth,
                 body: document.body.scrollWidth, left: r.left, right: r.right, width: r.width,
                 top: r.top + window.scrollY, height: r.height, innerHeight: window.innerHeight};",
    );
    let f = |k: &str| m[k].as_f64().unwrap();
    assert_eq!(f("inner"), 390.0, "the viewport meta tag makes the layout 390 px wide: {m}");
    assert!(f("scroll") <= f("inner") && f("body") <= f("inner"), "horizontal scrolling: {m}");
    assert!(f("left") >= 0.0 && f("right") <= f("inner"), "the board sticks out: {m}");
    assert!(f("width") >= 330.0, "the board uses the width: {m}");
    assert!(f("top") + f("height") <= f("innerHeight"), "the whole board is on the first screen: {m}");
    // The move list wraps below, within the width too.
    let widest = b.script(
        "return Math.max(...[...document.querySelectorAll('body *')].map(e => e.getBoundingClientRect().right))",
    );
    assert!(widest.as_f64().unwrap() <= 390.0, "something is wider than the phone: {widest}");
    // A tap plays on the phone too.
    b.click("[data-square=\"c5\"]");
    b.click("[data-square=\"c6\"]");
    let next = after(&b.server, SHEEP_WIN, "c5-c6");
    let page = b.showing(&next);
    assert_shows(&page, &b.server, &next);
    b.screenshot("phone");
}

/// Undo and redo walk the history: positions, the URL, the move list and
/// the buttons' states; a new move after an undo drops the redo line.
#[test]
fn undo_and_redo() {
    let (_lock, b) = Browser::desktop();
    let page = b.goto(&b.server.page(Some(FOX_WINS), ""));
    assert!(page.undo_disabled && page.redo_disabled);
    b.click("[data-move=\"d6xb4\"]");
    let one = after(&b.server, FOX_WINS, "d6xb4");
    let page = b.showing(&one);
    let reply = page.moves[0].0.clone();
    b.click(&format!("[data-move=\"{reply}\"]"));
    let two = after(&b.server, &one, &reply);
    let page = b.showing(&two);
    assert!(!page.undo_disabled && page.redo_disabled);
    b.click("[data-role=\"undo\"]");
    let page = b.showing(&one);
    assert_shows(&page, &b.server, &one);
    assert_eq!(page.history, [("d6xb4".into(), "current".into()), (reply.clone(), "future".into())]);
    assert!(!page.undo_disabled && !page.redo_disabled);
    b.click("[data-role=\"undo\"]");
    let page = b.showing(FOX_WINS);
    assert_shows(&page, &b.server, FOX_WINS);
    assert!(page.undo_disabled && !page.redo_disabled);
    assert_eq!(b.attribute("[data-role=\"undo\"]", "disabled").as_deref(), Some("true"));
    b.click("[data-role=\"redo\"]");
    assert_shows(&b.showing(&one), &b.server, &one);
    b.click("[data-role=\"redo\"]");
    let page = b.showing(&two);
    assert_shows(&page, &b.server, &two);
    assert!(!page.undo_disabled && page.redo_disabled);
    assert_eq!(page.history_moves(), ["d6xb4", reply.as_str()]);
    // Back one, then another move: the old second move is gone.
    b.click("[data-role=\"undo\"]");
    b.showing(&one);
    let other = b.page().moves.iter().map(|m| m.0.clone()).find(|m| *m != reply).unwrap();
    b.click(&format!("[data-move=\"{other}\"]"));
    let page = b.showing(&after(&b.server, &one, &other));
    assert_eq!(page.history_moves(), ["d6xb4", other.as_str()]);
    assert!(page.redo_disabled);
}

// ---- Bagh-Chal and tic-tac-toe on the same page ------------------------------

/// Bagh-Chal, 2 goats, capture target 2: the goats to move, both still to place.
const BC_START: &str = "T...T/...../...../...../T...T g 2 0";
/// Tigers to move, one goat on b2 and one to place: the tiger on a1 captures it by a1xc3.
const BC_JUMP: &str = "T...T/...../...../.G.../T...T t 1 0";
/// Tigers to move, one goat captured: a1xc3 captures the second and wins.
const BC_LAST: &str = ".T..T/...../...../.G.../T...T t 0 1";
const TTT_START: &str = ".../.../... x";
/// X to move wins in 5 plies (X on a3, O on b3).
const TTT_X_WINS: &str = "XO./.../... x";

/// The engine's choices in the page's select: (value, text).
fn engine_options(b: &Browser) -> Json {
    b.script(
        "return [...document.querySelectorAll('[data-role=\"engine\"] option')].map(o => [o.value, o.textContent])",
    )
}

/// The page's title and heading.
fn titles(b: &Browser) -> Json {
    b.script("return [document.title, document.querySelector('[data-role=\"title\"]').textContent]")
}

/// The Bagh-Chal board: 25 points with their 56 lines, the tigers and goats
/// drawn as such, the goats to place and captured, the words of the side to
/// move and of the value, the engine's sides, the title.
#[test]
fn baghchal_page_shows_the_board_and_the_goats_to_place() {
    let (_lock, b) = Browser::desktop_of(GameKind::BaghChal);
    let page = b.goto(&b.server.page(None, ""));
    assert_eq!(page.squares.len(), 25);
    assert_shows(&page, &b.server, BC_START);
    let probe = b.server.ok("probe", BC_START);
    assert_eq!(page.side, "Goats to move");
    assert_eq!(page.value, format!("loss — the tigers win in {} plies", probe["plies"]));
    assert_eq!(page.counts, "goats to place: 2 · goats captured: 0");
    let keys = b.script("return [...document.querySelectorAll('[data-count]')].map(e => e.dataset.count)");
    assert_eq!(keys, json!(["to_place", "captured"]));
    // Both goats go on the board by placing: every empty point takes one.
    let mut drops = page.drops.clone();
    drops.sort();
    let mut empty: Vec<String> = page.pieces().into_iter().filter(|(_, p)| p == "empty").map(|(s, _)| s).collect();
    empty.sort();
    assert_eq!((drops.len(), &drops), (21, &empty));
    let lines = b.script("return document.querySelectorAll('[data-role=\"board\"] .lines line').length");
    assert_eq!(lines, json!(56));
    let drawn = b.script(
        "return [...document.querySelectorAll('[data-square]')].filter(e => e.dataset.piece !== 'empty')
           .map(e => [e.dataset.square, e.querySelector('use').getAttribute('href')])",
    );
    assert_eq!(
        drawn,
        json!([["a1", "#piece-tiger"], ["e1", "#piece-tiger"], ["a5", "#piece-tiger"], ["e5", "#piece-tiger"]])
    );
    assert_eq!(
        engine_options(&b),
        json!([["none", "nobody"], ["goat", "the goats"], ["tiger", "the tigers"], ["both", "both sides"]])
    );
    assert_eq!(titles(&b), json!(["foxbase: Bagh-Chal board", "Bagh-Chal with perfect play"]));
    assert_eq!(b.script("return document.body.dataset.game"), json!("baghchal"));
    b.screenshot("baghchal-start");
}

/// A goat placed by a click on an empty point, a tiger's step by clicking
/// it and its target, then a capture by clicks: the tiger's targets mark
/// the capture, the goat leaves the board and the captured count goes up.
#[test]
fn baghchal_clicks_place_a_goat_and_capture_one() {
    let (_lock, b) = Browser::desktop_of(GameKind::BaghChal);
    b.goto(&b.server.page(Some(BC_START), ""));
    b.click("[data-square=\"c3\"]");
    let one = after(&b.server, BC_START, "c3");
    assert_eq!(one, "T...T/...../..G../...../T...T t 1 0");
    let page = b.showing(&one);
    assert_shows(&page, &b.server, &one);
    assert_eq!((page.history_moves(), page.side.as_str()), (vec!["c3".to_string()], "Tigers to move"));
    assert_eq!(page.counts, "goats to place: 1 · goats captured: 0");
    assert!(page.drops.is_empty(), "the tigers place nothing: {:?}", page.drops);
    // A click on an empty point that is no move changes nothing.
    b.click("[data-square=\"d4\"]");
    assert_eq!(b.page().position, one);
    // A tiger's step.
    b.click("[data-square=\"a1\"]");
    let page = b.page();
    assert_eq!(page.selected, ["a1"]);
    let mut targets = page.targets.clone();
    targets.sort();
    assert_eq!(targets, ["a2", "b1", "b2"]);
    b.click("[data-square=\"b2\"]");
    let two = after(&b.server, &one, "a1-b2");
    let page = b.showing(&two);
    assert_shows(&page, &b.server, &two);
    assert_eq!(page.side, "Goats to move");
    // A capture, from a position loaded by the URL.
    let page = b.goto(&b.server.page(Some(BC_JUMP), ""));
    assert_shows(&page, &b.server, BC_JUMP);
    b.click("[data-square=\"a1\"]");
    let page = b.page();
    assert!(page.targets.contains(&"c3".to_string()), "{:?}", page.targets);
    let captures =
        b.script("return [...document.querySelectorAll('[data-square].target.capture')].map(e => e.dataset.square)");
    assert_eq!(captures, json!(["c3"]));
    b.screenshot("baghchal-capture");
    b.click("[data-square=\"c3\"]");
    let captured = after(&b.server, BC_JUMP, "a1xc3");
    assert_eq!(captured, "T...T/...../..T../...../....T g 1 1");
    let page = b.showing(&captured);
    assert_shows(&page, &b.server, &captured);
    assert_eq!((page.pieces()["b2"].as_str(), page.pieces()["c3"].as_str()), ("empty", "tiger"));
    assert_eq!(page.counts, "goats to place: 1 · goats captured: 1");
    assert_eq!(page.history_moves(), ["a1xc3"]);
    let history = b.script("return [...document.querySelectorAll('[data-square].last')].map(e => e.dataset.square)");
    assert_eq!(history, json!(["a1", "c3"]));
}

/// The tigers' second capture by clicks ends the game: the game-over note,
/// the value in words, no moves. Then the engine plays both sides from the
/// start: the tigers win as fast as they can and the goats lose as slowly,
/// each move /api/engine's at its ply.
#[test]
fn baghchal_tigers_win_by_clicks_and_against_the_engine() {
    let (_lock, b) = Browser::desktop_of(GameKind::BaghChal);
    b.goto(&b.server.page(Some(BC_LAST), ""));
    b.click("[data-square=\"a1\"]");
    b.click("[data-square=\"c3\"]");
    let over = after(&b.server, BC_LAST, "a1xc3");
    let page = b.showing(&over);
    assert_shows(&page, &b.server, &over);
    assert_eq!(page.notice, "Game over: the tigers win.");
    assert_eq!(page.value, "loss — game over: the tigers win (the tigers captured enough goats)");
    assert_eq!(page.counts, "goats to place: 0 · goats captured: 2");
    assert!(page.moves.is_empty() && page.drops.is_empty());
    b.screenshot("baghchal-over");

    let plies = b.server.ok("probe", BC_START)["plies"].as_u64().unwrap() as usize;
    b.goto(&b.server.page(Some(BC_START), "&engine=both&delay=0"));
    let page = b.wait_for("the engine's game to end", |p| !p.notice.is_empty() && !p.engine_pending);
    assert_eq!(page.notice, "Game over: the tigers win.");
    assert_eq!(page.history.len(), plies, "{:?}", page.history_moves());
    let mut position = BC_START.to_string();
    for (ply, mv) in page.history_moves().iter().enumerate() {
        let seed = ply.to_string();
        let (_, engine) = b.server.api("engine", &[("position", &position), ("seed", &seed)]);
        assert_eq!(engine["move"].as_str(), Some(mv.as_str()), "ply {ply}");
        position = engine["next"].as_str().unwrap().to_string();
    }
    assert_eq!(page.position, position);
    assert_shows(&page, &b.server, &position);
}

/// Tic-tac-toe's 3x3 grid: marks placed by clicks on empty squares; an
/// occupied square takes nothing; the words are X's and O's.
#[test]
fn tictactoe_clicks_place_marks() {
    let (_lock, b) = Browser::desktop_of(GameKind::TicTacToe);
    let page = b.goto(&b.server.page(None, ""));
    assert_eq!(page.squares.len(), 9);
    assert_shows(&page, &b.server, TTT_START);
    assert_eq!((page.side.as_str(), page.value.as_str(), page.counts.as_str()), ("X to move", "draw", ""));
    assert_eq!(page.drops.len(), 9);
    let grid = b.script(
        "return [document.querySelectorAll('[data-role=\"board\"] .lines line').length,
                 document.querySelectorAll('[data-role=\"board\"] .grid line').length]",
    );
    assert_eq!(grid, json!([0, 12]), "no lines to move along; the # of the grid");
    assert_eq!(engine_options(&b), json!([["none", "nobody"], ["x", "X"], ["o", "O"], ["both", "both sides"]]));
    assert_eq!(titles(&b), json!(["foxbase: tic-tac-toe board", "tic-tac-toe with perfect play"]));
    b.click("[data-square=\"b2\"]");
    let one = after(&b.server, TTT_START, "b2");
    assert_eq!(one, ".../.X./... o");
    let page = b.showing(&one);
    assert_shows(&page, &b.server, &one);
    assert_eq!((page.side.as_str(), page.pieces()["b2"].as_str()), ("O to move", "x"));
    let drawn = b.script("return document.querySelector('[data-square=\"b2\"] use').getAttribute('href')");
    assert_eq!(drawn, json!("#piece-x"));
    // b2 is taken: a click there does nothing.
    b.click("[data-square=\"b2\"]");
    assert_eq!(b.page().position, one);
    // O on an edge: X wins.
    b.click("[data-square=\"a2\"]");
    let two = after(&b.server, &one, "a2");
    let page = b.showing(&two);
    assert_shows(&page, &b.server, &two);
    assert_eq!(page.pieces()["a2"], "o");
    assert_eq!(page.history_moves(), ["b2", "a2"]);
    assert_eq!((page.side.as_str(), page.value.as_str()), ("X to move", "win — X wins in 5 plies"));
    b.screenshot("tictactoe");
}

/// X wins against the engine playing O: each X move the fastest win,
/// clicked on the board, each O move /api/engine's, until X's line: "X wins".
#[test]
fn tictactoe_x_wins_against_the_engine() {
    let (_lock, b) = Browser::desktop_of(GameKind::TicTacToe);
    let page = b.goto(&b.server.page(Some(TTT_X_WINS), "&engine=o&delay=0"));
    assert_shows(&page, &b.server, TTT_X_WINS);
    assert_eq!(page.value, "win — X wins in 5 plies");
    let mut position = TTT_X_WINS.to_string();
    let mut played = Vec::new();
    loop {
        assert!(played.len() < 5, "X should have won in 5 plies: {played:?}");
        let probe = b.server.ok("probe", &position);
        let best = probe["moves"][0]["move"].as_str().unwrap().to_string();
        assert_eq!(probe["moves"][0]["value"], "win");
        b.click(&format!("[data-square=\"{best}\"]"));
        played.push(best.clone());
        let mine = after(&b.server, &position, &best);
        if b.server.ok("moves", &mine)["status"]["over"] == json!(true) {
            let page = b.showing(&mine);
            assert_eq!(page.notice, "Game over: X wins.");
            assert_eq!(page.value, "loss — game over: X wins (three in a row)");
            assert!(page.moves.is_empty() && !page.engine_pending);
            break;
        }
        let ply = played.len() as i64;
        let page = b.wait_for("the engine's answer", |p| p.ply == ply + 1 && !p.engine_pending);
        let (_, engine) = b.server.api("engine", &[("position", &mine), ("seed", &ply.to_string())]);
        let answer = engine["move"].as_str().unwrap().to_string();
        assert_eq!(page.history_moves().last(), Some(&answer));
        assert_shows(&page, &b.server, &page.position);
        assert_eq!(page.side, "X to move");
        played.push(answer);
        position = page.position.clone();
    }
    assert_eq!(played.len(), 5, "{played:?}");
    b.screenshot("tictactoe-won");
}

/// The engine against itself from the empty board: perfect play fills the
/// board, a draw, said as such.
#[test]
fn tictactoe_engine_draws_against_itself() {
    let (_lock, b) = Browser::desktop_of(GameKind::TicTacToe);
    b.goto(&b.server.page(None, "?engine=both&delay=0"));
    let page = b.wait_for("the engine's game to end", |p| !p.notice.is_empty() && !p.engine_pending);
    assert_eq!(page.notice, "Game over: a draw.");
    assert_eq!(page.value, "draw — game over: a draw (the board is full)");
    assert_eq!(page.history.len(), 9);
    assert!(page.pieces().values().all(|p| p != "empty"));
    assert_shows(&page, &b.server, &page.position);
}

/// Under a no-progress rule of 4 plies the page counts the plies without
/// progress, the position's third field, as its moves lead (a fox step adds
/// one), and declares the draw when the count reaches the rule's 4.
#[test]
fn the_page_counts_the_plies_without_progress() {
    let (_lock, b) = Browser::desktop_on(no_progress_tables());
    let page = b.goto(&b.server.page(Some(START), ""));
    let start = format!("{START} 0");
    assert_eq!(page.position, start, "the position as the server writes it, with its counter");
    assert_eq!(page.counts, "plies without progress: 0");
    assert!(!page.moves.is_empty());
    let fox_step = page.moves[0].0.clone();
    b.click(&format!("[data-role=\"moves\"] [data-move=\"{fox_step}\"]"));
    let one = after(&b.server, &start, &fox_step);
    assert!(one.ends_with(" s 1"), "{one}");
    let page = b.showing(&one);
    assert_eq!(page.counts, "plies without progress: 1");
    assert_eq!(page.url_position(), one);
    assert_eq!(page.value_data, b.server.ok("probe", &one)["value"].as_str().unwrap());
    assert_eq!(page.history_moves(), [fox_step.as_str()]);
    // These tables count plies to zeroing: the fox's winning jump is itself the zeroing move.
    let page = b.goto(&b.server.page(Some(&format!("{FOX_WINS} 0")), ""));
    assert_eq!(page.value, "win — the fox wins, 1 ply to zeroing");
    // At the rule's 4 plies the game is drawn: no moves.
    let drawn = format!("{START} 4");
    let page = b.goto(&b.server.page(Some(&drawn), ""));
    assert_eq!(page.position, drawn);
    assert_eq!(page.counts, "plies without progress: 4");
    assert_eq!(page.notice, "Game over: a draw.");
    assert!(page.moves.is_empty(), "{:?}", page.moves);
    assert_eq!(page.script_errors, 0);
}
