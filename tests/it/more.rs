//! `!more`: an answer cut at the reply budget says so in its last part, `!more` asks the model
//! to go on from where the sent text stopped (a new call with the cut answer in context), and
//! with nothing to continue it says so without asking the model — streamed and not. A cut
//! answer to a node that talks PKI is continued for that node over PKI only: a forged DM with
//! its id gets the warning, no call and nothing of the answer, and another node has nothing
//! pending.

use meshai::chunk::{MORE, strip_marker};

use crate::harness::{Daemon, SOON, replies};
use crate::support::fake_llm::{FakeRequest, FakeResponse};
use crate::support::sim_node::MeshPacketSpec;
use crate::trust::ask_with;

const ANN: u32 = 0xa1a1_0001;

/// Two parts per answer: a long answer is cut in its second.
const REPLY: &str = "[reply]\nmax_chunks = 2\n";

fn story() -> String {
    (0..60)
        .map(|i| format!("word{i:02}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A long story to the first question, "the rest" to the request that continues it.
fn answer(req: &FakeRequest) -> FakeResponse {
    if req.last_user() == meshai::responder::commands::CONTINUE {
        FakeResponse::Text("and then the rest.".into())
    } else {
        FakeResponse::Text(story())
    }
}

async fn run(stream: bool) {
    let d = Daemon::start_llm(REPLY, &format!("timeout_secs = 3\nstream = {stream}")).await;
    d.answer_with(answer);
    // Nothing to continue yet: said at once, the model is not asked.
    let nothing = d.ask(ANN, "!more", SOON).await;
    assert_eq!(nothing.len(), 1);
    assert_eq!(nothing[0].text, meshai::responder::commands::NOTHING_MORE);
    assert!(d.llm.requests().is_empty(), "stream {stream}");

    let cut = d.ask(ANN, "tell me a long story", SOON).await;
    assert_eq!(cut.len(), 2, "stream {stream}: {cut:?}");
    let last = strip_marker(&cut[1].text);
    assert!(last.ends_with(MORE), "stream {stream}: {last:?}");
    assert!(
        cut.iter()
            .all(|p| p.text.chars().count() <= 150 && p.text.len() <= 200)
    );
    let sent: String = cut
        .iter()
        .map(|p| strip_marker(&p.text).trim_end_matches(MORE))
        .collect::<Vec<_>>()
        .join(" ");

    let before = replies(&d.llm).len();
    let rest = d.ask(ANN, "!more", SOON).await;
    assert_eq!(
        rest.iter()
            .map(|p| strip_marker(&p.text))
            .collect::<Vec<_>>(),
        ["and then the rest."],
        "stream {stream}"
    );
    let reqs = replies(&d.llm);
    assert_eq!(reqs.len(), before + 1, "one new call");
    let req = reqs.last().expect("the continuation");
    // The cut answer is in context as far as it went on air, marked as cut.
    let n = req.messages.len();
    let answered = &req.messages[n - 2];
    assert_eq!(answered.role, "assistant");
    let shown = answered.content.trim_end_matches('…').trim_end();
    assert_eq!(shown, sent.trim_end(), "stream {stream}");
    assert!(answered.content.ends_with('…'));
    assert!(
        !story().starts_with(&answered.content),
        "not what the model wrote past the cut"
    );

    // The continuation was whole: nothing more to send, and the model is not asked.
    let calls = d.llm.requests().len();
    let again = d.ask(ANN, "!more", SOON).await;
    assert_eq!(again[0].text, meshai::responder::commands::NOTHING_MORE);
    assert_eq!(d.llm.requests().len(), calls);
    d.stop().await.0.expect("clean stop");
}

#[tokio::test]
async fn more_continues_a_cut_answer_and_refuses_when_nothing_is_pending_streamed() {
    run(true).await;
}

#[tokio::test]
async fn more_continues_a_cut_answer_and_refuses_when_nothing_is_pending_not_streamed() {
    run(false).await;
}

/// Ann's key: she talks PKI.
const ANN_KEY: [u8; 32] = [0x5a; 32];
const BEN: u32 = 0xbe00_0002;

#[tokio::test]
async fn more_for_a_pki_node_continues_only_over_pki() {
    let d = Daemon::start_llm(REPLY, "timeout_secs = 3\nstream = true").await;
    d.answer_with(answer);
    let pki = |text: &str| MeshPacketSpec::pki(ANN, text, ANN_KEY);
    let cut = ask_with(&d, ANN, pki("tell me a long story")).await;
    assert!(strip_marker(&cut[1].text).ends_with(MORE), "{cut:?}");
    assert!(cut.iter().all(|p| p.pki_encrypted));
    let calls = d.llm.requests().len();

    // Her id without PKI: the warning alone, PKI-encrypted; no call, nothing of the story.
    let forged = ask_with(&d, ANN, MeshPacketSpec::text(ANN, "!more")).await;
    assert_eq!(forged.len(), 1, "{forged:?}");
    assert!(
        forged[0]
            .text
            .starts_with("I only answer this node over encrypted DMs")
    );
    assert!(forged[0].pki_encrypted);
    // Another node has nothing pending: her cut answer is hers.
    let other = d.ask(BEN, "!more", SOON).await;
    assert_eq!(other[0].text, meshai::responder::commands::NOTHING_MORE);
    assert_eq!(d.llm.requests().len(), calls, "no call for either");

    // Ann herself, over PKI: the rest.
    let rest = ask_with(&d, ANN, pki("!more")).await;
    assert_eq!(strip_marker(&rest[0].text), "and then the rest.");
    assert!(rest.iter().all(|p| p.pki_encrypted));
    d.stop().await.0.expect("clean stop");
}
