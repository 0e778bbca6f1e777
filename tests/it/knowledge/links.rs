//! Symbolic links in the knowledge folder through the daemon: a link out of the folder (to a
//! file or a folder) is skipped and its target never reaches a prompt, `meshai knowledge
//! list` says why; a link into `private/` is private wherever it is; a link loop is indexed
//! and the daemon still stops when told.

use std::os::unix::fs::symlink;
use std::path::Path;

use super::{
    KEY, MEMBER, STRANGER, STRANGER_KEY, USER, ask, ask_spec, cli, knowledge, wifi_notes, write,
};
use crate::harness::Daemon;
use crate::support::sim_node::{BROADCAST, MeshPacketSpec};
use crate::trust::said;

/// `[knowledge]` for `dir` with MEMBER allowed private passages, and mentions answered.
fn with_mentions(dir: &Path) -> String {
    let more = format!("private_to = [\"!{MEMBER:08x}\"]");
    format!(
        "{}[channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]\n",
        knowledge(dir, &more)
    )
}

/// A channel mention from `node` asking `text`; the reply request the LLM got for it.
async fn mention(d: &Daemon, node: u32, text: &str) -> String {
    let spec = MeshPacketSpec {
        to: Some(BROADCAST),
        ..MeshPacketSpec::text(node, &format!("@ai {text}"))
    };
    said(&ask_spec(d, BROADCAST, spec).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_out_of_the_folder_never_reaches_a_prompt() {
    let elsewhere = tempfile::tempdir().expect("tempdir");
    write(
        elsewhere.path(),
        "secret.md",
        b"# Vault\n\nThe vault code is 8812.\n",
    );
    write(
        elsewhere.path(),
        "config/llm.md",
        b"# Server\n\nThe server password is hunter2-kestrel.\n",
    );
    let notes = tempfile::tempdir().expect("tempdir");
    write(
        notes.path(),
        "guests.md",
        b"# Vault\n\nThe vault is the old bank building on Mill Lane.\n",
    );
    symlink(
        elsewhere.path().join("secret.md"),
        notes.path().join("vault.md"),
    )
    .expect("link");
    symlink(elsewhere.path().join("config"), notes.path().join("server")).expect("link");
    let d = Daemon::start(&with_mentions(notes.path())).await;
    d.indexed(1).await;

    let prompts = [
        mention(&d, STRANGER, "what is the vault code?").await,
        mention(&d, STRANGER, "what is the server password?").await,
        said(&ask(&d, USER, "What is the vault code?").await),
        said(
            &ask_spec(
                &d,
                MEMBER,
                MeshPacketSpec::pki(MEMBER, "What is the server password?", KEY),
            )
            .await,
        ),
    ];
    for prompt in &prompts {
        assert!(
            !prompt.contains("8812") && !prompt.contains("hunter2"),
            "{prompt}"
        );
    }
    // The folder's own file is found: the search ran on these questions.
    assert!(prompts[0].contains("Mill Lane"), "{}", prompts[0]);

    let (result, _sim, _llm, dir) = d.stop().await;
    result.expect("a clean stop");
    let config = dir.path().join("config.toml");
    let text = format!(
        "[radio]\ntcp = \"127.0.0.1:9\"\n[storage]\ndatabase = \"{}\"\n{}",
        dir.path().join("meshai.db").display(),
        knowledge(notes.path(), "")
    );
    std::fs::write(&config, text).expect("config");
    let (ok, list) = cli(&config, &["list"]);
    assert!(ok, "{list}");
    for link in ["vault.md", "server"] {
        assert!(
            list.contains(&format!("{link}: skipped: a link to ")),
            "{list}"
        );
    }
    assert!(list.contains("outside the folder: not read"), "{list}");
    assert!(
        list.contains("1 documents, 1 passages (0 private), 2 skipped"),
        "{list}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_into_private_is_private_wherever_it_is() {
    let notes = tempfile::tempdir().expect("tempdir");
    wifi_notes(notes.path());
    symlink("private/wifi.md", notes.path().join("wifi.md")).expect("link");
    std::fs::create_dir(notes.path().join("public")).expect("mkdir");
    symlink("../private/wifi.md", notes.path().join("public/wifi.md")).expect("link");
    let d = Daemon::start(&with_mentions(notes.path())).await;
    d.indexed(1).await;
    let question = "What is the wifi password?";

    // The listed node over PKI gets it, under the file's own path.
    let member = said(&ask_spec(&d, MEMBER, MeshPacketSpec::pki(MEMBER, question, KEY)).await);
    assert!(member.contains("Harrier-77"), "{member}");
    assert!(member.contains("[private/wifi.md > Wifi]"), "{member}");
    assert!(
        !member.contains("[wifi.md") && !member.contains("[public/"),
        "{member}"
    );

    // A stranger's mention and DMs get the public passage only.
    let stranger = [
        mention(&d, STRANGER, "what is the wifi password?").await,
        said(&ask(&d, USER, question).await),
        said(
            &ask_spec(
                &d,
                STRANGER,
                MeshPacketSpec::pki(STRANGER, question, STRANGER_KEY),
            )
            .await,
        ),
    ];
    for prompt in &stranger {
        assert!(!prompt.contains("Harrier-77"), "{prompt}");
        assert!(prompt.contains("KVARC-Guest"), "{prompt}");
    }
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_loop_is_indexed_and_the_daemon_stops() {
    let notes = tempfile::tempdir().expect("tempdir");
    write(
        notes.path(),
        "club/handbook.md",
        b"# Club\n\n## Meetings\n\nWe meet every first Tuesday at the Old Fire Station.\n",
    );
    for name in ["a", "b", "c"] {
        symlink(".", notes.path().join(name)).expect("link");
    }
    symlink("..", notes.path().join("club/up")).expect("link");
    let d = Daemon::start(&knowledge(notes.path(), "")).await;
    // Bounded waits: the index completes, then a question finds the file once.
    d.indexed(1).await;
    let prompt = said(&ask(&d, USER, "Tell me about the club meeting.").await);
    assert_eq!(prompt.matches("Old Fire Station").count(), 1, "{prompt}");
    assert!(
        prompt.contains("[club/handbook.md > Club > Meetings]"),
        "{prompt}"
    );
    // `stop` waits at most its bound for the daemon to end.
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}
