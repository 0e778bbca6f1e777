//! `[[llm.fallback]]` end to end: two fake LLMs on 127.0.0.1, the primary down, failing or
//! refusing, the fallback answering within the primary's budget, and the primary taken back
//! after the background probe.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::harness::{Daemon, SOON, config_text_with, db_dir, paced, replies, sim_config};
use crate::support::fake_llm::{FakeLlm, FakeResponse, FakeStream, StreamEnd};
use crate::support::sim_node::SimNode;

const ANN: u32 = 0xa1a1_0001;

/// The primary's budget in these tests: bounds each whole answer, failovers included.
const BUDGET: Duration = Duration::from_secs(6);

/// Starts the daemon with `primary_url` as `[llm]` and `fallback` as the one
/// `[[llm.fallback]]` (model `fb-model`); a failing server is first skipped for 2 s.
async fn start(primary_url: &str, fallback: FakeLlm) -> Daemon {
    start_with(primary_url, fallback, "").await
}

/// [`start`] with more `[llm]` lines.
async fn start_with(primary_url: &str, fallback: FakeLlm, llm: &str) -> Daemon {
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let dir = db_dir();
    let db = dir.path().join("meshai.db");
    let llm_lines = format!(
        "timeout_secs = {}\nskip_secs = 2\nslots = \"off\"\n{llm}\n\n[[llm.fallback]]\nbase_url = \"{}\"\nmodel = \"fb-model\"\n",
        BUDGET.as_secs(),
        fallback.base_url()
    );
    let text = config_text_with(&sim, primary_url, &db, "", &llm_lines);
    Daemon::start_with_text(sim, fallback, dir, &text).await
}

fn prefixed(
    prefix: &'static str,
) -> impl Fn(&crate::support::fake_llm::FakeRequest) -> FakeResponse {
    move |req| FakeResponse::Text(format!("{prefix}: {}", req.last_user()))
}

/// Connection refused at the primary: the fallback answers, within the budget, and
/// `!status` names it.
#[tokio::test(start_paused = true)]
async fn primary_down_the_fallback_answers_within_the_budget() {
    let _pace = paced();
    let gone = FakeLlm::start_echo().await;
    let primary_url = gone.base_url();
    drop(gone);
    let fallback = FakeLlm::start(prefixed("fallback")).await;
    let d = start(&primary_url, fallback).await;
    let started = Instant::now();
    let reply = d.ask(ANN, "hello", SOON).await;
    assert!(started.elapsed() < BUDGET, "took {:?}", started.elapsed());
    assert_eq!(reply.len(), 1, "{reply:?}");
    assert_eq!(reply[0].text, "fallback: hello");
    let status = d.dm_and_wait(ANN, "!status", 1).await;
    assert!(
        status[0].contains("LLM: fallback 1 (model fb-model)"),
        "{status:?}"
    );
    let (result, ..) = d.stop().await;
    assert!(result.is_ok());
}

/// The primary answers 500: each answer fails over; after three in a row the primary is
/// skipped (no more requests to it), and once the probe finds it answering it is used again.
#[tokio::test(start_paused = true)]
async fn primary_500_fails_over_then_is_used_again_after_the_probe() {
    let _pace = paced();
    let primary =
        FakeLlm::start(|_| FakeResponse::Status(500, "{\"error\":\"boom\"}".into())).await;
    let fallback = FakeLlm::start(prefixed("fallback")).await;
    let d = start(&primary.base_url(), fallback).await;
    for i in 0..3 {
        let started = Instant::now();
        let reply = d.ask(ANN, &format!("q{i}"), SOON).await;
        assert!(started.elapsed() < BUDGET, "took {:?}", started.elapsed());
        assert_eq!(reply.len(), 1, "{reply:?}");
        assert_eq!(reply[0].text, format!("fallback: q{i}"));
    }
    // Skipped now: the next answer goes straight to the fallback.
    let asked = replies(&primary).len();
    assert!(asked >= 3, "the primary was tried: {asked}");
    let reply = d.ask(ANN, "skipped", SOON).await;
    assert_eq!(reply[0].text, "fallback: skipped");
    assert_eq!(
        replies(&primary).len(),
        asked,
        "a skipped primary gets no request"
    );
    // The primary recovers; the probe (after 2 s) takes it back.
    primary.set_behaviour(prefixed("primary"));
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let reply = d.ask(ANN, "back", SOON).await;
    assert_eq!(reply[0].text, "primary: back");
    let status = d.dm_and_wait(ANN, "!status", 1).await;
    assert!(
        status[0].contains("LLM: primary (model fake-model)"),
        "{status:?}"
    );
    let (result, ..) = d.stop().await;
    assert!(result.is_ok());
}

