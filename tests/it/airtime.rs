//! Airtime-aware replies end to end: the simulated node reports its channel numbers (in our
//! node info at the handshake and as TELEMETRY_APP packets from its own number) and the
//! daemon shortens answers, tells the model the budget in the per-turn block, holds replies
//! while the channel is very busy or our sending is at the duty-cycle limit, and ignores a
//! stale reading; telemetry with our number from the air is not our reading. The tests that
//! ask `!status` until it says a reply is held run in paused time (`harness::paced`); the
//! others, and the stale reading (whose age the daemon reads on the std clock, which paused
//! time does not move), in real time. The holds here are bounded by small `max_wait_secs`, or
//! end when the sim reports a calmer channel.

use std::sync::Arc;
use std::time::Duration;

use meshai::chunk::strip_marker;
use meshtastic::Message as _;
use meshtastic::protobufs::config::lo_ra_config::RegionCode;
use meshtastic::protobufs::{PortNum, Telemetry, telemetry};
use tokio::time::Instant;

use crate::harness::{
    BENCH_GAP_MS, Daemon, SOON, config_text_with, db_dir, paced, paced_like_firmware, replies,
    sim_config,
};
use crate::memory::parts;
use crate::streaming::LONG;
use crate::support::fake_llm::{FakeLlm, FakeRequest, FakeResponse, FakeStream};
use crate::support::sim_node::{BROADCAST, MeshPacketSpec, SentText, SimConfig, SimNode, packets};

const ANN: u32 = 0xa1a1_0001;
const BOB: u32 = 0xb0b0_0002;
const CAT: u32 = 0xc0c0_0003;

const NOTE: &str =
    "The radio channel is busy: answer in at most 2 short sentences, under 280 characters.";

/// A daemon on the simulated node `sim` (its channel numbers at the handshake included),
/// with `extra` config and `llm_lines` for `[llm]`; every reply is [`LONG`] (four parts, so
/// a cap to two shows), streamed word by word when `stream`, else whole.
async fn start(sim: SimConfig, extra: &str, llm_lines: &str, stream: bool) -> Daemon {
    let sim = Arc::new(SimNode::start(sim).await);
    let llm = FakeLlm::start_echo().await;
    let url = llm.base_url();
    let dir = db_dir();
    let d = Daemon::start_with_llm_url(sim, llm, dir, extra, &url, llm_lines).await;
    d.answer_with(move |_| {
        if stream {
            FakeResponse::Stream(FakeStream::words(LONG, Duration::from_millis(2)))
        } else {
            FakeResponse::Text(LONG.to_string())
        }
    });
    d
}

fn reporting(cu: f32, tx: f32) -> SimConfig {
    SimConfig {
        device_metrics: Some((cu, tx)),
        ..sim_config()
    }
}

/// How many of `sent` went to `node`.
fn to(sent: &[SentText], node: u32) -> usize {
    sent.iter().filter(|t| t.to == node).count()
}

fn texts(sent: &[SentText]) -> Vec<String> {
    sent.iter().map(|t| t.text.clone()).collect()
}

/// The reply requests the fake LLM got, newest last.
fn last_reply(d: &Daemon) -> FakeRequest {
    replies(&d.llm).pop().expect("a reply request")
}

/// The budget note is in the per-turn block, after the verbatim messages; the system prompt
/// and the new message do not carry it.
fn assert_note_per_turn(req: &FakeRequest, note: &str) {
    let p = parts(req);
    let turn = p.turn.clone().unwrap_or_default();
    assert!(turn.ends_with(note), "turn block: {turn:?}");
    let system = &req.messages[0].content;
    assert!(!system.contains(note), "{system}");
    assert!(!p.verbatim.iter().any(|(_, t)| t.contains(note)), "{p:#?}");
    assert!(!p.new.contains(note), "{p:#?}");
}

fn assert_no_note(req: &FakeRequest) {
    let all: String = req.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(!all.contains("radio channel is busy"), "{all}");
    assert!(!all.contains("transmit limit"), "{all}");
}

