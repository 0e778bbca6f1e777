//! How the passages reach the model, pure: the sentence the system prompt gets when a
//! knowledge folder is configured (the same on every turn, so the server's prompt cache
//! keeps it), and the per-turn block of the passages a question found, each labelled with its
//! file and headings. [`knowledge_block`] is the one place that renders them; the turn puts
//! it among the per-turn notes, just before the new message.

use super::choose;
use crate::lang::{Lang, Part, fill, part};
use crate::store::KnowledgeHit;

/// Appended to the system prompt while the knowledge index holds passages; `about` is
/// `[knowledge] about`, what the documents are about. Short and literal: a small model
/// follows "quote" and "reply exactly" where it ignores a longer explanation, and quoting
/// keeps it from inventing what the notes do not say. "Such a question" and the sentence on
/// general questions keep the rule to what the documents should answer: without them
/// Qwen-0.5B said "Not in my notes." to half the everyday questions a newcomer asks (where
/// to put a repeater, how far nodes reach); with them it answered 9 of 10 and still declined
/// 7 of 12 questions the documents are on the topic of but do not answer (docs/benchmarks.md;
/// every other wording probed traded one for the other). The last sentence names what a small
/// model invents when the notes lack the answer (an account number, a phone number, a web
/// address). Where these sentences sit matters more than what the per-turn block says: the
/// same rule in the per-turn block only, or a per-turn "this is a general question", changed
/// little against the system prompt's.
pub fn system_hint(lang: Lang, about: &str) -> String {
    fill(part(lang, Part::KnowledgeHint), &[("about", about)])
}

/// Opens the block of passages (in English; [`notes_intro`] for a conversation's language).
pub const NOTES_INTRO: &str = "Notes from the operator's documents:";

/// Opens the block of passages.
pub(crate) fn notes_intro(lang: Lang) -> &'static str {
    part(lang, Part::KnowledgeIntro)
}

/// Closes the block of passages: the instruction again, where a small model heeds it most.
/// When a passage is squarely about the question ([`choose::squarely`]: the question names
/// its heading and it covers half of it), the rule holds whatever the question; otherwise
/// only for a question about `about`. Unscoped always ("If these notes do not contain the
/// answer, reply exactly: Not in my notes."), it turned an everyday question that only shared
/// words with two passages into a refusal ("How far can two Meshtastic nodes reach each
/// other?" got the repeaters and the mast safety); scoped always, the knowledge bench's
/// re-sent requests answered that one but got three covered questions wrong (22/28 against
/// 25/28: the DMR colour code, the fox hunt's date, and an echo of the rule for the adder
/// bite), all three with a passage squarely about them (docs/benchmarks.md).
pub(crate) fn notes_outro(lang: Lang, chosen: &[&KnowledgeHit], about: &str) -> String {
    if chosen.iter().any(|h| choose::squarely(h)) {
        part(lang, Part::KnowledgeOutro).to_string()
    } else {
        fill(part(lang, Part::KnowledgeOutroScoped), &[("about", about)])
    }
}

/// The block when a question was searched for, the documents matched some of its words, and
/// no passage was good enough to go in (`about` as in [`system_hint`]).
pub fn no_notes(lang: Lang, about: &str) -> String {
    fill(part(lang, Part::NoNotes), &[("about", about)])
}

/// What the search of a question found, as far as the block goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Searched {
    /// Not searched: no words worth searching for (a greeting, `ok`).
    No,
    /// Searched, and no passage shares a word with it: a question about something else
    /// ("What does SNR mean?"), answered as without documents.
    NothingMatched,
    /// Searched, and passages share its words: the documents are about it.
    OnTopic,
}

