//! What a question asks for, and what a text holds, in every language.

use super::*;
use crate::mesh::matcher::fold;

#[test]
fn what_a_question_asks_for_in_every_language() {
    use Kind::*;
    let cases: &[(&str, Option<Kind>)] = &[
        // A year named asks for the day: "14:00" does not say when this year's fox hunt is.
        ("When is the fox hunt this year?", Some(Day)),
        ("When is the fox hunt?", Some(When)),
        ("C'est quand, la brocante radio cette année ?", Some(Day)),
        ("Quand'è la caccia alla volpe quest'anno?", Some(Day)),
        ("Quando vai ser a caça à raposa este ano?", Some(Day)),
        ("Kiedy w tym roku jest polowanie na lisa?", Some(Day)),
        ("And when's the AGM?", Some(When)),
        ("What time does club night begin?", Some(Time)),
        ("Which day of the week is club night?", Some(Day)),
        ("How much is a year's membership for an adult?", Some(Price)),
        ("What does a node kit cost at the build day?", Some(Price)),
        ("When do I pay the fee?", Some(When)),
        ("Do you know if anyone knows when it starts?", None),
        ("Wann ist dieses Jahr die Fuchsjagd?", Some(Day)),
        ("Um wie viel Uhr beginnt der Clubabend?", Some(Time)),
        ("An welchem Wochentag ist Clubabend?", Some(Day)),
        (
            "Wie viel kostet ein Jahr Mitgliedschaft für einen Erwachsenen?",
            Some(Price),
        ),
        ("¿Cuándo es la caza del zorro este año?", Some(Day)),
        ("¿A qué hora empieza la noche del club?", Some(Time)),
        ("¿Qué día de la semana es la noche del club?", Some(Day)),
        (
            "¿Cuánto cuesta un año de socio para un adulto?",
            Some(Price),
        ),
        // A conjunction, not the question: the last clause asks how long.
        (
            "Cuando ha tronado, ¿cuánto rato esperamos antes de subir otra vez?",
            Some(Duration),
        ),
        ("¿Dónde es la cena del club?", Some(Place)),
        ("When it thunders, how long do we wait?", Some(Duration)),
        (
            "C'est quel jour de la semaine, la soirée du club ?",
            Some(Day),
        ),
        ("So, when is the AGM?", Some(When)),
        ("Quand a lieu la chasse au renard ?", Some(When)),
        ("À quelle heure commence la soirée du club ?", Some(Time)),
        ("Combien coûte l'adhésion pour un adulte ?", Some(Price)),
        ("Quando è la caccia alla volpe quest'anno?", Some(Day)),
        ("Quand'è il raduno quest'anno?", Some(Day)),
        ("Quanto costa l'iscrizione per un adulto?", Some(Price)),
        // "costa" is the coast here, not a price.
        ("Dove si trova la costa?", Some(Place)),
        ("Que dia da semana é a noite do clube?", Some(Day)),
        ("Quanto custa a quota anual?", Some(Price)),
        ("Wanneer is de vossenjacht dit jaar?", Some(Day)),
        ("Hoe laat begint de clubavond?", Some(Time)),
        ("Wat kost een jaar lidmaatschap?", Some(Price)),
        ("Kiedy jest w tym roku polowanie na lisa?", Some(Day)),
        ("O której zaczyna się wieczór klubowy?", Some(Time)),
        ("W jaki dzień tygodnia jest wieczór klubowy?", Some(Day)),
        ("Ile kosztuje roczna składka?", Some(Price)),
        ("Which access tone does GB3KV need?", Some(Tone)),
        ("Welchen Subton braucht GB3KV?", Some(Tone)),
        (
            "Jaki subton trzeba ustawić, żeby wejść na GB3KV?",
            Some(Tone),
        ),
        ("Welke subtoon heeft GB3KV nodig?", Some(Tone)),
        ("¿Qué tono de acceso pide GB3KV?", Some(Tone)),
        (
            "Welche Ablage hat das 70-cm-Relais in Ashby Marsh?",
            Some(Offset),
        ),
        (
            "¿Cuál es el desplazamiento del repetidor de 70 cm de Ashby Marsh?",
            Some(Offset),
        ),
        ("Quel shift a le relais 70 cm d'Ashby Marsh ?", Some(Offset)),
        (
            "What is the offset on the Ashby Marsh 70 cm repeater?",
            Some(Offset),
        ),
        (
            "¿En qué frecuencia se hace la rueda dominical de HF?",
            Some(Frequency),
        ),
        (
            "Sur quelle fréquence est le réseau du dimanche ?",
            Some(Frequency),
        ),
        (
            "Na jakiej częstotliwości jest niedzielna runda?",
            Some(Frequency),
        ),
        // The word itself, where the question starts (the Portuguese bench's HF net was
        // answered with the RAYNET row and nothing moved it).
        (
            "Qual a frequência da rodada de HF de domingo?",
            Some(Frequency),
        ),
        ("What's the frequency of the fox hunt?", Some(Frequency)),
        // Where, in every language.
        ("Where is the winter social?", Some(Place)),
        ("Wo findet der Winterabend statt?", Some(Place)),
        ("¿Dónde es la cena de invierno?", Some(Place)),
        ("Où se déroule le field day VHF ?", Some(Place)),
        ("Dov'è la cena sociale d'inverno?", Some(Place)),
        ("Onde acontece o field day de VHF?", Some(Place)),
        ("Waar is de winteravond?", Some(Place)),
        ("Gdzie jest zimowa impreza klubowa?", Some(Place)),
        // "When and where": the day first.
        ("When and where is the rally?", Some(When)),
        // One word later: "what is the" in every language.
        (
            "Qual è la frequenza di uscita del ponte dei 2 metri su Beacon Hill?",
            Some(Frequency),
        ),
        (
            "Quelle est la fréquence de sortie du relais 2 m ?",
            Some(Frequency),
        ),
        (
            "Was ist die Ausgabefrequenz des 2-m-Relais auf dem Beacon Hill?",
            Some(Frequency),
        ),
        // Further in, it is what the question is about, not what it asks for.
        ("How do I change the frequency of my node?", None),
        // How long: in every language, where the asking clause starts.
        (
            "How long should we wait after thunder before going back up the hill?",
            Some(Duration),
        ),
        (
            "Wie lange darf ich etwas behalten, das ich mir vom Club geliehen habe?",
            Some(Duration),
        ),
        (
            "Combien de temps puis-je garder un objet prêté par le club ?",
            Some(Duration),
        ),
        (
            "Quanto tempo posso tenermi una cosa che il club mi ha prestato?",
            Some(Duration),
        ),
        (
            "Por quanto tempo posso ficar com uma coisa que peguei emprestada do clube?",
            Some(Duration),
        ),
        ("Hoe lang mag ik iets lenen van de club?", Some(Duration)),
        (
            "Jak długo mogę trzymać coś, co pożyczyłem z klubu?",
            Some(Duration),
        ),
        ("Którego jest walne zebranie?", Some(Day)),
        // The first clause's "when" is a conjunction: the question is the last.
        ("When I get to the field day, who do I report to?", None),
        // An evening or a night of the week is a day.
        (
            "Which evening is the weekly net on the repeater?",
            Some(Day),
        ),
        ("¿Qué noche toca la rueda semanal del repetidor?", Some(Day)),
        (
            "W który wieczór jest cotygodniowy krąg na przemienniku?",
            Some(Day),
        ),
        // "How much" with a word for paying asks a price; paying alone does not.
        ("Quanto um adulto paga por ano pra ser sócio?", Some(Price)),
        (
            "Ile trzeba zapłacić za zestaw do budowy węzła na warsztatach?",
            Some(Price),
        ),
        ("Who do I pay at the door?", None),
        (
            "Se tuona, quanto dobbiamo aspettare prima di tornare su in collina?",
            Some(Duration),
        ),
        ("Z którego przemiennika korzystacie?", None),
        // "Long" elsewhere is no "how long".
        ("Which antenna has the longest range?", None),
    ];
    for (question, want) in cases {
        assert_eq!(kind(&fold(question)), *want, "{question}");
    }
}

