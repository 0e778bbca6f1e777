//! The operator commands, run as the real binary: `meshai chat` through stdin, the admin
//! commands beside a running `meshai chat`, and `meshai check` against closed ports, a fake
//! LLM and bad configs.
//!
//! `mini_llm`, a minimal OpenAI-compatible responder, stands in for the LLM server;
//! `check_radio` runs `meshai check` against the simulated node; `check_held` runs it while a
//! daemon holds the node.

mod check_held;
mod check_radio;
mod init;
mod mini_llm;
mod trust;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mini_llm::{Answer, MiniLlm, last_user, mentions};

/// How long a test waits for one line of a running child's output.
const LINE_WAIT: Duration = Duration::from_secs(30);

/// A port on 127.0.0.1 that nothing listens on (bound, then released).
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A temp directory with a config file in it.
struct Setup {
    dir: tempfile::TempDir,
    config: PathBuf,
}

impl Setup {
    /// A config using `llm_url`, a closed radio port and a database at `database` (relative
    /// to the temp directory).
    fn new(llm_url: &str, database: &str) -> Setup {
        let radio = format!("tcp = \"127.0.0.1:{}\"", closed_port());
        Setup::with_radio(llm_url, database, &radio)
    }

    /// Like [`Setup::new`], with `radio` (a `tcp = …` or `serial = …` line) for the node.
    fn with_radio(llm_url: &str, database: &str, radio: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join(database);
        let text = format!(
            "[radio]\n{radio}\nhandshake_timeout_secs = 2\n\n\
             [llm]\nbase_url = \"{llm_url}\"\nmodel = \"test-model\"\ntimeout_secs = 10\n\n\
             [storage]\ndatabase = \"{}\"\n",
            db.display()
        );
        Setup::with_text(dir, &text)
    }

    fn with_text(dir: tempfile::TempDir, text: &str) -> Setup {
        let config = dir.path().join("config.toml");
        std::fs::write(&config, text).unwrap();
        Setup { dir, config }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("meshai.db")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_meshai"));
        cmd.args(args)
            .arg("--config")
            .arg(&self.config)
            .env_remove("MESHAI_CONFIG")
            .env_remove("MESHAI_API_KEY")
            .env_remove("RUST_LOG")
            .stdin(Stdio::null());
        cmd
    }

    fn run(&self, args: &[&str]) -> (bool, String) {
        let out = self.command(args).output().unwrap();
        (out.status.success(), stdout(&out))
    }

    /// Runs `meshai chat` with `input` on stdin and waits for it to end.
    fn chat(&self, input: &str) -> (bool, String) {
        self.chat_with(&["chat"], input)
    }

    /// Runs `meshai` with `args` (`chat` and its flags) and `input` on stdin.
    fn chat_with(&self, args: &[&str], input: &str) -> (bool, String) {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (out.status.success(), stdout(&out))
    }
}

fn stdout(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!(
        "stdout:\n{text}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The packet lines of a chat transcript: `(i, n, chars, text)`.
fn packets(transcript: &str) -> Vec<(usize, usize, usize, String)> {
    transcript
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix('[')?;
            let (head, text) = rest.split_once("] ")?;
            let mut words = head.split_whitespace();
            let (i, n) = words.next()?.split_once('/')?;
            let chars = words.next()?.parse().ok()?;
            Some((i.parse().ok()?, n.parse().ok()?, chars, text.to_string()))
        })
        .collect()
}

const LORA: &str = "LoRa is a long-range, low-power radio modulation. It trades speed for reach: \
a few hundred bytes per second can cross many kilometres. Meshtastic uses it to relay short \
text messages from node to node without any phone network. Every hop repeats the packet, so \
airtime is shared and precious.";

