//! The `horse` command: output formats, errors and the SVG file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn horse(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_horse")).args(args).output().unwrap()
}

fn map(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("maps").join(name).display().to_string()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("horse-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn solve_prints_the_proven_optimum_as_json_and_as_text() {
    let out = horse(&["solve", &map("tiny.txt"), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"trapped\": true, \"score\": 15, \"walls\": [[2,4],[3,3]], \"region\": 7, \"optimal\": true}\n"
    );
    let out = horse(&["solve", &map("tiny.txt")]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "score 15, proven optimal\n2 walls: (2, 4) (3, 3)\nregion: 7 tiles\n#~~~~\n~H+A~\n~C~1W\n~B1W.\n~~~.~\n"
    );
}

#[test]
fn fewer_walls_than_needed_is_a_proven_untrapped_horse() {
    // tiny needs two walls (min-walls says so); with one nothing traps the horse.
    let out = horse(&["solve", &map("tiny.txt"), "--walls", "1", "--json"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "{\"trapped\": false}\n");
    let out = horse(&["min-walls", &map("tiny.txt"), "--json"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "{\"count\":2,\"trappable\":true,\"walls\":[[2,4],[3,3]]}\n");
}

#[test]
fn the_brute_force_agrees_on_the_bees_map() {
    let solved = horse(&["solve", &map("bees.txt"), "--json"]);
    let brute = horse(&["brute", &map("bees.txt"), "--json"]);
    let score = |o: &Output| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["score"].as_i64().unwrap()
    };
    // The region holds the swarm: 2 walls close it with the apple and both
    // cherry rooms, the bees' -4 included.
    assert_eq!((score(&solved), score(&brute)), (49, 49));
}

#[test]
fn a_bad_map_names_line_column_and_character_and_fails() {
    let dir = scratch("bad");
    let path = dir.join("bad.txt");
    std::fs::write(&path, "# x\nwalls 2\n~~~\n~Hx\n~~~\n").unwrap();
    let out = horse(&["solve", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "horse: {}: line 4, column 3: unexpected character 'x' (expected one of . ~ # H C A B 0-9)\n",
            path.display()
        )
    );
    assert!(out.stdout.is_empty());
    let out = horse(&["solve", &map("tiny.txt"), "--time-limit", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "horse: --time-limit: 0 is not a positive number of seconds\n");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn svg_draws_the_map_walls_and_region() {
    let dir = scratch("svg");
    let path = dir.join("tiny.svg");
    let out = horse(&["solve", &map("tiny.txt"), "--svg", path.to_str().unwrap()]);
    assert!(out.status.success());
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\""));
    assert_eq!(svg.matches("<rect").count(), 25);
    // Two walls; the region's seven tiles tinted; six marks (H, A, C, B, 1, 1).
    assert_eq!(svg.matches("fill=\"#8b5a2b\"").count(), 2);
    assert_eq!(svg.matches("fill=\"#f3e37c\"").count(), 7);
    assert_eq!(svg.matches("<circle").count(), 6);
    assert!(svg.ends_with("</svg>\n"));
    // Nothing but the file is left in the directory (no temporary file).
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A reader that stops early (`horse random 400 400 | head -1`) ends the
/// command quietly with success: no panic, nothing on standard error. The
/// map is 160,400 bytes, more than a pipe holds, so the write meets the
/// closed pipe whenever the reader closes it.
#[test]
fn a_closed_output_pipe_ends_quietly() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_horse"))
        .args(["random", "400", "400"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // The whole map when nobody closes the pipe.
    let whole = horse(&["random", "400", "400"]);
    assert!(whole.status.success());
    assert_eq!(
        whole.stdout.len(),
        "# horse random 400 400 --walls 10 --seed 1\n".len() + 400 * 401 + "walls 10\n".len()
    );
}
