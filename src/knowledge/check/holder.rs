//! A job is no answer to "who": the person who holds it is. Pure.
//!
//! Why: with the committee's table in its prompt ("Carica: Tesoriera; Nome: Priya Raman"),
//! Qwen2.5-0.5B answered "Chi tiene i soldi del club?" with "Si paga alla tesoriera, …" and
//! "Wer verwaltet das Geld des Clubs?" with "… wird vom Kassenwartin verwaltet." (the
//! knowledge bench, issue 38): right about the job, silent about the person. The daemon can
//! tell: the question asks who (`lang::related::asks_who`), the answer names a job
//! (`lang::related::is_job`) or the question a thing a job looks after ("money": the
//! treasurer, `lang::related::written_for`), and the answer names none of the people the notes
//! write beside that job (a job only the answer names, beside any job: then the model chose
//! someone, and nothing says it chose wrong). Then the notes' line that names the job and
//! someone goes instead:
//! "Who looks after the club's money?" answered "Ben Carrow looks after the club's money."
//! (the Meshtastic coordinator, the English bench) or "La Junta directiva lleva el dinero del
//! club." (the Spanish) gets the treasurer's line.

use super::{quoted, sentences, shared_in};
use crate::lang::{Lang, related};
use crate::mesh::matcher::{fold, words};

/// The notes' line to say instead of `answer` to `question` when it leaves out who holds the
/// job asked about (see the module's doc); `None` keeps the answer.
pub(super) fn instead(
    answer: &str,
    question: &str,
    notes: &str,
    declined: bool,
    lang: Lang,
) -> Option<String> {
    let asker = crate::lang::detect(question).unwrap_or(lang);
    if !asks_who_in(&fold(question), asker) {
        return None;
    }
    let folded = fold(answer);
    let said = words(&folded);
    let asked_folded = fold(question);
    let asked = words(&asked_folded);
    // The jobs the question's things are looked after by ("money": the treasurer) …
    let mut by_thing: Vec<&str> = Vec::new();
    for word in &asked {
        for job in related::written_for(word, false) {
            if related::is_job(job) && !by_thing.contains(&job) {
                by_thing.push(job);
            }
        }
    }
    // … and those the answer names, but the question's own words ("Qui est responsable
    // …?" answered "… est responsable …" names no job).
    let said_jobs: Vec<&str> = said
        .iter()
        .copied()
        .filter(|w| related::is_job(w) && !asked.contains(w))
        .collect();
    // What the question is about, but the words that ask for a job ("responsable" is also
    // the label of "Responsable du matériel").
    let mut asked_words = super::asked_words(question);
    asked_words.retain(|w| !related::is_job(w) && !related::asks_for_a_job(w));
    // The notes' lines that name a job and someone.
    let lines: Vec<JobLine> = sentences(notes)
        .into_iter()
        .filter_map(|(heading, line)| {
            let folded = fold(line);
            let jobs: Vec<String> = words(&folded)
                .into_iter()
                .filter(|w| related::is_job(w))
                .map(str::to_string)
                .collect();
            if jobs.is_empty() {
                return None;
            }
            let people = people(line, &asked);
            if people.is_empty() {
                return None;
            }
            let own = shared_in(&asked_words, line, lang);
            Some(JobLine {
                named: people.iter().any(|p| said.contains(&p.as_str())),
                shared: own,
                jobs,
                said: quoted(heading, line, own),
            })
        })
        .collect();
    let best = |of: &dyn Fn(&JobLine) -> bool| {
        let mut best: Option<&JobLine> = None;
        for l in lines.iter().filter(|l| of(l)) {
            if best.is_none_or(|b| l.shared > b.shared) {
                best = Some(l);
            }
        }
        best
    };
    if !by_thing.is_empty() {
        // The job the question's thing names: its holder, or its line.
        if lines.iter().any(|l| l.named && l.of(&by_thing)) {
            return None;
        }
        return best(&|l: &JobLine| l.of(&by_thing)).map(|l| l.said.clone());
    }
    if let Some(chosen) = best(&|l: &JobLine| l.named) {
        // The model chose someone: kept, unless another job's line shares more of the
        // question ("Kto odpowiada za węzły Meshtastic?" answered with the equipment
        // officer, Dave Linton, beside "Koordynator Meshtastic; … Ben Carrow").
        return best(&|l: &JobLine| !l.named)
            .filter(|other| other.shared > chosen.shared)
            .map(|other| other.said.clone());
    }
    if declined {
        // A decline gives way to the line squarely about the question: it names a job and
        // someone, and every word the question is about, two at least ("Who is in charge of
        // the Meshtastic nodes?" and "The Meshtastic coordinator, Ben Carrow, looks after the
        // fixed nodes", declined beside it by the English bench).
        let all = asked_words.len();
        return best(&|l: &JobLine| all >= 2 && l.shared == all)
            .map(|l| l.said.clone())
            .or_else(|| in_named_passage(question, notes, lang));
    }
    if said_jobs.is_empty() {
        return None;
    }
    best(&|l: &JobLine| l.of(&said_jobs)).map(|l| l.said.clone())
}

