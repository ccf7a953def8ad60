//! Bagh-Chal through the distributed solve, with real processes on
//! loopback: `foxbase coordinator --game baghchal` and two workers (the
//! forward kernel and the counter kernel) write the tables and plies files
//! of `foxbase solve --game baghchal` byte for byte, for the whole game and
//! for the moving phase; the Fox Game's flags are refused for it and its
//! own for the Fox Game; a worker's kernel is refused where it does not
//! solve the coordinator's game; a worker that meets a coordinator of the
//! other game after a restart stops, naming both; a worker refuses a game
//! it does not know.

mod common;

use common::{coordinator as fox_coordinator, foxbase, token_file, worker, Proc, TempDir};
use foxbase_coordinator::grpc::client::run_remote_worker;
use foxbase_tables::manifest::Manifest;
use foxbase_worker::lease_loop::WorkerOptions;
use foxbase_worker::protocol::{Accepted, Completion, LeaseAnswer, Link, LinkError, Registration};
use serde_json::Value as Json;
use std::path::Path;
use std::time::{Duration, Instant};

const TOKEN: &str = "tigers-and-goats";
/// The variant: 2 goats, capture target 2 (5 tiers, 846,328 slots: a second or two).
const VARIANT: [&str; 4] = ["--goats", "2", "--capture-target", "2"];

/// A Bagh-Chal coordinator of the variant (and `extra` flags) on `store`;
/// returns it and the address it listens on.
fn coordinator(root: &Path, store: &Path, listen: &str, extra: &[&str]) -> (Proc, String) {
    let mut cmd = foxbase();
    cmd.args(["coordinator", "--game", "baghchal", "--listen", listen, "--json", "--lease-seconds", "30"])
        .args(VARIANT)
        .arg("--store")
        .arg(store)
        .arg("--token-file")
        .arg(token_file(root, TOKEN))
        .args(extra);
    let p = Proc::spawn(cmd);
    let line = p.wait_for_line("listening on ", Duration::from_secs(30));
    let addr = line.split("listening on ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    (p, addr)
}

/// Every file of a tablebase directory but its journal (the manifest, the
/// tier index, each table and plies file), by name, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("tiers"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (format!("tiers/{}", e.file_name().to_string_lossy()), std::fs::read(e.path()).unwrap())
        })
        .collect();
    all.push(("tiers.idx".into(), std::fs::read(dir.join("tiers.idx")).unwrap()));
    all.sort();
    all
}

fn summary(out: &str) -> Json {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

#[test]
fn a_coordinator_and_two_workers_write_the_files_of_a_local_solve() {
    let root = TempDir::new("bc-dist");
    for (phase, tiers) in [("all", 5), ("moving", 2)] {
        let local = root.0.join(format!("local-{phase}"));
        let mut solve = foxbase();
        solve.args(["solve", "--game", "baghchal", "--threads", "1", "--phase", phase]).args(VARIANT).arg("--out");
        let out = solve.arg(&local).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

        let store = root.0.join(format!("store-{phase}"));
        let (c, addr) = coordinator(&root.0, &store, "127.0.0.1:0", &["--phase", phase]);
        let url = format!("http://{addr}");
        // The default kernel (forward) in one, the counter kernel in the other: the same files.
        let w1 = worker(&root.0, TOKEN, &url, &format!("forward-{phase}"), &[]);
        let w2 = worker(&root.0, TOKEN, &url, &format!("counter-{phase}"), &["--kernel", "counter"]);
        let s = summary(&c.finish_ok(Duration::from_secs(120)));
        assert_eq!((s["game"].as_str(), s["phase"].as_str()), (Some("baghchal"), Some(phase)), "{s}");
        assert_eq!(s["variant"], "{\"goats\":2,\"capture_target\":2}", "{s}");
        assert_eq!((s["tiers"].as_u64(), s["leases_issued"].as_u64()), (Some(tiers), Some(tiers)), "{s}");
        assert_eq!((&s["start"], &s["value"]), (&Json::Null, &Json::Null), "no start value, as solve: {s}");
        w1.wait_for_line("for Bagh-Chal, 2 goats, capture target 2; kernel forward;", Duration::from_secs(5));
        w2.wait_for_line("kernel counter;", Duration::from_secs(5));
        for w in [w1, w2] {
            w.finish_ok(Duration::from_secs(30));
        }
        // Every table and plies file, and the tier index, byte for byte.
        let (got, want) = (files(&store), files(&local));
        assert_eq!(got.len(), 2 * tiers as usize + 1);
        let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&got), names(&want));
        for ((name, a), (_, b)) in got.iter().zip(&want) {
            assert!(a == b, "{phase}: {name} differs from the local solve's");
        }
        // The manifest: the same but for the time it took and the kernels' own
        // figures (levels, positions decided at start), which depend on which
        // kernel solved the tier.
        let kernel_free = |mut m: Manifest| {
            m.solve_seconds = 0.0;
            for t in &mut m.tiers {
                (t.levels, t.decided_at_start) = (0, 0);
            }
            m
        };
        assert_eq!(kernel_free(Manifest::read(&store).unwrap()), kernel_free(Manifest::read(&local).unwrap()));
        assert!(
            !store.join("incoming").exists() || std::fs::read_dir(store.join("incoming")).unwrap().next().is_none()
        );
        let v = foxbase().arg("verify").arg(&store).output().unwrap();
        assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    }
}

