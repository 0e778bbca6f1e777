//! Real-model recall benchmark: does the memory keep what people said, at what prompt cost?
//!
//! One or more nodes each state 8 facts about themselves (a name, a callsign, a town, a dog,
//! a weekday, a number, a car, a frequency), then ask ordinary questions, then ask each fact
//! back; the next DM goes 2 s after the previous answer arrived, as in a fast live chat
//! (`MESHAI_RECALL_PAUSE_SECS` sets another pause: a fold that ends in it lets the daemon read
//! the next prompt into the server's cache before the next DM, `[memory] warm_after_fold`;
//! those warm-ups count with the summaries' calls, not the replies'). The whole
//! daemon runs (`meshai::run`, simulated node) against a real llama.cpp server through a
//! recording proxy that keeps llama-server's `timings`. Subjects, in one run:
//!
//! - `meshai`: the default `[memory]` (summaries, facts, retrieval);
//! - `whole history`: every message in every prompt (`window_messages = 200`, no retrieval);
//! - `last 8`: the same, but the proxy cuts each prompt to the system prompt and the last 8
//!   messages before the new one.
//!
//! A fact counts as recalled when the answer to its question contains its key (ignoring
//! case). Per subject it prints: facts recalled, prompt tokens sent (the server's
//! `usage.prompt_tokens` over the replies), prompt tokens the server evaluated per reply
//! (`timings.prompt_n`) against the prompt's length after the first fold, summary calls
//! started / saved / cancelled / failed / at the cap (the admin's `!status`), DM → first
//! packet p50.
//!
//! Replies are not streamed here (`stream = false`), so every answer's token counts arrive.
//!
//! Scenarios (`MESHAI_RECALL=28|long|nodes3|corrections`, default 28): 28 turns; `long`: 72
//! turns (run it on a server with a 2048-token context per slot); `nodes3`: three nodes taking
//! turns (28 turns each), meshai only (run it on a server with 4 slots); `corrections`: 34
//! turns in which four of ten facts are corrected (see `recall/corrections.rs`), meshai and
//! the whole history.
//!
//! `MESHAI_RECALL_REQUESTS=FILE` appends every request the server got to FILE (JSON, one a
//! line), to probe wordings against the server directly.
//!
//! Run: `scripts/recall-bench.sh` (starts llama-server with Qwen2.5-Coder-0.5B-Instruct in
//! the right shape for each scenario). Without `MESHAI_REAL_LLM_URL` it prints SKIPPED.

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "recall/corrections.rs"]
mod corrections;
#[path = "../tests/it/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::sync::Arc;
use std::time::Duration;

use harness::{Daemon, answer_to, sim_config};
use meshai::chunk::strip_marker;
use support::fake_llm::FakeLlm;
use support::proxy::{Exchange, Recorded, prompt_usage, rewriting_proxy, with_timings};
use support::sim_node::SimNode;

const ADMIN: u32 = 0xad00_0009;
const NODES: [u32; 3] = [0xbe0c_0001, 0xbe0c_0002, 0xbe0c_0003];

/// The conversation's language: `MESHAI_RECALL_LANG=de` asks everything in German, `es` in
/// Spanish.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lang {
    En,
    De,
    Es,
}

impl Lang {
    fn from_env() -> Lang {
        match std::env::var("MESHAI_RECALL_LANG").as_deref() {
            Ok("de") => Lang::De,
            Ok("es") => Lang::Es,
            _ => Lang::En,
        }
    }
}

/// Per node: (statement, question, key) × 8. The values differ per node (`set`) so that a
/// node's facts can only come from its own memory.
fn facts(lang: Lang, set: usize) -> Vec<(String, String, String)> {
    match lang {
        Lang::En => facts_en(set),
        Lang::De => facts_de(set),
        Lang::Es => facts_es(set),
    }
}

fn facts_en(node: usize) -> Vec<(String, String, String)> {
    let names = ["Tomasz", "Ingrid", "Mateo"];
    let calls = ["SP9QRZ", "LA7KJV", "EA5XTB"];
    let towns = ["Zakopane", "Tromso", "Albarracin"];
    let dogs = ["Biscuit", "Pepper", "Chorizo"];
    let days = ["Thursday", "Monday", "Friday"];
    let mah = ["3000", "5200", "1800"];
    let cars = ["Land Rover", "Volvo", "Citroen"];
    let freqs = ["869.525", "433.175", "868.1"];
    let i = node % 3;
    let f = |s: String, q: &str, k: &str| (s, q.to_string(), k.to_string());
    vec![
        f(
            format!("Hi, my name is {}.", names[i]),
            "What is my name?",
            names[i],
        ),
        f(
            format!("My callsign is {}.", calls[i]),
            "What is my callsign?",
            calls[i],
        ),
        f(
            format!("I live in {}.", towns[i]),
            "Where do I live?",
            towns[i],
        ),
        f(
            format!("My dog is called {}.", dogs[i]),
            "What is my dog called?",
            dogs[i],
        ),
        f(
            format!("Our radio club meets every second {}.", days[i]),
            "On which day does our radio club meet?",
            days[i],
        ),
        f(
            format!("My solar node has a {} mAh battery.", mah[i]),
            "How big is the battery of my solar node?",
            mah[i],
        ),
        f(
            format!("I drive an old {}.", cars[i]),
            "What car do I drive?",
            cars[i],
        ),
        f(
            format!("My favourite frequency is {} MHz.", freqs[i]),
            "What is my favourite frequency?",
            freqs[i],
        ),
    ]
}