/// Whether `answer`, to a `question` that asks who in `lang`, names no one the notes name:
/// none of its capitalised words is a word of the notes' people ([`people`]: "Dave" of "Dave
/// Linton"), and it does not decline. Qwen2.5-0.5B answered "Qui a gagné la chasse au renard
/// l'an dernier ?", which the notes do not say, with "Le club a gagné …", and German, French
/// and Portuguese alike (the knowledge bench's uncovered questions, issue 38). German "wie"
/// asks how: it counts as who in Dutch only.
pub(super) fn names_no_one(answer: &str, question: &str, notes: &str, lang: Lang) -> bool {
    let asked_folded = fold(question);
    let lang = crate::lang::detect(question).unwrap_or(lang);
    if !asks_who_in(&asked_folded, lang) || super::declines(answer) {
        return false;
    }
    let asked = words(&asked_folded);
    let known: Vec<String> = sentences(notes)
        .into_iter()
        .flat_map(|(_, line)| people(line, &asked))
        .collect();
    !answer
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .any(|w| {
            let f = fold(w);
            words(&f).iter().any(|w| known.iter().any(|k| k == w))
        })
}

/// [`related::asks_who`], but a Dutch "wie" only: German "Wie …?" asks how.
fn asks_who_in(folded: &str, lang: Lang) -> bool {
    if lang == Lang::Nl {
        return related::asks_who(folded);
    }
    let first: String = words(folded)
        .into_iter()
        .take(3)
        .filter(|w| *w != "wie")
        .collect::<Vec<_>>()
        .join(" ");
    related::asks_who(&first)
}

/// The one line naming a job and someone in the passage the question names by its heading
/// (`check::named_heading`): said for a "who" the model declined or answered with no one
/// ("Wen frage ich, wenn ich mir den Antennenanalysator ausleihen will?" declined beside
/// "Ausrüstung des Clubs ausleihen" and its "Frag den Gerätewart, Dave Linton, …", the
/// German bench). `None` when no passage is named, it is not squarely about the question,
/// or its lines name no one or two jobs.
pub(super) fn in_named_passage(question: &str, notes: &str, lang: Lang) -> Option<String> {
    let lines = sentences(notes);
    let named = super::named_heading(question, &lines, lang)?;
    // The passage, with its heading, is squarely about the question: it writes every word
    // the question is about but one (the list of what may be borrowed names the analyser).
    let about = super::about_words(question, lang);
    let passage: String = std::iter::once(named)
        .chain(lines.iter().filter(|(h, _)| *h == named).map(|(_, l)| *l))
        .collect::<Vec<_>>()
        .join(" ");
    let covered = shared_in(&about, &passage, lang);
    if covered < 2 || covered + 1 < about.len() {
        return None;
    }
    let asked_folded = fold(question);
    let asked = words(&asked_folded);
    let asked_words = super::asked_words(question);
    let mut found = lines.iter().filter(|(h, line)| {
        *h == named
            && words(&fold(line)).iter().any(|w| related::is_job(w))
            && !people(line, &asked).is_empty()
    });
    match (found.next(), found.next()) {
        (Some((heading, line)), None) => {
            Some(quoted(heading, line, shared_in(&asked_words, line, lang)))
        }
        _ => None,
    }
}

