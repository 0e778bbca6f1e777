//! A DM with its node's memory: stored, read, answered, summarised; `!more`; the store failing
//! or damaged.

use super::*;

#[test]
fn a_dm_with_memory_is_stored_then_read_then_answered_then_summarised() {
    let header = "\"[Ann (ANN)] what is lora?\"";
    let answer = format!("answer 4 parts More(En), slot Node, stored Some(5): {header} | {TIME}");
    let cases = vec![
        Case {
            name: "a conversation's first message",
            start: node(Wants::Text),
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
            start: node(Wants::Text),
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
                    "answer 4 parts More(En), slot Node, stored Some(5), values checked: \"what is \
                     lora?\" | From the club's notes: LoRa is a radio.",
                ),
                step(Event::Answered(None), "end Summarize(None)"),
            ],
        },
        Case {
            name: "the backlog at its hard cap folds before the reply",
            start: node(Wants::Text),
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
            start: node(Wants::More),
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
            start: node(Wants::More),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(first(), "notice NothingMore"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "the store cannot say",
            start: node(Wants::More),
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
            start: start(Kind::Without, Wants::More, Standing::Proven),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "notice NothingMore"),
                step(Event::Done, "end Over"),
            ],
        },
        Case {
            name: "a cut answer, but the store is damaged: no search without a question",
            start: node(Wants::More),
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
fn a_store_that_fails_ends_the_turn_and_a_damaged_one_leaves_it_without_memory() {
    let cases = vec![
        Case {
            name: "the message cannot be stored",
            start: node(Wants::Text),
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
            start: node(Wants::Text),
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
            start: node(Wants::Text),
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
                        "answer 4 parts More(En), slot Node, stored Some(5): \"what is lora?\" | ",
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
fn messages_that_waited_together_are_stored_in_order_and_answered_in_one_call() {
    let combined = |kind| Start {
        earlier: vec!["hi there".into(), "are you a bot?".into()],
        ..start(kind, Wants::Text, Standing::New)
    };
    let note = "The asker sent 3 messages since your last answer (the last one below): answer \
                them all in this one reply.";
    let cases = vec![
        Case {
            name: "with memory: each stored as the conversation stores it, the header first",
            start: combined(Kind::Node(Passages::Public)),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "read last"),
                step(
                    first(),
                    "store \"hi there\" as Some(\"[Ann (ANN)] hi there\")",
                ),
                step(
                    Event::Stored(Stored::Id(5)),
                    "store \"are you a bot?\" as None",
                ),
                // A message the store could not keep does not stop the others.
                step(
                    Event::Stored(Stored::Failed),
                    "store \"what is lora?\" as None",
                ),
                step(Event::Stored(Stored::Id(7)), "airtime"),
                step(budget(), "extend 3s"),
                step(Event::Done, "backlog before 7"),
                step(Event::Backlog(Some(3)), "slot"),
                step(
                    Event::Slot(Ok(())),
                    "read memory 7 \"hi there\\nare you a bot?\\nwhat is lora?\"",
                ),
                step(
                    Event::Read(Read::Memory(Context::default())),
                    "search \"hi there\\nare you a bot?\\nwhat is lora?\" after None, Public",
                ),
                step(
                    Event::Found(None),
                    &format!(
                        "answer 2 parts More(En), slot Node, stored Some(7): \"what is lora?\" | \
                         {TIME} / {note} / First message from this node: answer in at most 2 \
                         short sentences, under 280 characters."
                    ),
                ),
            ],
        },
        Case {
            name: "without memory: one message of all, nothing stored",
            start: combined(Kind::Without),
            first: "check",
            steps: vec![
                step(Event::Checked(Ok(())), "airtime"),
                step(budget(), "extend 3s"),
                step(Event::Done, "slot"),
                step(
                    Event::Slot(Ok(())),
                    "search \"hi there\\nare you a bot?\\nwhat is lora?\" after None, Public",
                ),
                step(
                    Event::Found(None),
                    &format!(
                        "answer 2 parts Ellipsis, slot Any, stored None: \"[Ann (ANN)] hi \
                         there\\nare you a bot?\\nwhat is lora?\" | {TIME} / {note} / First \
                         message from this node: answer in at most 2 short sentences, under \
                         280 characters."
                    ),
                ),
            ],
        },
    ];
    check(cases);
}
