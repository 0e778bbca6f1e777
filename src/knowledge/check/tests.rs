//! The values an answer adds to its prompt, and what replaces it.

use super::*;

const NOTES: &str = "Notes from the operator's documents:\n\n\
[events.md > Events 2026 > VHF field day]\n\
Saturday 4 and Sunday 5 July 2026 at Crane Farm, Long Lane. Setting up starts at 09:00.\n\n\
[handbook.md > Club > Contacting the club]\n\
Write to the secretary, Ann Lee (secretary@kvarc.org.uk).\n\n\
If the message asks about the club and these notes do not answer it, reply exactly: Not in my \
notes.";

/// `answer` to `question` checked in English, its prompt `notes` and the question.
fn in_english(notes: &str, answer: &str, question: &str) -> Checked {
    check(
        answer,
        question,
        &format!("{notes}\n{question}"),
        notes,
        Lang::En,
    )
}

fn prompt(question: &str) -> String {
    format!("{NOTES}\n{question}")
}

#[test]
fn what_an_answer_adds_to_its_prompt() {
    let q = "When is Field Day next year?";
    let cases: &[(Lang, &str, &[&str])] = &[
        (
            Lang::En,
            "Field day is on 4 and 5 July 2026 at Crane Farm.",
            &[],
        ),
        (Lang::En, "Not in my notes.", &[]),
        (
            Lang::En,
            "Field Day is on October 10, 2023.",
            &["10", "10 october", "2023", "october"],
        ),
        (Lang::En, "The password is password123.", &["123"]),
        (
            Lang::En,
            "Call the secretary, John Smith, on 0151 496.",
            &["john", "smith", "0151", "496"],
        ),
        (
            Lang::En,
            "Write to Ann Lee. Setting up starts at 09:00.",
            &[],
        ),
        // German nouns are capitalised: only numbers count.
        (
            Lang::De,
            "Der Feldtag ist am 10. Oktober 2023.",
            &["10", "10 oktober", "2023"],
        ),
        (
            Lang::De,
            "Der Feldtag ist am 4. Juli 2026 auf der Crane Farm.",
            &[],
        ),
        (
            Lang::Fr,
            "La journée est le 10 octobre 2023 à Lyon.",
            &["10", "10 octobre", "2023", "lyon"],
        ),
        (Lang::Es, "Es el 5 de julio de 2026 en Crane Farm.", &[]),
        (Lang::Pt, "É no dia 12 de outubro.", &["12", "12 outubro"]),
        (Lang::It, "È il 4 luglio 2026.", &[]),
        (
            Lang::Nl,
            "Het is op 3 juli in Utrecht.",
            &["3", "3 juli", "utrecht"],
        ),
        // A date on a day no date of the notes has; the numbers of a range before a month
        // are each a day ("Saturday 4 and Sunday 5 July").
        (Lang::It, "È il 9 luglio 2026.", &["9", "9 luglio"]),
        (Lang::It, "È il 4 luglio 2026.", &[]),
        (Lang::De, "Am 5. Juli, ab 9 Uhr.", &["9"]),
        (Lang::Pl, "To jest 5 lipca 2026 w Crane Farm.", &[]),
        // A made-up address is a value too; one the prompt writes is not.
        (
            Lang::Es,
            "La dirección de la web del club es https://www.club.com.",
            &["https://www.club.com"],
        ),
        (
            Lang::En,
            "Write to info@ashby-club.org or see www.kvarc.org.",
            &["info@ashby-club.org", "www.kvarc.org"],
        ),
        (Lang::En, "Email Ann Lee: Secretary@kvarc.org.uk.", &[]),
        (Lang::En, "Meet @ Crane Farm at 09:00.", &[]),
        // A joined name is named when each of its words is.
        (Lang::En, "Field day is at Crane-Farm.", &[]),
        (Lang::En, "Field day is at Crane-Hall.", &["crane-hall"]),
    ];
    for (lang, answer, want) in cases {
        let mut got = added(answer, &prompt(q), *lang);
        got.sort();
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "{lang:?}: {answer}");
    }
}

