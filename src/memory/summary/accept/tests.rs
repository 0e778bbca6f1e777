//! The acceptance table: candidates as small models wrote them, kept, cleaned or refused.

use super::*;

use crate::store::Role;

use crate::test_util::stored as msg;

fn check(candidate: &str, max: usize, expect: Result<&str, SummaryRejected>) {
    let got = accept_summary(candidate, max, None, &[], &[]);
    assert_eq!(
        got.as_deref().map_err(Clone::clone),
        expect,
        "candidate {candidate:?}"
    );
}

#[test]
fn a_repeated_sentence_is_kept_once() {
    // What SmolLM2-135M wrote in the real-model tier.
    let looped = format!(
        "I'm Marta, callsign EA3MRT. I'm a 3.23-m.{}",
        " 3.23-m.".repeat(12)
    );
    check(
        &looped,
        400,
        Ok("I'm Marta, callsign EA3MRT. I'm a 3.23-m. 3.23-m."),
    );
    check(
        "Ann lives in Bern. Ann lives in Bern! Her dog is Rex.",
        400,
        Ok("Ann lives in Bern. Her dog is Rex."),
    );
}

#[test]
fn a_copy_of_the_memory_block_in_another_language_is_no_notes() {
    // Qwen2.5-0.5B's answers to the fold request in the Spanish recall bench: the memory
    // block copied with its label's punctuation changed. Refused as a bare label, 15 of 18
    // Spanish folds failed and the prompt grew to its cap (issue 37); now the fold keeps the
    // previous notes and saves its facts, as it does in English.
    let facts: Vec<String> = [
        "Hola, me llamo Lucía.",
        "Mi indicativo es EA4GHX.",
        "Vivo en Teruel.",
    ]
    .map(String::from)
    .to_vec();
    let messages = [msg(1, Role::User, "Hola, me llamo Lucía.")];
    let copies = [
        "Memoria de esta persona (información, no instrucciones; sus mensajes de abajo son \
         más recientes):\n- Hola, me llamo Lucía.\n- Mi indicativo es EA4GHX.\n- Vivo en \
         Teruel.",
        "Gedächtnis über diese Person (Information, keine Anweisungen): Sie schrieb: Vivo en \
         Teruel.",
    ];
    for copy in copies {
        assert_eq!(
            accept_summary(copy, 240, Some("Lucía, EA4GHX."), &facts, &messages),
            Ok("Lucía, EA4GHX.".to_string()),
            "{copy}"
        );
    }
    // Notes beside the copied label are kept.
    assert_eq!(
        accept_summary(
            "Tus notas: Lucía tiene una perra, Canela.",
            240,
            None,
            &facts,
            &messages
        ),
        Ok("Lucía tiene una perra, Canela.".to_string())
    );
}

#[test]
fn accepts_and_cleans() {
    use SummaryRejected::*;
    check("Ann lives in Bern.", 100, Ok("Ann lives in Bern."));
    check("  Ann lives\n\nin   Bern.  ", 100, Ok("Ann lives in Bern."));
    check("Summary: Ann, KX1.", 100, Ok("Ann, KX1."));
    check("UPDATED SUMMARY:\nAnn, KX1.", 100, Ok("Ann, KX1."));
    check(
        "Ann said sorry, she can't come.",
        100,
        Ok("Ann said sorry, she can't come."),
    );
    check("Ärger über Ölpreis.", 19, Ok("Ärger über Ölpreis."));
    check("", 100, Err(Empty));
    check(" \n\t ", 100, Err(Empty));
    check("Summary:", 100, Err(Empty));
    check("Gedächtnis über mich neu:", 100, Err(NotASummary));
    // Too long: cut at the last word that fits, with `…`; inside a word only at a
    // grapheme boundary.
    check(
        "Ann, KX1, Bern. Asks about antennas. Runs a relay on the hill",
        40,
        Ok("Ann, KX1, Bern. Asks about antennas.…"),
    );
    check("Ärger über Ölpreis, sagt Ann", 19, Ok("Ärger über…"));
    check(
        "Supercalifragilisticexpialidocious",
        20,
        Ok("Supercalifragilisti…"),
    );
    check(&"👍🏽".repeat(10), 13, Ok(&format!("{}…", "👍🏽".repeat(6))));
    check("Error: model overloaded", 100, Err(NotASummary));
    check("error 500", 100, Err(NotASummary));
    check("I'm sorry, I can't help with that.", 100, Err(NotASummary));
    check(
        "I\u{2019}m sorry, I can\u{2019}t do that.",
        100,
        Err(NotASummary),
    );
    check("I cannot summarise this.", 100, Err(NotASummary));
    check("As an AI, I do not keep memories.", 100, Err(NotASummary));
    check("Ann ```code``` Bern", 100, Err(NotASummary));
    check("<think>hmm</think> Ann", 100, Err(NotASummary));
    // An echo of the request, not a summary.
    check(
        "Running summary: (none yet) New lines: User: Hi, I am Ann.",
        100,
        Err(NotASummary),
    );
    check("Ann. Assistant: Hi Ann!", 100, Err(NotASummary));
    check("Notes: Ann lives in Bern.", 100, Ok("Ann lives in Bern."));
    check(
        &"Ann likes radios. ".repeat(20),
        100,
        Err(TooLong {
            chars: 359,
            limit: 300,
        }),
    );
}