/// The German facts: two of the eight are not about "ich" (the club, the node's battery),
/// as people state facts about their group or things.
fn facts_de(set: usize) -> Vec<(String, String, String)> {
    let names = ["Tomasz", "Ingrid", "Mateo"];
    let calls = ["DL2XYZ", "DK4RBA", "DO7MUH"];
    let towns = ["Garmisch", "Husum", "Bautzen"];
    let dogs = ["Pepper", "Bello", "Krümel"];
    let days = ["Donnerstag", "Montag", "Freitag"];
    let mah = ["3000", "5200", "1800"];
    let daughters = ["Lena", "Mia", "Greta"];
    let locators = ["JN58TD", "JO44QM", "JO71GD"];
    let i = set % 3;
    let f = |s: String, q: &str, k: &str| (s, q.to_string(), k.to_string());
    vec![
        f(
            format!("Hallo, ich heiße {}.", names[i]),
            "Wie heiße ich?",
            names[i],
        ),
        f(
            format!("Mein Rufzeichen ist {}.", calls[i]),
            "Wie lautet mein Rufzeichen?",
            calls[i],
        ),
        f(
            format!("Ich wohne in {}.", towns[i]),
            "Wo wohne ich?",
            towns[i],
        ),
        f(
            format!("Mein Hund heißt {}.", dogs[i]),
            "Wie heißt mein Hund?",
            dogs[i],
        ),
        f(
            format!(
                "Der Funkverein trifft sich jeden zweiten {} um 19:30.",
                days[i]
            ),
            "An welchem Tag trifft sich der Funkverein?",
            days[i],
        ),
        f(
            format!("Der Akku am Solarknoten hat {} mAh.", mah[i]),
            "Wie groß ist der Akku am Solarknoten?",
            mah[i],
        ),
        f(
            format!("Meine Tochter heißt {}.", daughters[i]),
            "Wie heißt meine Tochter?",
            daughters[i],
        ),
        f(
            format!("Mein Locator ist {}.", locators[i]),
            "Wie lautet mein Locator?",
            locators[i],
        ),
    ]
}

/// The Spanish facts: two of the eight are not about "yo" (the club, the node's battery).
fn facts_es(set: usize) -> Vec<(String, String, String)> {
    let names = ["Lucía", "Mateo", "Carmen"];
    let calls = ["EA4GHX", "EA7KLM", "EA1BQZ"];
    let towns = ["Teruel", "Cáceres", "Lugo"];
    let dogs = ["Canela", "Toby", "Lola"];
    let days = ["jueves", "lunes", "viernes"];
    let mah = ["3000", "5200", "1800"];
    let daughters = ["Alba", "Nerea", "Irene"];
    let locators = ["IN90QH", "IM79XL", "IN73NB"];
    let i = set % 3;
    let f = |s: String, q: &str, k: &str| (s, q.to_string(), k.to_string());
    vec![
        f(
            format!("Hola, me llamo {}.", names[i]),
            "¿Cómo me llamo?",
            names[i],
        ),
        f(
            format!("Mi indicativo es {}.", calls[i]),
            "¿Cuál es mi indicativo?",
            calls[i],
        ),
        f(format!("Vivo en {}.", towns[i]), "¿Dónde vivo?", towns[i]),
        f(
            format!("Mi perro se llama {}.", dogs[i]),
            "¿Cómo se llama mi perro?",
            dogs[i],
        ),
        f(
            format!(
                "El radioclub se reúne cada segundo {} a las 19:30.",
                days[i]
            ),
            "¿Qué día se reúne el radioclub?",
            days[i],
        ),
        f(
            format!("La batería del nodo solar tiene {} mAh.", mah[i]),
            "¿Qué capacidad tiene la batería del nodo solar?",
            mah[i],
        ),
        f(
            format!("Mi hija se llama {}.", daughters[i]),
            "¿Cómo se llama mi hija?",
            daughters[i],
        ),
        f(
            format!("Mi locator es {}.", locators[i]),
            "¿Cuál es mi locator?",
            locators[i],
        ),
    ]
}

