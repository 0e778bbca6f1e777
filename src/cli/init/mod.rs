//! `meshai init`: writes a working config for this machine and says what it found.
//!
//! It looks for the node (serial devices, a node on 127.0.0.1:4403, a multi-client proxy's
//! virtual node on 127.0.0.1:4404) and confirms each free candidate with a handshake, never
//! touching one another program or a running meshai uses; for an LLM server (Ollama, llama.cpp's server, LM Studio on
//! their default ports) and its installed models; and for a database folder the user can
//! write. Then it fills those into `config.example.toml` (`template`) and writes the file,
//! never over an existing one without `--force`. Anything it would detect can be given as a
//! flag, so it also runs unattended. Nothing is written, and the exit code is 1, when there
//! is no node, more than one, no server or no chat model.
//!
//! Layout: `node` finds and probes the node (I/O), `plan` makes every decision (pure),
//! `template` edits the example text (pure); this file runs the steps and prints.

pub mod node;
pub(crate) mod plan;
pub(crate) mod speed;
pub mod template;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;

use self::node::{Candidate, Probe};
use self::plan::{Kind, ServerProbe, Who};
use self::template::{RadioLine, Values};
use super::daemons::{self, Daemons};
use crate::config::locate::{self, Env};
use crate::llm::models::{self, ListApi};
use crate::radio::transport::Tcp;
use crate::secret::redact_urls;

/// How long the handshake with one candidate node may take.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// How long listing one server's models may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(3);

/// The model meshai uses by default (the example config's).
const DEFAULT_MODEL: &str = "qwen2.5:1.5b";

/// `meshai init`'s command line.
#[derive(Debug, Clone, clap::Args)]
pub struct InitArgs {
    /// The node's serial device; skips the search (the node is still asked, if free).
    #[arg(long, value_name = "PATH", conflicts_with = "tcp")]
    pub(crate) serial: Option<PathBuf>,
    /// The node's address, HOST[:PORT] (port 4403 by default); skips the search.
    #[arg(long, value_name = "ADDR")]
    pub(crate) tcp: Option<String>,
    /// The LLM server's API root, e.g. http://127.0.0.1:11434/v1; skips the search.
    #[arg(long, value_name = "URL")]
    pub(crate) llm_url: Option<String>,
    /// The model to use; by default meshai's default model when installed, else the
    /// smallest chat model the server has.
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
    /// The database file [default: /var/lib/meshai/meshai.db for root, else
    /// ~/.local/state/meshai/meshai.db].
    #[arg(long, value_name = "FILE")]
    pub(crate) database: Option<PathBuf>,
    /// The knowledge folder, for documents the answers may come from [default: `knowledge`
    /// beside the database; created if missing].
    #[arg(long, value_name = "DIR", conflicts_with = "no_knowledge")]
    pub(crate) knowledge: Option<PathBuf>,
    /// Leave `[knowledge] dir` unset: no knowledge folder.
    #[arg(long)]
    pub(crate) no_knowledge: bool,
    /// Where to write the config [default: /etc/meshai/config.toml for root, else
    /// ~/.config/meshai/config.toml].
    #[arg(long, short, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub(crate) force: bool,
    #[command(flatten)]
    pub(crate) probe: ProbeArgs,
}

/// Where the search looks. Hidden, for tests: ports on 127.0.0.1 only, and a folder standing
/// in for `/dev`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ProbeArgs {
    #[arg(long = "probe-node-port", hide = true, default_values_t = [4403])]
    pub(crate) node_ports: Vec<u16>,
    /// Where a multi-client proxy's virtual node listens (MeshMonitor: 4404).
    #[arg(long = "probe-virtual-port", hide = true, default_values_t = [4404])]
    pub(crate) virtual_ports: Vec<u16>,
    #[arg(long = "probe-ollama-port", hide = true, default_value_t = 11434)]
    pub(crate) ollama_port: u16,
    #[arg(long = "probe-llamacpp-port", hide = true, default_value_t = 8080)]
    pub(crate) llamacpp_port: u16,
    #[arg(long = "probe-lmstudio-port", hide = true, default_value_t = 1234)]
    pub(crate) lmstudio_port: u16,
    /// Other OpenAI-compatible servers' usual ports: vLLM and llama-cpp-python (8000),
    /// LiteLLM's proxy (4000).
    #[arg(long = "probe-openai-port", hide = true, default_values_t = [8000, 4000])]
    pub(crate) openai_ports: Vec<u16>,
    /// Time one short answer of the chosen model (`speed`); off for tests that count requests.
    #[arg(long = "probe-time-model", hide = true, default_value_t = true, action = clap::ArgAction::Set)]
    pub(crate) time_model: bool,
    #[arg(long = "probe-dev", hide = true, default_value = "/dev")]
    pub(crate) dev: PathBuf,
}

