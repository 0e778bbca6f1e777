//! A document's text into passages, pure: no I/O, no clock.
//!
//! A passage is what one turn may hand the model, so it must make sense on its own and stay
//! small. Markdown is cut at its headings (ATX `#`…`######` and setext underlines; a `#` in a
//! fenced code block is code), and each section's text into passages of at most
//! [`MAX_PASSAGE_CHARS`] characters along its paragraphs; a paragraph that is too long is cut
//! at its lines, then its sentences, then its words. When a section needs several passages,
//! each after the first starts with the last paragraph (or line, or sentence) of the one
//! before if that is short ([`OVERLAP_CHARS`]), so a fact at a cut is whole in one of them.
//! A Markdown table becomes one line per row, each cell with its column's header, and lines
//! wrapped in the file are joined (a list item or a quote starts a line of its own): the model
//! reads what a Markdown viewer shows. Plain text keeps its lines as written.
//! Every passage keeps its heading path (`Club handbook > Meetings`); the file name is the
//! caller's. Plain text has no headings: it is cut at its paragraphs only.
//!
//! A Markdown file may start with a front matter block (`---` lines around `key: value`
//! lines); `private: true` marks the whole file private. Nothing else in it is used, and it is
//! not part of any passage.

use unicode_segmentation::UnicodeSegmentation;

use crate::store::NewPassage;

/// The version of these rules, kept with the index: a meshai whose splitter cuts or words
/// passages differently (a higher version) splits every file again, changed or not.
pub const VERSION: u32 = 1;

/// A passage's text is at most this many characters (about 150 tokens of English): big
/// enough for a section of a handbook, small enough that three fit a small model's turn.
pub const MAX_PASSAGE_CHARS: usize = 600;

/// The end of a passage is repeated at the start of the next one of the same section when it
/// is at most this long.
pub const OVERLAP_CHARS: usize = 160;

/// What a file's text is written in, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.md`, `.markdown`: headings, fenced code, front matter.
    Markdown,
    /// `.txt`: paragraphs only.
    Text,
}

/// A document split.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Split {
    /// The front matter said `private: true`.
    pub private: bool,
    pub passages: Vec<NewPassage>,
}

/// Splits `text`, written in `format`, into passages in the document's order.
pub fn split(text: &str, format: Format) -> Split {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let (private, body) = match format {
        Format::Markdown => front_matter(&text),
        Format::Text => (false, text.as_str()),
    };
    let mut passages = Vec::new();
    for section in sections(body, format) {
        let heading = section.path.join(" > ");
        for text in pack(&units(&section.blocks)) {
            passages.push(NewPassage {
                heading: heading.clone(),
                text,
            });
        }
    }
    Split { private, passages }
}

/// Whether the front matter marks the file private, and the text after it. A text without a
/// closed front matter block is all body.
fn front_matter(text: &str) -> (bool, &str) {
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return (false, text);
    }
    let mut at = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut private = false;
    for line in lines.take(100) {
        at += line.len();
        let line = line.trim();
        if line == "---" || line == "..." {
            return (private, &text[at..]);
        }
        if let Some((key, value)) = line.split_once(':')
            && key.trim().eq_ignore_ascii_case("private")
        {
            let value = value.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
            private = matches!(value.as_str(), "true" | "yes" | "on");
        }
    }
    (false, text)
}

/// A heading's section: the headings above it and its text's blocks (paragraphs, lists, code
/// blocks, tables), each trimmed and not empty.
#[derive(Debug)]
struct Section {
    path: Vec<String>,
    blocks: Vec<String>,
}

