//! `meshai knowledge`: the operator's view of the knowledge folder's index. `list` shows
//! every file as indexed (its passages, private or not, skipped ones and why), `search` the
//! passages a question would bring with their scores, in the order the prompt gets them (the
//! way to see why an answer came out as it did), `reindex` brings the index in step with the
//! folder now.
//!
//! All three work whether or not the daemon runs: they open the same database (WAL, busy
//! timeout), and the daemon searches it on every turn, so a reindex here is used from its
//! next message. Only `reindex` creates a missing database, and never as root (run it as the
//! service's user: `sudo -u meshai meshai knowledge reindex`). The layout is pure (`table`,
//! `hits`, `report`), the commands only gather and print.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use tokio_util::sync::CancellationToken;

use super::daemons::my_euid;
use super::{format, open_store};
use crate::config::Config;
use crate::config::Language;
use crate::knowledge::Embedder;
use crate::knowledge::choose::{Verdict, rank};
use crate::knowledge::render::label;
use crate::knowledge::search::{Ask, Found, Meaning, search as find};
use crate::knowledge::sync::{Report, sync};
use crate::lang::detect;
use crate::store::{Embedded, KnowledgeFile, KnowledgeIndex, Store};

/// What `meshai knowledge search` searches as.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// As a channel mention or an unproven DM would: public passages only.
    pub public: bool,
    /// The asker's message before the question, for a follow-up.
    pub previous: Option<String>,
}

/// The configured folder and the database, or why not. Only `reindex` may create the
/// database, and only in a folder of the user running it: a file root creates in the
/// service's folder would be root's, and the service could not open it.
async fn open(config: &Config, create: bool) -> anyhow::Result<(&Path, Store)> {
    use std::os::unix::fs::MetadataExt as _;
    let Some(dir) = config.knowledge.dir.as_deref() else {
        anyhow::bail!(
            "no knowledge folder: set [knowledge] dir in {} (see docs/knowledge.md)",
            config.origin
        );
    };
    let me = my_euid();
    let owner = config
        .database
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .metadata()
        .map(|m| m.uid())
        .ok();
    let mine = me.is_some() && me == owner;
    let may_create = create && mine;
    if !config.database.exists() && !may_create {
        anyhow::bail!(
            "no database at {} yet: run `meshai knowledge reindex` as the user meshai runs as \
             (`sudo -u meshai meshai knowledge reindex` for the service), or start meshai once",
            config.database.display()
        );
    }
    let store = open_store(&config.database)
        .await
        .with_context(|| format!("cannot open the database {}", config.database.display()))?;
    Ok((dir, store))
}

/// `meshai knowledge list`.
pub async fn list(config: &Config, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
    let (dir, store) = open(config, false).await?;
    let files = store.knowledge_files().await;
    let index = store.knowledge_index().await;
    let _ = store.close().await;
    let files = files.context("cannot read the index")?;
    let index = index.context("cannot read the index")?;
    out.write_all(table(dir, &files, &index).as_bytes())?;
    Ok(())
}

/// `meshai knowledge search QUERY`.
pub async fn search(
    config: &Config,
    query: &str,
    options: &SearchOptions,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let (_, store) = open(config, false).await?;
    let embedder = Embedder::configured(&config.knowledge);
    let ask = Ask {
        question: query,
        previous: options.previous.as_deref(),
        private: !options.public,
        // As a conversation that began with `--previous` would be.
        lang: match config.language {
            Language::Fixed(lang) => lang,
            Language::Auto => options
                .previous
                .as_deref()
                .and_then(detect)
                .unwrap_or_default(),
        },
    };
    let found = find(&store, &config.knowledge.bounds, embedder.as_ref(), &ask).await;
    let _ = store.close().await;
    let found = found.context("cannot search the index")?;
    out.write_all(hits(&found, options.public, &config.knowledge.about).as_bytes())?;
    Ok(())
}

/// `meshai knowledge reindex`.
pub async fn reindex(config: &Config, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
    let (dir, store) = open(config, true).await?;
    let result = sync(&store, dir).await;
    // The daemon embeds what changed at its next reindex too; here the command does it, so
    // the new passages are found by meaning from the next message.
    let embedder = Embedder::configured(&config.knowledge);
    let embedded = match (&result, &embedder) {
        (Ok(_), Some(e)) => Some(e.catch_up(&store, &CancellationToken::new()).await),
        _ => None,
    };
    let vectors = match &embedder {
        Some(e) => Some(store.knowledge_embedded(e.model().to_string()).await),
        None => None,
    };
    let index = store.knowledge_index().await;
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    let r = result?;
    out.write_all(report(dir, &r).as_bytes())?;
    if let Ok(index) = index {
        writeln!(out, "{}", totals(&index))?;
    }
    if let (Some(e), Some(vectors)) = (&embedder, vectors) {
        let vectors = vectors.context("cannot read the index")?;
        writeln!(out, "{}", embedded_line(e.model(), &vectors))?;
    }
    if let Some(Err(e)) = embedded {
        anyhow::bail!(
            "the passages are indexed, but not all by meaning: {e} (the daemon tries again at \
             its next reindex; search still works by words)"
        );
    }
    Ok(())
}

