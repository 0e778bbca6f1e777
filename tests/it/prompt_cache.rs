//! What a conversation costs a slow one-slot server's prompt cache (a Raspberry Pi runs one
//! slot): the fake server models llama-server's cache (`support::fake_llm::cache`) at a Pi's
//! pace, and a 28-turn conversation on the daemon's defaults — folds and all — may make it
//! evaluate only so many prompt tokens per reply. A summary that evicts the conversation
//! from the slot makes the next reply read its prompt again, hundreds of tokens (issue 37:
//! 40 → 77 evaluated per reply on the real model, docs/benchmarks.md). The same conversation
//! in German may cost only what its longer words do.

use std::time::Duration;

use crate::harness::{Daemon, db_dir, is_summary, paced, sim_config};
use crate::support::fake_llm::{CacheUse, FakeLlm, FakeRequest, FakeResponse, SlotTiming};
use crate::support::sim_node::SimNode;

const ANN: u32 = 0xa1a1_0037;

/// Evaluated prompt tokens per reply at most, over the 28 replies, with a fast typist's pause
/// (a fold's model call still runs when the next message comes). This model's counts run
/// close to the real tokenizer's (the first prompt: 221 tokens here, 218 on the real server).
/// The floor is the new message and the template's tokens (~15); the channel question carries
/// a mesh-facts block (~70, 2.5 per reply). 27.3 measured: the reply that waited for a fold's
/// call continues the prompt the slot holds (the save waits for its read) and the warm-up
/// after it reads the new memory block. 46.3 while the fold saved before that reply read its
/// memory, which then re-read its prompt from the memory block on (205–220 tokens here; on
/// the real model 40 → 77 per reply when a summary evicted the conversation, issue 37).
const MAX_MEAN_EVALUATED: f64 = 33.0;

/// The same for the German conversation: its words are longer, so each fold's memory block
/// and kept messages are more tokens. 28.8 measured; 48.1 while the fold saved before the
/// waiting reply read its memory; 61.5 while function words ("wie", "zwischen") brought back
/// unrelated exchanges and German nouns, capitalised, read as node names that got a mesh note
/// (issue 37).
const MAX_MEAN_EVALUATED_DE: f64 = 35.0;

/// Evaluated per reply at most, in German, when every fold is followed by a warm-up: 32.1
/// measured (each reply after one reads its message; the warm-ups read 57–195). Without the
/// warm-ups the same replies would read 58.3 (their fresh counts: with pauses every fold
/// completes, nine in 28 turns).
const MAX_MEAN_WARM: f64 = 36.0;

/// Tokens a warm-up and the reply after it may read beyond what the reply alone would have:
/// the generation prompt the warm-up ends with and its one token, which the reply's prompt
/// does not continue.
const MAX_WARM_UP_EXTRA: usize = 4;

/// Tokens a reply may evaluate beyond its `fresh` ones (what a slot holding the conversation
/// alone would make it read): none is the design; a summary that evicted the conversation
/// made its reply re-read hundreds (63–373: the prompt from the memory block on).
const MAX_LOST_TO_A_SUMMARY: usize = 2;

/// A fast typist's pause after each answer: a fold started after a reply is still running
/// when the next message comes, so no warm-up gets in before it.
const TYPIST: Duration = Duration::from_secs(2);

/// A pause as people take on the air (the answer's packets arrive over seconds, then they
/// read and type): the fold ends in it, and the daemon reads the next prompt into the slot.
const ON_THE_AIR: Duration = Duration::from_secs(30);

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

/// The same conversation in German (issue 37: German read 54–57 per reply on the real model
/// where English read 42).
const SCRIPT_DE: [&str; 28] = [
    "Hallo, ich heiße Tomasz. (Sitzung 37)",
    "Mein Rufzeichen ist SP9QRZ.",
    "Ich wohne in Zakopane.",
    "Mein Hund heißt Biscuit.",
    "Unser Funkclub trifft sich jeden zweiten Donnerstag.",
    "Mein Solarknoten hat einen Akku mit 3000 mAh.",
    "Ich fahre einen alten Land Rover.",
    "Meine Lieblingsfrequenz ist 869,525 MHz.",
    "Was ist LoRa, in einem Satz?",
    "Wie weit reicht ein LoRa-Funkgerät von einem Hügel aus?",
    "Was bedeutet SNR?",
    "Warum springen Pakete zwischen Knoten?",
    "Welche Antenne ist gut für einen Knoten auf dem Dach?",
    "Wie halte ich einen Akku im Winter warm?",
    "Was sagt mir die Zahl der Kanalauslastung?",
    "Sind 20 dBm viel Leistung?",
    "Was ist der Unterschied zwischen einem Router und einem Client-Knoten?",
    "Wie oft sollte ein Knoten seine Position senden?",
    "Was ist ein Dipol?",
    "Warum ist meine Nachricht als nicht zugestellt markiert?",
    "Wie heißt mein Hund?",
    "Wie heiße ich?",
    "Welches Auto fahre ich?",
    "Was ist mein Rufzeichen?",
    "Wie groß ist der Akku meines Solarknotens?",
    "Wo wohne ich?",
    "Was ist meine Lieblingsfrequenz?",
    "An welchem Tag trifft sich unser Funkclub?",
];