/// Runs foxbase with `args` and the test's token; returns (status, stderr).
fn refused(root: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = foxbase().args(args).arg("--token-file").arg(token_file(root, TOKEN)).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn flags_and_kernels_of_the_other_game_are_refused() {
    let root = TempDir::new("bc-dist-refused");
    let store = root.0.join("store");
    let store_arg = store.to_str().unwrap();
    for (args, says) in [
        (
            vec!["--game", "baghchal", "--pen-target", "3"],
            "--pen-target is a Fox Game flag; --game baghchal takes --goats, --capture-target and --phase",
        ),
        (vec!["--game", "baghchal", "--start", "T...T/...../...../...../T...T g 2 0"], "--start is a Fox Game flag"),
        (vec!["--goats", "3"], "--goats is a Bagh-Chal flag; --game fox takes --start, --geometry, --pen-target, --sheep-floor, --floor-winner and --no-progress"),
        (vec!["--game", "baghchal", "--goats", "2", "--capture-target", "3"], "--goats 2 --capture-target 3"),
        (vec!["--game", "chess"], "unknown game 'chess' (the games: fox, baghchal, tictactoe)"),
        (vec!["--game", "tictactoe", "--goats", "3"], "--goats is a Bagh-Chal flag; --game tictactoe takes none"),
    ] {
        let mut all = vec!["coordinator", "--listen", "127.0.0.1:0", "--store", store_arg];
        all.extend(&args);
        let (code, stderr) = refused(&root.0, &all);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: '{stderr}' should say '{says}'");
    }
    assert!(!store.exists(), "nothing is written for a refused command line");

    // A worker's kernel is checked against the game the coordinator solves.
    let (c, addr) = coordinator(&root.0, &store, "127.0.0.1:0", &[]);
    let url = format!("http://{addr}");
    let w = worker(&root.0, TOKEN, &url, "planes", &["--kernel", "planes"]);
    let (code, out) = w.finish(Duration::from_secs(30));
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains(
            "the coordinator solves Bagh-Chal: --kernel planes: the game baghchal takes forward (the default) or counter"
        ),
        "{out}"
    );
    drop(c);
    let (c, addr) = fox_coordinator(&root.0, TOKEN, root.0.join("fox-store"), "127.0.0.1:0", 30, &[]);
    let w = worker(&root.0, TOKEN, &format!("http://{addr}"), "forward", &["--kernel", "forward"]);
    let (code, out) = w.finish(Duration::from_secs(30));
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains(
            "the coordinator solves the Fox Game: --kernel forward: the game fox takes planes (the default) or counter"
        ),
        "{out}"
    );
    drop(c);
}