/// Runs `meshai init`, printing to `out`. `Ok(true)` when the config was written.
pub async fn run(
    args: &InitArgs,
    env: Env<'_>,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<bool> {
    let who = who_am_i();
    let (output, database) = match places(args, who, env) {
        Ok(places) => places,
        Err(problem) => return refuse(out, &[problem]),
    };
    if output.exists() && !args.force {
        let shown = output.display();
        writeln!(
            out,
            "✗ {shown} exists: nothing written (--force replaces it)"
        )?;
        return Ok(false);
    }

    writeln!(out, "looking for the node and an LLM server…")?;
    // The daemons whose status files tell which node they hold: this database's, the
    // service's and the user's default one.
    let databases = daemons::databases(&database, env);
    let (nodes, servers) = tokio::join!(find_nodes(args, &databases), find_servers(args));
    let nodes = nodes?;
    print_found(out, args, &nodes, &servers)?;

    let named = args.serial.is_some() || args.tcp.is_some();
    let node = plan::choose_node(&nodes, named);
    let llm = plan::choose_llm(&servers, args.model.as_deref(), DEFAULT_MODEL);
    let (choice, (server, model, why)) = match (node, llm) {
        (Ok(n), Ok(l)) => (n, l),
        (node, llm) => {
            let problems: Vec<String> = [node.err(), llm.err()].into_iter().flatten().collect();
            return refuse(out, &problems);
        }
    };
    let (candidate, probe) = &nodes[choice.index];
    let server = &servers[server];
    let prepared = prepare_database(&database, who)
        .and_then(|db| Ok((db, knowledge_folder(args, who, &database)?)));
    let (db_note, (knowledge, knowledge_note)) = match prepared {
        Ok((db, folder)) => (db, folder.unzip()),
        Err(problem) => return refuse(out, &[problem]),
    };

    let found = probe.summary();
    writeln!(
        out,
        "using:\n  node      {} ({found})",
        candidate.describe()
    )?;
    if let Some(why) = &choice.why {
        writeln!(out, "            chosen: {why}")?;
    }
    writeln!(
        out,
        "  llm       {} {}, model {model} ({why})",
        server.kind.name(),
        redact_urls(&server.base_url)
    )?;
    if args.probe.time_model {
        print_speed(out, &server.base_url, &model).await?;
    }
    writeln!(out, "  database  {}{db_note}", database.display())?;
    if let (Some(dir), Some(note)) = (&knowledge, &knowledge_note) {
        writeln!(out, "  knowledge {}{note}", dir.display())?;
    }

    let values = Values {
        radio: radio_line(candidate),
        base_url: server.base_url.clone(),
        model: model.clone(),
        database: database.display().to_string(),
        knowledge: knowledge.as_ref().map(|d| d.display().to_string()),
        header: header(candidate, &found, &model, server),
    };
    write(out, &output, &values, args.force, env)
}

/// Renders the config from `values`, writes it to `output` and says what to do next.
fn write(
    out: &mut (dyn Write + Send),
    output: &Path,
    values: &Values,
    force: bool,
    env: Env<'_>,
) -> anyhow::Result<bool> {
    let text = template::render(template::EXAMPLE, values)?;
    write_config(output, &text, force)
        .with_context(|| format!("cannot write {}", output.display()))?;
    writeln!(out, "wrote {}", output.display())?;
    writeln!(out, "next: {}", next_steps(output, env))?;
    Ok(true)
}

/// Prints the nodes and the servers found, and where no serial node was when `init` looked.
fn print_found(
    out: &mut (dyn Write + Send),
    args: &InitArgs,
    nodes: &[(Candidate, Probe)],
    servers: &[ServerProbe],
) -> anyhow::Result<()> {
    print_nodes(out, nodes)?;
    let searched = args.serial.is_none() && args.tcp.is_none();
    if searched && !nodes.iter().any(|(c, _)| matches!(c, Candidate::Serial(_))) {
        let dev = args.probe.dev.display();
        writeln!(
            out,
            "  ✗ serial: no device in {dev}/serial/by-id/ (nor {dev}/ttyUSB*, {dev}/ttyACM*): is the \
             node plugged in over a data cable (not a charge-only one)?"
        )?;
    }
    Ok(print_servers(out, servers)?)
}