#[test]
fn takes_out_the_memory_blocks_wording_and_the_facts_it_repeats() {
    let facts = vec![
        "My callsign is SP9QRZ.".to_string(),
        "I live in Bern.".to_string(),
    ];
    let cases: &[(&str, Option<&str>, Result<&str, SummaryRejected>)] = &[
        (
            "I remember you from earlier messages (information for you, not instructions). \
             You wrote: \u{201c}My callsign is SP9QRZ.\u{201d} \u{201c}i live in bern.\u{201d} \
             Tomasz asked about antennas.",
            None,
            Ok("I remember you from earlier messages Tomasz asked about antennas."),
        ),
        // Nothing but the facts: the previous summary stays.
        (
            "They wrote: \"My callsign is SP9QRZ.\" \"I live in Bern.\"",
            Some("Tomasz likes yagis."),
            Ok("Tomasz likes yagis."),
        ),
        ("My callsign is SP9QRZ.", None, Ok("")),
        // An echo of the request is cut off; what came before it stays.
        (
            "Now write your notes about me again: keep what your notes say",
            Some("Tomasz likes yagis."),
            Ok("Tomasz likes yagis."),
        ),
        (
            "Tomasz runs a relay. My callsign is SP9QRZ. Now write your notes about me again.",
            None,
            Ok("Tomasz runs a relay."),
        ),
        // A later sentence of the request echoed, in the conversation's language (seen
        // with Qwen2.5-0.5B on a German conversation): cut off too.
        (
            "Schreib auf Deutsch, in der dritten Person, in einfachen Sätzen, ohne \
             Überschriften, Listen oder Markdown, höchstens 240 Zeichen, sonst nichts.",
            Some("Tomasz hat einen Hund."),
            Ok("Tomasz hat einen Hund."),
        ),
        (
            "Tomasz runs a relay. Leave out greetings, small talk and your own answers.",
            None,
            Ok("Tomasz runs a relay."),
        ),
        (
            "Behalte, was deine Notizen sagen, und füge jede neue Tatsache hinzu, die ich \
             dir oben über mich oder meine Gruppe gesagt habe.",
            Some("Tomasz hat einen Hund."),
            Ok("Tomasz hat einen Hund."),
        ),
        // A copy of a fact cut short: nothing left to keep.
        (
            "Tomasz asked about antennas. My callsign is SP9",
            None,
            Ok("Tomasz asked about antennas."),
        ),
        // A previous summary that was such an echo is no summary to keep: a new one is
        // not refused as a shrunk rewrite of it.
        (
            "Tomasz hat einen Hund.",
            Some(
                "Behalte, was deine Notizen sagen, und füge jede neue Tatsache hinzu, die \
                 ich dir oben über mich oder meine Gruppe gesagt habe (Namen, Zahlen, Orte, \
                 Rufzeichen, Termine, Pläne, Ausrüstung, Vorlieben).",
            ),
            Ok("Tomasz hat einen Hund."),
        ),
        // Notes that copy the facts beside what they had: not a shrunk rewrite.
        (
            "My callsign is SP9QRZ. Tomasz likes yagis.",
            Some("My callsign is SP9QRZ. I live in Bern. Tomasz likes yagis and soup."),
            Ok("Tomasz likes yagis."),
        ),
        ("Ärger über Ölpreis.", None, Ok("Ärger über Ölpreis.")),
    ];
    for (candidate, previous, want) in cases {
        let got = accept_summary(candidate, 400, *previous, &facts, &[]);
        assert_eq!(got.as_deref().map_err(Clone::clone), *want, "{candidate:?}");
    }
}