#[test]
fn chat_splits_long_answers_and_remembers_earlier_lines() {
    let llm = MiniLlm::start(|req| match last_user(req).as_str() {
        "tell me about lora" => Answer::Text(LORA.into()),
        _ => Answer::Text("You asked me about LoRa.".into()),
    });
    let setup = Setup::new(&llm.url, "meshai.db");
    let (ok, out) = setup.chat("tell me about lora\n\nwhat did I ask?\n");
    assert!(ok, "chat should end with exit 0 at EOF");

    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first(), Some(&"> tell me about lora"));
    let parts = packets(&out);
    let first: Vec<_> = parts.iter().filter(|p| p.1 > 1).collect();
    assert!(
        first.len() >= 2,
        "a long answer comes in several parts: {parts:?}"
    );
    for (k, (i, n, chars, text)) in first.iter().enumerate() {
        assert_eq!(*i, k + 1);
        assert!(text.ends_with(&format!(" {i}/{n}")), "{text:?}");
        assert!(*chars <= 150 && text.chars().count() == *chars, "{text:?}");
    }
    assert!(
        out.contains("+2.0 s] "),
        "the second part is paced 2 s later"
    );
    assert!(out.contains("> what did I ask?\n[1/1"));
    assert!(out.contains("] You asked me about LoRa."));

    let requests = llm.requests();
    assert_eq!(requests.len(), 2, "the blank line is not a message");
    assert!(
        mentions(&requests[1], "tell me about lora"),
        "memory: {:?}",
        requests[1]
    );
    assert!(
        mentions(&requests[1], "long-range"),
        "the earlier answer is remembered too"
    );
    assert_eq!(requests[0]["model"], "test-model");
}

#[test]
fn chat_answers_commands_without_the_llm() {
    let llm = MiniLlm::start(|_| Answer::Text("unused".into()));
    let setup = Setup::new(&llm.url, "meshai.db");
    let (ok, out) = setup.chat("!help\n!status\n!summary\n");
    assert!(ok);
    assert!(out.contains("] Ask me anything."), "{out}");
    assert!(
        out.contains("radio none (meshai chat), model test-model"),
        "{out}"
    );
    assert!(
        out.contains("I don't remember anything about you yet."),
        "{out}"
    );
    assert!(llm.requests().is_empty());
}

/// Issue 36: with no radio, an empty view's "unknown" facts still let a small model invent a
/// channel reading ("58.5 %") or who is around; chat says it has no radio, without the model,
/// and everyday questions still go to it.
#[test]
fn chat_says_it_has_no_radio_when_asked_about_the_mesh() {
    let llm = MiniLlm::start(|_| Answer::Text("The channel utilization is 58.5 %.".into()));
    let setup = Setup::new(&llm.url, "meshai.db");
    let (ok, out) = setup.chat(
        "what is the channel utilization?\nwho is around?\nIs the Hilltop Relay up?\nwhat \
         is LoRa?\n",
    );
    assert!(ok, "{out}");
    let texts: Vec<String> = packets(&out).into_iter().map(|p| p.3).collect();
    let none = "No radio here (meshai chat): I know nothing of the mesh.";
    assert_eq!(texts.iter().filter(|t| *t == none).count(), 3, "{out}");
    assert_eq!(llm.requests().len(), 1, "only the everyday question: {out}");
    assert!(texts.last().is_some_and(|t| t.contains("58.5")), "{out}");
    // In the asker's language (another node, its own conversation).
    let (ok, out) = setup.chat_with(
        &["chat", "--as", "!0000beef"],
        "Wie hoch ist die Auslastung des Kanals heute Abend?\n",
    );
    assert!(ok, "{out}");
    assert!(
        out.contains("] Hier gibt es kein Funkgerät (meshai chat): Über das Mesh weiß ich nichts."),
        "{out}"
    );
    assert_eq!(llm.requests().len(), 1, "{out}");
}