/// `!status` from `from`, in one text (or two: it is joined).
async fn status(d: &Daemon, from: u32) -> String {
    let before = d.sim.texts().len();
    d.sim.inject_dm(from, "!status", None);
    let done = d
        .sim
        .wait_for(SOON, |l| {
            l.texts.len() > before && crate::harness::ends_reply(&l.texts[before..])
        })
        .await;
    assert!(done, "no status");
    d.sim.texts()[before..]
        .iter()
        .map(|t| strip_marker(&t.text).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asks `!status` until it contains `what` (each answer is a real text, so this waits on the
/// daemon, not on a clock); panics after 30 tries.
async fn status_until(d: &Daemon, from: u32, what: &str) -> String {
    for _ in 0..30 {
        let s = status(d, from).await;
        if s.contains(what) {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("`!status` never said {what:?}");
}

/// Every stored message, for checking that no note was stored.
fn stored(d: &Daemon) -> Vec<String> {
    let db = rusqlite::Connection::open(d.dir.path().join("meshai.db")).expect("db");
    let mut stmt = db.prepare("SELECT text FROM messages").expect("query");
    stmt.query_map([], |r| r.get::<_, String>(0))
        .expect("rows")
        .collect::<Result<Vec<_>, _>>()
        .expect("rows")
}

/// (a) and (b): at 10 % the answer is whole and the prompt has no note; at 30 % (a reading
/// that came as telemetry) the answer has two parts and the note is in the per-turn block,
/// after the verbatim messages. Streamed and not.
#[tokio::test]
async fn a_busy_channel_caps_the_parts_and_tells_the_model_per_turn() {
    for stream in [true, false] {
        let lines = format!("timeout_secs = 10\nstream = {stream}");
        let d = start(reporting(10.0, 1.0), "", &lines, stream).await;
        let calm = texts(&d.ask(ANN, "what is lora?", SOON).await);
        assert_eq!(calm.len(), 4, "{calm:?}");
        assert_no_note(&last_reply(&d));

        d.sim.inject_telemetry(30.0, 1.0);
        let busy = texts(&d.ask(ANN, "and meshtastic?", SOON).await);
        assert_eq!(busy.len(), 2, "stream {stream}: {busy:?}");
        assert!(busy[1].ends_with("… !more 2/2"), "{busy:?}");
        assert!(
            busy.iter()
                .all(|p| p.chars().count() <= 150 && p.len() <= 200)
        );
        let req = last_reply(&d);
        assert_note_per_turn(&req, NOTE);
        let p = parts(&req);
        assert_eq!(p.verbatim.len(), 2, "the first exchange, verbatim: {p:#?}");
        assert_eq!(p.new, "and meshtastic?");
        assert!(
            status(&d, BOB)
                .await
                .contains("Chan 30% busy, TX 1%/h (max 10%)"),
        );
        assert!(
            !stored(&d).iter().any(|t| t.contains("radio channel")),
            "a note was stored"
        );
        d.stop().await.0.expect("clean stop");
    }
}

/// (c): at 45 % two replies wait (commands do not), nothing goes on air and the LLM is not
/// asked; a 15 % reading releases both, and the 2 s gap holds between every text.
#[tokio::test(start_paused = true)]
async fn held_replies_go_when_the_channel_calms_down_and_keep_the_gap() {
    let _pace = paced();
    let sim = Arc::new(
        SimNode::start(SimConfig {
            min_text_gap: Duration::from_millis(BENCH_GAP_MS - 100),
            ..reporting(45.0, 1.0)
        })
        .await,
    );
    let llm = FakeLlm::start_echo().await;
    let dir = db_dir();
    let db = dir.path().join("meshai.db");
    let text = paced_like_firmware(
        &config_text_with(&sim, &llm.base_url(), &db, "", "timeout_secs = 10"),
        BENCH_GAP_MS,
    );
    let d = Daemon::start_with_text(sim, llm, dir, &text).await;
    d.answer_with(|req| FakeResponse::Text(format!("Heard: {}", req.last_user())));

    d.sim.inject_dm(ANN, "first question", None);
    d.sim.inject_dm(CAT, "second question", None);
    let held = status_until(&d, BOB, "2 waiting").await;
    assert!(held.contains("Chan 45% busy"), "{held}");
    assert!(replies(&d.llm).is_empty(), "the LLM was asked");
    let sent = d.sim.texts();
    assert_eq!(
        (to(&sent, ANN), to(&sent, CAT)),
        (0, 0),
        "a held reply went on air"
    );

    let released = Instant::now();
    d.sim.inject_telemetry(15.0, 1.0);
    let done = d
        .sim
        .wait_for(SOON, |l| to(&l.texts, ANN) == 1 && to(&l.texts, CAT) == 1)
        .await;
    assert!(done, "{:#?}", d.sim.texts());
    for req in replies(&d.llm) {
        assert!(req.at >= released, "asked before the channel calmed down");
        assert_no_note(&req);
    }
    let sent = d.sim.texts();
    for w in sent.windows(2) {
        let gap = w[1].at.duration_since(w[0].at);
        assert!(
            gap >= Duration::from_millis(BENCH_GAP_MS - 100),
            "{gap:?} between {w:#?}"
        );
    }
    assert_eq!(d.sim.rate_limit_refusals(), 0);
    let after = status(&d, BOB).await;
    assert!(after.contains("Chan 15% busy"), "{after}");
    assert!(after.contains("; 0 shortened, 2 held."), "{after}");
    d.stop().await.0.expect("clean stop");
}

/// (d): at 45 % for good, the reply goes after `max_wait_secs`, shortened, with the note;
/// `meshai stats` shows the reading and the counts once the daemon stopped.
#[tokio::test]
async fn a_reply_held_too_long_goes_shortened() {
    let extra = "[airtime]\nmax_wait_secs = 2\n";
    let d = start(reporting(45.0, 1.0), extra, "timeout_secs = 10", true).await;
    let asked = Instant::now();
    let sent = texts(&d.ask(ANN, "what is lora?", SOON).await);
    assert_eq!(sent.len(), 2, "{sent:?}");
    let req = last_reply(&d);
    assert!(req.at.duration_since(asked) >= Duration::from_secs(2));
    assert_note_per_turn(&req, NOTE);
    assert!(status(&d, BOB).await.contains("; 1 shortened, 1 held."),);
    let (result, _sim, _llm, dir) = d.stop().await;
    result.expect("clean stop");

    let text = format!(
        "[radio]\ntcp = \"127.0.0.1:1\"\n[storage]\ndatabase = \"{}\"\n",
        dir.path().join("meshai.db").display()
    );
    let config = crate::harness::parse_config(&text);
    let mut out = Vec::new();
    meshai::cli::admin::stats(&config, &mut out)
        .await
        .expect("stats");
    let out = String::from_utf8(out).expect("utf-8");
    assert!(
        out.contains(
            "channel: 45.0 % busy, our sending 1.0 % of the last hour (EU_868: limit 10 %)"
        ),
        "{out}"
    );
    assert!(out.contains(": 1 answers shortened, 1 held ("), "{out}");
}

/// (e): EU_868 allows 10 % of the hour. Our sending at 8.5 % shortens; at 10.5 % the reply
/// waits (the node would refuse it); a `local_stats` reading of 6 % releases it whole. A node
/// that overrides the duty cycle is not held.
#[tokio::test(start_paused = true)]
async fn our_sending_near_and_at_the_duty_cycle_limit() {
    let _pace = paced();
    let d = start(reporting(5.0, 8.5), "", "timeout_secs = 10", true).await;
    let near = texts(&d.ask(ANN, "what is lora?", SOON).await);
    assert_eq!(near.len(), 2, "{near:?}");
    assert_note_per_turn(
        &last_reply(&d),
        "The radio is near its legal transmit limit: answer in at most 2 short sentences, under 280 characters.",
    );

    d.sim.inject_telemetry(5.0, 10.5);
    let before = d.sim.texts().len();
    d.sim.inject_dm(ANN, "and meshtastic?", None);
    status_until(&d, BOB, "1 waiting").await;
    assert_eq!(to(&d.sim.texts()[before..], ANN), 0, "held");
    d.sim.inject_local_stats(5.0, 6.0);
    let done = d
        .sim
        .wait_for(SOON, |l| to(&l.texts[before..], ANN) == 4)
        .await;
    assert!(done, "{:#?}", d.sim.texts());
    assert_no_note(&last_reply(&d));
    d.stop().await.0.expect("clean stop");

    let overridden = SimConfig {
        override_duty_cycle: true,
        ..reporting(5.0, 12.0)
    };
    let d = start(overridden, "", "timeout_secs = 10", true).await;
    assert_eq!(d.ask(ANN, "what is lora?", SOON).await.len(), 4);
    d.stop().await.0.expect("clean stop");

    let us = SimConfig {
        region: RegionCode::Us,
        ..reporting(5.0, 40.0)
    };
    let d = start(us, "", "timeout_secs = 10", true).await;
    assert_eq!(d.ask(ANN, "what is lora?", SOON).await.len(), 4);
    assert_no_note(&last_reply(&d));
    d.stop().await.0.expect("clean stop");
}

/// (f): a reading `stale_secs` old is ignored: the answer is whole, without a note.
#[tokio::test]
async fn a_stale_reading_is_ignored() {
    let extra = "[airtime]\nstale_secs = 1\n";
    let d = start(reporting(45.0, 1.0), extra, "timeout_secs = 10", true).await;
    let s = status_until(&d, BOB, ", stale;").await;
    assert!(s.contains("Chan 45% busy"), "{s}");
    let sent = texts(&d.ask(ANN, "what is lora?", SOON).await);
    assert_eq!(sent.len(), 4, "{sent:?}");
    assert_no_note(&last_reply(&d));
    assert!(status(&d, BOB).await.contains("; 0 shortened, 0 held."));
    d.stop().await.0.expect("clean stop");
}

/// A shutdown during a hold ends it at once: the message stays stored, unanswered.
#[tokio::test(start_paused = true)]
async fn a_shutdown_ends_a_hold_and_keeps_the_message() {
    let _pace = paced();
    let d = start(reporting(45.0, 1.0), "", "timeout_secs = 10", true).await;
    d.sim.inject_dm(ANN, "remember the antenna", None);
    status_until(&d, BOB, "1 waiting").await;
    let (result, sim, llm, dir) = d.stop().await;
    result.expect("clean stop");
    assert!(llm.requests().is_empty());
    assert!(!sim.texts().iter().any(|t| t.to == ANN));
    let db = rusqlite::Connection::open(dir.path().join("meshai.db")).expect("db");
    let kept: Vec<(String, String)> = db
        .prepare("SELECT role, text FROM messages")
        .expect("query")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(
        kept,
        [("user".to_string(), "remember the antenna".to_string())]
    );
}

/// Telemetry heard on air with our node's number — over LoRa (a signal), relayed (hops), or
/// through MQTT — is not our node's reading: a forged 95 % holds no reply and shortens none,
/// and `!status` keeps the real 10 %. Our node's own 95 % (handed over locally) does count.
#[tokio::test]
async fn telemetry_from_the_air_with_our_number_is_ignored() {
    let d = start(reporting(10.0, 1.0), "", "timeout_secs = 10", true).await;
    let busy = Telemetry {
        time: 1_750_000_000,
        variant: Some(telemetry::Variant::DeviceMetrics(packets::device_metrics(
            95.0, 9.0,
        ))),
    }
    .encode_to_vec();
    let forged = MeshPacketSpec {
        from: d.sim.node_num(),
        to: Some(BROADCAST),
        portnum: PortNum::TelemetryApp,
        payload: busy,
        ..MeshPacketSpec::default()
    };
    let relayed = MeshPacketSpec {
        rx_snr: 0.0,
        rx_rssi: 0,
        hop_start: 3,
        hop_limit: 1,
        ..forged.clone()
    };
    let mqtt = MeshPacketSpec {
        rx_snr: 0.0,
        rx_rssi: 0,
        hop_start: 0,
        hop_limit: 0,
        via_mqtt: true,
        ..forged.clone()
    };
    for spec in [forged, relayed, mqtt] {
        d.sim.inject_text(spec);
    }
    // The packets reach the daemon in order: `!status` after them shows what it took.
    let s = status(&d, BOB).await;
    assert!(s.contains("Chan 10% busy"), "{s}");
    let sent = texts(&d.ask(ANN, "what is lora?", SOON).await);
    assert_eq!(sent.len(), 4, "neither held nor shortened: {sent:?}");
    assert_no_note(&last_reply(&d));
    assert!(status(&d, BOB).await.contains("; 0 shortened, 0 held."));

    d.sim.inject_telemetry(95.0, 9.0);
    status_until(&d, BOB, "Chan 95% busy").await;
    d.stop().await.0.expect("clean stop");
}
