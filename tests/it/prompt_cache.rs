//! What a conversation costs a slow one-slot server's prompt cache (a Raspberry Pi runs one
//! slot): the fake server models llama-server's cache (`support::fake_llm::cache`) at a Pi's
//! pace, and a 28-turn conversation on the daemon's defaults — folds and all — may make it
//! evaluate only so many prompt tokens per reply. A summary that evicts the conversation
//! from the slot makes the next reply read its prompt again, hundreds of tokens (issue 37:
//! 40 → 77 evaluated per reply on the real model, docs/benchmarks.md).

use std::time::Duration;

use crate::harness::{Daemon, db_dir, is_summary, paced, sim_config};
use crate::support::fake_llm::{CacheUse, FakeLlm, FakeRequest, FakeResponse, SlotTiming};
use crate::support::sim_node::SimNode;

const ANN: u32 = 0xa1a1_0037;

/// Evaluated prompt tokens per reply at most, over the 28 replies: the bound for the
/// real model (Qwen2.5-0.5B on one slot: 40 per reply when no summary evicted the
/// conversation, 77 when three replies re-read theirs). This model's counts run close to the
/// real tokenizer's (the first prompt: 221 tokens here, 218 on the real server). The floor is
/// the new message and the template's tokens (~15); each fold saved makes the next reply read
/// the new memory block and the messages kept after it once (70–210 here), and the channel
/// question carries a mesh-facts block (~70, 2.5 per reply). A summary that left the
/// conversation's prompt out of the slot cost 55 per reply here before the mesh block.
const MAX_MEAN_EVALUATED: f64 = 48.0;

/// Tokens a reply may evaluate beyond its `fresh` ones (what a slot holding the conversation
/// alone would make it read): none is the design; a summary that evicted the conversation
/// made its reply re-read hundreds (63–373: the prompt from the memory block on).
const MAX_LOST_TO_A_SUMMARY: usize = 2;

/// The conversation: eight facts, twelve ordinary questions, the eight facts asked back.
const SCRIPT: [&str; 28] = [
    "Hi, my name is Tomasz. (session 37)",
    "My callsign is SP9QRZ.",
    "I live in Zakopane.",
    "My dog is called Biscuit.",
    "Our radio club meets every second Thursday.",
    "My solar node has a 3000 mAh battery.",
    "I drive an old Land Rover.",
    "My favourite frequency is 869.525 MHz.",
    "What is LoRa, in one sentence?",
    "How far can a LoRa radio reach from a hill?",
    "What does SNR mean?",
    "Why do packets hop between nodes?",
    "What is a good antenna for a rooftop node?",
    "How do I keep a battery warm in winter?",
    "What does the channel utilization number tell me?",
    "Is 20 dBm a lot of power?",
    "What is the difference between a router and a client node?",
    "How often should a node send its position?",
    "What is a dipole?",
    "Why is my message marked as not delivered?",
    "What is my dog called?",
    "What is my name?",
    "What car do I drive?",
    "What is my callsign?",
    "How big is the battery of my solar node?",
    "Where do I live?",
    "What is my favourite frequency?",
    "On which day does our radio club meet?",
];

/// A model's answer: about two packets, as the real one writes (its length moves where the
/// token budget calls for a fold).
fn answer(req: &FakeRequest) -> String {
    format!(
        "About \"{}\": LoRa trades speed for range, so keep messages short, mount the antenna \
         high and clear of metal, and give the mesh time to pass each packet along.",
        req.last_user()
    )
}

/// A model's notes: one sentence per few messages folded, within `summary_max_chars`.
fn notes(req: &FakeRequest) -> String {
    let folded = req.messages.len().saturating_sub(3);
    format!(
        "Tomasz (SP9QRZ) lives in Zakopane, drives an old Land Rover and has a dog called \
         Biscuit; he asked about LoRa radios, antennas and batteries over {folded} messages."
    )
}

/// The server's answers: notes to a summary request, an answer to anything else.
fn model(req: &FakeRequest) -> FakeResponse {
    if is_summary(req) {
        FakeResponse::Text(notes(req))
    } else {
        FakeResponse::Text(answer(req))
    }
}

/// Runs the 28 turns against a one-slot server (`props`: llama-server's `/props` slots, or
/// none, as Ollama) and returns every request's use of the cache.
async fn conversation(props: Option<u32>) -> Vec<CacheUse> {
    let sim = std::sync::Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start(model).await;
    llm.set_props_slots(props);
    llm.model_prompt_cache(SlotTiming::default());
    let url = llm.base_url();
    let d = Daemon::start_with_llm_url(sim, llm, db_dir(), "", &url, "timeout_secs = 300").await;
    for text in SCRIPT {
        d.ask(ANN, text, Duration::from_secs(600)).await;
        // The user reads the answer and types the next message.
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    // The last fold, if one runs, ends.
    tokio::time::sleep(Duration::from_secs(60)).await;
    let uses = d.llm.cache_uses();
    let (result, ..) = d.stop().await;
    result.expect("the daemon stops cleanly");
    uses
}

/// The replies' evaluated tokens, and a line per request for the failure message.
fn replies(uses: &[CacheUse]) -> (Vec<usize>, String) {
    let evaluated: Vec<usize> = uses
        .iter()
        .filter(|u| !u.summary)
        .map(|u| u.evaluated)
        .collect();
    let log = uses
        .iter()
        .map(|u| {
            format!(
                "{}{}{}/{}{}",
                if u.summary { "S" } else { "" },
                u.evaluated,
                if u.summary {
                    String::new()
                } else {
                    format!("({})", u.fresh)
                },
                u.prompt,
                if u.cancelled { "x" } else { "" }
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    (evaluated, log)
}

fn check(uses: &[CacheUse]) {
    let (evaluated, log) = replies(uses);
    assert_eq!(
        evaluated.len(),
        SCRIPT.len(),
        "one reply per message: {log}"
    );
    let summaries = uses.iter().filter(|u| u.summary).count();
    assert!(
        summaries > 0,
        "no summary ran: the test shows nothing; {log}"
    );
    // No reply pays for a summary: it reads what is new to the conversation, not more.
    for (i, r) in uses.iter().enumerate().filter(|(_, u)| !u.summary) {
        assert!(
            r.evaluated <= r.fresh + MAX_LOST_TO_A_SUMMARY,
            "request {i}, a reply, read {} tokens where {} were new to the conversation (at \
             most {MAX_LOST_TO_A_SUMMARY} more): a summary evicted the conversation; {log}",
            r.evaluated,
            r.fresh
        );
    }
    let mean = evaluated.iter().sum::<usize>() as f64 / evaluated.len() as f64;
    println!(
        "evaluated per reply {mean:.1}; requests (evaluated(fresh)/prompt; S: summary, x: cancelled): {log}"
    );
    assert!(
        mean <= MAX_MEAN_EVALUATED,
        "{mean:.1} prompt tokens evaluated per reply (at most {MAX_MEAN_EVALUATED}): {log}"
    );
}

/// llama-server with one slot (`/props` says so; the daemon sends `id_slot`).
#[tokio::test(start_paused = true)]
async fn a_summary_never_evicts_the_conversation_on_one_llama_cpp_slot() {
    let _pace = paced();
    check(&conversation(Some(1)).await);
}

/// A server without `/props` (Ollama with one parallel sequence).
#[tokio::test(start_paused = true)]
async fn a_summary_never_evicts_the_conversation_on_a_server_without_props() {
    let _pace = paced();
    check(&conversation(None).await);
}
