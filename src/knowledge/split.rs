//! A document's text into passages, pure: no I/O, no clock.
//!
//! A passage is what one turn may hand the model, so it must make sense on its own and stay
//! small. Markdown is read by a CommonMark parser (`pulldown-cmark`, with GitHub's tables),
//! which says where the headings (ATX and setext), code blocks, tables, thematic breaks, HTML
//! comments and link reference definitions are. The document is cut at its headings, and
//! each section's text into passages of at most [`MAX_PASSAGE_CHARS`] characters along its
//! paragraphs (its blank lines); a paragraph that is too long is cut at its lines, then its
//! sentences, then its words. When a section needs several passages, each after the first
//! starts with the last paragraph (or line, or sentence) of the one before if that is short
//! ([`OVERLAP_CHARS`]), so a fact at a cut is whole in one of them. A Markdown table becomes
//! one line per row, each cell with its column's header; lines wrapped in the file are joined
//! (a list item or a quote starts a line of its own); code keeps its lines; comments and link
//! definitions are left out: the model reads what a Markdown viewer shows. A passage's text
//! is the document's own (emphasis marks, links and list markers as written), so the parser
//! only places the cuts. Every passage keeps its heading path (`Club handbook > Meetings`, the
//! titles as plain text); the file name is the caller's. Plain text is cut at its paragraphs;
//! its lines are kept as written but those wrapped by hand (`unwrap_plain`), and a first
//! paragraph of one short line is its title (`title`), the heading of all its passages.
//!
//! A Markdown file may start with a front matter block (`---` lines around `key: value`
//! lines); `private: true` marks the whole file private. Nothing else in it is used, and it is
//! not part of any passage.
//!
//! Version 1 of these rules found the structure with hand-written line rules. They split
//! every document the project ships (the knowledge bench's seven files, `docs/`, the README)
//! and the knowledge index bench's generated 1,000-passage folder exactly as the parser does,
//! but misread CommonMark where `the_parser_reads_what_a_viewer_shows` shows: a heading with a
//! link or `__emphasis__` kept the marks, a setext heading of two lines was text, code right
//! after a paragraph had its lines joined, a table without outer pipes was one line, and
//! comments and link definitions were passage text; 209 of the 387 Markdown files of this
//! build's dependencies split differently for those reasons. With the parser, splitting the
//! generated folder (497 KiB) takes 1.9 ms instead of 2.3 ms (of the 48 ms its indexing takes),
//! and the release binary is 376 KiB larger (x86_64: 9,974,576 → 10,359,984 bytes, 3.9 %).

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag};
use unicode_segmentation::UnicodeSegmentation;

use crate::store::NewPassage;

/// The version of these rules, kept with the index: a meshai whose splitter cuts or words
/// passages differently (a higher version) splits every file again, changed or not.
pub(crate) const VERSION: u32 = 3;

/// A passage's text is at most this many characters (about 150 tokens of English): big
/// enough for a section of a handbook, small enough that three fit a small model's turn.
pub(crate) const MAX_PASSAGE_CHARS: usize = 600;

/// The end of a passage is repeated at the start of the next one of the same section when it
/// is at most this long.
pub(crate) const OVERLAP_CHARS: usize = 160;

/// What a file's text is written in, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// `.md`, `.markdown`: headings, fenced code, front matter.
    Markdown,
    /// `.txt`: paragraphs only.
    Text,
}

/// A document split.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Split {
    /// The front matter said `private: true`.
    pub(crate) private: bool,
    pub(crate) passages: Vec<NewPassage>,
}

/// Splits `text`, written in `format`, into passages in the document's order.
pub(crate) fn split(text: &str, format: Format) -> Split {
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
    match format {
        Format::Markdown => markdown_sections(text),
        Format::Text => {
            let mut paras = paragraphs(text);
            let path: Vec<String> = match paras.as_slice() {
                [first, _, ..] if title(first) => vec![one_line(first[0])],
                _ => Vec::new(),
            };
            if !path.is_empty() {
                paras.remove(0);
            }
            let mut blocks = Vec::new();
            for para in paras {
                push_block(&mut blocks, &unwrap_plain(&para));
            }
            let whole = Section { path, blocks };
            (!whole.blocks.is_empty())
                .then_some(whole)
                .into_iter()
                .collect()
        }
    }
}

/// What a top-level block of a Markdown document is, as the parser found it.
#[derive(Debug)]
enum Block {
    /// An ATX or setext heading: its level and its title as plain text, on one line.
    Heading(usize, String),
    /// A fenced or indented code block: kept as written, fences included.
    Code,
    /// A GFM table.
    Table,
    /// A thematic break: it ends the text before it.
    Rule,
    /// An HTML block that is only a comment: a viewer does not show it.
    Comment,
    /// Anything else a reader sees as text: paragraphs, lists, quotes, HTML; with the code
    /// blocks inside it (a fenced block in a list item), which keep their lines.
    Text(Vec<Range<usize>>),
}