/// Times one short answer of `model` and prints what the rate means.
async fn print_speed(
    out: &mut (dyn Write + Send),
    base_url: &str,
    model: &str,
) -> anyhow::Result<()> {
    writeln!(out, "  speed     timing one short answer…")?;
    match speed::measure(base_url, model).await {
        Ok(m) => writeln!(out, "  speed     {}", speed::line(&m, model))?,
        Err(e) => writeln!(out, "  speed     not measured: {}", redact_urls(&e))?,
    }
    Ok(())
}

/// Where the config and the database go: the flags', else this user's defaults (a problem
/// when `$HOME` is needed and not set).
fn places(args: &InitArgs, who: Who, env: Env<'_>) -> Result<(PathBuf, PathBuf), String> {
    let output = args
        .output
        .clone()
        .or_else(|| plan::default_output(who, env))
        .ok_or("no place for the config: $HOME is not set; name one with --output FILE")?;
    let database = args
        .database
        .clone()
        .or_else(|| plan::default_database(who, env))
        .ok_or("no place for the database: $HOME is not set; name one with --database FILE")?;
    Ok((output, database))
}

/// The knowledge folder the config names, made ready, with what was done to it (`None`
/// with `--no-knowledge`).
fn knowledge_folder(
    args: &InitArgs,
    who: Who,
    database: &Path,
) -> Result<Option<(PathBuf, String)>, String> {
    let dir = match (&args.knowledge, args.no_knowledge) {
        (_, true) => return Ok(None),
        (Some(dir), false) => dir.clone(),
        (None, false) => plan::default_knowledge(database),
    };
    let note = prepare_knowledge(&dir, who, database)?;
    Ok(Some((dir, note)))
}

/// The config's first lines: what `init` found and chose.
fn header(candidate: &Candidate, found: &str, model: &str, server: &ServerProbe) -> Vec<String> {
    vec![
        format!(
            "Written by `meshai init` for this machine: {} ({found}),",
            candidate.describe()
        ),
        format!(
            "model {model} on {} ({}). Every other key is at its default.",
            server.kind.name(),
            server.base_url
        ),
    ]
}

/// Prints the problems and that nothing was written; the command then exits 1.
fn refuse(out: &mut (dyn Write + Send), problems: &[String]) -> anyhow::Result<bool> {
    for problem in problems {
        // A problem may name a server by its URL (`plan`).
        writeln!(out, "✗ {}", redact_urls(problem))?;
    }
    writeln!(out, "nothing written")?;
    Ok(false)
}

/// The effective user, read from `/proc` and `/etc/passwd` (no libc call needed).
fn who_am_i() -> Who {
    let euid = daemons::my_euid();
    let service = service_ids().map(|(uid, _)| uid);
    // Unknown: not root, so nothing system-wide is assumed.
    euid.map_or(Who::User, |e| Who::of(e, service))
}

fn service_ids() -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    plan::ids_from_passwd(&passwd, plan::SERVICE_USER)
}

/// The candidates (the named one, or every serial device, the local TCP ports and the local
/// virtual node), probed concurrently; none that a daemon using one of `databases` holds.
async fn find_nodes(
    args: &InitArgs,
    databases: &[PathBuf],
) -> anyhow::Result<Vec<(Candidate, Probe)>> {
    let candidates = if let Some(path) = &args.serial {
        vec![Candidate::Serial(path.clone())]
    } else if let Some(addr) = &args.tcp {
        match Tcp::parse(addr) {
            Ok(Tcp { host, port }) => vec![Candidate::Tcp { host, port }],
            Err(_) => {
                anyhow::bail!("--tcp {addr:?}: expected HOST or HOST:PORT, e.g. 192.168.1.50:4403")
            }
        }
    } else {
        let mut c: Vec<Candidate> = node::serial_devices(&args.probe.dev)
            .into_iter()
            .map(Candidate::Serial)
            .collect();
        c.extend(args.probe.node_ports.iter().map(|&port| Candidate::Tcp {
            host: "127.0.0.1".into(),
            port,
        }));
        c.extend(
            args.probe
                .virtual_ports
                .iter()
                .map(|&port| Candidate::VirtualNode {
                    host: "127.0.0.1".into(),
                    port,
                }),
        );
        c
    };
    let daemons = Daemons::read(databases, Path::new("/proc"));
    let probes = futures_util::future::join_all(
        candidates
            .iter()
            .map(|c| node::probe(c, HANDSHAKE, &daemons)),
    )
    .await;
    Ok(candidates.into_iter().zip(probes).collect())
}