#[test]
fn what_a_text_holds_in_every_language() {
    let h = |date, clock, weekday, money| Holds {
        date,
        clock,
        weekday,
        money,
        hertz: false,
        tone: false,
        offset: false,
        duration: false,
    };
    let cases: &[(&str, Holds)] = &[
        ("Sunday 26 April 2026.", h(true, false, true, false)),
        (
            "The fox hunt is on 26th April.",
            h(true, false, false, false),
        ),
        // "may" without a number is a verb, a frequency is not a time.
        (
            "You may keep it; the hunt is on 145.350 MHz FM.",
            h(false, false, false, false),
        ),
        (
            "Meet at 10:00 at the car park.",
            h(false, true, false, false),
        ),
        ("Doors open at 7pm.", h(false, true, false, false)),
        (
            "Membership type: Full member; Cost per year: £24",
            h(false, false, false, true),
        ),
        ("Tea is 50p a cup.", h(false, false, false, true)),
        ("Parking is free after 18:00.", h(false, true, false, true)),
        (
            "Am 4.7.2026 auf der Crane Farm.",
            h(true, false, false, false),
        ),
        (
            "Sonntags um 10 Uhr auf 3,720 MHz.",
            h(true, true, true, false),
        ),
        ("Ein Jahr kostet 24 Euro.", h(false, false, false, true)),
        ("Der Eintritt ist kostenlos.", h(false, false, false, true)),
        (
            "El domingo 26 de abril de 2026.",
            h(true, false, true, false),
        ),
        ("La cuota es de 24 libras.", h(false, false, false, true)),
        ("Le 26 avril à 19h30.", h(true, true, false, false)),
        ("Il 26 aprile alle ore 10.", h(true, true, false, false)),
        (
            "Na segunda-feira, 26 de abril.",
            h(true, false, true, false),
        ),
        ("Op zaterdag 4 juli om 9 uur.", h(true, true, true, false)),
        (
            "W środę, 26 kwietnia, o godz. 10; wstęp za darmo, składka 24 zł.",
            h(true, true, true, true),
        ),
        (
            "The repeater is on Beacon Hill.",
            h(false, false, false, false),
        ),
    ];
    for (text, want) in cases {
        // Hertz, tones and offsets have their own tests.
        let got = Holds {
            hertz: false,
            tone: false,
            offset: false,
            duration: false,
            ..holds(text, &fold(text))
        };
        assert_eq!(got, *want, "{text}");
    }
}