/// Issue 38, as a newcomer meets it: a knowledge folder set in the config and never indexed
/// by the daemon is indexed by `meshai chat` before its first line (it was left unused, and
/// the model made up the club wifi's password). A place a node word names ("the fire
/// station where we meet") is the documents', not "no radio here".
#[test]
fn chat_answers_from_a_folder_the_daemon_never_indexed() {
    let llm = MiniLlm::start(|_| Answer::Text("On the first Tuesday of every month.".into()));
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("knowledge");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(
        docs.join("club.md"),
        "# Ashby Radio Club\n\nClub nights are on the first Tuesday of every month at the Old \
         Fire Station, Mill Lane. The club station is in the radio room at the fire station.\n",
    )
    .unwrap();
    let text = format!(
        "[radio]\ntcp = \"127.0.0.1:{}\"\n\n[llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\n\
         timeout_secs = 10\n\n[storage]\ndatabase = \"{}\"\n\n[knowledge]\ndir = \"{}\"\n",
        closed_port(),
        llm.url,
        dir.path().join("meshai.db").display(),
        docs.display()
    );
    let setup = Setup::with_text(dir, &text);
    let (ok, out) = setup.chat(
        "What is the password of the club wifi?\nWhat is the postcode of the fire station \
         where we meet?\nWhen are the club nights?\n",
    );
    assert!(ok, "{out}");
    assert!(
        out.contains("1 files (1 new"),
        "the folder is indexed first: {out}"
    );
    let texts: Vec<String> = packets(&out).into_iter().map(|p| p.3).collect();
    assert_eq!(
        texts,
        [
            "Not in my notes.",
            "Not in my notes.",
            "On the first Tuesday of every month."
        ],
        "{out}"
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 1, "only the club nights: {out}");
    assert!(
        requests[0].to_string().contains("Old Fire Station"),
        "the model got the passage: {}",
        requests[0]
    );
    // Indexed once: the second chat finds nothing changed and says nothing of it.
    let (ok, out) = setup.chat("When are the club nights?\n");
    assert!(ok, "{out}");
    assert!(!out.contains("indexed"), "{out}");
}