/// The servers (the named one, or the three local defaults) with their model lists.
async fn find_servers(args: &InitArgs) -> Vec<ServerProbe> {
    let local = |port: u16| format!("http://127.0.0.1:{port}");
    let wanted: Vec<(Kind, String, String, ListApi)> = match &args.llm_url {
        Some(url) => {
            let url = url.trim().trim_end_matches('/').to_string();
            vec![(Kind::Named, url.clone(), url, ListApi::OpenAi)]
        }
        None => {
            let p = &args.probe;
            let mut wanted = vec![
                (
                    Kind::Ollama,
                    format!("{}/v1", local(p.ollama_port)),
                    local(p.ollama_port),
                    ListApi::Ollama,
                ),
                (
                    Kind::LlamaCpp,
                    format!("{}/v1", local(p.llamacpp_port)),
                    format!("{}/v1", local(p.llamacpp_port)),
                    ListApi::OpenAi,
                ),
                (
                    Kind::LmStudio,
                    format!("{}/v1", local(p.lmstudio_port)),
                    format!("{}/v1", local(p.lmstudio_port)),
                    ListApi::OpenAi,
                ),
            ];
            wanted.extend(p.openai_ports.iter().map(|port| {
                let url = format!("{}/v1", local(*port));
                (Kind::OpenAi, url.clone(), url, ListApi::OpenAi)
            }));
            wanted
        }
    };
    let lists = futures_util::future::join_all(
        wanted
            .iter()
            .map(|(_, _, list_url, api)| models::list(list_url, *api, LIST_TIMEOUT)),
    )
    .await;
    let mut servers: Vec<ServerProbe> = wanted
        .into_iter()
        .zip(lists)
        .map(|((kind, base_url, _, _), models)| ServerProbe {
            kind,
            base_url,
            models,
        })
        .collect();
    // Ollama's port may hold another server (llama.cpp's, started with `--port 11434`): it
    // answers `/api/tags` with 404 but lists its models the OpenAI way.
    for s in servers.iter_mut().filter(|s| s.kind == Kind::Ollama) {
        if s.models.is_err()
            && let Ok(models) = models::list(&s.base_url, ListApi::OpenAi, LIST_TIMEOUT).await
        {
            s.kind = Kind::OpenAi;
            s.models = Ok(models);
        }
    }
    servers
}

fn print_nodes(out: &mut (dyn Write + Send), nodes: &[(Candidate, Probe)]) -> std::io::Result<()> {
    writeln!(out, "node:")?;
    if nodes.is_empty() {
        writeln!(out, "  ✗ no serial device and no port to try")?;
    }
    for (c, p) in nodes {
        match p {
            Probe::Node(facts) => writeln!(out, "  ✓ {}: {}", c.describe(), facts.summary)?,
            Probe::Busy(why) => writeln!(out, "  ✗ {}: {why}; not touched", c.describe())?,
            Probe::Failed(why) => writeln!(out, "  ✗ {}: {why}", c.describe())?,
        }
    }
    Ok(())
}

fn print_servers(out: &mut (dyn Write + Send), servers: &[ServerProbe]) -> std::io::Result<()> {
    writeln!(out, "llm:")?;
    for s in servers {
        match &s.models {
            Ok(list) => {
                let names: Vec<String> = list
                    .iter()
                    .map(|m| match (m.is_embedding(), m.size) {
                        (true, _) => format!("{} (embedding)", m.name),
                        (false, Some(size)) => format!("{} ({:.1} GB)", m.name, size as f64 / 1e9),
                        (false, None) => m.name.clone(),
                    })
                    .collect();
                let names = if names.is_empty() {
                    "no models".to_string()
                } else {
                    names.join(", ")
                };
                let url = redact_urls(&s.base_url);
                writeln!(out, "  ✓ {} {url}: {names}", s.kind.name())?;
            }
            Err(why) => {
                let url = redact_urls(&s.base_url);
                writeln!(out, "  ✗ {} {url}: {why}", s.kind.name())?
            }
        }
    }
    Ok(())
}

fn radio_line(c: &Candidate) -> RadioLine {
    match c {
        Candidate::Serial(path) => RadioLine::Serial(path.display().to_string()),
        Candidate::Tcp { host, port } | Candidate::VirtualNode { host, port }
            if host.contains(':') =>
        {
            RadioLine::Tcp(format!("[{host}]:{port}"))
        }
        Candidate::Tcp { host, port } | Candidate::VirtualNode { host, port } => {
            RadioLine::Tcp(format!("{host}:{port}"))
        }
    }
}

