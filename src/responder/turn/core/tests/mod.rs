//! Table tests of the turn's decisions: for each kind of turn and each way the world answers,
//! the actions in order, written briefly (`brief`). Here the pieces the tables are made of;
//! `memory.rs`: a DM with its node's memory; `other.rs`: turns given up, without memory, a
//! mention, a busy channel, an event out of order.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::*;
use crate::airtime::{Decision, Why};
use crate::chunk::ChunkLimits;
use crate::clock::Zone;
use crate::config::ContextConfig;
use crate::node::NodeId;
use crate::radio::{NodeNames, TextMessage};
use crate::store::StoredMessage;

const NOW: i64 = 1_748_873_130;

/// Monday 2025-06-02 14:05:30 UTC.
fn monday() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(NOW as u64)
}

fn chunk() -> ChunkLimits {
    ChunkLimits {
        max_chars: 150,
        max_bytes: 200,
        max_chunks: 4,
    }
}

/// Who is asking as a conversation's first message says it: the names and the time.
fn intro() -> SenderIntro {
    let msg = TextMessage {
        from: NodeId(7),
        to: NodeId(100),
        channel: 0,
        packet_id: 1,
        text: "q".into(),
        hops: None,
        hop_fields: Default::default(),
        snr: None,
        position: None,
        local_position: None,
        received_at: monday(),
        names: Some(NodeNames {
            long_name: "Ann".into(),
            short_name: "ANN".into(),
        }),
        pki: true,
        public_key: None,
        via_mqtt: false,
        signed: false,
    };
    let context = ContextConfig {
        names: true,
        hops: false,
        snr: false,
        distance: false,
        time: true,
        ..ContextConfig::default()
    };
    SenderIntro::of(
        &Zone::fixed(0),
        &msg,
        &context,
        crate::mesh::geo::Units::Metric,
        crate::lang::Lang::En,
    )
}

const TIME: &str = "This message was sent Mon 14:05 UTC.";

fn start(kind: Kind, wants: Wants, standing: Standing) -> Start {
    Start {
        kind,
        wants,
        text: "what is lora?".into(),
        earlier: Vec::new(),
        intro: intro(),
        standing,
        limits: Limits {
            chunk: chunk(),
            new_node_parts: 2,
            hard_cap: 30,
        },
        mesh: false,
        lang: crate::lang::Lang::En,
    }
}

fn node(wants: Wants) -> Start {
    start(Kind::Node(Passages::Private), wants, Standing::Proven)
}

fn said(id: i64, role: Role, text: &str) -> StoredMessage {
    StoredMessage {
        id,
        role,
        text: text.into(),
        at: NOW - 60,
        prompt: None,
    }
}

/// A memory whose window holds an earlier question, a cut answer and a `!more`.
fn memory() -> Event {
    Event::Read(Read::Memory(Context {
        window: vec![
            said(1, Role::User, "tell me about antennas"),
            said(2, Role::Assistant, "A dipole is… !more"),
            said(3, Role::User, "!more"),
        ],
        unsummarized: 3,
        ..Context::default()
    }))
}

fn note(text: &str) -> Option<Note> {
    Some(Note {
        text: text.into(),
        grounded: true,
        decision: crate::knowledge::local::Decision::Model,
        check_values: true,
        passages: None,
    })
}

/// The time now and no message before: the message starts a conversation.
fn first() -> Event {
    Event::Last {
        last: Last::Known {
            at: None,
            cut: false,
        },
        now: NOW,
    }
}

/// A cut answer two minutes ago.
fn cut() -> Event {
    Event::Last {
        last: Last::Known {
            at: Some(NOW - 120),
            cut: true,
        },
        now: NOW,
    }
}

fn budget() -> Event {
    Event::Budget {
        budget: Budget::default(),
        held: Duration::from_secs(3),
    }
}

fn shortened() -> Budget {
    Budget::from(Decision::Shorten {
        max_parts: 1,
        why: Why::Channel { utilization: 35.0 },
    })
}

fn brief(action: &Action) -> String {
    match action {
        Action::Check => "check".into(),
        Action::KeepUnanswered => "keep unanswered".into(),
        Action::GiveUp(why) => format!("give up {why:?}"),
        Action::Notice(which) => format!("notice {which:?}"),
        Action::Reply { text, stored } => format!("reply {text:?}, stored {stored:?}"),
        Action::ReadLast => "read last".into(),
        Action::Store(said) => format!("store {:?} as {:?}", said.text, said.prompt),
        Action::Airtime => "airtime".into(),
        Action::Extend(held) => format!("extend {}s", held.as_secs()),
        Action::Backlog(id) => format!("backlog before {id}"),
        Action::Fold {
            before,
            unsummarized,
        } => format!("fold before {before} ({unsummarized})"),
        Action::Slot => "slot".into(),
        Action::ReadMemory { user_id, query } => format!("read memory {user_id} {query:?}"),
        Action::ReadThread => "read thread".into(),
        Action::Search(s) => format!(
            "search {:?} after {:?}, {:?}",
            s.question, s.previous, s.passages
        ),
        Action::Mesh(text) => format!("mesh {text:?}"),
        Action::Answer(call) => {
            format!(
                "answer {} parts {:?}, slot {:?}, stored {:?}{}: {:?} | {}",
                call.limits.max_chunks,
                call.mark,
                call.slot,
                call.stored,
                if call.checked.is_some() {
                    ", values checked"
                } else {
                    ""
                },
                call.message,
                call.notes
                    .iter()
                    .chain(&call.broadcast)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" / ")
            ) + &call
                .again
                .as_ref()
                .map(|again| format!(" | again: {}", again.join(" / ")))
                .unwrap_or_default()
        }
        Action::End(end) => format!("end {end:?}"),
    }
}

/// A turn that starts with `start`: its first action, then each event and the action that
/// must follow it.
struct Case {
    name: &'static str,
    start: Start,
    first: &'static str,
    steps: Vec<(Event, String)>,
}

fn step(event: Event, want: &str) -> (Event, String) {
    (event, want.to_string())
}

/// A node's text within a conversation (its last message a cut answer), stored as message
/// `id`, up to its wait for the LLM slot.
fn to_slot(id: i64) -> Vec<(Event, String)> {
    vec![
        step(Event::Checked(Ok(())), "read last"),
        step(cut(), "store \"what is lora?\" as None"),
        step(Event::Stored(Stored::Id(id)), "airtime"),
        step(budget(), "extend 3s"),
        step(Event::Done, &format!("backlog before {id}")),
        step(Event::Backlog(Some(1)), "slot"),
    ]
}

/// [`to_slot`], then the slot, up to the memory read.
fn to_memory(id: i64) -> Vec<(Event, String)> {
    let mut steps = to_slot(id);
    steps.push(step(
        Event::Slot(Ok(())),
        &format!("read memory {id} \"what is lora?\""),
    ));
    steps
}

fn check(cases: Vec<Case>) {
    for case in cases {
        let mut core = TurnCore::new(case.start);
        assert_eq!(brief(&core.start()), case.first, "{}: first", case.name);
        for (i, (event, want)) in case.steps.into_iter().enumerate() {
            let got = brief(&core.on(event));
            assert_eq!(got, want, "{}: step {i}", case.name);
        }
    }
}

mod memory;
mod other;