/// Every server fails: exactly one notice, within the budget.
#[tokio::test(start_paused = true)]
async fn all_servers_failing_give_exactly_one_notice() {
    let _pace = paced();
    let primary = FakeLlm::start(|_| FakeResponse::Status(500, "{}".into())).await;
    let fallback = FakeLlm::start(|_| FakeResponse::Status(503, "{}".into())).await;
    let d = start(&primary.base_url(), fallback).await;
    let before = d.sim.texts().len();
    let started = Instant::now();
    d.sim.inject_dm(ANN, "anyone there", None);
    let texts = d.sim.wait_texts(before + 1, SOON).await;
    assert!(
        started.elapsed() < BUDGET + Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        texts[before].text.contains("unavailable"),
        "{:?}",
        texts[before]
    );
    assert!(!replies(&d.llm).is_empty(), "the fallback was tried");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(d.sim.texts().len(), before + 1, "exactly one packet");
    let (result, ..) = d.stop().await;
    assert!(result.is_ok());
}

/// A 400 is a config error every server would share: one notice, no failover.
#[tokio::test(start_paused = true)]
async fn a_400_from_the_primary_does_not_fail_over() {
    let _pace = paced();
    let primary = FakeLlm::start(|_| FakeResponse::Status(400, "{\"error\":\"bad\"}".into())).await;
    let fallback = FakeLlm::start(prefixed("fallback")).await;
    let d = start(&primary.base_url(), fallback).await;
    let before = d.sim.texts().len();
    d.sim.inject_dm(ANN, "hello", None);
    let texts = d.sim.wait_texts(before + 1, SOON).await;
    assert!(
        texts[before].text.contains("unavailable"),
        "{:?}",
        texts[before]
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(d.sim.texts().len(), before + 1, "exactly one packet");
    assert_eq!(replies(&primary).len(), 1, "a 400 is not retried");
    assert!(replies(&d.llm).is_empty(), "no failover on a 400");
    let (result, ..) = d.stop().await;
    assert!(result.is_ok());
}

/// Not streamed (`stream = false`): a 503 from the primary fails over the same way.
#[tokio::test(start_paused = true)]
async fn a_batch_answer_fails_over_too() {
    let _pace = paced();
    let primary = FakeLlm::start(|_| FakeResponse::Status(503, "{}".into())).await;
    let fallback = FakeLlm::start(prefixed("fallback")).await;
    let d = start_with(&primary.base_url(), fallback, "stream = false").await;
    let started = Instant::now();
    let reply = d.ask(ANN, "hello", SOON).await;
    assert!(started.elapsed() < BUDGET, "took {:?}", started.elapsed());
    assert_eq!(reply[0].text, "fallback: hello");
    let json = replies(&primary)[0].json.clone().expect("json");
    assert_eq!(json["stream"], false, "not streamed");
    let (result, ..) = d.stop().await;
    assert!(result.is_ok());
}

/// About 300 characters: two parts.
const LONG: &str = "LoRa is a long-range, low-power radio modulation that trades speed for \
reach. A few hundred bytes per second can cross many kilometres from a hill. Meshtastic uses it \
to relay short text messages from node to node without any phone network at all. Every hop \
repeats the packet, so airtime is shared and precious.";

/// A stream that breaks before anything went on air fails over at once; one that breaks
/// after its first part went on air ends with the cut-off notice and never fails over.
#[tokio::test(start_paused = true)]
async fn a_broken_stream_fails_over_only_before_the_first_part_is_on_air() {
    let _pace = paced();
    let primary = FakeLlm::start(|_| {
        FakeResponse::Stream(
            FakeStream::words(LONG, Duration::from_millis(5)).ending(StreamEnd::BreakAfter(3)),
        )
    })
    .await;
    let fallback = FakeLlm::start(prefixed("fallback")).await;
    let d = start(&primary.base_url(), fallback).await;
    let reply = d.ask(ANN, "early", SOON).await;
    assert_eq!(reply.len(), 1, "{reply:?}");
    assert_eq!(reply[0].text, "fallback: early");
    assert_eq!(replies(&primary).len(), 1, "no retry on the primary first");

    primary.set_behaviour(|_| {
        FakeResponse::Stream(
            FakeStream::words(LONG, Duration::from_millis(50)).ending(StreamEnd::BreakAfter(40)),
        )
    });
    let asked = replies(&d.llm).len();
    let reply = d.ask(ANN, "late", SOON).await;
    assert!(reply.len() >= 2, "{reply:?}");
    let last = &reply[reply.len() - 1].text;
    assert!(last.contains("cut off"), "{reply:?}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        replies(&d.llm).len(),
        asked,
        "no failover once a part is on air"
    );
    let (result, ..) = d.stop().await;
    assert!(result.is_ok());
}
