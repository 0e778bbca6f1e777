//! A conversation's language, kept per node: the language of its messages, not flipped by one
//! message in another. People write "ok", "73", "Danke!" or an English term between sentences
//! of their own language; a conversation follows them into another language only when two
//! messages in a row are in it. Messages too short to tell ([`super::detect`] says `None`)
//! change nothing. Pure and small: the responder keeps one per node it talks to and seeds a
//! new one from the node's last stored messages ([`Sticky::replay`]), so a restart keeps it.

use super::{Lang, detect};

/// Messages in another language in a row that switch the conversation to it.
pub const SWITCH_AFTER: u8 = 2;

/// How many of a node's last messages [`Sticky::replay`] is given after a restart.
pub const REPLAY: usize = 20;

/// One conversation's language.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sticky {
    /// The conversation's language; `None` until a message said one.
    current: Option<Lang>,
    /// Another language the last messages were in, and how many in a row.
    pending: Option<(Lang, u8)>,
}

impl Sticky {
    /// A conversation that has said nothing yet.
    pub fn new() -> Sticky {
        Sticky::default()
    }

    /// A conversation seeded with `texts`, oldest first (its last [`REPLAY`] user messages).
    pub fn replay<'a>(texts: impl IntoIterator<Item = &'a str>) -> Sticky {
        let mut s = Sticky::new();
        for t in texts {
            s.hear(t);
        }
        s
    }

    /// The conversation's language, if a message said one.
    pub fn current(&self) -> Option<Lang> {
        self.current
    }

    /// Take `text`, the node's newest message, into account; the language the conversation is
    /// in after it, if known.
    pub fn hear(&mut self, text: &str) -> Option<Lang> {
        self.heard(detect(text))
    }

    /// [`Sticky::hear`] with the message's language already detected.
    pub fn heard(&mut self, lang: Option<Lang>) -> Option<Lang> {
        let Some(lang) = lang else {
            return self.current;
        };
        match self.current {
            None => {
                self.current = Some(lang);
                self.pending = None;
            }
            Some(c) if c == lang => self.pending = None,
            Some(_) => {
                let n = match self.pending {
                    Some((p, n)) if p == lang => n.saturating_add(1),
                    _ => 1,
                };
                if n >= SWITCH_AFTER {
                    self.current = Some(lang);
                    self.pending = None;
                } else {
                    self.pending = Some((lang, n));
                }
            }
        }
        self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_message_in_another_language_does_not_flip_two_do() {
        use Lang::*;
        // (the message's language, the conversation's after it)
        let steps = [
            (None, None),
            (Some(De), Some(De)),
            (Some(De), Some(De)),
            (None, Some(De)),
            (Some(En), Some(De)),
            (Some(De), Some(De)),
            (Some(En), Some(De)),
            (None, Some(De)),
            (Some(Es), Some(De)),
            (Some(En), Some(De)),
            (Some(En), Some(En)),
            (Some(De), Some(En)),
            (Some(De), Some(De)),
        ];
        let mut s = Sticky::new();
        for (i, (lang, want)) in steps.into_iter().enumerate() {
            assert_eq!(s.heard(lang), want, "step {i}");
            assert_eq!(s.current(), want, "step {i}");
        }
    }

    #[test]
    fn a_one_word_message_in_another_language_keeps_the_conversation() {
        let mut s = Sticky::replay(["Mein Hund heißt Pepper.", "Wie heißt mein Hund?"]);
        assert_eq!(s.current(), Some(Lang::De));
        for word in ["Thanks!", "ok", "OK thanks", "Merci beaucoup!"] {
            assert_eq!(s.hear(word), Some(Lang::De), "{word:?}");
        }
        // A whole English sentence once: still German; twice: English.
        assert_eq!(
            s.hear("Which cable should I buy for the antenna on my node?"),
            Some(Lang::De)
        );
        assert_eq!(
            s.hear("Can you tell me how the weather will be tomorrow?"),
            Some(Lang::En)
        );
    }
}