/// The document's sections in order; text before the first heading is a section with an
/// empty path. Sections without text are left out (their headings stay in the paths below).
fn sections(text: &str, format: Format) -> Vec<Section> {
    let mut out = Vec::new();
    // The open headings, outermost first, with their levels.
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut blocks: Vec<String> = Vec::new();
    let mut block: Vec<&str> = Vec::new();
    let mut fence: Option<char> = None;
    let close = |block: &mut Vec<&str>, blocks: &mut Vec<String>| {
        let fenced = block
            .first()
            .is_some_and(|l| fence_mark(l.trim()).is_some());
        let text = match (format, table(block)) {
            (Format::Markdown, Some(rows)) => rows,
            (Format::Markdown, None) if !fenced => unwrap(block),
            _ => block.join("\n"),
        };
        let text = text.trim();
        if !text.is_empty() {
            blocks.push(text.to_string());
        }
        block.clear();
    };
    let flush = |stack: &[(usize, String)], blocks: &mut Vec<String>, out: &mut Vec<Section>| {
        if !blocks.is_empty() {
            out.push(Section {
                path: stack.iter().map(|(_, t)| t.clone()).collect(),
                blocks: std::mem::take(blocks),
            });
        }
    };
    for line in text.lines() {
        let trimmed = line.trim();
        if format == Format::Markdown {
            if let Some(c) = fence_mark(trimmed) {
                match fence {
                    None => fence = Some(c),
                    Some(open) if open == c => fence = None,
                    Some(_) => {}
                }
                block.push(line);
                continue;
            }
            if fence.is_none() {
                let heading = atx_heading(line).or_else(|| match block.as_slice() {
                    [title] => setext_heading(trimmed).map(|level| (level, plain(title))),
                    _ => None,
                });
                if let Some((level, title)) = heading {
                    if atx_heading(line).is_none() {
                        // The underlined line was the heading, not text.
                        block.clear();
                    }
                    close(&mut block, &mut blocks);
                    flush(&stack, &mut blocks, &mut out);
                    stack.retain(|(l, _)| *l < level);
                    if !title.is_empty() {
                        stack.push((level, title));
                    }
                    continue;
                }
                if is_rule(trimmed) {
                    close(&mut block, &mut blocks);
                    continue;
                }
            }
        }
        if trimmed.is_empty() && fence.is_none() {
            close(&mut block, &mut blocks);
        } else {
            block.push(line);
        }
    }
    close(&mut block, &mut blocks);
    flush(&stack, &mut blocks, &mut out);
    out
}

/// A Markdown table (a header row, a `|---|` row, data rows) as one line per data row of
/// `header: cell` pairs, so a small model reads "Membership type: Full member; Cost per year:
/// £24" instead of finding the column of a cell. `None` for any other block.
fn table(lines: &[&str]) -> Option<String> {
    let cells = |line: &str| -> Option<Vec<String>> {
        let inner = line.trim().strip_prefix('|')?;
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        Some(inner.split('|').map(|c| c.trim().to_string()).collect())
    };
    let [head, rule, rows @ ..] = lines else {
        return None;
    };
    let head = cells(head)?;
    let rule = cells(rule)?;
    let is_rule = |c: &String| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' '));
    if rule.len() != head.len() || !rule.iter().all(is_rule) || rows.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let row = cells(row)?;
        let pairs: Vec<String> = head
            .iter()
            .zip(&row)
            .filter(|(_, cell)| !cell.is_empty())
            .map(|(h, cell)| {
                if h.is_empty() {
                    cell.clone()
                } else {
                    format!("{h}: {cell}")
                }
            })
            .collect();
        out.push(pairs.join("; "));
    }
    Some(out.join("\n"))
}

/// A Markdown block's lines as the reader sees them: a line wrapped in the file continues
/// its paragraph or list item (joined with a space); a list item, a quote, a table row or a
/// line after a hard break (two trailing spaces) starts a line of its own.
fn unwrap(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut hard_break = false;
    for line in lines {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(if hard_break || starts_item(t) {
                '\n'
            } else {
                ' '
            });
        }
        out.push_str(t);
        hard_break = line.ends_with("  ");
    }
    out
}

/// Whether a trimmed line starts a list item (`- `, `* `, `+ `, `1. `, `1) `), a quote or a
/// table row.
fn starts_item(t: &str) -> bool {
    if ["- ", "* ", "+ ", ">", "|"]
        .iter()
        .any(|m| t.starts_with(m))
    {
        return true;
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "))
}

/// The fence character of a line that opens or closes a fenced code block.
fn fence_mark(trimmed: &str) -> Option<char> {
    ["```", "~~~"]
        .iter()
        .find(|f| trimmed.starts_with(**f))
        .and_then(|f| f.chars().next())
}

/// An ATX heading's level and title: up to three spaces, 1–6 `#`, a space (or nothing), the
/// title, an optional closing run of `#`.
fn atx_heading(line: &str) -> Option<(usize, String)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.len() - rest.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !after.is_empty() && !after.starts_with([' ', '\t']) {
        return None;
    }
    let title = after.trim();
    let title = match title.trim_end_matches('#') {
        t if t.is_empty() || t.ends_with([' ', '\t']) => t,
        _ => title,
    };
    Some((level, plain(title)))
}