/// `98 of 120 passages embedded by all-minilm-l6-v2`.
pub(crate) fn embedded_line(model: &str, e: &Embedded) -> String {
    format!(
        "{} of {} passages embedded by {model}",
        e.embedded, e.passages
    )
}

/// The index as a table: one line per file, then the totals.
pub(crate) fn table(dir: &Path, files: &[KnowledgeFile], index: &KnowledgeIndex) -> String {
    let mut s = match &index.last {
        Some((last, at)) => {
            // The folder the index came from, when it is not the one configured now.
            let from = if Path::new(last) == dir {
                String::new()
            } else {
                format!(" from {last}")
            };
            format!(
                "knowledge folder {}, last indexed {}{from}\n",
                dir.display(),
                format::utc_time(*at)
            )
        }
        None => format!(
            "knowledge folder {}: not indexed yet (the daemon indexes it at start; or run \
             `meshai knowledge reindex`)\n",
            dir.display()
        ),
    };
    if !files.is_empty() {
        s.push_str(&format!("{:>8}  {:<7}  file\n", "passages", "private"));
    }
    for f in files {
        let private = if f.private { "private" } else { "" };
        match &f.skipped {
            None => s.push_str(&format!("{:>8}  {private:<7}  {}\n", f.passages, f.path)),
            Some(why) => s.push_str(&format!(
                "{:>8}  {private:<7}  {}: skipped: {why}\n",
                "-", f.path
            )),
        }
    }
    s.push_str(&totals(index));
    s.push('\n');
    s
}

/// `4 documents, 120 passages (12 private), 1 skipped`.
pub(crate) fn totals(i: &KnowledgeIndex) -> String {
    format!(
        "{} documents, {} passages ({} private), {} skipped",
        i.documents, i.passages, i.private_passages, i.skipped
    )
}

/// What a search found: every candidate with its score, its share of the question and its
/// verdict, best first; then the block the prompt gets, as it gets it.
pub(crate) fn hits(found: &Found, public: bool, about: &str) -> String {
    if !found.searched {
        return "no word of this question is searched for (too short or too common): the \
                prompt gets no notes\n"
            .to_string();
    }
    let mut s = String::new();
    if found.with_previous {
        s.push_str("a follow-up (few words to search for): searched with the previous message\n");
    }
    if public {
        s.push_str("public passages only (as a mention, or a DM that may not have private ones)\n");
    }
    match &found.meaning {
        Meaning::Off => {}
        Meaning::Searched => s.push_str(
            "searched by words and by meaning (fused: a passage goes in when either vouches)\n",
        ),
        Meaning::Failed(why) => s.push_str(&format!(
            "searched by words only: the question's embedding failed: {why}\n"
        )),
    }
    for (i, (hit, verdict)) in found.hits.iter().zip(&found.verdicts).enumerate() {
        let private = if hit.private { ", private" } else { "" };
        let similar = match hit.similarity {
            Some(similarity) => format!(", similarity {similarity:.2}"),
            None => String::new(),
        };
        s.push_str(&format!(
            "{:>2}. rank {:>5.2} (score {:.2}, heading {:.0} %), covers {:>3.0} %{similar}{private}: {} — {}\n",
            i + 1,
            rank(hit),
            hit.score,
            hit.topic * 100.0,
            hit.coverage * 100.0,
            label(&hit.path, &hit.heading),
            verdict.describe()
        ));
        if *verdict == Verdict::Chosen {
            for line in hit.text.lines() {
                s.push_str(&format!("      {line}\n"));
            }
        }
    }
    if found.hits.is_empty() {
        s.push_str("no passage matches\n");
    }
    s.push_str("\nthe prompt gets, just before the question:\n");
    match found.block(crate::lang::Lang::En, about) {
        Some(block) => {
            for line in block.lines() {
                s.push_str(&format!("  {line}\n"));
            }
        }
        None => s.push_str("  nothing\n"),
    }
    s
}

/// What a reindex did.
pub(crate) fn report(dir: &Path, r: &Report) -> String {
    let mut s = format!(
        "indexed {}: {} files ({} new, {} changed, {} touched, {} removed, {} unchanged), {} \
         passages written in {} ms\n",
        dir.display(),
        r.files,
        r.added,
        r.changed,
        r.touched,
        r.removed,
        r.unchanged,
        r.passages,
        r.took.as_millis()
    );
    for (path, why) in &r.skipped {
        s.push_str(&format!("skipped {path}: {why}\n"));
    }
    if r.truncated {
        s.push_str(&format!(
            "the folder has more than {} files: the rest were not looked at\n",
            crate::knowledge::folder::MAX_FILES
        ));
    }
    s
}

