//! Passages found by meaning (`[knowledge.embeddings]`) through the daemon, against the fake
//! server's embeddings: a question that shares no word with its passage gets it once the
//! passages are embedded, an unchanged passage keeps its vector through a change to its file,
//! private passages stay private by meaning too, a passage the server refuses does not hold
//! up the others, and a server that stops serving embeddings leaves the turn with the
//! passages found by words (the answer still comes).

use std::sync::Arc;

use meshai::knowledge::DEFAULT_ABOUT;
use meshai::knowledge::render::{NOTES_INTRO, no_notes};

use super::{KEY, MEMBER, STRANGER, USER, ask, ask_spec, knowledge, write};
use crate::harness::{Daemon, replies};
use crate::support::fake_llm::{FakeRequest, FakeResponse, echo_text};
use crate::support::sim_node::{BROADCAST, MeshPacketSpec};
use crate::trust::{ask_with, joined, said};

/// A toy embedding: one axis per meaning, so "purse" and "Treasurer" are near though they
/// share no word (nor does meshai's table of related words, `lang::related`, relate them:
/// it relates "money" to "treasurer"); the last axis keeps every vector from being zero.
fn by_meaning(text: &str) -> Vec<f32> {
    const AXES: [&[&str]; 3] = [
        &["purse", "money", "treasurer", "accounts", "fees", "bank"],
        &["repeater", "frequency", "tone", "aerial"],
        &["meet", "meeting", "evening", "pub"],
    ];
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    let mut v: Vec<f32> = AXES
        .iter()
        .map(|axis| words.iter().filter(|w| axis.contains(w)).count() as f32)
        .collect();
    v.push(0.1);
    v
}

const COMMITTEE: &[u8] =
    b"# Committee\n\n## Treasurer\n\nJane Doe keeps the accounts and collects the fees.\n\n\
## Repeater keeper\n\nBob Hale keeps the repeater on Hill Top running, on 145.600.\n";

