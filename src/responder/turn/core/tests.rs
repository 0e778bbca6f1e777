//! Table tests of the turn's decisions: for each kind of turn and each way the world answers,
//! the actions in order, written briefly (`brief`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::*;
use crate::airtime::{Decision, Why};
use crate::chunk::ChunkLimits;
use crate::clock::Zone;
use crate::config::ContextConfig;
use crate::memory::store::StoredMessage;
use crate::node::NodeId;
use crate::radio::{NodeNames, TextMessage};

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
fn asking() -> Asking {
    let msg = TextMessage {
        from: NodeId(7),
        to: NodeId(100),
        channel: 0,
        packet_id: 1,
        text: "q".into(),
        hops: None,
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
    };
    let context = ContextConfig {
        names: true,
        hops: false,
        snr: false,
        distance: false,
        time: true,
        ..ContextConfig::default()
    };
    Asking::of(&Zone::fixed(0), &msg, &context)
}

const TIME: &str = "This message was sent Mon 14:05 UTC.";

fn start(kind: Kind, asks: Asks, standing: Standing) -> Start {
    Start {
        kind,
        asks,
        text: "what is lora?".into(),
        asking: asking(),
        standing,
        limits: Limits {
            chunk: chunk(),
            new_node_parts: 2,
            hard_cap: 30,
        },
    }
}

fn node(asks: Asks) -> Start {
    start(Kind::Node(Passages::Private), asks, Standing::Proven)
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
        Action::Answer(ask) => format!(
            "answer {} parts {:?}, slot {:?}, stored {:?}: {:?} | {}",
            ask.limits.max_chunks,
            ask.mark,
            ask.slot,
            ask.stored,
            ask.message,
            ask.notes.join(" / ")
        ),
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

#[test]
fn a_dm_with_memory_is_stored_then_read_then_answered_then_summarised() {
    let header = "\"[Ann (ANN)] what is lora?\"";
    let answer = format!("answer 4 parts More, slot Node, stored Some(5): {header} | {TIME}");
    let cases = vec![
        Case {
            name: "a conversation's first message",
            start: node(Asks::Text),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(
                    first(),
                    &format!("store \"what is lora?\" as Some({header})"),
                ),
                step(Event::Stored(Stored::Id(5)), "airtime"),
                step(budget(), "extend 3s"),
                step(Event::Done, "backlog before 5"),
                step(Event::Backlog(Some(3)), "slot"),
                step(Event::Slot(Ok(())), "read memory 5 \"what is lora?\""),
                step(
                    memory(),
                    "search \"what is lora?\" after Some(\"tell me about antennas\"), Private",
                ),
                step(Event::Found(None), &answer),
                step(Event::Answered(Some(480)), "end Summarize(Some(480))"),
            ],
        },
        Case {
            name: "within a conversation: no header, no notes",
            start: node(Asks::Text),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(
                    Event::Last {
                        last: Last::Known {
                            at: Some(NOW - 60),
                            cut: false,
                        },
                        now: NOW,
                    },
                    "store \"what is lora?\" as None",
                ),
                step(Event::Stored(Stored::Id(5)), "airtime"),
                step(budget(), "extend 3s"),
                step(Event::Done, "backlog before 5"),
                step(Event::Backlog(None), "slot"),
                step(Event::Slot(Ok(())), "read memory 5 \"what is lora?\""),
                step(
                    Event::Read(Read::Memory(Context::default())),
                    "search \"what is lora?\" after None, Private",
                ),
                step(
                    Event::Found(note("From the club's notes: LoRa is a radio.")),
                    "answer 4 parts More, slot Node, stored Some(5): \"what is lora?\" | From \
                     the club's notes: LoRa is a radio.",
                ),
                step(Event::Answered(None), "end Summarize(None)"),
            ],
        },
        Case {
            name: "the backlog at its hard cap folds before the reply",
            start: node(Asks::Text),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(
                    Event::Last {
                        last: Last::Unknown,
                        now: NOW,
                    },
                    &format!("store \"what is lora?\" as Some({header})"),
                ),
                step(Event::Stored(Stored::Id(9)), "airtime"),
                step(budget(), "extend 3s"),
                step(Event::Done, "backlog before 9"),
                step(Event::Backlog(Some(30)), "fold before 9 (30)"),
                step(Event::Done, "slot"),
            ],
        },
    ];
    check(cases);
}