#[test]
fn a_worker_that_meets_a_coordinator_of_the_other_game_stops() {
    let root = TempDir::new("bc-dist-other-game");
    // A fixed port, so the worker finds the second coordinator where the first was.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let url = format!("http://{listen}");
    let (c1, _) = coordinator(&root.0, &root.0.join("bc-store"), &listen, &[]);
    // It holds its first lease 3 s before solving: time to swap the coordinators.
    let w = worker(&root.0, TOKEN, &url, "bagh", &["--hold-ms", "3000"]);
    let status = foxbase_coordinator::grpc::client::GrpcLink::new(
        &url,
        foxbase_coordinator::grpc::client::Credentials::new(TOKEN).unwrap(),
        None,
    )
    .unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while !status.status().unwrap().workers.iter().any(|w| !w.leased_tiers.is_empty()) {
        assert!(Instant::now() < until, "the worker never leased a tier");
        std::thread::sleep(Duration::from_millis(20));
    }
    c1.kill9();
    // A Fox Game coordinator in its place: the worker registers again and stops.
    let (c2, _) = fox_coordinator(&root.0, TOKEN, root.0.join("fox-store"), &listen, 30, &[]);
    let (code, out) = w.finish(Duration::from_secs(60));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("the coordinator solves fox {") && out.contains("this worker was started for baghchal"),
        "{out}"
    );
    drop(c2);
}

/// A coordinator's side that registers workers for a game of `game` and answers nothing else.
struct OtherGame {
    game: &'static str,
    variant: &'static str,
}

impl Link for OtherGame {
    fn register(&self, _: &str, _: u32) -> Result<Registration, LinkError> {
        Ok(Registration {
            worker_id: "w-1".into(),
            game: self.game.into(),
            variant: self.variant.into(),
            lease_seconds: 30,
            store_url: "file:///nonexistent".into(),
            distance: Some(foxbase_tables::plies::Distance::Dtm),
        })
    }
    fn lease(&self, _: &str) -> Result<LeaseAnswer, LinkError> {
        unreachable!("a worker that cannot solve the game leases nothing")
    }
    fn heartbeat(&self, _: &str, _: u64) -> Result<bool, LinkError> {
        unreachable!()
    }
    fn release(&self, _: &str, _: u64) -> Result<(), LinkError> {
        unreachable!()
    }
    fn complete(&self, _: &Completion) -> Result<Accepted, LinkError> {
        unreachable!()
    }
}

#[test]
fn a_worker_refuses_a_game_or_variant_it_does_not_know() {
    let root = TempDir::new("bc-dist-unknown");
    let options = WorkerOptions {
        name: "w".into(),
        threads: 1,
        kernel: Default::default(),
        cache: root.0.join("cache"),
        cache_max: None,
        retries: Default::default(),
        give_up_after: Duration::from_secs(1),
        hold_before_solving: Duration::ZERO,
        hold_until_lost: false,
        refusal_is_fatal: false,
        sync_each_table: true,
        tables_in_memory: None,
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    for (game, variant, says) in [
        (
            "chess",
            "{}",
            "the coordinator solves a game this worker cannot: unknown game 'chess' (the games: fox, baghchal, tictactoe)",
        ),
        (
            "baghchal",
            "{\"goats\":2}",
            "the coordinator's variant: Bagh-Chal variant {\"goats\":2}: no field 'capture_target'",
        ),
        ("fox", "{\"goats\":2,\"capture_target\":2}", "the coordinator's variant"),
    ] {
        let link = OtherGame { game, variant };
        let e = run_remote_worker(&link, None, &options, None, &stop, &|_| {}).unwrap_err().to_string();
        assert!(e.contains(says), "{game}: '{e}' should say '{says}'");
    }
    assert!(!root.0.join("cache").exists(), "refused before anything is made");
}
