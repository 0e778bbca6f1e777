//! An answer that recites the daemon's own instructions. Pure: the answer and its language
//! go in; whether it writes [`WINDOW`] words in a row of one of meshai's fixed prompt parts
//! but the default system prompt (`lang::Part`, in that language or in English) comes out. "Not in my notes." is no
//! recital: the rule asks for exactly those words.
//!
//! Why: with the passage in front of it, Qwen2.5-0.5B answered one covered question in four
//! of the eight knowledge benches (at 621b377) with the rule that closes the notes, or with
//! the prompt's own labels: "Pra quem eu peço o analisador de antenas emprestado, …, responda
//! exatamente: Não está nas minhas notas", "Wenn ich mir den Antennenanalysator ausleihen
//! will, antworte in der Sprache ihrer Nachricht unten: Notizen aus den Dokumenten des
//! Betreibers: …". Such an answer is the model lost, and the daemon can tell: the notes'
//! sentence about the question replaces it, or "Not in my notes." (`check::check`).

use crate::lang::{Lang, Part, Say, part, say};
use crate::mesh::matcher::{fold, words};

/// This many words in a row, as a part writes them, make a recital. Five caught an Italian
/// answer about airtime ("e il tempo di trasmissione è", as the default system prompt has
/// it); no answer in the eight knowledge benches wrote six of a part's words in a row but a
/// recital.
const WINDOW: usize = 6;

/// The runs of words of `text` that no placeholder or "Not in my notes." (in `lang` or
/// English) interrupts, folded: "If the message asks about {about} and these notes do not
/// answer it, reply exactly: Not in my notes." is "if the message asks about" and "and these
/// notes do not answer it reply exactly".
fn runs(text: &str, lang: Lang) -> Vec<Vec<String>> {
    let mut text = fold(text);
    for l in [lang, Lang::En] {
        let no = fold(say(l, Say::NotInNotes));
        text = text.replace(no.trim_end_matches('.'), "{}");
    }
    text.split(['{', '}'])
        .enumerate()
        // The odd pieces are a placeholder's name.
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, piece)| words(piece).into_iter().map(str::to_string).collect())
        .filter(|run: &Vec<String>| run.len() >= WINDOW)
        .collect()
}

/// Whether `answer` writes [`WINDOW`] words in a row of one of meshai's prompt parts but the
/// default system prompt, in `lang` or in English.
pub(super) fn recites(answer: &str, lang: Lang) -> bool {
    let folded = fold(answer);
    let said = words(&folded);
    if said.len() < WINDOW {
        return false;
    }
    let langs: &[Lang] = if lang == Lang::En {
        &[Lang::En]
    } else {
        &[lang, Lang::En]
    };
    langs.iter().any(|&l| {
        // The default system prompt speaks of what answers speak of (the mesh, airtime); an
        // operator's own is not meshai's to know.
        Part::ALL
            .iter()
            .filter(|&&p| p != Part::DefaultSystem)
            .any(|&p| {
                runs(part(l, p), l).iter().any(|run| {
                    run.windows(WINDOW)
                        .any(|w| said.windows(WINDOW).any(|s| s.iter().eq(w.iter())))
                })
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_recites_the_instructions() {
        let cases: &[(Lang, &str, bool)] = &[
            (Lang::En, "Not in my notes.", false),
            (Lang::Pt, "Não está nas minhas notas.", false),
            (
                Lang::En,
                "The club's money: reply exactly: Not in my notes.",
                false,
            ),
            (
                Lang::Pt,
                "Para quem eu peço o analisador de antenas emprestado, as repetidoras, rodadas, \
                 eventos, sócios e regras de segurança, as notas não a responderem, responda \
                 exatamente: Não está nas minhas notas",
                true,
            ),
            (
                Lang::Es,
                "Si el mensaje pregunta por el club, sus repetidores, ruedas, eventos, socios y \
                 normas de seguridad y estas notas no lo responden, responde exactamente: No \
                 está en mis notas.",
                true,
            ),
            (
                Lang::De,
                "Wenn ich mir den Antennenanalysator ausleihen will, antworte in der Sprache \
                 ihrer Nachricht unten: Notizen aus den Dokumenten des Betreibers:",
                true,
            ),
            // The English part in another conversation's answer.
            (
                Lang::Fr,
                "If these notes do not contain the answer, then ask the secretary.",
                true,
            ),
            (
                Lang::It,
                "Perché il canale è più grande e il tempo di trasmissione è più breve.",
                false,
            ),
            (
                Lang::En,
                "The winter social is at the Plough Inn, High Street, on 16 January.",
                false,
            ),
            (
                Lang::De,
                "Du darfst ein Gerät bis zu zwei Wochen behalten; frag Dave, wenn du es länger \
                 brauchst.",
                false,
            ),
        ];
        for (lang, answer, want) in cases {
            assert_eq!(recites(answer, *lang), *want, "{lang:?}: {answer}");
        }
    }
}