#[test]
fn a_made_up_value_is_replaced_by_the_passages_sentence_or_not_in_my_notes() {
    let q = "When does setting up start at the field day?";
    assert_eq!(
        check(
            "Setting up starts at 08:00.",
            q,
            &prompt(q),
            NOTES,
            Lang::En
        ),
        Checked::Sentence {
            sentence: "Setting up starts at 09:00.".into(),
            added: vec!["08".into()],
        }
    );
    // A list's line goes without its mark (the Dutch bench's "- Wacht na de laatste
    // donderslag 30 minuten…").
    let safety = "Notes:\n\n[safety.md > Thunder]\n- Wait 30 minutes after the last thunder \
                  before going back up.\n\nIf these notes do not contain the answer: Not in my notes.";
    let q = "How long do we wait after thunder before going back up?";
    assert_eq!(
        check("560 minutes.", q, q, safety, Lang::En),
        Checked::Sentence {
            sentence: "Wait 30 minutes after the last thunder before going back up.".into(),
            added: vec!["560".into()],
        }
    );
    let q = "What is the club's bank account number?";
    assert_eq!(
        check("It is 12345678.", q, &prompt(q), NOTES, Lang::En),
        Checked::NotInNotes {
            added: vec!["12345678".into()],
        }
    );
    assert_eq!(
        check("Write to Ann Lee.", q, &prompt(q), NOTES, Lang::En),
        Checked::Kept
    );
    // The no-notes block holds no passage: nothing to quote.
    let none = "No note from the operator's documents matches this message. If it asks about \
                the club, reply exactly: Not in my notes.";
    assert_eq!(
        sentence("When does setting up start?", none, Lang::En),
        None
    );
}

#[test]
fn an_answer_without_the_value_asked_for_gives_way_to_the_sentence_that_holds_it() {
    let notes = "Notes from the operator's documents:\n\n\
[events.md > Events 2026 > Fox hunt]\n\
Sunday 26 April 2026. Meet at 10:00 at the Hob Hill car park. The transmitter is on \
145.350 MHz FM. The hunt ends at 14:00.\n\n\
[handbook.md > Handbook > Membership]\n\
Membership type: Full member; Cost per year: £24\n\
Membership type: Family; Cost per year: £30\n\
The membership year runs from 1 April to 31 March.\n\n\
If these notes do not contain the answer, reply exactly: Not in my notes.";
    let check = |answer: &str, question: &str| in_english(notes, answer, question);
    let unanswered = |sentence: &str, kind| Checked::Unanswered {
        sentence: sentence.into(),
        kind,
    };
    let q = "When is the fox hunt this year?";
    // The date, not the clock times that share more words: said after its heading.
    assert_eq!(
        check("The fox hunt is on 145.350 MHz FM.", q),
        unanswered("Fox hunt: Sunday 26 April 2026.", asked::Kind::Day)
    );
    assert_eq!(check("It is on 26 April.", q), Checked::Kept);
    // Declined with the line in front of it: the line, which shares every word the question
    // is about but one ("year") …
    assert_eq!(
        check("Not in my notes.", q),
        unanswered("Fox hunt: Sunday 26 April 2026.", asked::Kind::Day)
    );
    // … but not when two are not in it: that is another hunt.
    assert_eq!(
        check("Not in my notes.", "When is the fox hunt next year?"),
        Checked::Kept
    );
    assert_eq!(
        check(
            "The hunt ends at the car park.",
            "What time does the hunt end?"
        ),
        unanswered("The hunt ends at 14:00.", asked::Kind::Time)
    );
    let q = "How much is a year's membership for an adult?";
    assert_eq!(
        check("The membership year runs from 1 April to 31 March.", q),
        unanswered(
            "Membership type: Full member; Cost per year: £24",
            asked::Kind::Price
        )
    );
    assert_eq!(check("It costs £24 a year.", q), Checked::Kept);
    // No sentence about the question holds a value of the kind: the answer stays.
    let q = "When does the Plough Inn close?";
    assert_eq!(check("Late in the evening.", q), Checked::Kept);
    // A question that asks for no kind of value is not checked for one (a "who" answered
    // with no one the notes name is: `holder`).
    assert_eq!(
        check("The hunt ends at the car park.", "How does the hunt end?"),
        Checked::Kept
    );
    // A place is a name: "the car park" is none, and the line about the hunt that names
    // one goes instead (a weekday or a month names no place: not its date's line).
    assert_eq!(
        check("The hunt ends at the car park.", "Where does the hunt end?"),
        unanswered(
            "Fox hunt: Meet at 10:00 at the Hob Hill car park.",
            asked::Kind::Place
        )
    );
}