/// A setext underline's heading level: `===` is 1, `---` is 2 (at least two dashes, so a
/// lone `-` stays an empty list item).
fn setext_heading(trimmed: &str) -> Option<usize> {
    if !trimmed.is_empty() && trimmed.chars().all(|c| c == '=') {
        Some(1)
    } else if trimmed.len() >= 2 && trimmed.chars().all(|c| c == '-') {
        Some(2)
    } else {
        None
    }
}

/// A thematic break (`***`, `---`, `___`, spaces allowed between): it ends a block.
fn is_rule(trimmed: &str) -> bool {
    let marks: String = trimmed.chars().filter(|c| !c.is_whitespace()).collect();
    marks.len() >= 3
        && ['*', '-', '_']
            .iter()
            .any(|m| marks.chars().all(|c| c == *m))
}

/// A heading's title without emphasis and code marks, on one line.
fn plain(title: &str) -> String {
    let title: String = title.chars().filter(|c| !matches!(c, '*' | '`')).collect();
    title.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A piece of a section's text, with what joins it to the piece before.
#[derive(Debug, Clone, Copy)]
struct Unit<'a> {
    text: &'a str,
    sep: &'static str,
}

/// The section's blocks as pieces of at most [`MAX_PASSAGE_CHARS`]: a block that fits is one
/// piece; a longer one is cut at its lines, a line at its sentences, a sentence at its words.
fn units(blocks: &[String]) -> Vec<Unit<'_>> {
    let mut out = Vec::new();
    for block in blocks {
        let first = out.len();
        cut(block, Level::Lines, &mut out);
        if let Some(u) = out.get_mut(first) {
            u.sep = "\n\n";
        }
    }
    out
}

/// How finely [`cut`] cuts.
#[derive(Debug, Clone, Copy)]
enum Level {
    Lines,
    Sentences,
    Words,
}

fn cut<'a>(text: &'a str, level: Level, out: &mut Vec<Unit<'a>>) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if chars(text) <= MAX_PASSAGE_CHARS {
        out.push(Unit { text, sep: " " });
        return;
    }
    let (pieces, sep, next): (Vec<&str>, _, _) = match level {
        Level::Lines => (text.lines().collect(), "\n", Some(Level::Sentences)),
        Level::Sentences => (
            text.split_sentence_bounds().collect(),
            " ",
            Some(Level::Words),
        ),
        Level::Words => (text.split_whitespace().collect(), " ", None),
    };
    for piece in pieces {
        let first = out.len();
        match next {
            Some(next) => cut(piece, next, out),
            None => hard_cut(piece, out),
        }
        if let Some(u) = out.get_mut(first) {
            u.sep = sep;
        }
    }
}

/// A word longer than a passage (a pasted blob): cut at character boundaries.
fn hard_cut<'a>(word: &'a str, out: &mut Vec<Unit<'a>>) {
    let mut rest = word;
    while !rest.is_empty() {
        let end = rest
            .char_indices()
            .nth(MAX_PASSAGE_CHARS)
            .map_or(rest.len(), |(i, _)| i);
        out.push(Unit {
            text: &rest[..end],
            sep: "",
        });
        rest = &rest[end..];
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// Packs pieces into passages of at most [`MAX_PASSAGE_CHARS`], greedily in order; a passage
/// after a full one starts with that one's last piece when it is short and fits.
fn pack(units: &[Unit<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<Unit<'_>> = Vec::new();
    let mut len = 0;
    for unit in units {
        let add = chars(unit.sep) + chars(unit.text);
        if !current.is_empty() && len + add > MAX_PASSAGE_CHARS {
            let carried = match current.as_slice() {
                [.., last] if current.len() > 1 => Some(*last),
                _ => None,
            };
            out.push(join(&current));
            current.clear();
            len = 0;
            if let Some(last) = carried
                && chars(last.text) <= OVERLAP_CHARS
                && chars(last.text) + add <= MAX_PASSAGE_CHARS
            {
                len = chars(last.text);
                current.push(last);
            }
        }
        len += if current.is_empty() {
            chars(unit.text)
        } else {
            add
        };
        current.push(*unit);
    }
    if !current.is_empty() {
        out.push(join(&current));
    }
    out
}

/// The pieces as one text: each after the first with its separator.
fn join(units: &[Unit<'_>]) -> String {
    let mut text = String::new();
    for (i, u) in units.iter().enumerate() {
        if i > 0 {
            text.push_str(u.sep);
        }
        text.push_str(u.text);
    }
    text
}

#[cfg(test)]
mod tests;