/// A Markdown body as the parser read it: its top-level blocks, each with its bytes in the
/// text, and where its link reference definitions are (`[id]: https://…`, which a viewer
/// does not show).
struct Parsed {
    blocks: Vec<(Block, Range<usize>)>,
    definitions: Vec<Range<usize>>,
}

fn parse(text: &str) -> Parsed {
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    // The block open at depth 1, and a heading's title as its text events come.
    let mut open: Option<(Block, Range<usize>)> = None;
    let mut title = String::new();
    let events = Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter();
    // The parser reads the whole block structure, definitions included, before the first event.
    let definitions: Vec<Range<usize>> = events
        .reference_definitions()
        .iter()
        .map(|(_, d)| d.span.clone())
        .collect();
    for (event, range) in events {
        match event {
            Event::Start(tag) => {
                depth += 1;
                if depth == 1 {
                    title.clear();
                    open = Some((block_of(&tag, &text[range.clone()]), range));
                } else if let (Tag::CodeBlock(_), Some((Block::Text(code), _))) = (&tag, &mut open)
                {
                    code.push(range);
                }
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0
                    && let Some((block, range)) = open.take()
                {
                    let block = match block {
                        Block::Heading(level, _) => Block::Heading(level, one_line(&title)),
                        other => other,
                    };
                    blocks.push((block, range));
                }
            }
            Event::Text(t) | Event::Code(t) if in_heading(&open) => title.push_str(&t),
            Event::SoftBreak | Event::HardBreak if in_heading(&open) => title.push(' '),
            Event::Rule if depth == 0 => blocks.push((Block::Rule, range)),
            _ => {}
        }
    }
    Parsed {
        blocks,
        definitions,
    }
}

/// Whether the open top-level block is a heading (whose text events are its title).
fn in_heading(open: &Option<(Block, Range<usize>)>) -> bool {
    matches!(open, Some((Block::Heading(..), _)))
}

/// The kind of the block a top-level `tag` opens; `source` is its text.
fn block_of(tag: &Tag<'_>, source: &str) -> Block {
    match tag {
        Tag::Heading { level, .. } => Block::Heading(*level as usize, String::new()),
        Tag::CodeBlock(_) => Block::Code,
        Tag::Table(_) => Block::Table,
        Tag::HtmlBlock => {
            let t = source.trim();
            if t.starts_with("<!--") && t.ends_with("-->") {
                Block::Comment
            } else {
                Block::Text(Vec::new())
            }
        }
        _ => Block::Text(Vec::new()),
    }
}

/// Sections of a Markdown body. The parser says what is a heading, code, a table, a rule or a
/// comment; the text between them is cut into blocks at its blank lines, as a reader sees
/// paragraphs (a list right after a paragraph stays with it).
fn markdown_sections(text: &str) -> Vec<Section> {
    let mut out = Vec::new();
    // The open headings, outermost first, with their levels.
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut section: Vec<String> = Vec::new();
    // The text blocks not yet cut: from the first one's start to the last one's end, and the
    // code blocks inside them.
    let mut run: Option<(Range<usize>, Vec<Range<usize>>)> = None;
    let parsed = parse(text);
    let defs = &parsed.definitions;
    for (block, range) in parsed.blocks {
        if let Block::Text(code) = block {
            run = Some(match run.take() {
                None => (range, code),
                Some((r, mut inner)) => {
                    inner.extend(code);
                    (r.start..range.end, inner)
                }
            });
            continue;
        }
        if let Some((r, code)) = run.take() {
            run_blocks(text, r, &code, defs, &mut section);
        }
        match block {
            Block::Heading(level, title) => {
                flush(&stack, &mut section, &mut out);
                stack.retain(|(l, _)| *l < level);
                if !title.is_empty() {
                    stack.push((level, title));
                }
            }
            Block::Code => push_block(&mut section, &text[range]),
            Block::Table => text_blocks(&text[range], &mut section),
            Block::Rule | Block::Comment | Block::Text(_) => {}
        }
    }
    if let Some((r, code)) = run.take() {
        run_blocks(text, r, &code, defs, &mut section);
    }
    flush(&stack, &mut section, &mut out);
    out
}

/// Ends the section under `stack`, if it has text.
fn flush(stack: &[(usize, String)], blocks: &mut Vec<String>, out: &mut Vec<Section>) {
    if !blocks.is_empty() {
        out.push(Section {
            path: stack.iter().map(|(_, t)| t.clone()).collect(),
            blocks: std::mem::take(blocks),
        });
    }
}

