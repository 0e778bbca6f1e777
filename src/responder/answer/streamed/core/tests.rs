//! Table tests of the streamed reply: each row is an event the pump feeds and the step it
//! must get back; the parts the outbox took are checked at the end.

use super::*;
use crate::chunk::{CutMark, Numbering};

/// 24 characters a part, 3 parts: small enough to cut a few words.
const SMALL: ChunkLimits = ChunkLimits {
    max_chars: 24,
    max_bytes: 200,
    max_chunks: 3,
};

/// Feeds the rows' events in order; every step, and then what was handed over, must be as
/// the rows say.
fn check(limits: &ChunkLimits, rows: &[(&str, &str)], handed: &[&str]) {
    check_reply(
        StreamedReply::new(limits, CutMark::Ellipsis, CUT_OFF),
        rows,
        handed,
    );
}

/// [`check`] for a reply made otherwise.
fn check_reply(mut reply: StreamedReply, rows: &[(&str, &str)], handed: &[&str]) {
    let got: Vec<(&str, String)> = rows
        .iter()
        .map(|(event, _)| (*event, show(&reply.on(event_of(event)))))
        .collect();
    let want: Vec<(&str, String)> = rows.iter().map(|(e, s)| (*e, s.to_string())).collect();
    assert_eq!(got, want);
    assert_eq!(reply.handed(), handed);
}

/// `text:<raw piece>`, or the event's name.
fn event_of(line: &str) -> Event {
    if let Some(raw) = line.strip_prefix("text:") {
        return Event::Text(raw.to_string());
    }
    match line {
        "lull" => Event::Lull,
        "ended" => Event::Ended,
        "broke" => Event::Broke(LlmError::Timeout),
        "gave up" => Event::GaveUp,
        "opened" => Event::Opened,
        "handed" => Event::Handed,
        "refused" => Event::Refused,
        "retracted" => Event::Retracted,
        "on air" => Event::OnAir,
        other => panic!("no event {other:?}"),
    }
}

fn show(step: &Step) -> String {
    match step {
        Step::Read => "read".into(),
        Step::ReadArrived => "read arrived".into(),
        Step::Open => "open".into(),
        Step::Hand(Handing { parts, last }) => {
            format!(
                "hand [{}]{}",
                parts.join(" | "),
                if *last { " last" } else { "" }
            )
        }
        Step::Retract => "retract".into(),
        Step::Stop(End::Done {
            cut_at_budget,
            radio_gave_up,
        }) => format!(
            "stop done{}{}",
            if *cut_at_budget { " at budget" } else { "" },
            if *radio_gave_up {
                ", radio gave up"
            } else {
                ""
            }
        ),
        Step::Stop(End::Failed(error)) => format!("stop failed: {error}"),
        Step::Stop(End::CutOff { error, notice }) => format!("stop cut off: {error}; {notice}"),
        Step::Stop(End::Refused) => "stop refused".into(),
        Step::Stop(End::Closed { queued }) => {
            format!(
                "stop closed, {}",
                if *queued { "queued" } else { "not queued" }
            )
        }
    }
}

const ELEVEN: [&str; 3] = [
    "one two three four",
    "five six seven eight",
    "nine ten eleven",
];

#[test]
fn an_answer_that_fits_one_part_goes_when_it_ends() {
    check(
        &SMALL,
        &[
            ("text:Hello ", "read arrived"),
            ("lull", "read"),
            ("text:there.", "read arrived"),
            ("lull", "read"),
            ("ended", "open"),
            ("opened", "hand [Hello there.] last"),
            ("handed", "stop done"),
        ],
        &["Hello there."],
    );
}

/// An everyday question's refusal ("Not in my notes.", in any language, with a word or two
/// besides, or the rule recited) is not sent while the question may be asked again: the
/// attempt ends refused, nothing queued. An answer that says more, or one asked again, goes
/// as it is.
#[test]
fn a_refusal_of_an_everyday_question_ends_the_attempt_unsent() {
    let asking = || StreamedReply::new(&SMALL, CutMark::Ellipsis, CUT_OFF).asking_again(Lang::En);
    for refusal in [
        "Not in my notes.",
        "Sorry, not in my notes.",
        "Nicht in meinen Notizen.",
    ] {
        check_reply(
            asking(),
            &[
                (&format!("text:{refusal}"), "read arrived"),
                ("lull", "read"),
                ("ended", "stop refused"),
                ("opened", "stop refused"),
            ],
            &[],
        );
    }
    check_reply(
        asking(),
        &[
            ("text:Not in my notes, but keep it brief.", "read arrived"),
            ("ended", "open"),
            (
                "opened",
                "hand [Not in my notes, but | keep it brief.] last",
            ),
            ("handed", "stop done"),
        ],
        &["Not in my notes, but", "keep it brief."],
    );
    check(
        &SMALL,
        &[
            ("text:Not in my notes.", "read arrived"),
            ("ended", "open"),
            ("opened", "hand [Not in my notes.] last"),
            ("handed", "stop done"),
        ],
        &["Not in my notes."],
    );
    // meshai's rule recited is told by its first parts, before the answer ends.
    check_reply(
        asking(),
        &[
            (
                "text:If these notes do not contain the answer, reply exactly",
                "read arrived",
            ),
            ("lull", "stop refused"),
        ],
        &[],
    );
}