/// A word of the phrase that asks for a day shares nothing: "dzień" of "W jaki dzień tygodnia"
/// is no word of a workshop's heading "Dzień budowy węzłów" (the Polish knowledge bench,
/// with the club evening's passage not found, got the workshop's date in its place).
#[test]
fn the_words_that_ask_for_a_day_say_nothing_of_what_is_asked_about() {
    let notes = "Notatki z dokumentów operatora:\n\n\
[events.md > Wydarzenia 2026 > Dzień budowy węzłów Meshtastic]\n\
Sobota, 12 września 2026, od 10:00 do 16:00, w Old Fire Station.\n\n\
Jeśli te notatki nie zawierają odpowiedzi, odpowiedz dokładnie: Nie ma tego w moich notatkach.";
    let q = "W jaki dzień tygodnia jest wieczór klubowy?";
    assert_eq!(asked_words(q), ["wieczor", "klubowy"]);
    assert_eq!(
        check(
            "Wieczór klubowy jest w Old Fire Station.",
            q,
            &format!("{notes}\n{q}"),
            notes,
            Lang::Pl
        ),
        Checked::Kept
    );
    // "day" of "Field Day" is what is asked about.
    assert_eq!(
        asked_words("When is Field Day next year?"),
        ["field", "day", "next", "year"]
    );
    for q in [
        "Which day of the week is the club night?",
        "Welcher Wochentag ist der Clubabend?",
    ] {
        assert!(
            asked_words(q)
                .iter()
                .all(|w| !["day", "week", "wochentag"].contains(&w.as_str())),
            "{q}: {:?}",
            asked_words(q)
        );
    }
}

#[test]
fn a_german_date_is_one_sentence_and_function_words_share_nothing() {
    assert_eq!(
        split_sentences("Dienstag, 1. Dezember 2026 um 19:30. Wahlen für jeden Posten. Ende"),
        [
            "Dienstag, 1. Dezember 2026 um 19:30.",
            "Wahlen für jeden Posten.",
            "Ende"
        ]
    );
    assert_eq!(
        split_sentences("Meet at 10:00. Bring boots."),
        ["Meet at 10:00.", "Bring boots."]
    );
    // "dieses", "ist", "der" are in every German sentence: only "Flohmarkt" is asked.
    assert_eq!(
        asked_words("Wann ist dieses Jahr der Flohmarkt?"),
        ["jahr", "flohmarkt"]
    );
    let notes = "Notizen:\n\n[events.md > Termine 2026 > Jahreshauptversammlung]\n\
Dienstag, 1. Dezember 2026, um 19:30 Uhr in der Old Fire Station, anstelle des Clubabends.\n\n\
[events.md > Termine 2026 > Flohmarkt (Rally)]\nSonntag, 18. Oktober 2026, im Gemeindehaus.\n\n\
Wenn diese Notizen die Antwort nicht enthalten: Nicht in meinen Notizen.";
    let flohmarkt = Checked::Unanswered {
        sentence: "Flohmarkt (Rally): Sonntag, 18. Oktober 2026, im Gemeindehaus.".into(),
        kind: asked::Kind::Day,
    };
    let check = |answer: &str, question: &str| check(answer, question, notes, notes, Lang::De);
    let q = "Wann ist dieses Jahr der Flohmarkt?";
    assert_eq!(check("Der Flohmarkt ist im Gemeindehaus.", q), flohmarkt);
    // Declined: "die" is a German small word, so the line shares all but "Jahr".
    assert_eq!(
        check(
            "Nicht in meinen Notizen.",
            "Wann ist dieses Jahr die Flohmarkt?"
        ),
        flohmarkt
    );
    // A line that shares only a small word ("die") answers nothing.
    let hunt = "Notizen:\n\n[events.md > Termine 2026 > Die Fuchsjagd]\nSonntag, 26. April 2026.\n\n\
Wenn diese Notizen die Antwort nicht enthalten: Nicht in meinen Notizen.";
    assert_eq!(
        super::check(
            "Nicht in meinen Notizen.",
            "Und wann ist die?",
            hunt,
            hunt,
            Lang::De
        ),
        Checked::Kept
    );
}

