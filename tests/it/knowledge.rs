//! The knowledge folder through the daemon: a changed file is reindexed and its new fact
//! reaches the prompt, a deleted file's passages are gone, private passages reach only a
//! listed node's PKI DMs (never a mention, never a DM from another node or without PKI), and
//! the binary: a broken file is skipped with one log line, SIGHUP reindexes without ending
//! the daemon, and `meshai knowledge reindex | list | search`; `meaning`: passages found by
//! meaning with `[knowledge.embeddings]`; `recall`: what the search finds in eight languages.

mod links;
mod meaning;
mod recall;

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use meshai::knowledge::DEFAULT_ABOUT;
use meshai::knowledge::render::{NOTES_INTRO, no_notes, system_hint};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::harness::{Daemon, SOON, config_text, replies, sim_config};
use crate::support::fake_llm::{FakeLlm, FakeRequest};
use crate::support::sim_node::{BROADCAST, MeshPacketSpec, SimNode};
use crate::trust::{ask_with, joined, said, stored};

const MEMBER: u32 = 0x4b00_0001;
const PLAIN_MEMBER: u32 = 0x4b00_0002;
const STRANGER: u32 = 0x4b00_0003;
const USER: u32 = 0x4b00_0004;
const KEY: [u8; 32] = [0x33; 32];
const STRANGER_KEY: [u8; 32] = [0x44; 32];

fn write(dir: &Path, rel: &str, text: &[u8]) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write a document");
}

/// The club's wifi: the password in `private/wifi.md` (Harrier-77), the guest network in
/// `guests.md` (KVARC-Guest).
fn wifi_notes(dir: &Path) {
    write(
        dir,
        "private/wifi.md",
        b"# Wifi\n\nThe radio room wifi password is Harrier-77.\n",
    );
    write(
        dir,
        "guests.md",
        b"# Wifi\n\nThe guest wifi network is KVARC-Guest, open to all.\n",
    );
}

/// The `[knowledge]` section for `dir`, with `more` lines.
fn knowledge(dir: &Path, more: &str) -> String {
    format!("[knowledge]\ndir = \"{}\"\n{more}\n", dir.display())
}

/// Asks `text` as a plain DM from `node`; returns the reply request the LLM got for it.
async fn ask(d: &Daemon, node: u32, text: &str) -> FakeRequest {
    ask_spec(d, node, MeshPacketSpec::text(node, text)).await
}