/// The model writing the person's message back: the daemon's text goes instead (and no
/// prompt repeats the echo). An answer that says more goes as it is.
#[test]
fn an_answer_that_only_writes_the_message_back_goes_as_the_daemons_text() {
    let echoing = || {
        StreamedReply::new(&SMALL, CutMark::Ellipsis, CUT_OFF)
            .with_guard(guard("My dog is called Rex.", &[]))
    };
    let mut reply = echoing();
    for (event, step) in [
        ("text:My dog is ", "read arrived"),
        ("lull", "read"),
        ("text:called Rex. (s 1)", "read arrived"),
        ("ended", "open"),
        ("opened", "hand [Noted.] last"),
        ("handed", "stop done"),
    ] {
        assert_eq!(show(&reply.on(event_of(event))), step, "{event}");
    }
    assert_eq!(reply.handed(), ["Noted."]);
    assert_eq!(reply.replaced(), Some(Replaced::Echo));
    check_reply(
        echoing(),
        &[
            ("text:Rex is a good name.", "read arrived"),
            ("ended", "open"),
            ("opened", "hand [Rex is a good name.] last"),
            ("handed", "stop done"),
        ],
        &["Rex is a good name."],
    );
}

/// An answer from the line of memory next to the one asked about: that line goes instead,
/// cut into parts as a streamed answer is.
#[test]
fn an_answer_from_a_neighbouring_line_of_memory_goes_as_the_line_asked_about() {
    let rows = ["My dog is called Rex.", "My daughter is called Mia."];
    let mut reply = StreamedReply::new(&SMALL, CutMark::Ellipsis, CUT_OFF)
        .with_guard(guard("What is my daughter called?", &rows));
    for (event, step) in [
        ("text:Your dog is called Rex.", "read arrived"),
        ("ended", "open"),
    ] {
        assert_eq!(show(&reply.on(event_of(event))), step, "{event}");
    }
    let opened = show(&reply.on(event_of("opened")));
    assert!(opened.starts_with("hand [You told me:"), "{opened}");
    assert_eq!(show(&reply.on(event_of("handed"))), "stop done");
    assert_eq!(
        reply.handed().join(" "),
        "You told me: \u{201c}My daughter is called Mia.\u{201d}"
    );
    assert_eq!(reply.replaced(), Some(Replaced::Row));
}

fn guard(message: &str, rows: &[&str]) -> Guard {
    let lines = crate::responder::answer::Lines {
        told: rows.iter().map(|r| r.to_string()).collect(),
        summary: Vec::new(),
    };
    Guard::new(message, None, &lines, crate::lang::Lang::En)
}

#[test]
fn parts_leave_as_their_cut_is_certain_and_only_the_last_is_marked_last() {
    check(
        &SMALL,
        &[
            // Could still be the whole answer in one part.
            ("text:one two three four five ", "read arrived"),
            ("lull", "read"),
            // Now it cannot: part 1 is certain, and the reply is queued with it.
            ("text:six seven ", "read arrived"),
            ("lull", "open"),
            ("opened", "hand [one two three four]"),
            ("handed", "read"),
            ("text:eight nine ", "read arrived"),
            ("lull", "hand [five six seven eight]"),
            ("handed", "read"),
            ("text:ten eleven", "read arrived"),
            ("lull", "read"),
            ("ended", "hand [nine ten eleven] last"),
            ("handed", "stop done"),
        ],
        &ELEVEN,
    );
}

#[test]
fn pieces_that_arrive_together_are_handed_over_together() {
    // An answer that arrives whole: one hand-over, marked last (numbered ` i/n`).
    check(
        &SMALL,
        &[
            ("text:one two three four five ", "read arrived"),
            ("text:six seven eight ", "read arrived"),
            ("text:nine ten eleven", "read arrived"),
            ("ended", "open"),
            (
                "opened",
                "hand [one two three four | five six seven eight | nine ten eleven] last",
            ),
            ("handed", "stop done"),
        ],
        &ELEVEN,
    );
    // A lull before the end: the parts certain by then go together, the last one later.
    check(
        &SMALL,
        &[
            ("text:one two three four five ", "read arrived"),
            ("text:six seven eight nine ", "read arrived"),
            ("lull", "open"),
            ("opened", "hand [one two three four | five six seven eight]"),
            ("handed", "read"),
            ("text:ten eleven", "read arrived"),
            ("ended", "hand [nine ten eleven] last"),
            ("handed", "stop done"),
        ],
        &ELEVEN,
    );
}