#[test]
fn more_continues_a_cut_answer_and_searches_with_its_question() {
    let cases = vec![
        Case {
            name: "a cut answer to continue",
            start: node(Asks::More),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(
                    cut(),
                    &format!("store \"!more\" as Some({:?})", commands::CONTINUE),
                ),
                step(Event::Stored(Stored::Id(4)), "airtime"),
                step(budget(), "extend 3s"),
                step(Event::Done, "backlog before 4"),
                step(Event::Backlog(Some(3)), "slot"),
                step(Event::Slot(Ok(())), "read memory 4 \"\""),
                step(
                    memory(),
                    "search \"tell me about antennas\" after None, Private",
                ),
            ],
        },
        Case {
            name: "the last answer was whole",
            start: node(Asks::More),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(first(), "notice NothingMore"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "the store cannot say",
            start: node(Asks::More),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(
                    Event::Last {
                        last: Last::Unknown,
                        now: NOW,
                    },
                    "notice NothingMore",
                ),
            ],
        },
        Case {
            name: "without memory there is nothing to continue",
            start: start(Kind::Without, Asks::More, Standing::Proven),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "notice NothingMore"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "a cut answer, but the store is damaged: no search without a question",
            start: node(Asks::More),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(
                    cut(),
                    &format!("store \"!more\" as Some({:?})", commands::CONTINUE),
                ),
                step(Event::Stored(Stored::Damaged), "airtime"),
                step(budget(), "extend 3s"),
                step(Event::Done, "slot"),
                step(
                    Event::Slot(Ok(())),
                    &format!(
                        "answer 4 parts Ellipsis, slot Node, stored None: {:?} | ",
                        commands::CONTINUE
                    ),
                ),
                step(Event::Answered(Some(9)), "end Over"),
            ],
        },
    ];
    check(cases);
}

