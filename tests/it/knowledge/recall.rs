//! What the search finds, in all eight languages, without a model: for each covered question
//! of the knowledge bench (`benches/knowledge/questions.tsv` and its translations), does the
//! block `meshai knowledge search` says the prompt gets hold one of the question's keys? A
//! floor per language, at what 2026-12-07 found (docs/benchmarks.md, "Retrieval"): 206, then
//! 219 of 224 once a job was found by the everyday words it is asked with (`lang::related`)
//! and a start's verb was left out of a time's search, 223 once a Polish verb was searched
//! with its other prefixes ("pożyczyć" finds "wypożycza") and a bite by its verb
//! (`lang::stem::forms`, `lang::related`). A change that makes the daemon find
//! less in any language fails here, where the real-model bench would take an hour to say so.

use std::path::{Path, PathBuf};

use super::cli;

/// Each language's bench folder and how many of its 28 covered questions must find a key.
const FLOORS: [(&str, usize); 8] = [
    ("en", 28),
    ("de", 28),
    ("es", 28),
    ("fr", 28),
    ("it", 27),
    ("pt", 28),
    ("nl", 28),
    ("pl", 28),
];

fn bench_dir(lang: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/knowledge");
    match lang {
        "en" => root,
        other => root.join(other),
    }
}

/// The covered questions of `dir`: (conversation, question, keys).
fn covered(dir: &Path) -> Vec<(String, String, Vec<String>)> {
    let text = std::fs::read_to_string(dir.join("questions.tsv")).expect("questions.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() >= 4 && f[0] == "covered").then(|| {
                let keys = f[3].split('|').filter(|k| !k.is_empty());
                (
                    f[1].to_string(),
                    f[2].to_string(),
                    keys.map(str::to_lowercase).collect(),
                )
            })
        })
        .collect()
}

/// How many of `lang`'s covered questions find a key, and the ones that do not.
fn found(lang: &str) -> (usize, Vec<String>) {
    let dir = bench_dir(lang);
    let state = tempfile::tempdir().expect("tempdir");
    let about = std::fs::read_to_string(dir.join("about.txt"))
        .map(|a| a.trim().to_string())
        .unwrap_or_else(|_| "the club".into());
    let config = state.path().join("config.toml");
    let text = format!(
        "[radio]\ntcp = \"127.0.0.1:9\"\n[storage]\ndatabase = \"{}\"\n\
         [knowledge]\ndir = \"{}\"\nabout = \"{about}\"\n",
        state.path().join("meshai.db").display(),
        dir.join("docs").display(),
    );
    std::fs::write(&config, text).expect("config");
    let (ok, out) = cli(&config, &["reindex"]);
    assert!(ok, "{lang}: {out}");
    let mut hits = 0;
    let mut missed = Vec::new();
    let mut previous: Option<(String, String)> = None;
    for (conversation, question, keys) in covered(&dir) {
        let mut args = vec!["search", question.as_str()];
        if let Some((c, q)) = &previous
            && *c == conversation
        {
            args.extend(["--previous", q.as_str()]);
        }
        let (ok, out) = cli(&config, &args);
        assert!(ok, "{lang} {question}: {out}");
        let block = out
            .split_once("the prompt gets")
            .map_or("", |(_, b)| b)
            .to_lowercase();
        if keys.iter().any(|k| block.contains(k.as_str())) {
            hits += 1;
        } else {
            missed.push(question.clone());
        }
        previous = Some((conversation, question));
    }
    (hits, missed)
}

#[test]
fn the_search_finds_the_answering_passage_in_every_language() {
    let mut short = Vec::new();
    for (lang, floor) in FLOORS {
        let (hits, missed) = found(lang);
        assert!(
            hits + missed.len() == 28,
            "{lang}: {} covered questions",
            hits + missed.len()
        );
        if hits < floor {
            short.push(format!(
                "{lang}: {hits} of 28 (floor {floor}), missed {missed:?}"
            ));
        }
    }
    assert!(short.is_empty(), "{}", short.join("\n"));
}