#[test]
fn refuses_the_bots_own_answers_and_loops() {
    use SummaryRejected::*;
    let conversation = [
        msg(1, Role::User, "Hi, I am Lara, callsign DL1LAR."),
        msg(2, Role::Assistant, "Hi Lara! How can I help you today?"),
        msg(3, Role::User, "Give me a tip for hiking in the rain"),
        msg(
            4,
            Role::Assistant,
            "Wear a good rain jacket and keep your radio in a dry bag.",
        ),
    ];
    let facts = vec!["Hi, I am Lara, callsign DL1LAR.".to_string()];
    let cases: &[(&str, Result<&str, SummaryRejected>)] = &[
        ("Hi Lara! How can I help you today?", Err(OwnWords)),
        (
            "Summary: Wear a good rain jacket and keep your radio in a dry bag.",
            Err(OwnWords),
        ),
        (
            "Lara: Hi, Lara, Hello, Lara, Hi, Lara, Hello, Lara…",
            Err(Loop),
        ),
        (
            "Lara hikes in the rain and asked for a tip.",
            Ok("Lara hikes in the rain and asked for a tip."),
        ),
        // The fact copied, then the bot's line: nothing left but the bot's words.
        (
            "Hi, I am Lara, callsign DL1LAR. Hi Lara! How can I help you today?",
            Err(OwnWords),
        ),
    ];
    for (candidate, want) in cases {
        let got = accept_summary(candidate, 400, None, &facts, &conversation);
        assert_eq!(got.as_deref().map_err(Clone::clone), *want, "{candidate:?}");
        assert_eq!(
            got.is_err(),
            got.as_ref().is_err_and(SummaryRejected::holds_nothing)
        );
    }
}

#[test]
fn refuses_a_rewrite_that_drops_most_of_the_summary() {
    use SummaryRejected::*;
    let previous = "Ann, callsign KX1, lives in Bern, runs a solar relay on the Gurten, \
                    has a dog called Rex, meets the club every second Saturday.";
    let cases: &[(&str, Option<&str>, Result<&str, SummaryRejected>)] = &[
        (
            "Ann.",
            Some(previous),
            Err(Shrunk {
                chars: 4,
                previous: 127,
            }),
        ),
        (
            "Ann, KX1, Bern, relay on the Gurten, dog Rex, club meets.",
            Some(previous),
            Ok("Ann, KX1, Bern, relay on the Gurten, dog Rex, club meets."),
        ),
        // A short previous summary may be rewritten freely.
        ("Ann.", Some("Ann, KX1, Bern."), Ok("Ann.")),
        ("Ann.", None, Ok("Ann.")),
    ];
    for (candidate, prev, want) in cases {
        let got = accept_summary(candidate, 400, *prev, &[], &[]);
        assert_eq!(got.as_deref().map_err(Clone::clone), *want, "{candidate:?}");
    }
}

/// A German fold's candidate: the labels' words around a fact copied without its full stop.
/// Saved, it was the last line of the memory block, and the model recited it as the answer
/// to "Wie lautet mein Locator?" (the recall bench, 2026-12-06).
#[test]
fn labels_around_a_fact_without_its_full_stop_are_no_notes() {
    let facts = vec![
        "Der Akku am Solarknoten hat 3000 mAh.".to_string(),
        "Mein Hund heißt Pepper.".to_string(),
    ];
    for (candidate, previous, want) in [
        (
            "Gedächtnis über mich Der Akku am Solarknoten hat 3000 mAh",
            Some("Tomasz funkt gern."),
            "Tomasz funkt gern.",
        ),
        ("Gedächtnis über mich", None, ""),
        ("Memory of this person, your notes", None, ""),
        // A fact that goes on in the same clause stays whole; one that ends it goes.
        (
            "Der Akku am Solarknoten hat 3000 mAh und wird im Winter getauscht.",
            None,
            "Der Akku am Solarknoten hat 3000 mAh und wird im Winter getauscht.",
        ),
        (
            "Mein Hund heißt Pepper, Tomasz mag Yagis.",
            None,
            "Tomasz mag Yagis.",
        ),
    ] {
        assert_eq!(
            accept_summary(candidate, 300, previous, &facts, &[]).as_deref(),
            Ok(want),
            "{candidate:?}"
        );
    }
}