#[test]
fn a_turn_given_up_is_stored_counted_and_only_a_known_node_told() {
    let cases = vec![
        Case {
            name: "expired in the queue, a proven node",
            start: node(Asks::Text),
            first: "check",
            steps: vec![
                step(Event::Checked(Err(Unanswered::Expired)), "keep unanswered"),
                step(Event::Done, "give up Expired"),
                step(Event::Done, "notice TooBusy"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "expired in the queue, a new node",
            start: start(Kind::Node(Passages::Public), Asks::Text, Standing::New),
            first: "check",
            steps: vec![
                step(Event::Checked(Err(Unanswered::Expired)), "keep unanswered"),
                step(Event::Done, "give up Expired"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "a displaced !more is not stored",
            start: start(Kind::Node(Passages::Public), Asks::More, Standing::New),
            first: "check",
            steps: vec![
                step(
                    Event::Checked(Err(Unanswered::Displaced)),
                    "give up Displaced",
                ),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "without memory nothing is stored",
            start: start(Kind::Without, Asks::Text, Standing::Known),
            first: "check",
            steps: vec![
                step(Event::Checked(Err(Unanswered::Expired)), "give up Expired"),
                step(Event::Done, "notice TooBusy"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "expired at the gate after it was stored: the summary may still be due",
            start: node(Asks::Text),
            first: "check",
            steps: [
                to_slot(5),
                vec![
                    step(Event::Slot(Err(Unanswered::Expired)), "give up Expired"),
                    step(Event::Done, "notice TooBusy"),
                    step(Event::Done, "end Summarize(None)"),
                ],
            ]
            .concat(),
        },
    ];
    check(cases);
}

#[test]
fn a_store_that_fails_ends_the_turn_and_a_damaged_one_leaves_it_without_memory() {
    let cases = vec![
        Case {
            name: "the message cannot be stored",
            start: node(Asks::Text),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(cut(), "store \"what is lora?\" as None"),
                step(Event::Stored(Stored::Failed), "notice StoreFailed"),
                step(Event::Done, "end Summarize(None)"),
            ],
        },
        Case {
            name: "the memory cannot be read",
            start: node(Asks::Text),
            first: "check",
            steps: [
                to_memory(5),
                vec![
                    step(Event::Read(Read::Failed), "notice StoreFailed"),
                    step(Event::Done, "end Summarize(None)"),
                ],
            ]
            .concat(),
        },
        Case {
            name: "a damaged memory: answered, stored after the message, no summary",
            start: node(Asks::Text),
            first: "check",
            steps: [
                to_memory(5),
                vec![
                    step(
                        Event::Read(Read::Damaged),
                        "search \"what is lora?\" after None, Private",
                    ),
                    step(
                        Event::Found(None),
                        "answer 4 parts More, slot Node, stored Some(5): \"what is lora?\" | ",
                    ),
                    step(Event::Answered(Some(7)), "end Over"),
                ],
            ]
            .concat(),
        },
    ];
    check(cases);
}

#[test]
fn a_dm_without_memory_and_a_mention_read_nothing_of_the_node() {
    let capped = fair::budget(chunk(), Standing::New, 2);
    let first_note = capped.1.unwrap_or_default();
    let header = "\"[Ann (ANN)] what is lora?\"";
    let thread = vec![
        (ChatRole::User, "[Bob] who runs the club?".to_string()),
        (ChatRole::Assistant, "Ann does.".to_string()),
    ];
    let cases = vec![
        Case {
            name: "a new node's DM without memory: fewer parts, and a note says so",
            start: start(Kind::Without, Asks::Text, Standing::New),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "airtime"),
                step(budget(), "extend 3s"),
                step(Event::Done, "slot"),
                step(
                    Event::Slot(Ok(())),
                    "search \"what is lora?\" after None, Public",
                ),
                step(
                    Event::Found(None),
                    &format!(
                        "answer 2 parts Ellipsis, slot Any, stored None: {header} | {TIME} / \
                         {first_note}"
                    ),
                ),
                step(Event::Answered(Some(50)), "end Over"),
            ],
        },
        Case {
            name: "a mention: its thread, public passages, the public note, no new node's cap",
            start: start(Kind::Channel, Asks::Text, Standing::New),
            first: "airtime",
            steps: vec![
                step(budget(), "slot"),
                step(Event::Slot(Ok(())), "read thread"),
                step(
                    Event::Read(Read::Thread(thread)),
                    "search \"what is lora?\" after Some(\"[Bob] who runs the club?\"), Public",
                ),
                step(
                    Event::Found(note("LoRa is a radio.")),
                    &format!(
                        "answer 4 parts Ellipsis, slot Any, stored None: {header} | {PUBLIC_NOTE} \
                         / LoRa is a radio."
                    ),
                ),
                step(Event::Answered(Some(50)), "end Over"),
            ],
        },
        Case {
            name: "a mention that gets no slot is neither counted nor told",
            start: start(Kind::Channel, Asks::Text, Standing::New),
            first: "airtime",
            steps: vec![
                step(budget(), "slot"),
                step(Event::Slot(Err(Unanswered::Expired)), "end Over"),
            ],
        },
    ];
    check(cases);
}

#[test]
fn a_busy_channel_shortens_the_answer_and_says_so() {
    let base = chunk();
    let budget_note = shortened().note(&base).unwrap_or_default();
    let cases = vec![Case {
        name: "shortened to one part",
        start: start(Kind::Without, Asks::Text, Standing::Proven),
        first: "check",
        steps: vec![
            step(Event::Checked(Ok(())), "airtime"),
            step(
                Event::Budget {
                    budget: shortened(),
                    held: Duration::ZERO,
                },
                "extend 0s",
            ),
            step(Event::Done, "slot"),
            step(
                Event::Slot(Ok(())),
                "search \"what is lora?\" after None, Public",
            ),
            step(
                Event::Found(None),
                &format!(
                    "answer 1 parts Ellipsis, slot Any, stored None: \"[Ann (ANN)] what is \
                     lora?\" | {TIME} / {budget_note}"
                ),
            ),
        ],
    }];
    assert!(!budget_note.is_empty());
    check(cases);
}

#[test]
fn an_event_out_of_order_ends_the_turn() {
    let cases = vec![
        Case {
            name: "a slot before the check",
            start: node(Asks::Text),
            first: "check",
            steps: vec![
                step(Event::Slot(Ok(())), "end Over"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "an answer to a mention that was never asked",
            start: start(Kind::Channel, Asks::Text, Standing::New),
            first: "airtime",
            steps: vec![step(Event::Answered(Some(1)), "end Over")],
        },
    ];
    check(cases);
}
