//! The `meshai` command line: parses arguments, sets up logging and signals, then calls into
//! the library (`meshai::run` for the daemon, `meshai::cli` for the operator commands).

#![forbid(unsafe_code)]

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use meshai::cli::{admin, advice, chat, check, init, is_broken_pipe, knowledge};
use meshai::config::{Config, ConfigError};
use meshai::knowledge::Reindex;
use meshai::node::{NodeId, PublicKey};
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

#[derive(Parser)]
#[command(
    name = "meshai",
    version,
    about = "An AI you can text over a Meshtastic LoRa mesh"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The config file option every command shares.
#[derive(Args)]
struct ConfigArg {
    /// Config file [default: $MESHAI_CONFIG, else the first of ./meshai.toml,
    /// ~/.config/meshai/config.toml, /etc/meshai/config.toml]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

impl ConfigArg {
    /// The file to read: `--config`, `$MESHAI_CONFIG` or the first that exists of the rest.
    fn locate(&self) -> Result<PathBuf, ConfigError> {
        meshai::config::locate::locate(
            self.config.as_deref(),
            &|name| std::env::var_os(name),
            &|path| path.exists(),
        )
    }
}

#[derive(Subcommand)]
enum Command {
    /// Write a config for this machine: find the node, the LLM server and a database folder.
    ///
    /// Looks for the node on USB serial, on 127.0.0.1:4403 and for a multi-client proxy's
    /// virtual node on 127.0.0.1:4404 (confirmed by a handshake; a port in use, or a TCP node
    /// a running meshai uses, is never touched), for Ollama, llama.cpp's server and LM Studio on
    /// their default ports, and picks an installed model. Writes nothing, exit 1, when there
    /// is no node or more than one, or no LLM server with a chat model.
    Init(init::InitArgs),
    /// Run the daemon: answer DMs that reach the node.
    Run {
        #[command(flatten)]
        config: ConfigArg,
    },
    /// Check the config, the database, the LLM server and the radio; exit 1 if any fails.
    ///
    /// While `meshai run` holds the node, the radio line is its state, read from its status
    /// file beside the database: the check never takes the node from the daemon.
    Check {
        #[command(flatten)]
        config: ConfigArg,
        /// Open a TCP node even when a running meshai may hold it but its state cannot be
        /// read here (the node then drops the daemon's link for a moment).
        #[arg(long)]
        connect: bool,
    },
    /// Talk to the bot from the terminal, no radio: each input line is a DM.
    ///
    /// Uses the same database, LLM, commands and chunker as the daemon and prints the reply
    /// packets as they would go on air; the per-node rate limit does not apply.
    Chat {
        #[command(flatten)]
        config: ConfigArg,
        /// The node the messages come from: !a1b2c3d4, hex or decimal.
        #[arg(long = "as", default_value_t = chat::DEFAULT_FROM)]
        from: NodeId,
    },
    /// Show a node's last messages and summary.
    History {
        /// The node: !a1b2c3d4, hex or decimal.
        node: NodeId,
        #[command(flatten)]
        config: ConfigArg,
        /// How many messages.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Forget a node's messages and summary (like its !reset; a new key it was seen with is
    /// accepted), or everything older than some days (like `[storage] retain_days`).
    Forget {
        /// The node: !a1b2c3d4, hex or decimal.
        #[arg(required_unless_present = "older_than", conflicts_with = "older_than")]
        node: Option<NodeId>,
        /// Instead of one node: delete messages older than DAYS that are in their node's
        /// summary, and forget nodes silent for longer.
        #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(1..))]
        older_than: Option<u32>,
        /// NODE is an old number of a renumbered node: forget the node it became.
        #[arg(long, conflicts_with = "older_than")]
        follow: bool,
        #[command(flatten)]
        config: ConfigArg,
    },
    /// Accept the new public key a node's encrypted (PKI) DMs came with: it keeps its memory.
    ///
    /// meshai pins the key of a node's first PKI DM; a DM with another key is answered
    /// without the node's memory (and logged) until you run this, or `meshai forget`, which
    /// drops the memory and accepts the key too.
    ///
    /// It shows the new key and asks before pinning it: compare it first with the key the
    /// user's app shows, over another way than the mesh (docs/security.md). `--key` pins
    /// exactly the key you compared, and refuses if the node's new key is another one.
    Trust {
        /// The node: !a1b2c3d4, hex or decimal.
        node: NodeId,
        /// The key you compared with the user's app (base64, as the apps show it): pinned
        /// only if it is the node's new key.
        #[arg(long, value_name = "BASE64")]
        key: Option<PublicKey>,
        /// Pin the new key shown without asking (for scripts; `--key` is safer).
        #[arg(long, short = 'y')]
        yes: bool,
        /// NODE is an old number of a renumbered node: act on the node it became.
        #[arg(long)]
        follow: bool,
        #[command(flatten)]
        config: ConfigArg,
    },
    /// A table of every node: messages, last seen, summary size, LLM calls and tokens.
    Stats {
        #[command(flatten)]
        config: ConfigArg,
    },
    /// The messages left with `!tell` that wait for their recipient: who left each for whom,
    /// when, until when, the tries and the text; `--cancel ID` deletes one (its sender is not
    /// told).
    Mail {
        /// Delete the waiting message with this id.
        #[arg(long, value_name = "ID")]
        cancel: Option<i64>,
        #[command(flatten)]
        config: ConfigArg,
    },
    /// The knowledge folder (`[knowledge] dir`): what is indexed, what a question finds,
    /// reindexing. Works whether or not the daemon runs.
    Knowledge {
        #[command(subcommand)]
        command: KnowledgeCommand,
    },
}

#[derive(Subcommand)]
enum KnowledgeCommand {
    /// Every file of the folder as indexed: its passages, private or not, skipped ones and why.
    List {
        #[command(flatten)]
        config: ConfigArg,
    },
    /// The passages a question would bring, with their scores, in the order the prompt gets
    /// them, and the ones left out and why.
    Search {
        /// The question, as a user would send it.
        query: String,
        /// Search as a channel mention would: public passages only.
        #[arg(long)]
        public: bool,
        /// The asker's message before this one, for a short follow-up ("And where?").
        #[arg(long, value_name = "TEXT")]
        previous: Option<String>,
        #[command(flatten)]
        config: ConfigArg,
    },
    /// Index new, changed and removed files now (the daemon also does on start and on
    /// `systemctl reload meshai`); the running daemon uses the result from its next message.
    Reindex {
        #[command(flatten)]
        config: ConfigArg,
    },
}

/// Logs to stderr (stdout is the operator commands' output); `default` applies unless
/// `RUST_LOG` is set.
fn init_logging(default: &str) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    // Under systemd, journald stamps time and does not want colours.
    let journald = std::env::var_os("JOURNAL_STREAM").is_some();
    let ansi = !journald && std::io::stderr().is_terminal();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stderr)
        .with_ansi(ansi);
    if journald {
        builder.without_time().init();
    } else {
        builder.init();
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The daemon logs its life; the operator commands only what went wrong, since their
    // output is the point.
    init_logging(match cli.command {
        Command::Run { .. } => "info",
        Command::Check { .. } | Command::Init(_) => "error",
        _ => "warn",
    });
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            error!("cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(dispatch(cli.command));
    // Dropping the runtime would wait for every blocking task, however long: a read of the
    // knowledge folder stuck on a hung network mount would hold the exit. `run` has drained
    // what matters (sends, the database) by now.
    runtime.shutdown_timeout(EXIT_WAIT);
    code
}

/// Runs one command to its exit code.
async fn dispatch(command: Command) -> ExitCode {
    let env = |name: &str| std::env::var_os(name);
    match command {
        Command::Init(args) => match init::run(&args, &env, &mut std::io::stdout()).await {
            Ok(written) => passed(written),
            Err(e) => report(Err(e)),
        },
        Command::Run { config } => run(&config).await,
        Command::Check { config, connect } => {
            let options = check::Options { connect };
            match check::run(config.locate(), options, &env, &mut std::io::stdout()).await {
                Ok(all) => passed(all),
                Err(e) => report(Err(anyhow::Error::new(e).context("cannot write the report"))),
            }
        }
        Command::Chat { config, from } => chat_command(&config, from).await,
        Command::History {
            node,
            config,
            limit,
        } => match load(&config) {
            Some(c) => report(admin::history(&c, node, limit, &mut std::io::stdout()).await),
            None => ExitCode::FAILURE,
        },
        Command::Forget {
            node,
            older_than,
            follow,
            config,
        } => forget_command(&config, node, older_than, follow).await,
        Command::Trust {
            node,
            key,
            yes,
            follow,
            config,
        } => match load(&config) {
            Some(c) => trust_command(&c, node, admin::TrustOptions { key, yes, follow }).await,
            None => ExitCode::FAILURE,
        },
        Command::Stats { config } => match load(&config) {
            Some(c) => report(admin::stats(&c, &mut std::io::stdout()).await),
            None => ExitCode::FAILURE,
        },
        Command::Mail { cancel, config } => match load(&config) {
            Some(c) => report(admin::mail(&c, cancel, &mut std::io::stdout()).await),
            None => ExitCode::FAILURE,
        },
        Command::Knowledge { command } => knowledge_command(command).await,
    }
}

/// `meshai chat`: the console conversation, reading standard input.
async fn chat_command(config: &ConfigArg, from: NodeId) -> ExitCode {
    let Some(config) = load(config) else {
        return ExitCode::FAILURE;
    };
    let opts = chat::ChatOptions {
        from,
        interactive: std::io::stdin().is_terminal(),
        ..chat::ChatOptions::default()
    };
    let input = match stdin() {
        Ok(file) => tokio::io::BufReader::new(file),
        Err(e) => {
            error!("cannot read stdin: {e}");
            return ExitCode::FAILURE;
        }
    };
    report(chat::run(config, opts, input, &mut std::io::stdout()).await)
}

/// `meshai forget`: one node (`--follow` to the number it became), or everything older than
/// some days.
async fn forget_command(
    config: &ConfigArg,
    node: Option<NodeId>,
    older_than: Option<u32>,
    follow: bool,
) -> ExitCode {
    let out = &mut std::io::stdout();
    match (load(config), node, older_than) {
        (Some(c), Some(node), _) => report(admin::forget(&c, node, follow, out).await),
        (Some(c), None, Some(days)) => {
            report(admin::forget_older_than(&c, days, meshai::clock::unix_now(), out).await)
        }
        _ => ExitCode::FAILURE,
    }
}

/// `meshai trust`: asks on the terminal before pinning, unless told `--yes`.
async fn trust_command(config: &Config, node: NodeId, options: admin::TrustOptions) -> ExitCode {
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let mut lines = stdin.lock();
    let answer: Option<&mut dyn std::io::BufRead> = interactive.then_some(&mut lines);
    report(admin::trust(config, node, &options, answer, &mut std::io::stdout()).await)
}

/// How long the exit waits for blocking tasks still running once the command is done.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// Runs a `meshai knowledge` command.
async fn knowledge_command(command: KnowledgeCommand) -> ExitCode {
    let out = &mut std::io::stdout();
    match command {
        KnowledgeCommand::List { config } => match load(&config) {
            Some(c) => report(knowledge::list(&c, out).await),
            None => ExitCode::FAILURE,
        },
        KnowledgeCommand::Search {
            query,
            public,
            previous,
            config,
        } => match load(&config) {
            Some(c) => {
                let options = knowledge::SearchOptions { public, previous };
                report(knowledge::search(&c, &query, &options, out).await)
            }
            None => ExitCode::FAILURE,
        },
        KnowledgeCommand::Reindex { config } => match load(&config) {
            Some(c) => report(knowledge::reindex(&c, out).await),
            None => ExitCode::FAILURE,
        },
    }
}

/// Stdin for async reading: a `tokio::fs::File` on a copy of fd 0 reads it on the blocking
/// pool, which works for pipes and terminals alike.
fn stdin() -> std::io::Result<tokio::fs::File> {
    use std::os::fd::AsFd as _;
    let fd = std::io::stdin().as_fd().try_clone_to_owned()?;
    Ok(tokio::fs::File::from_std(std::fs::File::from(fd)))
}

/// Finds and reads the config, logging its warnings; `None` (after logging why) when there is
/// none or it is unusable.
fn load(arg: &ConfigArg) -> Option<Config> {
    let path = match arg.locate() {
        Ok(path) => path,
        Err(e) => {
            error!("{e}");
            return None;
        }
    };
    match meshai::config::load(&path) {
        Ok((config, warnings)) => {
            for w in warnings {
                warn!("{w}");
            }
            Some(config)
        }
        Err(e) => {
            error!("{e}");
            None
        }
    }
}

/// The exit code of an operator command; its error goes to stderr. A reader that went away
/// (`meshai stats | head -1`) ends the command quietly with success, as `ls | head` ends:
/// the Rust runtime ignores SIGPIPE, so the write fails with EPIPE and lands here instead of
/// killing the process (the daemon relies on that for its sockets, so SIGPIPE stays ignored).
fn report(result: anyhow::Result<()>) -> ExitCode {
    let flushed = std::io::stdout().flush();
    match result.and(flushed.map_err(anyhow::Error::new)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The exit code of a command that reports pass or fail on stdout.
fn passed(ok: bool) -> ExitCode {
    match report(Ok(())) {
        code if ok => code,
        _ => ExitCode::FAILURE,
    }
}

async fn run(arg: &ConfigArg) -> ExitCode {
    let Some(config) = load(arg) else {
        return ExitCode::FAILURE;
    };
    let shutdown = CancellationToken::new();
    let reindex = config.knowledge.dir.is_some().then(Reindex::default);
    tokio::spawn(signals(shutdown.clone(), reindex.clone()));
    // The file the failing setting came from: a user may not know which one was found.
    let origin = config.origin.clone();
    match meshai::run_with(config, shutdown, reindex.unwrap_or_default()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            error!(config = %origin, "{}", advice::run_error(&e));
            ExitCode::FAILURE
        }
    }
}

/// Cancels `shutdown` on SIGTERM or SIGINT; asks for a reindex of the knowledge folder on
/// SIGHUP (`systemctl reload meshai`), or says there is none. SIGHUP never ends the daemon.
async fn signals(shutdown: CancellationToken, reindex: Option<Reindex>) {
    use tokio::signal::unix::{SignalKind, signal};
    let (mut term, mut int, mut hup) = match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) {
        (Ok(t), Ok(i), Ok(h)) => (t, i, h),
        _ => {
            error!("cannot install signal handlers");
            return;
        }
    };
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = hup.recv() => match &reindex {
                Some(reindex) => {
                    info!("SIGHUP: reindexing the knowledge folder");
                    reindex.request();
                }
                None => info!(
                    "SIGHUP: no [knowledge] dir to reindex; the config is read only at start \
                     (restart meshai to change it)"
                ),
            },
        }
    }
    shutdown.cancel();
}