/// A running `meshai chat` child whose stdout lines arrive on a channel.
struct RunningChat {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl RunningChat {
    fn start(setup: &Setup) -> RunningChat {
        let mut child = setup
            .command(&["chat"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        RunningChat {
            child,
            stdin,
            lines,
        }
    }

    /// Sends a line and returns the last packet line of its reply.
    fn say(&mut self, text: &str) -> String {
        writeln!(self.stdin, "{text}").unwrap();
        loop {
            let line = self.lines.recv_timeout(LINE_WAIT).expect("a reply line");
            if line.starts_with('[') && packets(&line).first().is_some_and(|p| p.0 == p.1) {
                return line;
            }
        }
    }

    fn finish(self) -> bool {
        drop(self.stdin);
        let mut child = self.child;
        child.wait().unwrap().success()
    }
}

#[test]
fn admin_commands_work_while_chat_has_the_database_open() {
    let llm = MiniLlm::start(|req| Answer::Text(format!("heard: {}", last_user(req))));
    let setup = Setup::new(&llm.url, "meshai.db");
    let mut chat = RunningChat::start(&setup);
    assert!(
        chat.say("hello from the field")
            .contains("heard: hello from the field")
    );

    let (ok, out) = setup.run(&["history", "!00c0ffee"]);
    assert!(ok);
    assert!(
        out.contains("history of !00c0ffee: last 2 messages"),
        "{out}"
    );
    assert!(out.contains("summary: none yet"));
    assert!(out.contains("  user       hello from the field\n"));
    assert!(out.contains("  assistant  heard: hello from the field\n"));

    let (ok, out) = setup.run(&["history", "0xc0ffee", "--limit", "1"]);
    assert!(ok);
    assert!(
        out.contains("last 1 messages") && !out.contains("  user  "),
        "{out}"
    );

    let (ok, out) = setup.run(&["stats"]);
    assert!(ok);
    let row = out
        .lines()
        .find(|l| l.starts_with("!00c0ffee"))
        .expect("a row for the node");
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols.first(), Some(&"!00c0ffee"));
    // messages, summary chars, llm calls, prompt tokens, completion tokens
    assert_eq!(cols[1], "2", "{row}");
    assert_eq!(cols[cols.len() - 4..], ["0", "1", "10", "5"], "{row}");

    let (ok, out) = setup.run(&["forget", "12648430"]);
    assert!(ok);
    assert_eq!(out, "forgot !00c0ffee: 2 messages and no summary\n");
    let (ok, out) = setup.run(&["history", "!00c0ffee"]);
    assert!(ok);
    assert_eq!(out, "nothing stored for !00c0ffee\n");

    // The running chat sees the reset: its next prompt carries no old message.
    assert!(chat.say("anything new?").contains("heard: anything new?"));
    let last = llm.requests().pop().unwrap();
    assert!(!mentions(&last, "hello from the field"), "{last}");
    assert!(chat.finish(), "chat ends with exit 0 at EOF");
}

#[test]
fn admin_commands_on_unknown_nodes_and_bad_input() {
    let setup = Setup::new("http://127.0.0.1:1/v1", "meshai.db");
    let (ok, out) = setup.run(&["stats"]);
    assert!(ok);
    assert!(
        out.starts_with("no database at "),
        "never creates one: {out}"
    );
    assert!(!setup.db().exists());

    let llm = MiniLlm::start(|_| Answer::Text("ok".into()));
    let setup = Setup::new(&llm.url, "meshai.db");
    assert!(setup.chat("hi\n").0);
    let (ok, out) = setup.run(&["history", "!a1b2c3d4"]);
    assert!(ok, "an unknown node is not an error");
    assert_eq!(out, "nothing stored for !a1b2c3d4\n");
    let (ok, out) = setup.run(&["forget", "a1b2c3d4"]);
    assert!(ok);
    assert_eq!(out, "nothing stored for !a1b2c3d4\n");
    let (ok, out) = setup.run(&["trust", "a1b2c3d4"]);
    assert!(ok);
    assert_eq!(
        out,
        "!a1b2c3d4 has never sent an encrypted (PKI) DM: no key to trust\n"
    );
    for bad in ["!zz", "!123456789", "-1"] {
        let (ok, _) = setup.run(&["history", bad]);
        assert!(!ok, "{bad} is not a node id");
        let (ok, _) = setup.run(&["forget", bad]);
        assert!(!ok, "{bad} is not a node id");
        let (ok, _) = setup.run(&["trust", bad]);
        assert!(!ok, "{bad} is not a node id");
    }
}

/// The `✓`/`✗` lines of a check report and the advice lines under them.
fn marked(out: &str, prefix: &str) -> Option<(String, Option<String>)> {
    let mut lines = out.lines();
    while let Some(line) = lines.next() {
        if line.starts_with(prefix) {
            let advice = lines
                .next()
                .and_then(|l| l.strip_prefix("  → "))
                .map(str::to_string);
            return Some((line.to_string(), advice));
        }
    }
    None
}

#[test]
fn run_with_a_missing_database_directory_says_how_to_create_it() {
    // The daemon returns the store's error; the command line adds `meshai check`'s advice.
    let setup = Setup::new("http://127.0.0.1:9/v1", "missing/meshai.db");
    let out = setup.command(&["run"]).output().unwrap();
    assert!(!out.status.success(), "the daemon cannot start");
    let err = String::from_utf8_lossy(&out.stderr);
    let dir = setup.dir.path().join("missing");
    let want = format!(
        "directory {} does not exist → create it: `mkdir -p {}`",
        dir.display(),
        dir.display()
    );
    assert!(err.contains(&want), "{err}");
}

#[test]
fn check_with_nothing_running_explains_each_failure() {
    let llm_url = format!("http://127.0.0.1:{}/v1", closed_port());
    let setup = Setup::new(&llm_url, "missing/meshai.db");
    let (ok, out) = setup.run(&["check"]);
    assert!(!ok, "failures give a non-zero exit");
    let (line, _) = marked(&out, "✓ config ").expect("config line");
    assert!(
        line.contains("(tcp 127.0.0.1:") && line.contains("model test-model)"),
        "{line}"
    );

    let (line, advice) = marked(&out, "✗ database").expect("database line");
    assert!(line.contains("does not exist"), "{line}");
    assert!(advice.unwrap().contains("StateDirectory="));

    let (line, advice) = marked(&out, "✗ llm ").expect("llm line");
    assert!(
        line.starts_with(&format!("✗ llm {llm_url} model test-model: ")),
        "{line}"
    );
    assert_eq!(
        advice.as_deref(),
        Some(format!("is the server running at {llm_url}?").as_str())
    );
}

#[test]
fn check_reports_a_refused_radio_connection() {
    let llm = MiniLlm::start(|_| Answer::Text("pong".into()));
    let setup = Setup::new(&llm.url, "meshai.db");
    let (ok, out) = setup.run(&["check"]);
    assert!(!ok);
    assert!(marked(&out, "✓ llm ").is_some(), "{out}");
    let (line, advice) = marked(&out, "✗ radio tcp 127.0.0.1:").expect("radio line");
    assert!(line.to_lowercase().contains("refused"), "{line}");
    assert!(advice.unwrap().contains("WiFi/TCP API"));
}

#[test]
fn check_llm_answers_and_http_errors() {
    let llm = MiniLlm::start(|_| Answer::Text("p".into()));
    let setup = Setup::new(&llm.url, "meshai.db");
    let (_, out) = setup.run(&["check"]);
    let (line, _) = marked(&out, "✓ database ").expect("database line");
    assert!(line.ends_with("meshai.db (0 nodes, 0 messages)"), "{line}");
    let (line, _) = marked(&out, "✓ llm ").expect("llm line");
    assert!(line.starts_with(&format!("✓ llm {} model test-model answered in ", llm.url)));
    assert!(line.ends_with(" ms"), "{line}");
    let requests = llm.requests();
    assert_eq!(requests[0]["max_tokens"], 1);
    assert_eq!(last_user(&requests[0]), "ping");

    for (status, want) in [
        (404, "`ollama pull test-model`"),
        (401, "set the API key in $MESHAI_API_KEY"),
    ] {
        let llm = MiniLlm::start(move |_| Answer::Status(status));
        let setup = Setup::new(&llm.url, "meshai.db");
        let (ok, out) = setup.run(&["check"]);
        assert!(!ok);
        let (line, advice) = marked(&out, "✗ llm ").expect("llm line");
        assert!(line.contains(&format!("http {status}")), "{line}");
        assert!(advice.unwrap().contains(want));
    }
}

/// Every `[[llm.fallback]]` gets its own line: one answering, one down.
#[test]
fn check_checks_every_fallback() {
    let primary = MiniLlm::start(|_| Answer::Text("p".into()));
    let fallback = MiniLlm::start(|_| Answer::Text("f".into()));
    let down = format!("http://127.0.0.1:{}/v1", closed_port());
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[radio]\ntcp = \"127.0.0.1:{}\"\nhandshake_timeout_secs = 2\n\n\
         [llm]\nbase_url = \"{}\"\nmodel = \"test-model\"\ntimeout_secs = 10\n\n\
         [[llm.fallback]]\nbase_url = \"{}\"\nmodel = \"fb-one\"\n\n\
         [[llm.fallback]]\nbase_url = \"{down}\"\nmodel = \"fb-two\"\n\n\
         [storage]\ndatabase = \"{}\"\n",
        closed_port(),
        primary.url,
        fallback.url,
        dir.path().join("meshai.db").display()
    );
    let setup = Setup::with_text(dir, &text);
    let (ok, out) = setup.run(&["check"]);
    assert!(!ok, "a fallback that is down fails the check");
    let (line, _) = marked(&out, "✓ llm http").expect("primary line");
    assert!(line.contains("model test-model answered in "), "{line}");
    let (line, _) = marked(&out, "✓ llm fallback 1 ").expect("fallback 1 line");
    assert!(
        line.starts_with(&format!(
            "✓ llm fallback 1 {} model fb-one answered in ",
            fallback.url
        )),
        "{line}"
    );
    let (line, advice) = marked(&out, "✗ llm fallback 2 ").expect("fallback 2 line");
    assert!(
        line.starts_with(&format!("✗ llm fallback 2 {down} model fb-two: ")),
        "{line}"
    );
    assert_eq!(
        advice.as_deref(),
        Some(format!("is the server running at {down}?").as_str())
    );
    assert_eq!(last_user(&fallback.requests()[0]), "ping");
}

#[test]
fn check_with_a_bad_config_stops_at_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup::with_text(dir, "[radio]\ntcp = \"127.0.0.1:4403\"\nbogus = 1\n");
    let (ok, out) = setup.run(&["check"]);
    assert!(!ok);
    let path = setup.config.display().to_string();
    assert!(
        out.starts_with(&format!("✗ config: {path} line 3: ")),
        "{out}"
    );
    assert!(out.contains("bogus"));
    assert_eq!(out.lines().count(), 1, "nothing else can be checked");

