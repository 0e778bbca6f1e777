//! meshai's own fixed prompt parts (`lang::Part`) as they stand in a prompt. Pure.
//!
//! An answer that recites them ([`recites`]): one that writes [`WINDOW`] words in a row of
//! one of them but the default system prompt, in its language or English. "Not in my notes."
//! is no recital: the rule asks for exactly those words. With the passage in front of it,
//! Qwen2.5-0.5B answered one covered question in four of the eight knowledge benches (at
//! 621b377) with the rule that closes the notes, or with the prompt's own labels: "Pra quem
//! eu peço o analisador de antenas emprestado, …, responda exatamente: Não está nas minhas
//! notas", "Wenn ich mir den Antennenanalysator ausleihen will, antworte in der Sprache ihrer
//! Nachricht unten: Notizen aus den Dokumenten des Betreibers: …". Such an answer is the
//! model lost, and the daemon can tell: the notes' sentence about the question replaces it,
//! or "Not in my notes." (`check::check`).
//!
//! The prompt without the parts that fill in a number of meshai's ([`without`]: the budget's
//! "150 characters", "2 hops away", the time a message was sent): those numbers are no facts
//! an answer may carry. The same model answered "Combien de membres compte le club ?" with
//! "150", which the budget sentence wrote, so the value check let it pass.

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

/// A part's placeholders filled with meshai's own values; a part with another (`{about}`,
/// `{user}`, `{answer}`: the operator's words, the person's) is left in the prompt.
const OWN_VALUES: &[&str] = &[
    "chars",
    "total",
    "max_chars",
    "n",
    "sentences",
    "state",
    "time",
    "items",
];

/// A placeholder fills at most this many characters, on one line.
const MAX_FILL: usize = 120;

/// A part's template as literal pieces and the holes between them: `None` is a hole.
fn segments(template: &str) -> Option<Vec<Option<&str>>> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}')?;
        if !OWN_VALUES.contains(&&rest[open + 1..close]) {
            return None;
        }
        if open > 0 {
            out.push(Some(&rest[..open]));
        }
        out.push(None);
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        out.push(Some(rest));
    }
    // Only a part with a hole puts a number of meshai's in.
    out.contains(&None).then_some(out)
}

/// Where `segments` stands in `text` from the literal at `at` (`first` is its index): the
/// span, a leading hole taking the word before it and a trailing one the word after.
fn span(text: &str, segments: &[Option<&str>], first: usize, at: usize) -> Option<(usize, usize)> {
    let mut start = at;
    if first > 0 {
        let before = &text[..at];
        start = before
            .trim_end()
            .rfind(char::is_whitespace)
            .map_or(0, |i| i + 1);
    }
    let mut end = at + segments[first]?.len();
    let mut hole = false;
    for seg in &segments[first + 1..] {
        match seg {
            None => hole = true,
            Some(lit) => {
                let window = &text[end..];
                let limit = window
                    .char_indices()
                    .take_while(|(i, c)| *i <= MAX_FILL && *c != '\n')
                    .last()
                    .map_or(0, |(i, c)| i + c.len_utf8());
                // A piece that ends a sentence ends it: "6.2 dB." is not over at "6.".
                let ends = |i: usize| {
                    !lit.ends_with('.')
                        || window[i + lit.len()..]
                            .chars()
                            .next()
                            .is_none_or(char::is_whitespace)
                };
                let found = window[..limit]
                    .match_indices(lit)
                    .map(|(i, _)| i)
                    .find(|&i| ends(i))?;
                if !hole && found > 0 {
                    return None;
                }
                end += found + lit.len();
                hole = false;
            }
        }
    }
    if hole {
        let rest = &text[end..];
        end += rest.find(char::is_whitespace).unwrap_or(rest.len());
    }
    Some((start, end))
}

/// `prompt` without meshai's parts that fill in a number of its own (in `lang` and in
/// English): the budget sentence, the hops, the time sent.
pub(super) fn without(prompt: &str, lang: Lang) -> String {
    let mut text = prompt.to_string();
    for l in [lang, Lang::En] {
        for p in Part::ALL {
            let Some(segs) = segments(part(l, p)) else {
                continue;
            };
            let Some(first) = segs.iter().position(Option::is_some) else {
                continue;
            };
            let Some(lit) = segs[first] else { continue };
            let mut from = 0;
            while let Some(found) = text[from..].find(lit) {
                let at = from + found;
                match span(&text, &segs, first, at) {
                    Some((start, end)) => {
                        text.replace_range(start..end, " ");
                        from = start + 1;
                    }
                    None => from = at + lit.len(),
                }
            }
        }
    }
    text
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

    #[test]
    fn the_prompt_without_meshais_own_numbers() {
        let cases: &[(Lang, &str, &str)] = &[
            (
                Lang::En,
                "You are a bot. Answer in at most 150 characters; never more than 560. Be kind.",
                "You are a bot.   Be kind.",
            ),
            (
                Lang::Fr,
                "Réponds en 150 caractères au plus. Le club a 31 membres.",
                "  Le club a 31 membres.",
            ),
            (
                Lang::En,
                "This message was sent Mon 04:05 UTC.\nRadio details of this message: 2 hops \
                 away, SNR 6.2 dB.\nThe fox hunt is at 10:00.",
                " \n \nThe fox hunt is at 10:00.",
            ),
            // The operator's words and the person's stay.
            (
                Lang::En,
                "They wrote \u{201c}my node has 3000 mAh\u{201d}",
                "They wrote \u{201c}my node has 3000 mAh\u{201d}",
            ),
            (
                Lang::En,
                "Nets on 145.500 at 20:00.",
                "Nets on 145.500 at 20:00.",
            ),
        ];
        for (lang, prompt, want) in cases {
            assert_eq!(without(prompt, *lang), *want, "{lang:?}: {prompt}");
        }
    }
}