#[test]
fn an_answer_that_says_nothing_gives_way_to_the_sentence_squarely_about_the_question() {
    let notes = "Notes from the operator's documents:\n\n\
[field-day.md > VHF field day > What to bring]\n\
Dogs on a lead are welcome at the field day.\n\n\
[handbook.md > Club > Monthly club night]\n\
Club night is at the Old Fire Station, 14 Mill Lane.\n\n\
If these notes do not contain the answer, reply exactly: Not in my notes.";
    let check = |answer: &str, question: &str| in_english(notes, answer, question);
    // An echo with a "no" the notes do not say: the sentence that says it.
    assert_eq!(
        check(
            "No, you can not bring your dog to the field day.",
            "Can I bring my dog to the field day?"
        ),
        Checked::Empty {
            sentence: Some("Dogs on a lead are welcome at the field day.".into())
        }
    );
    // An echo of a question no sentence is squarely about: "Not in my notes.".
    assert_eq!(
        check(
            "The postcode of the fire station where we meet.",
            "What is the postcode of the fire station where we meet?"
        ),
        Checked::Empty { sentence: None }
    );
    // A passage's label written out.
    assert_eq!(
        check(
            "Here: Ann [handbook.md > Club > Monthly club night] Club night is at",
            "Who won last year's fox hunt?"
        ),
        Checked::Empty { sentence: None }
    );
    // An answer with a word of its own is an answer.
    assert_eq!(
        check(
            "Club night is at the Old Fire Station.",
            "Where is club night?"
        ),
        Checked::Kept
    );
}

#[test]
fn a_where_question_is_answered_with_a_place() {
    let notes = "Notes des documents de l'opérateur :\n\n\
[events.md > Événements 2026 > Field day VHF]\n\
Samedi 4 et dimanche 5 juillet 2026 à Crane Farm, Long Lane. Le montage commence à 09:00.\n\
Le field day VHF est le concours national de l'été.\n\n\
[handbook.md > Club > Soirée d'hiver]\n\
Samedi 17 janvier, à partir de 18:30, au Plough Inn, High Street.\n\n\
Si ces notes ne contiennent pas la réponse, réponds exactement : Pas dans mes notes.";
    let fr = |answer: &str, question: &str| {
        check(
            answer,
            question,
            &format!("{notes}\n{question}"),
            notes,
            Lang::Fr,
        )
    };
    let q = "Où se déroule le field day VHF ?";
    // No name but the question's own ("VHF"): the line that names the place.
    assert_eq!(
        fr(
            "Le field day VHF se déroule du samedi 09:00 au dimanche.",
            q
        ),
        Checked::Unanswered {
            sentence: "Field day VHF: Samedi 4 et dimanche 5 juillet 2026 à Crane Farm, Long \
                       Lane."
                .into(),
            kind: asked::Kind::Place,
        }
    );
    // A place: kept (a place is not placed on a line) …
    assert_eq!(fr("À Crane Farm, Long Lane.", q), Checked::Kept);
    // … but not one written only outside the passage the question names by its heading
    // (`place`).
    assert_eq!(
        fr("Au Plough Inn.", q),
        Checked::OtherLine {
            sentence: "Field day VHF: Samedi 4 et dimanche 5 juillet 2026 à Crane Farm, Long \
                       Lane."
                .into(),
            kind: asked::Kind::Place,
        }
    );
    assert_eq!(fr("Au Plough Inn.", "Où est la soirée ?"), Checked::Kept);
    // A decline stands: the notes may name the field day's farm and not where to park.
    assert_eq!(
        fr(
            "Pas dans mes notes.",
            "Où est-ce qu'on se gare au field day VHF ?"
        ),
        Checked::Kept
    );
}