/// When the index was last brought in step, for `meshai check`: its totals and how long ago.
pub(crate) fn check_line(dir: &Path, index: &KnowledgeIndex, now: i64) -> String {
    match &index.last {
        Some((_, at)) => format!(
            "knowledge {} ({}, indexed {})",
            dir.display(),
            totals(index),
            format::ago(now, *at)
        ),
        None => format!("knowledge {} (not indexed yet)", dir.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::folder::Skip;
    use crate::store::KnowledgeHit;

    fn file(path: &str, passages: usize, private: bool, skipped: Option<&str>) -> KnowledgeFile {
        KnowledgeFile {
            path: path.into(),
            size: 1,
            mtime_ns: 1,
            hash: None,
            private,
            passages,
            skipped: skipped.map(str::to_string),
            indexed_at: 0,
        }
    }

    #[test]
    fn the_list_shows_each_file_and_the_totals() {
        let index = KnowledgeIndex {
            last: Some(("/k".into(), 0)),
            splitter: Some(1),
            documents: 2,
            passages: 15,
            private_passages: 3,
            skipped: 1,
        };
        let files = [
            file("handbook.md", 12, false, None),
            file("private/wifi.md", 3, true, None),
            file("scan.pdf", 0, false, Some("not Markdown")),
        ];
        assert_eq!(
            table(Path::new("/k"), &files, &index),
            "knowledge folder /k, last indexed 1970-01-01 00:00:00 UTC\n\
             passages  private  file\n      \
             12           handbook.md\n       \
             3  private  private/wifi.md\n       \
             -           scan.pdf: skipped: not Markdown\n\
             2 documents, 15 passages (3 private), 1 skipped\n"
        );
        let empty = table(Path::new("/k"), &[], &KnowledgeIndex::default());
        assert!(empty.contains("not indexed yet"), "{empty}");
    }

    #[test]
    fn a_search_shows_every_candidate_and_the_block() {
        let hit = |heading: &str, score| KnowledgeHit {
            id: 1,
            path: "handbook.md".into(),
            heading: heading.into(),
            text: format!("About {heading}."),
            private: false,
            score,
            coverage: 0.5,
            topic: 0.0,
            similarity: None,
        };
        let found = Found {
            searched: true,
            with_previous: false,
            hits: vec![hit("Meetings", 6.0), hit("Fees", 0.5)],
            verdicts: vec![Verdict::Chosen, Verdict::Weak],
            meaning: Meaning::Off,
        };
        let text = hits(&found, false, "the club");
        assert!(text.contains(" 1. rank  6.00 (score 6.00, heading 0 %), covers  50 %: handbook.md > Meetings — in the prompt\n      About Meetings.\n"), "{text}");
        assert!(text.contains(" 2. rank  0.50 (score 0.50, heading 0 %), covers  50 %: handbook.md > Fees — left out: score under min_score\n"), "{text}");
        assert!(!text.contains("meaning"), "{text}");
        // By meaning too: each passage's similarity, and a failed embedding said so.
        let by_meaning = Found {
            hits: vec![KnowledgeHit {
                similarity: Some(0.62),
                ..hit("Treasurer", 0.0)
            }],
            verdicts: vec![Verdict::Chosen],
            meaning: Meaning::Searched,
            ..found.clone()
        };
        let fused = hits(&by_meaning, false, "the club");
        assert!(
            fused.contains("searched by words and by meaning"),
            "{fused}"
        );
        assert!(
            fused
                .contains("covers  50 %, similarity 0.62: handbook.md > Treasurer — in the prompt"),
            "{fused}"
        );
        let failed = Found {
            meaning: Meaning::Failed("the call timed out".into()),
            ..found
        };
        assert!(hits(&failed, false, "the club").contains(
            "searched by words only: the question's embedding failed: the call timed out"
        ));
        assert!(
            text.contains("  [handbook.md > Meetings]\n  About Meetings.\n"),
            "{text}"
        );
        assert!(!text.contains("About Fees"), "{text}");
        assert!(hits(&Found::default(), false, "the club").contains("no word of this question"));
        let none = Found {
            searched: true,
            ..Found::default()
        };
        assert!(hits(&none, true, "the club").contains("no passage matches"));
    }

    #[test]
    fn a_reindex_says_what_it_did() {
        let r = Report {
            files: 3,
            added: 1,
            skipped: vec![("x.pdf".into(), Skip::Format("pdf".into()))],
            passages: 9,
            ..Report::default()
        };
        let text = report(Path::new("/k"), &r);
        assert!(text.starts_with("indexed /k: 3 files (1 new, 0 changed, 0 touched, 0 removed, 0 unchanged), 9 passages"), "{text}");
        assert!(
            text.contains("skipped x.pdf: not Markdown or plain text (.pdf)"),
            "{text}"
        );
    }
}