/// Ordinary questions in Spanish.
const FILLER_ES: &[&str] = &[
    "¿Qué es LoRa, en una frase?",
    "¿Hasta dónde llega una radio LoRa desde una colina?",
    "¿Qué significa SNR?",
    "¿Por qué los paquetes saltan de nodo en nodo?",
    "¿Qué antena va bien para un nodo en el tejado?",
    "¿Cómo mantengo caliente una batería en invierno?",
    "¿Qué me dice la ocupación del canal?",
    "¿Son mucho 20 dBm de potencia?",
    "¿Qué diferencia hay entre un nodo router y un cliente?",
    "¿Cada cuánto debe un nodo enviar su posición?",
    "¿Qué es un dipolo?",
    "¿Por qué mi mensaje sale como no entregado?",
    "¿Qué es el preset LongFast?",
    "¿Puede la lluvia reducir el alcance de LoRa?",
    "¿Cómo actualizo el firmware de mi nodo?",
    "¿Qué es un ACK?",
    "¿Necesito GPS en un nodo fijo?",
    "¿Qué significa el ciclo de trabajo en las radios?",
    "¿Cómo monto una antena en un mástil?",
    "¿Qué cable es bueno para 868 MHz?",
    "¿Qué es la zona de Fresnel?",
];

/// Ordinary questions between the facts and the recall questions.
const FILLER: &[&str] = &[
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
    "What is the LongFast preset?",
    "Can rain affect LoRa range?",
    "How do I update the firmware on my node?",
    "What is an ACK?",
    "Should I use a GPS on a fixed node?",
    "What does duty cycle mean for radios?",
    "How do I mount an antenna on a mast?",
    "What is a good cable for 868 MHz?",
    "What is the Fresnel zone?",
    "How much current does a node draw while sleeping?",
    "What is MQTT used for in Meshtastic?",
    "How many hops can a message take?",
    "What does RSSI mean?",
    "Can I run a node from a USB power bank?",
    "What is a ground plane?",
    "How do I name my node?",
    "What are channels in Meshtastic?",
    "Why do nodes need the same preset?",
    "What is a repeater?",
    "How do I secure my channel?",
    "What is the best height for an antenna?",
    "Does a longer antenna mean more range?",
    "What is spreading factor?",
    "How do I read the node list?",
    "What is a traceroute?",
    "Why does my node reboot at night?",
    "How do I reset a node?",
    "What is airtime?",
    "What is a mesh network?",
    "How fast is LoRa?",
    "What is bandwidth in LoRa?",
    "Can I talk to other countries over LoRa?",
    "What is a waypoint?",
    "How do solar panels charge a battery?",
    "What is a BMS?",
    "Why should I fuse a battery?",
    "What is a lightning arrester?",
    "What does the hop limit do?",
    "How do I see who heard my message?",
    "What is a store and forward node?",
    "How do I power a node on a bike?",
    "What is an IP rating?",
    "How cold can a lithium battery get?",
    "What is a coax connector?",
];

/// Ordinary questions in German.
const FILLER_DE: &[&str] = &[
    "Was ist LoRa, in einem Satz?",
    "Wie weit reicht ein LoRa-Funkgerät von einem Hügel aus?",
    "Was bedeutet SNR?",
    "Warum springen Pakete von Knoten zu Knoten?",
    "Welche Antenne passt für einen Knoten auf dem Dach?",
    "Wie halte ich einen Akku im Winter warm?",
    "Was sagt mir die Kanalauslastung?",
    "Sind 20 dBm viel Sendeleistung?",
    "Was ist der Unterschied zwischen einem Router und einem Client?",
    "Wie oft sollte ein Knoten seine Position senden?",
    "Was ist ein Dipol?",
    "Warum ist meine Nachricht als nicht zugestellt markiert?",
    "Was ist das Preset LongFast?",
    "Kann Regen die Reichweite von LoRa verringern?",
    "Wie aktualisiere ich die Firmware meines Knotens?",
    "Was ist ein ACK?",
    "Brauche ich GPS an einem festen Knoten?",
    "Was bedeutet Duty Cycle bei Funkgeräten?",
    "Wie montiere ich eine Antenne an einem Mast?",
    "Welches Kabel ist gut für 868 MHz?",
    "Was ist die Fresnelzone?",
];

/// One message of a script: what is sent and, for a question about a fact, the value its
/// answer must hold and (for a corrected fact) the old value it must not.
#[derive(Clone, Debug)]
struct Line {
    text: String,
    key: Option<String>,
    old: Option<String>,
}

impl Line {
    fn said(text: String) -> Line {
        Line {
            text,
            key: None,
            old: None,
        }
    }

    fn asked(question: &str, key: &str, old: Option<&str>) -> Line {
        Line {
            text: question.to_string(),
            key: Some(key.to_string()),
            old: old.map(str::to_string),
        }
    }
}

