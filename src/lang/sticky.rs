//! A conversation's language, kept per node: the language of its messages, not flipped by one
//! message in another. People write "ok", "73", "Danke!" or an English term between sentences
//! of their own language; a conversation follows them into another language only when two
//! messages in a row are in it. Messages too short to tell ([`super::detect`] says `None`)
//! change nothing, and neither does a question about another language ("Wie sagt man
//! thank you auf Englisch?" in an English conversation: [`super::aside::about_another`]). Pure and small: the responder keeps one per node it talks to and seeds a
//! new one from the node's last stored messages ([`Sticky::replay`]), so a restart keeps it.

use super::{Lang, aside, detect};

/// Messages in another language in a row that switch the conversation to it.
pub(crate) const SWITCH_AFTER: u8 = 2;

/// How many of a node's last messages [`Sticky::replay`] is given after a restart.
pub(crate) const REPLAY: usize = 20;

/// One conversation's language.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sticky {
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
    pub(crate) fn replay<'a>(texts: impl IntoIterator<Item = &'a str>) -> Sticky {
        let mut s = Sticky::new();
        for t in texts {
            s.hear(t);
        }
        s
    }

    /// The conversation's language, if a message said one.
    pub(crate) fn current(&self) -> Option<Lang> {
        self.current
    }

    /// Take `text`, the node's newest message, into account; the language the conversation is
    /// in after it, if known. A message about another language than the conversation's moves
    /// nothing: an English speaker asking how to say something in Spanish is still English.
    pub(crate) fn hear(&mut self, text: &str) -> Option<Lang> {
        let lang = detect(text);
        match (self.current, lang) {
            (Some(c), Some(l)) if c != l && aside::about_another(text, l) => self.current,
            _ => self.heard(lang),
        }
    }

    /// [`Sticky::hear`] with the message's language already detected.
    pub(crate) fn heard(&mut self, lang: Option<Lang>) -> Option<Lang> {
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

    /// In each language, a conversation asked about another language (quoting it or not)
    /// keeps its own through any number of such questions; two plain messages switch it.
    #[test]
    fn questions_about_another_language_never_switch_a_conversation() {
        use Lang::*;
        let cases: [(Lang, &str, [&str; 3]); 8] = [
            (
                En,
                "Which cable should I buy for the antenna on my node?",
                [
                    "How do I say thank you in Spanish?",
                    "What does 'me llamo Juan y vivo en Madrid' mean?",
                    "So 'muchas gracias por la ayuda' is more polite?",
                ],
            ),
            (
                De,
                "Welche Antenne soll ich auf meinen Solarknoten setzen?",
                [
                    "Wie sagt man danke auf Spanisch?",
                    "Was bedeutet „muchas gracias por la ayuda“?",
                    "Und was heißt 'where is the train station and the bus'?",
                ],
            ),
            (
                Es,
                "¿Qué antena debo poner en mi nodo solar?",
                [
                    "¿Cómo se dice gracias en alemán?",
                    "¿Qué significa 'ich bin müde und ich will schlafen'?",
                    "Traduce where is the train station and the bus, por favor",
                ],
            ),
            (
                Pt,
                "Qual antena devo colocar no meu nó solar? Eu moro no Porto.",
                [
                    "Como se diz obrigado em inglês?",
                    "O que significa 'ich bin müde und ich will schlafen'?",
                    "O que quer dizer \"je suis fatigué et je veux dormir\"?",
                ],
            ),
            (
                Fr,
                "Quelle antenne dois-je mettre sur mon nœud solaire ?",
                [
                    "Comment dit-on merci en allemand ?",
                    "Que veut dire « ich bin müde und ich will schlafen » ?",
                    "Traduis where is the train station and the bus en anglais",
                ],
            ),
            (
                It,
                "Quale antenna devo mettere sul mio nodo solare?",
                [
                    "Come si dice grazie in tedesco?",
                    "Cosa vuol dire 'je suis fatigué et je veux dormir'?",
                    "Cosa significa 'where is the train station and the bus'?",
                ],
            ),
            (
                Nl,
                "Welke antenne moet ik op mijn zonne-node zetten?",
                [
                    "Hoe zeg je dank je wel in het Engels?",
                    "Wat betekent 'je suis fatigué et je veux dormir'?",
                    "Wat betekent 'where is the train station and the bus'?",
                ],
            ),
            (
                Pl,
                "Jaką antenę powinienem założyć na mój węzeł solarny?",
                [
                    "Jak się mówi dziękuję po angielsku?",
                    "Co znaczy 'me llamo Juan y vivo en Madrid'?",
                    "Przetłumacz where is the train station and the bus na niemiecki",
                ],
            ),
        ];
        for (lang, first, asides) in cases {
            let mut s = Sticky::new();
            assert_eq!(s.hear(first), Some(lang), "{first:?}");
            for a in asides.iter().chain(asides.iter()) {
                assert_eq!(s.hear(a), Some(lang), "{lang}: {a:?}");
            }
        }
        // A real change of language still switches, in two messages.
        let mut s = Sticky::replay(["Which cable should I buy for the antenna on my node?"]);
        assert_eq!(s.hear("¿Qué antena debo poner en mi nodo solar?"), Some(En));
        assert_eq!(s.hear("¿Cómo se llama mi perro?"), Some(Es));
        // And one about a language starts a conversation in the language it is written in.
        assert_eq!(
            Sticky::replay(["How do I say thank you in Spanish?"]).current(),
            Some(En)
        );
    }
}