#[test]
fn a_frequency_is_a_number_in_kilo_mega_or_gigahertz() {
    let hertz = |text: &str| holds(text, &fold(text)).hertz;
    assert!(hertz("Output: 145.7125 MHz"));
    // An access tone is no frequency to tune to.
    assert!(!hertz(
        "CTCSS 77.0 Hz on the input; the repeater sends 77.0 Hz on the output"
    ));
    assert!(hertz("Ablage: +7,6 MHz"));
    assert!(hertz("a shift of −600 kHz"));
    assert!(hertz("auf 145.500MHz"));
    // A table row's frequency: the wrong row is told by its line (`check::line`), not by
    // its unit.
    assert!(hertz("Frecuencia: 145,575; Modo: FM"));
    assert!(hertz("Frequency (MHz): 3.720"));
    assert!(!hertz("Frequency of the net: weekly, 20 people"));
    assert!(!hertz("The repeater is on Beacon Hill, 248 m up."));
}

/// A tone is in hertz, an offset is signed: "Jaki subton…" answered with the shift's "-600
/// kHz" holds no tone, the Dutch "welke subtoon" answered with the output's line neither.
#[test]
fn a_tone_is_in_hertz_and_an_offset_is_signed() {
    let held = |text: &str| {
        let h = holds(text, &fold(text));
        (h.tone, h.offset)
    };
    let cases: &[(&str, (bool, bool))] = &[
        ("Subton: CTCSS 77,0 Hz auf der Eingabe", (true, false)),
        ("Access tone: CTCSS 77.0", (true, false)),
        ("Subtono: 103,5", (true, false)),
        ("Uitgang (hierop luister je): 145,7125 MHz", (false, false)),
        (
            "Subton trzeba ustawić, należy przesunięcie -600 kHz.",
            (false, true),
        ),
        ("Eingabe: 438,4375 MHz, Shift +7,6 MHz", (false, true)),
        ("Input: 430.5625 MHz (shift −9 MHz)", (false, true)),
        ("El desplazamiento es de 600 kHz.", (false, true)),
        // A hyphen inside a word or a range is no sign.
        ("Antennenanalysator RigExpert AA-55 Zoom", (false, false)),
        ("Wait 10-15 minutes on 145.500 MHz.", (false, false)),
        ("Ashby–Kingsway road, 430 MHz", (false, false)),
    ];
    for (text, want) in cases {
        assert_eq!(held(text), *want, "{text}");
    }
}