#[test]
fn a_start_time_is_no_answer_to_when_something_closes() {
    let notes = "Notes from the operator's documents:\n\n\
[events.md > Events 2026 > Winter social]\n\
Saturday 17 January 2026, from 18:30, at the Plough Inn, High Street.\n\n\
If these notes do not contain the answer, reply exactly: Not in my notes.";
    let q = "What time does the Plough Inn close?";
    assert_eq!(in_english(notes, "From 18:30.", q), Checked::StartForEnd);
    // A made-up closing time, or a decline: not the start's line instead.
    assert_eq!(
        in_english(notes, "It closes at 23:00.", q),
        Checked::StartForEnd
    );
    assert_eq!(in_english(notes, "Not in my notes.", q), Checked::Kept);
    // When it starts: the start's line is right.
    assert_eq!(
        in_english(
            notes,
            "It starts at 18:30.",
            "What time does the winter social start?"
        ),
        Checked::Kept
    );
}

#[test]
fn a_word_is_shared_by_what_documents_write_for_it() {
    let notes = "Notizen aus den Dokumenten des Betreibers:\n\n\
[handbook.md > Handbuch > Mitgliedschaft]\n\
Art der Mitgliedschaft: Vollmitglied; Kosten pro Jahr: 24 £\n\
Art der Mitgliedschaft: Unter 18 oder Vollzeitstudent; Kosten pro Jahr: 8 £\n\
Art der Mitgliedschaft: Familie (gleiche Adresse); Kosten pro Jahr: 30 £\n\n\
[handbook.md > Handbuch > Der Vorstand]\n\
Amt: Vorsitzende; Name: Margaret Ellery; Rufzeichen: G4XME\n\
Amt: Kassenwartin; Name: Priya Raman; Rufzeichen: 2E0PRY\n\n\
Wenn diese Notizen die Antwort nicht enthalten, antworte genau: Nicht in meinen Notizen.";
    let de = |answer: &str, question: &str| {
        check(
            answer,
            question,
            &format!("{notes}\n{question}"),
            notes,
            Lang::De,
        )
    };
    // "Erwachsenen" is shared by "Vollmitglied" (`lang::related`): the family's price, from
    // another row, gives way to the full member's.
    let price = "Wie viel kostet ein Jahr Mitgliedschaft für einen Erwachsenen?";
    assert_eq!(
        de("Ein Jahr kostet 30 £.", price),
        Checked::OtherLine {
            sentence: "Art der Mitgliedschaft: Vollmitglied; Kosten pro Jahr: 24 £".into(),
            kind: asked::Kind::Price,
        }
    );
    assert_eq!(de("Ein Jahr kostet 24 £.", price), Checked::Kept);
    // The job for "who", and not its holder: the line naming both.
    let who = "Wer verwaltet das Geld des Clubs?";
    assert_eq!(
        de("Das Geld wird von der Kassenwartin verwaltet.", who),
        Checked::Holder {
            sentence: "Amt: Kassenwartin; Name: Priya Raman; Rufzeichen: 2E0PRY".into(),
        }
    );
    assert_eq!(de("Priya Raman, die Kassenwartin.", who), Checked::Kept);
    // A made-up value's replacement, or a decline, is no holder either.
    for answer in [
        "Das macht die Kassenwartin, Telefon 0171 1234.",
        "Nicht in meinen Notizen.",
    ] {
        assert_eq!(
            de(answer, who),
            Checked::Holder {
                sentence: "Amt: Kassenwartin; Name: Priya Raman; Rufzeichen: 2E0PRY".into(),
            },
            "{answer}"
        );
    }
}