/// The script of one node: facts, `filler` questions, the recall questions (in a shuffled
/// order, so the last fact stated is not the first asked).
fn script(lang: Lang, node: usize, filler: usize, tag: &str) -> Vec<Line> {
    let facts = facts(lang, node);
    let filler_questions = match lang {
        Lang::En => FILLER,
        Lang::De => FILLER_DE,
        Lang::Es => FILLER_ES,
    };
    let mut turns: Vec<Line> = Vec::new();
    for (i, (s, _, _)) in facts.iter().enumerate() {
        let s = if i == 0 {
            format!("{s} ({tag})")
        } else {
            s.clone()
        };
        turns.push(Line::said(s));
    }
    for i in 0..filler {
        let q = filler_questions[(i + node * 7) % filler_questions.len()];
        turns.push(Line::said(q.to_string()));
    }
    for i in [3usize, 0, 6, 1, 5, 2, 7, 4] {
        let (_, q, k) = &facts[i];
        turns.push(Line::asked(q, k, None));
    }
    turns
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Subject {
    Meshai,
    Whole,
    Last8,
}

impl Subject {
    fn name(self) -> &'static str {
        match self {
            Subject::Meshai => "meshai",
            Subject::Whole => "whole history",
            Subject::Last8 => "last 8 messages",
        }
    }

    fn memory(self) -> &'static str {
        match self {
            Subject::Meshai => "",
            Subject::Whole | Subject::Last8 => {
                "[memory]\nwindow_messages = 200\nretrieve_exchanges = 0\n"
            }
        }
    }
}

/// The proxy's rewrite for `last 8`: the first system message, the last 8 messages before the
/// new one, the new one (and [`with_timings`]'s).
fn last8(body: &[u8]) -> Vec<u8> {
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&with_timings(body)) else {
        return body.to_vec();
    };
    if let Some(msgs) = v.get_mut("messages").and_then(|m| m.as_array_mut()) {
        let is_summary = msgs
            .last()
            .and_then(|m| m["content"].as_str())
            .is_some_and(meshai::memory::summary::is_summary_text);
        if !is_summary && msgs.len() > 10 {
            let system = msgs[0].clone();
            let tail: Vec<serde_json::Value> = msgs[msgs.len() - 9..].to_vec();
            *msgs = std::iter::once(system).chain(tail).collect();
        }
    }
    serde_json::to_vec(&v).unwrap_or_else(|_| body.to_vec())
}

/// What one reply cost and did.
#[derive(Default, Clone)]
struct Reply {
    node: usize,
    question: String,
    first_packet: Duration,
    answer: String,
    key: Option<String>,
    /// A corrected fact's old value.
    old: Option<String>,
    prompt_tokens: u64,
    evaluated: u64,
    folded: bool,
}

/// POSTs `body` as JSON to `url` and reads a JSON answer; `None` on any failure.
async fn post_json(
    http: &reqwest::Client,
    url: &str,
    body: serde_json::Value,
) -> Option<serde_json::Value> {
    http.post(url)
        .json(&body)
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()
}