/// English or German.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    En,
    De,
}

impl Lang {
    fn script(self) -> [&'static str; 28] {
        match self {
            Lang::En => SCRIPT,
            Lang::De => SCRIPT_DE,
        }
    }
}

/// A model's answer: about two packets, as the real one writes (its length moves where the
/// token budget calls for a fold).
fn answer(req: &FakeRequest, lang: Lang) -> String {
    match lang {
        Lang::En => format!(
            "About \"{}\": LoRa trades speed for range, so keep messages short, mount the \
             antenna high and clear of metal, and give the mesh time to pass each packet along.",
            req.last_user()
        ),
        Lang::De => format!(
            "Zu „{}“: LoRa tauscht Geschwindigkeit gegen Reichweite, also halte Nachrichten \
             kurz, montiere die Antenne hoch und frei von Metall und gib dem Mesh Zeit.",
            req.last_user()
        ),
    }
}

/// A model's notes: one sentence per few messages folded, within `summary_max_chars`.
fn notes(req: &FakeRequest, lang: Lang) -> String {
    let folded = req.messages.len().saturating_sub(3);
    match lang {
        Lang::En => format!(
            "Tomasz (SP9QRZ) lives in Zakopane, drives an old Land Rover and has a dog called \
             Biscuit; he asked about LoRa radios, antennas and batteries over {folded} messages."
        ),
        Lang::De => format!(
            "Tomasz (SP9QRZ) wohnt in Zakopane, fährt einen alten Land Rover und hat einen Hund \
             namens Biscuit; er fragte in {folded} Nachrichten nach LoRa, Antennen und Akkus."
        ),
    }
}

/// The server's answers: notes to a summary request, an answer to anything else.
fn model(lang: Lang) -> impl Fn(&FakeRequest) -> FakeResponse + Send + Sync + 'static {
    move |req| {
        if is_summary(req) {
            FakeResponse::Text(notes(req, lang))
        } else {
            FakeResponse::Text(answer(req, lang))
        }
    }
}

/// Runs the 28 turns against a one-slot server (`props`: llama-server's `/props` slots, or
/// none, as Ollama) and returns every request's use of the cache.
async fn conversation(props: Option<u32>, lang: Lang, pause: Duration) -> Vec<CacheUse> {
    let sim = std::sync::Arc::new(SimNode::start(sim_config()).await);
    let llm = FakeLlm::start(model(lang)).await;
    llm.set_props_slots(props);
    llm.model_prompt_cache(SlotTiming::default());
    let url = llm.base_url();
    let d = Daemon::start_with_llm_url(sim, llm, db_dir(), "", &url, "timeout_secs = 300").await;
    for text in lang.script() {
        d.ask(ANN, text, Duration::from_secs(600)).await;
        // The user reads the answer and types the next message.
        tokio::time::sleep(pause).await;
    }
    // The last fold, if one runs, ends.
    tokio::time::sleep(Duration::from_secs(60)).await;
    // MESHAI_DUMP_PROMPTS=1 (with --nocapture): each request's last four messages, to see
    // what a costly reply carried.
    if std::env::var_os("MESHAI_DUMP_PROMPTS").is_some() {
        for r in d.llm.requests() {
            let n = r.messages.len();
            eprintln!("---- {} messages", n);
            for m in &r.messages[n.saturating_sub(4)..] {
                eprintln!("[{}] {}", m.role, m.content);
            }
        }
    }
    let uses = d.llm.cache_uses();
    let (result, ..) = d.stop().await;
    result.expect("the daemon stops cleanly");
    uses
}

