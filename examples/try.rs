//! Try meshai on a machine with no radio: a simulated node with a small mesh around it
//! (twelve nodes near Zürich, three with weather sensors), the daemon configured by `meshai
//! init` exactly as a user's would be, and you typing as Ann, a mesh user with a handheld.
//! Every line you type goes to the bot as Ann's DM over the simulated radio; its packets come
//! back as `←` lines, as the Meshtastic app would show them.
//!
//! `scripts/try.sh` builds and runs this (with a local model it starts); by hand:
//! `cargo run --release --example try -- MESHAI_BIN LLM_URL MODEL STATE_DIR`.
//! STATE_DIR keeps `config.toml`, `meshai.db` (Ann's memory survives the next try) and
//! `meshai.log`. Exit: 0 at the end of input, 1 when the daemon does not come up.

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use support::mesh::{ANN, broadcast_sensors, sim_config};
use support::sim_node::{SimConfig, SimNode};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// How long one answer may take: a slow model on a small CPU writes a few tokens a second.
const ANSWER_WAIT: Duration = Duration::from_secs(240);

/// How long the daemon may take to connect and finish the node's handshake.
const READY_WAIT: Duration = Duration::from_secs(60);

struct Args {
    meshai: PathBuf,
    llm_url: String,
    model: String,
    state: PathBuf,
}

fn args() -> Option<Args> {
    let mut a = std::env::args().skip(1);
    Some(Args {
        meshai: a.next()?.into(),
        llm_url: a.next()?,
        model: a.next()?,
        state: a.next()?.into(),
    })
}

/// Whether `text` is the last packet of a reply: no ` i/?` or ` i/n` marker with i < n.
fn is_last_part(text: &str) -> bool {
    match text.rsplit_once(' ').and_then(|(_, m)| m.split_once('/')) {
        Some((i, n)) if !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()) => i == n,
        _ => true,
    }
}

/// `meshai init` for the simulated node and the local model, as a user would run it.
async fn init(a: &Args, node: &str) -> bool {
    let status = Command::new(&a.meshai)
        .arg("init")
        .args(["--tcp", node, "--llm-url", &a.llm_url, "--model", &a.model])
        .arg("--database")
        .arg(a.state.join("meshai.db"))
        .arg("--output")
        .arg(a.state.join("config.toml"))
        .arg("--force")
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()
        .await;
    matches!(status, Ok(s) if s.success())
}

/// `meshai run` on the config init wrote, its log in `state/meshai.log`.
fn run(a: &Args) -> std::io::Result<Child> {
    let log = std::fs::File::create(a.state.join("meshai.log"))?;
    Command::new(&a.meshai)
        .arg("run")
        .arg("--config")
        .arg(a.state.join("config.toml"))
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
}

/// Asks the daemon to stop as systemd does (SIGTERM), and waits for it.
async fn stop(mut daemon: Child) {
    if let Some(pid) = daemon.id() {
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await;
    }
    if tokio::time::timeout(Duration::from_secs(20), daemon.wait())
        .await
        .is_err()
    {
        let _ = daemon.kill().await;
    }
}

fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

#[tokio::main]
async fn main() -> ExitCode {
    let Some(a) = args() else {
        eprintln!("usage: try MESHAI_BIN LLM_URL MODEL STATE_DIR (scripts/try.sh runs it)");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(&a.state) {
        eprintln!("cannot create {}: {e}", a.state.display());
        return ExitCode::FAILURE;
    }
    let sim = SimNode::start(sim_config(SimConfig {
        ack_delay: Duration::from_millis(800),
        ..SimConfig::default()
    }))
    .await;
    let node = sim.addr().to_string();
    eprintln!("try: a simulated node on {node} with 12 nodes around it");
    if !init(&a, &node).await {
        eprintln!("try: `meshai init` did not write a config (above: why)");
        return ExitCode::FAILURE;
    }
    let daemon = match run(&a) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("try: cannot start {}: {e}", a.meshai.display());
            return ExitCode::FAILURE;
        }
    };
    let log = a.state.join("meshai.log");
    let started = Instant::now();
    while !sim.is_ready() {
        if started.elapsed() > READY_WAIT {
            eprintln!(
                "try: the daemon did not connect within {READY_WAIT:?}; its log:\n{}",
                tail(&log)
            );
            stop(daemon).await;
            return ExitCode::FAILURE;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    broadcast_sensors(&sim);
    eprintln!(
        "\nmeshai is running. You are Ann (!{ANN:08x}) on the simulated mesh; type a message \
         and press Enter.\nTry: What is LoRa? · My callsign is HB9XYZ. · Who is around? · What \
         is the temperature at Ridge Weather? · !help\nCtrl-D ends. The daemon's log: {}\n",
        log.display()
    );
    let echo = !std::io::stdin().is_terminal();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if echo {
            println!("> {text}");
        }
        let before = sim.texts().len();
        sim.inject_dm(ANN, text, None);
        let asked = Instant::now();
        let mut shown = before;
        let mut done = false;
        while !done && asked.elapsed() < ANSWER_WAIT {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let texts = sim.texts();
            for t in texts.iter().skip(shown).filter(|t| t.to == ANN) {
                println!("← {}", t.text);
                done = is_last_part(&t.text);
            }
            shown = shown.max(texts.len());
        }
        if !done {
            println!(
                "(no whole answer within {ANSWER_WAIT:?}; the daemon's log:)\n{}",
                tail(&log)
            );
        }
    }
    stop(daemon).await;
    eprintln!(
        "try: stopped. Ann's memory stays in {} for the next try.",
        a.state.join("meshai.db").display()
    );
    ExitCode::SUCCESS
}