/// How long the person takes to read an answer and send the next message:
/// `MESHAI_RECALL_PAUSE_SECS`, 2 s by default (a fast typist; on the air the answer's last
/// packet alone takes seconds, and people take tens of seconds to reply).
fn pause() -> Duration {
    Duration::from_secs(
        std::env::var("MESHAI_RECALL_PAUSE_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2),
    )
}

/// The reply requests, in order: chat requests that are not summaries (the proxy also saw
/// the daemon's `/props` probe).
fn reply_prompts(seen: &Recorded) -> Vec<Exchange> {
    seen.lock()
        .map(|l| {
            l.iter()
                .filter(|e| e.request.contains("\"messages\"") && !is_summary(e))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// A summary or a warm-up after one: the daemon's background calls, not a reply's.
fn is_summary(e: &Exchange) -> bool {
    e.is_summary() || e.is_prefill()
}

/// The answer's text in a response body: one JSON completion, or the deltas of a stream.
fn response_text(response: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(response) {
        return v["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string();
    }
    response
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d.trim()).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

struct Outcome {
    replies: Vec<Reply>,
    status: String,
    /// Summary calls: how many, and the prompt tokens the server evaluated for them.
    summary_calls: usize,
    summary_evaluated: u64,
    /// The whole history over this run's own conversation (one node only): prompt tokens per
    /// reply, counted by the server.
    same_transcript: Vec<u64>,
}

/// What the whole history would have cost over the very conversation meshai had: turn t's
/// prompt is the system prompt, every earlier question and answer of this run, the per-turn
/// notes (without retrieved exchanges) and the question, counted by llama-server's
/// `/apply-template` and `/tokenize`. The answers are this run's, so unlike the whole-history
/// subject (which writes its own, longer or shorter, answers) the ratio does not move with
/// answer lengths.
async fn same_transcript_tokens(url: &str, seen: &Recorded) -> Vec<u64> {
    let base = url.trim_end_matches('/').trim_end_matches("/v1");
    let _ = rustls::crypto::ring::default_provider().install_default();
    let Ok(http) = reqwest::Client::builder().build() else {
        return Vec::new();
    };
    let prompts = reply_prompts(seen);
    let mut transcript: Vec<serde_json::Value> = Vec::new();
    let mut out = Vec::new();
    for e in &prompts {
        let req: serde_json::Value = serde_json::from_str(&e.request).unwrap_or_default();
        let msgs = req["messages"].as_array().cloned().unwrap_or_default();
        // The question is the last user message; the per-turn block, when there is one, the
        // system message after it.
        let Some(system) = msgs.first() else {
            return Vec::new();
        };
        let Some(at) = msgs.iter().rposition(|m| m["role"] == "user") else {
            return Vec::new();
        };
        let question = &msgs[at];
        let notes = match msgs.get(at + 1) {
            Some(m) if m["role"] == "system" => {
                let kept: Vec<&str> = m["content"]
                    .as_str()
                    .unwrap_or_default()
                    .split("\n\n")
                    .filter(|p| !p.starts_with(meshai::memory::layout::RETRIEVED_INTRO))
                    .collect();
                kept.join("\n\n")
            }
            _ => String::new(),
        };
        let mut whole = vec![system.clone()];
        whole.extend(transcript.iter().cloned());
        whole.push(question.clone());
        if !notes.is_empty() {
            whole.push(serde_json::json!({"role": "system", "content": notes}));
        }
        let count = async {
            let templated = post_json(
                &http,
                &format!("{base}/apply-template"),
                serde_json::json!({ "messages": whole }),
            )
            .await?;
            let tokens = post_json(
                &http,
                &format!("{base}/tokenize"),
                serde_json::json!({ "content": templated["prompt"], "add_special": true }),
            )
            .await?;
            tokens["tokens"].as_array().map(|t| t.len() as u64)
        };
        let Some(n) = count.await else {
            return Vec::new();
        };
        out.push(n);
        let answer = response_text(&e.response);
        transcript.push(question.clone());
        transcript.push(serde_json::json!({"role": "assistant", "content": answer}));
    }
    out
}

/// One conversation's shape.
#[derive(Clone, Debug)]
struct Run {
    nodes: usize,
    filler: usize,
    lang: Lang,
    /// The first node's value set (a second German run uses other names and numbers).
    set: usize,
    /// Streamed answers (`MESHAI_RECALL_STREAM=1`), as a user gets them by default.
    stream: bool,
    /// The `corrections` conversation instead of the facts-filler-questions one.
    corrections: bool,
}

async fn conversation(url: &str, subject: Subject, run: &Run, tag: &str) -> Outcome {
    let Run {
        nodes,
        filler,
        lang,
        set,
        stream,
        corrections,
    } = run.clone();
    let rewrite = if subject == Subject::Last8 {
        last8
    } else {
        with_timings
    };
    let (proxy_url, seen) = rewriting_proxy(url.to_string(), rewrite).await;
    let sim = Arc::new(SimNode::start(sim_config()).await);
    let placeholder = FakeLlm::start_echo().await;
    let dir = tempfile::tempdir().expect("tempdir");
    // MESHAI_RECALL_MEMORY="window_messages = 2; summarize_threshold = 4" tries other
    // `[memory]` settings for the meshai subject.
    let memory = match (subject, std::env::var("MESHAI_RECALL_MEMORY")) {
        (Subject::Meshai, Ok(lines)) => format!("[memory]\n{}\n", lines.replace(';', "\n")),
        _ => subject.memory().to_string(),
    };
    let extra = format!("{memory}[access]\nadmins = [\"!{ADMIN:08x}\"]\n");
    // Temperature 0 and short answers, as a radio bot gives. Not streamed by default: every
    // answer then arrives whole, with `usage`. Streamed (`MESHAI_RECALL_STREAM=1`): the proxy's `timings_per_token` still gives every
    // answer's evaluated tokens.
    let llm = format!("timeout_secs = 300\ntemperature = 0.0\nmax_tokens = 120\nstream = {stream}");
    let llm = llm.as_str();
    let d = Daemon::start_with_llm_url(sim, placeholder, dir, &extra, &proxy_url, llm).await;
    let scripts: Vec<Vec<Line>> = (0..nodes)
        .map(|n| {
            if corrections {
                corrections::script(lang, set + n, tag)
            } else {
                script(lang, set + n, filler, tag)
            }
        })
        .collect();
    let mut replies = Vec::new();
    for turn in 0..scripts[0].len() {
        for (n, script) in scripts.iter().enumerate() {
            let Line { text, key, old } = &script[turn];
            let node = NODES[n];
            let before_texts = d.sim.texts().len();
            let before_reqs = seen.lock().map(|l| l.len()).unwrap_or(0);
            let asked = tokio::time::Instant::now();
            d.sim.inject_dm(node, text, None);
            let parts = answer_to(&d.sim, node, before_texts).await;
            let first_packet = parts
                .first()
                .map_or(Duration::ZERO, |p| p.at.saturating_duration_since(asked));
            let answer: Vec<&str> = parts.iter().map(|p| strip_marker(&p.text)).collect();
            // A streamed answer's last part can reach the node before the proxy has the
            // whole response: wait for it (a reply's request is the last one that is not a
            // summary).
            let mut exchange = Exchange::default();
            for _ in 0..300 {
                let last = seen.lock().ok().and_then(|l| {
                    l[before_reqs..]
                        .iter()
                        .rev()
                        .find(|e| e.request.contains("\"messages\"") && !is_summary(e))
                        .cloned()
                });
                match last {
                    Some(e) if !e.response.is_empty() => {
                        exchange = e;
                        break;
                    }
                    _ => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
            let (prompt_tokens, evaluated) = prompt_usage(&exchange.response);
            if prompt_tokens == 0 {
                println!("    no token counts for {text:?}; the requests since:");
                if let Ok(l) = seen.lock() {
                    for e in &l[before_reqs..] {
                        let tail: String = e.request.chars().rev().take(90).collect();
                        let tail: String = tail.chars().rev().collect();
                        println!(
                            "      summary {} response {} chars, request …{tail}",
                            is_summary(e),
                            e.response.len()
                        );
                    }
                }
            }
            replies.push(Reply {
                node: n,
                question: text.clone(),
                first_packet,
                answer: answer.join(" "),
                key: key.clone(),
                old: old.clone(),
                prompt_tokens,
                evaluated,
                folded: exchange
                    .request
                    .contains(meshai::memory::layout::MEMORY_INTRO),
            });
            // The user reads the answer and types the next message.
            tokio::time::sleep(pause()).await;
        }
    }
    // Let a summary still running finish, so the counters are final.
    tokio::time::sleep(Duration::from_secs(20)).await;
    let before = d.sim.texts().len();
    d.sim.inject_dm(ADMIN, "!status", None);
    let status: Vec<String> = answer_to(&d.sim, ADMIN, before)
        .await
        .iter()
        .map(|t| strip_marker(&t.text).to_string())
        .collect();
    let status = status.join(" ");
    let status = status
        .split_once("summaries ")
        .map_or(String::new(), |(_, s)| s.trim_end_matches('.').to_string());
    let status = status
        .split_once(". Queue")
        .map_or(status.clone(), |(s, _)| s.to_string());
    let (summary_calls, summary_evaluated) = seen
        .lock()
        .map(|l| {
            let calls: Vec<&Exchange> = l.iter().filter(|e| is_summary(e)).collect();
            let evaluated = calls.iter().map(|e| prompt_usage(&e.response).1).sum();
            (calls.len(), evaluated)
        })
        .unwrap_or_default();
    if std::env::var_os("MESHAI_RECALL_DUMP").is_some() {
        dump(&seen);
    }
    if let Some(file) = std::env::var_os("MESHAI_RECALL_REQUESTS") {
        write_requests(&seen, std::path::Path::new(&file));
    }
    let (result, ..) = d.stop().await;
    result.expect("the daemon stopped cleanly");
    let same_transcript = if subject == Subject::Meshai && nodes == 1 {
        same_transcript_tokens(url, &seen).await
    } else {
        Vec::new()
    };
    Outcome {
        replies,
        status,
        summary_calls,
        summary_evaluated,
        same_transcript,
    }
}

/// Appends every request the server got (replies and summaries, in order) to `file`, one JSON
/// body a line, for probing wordings against the server directly (`MESHAI_RECALL_REQUESTS`).
fn write_requests(seen: &Recorded, file: &std::path::Path) {
    use std::io::Write as _;
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .unwrap();
    for e in seen.lock().unwrap().iter() {
        writeln!(out, "{}", e.request.replace('\n', " ")).unwrap();
    }
}

/// Prints the last reply prompt (`MESHAI_RECALL_DUMP=all`: every reply prompt), message by
/// message, with its length in characters.
fn dump(seen: &Recorded) {
    let all = std::env::var("MESHAI_RECALL_DUMP").is_ok_and(|v| v == "all");
    let prompts = reply_prompts(seen);
    let skip = if all {
        0
    } else {
        prompts.len().saturating_sub(1)
    };
    for (turn, e) in prompts.iter().enumerate().skip(skip) {
        println!("    -- reply prompt {}", turn + 1);
        let v: serde_json::Value = serde_json::from_str(&e.request).unwrap_or_default();
        for m in v["messages"].as_array().into_iter().flatten() {
            let content = m["content"].as_str().unwrap_or_default();
            println!(
                "    [{} {:>4}] {}",
                m["role"].as_str().unwrap_or_default(),
                content.chars().count(),
                content.replace('\n', " / ")
            );
        }
    }
    if all {
        let summaries: Vec<Exchange> = seen
            .lock()
            .map(|l| l.iter().filter(|e| is_summary(e)).cloned().collect())
            .unwrap_or_default();
        for (i, e) in summaries.iter().enumerate() {
            println!(
                "    -- summary call {}: {:?}",
                i + 1,
                response_text(&e.response)
            );
        }
    }
}

/// The `pct`-th percentile (nearest rank) of `xs`.
fn percentile(mut xs: Vec<f64>, pct: usize) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    let rank = (xs.len() * pct).div_ceil(100).max(1);
    xs.get(rank - 1).copied().unwrap_or(0.0)
}

/// Lower-case words of `text` (letters and digits).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether an answer recites the per-turn context (the "who is asking" line: hops, SNR,
/// distance, the local time) instead of answering: it uses one of the line's words that the
/// question did not use, or says a weekday and a clock time as the line does ("Tue 02:56").
fn quotes_context(question: &str, answer: &str) -> bool {
    const MARKERS: &[&str] = &[
        "snr", "db", "hop", "hops", "asker", "ortszeit", "heard", "directly", "km",
    ];
    let asked = words(question);
    let said = words(answer);
    let marker = said
        .iter()
        .any(|w| MARKERS.contains(&w.as_str()) && !asked.contains(w));
    let lower = answer.to_lowercase();
    let clock = ["mon ", "tue ", "wed ", "thu ", "fri ", "sat ", "sun "]
        .iter()
        .any(|d| {
            lower.match_indices(d).any(|(i, _)| {
                let rest = &lower.as_bytes()[i + d.len()..];
                rest.len() >= 5 && rest[2] == b':' && rest[..2].iter().all(u8::is_ascii_digit)
            })
        });
    marker || clock || lower.contains("local time") || lower.contains("radio details")
}

/// The language an answer is written in, by its common words; `None` when it has too few
/// to tell (a name, a number).
fn language(answer: &str) -> Option<Lang> {
    const DE: &[&str] = &[
        "der", "die", "das", "und", "ist", "ein", "eine", "einen", "nicht", "ich", "du", "sie",
        "mit", "für", "auf", "von", "zu", "den", "dem", "es", "wird", "sind", "kann", "dein",
        "deine", "ihr", "wie", "was", "bei", "oder", "auch", "im", "am", "zum", "heißt", "hat",
        "wohnst", "trifft", "sich", "dich", "mein", "meine", "lautet",
    ];
    const ES: &[&str] = &[
        "el", "la", "los", "las", "y", "es", "un", "una", "no", "yo", "tu", "tú", "con", "para",
        "en", "de", "del", "se", "que", "qué", "cómo", "llama", "llamas", "vives", "tiene", "son",
        "puede", "por", "o", "también", "al", "mi", "su", "te", "está", "reúne",
    ];
    const EN: &[&str] = &[
        "the", "and", "is", "a", "an", "not", "you", "your", "with", "for", "on", "of", "to", "it",
        "are", "can", "what", "how", "my", "this", "that", "called", "has", "live", "meets", "be",
        "or", "its",
    ];
    let w = words(answer);
    let count = |list: &[&str]| w.iter().filter(|w| list.contains(&w.as_str())).count();
    let mut scores = [
        (Lang::De, count(DE)),
        (Lang::En, count(EN)),
        (Lang::Es, count(ES)),
    ];
    scores.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    match scores {
        [(_, a), (_, b), (_, c)] if a + b + c < 2 || a == b => None,
        [(lang, _), ..] => Some(lang),
    }
}

fn report(subject: Subject, run: &Run, o: &Outcome) {
    let nodes = run.nodes;
    let asked: Vec<&Reply> = o.replies.iter().filter(|r| r.key.is_some()).collect();
    let holds = |r: &Reply, v: Option<&str>| {
        v.is_some_and(|v| r.answer.to_lowercase().contains(&v.to_lowercase()))
    };
    // A corrected fact's answer counts only when it holds the new value and not the old.
    let right = |r: &Reply| holds(r, r.key.as_deref()) && !holds(r, r.old.as_deref());
    let recalled = asked.iter().filter(|r| right(r)).count();
    let sent: u64 = o.replies.iter().map(|r| r.prompt_tokens).sum();
    let failed = o.replies.iter().filter(|r| r.prompt_tokens == 0).count();
    // After the first fold (from the start when there is none).
    let first_fold = o.replies.iter().position(|r| r.folded).unwrap_or(0);
    let late = &o.replies[first_fold..];
    let late_sent: u64 = late.iter().map(|r| r.prompt_tokens).sum();
    let late_eval: u64 = late.iter().map(|r| r.evaluated).sum();
    let eval_all: u64 = o.replies.iter().map(|r| r.evaluated).sum();
    let firsts: Vec<f64> = o
        .replies
        .iter()
        .map(|r| r.first_packet.as_secs_f64() * 1000.0)
        .collect();
    let (first, first90) = (percentile(firsts.clone(), 50), percentile(firsts, 90));
    let parrots: Vec<&Reply> = o
        .replies
        .iter()
        .filter(|r| quotes_context(&r.question, &r.answer))
        .collect();
    let foreign: Vec<&Reply> = o
        .replies
        .iter()
        .filter(|r| language(&r.answer).is_some_and(|l| l != run.lang))
        .collect();
    let per_reply = |tokens: u64| tokens as f64 / o.replies.len().max(1) as f64;
    println!(
        "| {} | {recalled}/{} | {sent} | {:.0} | {:.0} ({} calls) | {:.0}% (from turn {}) | {} | {first:.0} / {first90:.0} | {failed} | {} | {} |",
        subject.name(),
        asked.len(),
        per_reply(eval_all),
        per_reply(eval_all + o.summary_evaluated),
        o.summary_calls,
        100.0 * late_eval as f64 / late_sent.max(1) as f64,
        first_fold / nodes + 1,
        o.status,
        parrots.len(),
        foreign.len(),
    );
    for r in parrots.iter().chain(&foreign) {
        println!(
            "    context quoted or other language: {:?} → {:?}",
            r.question,
            r.answer.chars().take(140).collect::<String>()
        );
    }
    let per_turn: Vec<String> = o
        .replies
        .iter()
        .map(|r| format!("{}/{}", r.evaluated, r.prompt_tokens))
        .collect();
    println!(
        "    evaluated/prompt tokens per reply: {}",
        per_turn.join(" ")
    );
    if !o.same_transcript.is_empty() {
        let whole: u64 = o.same_transcript.iter().sum();
        // Before the first fold both prompts are the same: a check of the count itself.
        let early: Vec<String> = o
            .replies
            .iter()
            .zip(&o.same_transcript)
            .take(first_fold)
            .filter(|(r, w)| r.prompt_tokens != **w)
            .map(|(r, w)| format!("{}≠{w}", r.prompt_tokens))
            .collect();
        println!(
            "    the whole history over this same conversation: {whole} prompt tokens; meshai sent {:.0} % of it{}",
            100.0 * sent as f64 / whole.max(1) as f64,
            if early.is_empty() {
                String::new()
            } else {
                format!(
                    " (counts differ before the first fold: {})",
                    early.join(" ")
                )
            }
        );
    }
    let corrected: Vec<&&Reply> = asked.iter().filter(|r| r.old.is_some()).collect();
    if !corrected.is_empty() {
        let current = corrected.iter().filter(|r| right(r)).count();
        let stale = corrected
            .iter()
            .filter(|r| holds(r, r.old.as_deref()))
            .count();
        let plain: Vec<&&Reply> = asked.iter().filter(|r| r.old.is_none()).collect();
        let plain_ok = plain.iter().filter(|r| right(r)).count();
        println!(
            "    corrected facts: current value {current}/{n}, old value {stale}/{n}; uncorrected facts {plain_ok}/{m}",
            n = corrected.len(),
            m = plain.len(),
        );
    }
    for r in &asked {
        let k = r.key.as_deref().unwrap_or_default();
        let mark = if right(r) {
            "✓"
        } else if holds(r, r.old.as_deref()) {
            "old"
        } else {
            "✗"
        };
        println!(
            "    node {} {mark} {k:>12}: {}",
            r.node,
            r.answer.chars().take(110).collect::<String>()
        );
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Ok(url) = std::env::var("MESHAI_REAL_LLM_URL") else {
        println!(
            "SKIPPED recall bench: MESHAI_REAL_LLM_URL is not set (run scripts/recall-bench.sh)"
        );
        return;
    };
    let scenario = std::env::var("MESHAI_RECALL").unwrap_or_else(|_| "28".into());
    let lang = Lang::from_env();
    let stream = std::env::var("MESHAI_RECALL_STREAM").is_ok_and(|v| v == "1");
    let (nodes, filler, subjects): (usize, usize, &[Subject]) = match scenario.as_str() {
        "long" => (1, 56, &[Subject::Meshai, Subject::Whole, Subject::Last8]),
        "nodes3" => (3, 12, &[Subject::Meshai]),
        "corrections" => (1, 10, &[Subject::Meshai, Subject::Whole]),
        _ => (1, 12, &[Subject::Meshai, Subject::Whole, Subject::Last8]),
    };
    // MESHAI_RECALL_SETS=2 runs each subject again with the next value set (other names and
    // numbers): 16 facts instead of 8.
    let sets: usize = std::env::var("MESHAI_RECALL_SETS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    println!(
        "recall bench, scenario {scenario} ({lang:?}{}): {nodes} node(s), {} turns each, {sets} value set(s), server {url}",
        if stream { ", streamed" } else { "" },
        if scenario == "corrections" {
            34
        } else {
            16 + filler
        }
    );
    println!(
        "| subject | facts recalled | prompt tokens sent | evaluated per reply | with the summaries' and warm-ups' | evaluated / sent after the first fold | summaries | DM → first packet p50 / p90 ms | failed replies | answers quoting the context | answers in another language |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    // MESHAI_RECALL_SUBJECTS=meshai,whole,last8 runs only those.
    let only = std::env::var("MESHAI_RECALL_SUBJECTS").unwrap_or_default();
    // MESHAI_RECALL_SET_FROM=1 skips the first value set(s) (to rerun only a later one).
    let from: usize = std::env::var("MESHAI_RECALL_SET_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for set in from..sets {
        for (i, subject) in subjects.iter().enumerate() {
            let key = match subject {
                Subject::Meshai => "meshai",
                Subject::Whole => "whole",
                Subject::Last8 => "last8",
            };
            if !only.is_empty() && !only.split(',').any(|s| s.trim() == key) {
                continue;
            }
            let run = Run {
                nodes,
                filler,
                lang,
                set: set * nodes,
                stream,
                corrections: scenario == "corrections",
            };
            let tag = format!("session {scenario}-{set}-{i}");
            let o = conversation(&url, *subject, &run, &tag).await;
            report(*subject, &run, &o);
        }
    }
}
