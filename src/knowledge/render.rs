//! How the passages reach the model, pure: the sentence the system prompt gets when a
//! knowledge folder is configured (the same on every turn, so the server's prompt cache
//! keeps it), and the per-turn block of the passages a question found, each labelled with its
//! file and headings. [`knowledge_block`] is the one place that renders them; the turn puts
//! it among the per-turn notes, just before the new message.

use crate::store::KnowledgeHit;

/// Appended to the system prompt when `[knowledge] dir` is set; `about` is `[knowledge]
/// about`, what the documents are about (a question about anything else is answered as
/// without them). Short and literal: a small model follows "quote" and "reply exactly" where
/// it ignores a longer explanation, and quoting keeps it from inventing what the notes do not
/// say. The last sentence names what a small model invents when the notes are on the topic
/// but lack the answer (an account number, a phone number, a web address): with it Qwen-0.5B
/// declined 9 of 12 such questions instead of 6, and answered as many covered ones
/// (docs/benchmarks.md); in the per-turn block instead, it changed nothing.
pub fn system_hint(about: &str) -> String {
    format!(
        "Answer questions about {about} by quoting the sentence of the notes given with the \
         message that answers it. If no sentence of the notes answers it, reply exactly: Not in \
         my notes. Never make up a number, name or address."
    )
}

/// Opens the block of passages.
pub const NOTES_INTRO: &str = "Notes from the operator's documents:";

/// Closes the block of passages: the instruction again, where a small model heeds it most.
pub const NOTES_OUTRO: &str = "If these notes do not contain the answer, reply exactly: Not in \
my notes.";

/// The block when a question was searched for and no passage matched (`about` as in
/// [`system_hint`]).
pub fn no_notes(about: &str) -> String {
    format!(
        "No note from the operator's documents matches this message. If it asks about {about}, \
         reply exactly: Not in my notes."
    )
}

/// The per-turn block for a question: the chosen passages in the order given, each after
/// its label; [`no_notes`] when the question was `searched` and none was chosen; `None` when
/// it was not searched (a greeting, no knowledge folder).
pub fn knowledge_block(searched: bool, chosen: &[&KnowledgeHit], about: &str) -> Option<String> {
    if chosen.is_empty() {
        return searched.then(|| no_notes(about));
    }
    let mut text = String::from(NOTES_INTRO);
    for hit in chosen {
        text.push_str("\n\n[");
        text.push_str(&label(&hit.path, &hit.heading));
        text.push_str("]\n");
        text.push_str(hit.text.trim());
    }
    text.push_str("\n\n");
    text.push_str(NOTES_OUTRO);
    Some(text)
}

/// Where a passage comes from: its file, then its headings (`handbook.md > Meetings`).
pub fn label(path: &str, heading: &str) -> String {
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
        let cases: [(bool, Vec<&KnowledgeHit>, Option<String>); 4] = [
            (false, vec![], None),
            (true, vec![], Some(no_notes("the club"))),
            (
                true,
                vec![&a],
                Some(format!(
                    "{NOTES_INTRO}\n\n[handbook.md > Club > Meetings]\nFirst Tuesday, 19:30.\n\n\
                     {NOTES_OUTRO}"
                )),
            ),
            (
                true,
                vec![&b, &a],
                Some(format!(
                    "{NOTES_INTRO}\n\n[repeaters.txt]\nGB3KV 145.7125 MHz\n\n\
                     [handbook.md > Club > Meetings]\nFirst Tuesday, 19:30.\n\n{NOTES_OUTRO}"
                )),
            ),
        ];
        for (searched, chosen, want) in cases {
            assert_eq!(
                knowledge_block(searched, &chosen, "the club"),
                want,
                "{chosen:?}"
            );
        }
    }
}
