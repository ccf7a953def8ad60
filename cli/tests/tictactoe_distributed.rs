//! Tic-tac-toe through the distributed solve, with real processes on
//! loopback: `foxbase coordinator --game tictactoe` and a worker (which
//! learns the game from the coordinator) write the files of
//! `foxbase solve --game tictactoe`, byte for byte, and the same manifest,
//! start value included.

mod common;

use common::{foxbase, token_file, worker, Proc, TempDir};
use foxbase_tables::manifest::Manifest;
use std::time::Duration;

const TOKEN: &str = "noughts-and-crosses";

#[test]
fn a_coordinator_and_a_worker_write_the_tables_of_a_local_solve() {
    let root = TempDir::new("ttt-dist");
    let local = root.0.join("local");
    let out = foxbase().args(["solve", "--game", "tictactoe", "--threads", "1", "--out"]).arg(&local).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let store = root.0.join("store");
    let mut cmd = foxbase();
    cmd.args(["coordinator", "--game", "tictactoe", "--listen", "127.0.0.1:0", "--json", "--store"])
        .arg(&store)
        .arg("--token-file")
        .arg(token_file(&root.0, TOKEN));
    let c = Proc::spawn(cmd);
    let line = c.wait_for_line("listening on ", Duration::from_secs(30));
    let addr = line.split("listening on ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    let w = worker(&root.0, TOKEN, &format!("http://{addr}"), "w", &[]);
    let summary: serde_json::Value = serde_json::from_str(c.finish_ok(Duration::from_secs(60)).trim()).unwrap();
    assert_eq!(summary["game"], "tictactoe", "{summary}");
    assert_eq!((summary["tiers"].as_u64(), summary["value"].as_str()), (Some(10), Some("draw")), "{summary}");
    w.wait_for_line("for tic-tac-toe; kernel counter;", Duration::from_secs(5));
    w.finish_ok(Duration::from_secs(30));

    let (distributed, solved) = (Manifest::read(&store).unwrap(), Manifest::read(&local).unwrap());
    let timeless = |mut m: Manifest| {
        m.solve_seconds = 0.0;
        m
    };
    assert_eq!(timeless(distributed.clone()), timeless(solved));
    assert!(distributed.start.is_some_and(|s| s.value == "draw"));
    let mut files = vec!["tiers.idx".to_string()];
    files.extend(Manifest::read(&local).unwrap().tiers.iter().map(|t| t.file.clone()));
    for file in files {
        assert_eq!(std::fs::read(store.join(&file)).unwrap(), std::fs::read(local.join(&file)).unwrap(), "{file}");
    }
}