async fn ask_spec(d: &Daemon, to: u32, spec: MeshPacketSpec) -> FakeRequest {
    let before = replies(&d.llm).len();
    let reply = ask_with(d, to, spec).await;
    assert!(joined(&reply).starts_with("echo: "), "{reply:?}");
    let reqs = replies(&d.llm);
    assert_eq!(reqs.len(), before + 1, "one reply request");
    reqs[before].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_file_is_reindexed_and_a_deleted_one_is_gone() {
    let notes = tempfile::tempdir().expect("tempdir");
    write(
        notes.path(),
        "handbook.md",
        b"# Club\n\n## Meetings\n\nWe meet every first Tuesday at the Old Fire Station.\n",
    );
    let d = Daemon::start(&knowledge(notes.path(), "")).await;
    d.indexed(1).await;

    let first = ask(&d, USER, "Tell me about the club meeting.").await;
    let prompt = said(&first);
    assert!(prompt.contains("Old Fire Station"), "{prompt}");
    assert!(
        prompt.contains(&format!("{NOTES_INTRO}\n\n[handbook.md > Club > Meetings]")),
        "{prompt}"
    );
    let system = first.messages[0].content.clone();
    assert!(
        system.contains(&system_hint(meshai::lang::Lang::En, DEFAULT_ABOUT)),
        "{system}"
    );
    // The passages are per-turn notes, just before the question, never in the system prompt.
    assert!(!system.contains("Fire Station"));
    let n = first.messages.len();
    // The new message last (the node has no names: no header).
    assert_eq!(
        first.messages[n - 1].content,
        "Tell me about the club meeting."
    );
    assert!(first.messages[n - 2].content.contains("Old Fire Station"));
    // The documents answer this turn: the message's time and the radio line are left out of
    // its notes (a small model takes the time for the answer to a question about a date, and
    // beside the radio line it invents what the passages do not say).
    let turn = &first.messages[n - 2].content;
    assert!(!turn.contains("This message was sent"), "{turn:?}");
    assert!(!turn.contains("Radio details"), "{turn:?}");

    // The meeting place changes: the next question gets the new fact, not the old one.
    write(
        notes.path(),
        "handbook.md",
        b"# Club\n\n## Meetings\n\nWe meet every first Tuesday in the Bridge Street library, upstairs.\n",
    );
    d.reindexed().await;
    let second = ask(&d, USER, "Tell me about the club meeting now.").await;
    let prompt = said(&second);
    assert!(prompt.contains("Bridge Street library"), "{prompt}");
    assert!(!prompt.contains("Old Fire Station"), "{prompt}");
    assert_eq!(
        second.messages[0].content, system,
        "the system prompt stays byte-identical"
    );

    let status = ask_with(&d, USER, MeshPacketSpec::text(USER, "!status")).await;
    assert!(
        joined(&status).contains("Notes: 1 doc, 1 passages."),
        "{status:?}"
    );

    // The file is deleted: its passages are gone, and with nothing indexed the turn is as
    // without a folder: no hint in the system prompt, no note.
    std::fs::remove_file(notes.path().join("handbook.md")).expect("rm");
    d.reindexed().await;
    let third = ask(&d, USER, "Tell me about the club meeting today.").await;
    let prompt = said(&third);
    assert!(
        !prompt.contains("library") && !prompt.contains("Fire Station"),
        "{prompt}"
    );
    assert!(!prompt.contains("Not in my notes"), "{prompt}");
    assert!(
        !third.messages[0]
            .content
            .contains(&system_hint(meshai::lang::Lang::En, DEFAULT_ABOUT)),
        "{}",
        third.messages[0].content
    );
    let status = ask_with(&d, USER, MeshPacketSpec::text(USER, "!status")).await;
    assert!(
        joined(&status).contains("Notes: 0 docs, 0 passages."),
        "{status:?}"
    );

    // Nothing of the documents was stored with the conversation.
    let history = stored(&d, USER).await;
    assert_eq!(
        history.len(),
        6,
        "three questions and their answers: {history:?}"
    );
    assert!(
        history
            .iter()
            .all(|m| !m.text.contains("Fire Station") && !m.text.contains("library")),
        "{history:?}"
    );
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

/// The messages of `req` with the time note's minute masked: two turns a minute apart differ
/// only there.
fn without_the_clock(req: &FakeRequest) -> Vec<String> {
    req.messages
        .iter()
        .map(|m| crate::harness::masked_clock(&m.content))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_folder_is_no_folder_until_its_first_passage() {
    // A daemon without a folder, for the prompt a question gets there.
    let plain = Daemon::start("").await;
    let question = "Where is a good place to put a repeater for our group?";
    let without = ask(&plain, USER, question).await;
    let (result, ..) = plain.stop().await;
    result.expect("a clean stop");

    // `meshai init`'s folder, still empty: the same prompt, word for word.
    let notes = tempfile::tempdir().expect("tempdir");
    let d = Daemon::start(&knowledge(notes.path(), "")).await;
    d.indexed(1).await;
    let empty = ask(&d, USER, question).await;
    assert_eq!(without_the_clock(&empty), without_the_clock(&without));

    // The first document: the hint and the notes from the next turn on.
    write(
        notes.path(),
        "handbook.md",
        b"# Club\n\n## Repeaters\n\nOur repeater is on the water tower of Beacon Hill.\n",
    );
    d.reindexed().await;
    let first = ask(&d, PLAIN_MEMBER, "Tell me about the club's repeater.").await;
    assert!(
        first.messages[0]
            .content
            .contains(&system_hint(meshai::lang::Lang::En, DEFAULT_ABOUT)),
        "{}",
        first.messages[0].content
    );
    assert!(said(&first).contains("water tower"), "{}", said(&first));

    // Emptied again: as without a folder again.
    std::fs::remove_file(notes.path().join("handbook.md")).expect("rm");
    d.reindexed().await;
    let again = ask(&d, STRANGER, question).await;
    assert_eq!(
        again.messages[0].content, without.messages[0].content,
        "the system prompt without the hint"
    );
    assert!(!said(&again).contains("water tower"), "{}", said(&again));
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_passages_reach_only_listed_nodes_over_pki() {
    let notes = tempfile::tempdir().expect("tempdir");
    wifi_notes(notes.path());
    let more = format!("private_to = [\"!{MEMBER:08x}\", \"!{PLAIN_MEMBER:08x}\"]");
    let extra = format!(
        "{}[channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]\n",
        knowledge(notes.path(), &more)
    );
    let d = Daemon::start(&extra).await;
    d.indexed(1).await;
    let question = "What is the wifi password?";

    // A listed node, proven by PKI: the private passage.
    let req = ask_spec(&d, MEMBER, MeshPacketSpec::pki(MEMBER, question, KEY)).await;
    assert!(said(&req).contains("Harrier-77"), "{}", said(&req));

    // A listed node without PKI (its id could be forged), a node not listed even over PKI,
    // and a channel mention: the public passage only.
    let plain = ask(&d, PLAIN_MEMBER, question).await;
    let stranger = ask_spec(
        &d,
        STRANGER,
        MeshPacketSpec::pki(STRANGER, question, STRANGER_KEY),
    )
    .await;
    let mention = MeshPacketSpec {
        to: Some(BROADCAST),
        ..MeshPacketSpec::text(MEMBER, "@ai what is the wifi password?")
    };
    let public = ask_spec(&d, BROADCAST, mention).await;
    for (who, req) in [
        ("plain", plain),
        ("stranger", stranger),
        ("mention", public),
    ] {
        let prompt = said(&req);
        assert!(!prompt.contains("Harrier-77"), "{who}: {prompt}");
        assert!(prompt.contains("KVARC-Guest"), "{who}: {prompt}");
    }
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

/// The daemon's log lines, collected as they come.
fn collect(stderr: tokio::process::ChildStderr) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            sink.lock().unwrap_or_else(|e| e.into_inner()).push(line);
        }
    });
    lines
}

/// Waits until `n` log lines contain `want`; returns all lines. On the wall clock: the log is a
/// child process's.
async fn wait_log(lines: &Arc<Mutex<Vec<String>>>, want: &str, n: usize) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + SOON;
    loop {
        let all = lines.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if all.iter().filter(|l| l.contains(want)).count() >= n {
            return all;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no {n} log lines with {want:?}: {all:#?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_reindexes_and_a_binary_file_is_skipped_with_one_line() {
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let notes = dir.path().join("knowledge");
    write(&notes, "handbook.md", b"# Club\nWe meet on Tuesdays.\n");
    write(&notes, "photo.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR");
    let config = dir.path().join("config.toml");
    let text = config_text(
        &sim,
        &llm.base_url(),
        &dir.path().join("meshai.db"),
        &knowledge(&notes, ""),
    );
    std::fs::write(&config, text).expect("config");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_meshai"))
        .args(["run", "--config"])
        .arg(&config)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn meshai");
    let lines = collect(child.stderr.take().expect("stderr"));
    let log = wait_log(&lines, "knowledge indexed", 1).await;
    let skipped: Vec<&String> = log
        .iter()
        .filter(|l| l.contains("knowledge: skipped"))
        .collect();
    assert_eq!(skipped.len(), 1, "{log:#?}");
    assert!(
        skipped[0].contains("photo.md") && skipped[0].contains("NUL bytes"),
        "{skipped:?}"
    );

    // A new document, then `systemctl reload`: SIGHUP reindexes, the daemon keeps running.
    write(
        &notes,
        "events.md",
        b"# Field day\nThe field day is at Crane Farm on 4 July.\n",
    );
    let pid = child.id().expect("pid").to_string();
    let hup = std::process::Command::new("kill")
        .args(["-HUP", &pid])
        .status()
        .expect("kill");
    assert!(hup.success());
    let log = wait_log(&lines, "knowledge indexed", 2).await;
    assert!(
        log.iter().any(|l| l.contains("SIGHUP: reindexing")),
        "{log:#?}"
    );
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "SIGHUP does not end the daemon"
    );
    // The broken file is not logged again: it did not change.
    assert_eq!(
        log.iter()
            .filter(|l| l.contains("knowledge: skipped"))
            .count(),
        1,
        "{log:#?}"
    );
    sim.wait_handshakes(1, SOON).await;
    sim.inject_dm(USER, "Where is the field day held?", None);
    let reqs = llm.wait_requests(1, SOON).await;
    let prompt = said(&reqs[0]);
    assert!(prompt.contains("Crane Farm"), "{prompt}");

    let term = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(term.success());
    let status = tokio::time::timeout(SOON, child.wait())
        .await
        .expect("exits")
        .expect("wait");
    assert_eq!(status.code(), Some(0));
}

/// Runs `meshai knowledge ARGS --config CONFIG`; its exit status and stdout.
fn cli(config: &Path, args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meshai"))
        .arg("knowledge")
        .args(args)
        .arg("--config")
        .arg(config)
        .output()
        .expect("run meshai");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_knowledge_commands_index_list_and_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let notes = dir.path().join("knowledge");
    write(
        &notes,
        "repeaters.md",
        b"# Repeaters\n\n## GB3KV Beacon Hill\n\nOutput 145.7125 MHz, tone 77.0 Hz.\n",
    );
    write(
        &notes,
        "private/wifi.md",
        b"The wifi password is Harrier-77.",
    );
    write(&notes, "scan.pdf", b"%PDF-1.4");
    let config = dir.path().join("config.toml");
    let text = format!(
        "[radio]\ntcp = \"127.0.0.1:9\"\n[storage]\ndatabase = \"{}\"\n{}",
        dir.path().join("meshai.db").display(),
        knowledge(&notes, "")
    );
    std::fs::write(&config, text).expect("config");

    let (ok, out) = cli(&config, &["reindex"]);
    assert!(ok, "{out}");
    assert!(out.contains("3 files (2 new"), "{out}");
    assert!(
        out.contains("skipped scan.pdf: not Markdown or plain text (.pdf)"),
        "{out}"
    );
    let (ok, again) = cli(&config, &["reindex"]);
    assert!(ok && again.contains("3 unchanged"), "{again}");

    let (ok, list) = cli(&config, &["list"]);
    assert!(ok, "{list}");
    assert!(
        list.contains("       1  private  private/wifi.md"),
        "{list}"
    );
    assert!(list.contains("       1           repeaters.md"), "{list}");
    assert!(list.contains("scan.pdf: skipped:"), "{list}");
    assert!(
        list.contains("2 documents, 2 passages (1 private), 1 skipped"),
        "{list}"
    );

    let (ok, found) = cli(
        &config,
        &["search", "Which tone does the Beacon Hill repeater need?"],
    );
    assert!(ok, "{found}");
    assert!(
        found.contains("repeaters.md > Repeaters > GB3KV Beacon Hill — in the prompt"),
        "{found}"
    );
    assert!(
        found.contains("  [repeaters.md > Repeaters > GB3KV Beacon Hill]\n  Output 145.7125 MHz"),
        "{found}"
    );
    let (_, private) = cli(&config, &["search", "wifi password"]);
    assert!(private.contains("Harrier-77"), "{private}");
    let (_, public) = cli(&config, &["search", "--public", "wifi password"]);
    assert!(
        !public.contains("Harrier-77") && public.contains("no passage matches"),
        "{public}"
    );
    // A short question is searched with the message before it; one on a new topic, which
    // that finds nothing for, alone.
    let gb3kv = "repeaters.md > Repeaters > GB3KV Beacon Hill — in the prompt";
    for (previous, question, follow_up) in [
        (
            "Which tone does the Beacon Hill repeater need?",
            "And its output?",
            true,
        ),
        (
            "How do I keep my solar panel clean during a long dusty summer trip?",
            "Repeater tone?",
            false,
        ),
    ] {
        let (ok, out) = cli(&config, &["search", question, "--previous", previous]);
        assert!(ok && out.contains(gb3kv), "{question}: {out}");
        assert_eq!(out.contains("a follow-up"), follow_up, "{question}: {out}");
    }
}

/// A question about the club that no passage answers gets the daemon's "Not in my notes."
/// (in the asker's language), the model not asked, stored as the bot's reply; a covered one
/// and an everyday one still go to the model (issue 38: "password123" for the club wifi).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uncovered_club_question_is_declined_by_the_daemon() {
    let notes = tempfile::tempdir().expect("tempdir");
    write(
        notes.path(),
        "handbook.md",
        b"# Club\n\n## Meetings\n\nWe meet every first Tuesday at the Old Fire Station.\n\n\
          ## Membership\n\nA year's membership is 24 pounds for an adult.\n",
    );
    let d = Daemon::start(&knowledge(notes.path(), "")).await;
    d.indexed(1).await;
    for (node, question, want) in [
        (
            USER,
            "What is the password of the club wifi?",
            "Not in my notes.",
        ),
        (
            STRANGER,
            "Wie lautet das Passwort für das WLAN unseres Vereins?",
            "Nicht in meinen Notizen.",
        ),
    ] {
        let calls = replies(&d.llm).len();
        let reply = ask_with(&d, node, MeshPacketSpec::text(node, question)).await;
        assert_eq!(joined(&reply), want, "{question}");
        assert_eq!(
            replies(&d.llm).len(),
            calls,
            "{question}: the model was asked"
        );
    }
    // Covered, and everyday: the model's.
    let covered = ask(&d, USER, "Where does the club meet?").await;
    assert!(
        said(&covered).contains("Old Fire Station"),
        "{}",
        said(&covered)
    );
    // The daemon's answer is in the conversation, after its question.
    assert!(
        covered
            .messages
            .iter()
            .any(|m| m.role == "assistant" && m.content == "Not in my notes."),
        "{:?}",
        covered.messages
    );
    // `ask` holds that the model was asked and answered.
    let everyday = ask(&d, USER, "How can I make my node's battery last longer?").await;
    let last = everyday.messages.last().map(|m| m.content.as_str());
    assert!(
        last.is_some_and(|m| m.ends_with("How can I make my node's battery last longer?")),
        "{last:?}"
    );
    // An everyday question that shares a word with the documents ("club") but gets no
    // passage is asked as without documents: no "reply exactly: Not in my notes." block.
    let question = "How can I start a radio club at my school?";
    let shares = ask(&d, PLAIN_MEMBER, question).await;
    let block = no_notes(meshai::lang::Lang::En, DEFAULT_ABOUT);
    assert!(
        shares.messages.iter().all(|m| !m.content.contains(&block)),
        "{:?}",
        shares.messages
    );
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

/// A wrong value is worse than none: an answer with the documents' notes that carries a
/// number, date or name its prompt does not hold is replaced by the passage's own sentence
/// (or "Not in my notes."), held until complete rather than streamed, and stored as replaced
/// (issue 38: "When is Field Day next year?" → "October 10, 2023"); so is one that holds no
/// value of the kind asked for (a day to "which day").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_made_up_value_never_reaches_the_air() {
    let notes = tempfile::tempdir().expect("tempdir");
    write(
        notes.path(),
        "events.md",
        b"# Events\n\n## Field Day\n\nThe VHF field day is on Saturday 4 and Sunday 5 July 2026 \
          at Crane Farm.\n\n## Meetings\n\nThe club meets every first Tuesday at the Old Fire \
          Station.\n",
    );
    let d = Daemon::start(&knowledge(notes.path(), "")).await;
    d.indexed(1).await;
    d.llm.set_behaviour(|req: &FakeRequest| {
        let q = req.last_user();
        crate::support::fake_llm::FakeResponse::Text(
            if q.contains("Field Day") {
                "Field Day is on October 10, 2023."
            } else if q.contains("password") {
                "The club wifi password is password123."
            } else if q.contains("Which day") {
                "At the Old Fire Station."
            } else {
                "The club meets every first Tuesday at the Old Fire Station."
            }
            .to_string(),
        )
    });
    let cases = [
        (
            "When is Field Day next year?",
            "The VHF field day is on Saturday 4 and Sunday 5 July 2026 at Crane Farm.",
        ),
        (
            "Where does the club meet?",
            "The club meets every first Tuesday at the Old Fire Station.",
        ),
        // The passage's own sentence, the nearest it has: never a made-up password.
        (
            "Is there a password for the field day wifi?",
            "The VHF field day is on Saturday 4 and Sunday 5 July 2026 at Crane Farm.",
        ),
        // Nothing made up, but no day in the answer to "which day": the sentence with one.
        (
            "Which day does the club meet?",
            "The club meets every first Tuesday at the Old Fire Station.",
        ),
    ];
    for (question, want) in cases {
        let before = replies(&d.llm).len();
        let reply = ask_with(&d, USER, MeshPacketSpec::text(USER, question)).await;
        assert_eq!(joined(&reply), want, "{question}");
        let reqs = replies(&d.llm);
        assert_eq!(reqs.len(), before + 1, "{question}: one request");
        // Held until complete: the model was not asked to stream.
        assert!(
            !reqs[before].body.contains("\"stream\":true"),
            "{question}: {}",
            reqs[before].body
        );
    }
    // Stored as replaced: the next prompt never repeats the made-up date.
    ask_with(
        &d,
        USER,
        MeshPacketSpec::text(USER, "Thanks. Where does the club meet?"),
    )
    .await;
    let next = replies(&d.llm).pop().expect("a request");
    assert!(!next.body.contains("October 10"), "{}", next.body);
    assert!(
        next.messages.iter().any(|m| m.role == "assistant"
            && m.content
                == "The VHF field day is on Saturday 4 and Sunday 5 July 2026 at Crane Farm."),
        "{:?}",
        next.messages
    );
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

/// A job is no answer to "who": an answer that names the job (or whose question names a thing
/// the job looks after, "money") but not the person the notes write beside it goes as the
/// line that names both, and is stored so (issue 38: "Chi tiene i soldi del club?" →
/// "Si paga alla tesoriera, …"). The job is found by the everyday word it is asked with. An
/// answer naming no one the notes name is no answer to "who" either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_said_for_who_goes_as_the_line_naming_its_holder() {
    let notes = tempfile::tempdir().expect("tempdir");
    write(
        notes.path(),
        "manuale.md",
        "# Manuale\n\n## Il direttivo\n\n| Carica | Nome |\n|---|---|\n\
          | Presidente | Margaret Ellery |\n| Tesoriera | Priya Raman |\n\n\
          ## Iscrizione\n\nSi paga alla tesoriera, in contanti alla serata del club.\n"
            .as_bytes(),
    );
    let d = Daemon::start(&knowledge(notes.path(), "")).await;
    d.indexed(1).await;
    d.llm.set_behaviour(|_: &FakeRequest| {
        crate::support::fake_llm::FakeResponse::Text(
            "Si paga alla tesoriera, in contanti alla serata del club.".to_string(),
        )
    });
    let question = "Chi tiene i soldi del club?";
    let reply = ask_with(&d, USER, MeshPacketSpec::text(USER, question)).await;
    assert_eq!(joined(&reply), "Carica: Tesoriera; Nome: Priya Raman");
    let req = replies(&d.llm).pop().expect("a request");
    assert!(req.body.contains("Priya Raman"), "{}", req.body);
    assert!(!req.body.contains("\"stream\":true"), "{}", req.body);
    // A made-up value is replaced by the sentence sharing most with the question, which
    // names the job and no one: the holder's line instead.
    d.llm.set_behaviour(|_: &FakeRequest| {
        crate::support::fake_llm::FakeResponse::Text(
            "La tesoriera, telefono 333 1234567.".to_string(),
        )
    });
    let reply = ask_with(&d, USER, MeshPacketSpec::text(USER, question)).await;
    assert_eq!(joined(&reply), "Carica: Tesoriera; Nome: Priya Raman");
    // A who answered with no one the notes name: declined.
    d.llm.set_behaviour(|_: &FakeRequest| {
        crate::support::fake_llm::FakeResponse::Text("Il club presiede il direttivo.".to_string())
    });
    let reply = ask_with(
        &d,
        USER,
        MeshPacketSpec::text(USER, "Chi presiede il direttivo del club?"),
    )
    .await;
    assert_eq!(joined(&reply), "Non è nei miei appunti.");
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

/// An answer that holds the kind of value asked for, taken from another line of the notes
/// than the one the question names, goes as that line (issue 38: "Auf welcher Frequenz ist
/// sonntags die KW-Runde?" got the calling frequency's row). A passage holding no frequency
/// at all is not in the prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_value_from_the_wrong_line_goes_as_the_line_asked_about() {
    let notes = tempfile::tempdir().expect("tempdir");
    write(
        notes.path(),
        "repeaters.md",
        b"# Repeaters\n\n## Simplex and calling frequencies\n\n\
          | Use | Frequency | Mode |\n|---|---|---|\n\
          | Calling 2 m | 145.500 | FM |\n\
          | Sunday HF net (80 m) | 3.720 | LSB |\n\n\
          ## Sunday net etiquette\n\nThe Sunday HF net welcomes newcomers; keep overs short.\n",
    );
    let d = Daemon::start(&knowledge(notes.path(), "")).await;
    d.indexed(1).await;
    d.llm.set_behaviour(|_: &FakeRequest| {
        crate::support::fake_llm::FakeResponse::Text(
            // The wrong row, said as the notes write it: nothing in it is made up.
            "Use: Calling 2 m; Frequency: 145.500; Mode: FM".to_string(),
        )
    });
    let question = "Which frequency is the Sunday HF net on?";
    let reply = ask_with(&d, USER, MeshPacketSpec::text(USER, question)).await;
    assert_eq!(
        joined(&reply),
        "Use: Sunday HF net (80 m); Frequency: 3.720; Mode: LSB"
    );
    let req = replies(&d.llm).pop().expect("a request");
    assert!(req.body.contains("3.720"), "{}", req.body);
    assert!(!req.body.contains("keep overs short"), "{}", req.body);
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

/// The model reciting the rule that closes the notes, declining with the line asked about in
/// front of it, or answering with the budget sentence's number (Qwen2.5-0.5B did each in the
/// knowledge benches): the daemon sends the line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recited_rule_a_decline_or_the_budgets_number_gives_way_to_the_line_asked_about() {
    let notes = tempfile::tempdir().expect("tempdir");
    write(
        notes.path(),
        "nets.md",
        b"# Nets\n\n## Simplex and calling frequencies\n\n\
          | Use | Frequency | Mode |\n|---|---|---|\n\
          | Calling 2 m | 145.500 | FM |\n\
          | Sunday HF net (80 m) | 3.720 | LSB |\n",
    );
    let d = Daemon::start(&knowledge(notes.path(), "")).await;
    d.indexed(1).await;
    let row = "Use: Sunday HF net (80 m); Frequency: 3.720; Mode: LSB";
    for (said, question, want) in [
        (
            "If these notes do not contain the answer, reply exactly: Not in my notes.",
            "Which frequency is the Sunday HF net on?",
            row,
        ),
        (
            "Not in my notes.",
            "On which frequency is the Sunday HF net?",
            row,
        ),
        // The budget sentence's number ("at most 150 characters") is no fact of the notes.
        (
            "150",
            "How many simplex and calling frequencies are there?",
            "Not in my notes.",
        ),
    ] {
        d.llm.set_behaviour(move |_: &FakeRequest| {
            crate::support::fake_llm::FakeResponse::Text(said.to_string())
        });
        let reply = ask_with(&d, USER, MeshPacketSpec::text(USER, question)).await;
        assert_eq!(joined(&reply), want, "{said}");
    }
    assert_eq!(replies(&d.llm).len(), 3, "the model answered each");
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

/// An everyday question the model declines by the documents' rule ("Not in my notes." to "Is
/// it rude to send lots of messages on the public channel?", Qwen2.5-0.5B in four of the eight
/// knowledge benches) is asked once more, streamed or not, without the rule: the system
/// prompt without the knowledge hint, the passages (when any was chosen) without the line
/// that closes them. Nothing of the decline goes out or is kept. A question about the club
/// the model declines is not asked again: the decline is its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_everyday_question_the_model_declines_is_asked_again_without_the_rule() {
    let notes = tempfile::tempdir().expect("tempdir");
    write(
        notes.path(),
        "mesh.md",
        b"# Club mesh\n\n## The public channel\n\nThe public channel is shared by every node in \
          the valley.\n\n## Meetings\n\nWe meet every first Tuesday at the Old Fire \
          Station.\n",
    );
    const ADVICE: &str = "Keep it to a few short messages: everyone shares the channel.";
    for llm_lines in ["timeout_secs = 3", "timeout_secs = 3\nstream = false"] {
        let d = Daemon::start_llm(&knowledge(notes.path(), ""), llm_lines).await;
        d.indexed(1).await;
        d.llm.set_behaviour(|req: &FakeRequest| {
            let ruled = req
                .messages
                .iter()
                .any(|m| m.content.contains("reply exactly"));
            // Declined as "Not in my notes.", or as "I can't help with that".
            let declined = match req.body.contains("LoRa") {
                true => "Sorry, I can't help with that.",
                false => "Not in my notes.",
            };
            crate::support::fake_llm::FakeResponse::Text(
                if ruled { declined } else { ADVICE }.to_string(),
            )
        });
        let hint = system_hint(meshai::lang::Lang::En, DEFAULT_ABOUT);
        let with_passage = "Is it rude to send lots of messages on the public channel?";
        let without = "Why do LoRa signals reach further from a hill?";
        for question in [with_passage, without] {
            let before = replies(&d.llm).len();
            let reply = ask_with(&d, USER, MeshPacketSpec::text(USER, question)).await;
            let reqs = replies(&d.llm);
            assert_eq!(joined(&reply), ADVICE, "{llm_lines}: {question}");
            assert_eq!(
                reqs.len(),
                before + 2,
                "{llm_lines}: {question}: asked twice"
            );
            let (first, again) = (&reqs[before], &reqs[before + 1]);
            assert!(first.messages[0].content.contains(&hint), "{question}");
            let system = &again.messages[0].content;
            assert_eq!(
                *system,
                first.messages[0].content.replace(&format!(" {hint}"), "")
            );
            assert!(!again.body.contains("reply exactly"), "{}", again.body);
            // The passage the first ask had, the second has too.
            let passage = "shared by every node in the valley";
            let had = first.body.contains(passage);
            assert_eq!(had, question == with_passage, "{}", first.body);
            assert_eq!(again.body.contains(passage), had, "{}", again.body);
        }
        // The decline is kept nowhere: the next prompt has the advice, never the decline.
        let before = replies(&d.llm).len();
        let said = ask_with(
            &d,
            USER,
            MeshPacketSpec::text(USER, "Where does the club meet?"),
        )
        .await;
        let reqs = replies(&d.llm);
        assert_eq!(reqs.len(), before + 1, "{llm_lines}: {said:?}");
        let next = &reqs[before];
        let assistant: Vec<&str> = next
            .messages
            .iter()
            .filter(|m| m.role == "assistant")
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(
            assistant,
            [ADVICE, ADVICE],
            "{llm_lines}: {:?}",
            next.messages
        );
        // About the club: declined, asked once.
        d.llm.set_behaviour(|_: &FakeRequest| {
            crate::support::fake_llm::FakeResponse::Text("Not in my notes.".to_string())
        });
        let before = replies(&d.llm).len();
        let reply = ask_with(
            &d,
            USER,
            MeshPacketSpec::text(USER, "When does the club meet?"),
        )
        .await;
        assert_eq!(joined(&reply), "Not in my notes.", "{llm_lines}");
        assert_eq!(replies(&d.llm).len(), before + 1, "{llm_lines}: asked once");
        let (result, ..) = d.stop().await;
        result.expect("a clean stop");
    }
}