/// Makes sure the database's folder exists and the user can write in it; returns a note for
/// the report. A folder it creates is the user's only (0700); the service's folder, made by
/// root, is 0750 and owned by the `meshai` user when that user exists, as systemd's
/// `StateDirectory=` would make it.
fn prepare_database(path: &Path, who: Who) -> Result<String, String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut note = String::new();
    if !dir.is_dir() {
        let service_dir = who == Who::Root && path == Path::new(daemons::SERVICE_DATABASE);
        note = create_dir(&dir, service_dir)
            .map_err(|e| format!("{e}; choose another place with --database FILE"))?;
    }
    let probe = dir.join(format!(".meshai-init-{}", std::process::id()));
    let writable = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map(|_| std::fs::remove_file(&probe));
    match writable {
        Ok(_) if path.exists() => Ok(format!("{note} (exists: kept, with what it remembers)")),
        Ok(_) => Ok(note),
        Err(e) => Err(format!(
            "cannot write in {}: {e}; choose another place with --database FILE, or make the \
             folder yours (`sudo chown $USER {}`)",
            dir.display(),
            dir.display()
        )),
    }
}

/// Creates `dir` (and its parents): for the service (`service`: root setting up the
/// service's folders) 0750 and given to the `meshai` user when it exists, as systemd's
/// `StateDirectory=` would make it; otherwise 0700, the user's only. Returns the note for the
/// report.
fn create_dir(dir: &Path, service: bool) -> Result<String, String> {
    use std::os::unix::fs::DirBuilderExt as _;
    let mode = if service { 0o750 } else { 0o700 };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(mode)
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    if service && let Some((uid, gid)) = service_ids() {
        std::os::unix::fs::chown(dir, Some(uid), Some(gid))
            .map_err(|e| format!("cannot give {} to the meshai user: {e}", dir.display()))?;
        return Ok(format!(
            " (created {}, mode {mode:o}, owner meshai)",
            dir.display()
        ));
    }
    Ok(format!(" (created {}, mode {mode:o})", dir.display()))
}

/// Makes sure the knowledge folder exists (created like the service's or the user's
/// database folder); returns a note for the report: what to put there.
fn prepare_knowledge(dir: &Path, who: Who, database: &Path) -> Result<String, String> {
    let hint = " — put .md and .txt files there (docs/knowledge.md)";
    if dir.is_dir() {
        return Ok(format!(" (exists: kept){hint}"));
    }
    let service = who == Who::Root && database == Path::new(daemons::SERVICE_DATABASE);
    let note = create_dir(dir, service)
        .map_err(|e| format!("{e}; name another folder with --knowledge DIR, or --no-knowledge"))?;
    Ok(format!("{note}{hint}"))
}

/// Writes the file: a new file only, or with `force` a temporary file renamed over the old
/// one, so a crash never leaves half a config.
fn write_config(path: &Path, text: &str, force: bool) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    if !force {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        return file.write_all(text.as_bytes());
    }
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".init-{}", std::process::id()));
    let tmp = path.with_file_name(name);
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// What to run next: plain `meshai check` and `meshai run` when they will find this file by
/// themselves, with `--config` otherwise; the binary by its path when no `meshai` is on
/// `PATH` (after `cargo run`), with how to put it there.
fn next_steps(output: &Path, env: Env<'_>) -> String {
    let found = locate::locate(None, env, &|p: &Path| p.exists()).ok();
    let same = found
        .and_then(|f| std::fs::canonicalize(f).ok())
        .zip(std::fs::canonicalize(output).ok())
        .is_some_and(|(a, b)| a == b);
    let on_path = env("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.join(env!("CARGO_PKG_NAME")).is_file())
    });
    let exe = std::env::current_exe().ok();
    let (bin, install) = match exe.as_deref() {
        Some(exe) if !on_path => (
            exe.display().to_string(),
            " (`cargo install --locked --path .` puts `meshai` on your PATH)",
        ),
        _ => (env!("CARGO_PKG_NAME").to_string(), ""),
    };
    if same {
        format!("`{bin} check`, then `{bin} run`{install}")
    } else {
        let config = output.display();
        format!("`{bin} check --config {config}`, then `{bin} run --config {config}`{install}")
    }
}