/// A line of the notes that names a job and someone.
struct JobLine {
    /// Its job words, folded.
    jobs: Vec<String>,
    /// The answer names one of its people.
    named: bool,
    /// The question's words it shares.
    shared: usize,
    /// It, as said instead of an answer.
    said: String,
}

impl JobLine {
    /// Whether it names one of `jobs`.
    fn of(&self, jobs: &[&str]) -> bool {
        jobs.iter().any(|j| self.jobs.iter().any(|w| w == j))
    }
}

/// The words of the people `line` names, folded: two capitalised words in a row, neither a
/// job nor a word of the question, with no punctuation between them ("Priya Raman", "Ben
/// Carrow", "Dave'a Lintona"). Not one capitalised word: German writes every noun so ("der
/// Bericht der Kassenwartin"), and a table's labels are ("Nome: Priya").
fn people(line: &str, asked: &[&str]) -> Vec<String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let name = |t: &str| {
        let w = t.trim_matches(|c: char| !c.is_alphanumeric());
        let f = fold(w);
        (w.chars().next().is_some_and(char::is_uppercase)
            && w.chars().count() >= 2
            && w.chars().all(|c| c.is_alphabetic() || c == '\'')
            && !related::is_job(&f)
            && !asked.contains(&f.as_str()))
        .then_some(f)
    };
    let mut out = Vec::new();
    for pair in tokens.windows(2) {
        let apart = pair[0].ends_with(|c: char| !c.is_alphanumeric());
        if let (false, Some(a), Some(b)) = (apart, name(pair[0]), name(pair[1])) {
            for w in [a, b] {
                let w = words(&w).first().map(|s| s.to_string()).unwrap_or(w);
                if !out.contains(&w) {
                    out.push(w);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Lang, instead};

    fn notes(passages: &[(&str, &str)]) -> String {
        let mut out = String::from("Notes from the operator's documents:");
        for (label, text) in passages {
            out.push_str(&format!("\n\n[{label}]\n{text}"));
        }
        out.push_str("\n\nIf these notes do not answer it, reply exactly: Not in my notes.");
        out
    }

    #[test]
    fn a_job_said_for_who_gives_way_to_the_line_naming_its_holder() {
        let committee = notes(&[
            (
                "handbook.md > Il direttivo",
                "Carica: Presidente; Nome: Margaret Ellery; Nominativo: G4XME\n\
                 Carica: Tesoriera; Nome: Priya Raman; Nominativo: 2E0PRY",
            ),
            (
                "handbook.md > Iscrizione",
                "Si paga alla tesoriera, in contanti alla serata del club o con bonifico.",
            ),
        ]);
        let german = notes(&[
            (
                "events.md > Jahreshauptversammlung",
                "Wahlen für alle Vorstandsämter, der Bericht der Kassenwartin und die Pläne des \
                 Clubs für 2027.",
            ),
            (
                "handbook.md > Der Vorstand",
                "Amt: Kassenwartin; Name: Priya Raman; Rufzeichen: 2E0PRY",
            ),
        ]);
        let french = notes(&[(
            "handbook.md > Le comité",
            "Fonction: Responsable du matériel; Nom: Dave Linton\n\
             Fonction: Coordinateur Meshtastic; Nom: Ben Carrow",
        )]);
        let mesh = notes(&[(
            "handbook.md > The club mesh (Meshtastic)",
            "The Meshtastic coordinator, Ben Carrow, looks after the fixed nodes.",
        )]);
        let cases: &[(&str, &str, &str, Option<&str>)] = &[
            (
                "Chi tiene i soldi del club?",
                "Si paga alla tesoriera, in contanti alla serata del club o con bonifico.",
                &committee,
                Some("Carica: Tesoriera; Nome: Priya Raman; Nominativo: 2E0PRY"),
            ),
            (
                "Wer verwaltet das Geld des Clubs?",
                "Der Geld des Clubs wird vom Kassenwartin verwaltet.",
                &german,
                Some("Amt: Kassenwartin; Name: Priya Raman; Rufzeichen: 2E0PRY"),
            ),
            (
                "Who is in charge of the Meshtastic nodes?",
                "The Meshtastic coordinator is in charge of them.",
                &mesh,
                Some("The Meshtastic coordinator, Ben Carrow, looks after the fixed nodes."),
            ),
            // The question's thing names the job: a wrong person, or none, gives way.
            (
                "Chi tiene i soldi del club?",
                "Margaret Ellery tiene i soldi.",
                &committee,
                Some("Carica: Tesoriera; Nome: Priya Raman; Nominativo: 2E0PRY"),
            ),
            (
                "Chi tiene i soldi del club?",
                "Il direttivo tiene i soldi del club.",
                &committee,
                Some("Carica: Tesoriera; Nome: Priya Raman; Nominativo: 2E0PRY"),
            ),
            (
                "Chi tiene i soldi del club?",
                "Non è nei miei appunti.",
                &committee,
                Some("Carica: Tesoriera; Nome: Priya Raman; Nominativo: 2E0PRY"),
            ),
            // The question's own word is no job the answer names; a holder of any job
            // named is the model's choice.
            (
                "Qui est responsable des nœuds Meshtastic ?",
                "Ben Carrow est responsable des nœuds Meshtastic.",
                &french,
                None,
            ),
            (
                "Qui est responsable des nœuds Meshtastic ?",
                "Le responsable des nœuds Meshtastic est le coordinateur.",
                &french,
                Some("Fonction: Coordinateur Meshtastic; Nom: Ben Carrow"),
            ),
            (
                "Qui est le responsable du matériel ?",
                "Dave Linton, le responsable.",
                &french,
                None,
            ),
            // Someone named from a line that shares less of the question than another
            // job's line: that line.
            (
                "Qui est responsable des nœuds Meshtastic ?",
                "Dave Linton s'en occupe.",
                &french,
                Some("Fonction: Coordinateur Meshtastic; Nom: Ben Carrow"),
            ),
            // "pelos" of "Responsável pelos equipamentos" is no word the question is
            // about (a Portuguese stop word).
            (
                "Quem é o responsável pelos nós Meshtastic?",
                "O responsável pelos nós Meshtastic é Dave Linton.",
                &notes(&[(
                    "handbook.md > A diretoria",
                    "Cargo: Responsável pelos equipamentos; Nome: Dave Linton\n\
                     Cargo: Coordenador de Meshtastic; Nome: Ben Carrow",
                )]),
                Some("Cargo: Coordenador de Meshtastic; Nome: Ben Carrow"),
            ),
            // A decline, beside the line squarely about the question.
            (
                "Who is in charge of the Meshtastic nodes?",
                "Not in my notes.",
                &mesh,
                Some("The Meshtastic coordinator, Ben Carrow, looks after the fixed nodes."),
            ),
            // … and beside one that is not: it stands.
            (
                "Who is in charge of the Meshtastic routers?",
                "Not in my notes.",
                &mesh,
                None,
            ),
            // The holder named: kept, by either of the names.
            (
                "Chi tiene i soldi del club?",
                "La tesoriera, Priya Raman.",
                &committee,
                None,
            ),
            (
                "Who is in charge of the Meshtastic nodes?",
                "Ben Carrow, the coordinator.",
                &mesh,
                None,
            ),
            // No job named, or no who asked: nothing to place.
            (
                "Chi tiene la chiave del club?",
                "Non è nei miei appunti.",
                &committee,
                None,
            ),
            (
                "Come si paga la quota?",
                "Si paga alla tesoriera.",
                &committee,
                None,
            ),
            // No line names the job beside a person: kept.
            (
                "Chi tiene i soldi del club?",
                "La tesoriera.",
                &notes(&[(
                    "handbook.md > Iscrizione",
                    "Si paga alla tesoriera, in contanti alla serata del club.",
                )]),
                None,
            ),
        ];
        for (question, answer, notes, want) in cases {
            assert_eq!(
                instead(
                    answer,
                    question,
                    notes,
                    super::super::declines(answer),
                    Lang::En
                )
                .as_deref(),
                *want,
                "{question} / {answer}"
            );
        }
    }

    /// An answer to "who" that names no one the notes name declines; one that names
    /// someone of theirs, a question that does not ask who (German "Wie"), or a decline
    /// stands.
    #[test]
    fn a_who_answered_with_no_one_of_the_notes_is_declined() {
        use super::names_no_one;

        let fox = notes(&[(
            "events.md > Fox hunt",
            "Sunday 26 April 2026 at Hob Hill. Ben Carrow hides the fox.",
        )]);
        let jagd = notes(&[(
            "events.md > Fuchsjagd",
            "Die Fuchsjagd ist am Sonntag, 26. April 2026. Ben Carrow versteckt den Fuchs.",
        )]);
        let cases: &[(&str, &str, &str, Lang, bool)] = &[
            (
                "Who won last year's fox hunt?",
                "The club won it in 2026.",
                &fox,
                Lang::En,
                true,
            ),
            (
                "Qui a gagné la chasse au renard l'an dernier ?",
                "Le club a gagné la chasse au renard l'an dernier.",
                &fox,
                Lang::Fr,
                true,
            ),
            (
                "Wer hat letztes Jahr die Fuchsjagd gewonnen?",
                "Die Fuchsjagd wurde 2026 gewonnen.",
                &jagd,
                Lang::De,
                true,
            ),
            // Someone of the notes, by one of their names.
            (
                "Who hides the fox?",
                "Ask Ben, he hides it.",
                &fox,
                Lang::En,
                false,
            ),
            (
                "Wer versteckt den Fuchs?",
                "Ben Carrow.",
                &jagd,
                Lang::De,
                false,
            ),
            // A decline, and German "Wie" (how).
            (
                "Who won last year's fox hunt?",
                "Not in my notes.",
                &fox,
                Lang::En,
                false,
            ),
            (
                "Wie lange dauert die Fuchsjagd?",
                "Den ganzen Tag.",
                &jagd,
                Lang::De,
                false,
            ),
            // Dutch "wie" asks who.
            ("Wie verstopt de vos?", "De club.", &fox, Lang::Nl, true),
        ];
        for (question, answer, notes, lang, want) in cases {
            assert_eq!(
                names_no_one(answer, question, notes, *lang),
                *want,
                "{question} / {answer}"
            );
        }
    }

    /// A "who" declined, or answered with no one, beside a passage its heading names and
    /// squarely about it: the passage's one line naming a job and someone.
    #[test]
    fn a_who_declined_beside_the_passage_it_names_gets_its_holder() {
        use super::in_named_passage;
        let lending = notes(&[
            (
                "handbook.md > Handbuch > Ausrüstung des Clubs ausleihen",
                "Diese Geräte können ausgeliehen werden:\n\n- Antennenanalysator RigExpert \
                 AA-55 Zoom\n- Morse-Übungsoszillator mit Taste",
            ),
            (
                "handbook.md > Handbuch > Ausrüstung des Clubs ausleihen",
                "Der Club verleiht Ausrüstung kostenlos an Mitglieder. Frag den Gerätewart, Dave \
                 Linton, beim Clubabend oder per E-Mail.",
            ),
        ]);
        let q = "Wen frage ich, wenn ich mir den Antennenanalysator ausleihen will?";
        let dave = "Frag den Gerätewart, Dave Linton, beim Clubabend oder per E-Mail.";
        assert_eq!(
            instead("Nicht in meinen Notizen.", q, &lending, true, Lang::De).as_deref(),
            Some(dave)
        );
        assert_eq!(
            in_named_passage(q, &lending, Lang::De).as_deref(),
            Some(dave)
        );
        // German "Wie" asks how: no holder for it.
        let how = "Wie kann ich Ausrüstung ausleihen, etwa den Antennenanalysator?";
        assert_eq!(
            instead("Nicht in meinen Notizen.", how, &lending, true, Lang::De),
            None
        );
        // Not squarely about the question: two of its words are not in the passage.
        let other = "Wen frage ich, wenn ich die Ausrüstung im Winter für den Mast am Hügel \
                     ausleihen will?";
        assert_eq!(in_named_passage(other, &lending, Lang::De), None);
    }
}