/// What cuts a run of text: a code block in it (kept as written) or a link reference
/// definition (left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    Code,
    Definition,
}

/// The text of `text[run]` as blocks: each code block in it (`code`) kept as written, its
/// link reference definitions (`definitions`) left out; both in order.
fn run_blocks(
    text: &str,
    run: Range<usize>,
    code: &[Range<usize>],
    definitions: &[Range<usize>],
    blocks: &mut Vec<String>,
) {
    let mut cuts: Vec<(&Range<usize>, Cut)> = code
        .iter()
        .map(|c| (c, Cut::Code))
        .chain(definitions.iter().map(|d| (d, Cut::Definition)))
        .filter(|(c, _)| c.start >= run.start && c.end <= run.end)
        .collect();
    cuts.sort_by_key(|(c, _)| c.start);
    let mut at = run.start;
    for (range, cut) in cuts {
        if range.start < at {
            continue;
        }
        text_blocks(&text[at..range.start], blocks);
        if cut == Cut::Code {
            push_block(blocks, &text[range.clone()]);
        }
        at = range.end;
    }
    text_blocks(&text[at..run.end], blocks);
}

/// Markdown text as blocks at its blank lines: a table as `header: cell` lines, anything
/// else with its wrapped lines joined.
fn text_blocks(text: &str, blocks: &mut Vec<String>) {
    for para in paragraphs(text) {
        let text = table(&para).unwrap_or_else(|| unwrap(&para));
        push_block(blocks, &text);
    }
}

/// The runs of lines of `text` between blank lines.
fn paragraphs(text: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !para.is_empty() {
                out.push(std::mem::take(&mut para));
            }
        } else {
            para.push(line);
        }
    }
    if !para.is_empty() {
        out.push(para);
    }
    out
}

/// Adds `text`, trimmed, unless it is empty.
fn push_block(blocks: &mut Vec<String>, text: &str) {
    let text = text.trim();
    if !text.is_empty() {
        blocks.push(text.to_string());
    }
}

/// A Markdown table (a header row, a `|---|` row, data rows) as one line per data row of
/// `header: cell` pairs, so a small model reads "Membership type: Full member; Cost per year:
/// £24" instead of finding the column of a cell. `None` for any other block.
fn table(lines: &[&str]) -> Option<String> {
    // The outer pipes are optional (GFM); a line without any pipe is no row.
    let cells = |line: &str| -> Option<Vec<String>> {
        let line = line.trim();
        if !line.contains('|') {
            return None;
        }
        let inner = line.strip_prefix('|').unwrap_or(line);
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

/// Whether a plain-text file's first paragraph is its title ("KVARC NETS - WEEKLY ON-AIR
/// MEETINGS"): one line of at most [`TITLE_CHARS`] characters, with a letter, that does not
/// end as a sentence or a clause does.
fn title(first: &[&str]) -> bool {
    let [line] = first else {
        return false;
    };
    let t = line.trim();
    t.chars().count() <= TITLE_CHARS
        && t.chars().any(char::is_alphabetic)
        && !t.ends_with(['.', '!', '?', ',', ';', ':'])
}

/// A plain-text title is at most this long.
const TITLE_CHARS: usize = 80;

/// A plain-text paragraph is wrapped by hand when its longest line is at least this long:
/// shorter lines (an address, a roster) are lines as written.
const WRAP_CHARS: usize = 60;

/// A plain-text paragraph's lines, with those wrapped in the file joined: a line is wrapped
/// when the next line's first word would not have fitted after it within the paragraph's
/// longest line (so the writer's editor, not the writer, broke it), and that line is at
/// least [`WRAP_CHARS`] long; a list item starts a line of its own, as in Markdown. The
/// Thursday net's sentence of the knowledge bench's `nets.txt` runs over two lines ("…
/// (145.7125 MHz, tone" / "77.0 Hz)."): as lines, no one of them held the day with enough of
/// the question's words for the daemon's check (issue 38).
fn unwrap_plain(lines: &[&str]) -> String {
    let width = lines
        .iter()
        .map(|l| l.trim_end().chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let mut prev: Option<&str> = None;
    for line in lines {
        let t = line.trim_end();
        if let Some(p) = prev {
            let next_word = t.split_whitespace().next().map_or(0, |w| w.chars().count());
            let wrapped = width >= WRAP_CHARS
                && p.chars().count() + 1 + next_word > width
                && !starts_item(t.trim_start());
            if wrapped {
                out.push(' ');
                out.push_str(t.trim_start());
            } else {
                out.push('\n');
                out.push_str(t);
            }
        } else {
            out.push_str(t);
        }
        prev = Some(t);
    }
    out
}

/// A heading's title on one line.
fn one_line(title: &str) -> String {
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