/// The per-turn block for a question: the chosen passages in the order given, each after
/// its label; [`no_notes`] when the documents are on its topic but none was chosen; `None`
/// when no passage shares a word with it, or it was not searched.
pub(crate) fn knowledge_block(
    lang: Lang,
    found: Searched,
    chosen: &[&KnowledgeHit],
    about: &str,
) -> Option<String> {
    let about = super::about_in(lang, about);
    let Some(mut text) = passages_block(lang, chosen) else {
        return (found == Searched::OnTopic).then(|| no_notes(lang, &about));
    };
    text.push_str("\n\n");
    text.push_str(&notes_outro(lang, chosen, &about));
    Some(text)
}

/// The chosen passages, each after its label, without the rule that closes them in
/// [`knowledge_block`]: the note an everyday question is asked again with when the model
/// declined it (`responder::answer`). `None` when none was chosen.
pub(crate) fn passages_block(lang: Lang, chosen: &[&KnowledgeHit]) -> Option<String> {
    if chosen.is_empty() {
        return None;
    }
    let mut text = String::from(notes_intro(lang));
    for hit in chosen {
        text.push_str("\n\n[");
        text.push_str(&label(&hit.path, &hit.heading));
        text.push_str("]\n");
        text.push_str(hit.text.trim());
    }
    Some(text)
}

/// Where a passage comes from: its file, then its headings (`handbook.md > Meetings`).
pub(crate) fn label(path: &str, heading: &str) -> String {
    if heading.is_empty() {
        path.to_string()
    } else {
        format!("{path} > {heading}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, heading: &str, text: &str) -> KnowledgeHit {
        KnowledgeHit {
            id: 0,
            path: path.into(),
            heading: heading.into(),
            text: text.into(),
            private: false,
            score: 1.0,
            coverage: 1.0,
            topic: 0.0,
            similarity: None,
        }
    }

    #[test]
    fn passages_come_labelled_with_their_source() {
        let a = hit("handbook.md", "Club > Meetings", "First Tuesday, 19:30.\n");
        let b = hit("repeaters.txt", "", "GB3KV 145.7125 MHz");
        let cases: [(Searched, Vec<&KnowledgeHit>, Option<String>); 5] = [
            (Searched::No, vec![], None),
            (Searched::NothingMatched, vec![], None),
            (
                Searched::OnTopic,
                vec![],
                Some(no_notes(Lang::En, "the club")),
            ),
            (
                Searched::OnTopic,
                vec![&a],
                Some(format!(
                    "{NOTES_INTRO}\n\n[handbook.md > Club > Meetings]\nFirst Tuesday, 19:30.\n\n\
                     If the message asks about the club and these notes do not answer it, reply \
                     exactly: Not in my notes."
                )),
            ),
            (
                Searched::OnTopic,
                vec![&b, &a],
                Some(format!(
                    "{NOTES_INTRO}\n\n[repeaters.txt]\nGB3KV 145.7125 MHz\n\n\
                     [handbook.md > Club > Meetings]\nFirst Tuesday, 19:30.\n\n\
                     If the message asks about the club and these notes do not answer it, reply \
                     exactly: Not in my notes."
                )),
            ),
        ];
        // A passage squarely about the question (its heading named, half the question
        // covered): the rule holds whatever the question.
        let square = KnowledgeHit {
            topic: 0.5,
            coverage: 0.6,
            ..a.clone()
        };
        let block = knowledge_block(Lang::En, Searched::OnTopic, &[&b, &square], "the club");
        assert!(
            block.as_deref().is_some_and(|b| b.ends_with(
                "\n\nIf these notes do not contain the answer, reply exactly: Not in my notes."
            )),
            "{block:?}"
        );
        for (found, chosen, want) in cases {
            let block = knowledge_block(Lang::En, found, &chosen, "the club");
            // Without the closing rule: the passages alone, or nothing without any.
            let passages = passages_block(Lang::En, &chosen);
            let rule_cut = match (&block, chosen.is_empty()) {
                (Some(b), false) => b.rsplit_once("\n\n").map(|(p, _)| p.to_string()),
                _ => None,
            };
            assert_eq!(passages, rule_cut, "{chosen:?}");
            assert_eq!(block, want, "{chosen:?}");
        }
    }
}