/// A refusal: "Not in my notes." in any language with a word or two besides, a short "I can't
/// help with that", or meshai's rule recited; an answer that says more than that is none.
#[test]
fn a_refusal_is_the_decline_with_little_besides_or_the_rule_recited() {
    for (answer, lang, want) in [
        ("Not in my notes.", Lang::En, true),
        ("Sorry: not in my notes!", Lang::En, true),
        ("No está en mis notas.", Lang::Es, true),
        ("Nie ma tego w moich notatkach.", Lang::Pl, true),
        // In another language than the conversation's.
        ("Not in my notes.", Lang::It, true),
        (
            "If these notes do not contain the answer, reply exactly: Not in my notes.",
            Lang::En,
            true,
        ),
        (
            "Not in my notes, but a short message now and then is fine.",
            Lang::En,
            false,
        ),
        ("Keep it to a few short messages.", Lang::En, false),
        // "I can't help with that", short, in any language.
        ("Przepraszam, ale nie mogę pomóc z tym.", Lang::Pl, true),
        ("I'm sorry, but I can't help with that.", Lang::En, true),
        ("Dabei kann ich dir nicht helfen.", Lang::De, true),
        ("Désolé, je ne peux pas vous aider.", Lang::Fr, true),
        ("Je ne peux pas t'aider avec ça.", Lang::Fr, true),
        ("Sorry, I can\u{2019}t help with that.", Lang::En, true),
        // An answer that goes on to help is none.
        (
            "I can't help with the wiring myself, but a 1 W panel and a 2000 mAh cell keep a \
             small node up for days.",
            Lang::En,
            false,
        ),
        ("Nie mogę pomóc? Spróbuj ponownie.", Lang::Pl, true),
        ("", Lang::En, false),
    ] {
        assert_eq!(refuses(answer, lang), want, "{answer:?}");
    }
}

/// A sentence put in instead holds a value of the kind asked for when a line of the notes
/// does: the sentence sharing most words with "how long" is no answer to it.
#[test]
fn a_sentence_put_in_holds_the_kind_of_value_asked_for() {
    let notes = "Notes tirées des documents de l'opérateur :\n\n\
[handbook.md > Manuel > Emprunter du matériel du club]\n\
Le club prête du matériel gratuitement aux membres. Adressez-vous au responsable du matériel, \
Dave Linton, à la soirée du club ou par e-mail. Vous pouvez garder un article jusqu'à deux \
semaines ; demandez à Dave si vous en avez besoin plus longtemps.\n\n\
Si ces notes ne contiennent pas la réponse, réponds exactement : Pas dans mes notes.";
    let q = "Combien de temps je peux garder un truc que le club m'a prêté ?";
    let two_weeks = "Vous pouvez garder un article jusqu'à deux semaines ; demandez à Dave si \
                     vous en avez besoin plus longtemps.";
    for answer in [
        // The question written back, a made-up value, the rule recited.
        "Combien de temps je peux garder un truc que le club m'a prêté ?",
        "Le club prête du matériel pour 30 jours.",
        "Si ces notes ne contiennent pas la réponse, réponds exactement : Pas dans mes notes.",
    ] {
        let got = check(answer, q, &format!("{notes}\n{q}"), notes, Lang::Fr);
        assert_eq!(got.sentence(), Some(two_weeks), "{answer:?}: {got:?}");
    }
}

