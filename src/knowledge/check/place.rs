//! A place from another passage than the one the question names. Pure.
//!
//! Why: with the winter social's passage and the summer evenings' side by side, Qwen2.5-0.5B
//! answered "Wo findet der Winterabend statt?" with the summer evenings' car park at Hob Hill,
//! and "Gdzie jest zimowa impreza klubowa?" with the first-aid kit's Old Fire Station (the
//! knowledge bench, issue 38). A place is a name, and any passage may hold one, so the line
//! rule (`line`) leaves places alone; but the question names its passage by its heading
//! ("Geselliger Winterabend", "Zimowe spotkanie towarzyskie", by its stem), and the daemon
//! can see the answer's place is written only in another one. Then the named passage's
//! sentence that holds a place goes instead.

use super::{about_words, held, named_heading, names, quoted, same_word, sentences, shared_in};
use crate::knowledge::check::asked::Kind;
use crate::lang::Lang;
use crate::mesh::matcher::{fold, words};

/// The sentence to say instead of `answer` to `question` (which asks where) when the answer
/// names a place written only outside the passage whose heading the question names
/// ([`named_heading`]); `None` keeps it.
pub(super) fn instead(answer: &str, question: &str, notes: &str, lang: Lang) -> Option<String> {
    let about = about_words(question, lang);
    let lines = sentences(notes);
    let named = named_heading(question, &lines, lang)?;
    let in_named: Vec<String> = lines
        .iter()
        .filter(|(h, _)| *h == named)
        .flat_map(|(h, s)| names(&format!("{h}. {s}")))
        .collect();
    let elsewhere: Vec<String> = lines
        .iter()
        .filter(|(h, _)| *h != named)
        .flat_map(|(_, s)| names(s))
        .collect();
    let asked_folded = fold(question);
    let asked = words(&asked_folded);
    let foreign = names(answer).into_iter().any(|n| {
        !asked.iter().any(|a| same_word(a, &n)) && !in_named.contains(&n) && elsewhere.contains(&n)
    });
    if !foreign {
        return None;
    }
    // The named passage's sentence holding a place, sharing most of the question; the first
    // of equals.
    let mut best: Option<(usize, &str)> = None;
    for (_, s) in lines.iter().filter(|(h, _)| *h == named) {
        if held(Kind::Place, s, question) == 0 {
            continue;
        }
        let n = shared_in(&about, s, lang);
        if best.is_none_or(|(b, _)| n > b) {
            best = Some((n, s));
        }
    }
    best.map(|(own, s)| quoted(named, s, own))
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINTER: &str = "Notizen aus den Dokumenten des Betreibers:\n\n\
[events.md > Veranstaltungen 2026 > Geselliger Winterabend]\n\
Samstag, 17. Januar 2026, ab 18:30 Uhr im Plough Inn, High Street, Ashby Marsh. Partner sind \
willkommen.\n\n\
[handbook.md > Handbuch > Treffen > Sommerabende]\n\
Im Juni zieht der Clubabend auf den Parkplatz am Picknickplatz Hob Hill, 3 km nördlich von \
Ashby Marsh.\n\n\
Wenn diese Notizen die Antwort nicht enthalten, antworte genau: Nicht in meinen Notizen.";

    #[test]
    fn a_place_written_only_outside_the_passage_named_gives_way_to_its_place() {
        let q = "Wo findet der Winterabend statt?";
        let plough = "Geselliger Winterabend: Samstag, 17. Januar 2026, ab 18:30 Uhr im Plough \
                      Inn, High Street, Ashby Marsh.";
        let cases: &[(&str, &str, Option<&str>)] = &[
            (
                q,
                "Der Winterabend findet auf dem Parkplatz am Picknickplatz Hob Hill statt.",
                Some(plough),
            ),
            // A place of the passage named, or one written in both: kept.
            (q, "Im Plough Inn in der High Street.", None),
            (q, "In Ashby Marsh.", None),
            // No heading named, or two as much: kept.
            ("Wo ist das?", "Am Picknickplatz Hob Hill.", None),
        ];
        for (question, answer, want) in cases {
            assert_eq!(
                instead(answer, question, WINTER, Lang::De).as_deref(),
                *want,
                "{answer}"
            );
        }
        // The heading named by a stem: "zimowa" is "Zimowe".
        let polish = "Notatki z dokumentów operatora:\n\n\
[events.md > Wydarzenia 2026 > Zimowe spotkanie towarzyskie]\n\
Sobota, 17 stycznia 2026, od 18:30, w Plough Inn, High Street, Ashby Marsh.\n\n\
[safety.md > Karta bezpieczeństwa > W nagłym wypadku]\n\
Apteczki są w szafce stacji klubowej w Old Fire Station.\n\n\
Jeśli te notatki nie zawierają odpowiedzi, odpowiedz dokładnie: Nie ma tego w moich notatkach.";
        assert_eq!(
            instead(
                "Zimowa impreza klubowa jest w Old Fire Station.",
                "Gdzie jest zimowa impreza klubowa?",
                polish,
                Lang::Pl
            )
            .as_deref(),
            Some(
                "Zimowe spotkanie towarzyskie: Sobota, 17 stycznia 2026, od 18:30, w Plough Inn, \
                 High Street, Ashby Marsh."
            )
        );
    }
}