/// The replies' evaluated tokens, and a line per request for the failure message.
fn replies(uses: &[CacheUse]) -> (Vec<usize>, String) {
    let evaluated: Vec<usize> = uses
        .iter()
        .filter(|u| !u.summary && !u.prefill)
        .map(|u| u.evaluated)
        .collect();
    let log = uses
        .iter()
        .map(|u| {
            format!(
                "{}{}{}/{}{}",
                if u.summary {
                    "S"
                } else if u.prefill {
                    "P"
                } else {
                    ""
                },
                u.evaluated,
                if u.summary || u.prefill {
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

/// Checks `uses` against the bounds; the mean evaluated per reply.
fn check(uses: &[CacheUse], max_mean: f64) -> f64 {
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
    for (i, r) in uses
        .iter()
        .enumerate()
        .filter(|(_, u)| !u.summary && !u.prefill)
    {
        assert!(
            r.evaluated <= r.fresh + MAX_LOST_TO_A_SUMMARY,
            "request {i}, a reply, read {} tokens where {} were new to the conversation (at \
             most {MAX_LOST_TO_A_SUMMARY} more): a summary evicted the conversation; {log}",
            r.evaluated,
            r.fresh
        );
    }
    let mean = evaluated.iter().sum::<usize>() as f64 / evaluated.len() as f64;
    let prefilled: usize = uses.iter().filter(|u| u.prefill).map(|u| u.evaluated).sum();
    let with_prefills =
        (evaluated.iter().sum::<usize>() + prefilled) as f64 / evaluated.len() as f64;
    println!(
        "evaluated per reply {mean:.1}, with the warm-ups' {with_prefills:.1}; requests \
         (evaluated(fresh)/prompt; S: summary, P: warm-up, x: cancelled): {log}"
    );
    assert!(
        mean <= max_mean,
        "{mean:.1} prompt tokens evaluated per reply (at most {max_mean}): {log}"
    );
    // A warm-up moves the re-reading of a fold off the reply's path; it adds nothing to it:
    // with the reply after it, it reads what that reply alone would have.
    for pair in uses.windows(2) {
        if let [w, r] = pair
            && w.prefill
            && !r.summary
        {
            assert!(
                w.evaluated + r.evaluated <= r.fresh + MAX_WARM_UP_EXTRA,
                "a warm-up read {} and the reply after it {}, where the reply alone would \
                 have read {}: {log}",
                w.evaluated,
                r.evaluated,
                r.fresh
            );
        }
    }
    mean
}

/// llama-server with one slot (`/props` says so; the daemon sends `id_slot`).
#[tokio::test(start_paused = true)]
async fn a_summary_never_evicts_the_conversation_on_one_llama_cpp_slot() {
    let _pace = paced();
    check(
        &conversation(Some(1), Lang::En, TYPIST).await,
        MAX_MEAN_EVALUATED,
    );
}

/// A server without `/props` (Ollama with one parallel sequence).
#[tokio::test(start_paused = true)]
async fn a_summary_never_evicts_the_conversation_on_a_server_without_props() {
    let _pace = paced();
    check(
        &conversation(None, Lang::En, TYPIST).await,
        MAX_MEAN_EVALUATED,
    );
}

/// The same in German, on one llama-server slot.
#[tokio::test(start_paused = true)]
async fn a_german_conversation_costs_the_cache_no_more() {
    let _pace = paced();
    check(
        &conversation(Some(1), Lang::De, TYPIST).await,
        MAX_MEAN_EVALUATED_DE,
    );
}

/// With the pauses people take on the air, each saved fold is followed by a warm-up before
/// the next message, and the reply after it reads only its message: the server's re-reading
/// of the new memory block happens while nobody waits (issue 37).
#[tokio::test(start_paused = true)]
async fn after_a_fold_the_next_prompt_is_read_while_nobody_waits() {
    let _pace = paced();
    let uses = conversation(Some(1), Lang::De, ON_THE_AIR).await;
    let mean = check(&uses, MAX_MEAN_WARM);
    let (_, log) = replies(&uses);
    let warm_ups = uses.iter().filter(|u| u.prefill).count();
    let saved = uses.iter().filter(|u| u.summary && !u.cancelled).count();
    assert!(
        warm_ups >= saved && saved > 0,
        "{warm_ups} warm-ups for {saved} summaries saved: {log}"
    );
    println!("per reply with pauses on the air: {mean:.1}");
}
