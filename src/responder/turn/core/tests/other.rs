//! Turns given up, a DM without memory, a mention, a busy channel, an event out of order.

use super::*;

#[test]
fn a_turn_given_up_is_stored_counted_and_only_a_known_node_told() {
    let cases = vec![
        Case {
            name: "expired in the queue, a proven node",
            start: node(Wants::Text),
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
            start: start(Kind::Node(Passages::Public), Wants::Text, Standing::New),
            first: "check",
            steps: vec![
                step(Event::Checked(Err(Unanswered::Expired)), "keep unanswered"),
                step(Event::Done, "give up Expired"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "a displaced !more is not stored",
            start: start(Kind::Node(Passages::Public), Wants::More, Standing::New),
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
            start: start(Kind::Without, Wants::Text, Standing::Known),
            first: "check",
            steps: vec![
                step(Event::Checked(Err(Unanswered::Expired)), "give up Expired"),
                step(Event::Done, "notice TooBusy"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "expired at the gate after it was stored: the summary may still be due",
            start: node(Wants::Text),
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
fn a_dm_without_memory_and_a_mention_read_nothing_of_the_node() {
    let capped = fair::budget(crate::lang::Lang::En, chunk(), Standing::New, 2);
    let first_note = capped.1.unwrap_or_default();
    let header = "\"[Ann (ANN)] what is lora?\"";
    let thread = vec![
        (ChatRole::User, "[Bob] who runs the club?".to_string()),
        (ChatRole::Assistant, "Ann does.".to_string()),
    ];
    let cases = vec![
        Case {
            name: "a new node's DM without memory: fewer parts, and a note says so",
            start: start(Kind::Without, Wants::Text, Standing::New),
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
            start: start(Kind::Channel, Wants::Text, Standing::New),
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
                        "answer 4 parts Ellipsis, slot Any, stored None, values checked: {header} \
                         | {PUBLIC_NOTE} / LoRa is a radio."
                    ),
                ),
                step(Event::Answered(Some(50)), "end Over"),
            ],
        },
        Case {
            name: "an everyday question's answer is the model's own: its values are not checked",
            start: start(Kind::Channel, Wants::Text, Standing::New),
            first: "airtime",
            steps: vec![
                step(budget(), "slot"),
                step(Event::Slot(Ok(())), "read thread"),
                step(
                    Event::Read(Read::Thread(Vec::new())),
                    "search \"what is lora?\" after None, Public",
                ),
                step(
                    Event::Found(note("LoRa is a radio.").map(|n| Note {
                        check_values: false,
                        ..n
                    })),
                    &format!(
                        "answer 4 parts Ellipsis, slot Any, stored None: {header} | \
                         {PUBLIC_NOTE} / LoRa is a radio."
                    ),
                ),
            ],
        },
        Case {
            name: "an everyday question is asked again without the rule closing its passages",
            start: Start {
                text: "is it rude to send lots of messages?".into(),
                ..start(Kind::Channel, Wants::Text, Standing::New)
            },
            first: "airtime",
            steps: vec![
                step(budget(), "slot"),
                step(Event::Slot(Ok(())), "read thread"),
                step(
                    Event::Read(Read::Thread(Vec::new())),
                    "search \"is it rude to send lots of messages?\" after None, Public",
                ),
                step(
                    Event::Found(note("Notes: Be brief. Rule.").map(|n| Note {
                        check_values: false,
                        passages: Some("Notes: Be brief.".into()),
                        ..n
                    })),
                    &format!(
                        "answer 4 parts Ellipsis, slot Any, stored None: \"[Ann (ANN)] is it \
                         rude to send lots of messages?\" | {PUBLIC_NOTE} / Notes: Be brief. \
                         Rule. | again: {PUBLIC_NOTE} / Notes: Be brief."
                    ),
                ),
            ],
        },
        Case {
            name: "a mention that gets no slot is neither counted nor told",
            start: start(Kind::Channel, Wants::Text, Standing::New),
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
    let budget_note = shortened()
        .note(crate::lang::Lang::En, &base)
        .unwrap_or_default();
    let cases = vec![Case {
        name: "shortened to one part",
        start: start(Kind::Without, Wants::Text, Standing::Proven),
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
            start: node(Wants::Text),
            first: "check",
            steps: vec![
                step(Event::Slot(Ok(())), "end Over"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "an answer to a mention that was never asked",
            start: start(Kind::Channel, Wants::Text, Standing::New),
            first: "airtime",
            steps: vec![step(Event::Answered(Some(1)), "end Over")],
        },
    ];
    check(cases);
}

#[test]
fn with_the_mesh_on_a_text_asks_the_view_and_its_facts_replace_the_asker_notes() {
    let mesh = |s: Start| Start { mesh: true, ..s };
    let to_found = || {
        vec![
            step(Event::Checked(Ok(())), "airtime"),
            step(budget(), "extend 3s"),
            step(Event::Done, "slot"),
            step(
                Event::Slot(Ok(())),
                "search \"what is lora?\" after None, Public",
            ),
            step(Event::Found(None), "mesh \"what is lora?\""),
        ]
    };
    let header = "\"[Ann (ANN)] what is lora?\"";
    let cases =
        vec![
        Case {
            name: "a question about the mesh: its facts last, no radio or time note",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_found(),
                vec![step(
                    Event::Mesh(Some(Answer::Readout("Mesh facts: HILL battery 87 %.".into()))),
                    &format!(
                        "answer 4 parts Ellipsis, slot Any, stored None: {header} | Mesh facts: \
                         HILL battery 87 %."
                    ),
                )],
            ]
            .concat(),
        },
        Case {
            name: "a node the view lacks: the daemon says so, no model",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_found(),
                vec![
                    step(
                        Event::Mesh(Some(Answer::UnknownNode)),
                        "reply \"I don't know that node: it is not in my node list.\", stored None",
                    ),
                    step(Event::Done, "end Over"),
                ],
            ]
            .concat(),
        },
        Case {
            name: "a lookup the daemon is sure of: its own sentence, no model",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_found(),
                vec![
                    step(
                        Event::Mesh(Some(Answer::Said("HILL is 2 hops away.".into()))),
                        "reply \"HILL is 2 hops away.\", stored None",
                    ),
                    step(Event::Done, "end Over"),
                ],
            ]
            .concat(),
        },
        Case {
            name: "not about the mesh: the notes as without it",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_found(),
                vec![step(
                    Event::Mesh(None),
                    &format!("answer 4 parts Ellipsis, slot Any, stored None: {header} | {TIME}"),
                )],
            ]
            .concat(),
        },
        Case {
            name: "a mention gets the same facts after its public note",
            start: mesh(start(Kind::Channel, Wants::Text, Standing::New)),
            first: "airtime",
            steps: vec![
                step(budget(), "slot"),
                step(Event::Slot(Ok(())), "read thread"),
                step(
                    Event::Read(Read::Thread(Vec::new())),
                    "search \"what is lora?\" after None, Public",
                ),
                step(Event::Found(None), "mesh \"what is lora?\""),
                step(
                    Event::Mesh(Some(Answer::Readout("Mesh facts: none.".into()))),
                    &format!(
                        "answer 4 parts Ellipsis, slot Any, stored None: {header} | {PUBLIC_NOTE} \
                         / Mesh facts: none."
                    ),
                ),
            ],
        },
    ];
    check(cases);
}

#[test]
fn a_question_the_documents_world_holds_and_they_do_not_answer_gets_the_daemons_reply() {
    use crate::knowledge::local::Decision;
    let declined = || {
        Event::Found(Some(Note {
            text: String::new(),
            grounded: false,
            decision: Decision::NotInNotes,
            check_values: true,
            passages: None,
        }))
    };
    let to_search = || {
        vec![
            step(Event::Checked(Ok(())), "airtime"),
            step(budget(), "extend 3s"),
            step(Event::Done, "slot"),
            step(
                Event::Slot(Ok(())),
                "search \"what is lora?\" after None, Public",
            ),
        ]
    };
    let mesh = |s: Start| Start { mesh: true, ..s };
    // Only a guess of the mesh's, with the names it writes.
    let guess = |names: &[&str]| Answer::Guess {
        answer: Box::new(Answer::Readout("No node by that name.".into())),
        names: names.iter().map(|n| n.to_string()).collect(),
    };
    let cases = vec![
        Case {
            name: "no mesh: the daemon's reply, no model",
            start: start(Kind::Without, Wants::Text, Standing::Proven),
            first: "check",
            steps: [
                to_search(),
                vec![
                    step(declined(), "reply \"Not in my notes.\", stored None"),
                    step(Event::Done, "end Over"),
                ],
            ]
            .concat(),
        },
        Case {
            name: "the mesh has nothing for it: the daemon's reply",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_search(),
                vec![
                    step(declined(), "mesh \"what is lora?\""),
                    step(Event::Mesh(None), "reply \"Not in my notes.\", stored None"),
                    step(Event::Done, "end Over"),
                ],
            ]
            .concat(),
        },
        Case {
            name: "the mesh has facts for it: the model, with them",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_search(),
                vec![
                    step(declined(), "mesh \"what is lora?\""),
                    step(
                        Event::Mesh(Some(Answer::Readout("Mesh facts: none.".into()))),
                        "answer 4 parts Ellipsis, slot Any, stored None: \"[Ann (ANN)] what is \
                         lora?\" | Mesh facts: none.",
                    ),
                ],
            ]
            .concat(),
        },
        Case {
            name: "only a guess of the mesh's (\"the fire station where we meet\"): the documents' reply",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_search(),
                vec![
                    step(declined(), "mesh \"what is lora?\""),
                    step(
                        Event::Mesh(Some(guess(&[]))),
                        "reply \"Not in my notes.\", stored None",
                    ),
                ],
            ]
            .concat(),
        },
        Case {
            name: "a guess and no documents: the model, with the readout",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_search(),
                vec![
                    step(Event::Found(None), "mesh \"what is lora?\""),
                    step(
                        Event::Mesh(Some(guess(&[]))),
                        "answer 4 parts Ellipsis, slot Any, stored None: \"[Ann (ANN)] what is \
                         lora?\" | No node by that name.",
                    ),
                ],
            ]
            .concat(),
        },
        Case {
            name: "a guess with a name its documents write (\"the repeater on Beacon Hill\"): \
                   the documents', checked",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_search(),
                vec![
                    step(
                        Event::Found(note("GB3KV — Beacon Hill: output 145.7125 MHz.")),
                        "mesh \"what is lora?\"",
                    ),
                    step(
                        Event::Mesh(Some(guess(&["beacon", "hill"]))),
                        "answer 4 parts Ellipsis, slot Any, stored None, values checked: \
                         \"[Ann (ANN)] what is lora?\" | GB3KV — Beacon Hill: output 145.7125 MHz.",
                    ),
                ],
            ]
            .concat(),
        },
        Case {
            name: "a guess with a name its documents do not write: the model, with the readout",
            start: mesh(start(Kind::Without, Wants::Text, Standing::Proven)),
            first: "check",
            steps: [
                to_search(),
                vec![
                    step(
                        Event::Found(note("GB3KV — Beacon Hill: output 145.7125 MHz.")),
                        "mesh \"what is lora?\"",
                    ),
                    step(
                        Event::Mesh(Some(guess(&["foobar"]))),
                        "answer 4 parts Ellipsis, slot Any, stored None: \"[Ann (ANN)] what is \
                         lora?\" | GB3KV — Beacon Hill: output 145.7125 MHz. / No node by that \
                         name.",
                    ),
                ],
            ]
            .concat(),
        },
    ];
    check(cases);
}

/// The model sees a conversation's first message after the header of who is asking; its
/// answer is checked against what the person asked, as the documents were searched with it
/// ("[Ann (ANN)] Who …?" does not start with "who").
#[test]
fn the_answer_is_checked_against_the_question_without_the_askers_header() {
    let mut core = TurnCore::new(start(Kind::Channel, Wants::Text, Standing::New));
    assert_eq!(brief(&core.start()), "airtime");
    core.on(budget());
    core.on(Event::Slot(Ok(())));
    core.on(Event::Read(Read::Thread(Vec::new())));
    let Action::Answer(call) = core.on(Event::Found(note("LoRa is a radio."))) else {
        panic!("no answer");
    };
    assert_eq!(call.message, "[Ann (ANN)] what is lora?");
    assert_eq!(call.question, "what is lora?");
    assert!(call.checked.is_some());
}