    let missing = Setup::with_text(tempfile::tempdir().unwrap(), "");
    let gone = missing.dir.path().join("nope.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_meshai"))
        .args(["check", "--config"])
        .arg(&gone)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stdout(&out).starts_with(&format!(
        "✗ config: cannot read config file {}",
        gone.display()
    )));
}

#[test]
fn check_prints_config_warnings() {
    let llm = MiniLlm::start(|_| Answer::Text("p".into()));
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[radio]\ntcp = \"127.0.0.1:{}\"\nsend_gap_ms = 500\n\n[llm]\nbase_url = \"{}\"\n\n\
         [storage]\ndatabase = \"{}\"\n",
        closed_port(),
        llm.url,
        dir.path().join("meshai.db").display()
    );
    let setup = Setup::with_text(dir, &text);
    let (_, out) = setup.run(&["check"]);
    assert!(
        out.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("! warning: ") && l.contains("send_gap_ms")),
        "{out}"
    );
}

/// Unix seconds now.
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test]
async fn forget_older_than_expires_by_hand() {
    use meshai::node::NodeId;
    use meshai::store::Store;
    let setup = Setup::new("http://127.0.0.1:1/v1", "meshai.db");
    let store = Store::open(&setup.db()).unwrap();
    let day = 86_400;
    let (silent, talking) = (NodeId(0x51), NodeId(0x52));
    store
        .touch_node(silent, None, None, now() - 40 * day)
        .await
        .unwrap();
    let u = store
        .append_user(silent, "old".into(), now() - 40 * day)
        .await
        .unwrap();
    store
        .append_reply(silent, u, "reply".into(), now() - 40 * day, None)
        .await
        .unwrap();
    store.touch_node(talking, None, None, now()).await.unwrap();
    store
        .append_user(talking, "new".into(), now())
        .await
        .unwrap();
    store.close().await.unwrap();

    let (ok, out) = setup.run(&["forget", "--older-than", "30"]);
    assert!(ok);
    assert_eq!(
        out,
        "forgot 2 messages (1 exchange) older than 30 days and 1 node silent for longer\n"
    );
    let (_, out) = setup.run(&["history", "!00000051"]);
    assert_eq!(out, "nothing stored for !00000051\n");
    let (_, out) = setup.run(&["history", "!00000052"]);
    assert!(out.contains("  user       new\n"), "{out}");
    let (ok, out) = setup.run(&["forget", "--older-than", "30"]);
    assert!(ok);
    assert_eq!(out, "nothing older than 30 days to forget\n");
    for bad in [
        &["forget"][..],
        &["forget", "--older-than", "0"],
        &["forget", "!51", "--older-than", "3"],
    ] {
        let (ok, _) = setup.run(bad);
        assert!(!ok, "{bad:?} is refused");
    }
}

