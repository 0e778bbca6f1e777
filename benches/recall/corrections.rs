//! The `corrections` scenario of the recall bench (`MESHAI_RECALL=corrections`): one node
//! states ten facts, asks ordinary questions, then corrects four of them — each a different
//! kind (a new callsign, a moved club meeting, a node put elsewhere, another radio) and worded
//! as people do ("Update: …", "now", "moved", "a new …") — asks more ordinary questions, then
//! asks all ten back. A corrected fact is answered right when the answer holds the new value,
//! and wrongly when it holds the old one (both count as old). With `MESHAI_RECALL_SETS=2` a
//! second run uses other values: 20 questions, 8 of them about a corrected fact.

use super::{FILLER, FILLER_DE, Lang, Line};

/// One fact: its statement, its question, its value; for a corrected one, the correction
/// and the value it brings.
struct Fact {
    statement: String,
    question: &'static str,
    value: &'static str,
    correction: Option<(String, &'static str)>,
}

/// The facts of value set `set` (0 or 1), in the order they are stated.
fn facts(set: usize) -> Vec<Fact> {
    let i = set % 2;
    let names = ["Tomasz", "Ingrid"];
    let calls = [("SP9QRZ", "SP2KWT"), ("LA7KJV", "LB3NHE")];
    let towns = ["Zakopane", "Tromso"];
    let dogs = ["Biscuit", "Pepper"];
    let days = [("Thursday", "Tuesday"), ("Monday", "Saturday")];
    let places = [
        ("the roof of the library", "the water tower"),
        ("the church steeple", "the fire station"),
    ];
    let radios = [("Heltec V3", "RAK WisBlock"), ("T-Beam", "Station G2")];
    let mah = ["3000", "5200"];
    let cars = ["Land Rover", "Volvo"];
    let freqs = ["869.525", "433.175"];
    let plain = |statement: String, question, value| Fact {
        statement,
        question,
        value,
        correction: None,
    };
    vec![
        plain(
            format!("Hi, my name is {}.", names[i]),
            "What is my name?",
            names[i],
        ),
        Fact {
            statement: format!("My callsign is {}.", calls[i].0),
            question: "What is my callsign now?",
            value: calls[i].0,
            correction: Some((
                format!(
                    "Update: I got a new callsign last month, it's {} now.",
                    calls[i].1
                ),
                calls[i].1,
            )),
        },
        plain(
            format!("I live in {}.", towns[i]),
            "Where do I live?",
            towns[i],
        ),
        plain(
            format!("My dog is called {}.", dogs[i]),
            "What is my dog called?",
            dogs[i],
        ),
        Fact {
            statement: format!("Our radio club meets every second {}.", days[i].0),
            question: "On which day does our radio club meet?",
            value: days[i].0,
            correction: Some((
                format!("Our radio club now meets every second {}.", days[i].1),
                days[i].1,
            )),
        },
        Fact {
            statement: format!("My home node is on {}.", places[i].0),
            question: "Where is my home node?",
            value: last_word(places[i].0),
            correction: Some((
                format!("I moved my home node to {}.", places[i].1),
                last_word(places[i].1),
            )),
        },
        Fact {
            statement: format!("My radio is a {}.", radios[i].0),
            question: "Which radio do I use?",
            value: radios[i].0,
            correction: Some((
                format!("I have a new radio now, a {}.", radios[i].1),
                radios[i].1,
            )),
        },
        plain(
            format!("My solar node has a {} mAh battery.", mah[i]),
            "How big is the battery of my solar node?",
            mah[i],
        ),
        plain(
            format!("I drive an old {}.", cars[i]),
            "What car do I drive?",
            cars[i],
        ),
        plain(
            format!("My favourite frequency is {} MHz.", freqs[i]),
            "What is my favourite frequency?",
            freqs[i],
        ),
    ]
}

/// The last word of a place ("library"): what an answer naming it must hold.
fn last_word(place: &'static str) -> &'static str {
    place.rsplit(' ').next().unwrap_or(place)
}

/// The conversation of value set `set`: the ten facts, six ordinary questions, the four
/// corrections, four ordinary questions, the ten questions in a shuffled order.
pub fn script(lang: Lang, set: usize, tag: &str) -> Vec<Line> {
    let filler = match lang {
        Lang::En => FILLER,
        Lang::De => FILLER_DE,
        Lang::Es => super::FILLER_ES,
    };
    let facts = facts(set);
    let mut lines = Vec::new();
    for (i, f) in facts.iter().enumerate() {
        let text = if i == 0 {
            format!("{} ({tag})", f.statement)
        } else {
            f.statement.clone()
        };
        lines.push(Line::said(text));
    }
    let mut asked = (set * 11..).map(|i| filler[i % filler.len()]);
    lines.extend(asked.by_ref().take(6).map(|q| Line::said(q.to_string())));
    for f in &facts {
        if let Some((text, _)) = &f.correction {
            lines.push(Line::said(text.clone()));
        }
    }
    lines.extend(asked.take(4).map(|q| Line::said(q.to_string())));
    for i in [5usize, 0, 4, 3, 6, 1, 8, 2, 9, 7] {
        let f = &facts[i];
        let line = match &f.correction {
            Some((_, new)) => Line::asked(f.question, new, Some(f.value)),
            None => Line::asked(f.question, f.value, None),
        };
        lines.push(line);
    }
    lines
}
