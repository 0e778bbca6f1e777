//! `meshai init` as the real binary, against simulated nodes and a fake Ollama on loopback
//! ports that the hidden `--probe-*` flags put in place of the default ones (4403, 4404,
//! 11434, 8080, 1234, 8000 and 4000) and an empty folder in place of `/dev`; then `meshai check` and
//! `meshai run` on the file it wrote, found without `--config`.

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::Duration;

use super::{closed_port, stdout};
use crate::harness::SOON;
use crate::support::fake_llm::FakeLlm;
use crate::support::sim_node::{SimConfig, SimNode};

/// Longest a child command may take: init waits at most a 10 s handshake per node.
const CHILD_WAIT: Duration = Duration::from_secs(60);

/// A folder to work in, an empty stand-in for /dev, and the ports init searches.
struct Init {
    dir: tempfile::TempDir,
    node_ports: Vec<u16>,
    /// Where a virtual node may listen (a closed port unless a test puts one there).
    virtual_port: u16,
    ollama_port: u16,
    /// The binary's folder is on `PATH`, as after `cargo install` (else as after `cargo run`).
    on_path: bool,
}

impl Init {
    fn new(node_ports: Vec<u16>, ollama_port: u16) -> Init {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("dev/serial/by-id")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        Init {
            dir,
            node_ports,
            virtual_port: closed_port(),
            ollama_port,
            on_path: true,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// A `meshai` command run in the folder, with a HOME there and no config in the
    /// environment.
    fn meshai(&self, args: &[&str]) -> tokio::process::Command {
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_meshai"));
        let mut path: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        path.retain(|dir| !dir.join("meshai").is_file());
        if self.on_path
            && let Some(dir) = bin.parent()
        {
            path.insert(0, dir.to_path_buf());
        }
        let mut cmd = tokio::process::Command::new(&bin);
        cmd.args(args)
            .env("PATH", std::env::join_paths(path).unwrap())
            .current_dir(self.dir.path())
            .env("HOME", self.path("home"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("MESHAI_CONFIG")
            .env_remove("MESHAI_API_KEY")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        cmd
    }

    /// `meshai init` with the test's search places and `extra` flags; output and database in
    /// the folder (the defaults are system paths when the tests run as root).
    async fn run(&self, extra: &[&str]) -> (Output, String) {
        let mut args: Vec<String> = vec![
            "init".into(),
            "--output".into(),
            "meshai.toml".into(),
            "--database".into(),
            self.path("data/meshai.db").display().to_string(),
            "--probe-dev".into(),
            self.path("dev").display().to_string(),
            "--probe-ollama-port".into(),
            self.ollama_port.to_string(),
            "--probe-llamacpp-port".into(),
            closed_port().to_string(),
            "--probe-lmstudio-port".into(),
            closed_port().to_string(),
            "--probe-openai-port".into(),
            closed_port().to_string(),
            "--probe-virtual-port".into(),
            self.virtual_port.to_string(),
        ];
        for port in &self.node_ports {
            args.extend(["--probe-node-port".into(), port.to_string()]);
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = tokio::time::timeout(CHILD_WAIT, self.meshai(&args).output())
            .await
            .expect("meshai init finishes")
            .unwrap();
        let text = stdout(&out);
        (out, text)
    }

    fn config(&self) -> PathBuf {
        self.path("meshai.toml")
    }
}

async fn fake_ollama() -> FakeLlm {
    let llm = FakeLlm::start_echo().await;
    llm.set_models(&[
        ("nomic-embed-text:latest", 274_000_000),
        ("llama3.2:3b", 2_019_000_000),
        ("qwen2.5:0.5b", 397_000_000),
    ]);
    llm
}

fn sim() -> SimConfig {
    SimConfig {
        ack_delay: Duration::from_millis(5),
        ..SimConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_writes_a_config_that_checks_and_runs_without_config_flag() {
    let node = SimNode::start(sim()).await;
    let llm = fake_ollama().await;
    let init = Init::new(vec![node.addr().port()], llm.addr().port());
    let (out, text) = init.run(&[]).await;
    assert!(out.status.success(), "{text}");
    let addr = node.addr();
    assert!(
        text.contains(&format!(
            "  ✓ tcp {addr}: node !12345678 \"Sim Base\", firmware 2.7.26.sim\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("  ✓ Ollama http://127.0.0.1:"),
        "the models are listed: {text}"
    );
    assert!(
        text.contains("nomic-embed-text:latest (embedding)"),
        "{text}"
    );
    assert!(
        text.contains(
            "model qwen2.5:0.5b (the smallest chat model there; qwen2.5:1.5b is not installed)"
        ),
        "{text}"
    );
    assert!(text.contains("wrote meshai.toml\n"), "{text}");
    assert!(
        text.ends_with("next: `meshai check`, then `meshai run`\n"),
        "./meshai.toml is found by itself: {text}"
    );
    assert_eq!(
        node.handshakes(),
        1,
        "init confirmed the node with one handshake"
    );
    assert!(llm.all_requests().iter().any(|r| r.path == "/api/tags"));
    assert!(node.texts().is_empty(), "init sends no text");

    let written = std::fs::read_to_string(init.config()).unwrap();
    assert!(written.contains(&format!("tcp = \"{addr}\"")), "{written}");
    assert!(written.contains("# serial = \"/dev/ttyUSB0\""));
    assert!(written.contains("model = \"qwen2.5:0.5b\""));
    assert!(
        written.contains("# meshai configuration. Every key is shown with its default;"),
        "comments kept"
    );
    let db_dir = init.path("data");
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&db_dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the database folder is the user's only");
    // The knowledge folder beside it, created empty and the user's only, is in the config.
    let knowledge = db_dir.join("knowledge");
    let mode = std::fs::metadata(&knowledge).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the knowledge folder is the user's only");
    assert!(
        written.contains(&format!("dir = \"{}\"", knowledge.display())),
        "{written}"
    );

    // `meshai check` in that folder, no --config: every line passes.
    let out = tokio::time::timeout(CHILD_WAIT, init.meshai(&["check"]).output())
        .await
        .unwrap()
        .unwrap();
    let report = stdout(&out);
    assert!(out.status.success(), "{report}");
    assert!(
        report.starts_with("✓ config ./meshai.toml (tcp "),
        "{report}"
    );
    assert_eq!(
        report.lines().filter(|l| l.starts_with("✓ ")).count(),
        5,
        "{report}"
    );
    assert!(report.contains("✓ knowledge "), "{report}");

    // `meshai run` there answers a DM.
    let before = node.handshakes();
    let mut daemon = init.meshai(&["run"]).stdout(Stdio::null()).spawn().unwrap();
    node.wait_handshakes(before + 1, SOON).await;
    node.inject_dm(0x0a0b0c0d, "hello from the field", None);
    let texts = node.wait_texts(1, SOON).await;
    assert_eq!(texts[0].text, "echo: hello from the field");
    assert_eq!(texts[0].to, 0x0a0b0c0d);
    daemon.start_kill().unwrap();
    let _ = daemon.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_with_two_nodes_lists_both_and_writes_nothing() {
    let a = SimNode::start(sim()).await;
    let b = SimNode::start(SimConfig {
        node_num: 0x0bad_cafe,
        long_name: "Second".into(),
        ..sim()
    })
    .await;
    let llm = fake_ollama().await;
    let init = Init::new(vec![a.addr().port(), b.addr().port()], llm.addr().port());
    let (out, text) = init.run(&[]).await;
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("✓ tcp {}: node !12345678 \"Sim Base\"", a.addr())),
        "{text}"
    );
    assert!(
        text.contains(&format!("✓ tcp {}: node !0badcafe \"Second\"", b.addr())),
        "{text}"
    );
    assert!(
        text.contains(
            "✗ 2 Meshtastic nodes answered: choose one with --serial PATH or --tcp HOST:PORT"
        ),
        "{text}"
    );
    assert!(text.ends_with("nothing written\n"), "{text}");
    assert!(!init.config().exists());
    assert!(!init.path("data").exists(), "not even the database folder");

    // Naming one of them settles it.
    let (out, text) = init.run(&["--tcp", &b.addr().to_string()]).await;
    assert!(out.status.success(), "{text}");
    let written = std::fs::read_to_string(init.config()).unwrap();
    assert!(
        written.contains(&format!("tcp = \"{}\"", b.addr())),
        "{written}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_with_nothing_running_explains_and_exits_1() {
    let init = Init::new(vec![closed_port()], closed_port());
    let (out, text) = init.run(&[]).await;
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("✗ no Meshtastic node found: plug the node in over USB"),
        "{text}"
    );
    assert!(
        text.contains("✗ no LLM server found at http://127.0.0.1:"),
        "{text}"
    );
    assert!(text.contains("`ollama pull qwen2.5:1.5b`"), "{text}");
    assert!(
        text.contains("  ✗ serial: no device in ") && text.contains("/serial/by-id/"),
        "the serial search says where it looked: {text}"
    );
    assert!(
        text.contains("connection refused"),
        "each place says why: {text}"
    );
    assert!(text.ends_with("nothing written\n"), "{text}");
    assert!(!init.config().exists());
}

/// Issue 36: llama.cpp's server started on Ollama's port answers `/api/tags` with 404; init
/// lists its models the OpenAI way there and writes it, instead of advising Ollama.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_finds_an_openai_compatible_server_on_ollamas_port() {
    let node = SimNode::start(sim()).await;
    let llm = FakeLlm::start_echo().await;
    llm.without_ollama_api();
    llm.set_models(&[("qwen2.5-coder-0.5b", 400_000_000)]);
    let port = llm.addr().port();
    let mut init = Init::new(vec![node.addr().port()], port);
    // As after `cargo run`: no `meshai` on PATH.
    init.on_path = false;
    let (out, text) = init.run(&[]).await;
    assert!(out.status.success(), "{text}");
    let url = format!("http://127.0.0.1:{port}/v1");
    assert!(
        text.contains(&format!("  ✓ OpenAI-compatible server {url}")),
        "{text}"
    );
    assert!(!text.contains("install Ollama"), "{text}");
    assert!(
        text.contains("  speed     wrote ") && text.contains(" tokens/s, a 150-character packet"),
        "init times one short answer: {text}"
    );
    let bin = env!("CARGO_BIN_EXE_meshai");
    assert!(
        text.contains(&format!("next: `{bin} check")) && text.contains("cargo install --locked"),
        "the binary by its path, and how to put it on PATH: {text}"
    );
    let written = std::fs::read_to_string(init.config()).unwrap();
    assert!(
        written.contains(&format!("base_url = \"{url}\"")),
        "{written}"
    );
    assert!(
        written.contains("model = \"qwen2.5-coder-0.5b\""),
        "{written}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_never_overwrites_without_force() {
    let node = SimNode::start(sim()).await;
    let llm = fake_ollama().await;
    let init = Init::new(vec![node.addr().port()], llm.addr().port());
    std::fs::write(init.config(), "# mine\n").unwrap();
    let (out, text) = init.run(&[]).await;
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(
        text,
        "✗ meshai.toml exists: nothing written (--force replaces it)\n"
    );
    assert_eq!(std::fs::read_to_string(init.config()).unwrap(), "# mine\n");
    assert_eq!(node.handshakes(), 0, "nothing was probed either");

    let (out, text) = init.run(&["--force", "--model", "llama3.2:3b"]).await;
    assert!(out.status.success(), "{text}");
    let written = std::fs::read_to_string(init.config()).unwrap();
    assert!(written.contains("model = \"llama3.2:3b\""), "{written}");

    // A model the server does not have: the fix is named, nothing written.
    std::fs::remove_file(init.config()).unwrap();
    let (out, text) = init.run(&["--model", "phi3:mini"]).await;
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("✗ model phi3:mini is not on Ollama at http://127.0.0.1:"),
        "{text}"
    );
    assert!(text.contains("`ollama pull phi3:mini`"), "{text}");
    assert!(!init.config().exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_never_touches_a_port_in_use() {
    // A client already talks to this node over TCP; a pty's other end is held open by this
    // process, like a serial port held by another program.
    let tcp_node = SimNode::start(sim()).await;
    let client = std::net::TcpStream::connect(tcp_node.addr()).unwrap();
    tcp_node.wait_connections(1, SOON).await;
    let (pty_node, pty) = SimNode::start_pty(sim());
    let llm = fake_ollama().await;
    let init = Init::new(vec![tcp_node.addr().port()], llm.addr().port());
    let by_id = init.path("dev/serial/by-id/usb-Sim_Node-if00");
    std::os::unix::fs::symlink(&pty.path, &by_id).unwrap();

    let (out, text) = init.run(&[]).await;
    assert_eq!(out.status.code(), Some(1), "{text}");
    let me = std::process::id();
    assert!(
        text.contains(&format!(
            "✗ serial {}: in use by pid {me} (",
            by_id.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "✗ tcp {}: in use: 1 client(s) connected",
            tcp_node.addr()
        )),
        "{text}"
    );
    assert!(text.contains("a port in use is never touched"), "{text}");
    assert!(!init.config().exists());
    assert_eq!(tcp_node.connections(), 1, "init never connected");
    assert_eq!(pty_node.handshakes(), 0);
    assert!(
        pty_node.to_radio().is_empty(),
        "nothing was written to the pty"
    );
    drop(client);
    drop(pty);
}

/// A node named with `--serial` is written as given even when it cannot be confirmed; a
/// port in use is still not touched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_serial_node_is_written_without_touching_it_when_busy() {
    let llm = fake_ollama().await;
    let init = Init::new(vec![closed_port()], llm.addr().port());
    // The pty's device side stays open in this process: the port is in use.
    let (node, pty) = SimNode::start_pty(sim());
    let by_id = init.path("dev/serial/by-id/usb-Sim_Node-if00");
    std::os::unix::fs::symlink(&pty.path, &by_id).unwrap();
    let named = by_id.display().to_string();
    let (out, text) = init.run(&["--serial", &named]).await;
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "  node      serial {named} (not confirmed: in use by pid "
        )),
        "{text}"
    );
    let written = std::fs::read_to_string(init.config()).unwrap();
    assert!(
        written.contains(&format!("serial = \"{named}\"")),
        "{written}"
    );
    assert!(
        written.contains("\n# tcp = \"192.168.1.50:4403\""),
        "{written}"
    );
    assert_eq!(node.handshakes(), 0);
    assert!(
        node.to_radio().is_empty(),
        "nothing was written to the port"
    );
    drop(pty);
}

/// MeshMonitor's setup: the node's own port (4403) and a virtual node (4404) that shares it
/// with other apps answer for the same node; init takes the virtual node and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_takes_the_virtual_node_when_the_node_answers_on_both_ports() {
    let own = SimNode::start(sim()).await;
    let shared = SimNode::start(sim()).await;
    let llm = fake_ollama().await;
    let mut init = Init::new(vec![own.addr().port()], llm.addr().port());
    init.virtual_port = shared.addr().port();
    let (out, text) = init.run(&[]).await;
    assert!(out.status.success(), "{text}");
    let (own_addr, shared_addr) = (own.addr(), shared.addr());
    assert!(
        text.contains(&format!(
            "  ✓ tcp {shared_addr} (virtual node): node !12345678 \"Sim Base\""
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  node      tcp {shared_addr} (virtual node) (node !12345678"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "            chosen: node !12345678 also answers on tcp {own_addr}, which serves one \
             client at a time; the virtual node shares it with the other apps\n"
        )),
        "{text}"
    );
    let written = std::fs::read_to_string(init.config()).unwrap();
    assert!(
        written.contains(&format!("tcp = \"{shared_addr}\"")),
        "{written}"
    );

    // Two different nodes are still two nodes.
    let other = SimNode::start(SimConfig {
        node_num: 0x0bad_cafe,
        ..sim()
    })
    .await;
    init.virtual_port = other.addr().port();
    let (out, text) = init.run(&["--force"]).await;
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("✗ 2 Meshtastic nodes answered"), "{text}");
}

/// A node the running meshai holds, by its status file, is not touched: found or named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_never_connects_to_a_node_a_running_meshai_holds() {
    use meshai::radio::{LinkState, Transport};
    use meshai::status_file::{self, publish::Snapshot};
    let node = SimNode::start(sim()).await;
    let llm = fake_ollama().await;
    let init = Init::new(vec![node.addr().port()], llm.addr().port());
    // The daemon using the database init was told about: this process, holding the node.
    let db = init.path("data/meshai.db");
    std::fs::create_dir_all(init.path("data")).unwrap();
    let now = meshai::clock::unix_now();
    let radio = Transport::tcp("127.0.0.1", node.addr().port());
    let held = Snapshot::new(
        std::process::id(),
        status_file::own_start_time(),
        now,
        &radio,
    )
    .update(&LinkState::Connecting, Default::default(), now)
    .clone();
    std::fs::write(
        status_file::path_for(&db),
        serde_json::to_vec(&held).unwrap(),
    )
    .unwrap();
    let me = std::process::id();

    let (out, text) = init.run(&[]).await;
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "  ✗ tcp {}: held by the running meshai (pid {me}); not touched",
            node.addr()
        )),
        "{text}"
    );
    assert!(text.contains("a port in use is never touched"), "{text}");

    // Named: written as asked, still not touched.
    let (out, text) = init.run(&["--tcp", &node.addr().to_string()]).await;
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("(not confirmed: held by the running meshai (pid "),
        "{text}"
    );
    assert_eq!(node.connections(), 0, "init never connected");
}