/// A "who" whose answer carried a made-up value gets the holder in the passage it names, not
/// "Not in my notes." (the German bench's analyser question, answered with a name and a
/// number the notes do not hold).
#[test]
fn a_made_up_value_for_who_gives_way_to_the_holder_in_the_passage_named() {
    let notes = "Notizen aus den Dokumenten des Betreibers:\n\n\
[handbook.md > Handbuch > Ausrüstung des Clubs ausleihen]\n\
Diese Geräte können ausgeliehen werden:\n\n- Antennenanalysator RigExpert AA-55 Zoom\n\n\
[handbook.md > Handbuch > Ausrüstung des Clubs ausleihen]\n\
Der Club verleiht Ausrüstung kostenlos an Mitglieder. Frag den Gerätewart, Dave Linton, am \
Clubabend oder per E-Mail.\n\n\
Wenn diese Notizen die Antwort nicht enthalten, antworte genau: Nicht in meinen Notizen.";
    let q = "Wen frage ich, wenn ich mir den Antennenanalysator ausleihen will?";
    let got = check(
        "Frag Herrn Müller unter 0123 456789.",
        q,
        &format!("{notes}\n{q}"),
        notes,
        Lang::De,
    );
    assert_eq!(
        got,
        Checked::Holder {
            sentence: "Frag den Gerätewart, Dave Linton, am Clubabend oder per E-Mail.".into()
        }
    );
}

/// The Polish bench's borrowing passage, split as the index splits it: the list, then who
/// lends and for how long.
const LENDING_PL: &str = "Notatki z dokumentów operatora:\n\n\
[handbook.md > Poradnik członka > Wypożyczanie sprzętu klubowego]\n\
Sprzęt do wypożyczenia:\n\n- Analizator antenowy RigExpert AA-55 Zoom\n\
- Generator do nauki telegrafii z kluczem\n\n\
[handbook.md > Poradnik członka > Wypożyczanie sprzętu klubowego]\n\
Klub bezpłatnie wypożycza sprzęt członkom. Zwróć się do opiekuna sprzętu, Dave'a Lintona, na \
wieczorze klubowym albo mailowo. Możesz zatrzymać sprzęt do dwóch tygodni; jeśli potrzebujesz \
go dłużej, zapytaj Dave'a.\n\n\
Jeśli te notatki nie zawierają odpowiedzi, odpowiedz dokładnie: Nie ma tego w moich notatkach.";

/// A Polish question shares its words with the lines the search found for it by their stems
/// and a verb's other prefixes ("trzymać" is "zatrzymać", "pożyczyłem" "Wypożyczanie",
/// "klubu" "klubowego"): the decline gives way to the line, as in the other languages.
#[test]
fn a_polish_decline_gives_way_to_the_line_its_verbs_find_by_their_prefixes() {
    let decline = "Nie ma tego w moich notatkach.";
    let q = "Jak długo mogę trzymać coś, co pożyczyłem z klubu?";
    let got = check(
        decline,
        q,
        &format!("{LENDING_PL}\n{q}"),
        LENDING_PL,
        Lang::Pl,
    );
    assert_eq!(
        got.sentence(),
        Some(
            "Możesz zatrzymać sprzęt do dwóch tygodni; jeśli potrzebujesz go dłużej, zapytaj Dave'a."
        ),
        "{got:?}"
    );
    let q = "Kogo poprosić, żeby pożyczyć analizator antenowy?";
    let got = check(
        decline,
        q,
        &format!("{LENDING_PL}\n{q}"),
        LENDING_PL,
        Lang::Pl,
    );
    assert_eq!(
        got,
        Checked::Holder {
            sentence: "Wypożyczanie sprzętu klubowego: Zwróć się do opiekuna sprzętu, Dave'a \
                       Lintona, na wieczorze klubowym albo mailowo."
                .into()
        }
    );
    // In Dutch a stem does not reach into a compound: "club" is not "clubronde".
    let club = ["leden", "club"].map(String::from);
    let august = "In augustus is er geen clubronde: de leden zijn weg.";
    assert_eq!(shared_in(&club, august, Lang::Nl), 1);
    // As written only, nothing is shared: the decline stands.
    let kept = ["trzymac", "pozyczylem", "klubu"].map(String::from);
    assert_eq!(
        shared(&kept, "Możesz zatrzymać sprzęt w wypożyczalni klubowej"),
        0
    );
    assert_eq!(
        shared_in(
            &kept,
            "Możesz zatrzymać sprzęt w wypożyczalni klubowej",
            Lang::Pl
        ),
        3
    );
}