/// Reads one line of `meshai ARGS`'s stdout, closes the pipe and checks the command ends
/// quietly: exit 0 or SIGPIPE, never an abort or a panic.
fn ends_quietly_when_the_reader_goes(setup: &Setup, args: &[&str]) {
    use std::os::unix::process::ExitStatusExt as _;
    let mut child = setup
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(!first.is_empty(), "{args:?} printed nothing");
    drop(reader);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() || out.status.signal() == Some(13),
        "{args:?}: {:?}\n{stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "quietly: {stderr}");
}

#[test]
fn check_and_stats_end_quietly_when_the_reader_goes() {
    // check: its later lines come after the reader has gone.
    let setup = Setup::new(
        &format!("http://127.0.0.1:{}/v1", closed_port()),
        "meshai.db",
    );
    ends_quietly_when_the_reader_goes(&setup, &["check"]);

    // stats: a table far larger than a pipe's 64 KiB buffer, so the write is still going on
    // when the reader closes.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let store = meshai::store::Store::open(&setup.db()).unwrap();
        store.close().await.unwrap();
    });
    let mut db = rusqlite::Connection::open(setup.db()).unwrap();
    let tx = db.transaction().unwrap();
    for n in 1..4000 {
        tx.execute(
            "INSERT INTO nodes(node, long_name, last_seen) VALUES (?1, 'A node with a long name', ?2)",
            (n, now()),
        )
        .unwrap();
    }
    tx.commit().unwrap();
    drop(db);
    ends_quietly_when_the_reader_goes(&setup, &["stats"]);
}