const SIXTEEN: &str = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen";

/// [`SIXTEEN`] cut at the budget.
const CUT: [&str; 3] = [
    "one two three four",
    "five six seven eight",
    "nine ten eleven…",
];

#[test]
fn the_budget_ends_the_reply_in_the_batch_where_it_fills() {
    // The batch ends in a lull (the model writes on), or with the answer: then the chunker
    // gives the last part on the batch and nothing at the end, and the part must still go
    // marked last, so that it is numbered ` 3/3`, not ` 3/?`.
    let text = format!("text:{SIXTEEN}");
    for batch_end in ["lull", "ended"] {
        // All at once: the text after the third part is never read.
        check(
            &SMALL,
            &[
                (text.as_str(), "read arrived"),
                (batch_end, "open"),
                (
                    "opened",
                    "hand [one two three four | five six seven eight | nine ten eleven…] last",
                ),
                ("handed", "stop done at budget"),
            ],
            &CUT,
        );
        // Across batches: parts 1 and 2 go early, part 3 fills the budget.
        check(
            &SMALL,
            &[
                (
                    "text:one two three four five six seven eight nine ",
                    "read arrived",
                ),
                ("lull", "open"),
                ("opened", "hand [one two three four | five six seven eight]"),
                ("handed", "read"),
                ("text:ten eleven twelve thirteen ", "read arrived"),
                ("text:fourteen", "read arrived"),
                (batch_end, "hand [nine ten eleven…] last"),
                ("handed", "stop done at budget"),
            ],
            &CUT,
        );
    }
}

/// Part 1 handed over and the model still writing.
const ONE_ON_AIR: [(&str, &str); 5] = [
    ("text:one two three four five six ", "read arrived"),
    ("lull", "open"),
    ("opened", "hand [one two three four]"),
    ("handed", "read"),
    ("text:seven ", "read arrived"),
];

#[test]
fn every_way_an_attempt_ends() {
    /// Rows of event and step, and the parts handed over in the end.
    type Case = (Vec<(&'static str, &'static str)>, &'static [&'static str]);
    let after_one = |rows: &[(&'static str, &'static str)]| -> Vec<(&str, &str)> {
        ONE_ON_AIR.iter().chain(rows).copied().collect()
    };
    let empty = "stop failed: the answer is empty after clean-up";
    let cases: Vec<Case> = vec![
        // The answer ended with no text, or only a think block: an empty answer.
        (vec![("ended", empty)], &[]),
        (
            vec![
                ("text:<think>Greet them.</think>", "read arrived"),
                ("lull", "read"),
                ("ended", empty),
            ],
            &[],
        ),
        // Broke before any part: the batch read so far is dropped with it.
        (
            vec![
                ("text:one two three four five six ", "read arrived"),
                ("broke", "stop failed: the call timed out"),
            ],
            &[],
        ),
        // Broke after a part was handed over, which the outbox could still take back:
        // nothing went on air, the call failed.
        (
            after_one(&[
                ("lull", "read"),
                ("broke", "retract"),
                ("retracted", "stop failed: the call timed out"),
            ]),
            &["one two three four"],
        ),
        // ... which had gone on air: one notice part ends the reply.
        (
            after_one(&[
                ("lull", "read"),
                ("broke", "retract"),
                (
                    "on air",
                    "stop cut off: the call timed out; … (answer cut off:…",
                ),
            ]),
            &["one two three four"],
        ),
        // The outbox closed before the reply was queued, or while parts were handed over.
        (
            vec![
                ("text:Hi.", "read arrived"),
                ("ended", "open"),
                ("refused", "stop closed, not queued"),
            ],
            &[],
        ),
        (
            after_one(&[
                ("ended", "hand [five six seven] last"),
                ("refused", "stop closed, queued"),
            ]),
            &["one two three four"],
        ),
        // The radio gave up on the reply: nothing more is handed over.
        (
            after_one(&[("lull", "read"), ("gave up", "stop done, radio gave up")]),
            &["one two three four"],
        ),
    ];
    for (rows, handed) in cases {
        check(&SMALL, &rows, handed);
    }
}