/// The texts of each embeddings request, in order.
fn batches(d: &Daemon) -> Vec<Vec<String>> {
    d.llm
        .embedding_requests()
        .iter()
        .map(|r| match r.json.as_ref().and_then(|j| j.get("input")) {
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().unwrap_or_default().to_string())
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_in_other_words_finds_its_passage_by_meaning() {
    let notes = tempfile::tempdir().expect("tempdir");
    write(notes.path(), "committee.md", COMMITTEE);
    write(
        notes.path(),
        "private/bank.md",
        b"# Bank\n\nThe bank card PIN is 4471.\n",
    );
    let more = format!(
        "private_to = [\"!{MEMBER:08x}\"]\n[knowledge.embeddings]\nmodel = \"fake-embed\"\n\
         [channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]"
    );
    let d = Daemon::start(&knowledge(notes.path(), &more)).await;
    // The server does not serve embeddings yet (501): the passages are indexed, not embedded.
    d.indexed(1).await;
    let question = "Who holds the club's purse?";
    // No passage shares a word with it, and it asks about the club: the daemon declines it
    // itself, the model is not asked (it would make up a treasurer).
    let calls = replies(&d.llm).len();
    let before = ask_with(&d, USER, MeshPacketSpec::text(USER, question)).await;
    assert_eq!(joined(&before), "Not in my notes.");
    assert_eq!(replies(&d.llm).len(), calls, "the model was asked");
    // A question about something else still goes to the model, without notes: the turn
    // (a new conversation's first) says how the message came and when it was sent.
    let prompt = said(&ask(&d, 0x4b00_0005, "What does a dummy load do, briefly?").await);
    assert!(!prompt.contains(NOTES_INTRO), "{prompt}");
    assert!(
        !prompt.contains(&no_notes(meshai::lang::Lang::En, DEFAULT_ABOUT)),
        "{prompt}"
    );
    assert!(prompt.contains("This message was sent "), "{prompt}");
    assert!(
        prompt.contains("Radio details of this message: "),
        "{prompt}"
    );
    let status = ask_with(&d, USER, MeshPacketSpec::text(USER, "!status")).await;
    assert!(
        joined(&status).contains("Notes: 2 docs, 3 passages (0 by meaning)."),
        "{status:?}"
    );

    // Now it does: the next reindex embeds every passage, in one batch.
    // (The first reindex's batch was refused, and so were the questions' vectors.)
    assert_eq!(batches(&d).len(), 3, "{:?}", batches(&d));
    d.llm.set_embeddings(Some(Arc::new(by_meaning)));
    d.reindexed().await;
    let embedded = batches(&d)[3..].to_vec();
    assert_eq!(embedded.len(), 1, "{embedded:?}");
    assert_eq!(embedded[0].len(), 3, "{embedded:?}");
    assert!(
        embedded[0]
            .iter()
            .any(|p| p.starts_with("Committee > Treasurer\n\nJane Doe")),
        "{embedded:?}"
    );
    let status = ask_with(&d, USER, MeshPacketSpec::text(USER, "!status")).await;
    assert!(joined(&status).contains("(3 by meaning)."), "{status:?}");

    // The echo names the holder the notes write: an answer to "who" naming no one of the
    // notes' people is declined (`knowledge::check`), and this test is about the prompt.
    d.llm.set_behaviour(|req: &FakeRequest| {
        let holder = if req.body.contains("Jane Doe") {
            " Jane Doe"
        } else {
            ""
        };
        FakeResponse::Text(format!("{}{holder}", echo_text(req)))
    });
    let after = ask(&d, USER, question).await;
    let prompt = said(&after);
    assert!(prompt.contains("Jane Doe"), "{prompt}");
    assert!(!prompt.contains("Hill Top"), "{prompt}");
    // The private passage is the nearest to "purse" for the listed node over PKI only.
    assert!(!prompt.contains("4471"), "{prompt}");
    let member = ask_spec(&d, MEMBER, MeshPacketSpec::pki(MEMBER, question, KEY)).await;
    assert!(said(&member).contains("4471"), "{}", said(&member));
    let mention = MeshPacketSpec {
        to: Some(BROADCAST),
        ..MeshPacketSpec::text(MEMBER, "@ai who holds the club's purse?")
    };
    let public = ask_spec(&d, BROADCAST, mention).await;
    let stranger = ask(&d, STRANGER, question).await;
    for (who, req) in [("mention", public), ("stranger", stranger)] {
        let prompt = said(&req);
        assert!(!prompt.contains("4471"), "{who}: {prompt}");
        assert!(prompt.contains("Jane Doe"), "{who}: {prompt}");
    }

    // One passage of the file changes: only it is embedded again.
    let changed = String::from_utf8_lossy(COMMITTEE).replace("145.600", "145.650");
    write(notes.path(), "committee.md", changed.as_bytes());
    let seen = batches(&d).len();
    d.reindexed().await;
    let new: Vec<Vec<String>> = batches(&d)[seen..].to_vec();
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!(new[0].len(), 1, "{new:?}");
    assert!(new[0][0].contains("145.650"), "{new:?}");

    // A passage the server refuses (too long for it) is left without a vector; the rest of
    // its batch is embedded one by one.
    let long = format!("# Long\n\n{}\n", "The aerial is tall. ".repeat(25));
    write(notes.path(), "long.md", long.as_bytes());
    write(
        notes.path(),
        "short.md",
        b"# Pub\n\nThe pub meeting is on Fridays.\n",
    );
    d.llm.set_embedding_limit(Some(200));
    d.reindexed().await;
    let status = ask_with(&d, USER, MeshPacketSpec::text(USER, "!status")).await;
    assert!(
        joined(&status).contains("Notes: 4 docs, 5 passages (4 by meaning)."),
        "{status:?}"
    );
    d.llm.set_embedding_limit(None);

    // The server stops serving embeddings: the turn goes on with the passages found by words.
    d.llm.set_embeddings(None);
    let words = ask(&d, USER, "Which frequency is the Hill Top repeater on?").await;
    assert!(said(&words).contains("145.650"), "{}", said(&words));
    // By words alone nothing answers the purse question again: declined, as at first.
    let meaning = ask_with(&d, USER, MeshPacketSpec::text(USER, question)).await;
    assert_eq!(joined(&meaning), "Not in my notes.");
    let (result, ..) = d.stop().await;
    result.expect("a clean stop");
}