/// A duration is a number before a unit of time, in digits or in words.
#[test]
fn a_duration_is_a_number_of_units_of_time() {
    let cases: &[(&str, bool)] = &[
        ("Wait 30 minutes after the last thunder.", true),
        ("You may keep an item for two weeks.", true),
        ("Du darfst es zwei Wochen behalten.", true),
        ("Puedes quedártelo dos semanas.", true),
        ("Tu peux le garder deux semaines.", true),
        ("Puoi tenerlo per due settimane.", true),
        ("Você pode ficar com ele por duas semanas.", true),
        ("Je mag het twee weken houden.", true),
        ("Można go trzymać przez dwa tygodnie.", true),
        ("Odczekaj 30 minut po ostatnim grzmocie.", true),
        ("Half an hour at most.", true),
        // A unit without a number, a number without a unit, a date.
        ("Every week on Thursday.", false),
        ("Channel 30 on the hill.", false),
        ("Sunday 26 April 2026.", false),
    ];
    for (text, want) in cases {
        assert_eq!(holds(text, &fold(text)).duration, *want, "{text}");
    }
    // Club night's times say how long it is, less well than a duration does.
    let span = "19:30 to 22:00";
    let answers = |t: &str| holds(t, &fold(t)).answers(Kind::Duration);
    assert!(answers(span) > 0 && answers("for two hours") > answers(span));
    assert_eq!(answers("At the Old Fire Station."), 0);
}

/// A date is a day next to a month; the notes' days are any day-like number near a month.
#[test]
fn the_dates_and_days_a_text_writes() {
    let pairs = |text: &str| dates(&fold(text));
    let p = |d: &str, m: &str| (d.to_string(), m.to_string());
    assert_eq!(
        pairs("Il raduno è il 24 ottobre 2026."),
        [p("24", "ottobre")]
    );
    assert_eq!(pairs("El domingo 26 de abril."), [p("26", "abril")]);
    assert_eq!(pairs("On October 18th, 2026."), [p("18", "october")]);
    assert_eq!(pairs("Le 1er mai."), [p("1", "mai")]);
    // A year, and a count of hours, are no day.
    assert!(pairs("Ottobre 2026: 24 ore di attività.").is_empty());
    assert_eq!(
        days(&fold("Saturday 4 and Sunday 5 July 2026, 24 hours.")),
        ["4", "5"]
    );
}

#[test]
fn a_when_is_answered_best_by_a_date() {
    let date = Holds {
        date: true,
        ..Holds::default()
    };
    let clock = Holds {
        clock: true,
        ..Holds::default()
    };
    assert!(date.answers(Kind::When) > clock.answers(Kind::When));
    assert_eq!(date.answers(Kind::Time), 0);
    assert_eq!(Holds::default().answers(Kind::Price), 0);
}