#[test]
fn a_think_end_without_its_start_restarts_the_answer_while_no_part_was_cut() {
    check(
        &SMALL,
        &[
            ("text:Greet them ", "read arrived"),
            ("lull", "read"),
            ("text:kindly.</think>Hi ", "read arrived"),
            ("text:there!", "read arrived"),
            ("ended", "open"),
            ("opened", "hand [Hi there!] last"),
            ("handed", "stop done"),
        ],
        &["Hi there!"],
    );
    // After a part was cut, what the chunker holds stays (the known gap in
    // `docs/architecture.md`); the space the cleaner held back goes with the rest, so two
    // words run together. Pinned as it is, not as it should be.
    check(
        &SMALL,
        &[
            ("text:one two three four five six ", "read arrived"),
            ("lull", "open"),
            ("opened", "hand [one two three four]"),
            ("handed", "read"),
            ("text:seven </think> eight", "read arrived"),
            ("ended", "hand [five sixeight] last"),
            ("handed", "stop done"),
        ],
        &["one two three four", "five sixeight"],
    );
}

#[test]
fn after_the_end_every_event_gets_the_same_stop() {
    check(
        &SMALL,
        &[
            ("ended", "stop failed: the answer is empty after clean-up"),
            (
                "text:late",
                "stop failed: the answer is empty after clean-up",
            ),
            ("opened", "stop failed: the answer is empty after clean-up"),
        ],
        &[],
    );
}

#[test]
fn an_event_out_of_turn_ends_the_attempt_without_sending_twice() {
    check(&SMALL, &[("handed", "stop closed, not queued")], &[]);
    check(
        &SMALL,
        &[
            ("text:Hi.", "read arrived"),
            ("ended", "open"),
            ("opened", "hand [Hi.] last"),
            ("text:more", "stop closed, queued"),
            ("handed", "stop closed, queued"),
        ],
        &[],
    );
}

/// The markers the outbox gives the parts when it sends each one as soon as it has it (a
/// quiet radio): ` i/n` when the reply was complete before its first part went, else ` i/?`
/// and ` n/n` on the last. Each batch of pieces arrives together, the answer's end with the
/// last batch.
fn markers_on_air(batches: &[&[&str]]) -> Vec<String> {
    let mut reply = StreamedReply::new(&SMALL, CutMark::Ellipsis, CUT_OFF);
    let (mut parts, mut sent) = (Vec::<String>::new(), Vec::new());
    let mut numbering = Numbering::default();
    let mut batches = batches.iter().peekable();
    let mut step = Step::Read;
    loop {
        let event = match step {
            Step::Read => match batches.next() {
                Some(batch) => {
                    for piece in *batch {
                        assert_eq!(reply.on(Event::Text(piece.to_string())), Step::ReadArrived);
                    }
                    if batches.peek().is_some() {
                        Event::Lull
                    } else {
                        Event::Ended
                    }
                }
                None => Event::Ended,
            },
            Step::Open => Event::Opened,
            Step::Hand(Handing {
                parts: bodies,
                last,
            }) => {
                parts.extend(bodies);
                let total = last.then_some(parts.len());
                for (i, body) in parts.iter().enumerate().skip(sent.len()) {
                    sent.push(format!("{body}{}", numbering.marker(i, total)));
                }
                Event::Handed
            }
            Step::ReadArrived | Step::Retract => panic!("{step:?}"),
            Step::Stop(_) => return sent,
        };
        step = reply.on(event);
    }
}

#[test]
fn the_last_part_is_always_numbered_n_of_n() {
    // Whole at once: numbered like a batch reply.
    assert_eq!(
        markers_on_air(&[&[
            "one two three four five ",
            "six seven eight nine ten eleven"
        ]]),
        [
            "one two three four 1/3",
            "five six seven eight 2/3",
            "nine ten eleven 3/3"
        ]
    );
    // Streamed: ` i/?` while the end is unknown, ` n/n` on the last.
    assert_eq!(
        markers_on_air(&[
            &["one two three four five six "],
            &["seven eight nine "],
            &["ten eleven"]
        ]),
        [
            "one two three four 1/?",
            "five six seven eight 2/?",
            "nine ten eleven 3/3"
        ]
    );
    // The budget fills in the batch where the answer ends.
    assert_eq!(
        markers_on_air(&[
            &["one two three four five six "],
            &["seven eight nine ", "ten eleven twelve thirteen"]
        ]),
        [
            "one two three four 1/?",
            "five six seven eight 2/?",
            "nine ten eleven… 3/3"
        ]
    );
}

#[test]
fn the_cut_off_notice_leaves_room_for_the_widest_marker() {
    for max_chunks in [1, 3, 9, 10, 99] {
        let limits = ChunkLimits {
            max_chars: 150,
            max_bytes: 200,
            max_chunks,
        };
        let notice = chunk(CUT_OFF, &notice_limits(&limits));
        assert_eq!(notice, [CUT_OFF], "max_chunks {max_chunks}");
        let widest = format!("{CUT_OFF} {max_chunks}/{max_chunks}");
        assert!(widest.chars().count() <= 150 && widest.len() <= 200);
    }
    let tight = notice_limits(&SMALL);
    assert_eq!(
        (tight.max_chars, tight.max_bytes, tight.max_chunks),
        (20, 196, 1)
    );
}
