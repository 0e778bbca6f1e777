//! Turns a raw model answer into plain radio text: only text (`controls`: no control
//! characters, escape sequences or invisible format characters), no reasoning blocks, no
//! markdown, one line.
//!
//! Pure and conservative: markdown is only removed where it is unambiguous, so text such as
//! `5*3=15`, `snake_case`, URLs and emoticons like `^_^` or `¯\_(ツ)_/¯` survive untouched.

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";

/// Emphasis markers, longest first so that `**bold**` is not read as two italics.
const EMPHASIS: [&[char]; 5] = [&['*', '*'], &['_', '_'], &['~', '~'], &['*'], &['_']];

/// Cleans a model reply: keeps only text ([`strip_controls`]), drops `<think>` blocks, strips
/// markdown, collapses whitespace.
///
/// An unterminated `<think>` means the model ran out of tokens while thinking, so everything
/// after it is dropped; a `</think>` without an opening tag means the chat template opened the
/// block in the prompt, so everything before it is dropped. The result may be empty.
pub(crate) fn clean_reply(raw: &str) -> String {
    let visible = strip_thinking(&strip_controls(raw));
    let plain = strip_markdown(&visible);
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A raw answer as the next prompt should carry it: exactly what the model wrote (so the
/// server's cache of its own answer still matches), without a reasoning block, which chat
/// templates leave out of earlier turns anyway. `None` when nothing is left.
pub(crate) fn as_written(raw: &str) -> Option<&str> {
    let lower = raw.to_ascii_lowercase();
    let written = match (lower.contains(THINK_OPEN), lower.rfind(THINK_CLOSE)) {
        // Everything after the last closed block (ASCII lower-casing kept the offsets).
        (_, Some(close)) => raw.get(close + THINK_CLOSE.len()..)?.trim_start(),
        // A block that never closed: the model ran out of tokens thinking.
        (true, None) => return None,
        (false, None) => raw,
    };
    (!written.trim().is_empty()).then_some(written)
}

/// The beginning of a raw answer as the model wrote it, up to where the part of it that was
/// `shown` ends: the shortest prefix whose clean text starts with `shown` (ignoring a final
/// `…` and whitespace), after [`as_written`]. For an answer cut at the reply budget, the next
/// prompt carries what the user saw, byte for byte as the model wrote it, so the server's
/// cache of the answer holds up to the cut. `None` when no prefix gives `shown` (the parts
/// were cut inside a word, or the text is not this answer's).
pub(crate) fn written_until<'a>(raw: &'a str, shown: &str) -> Option<&'a str> {
    let raw = as_written(raw)?;
    let shown = shown.trim_end().trim_end_matches('…').trim_end();
    let shown = shown.split_whitespace().collect::<Vec<_>>().join(" ");
    if shown.is_empty() {
        return None;
    }
    // Clean-up only removes text (and collapses whitespace), so the prefix is at least as
    // long as what it shows.
    let start = raw
        .char_indices()
        .nth(shown.chars().count().saturating_sub(1))
        .map(|(i, _)| i)?;
    raw.char_indices()
        .map(|(i, c)| i + c.len_utf8())
        .skip_while(|end| *end <= start)
        .find(|end| {
            let prefix = raw.get(..*end).unwrap_or_default();
            clean_reply(prefix).starts_with(&shown)
        })
        .or_else(|| clean_reply(raw).starts_with(&shown).then_some(raw.len()))
        .and_then(|end| raw.get(..end))
}

/// Removes reasoning blocks (tags matched case-insensitively).
fn strip_thinking(raw: &str) -> String {
    // ASCII lower-casing keeps byte offsets, so positions found here are valid in `raw`.
    let lower = raw.to_ascii_lowercase();
    let mut out = String::with_capacity(raw.len());
    let mut pos = 0;
    loop {
        let rest = lower.get(pos..).unwrap_or("");
        let open = rest.find(THINK_OPEN).map(|i| pos + i);
        let close = rest.find(THINK_CLOSE).map(|i| pos + i);
        match (open, close) {
            (open, Some(c)) if open.is_none_or(|o| c < o) => {
                out.clear();
                pos = c + THINK_CLOSE.len();
            }
            (Some(o), _) => {
                out.push_str(raw.get(pos..o).unwrap_or(""));
                out.push(' ');
                match lower.get(o..).and_then(|r| r.find(THINK_CLOSE)) {
                    Some(c) => pos = o + c + THINK_CLOSE.len(),
                    None => return out,
                }
            }
            (None, _) => {
                out.push_str(raw.get(pos..).unwrap_or(""));
                return out;
            }
        }
    }
}

/// Strips block-level markdown line by line, then inline markdown; code is kept verbatim.
fn strip_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_fence = false;
    for line in text.lines() {
        out.push_str(&clean_line(line, &mut in_fence));
        out.push('\n');
    }
    out
}

/// One whole line of markdown as plain text (empty for a fence or a rule); a fence line
/// toggles `in_fence`, inside which lines are kept verbatim.
fn clean_line(line: &str, in_fence: &mut bool) -> String {
    let trimmed = line.trim_start();
    if is_fence(trimmed) {
        *in_fence = !*in_fence;
        String::new()
    } else if *in_fence {
        line.to_owned()
    } else if is_rule(trimmed) {
        String::new()
    } else {
        strip_inline(strip_block_prefix(trimmed))
    }
}

fn is_fence(trimmed: &str) -> bool {
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// A thematic break such as `---`, `***` or `_ _ _`.
fn is_rule(line: &str) -> bool {
    let mut marks = line.chars().filter(|c| !c.is_whitespace());
    match marks.next() {
        Some(first @ ('-' | '*' | '_')) => {
            let rest: Vec<char> = marks.collect();
            rest.len() >= 2 && rest.iter().all(|&c| c == first)
        }
        _ => false,
    }
}

/// Removes quote markers, a heading's `#`s and a bullet marker from the start of a line.
fn strip_block_prefix(mut line: &str) -> &str {
    while let Some(rest) = line.strip_prefix('>') {
        line = rest.trim_start();
    }
    let hashes = line.len() - line.trim_start_matches('#').len();
    if (1..=6).contains(&hashes) {
        let rest = line.get(hashes..).unwrap_or("");
        if rest.is_empty() || rest.starts_with(char::is_whitespace) {
            line = rest.trim_start();
        }
    }
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return rest.trim_start();
        }
    }
    line
}

/// One character of a line and whether markdown processing must leave it alone (code, URLs).
type Marked = (char, bool);

/// Strips inline code ticks, links and emphasis from one line.
fn strip_inline(line: &str) -> String {
    strip_inline_open(line).0
}

/// [`strip_inline`], and whether the line leaves something open that text after it could
/// still close: a code span, a link's `[` without its `]`, an emphasis opener. A piece of a
/// line that ends before whitespace and leaves nothing open cleans the same alone as at the
/// start of the whole line (what [`StreamCleaner`] relies on).
fn strip_inline_open(line: &str) -> (String, bool) {
    let mut open = false;
    let mut chars = code_spans(line, &mut open);
    chars = links(&chars, &mut open);
    protect_urls(&mut chars);
    for marker in EMPHASIS {
        chars = emphasis(&chars, marker, &mut open);
    }
    (chars.into_iter().map(|(c, _)| c).collect(), open)
}

/// Replaces `` `code` `` (any run length) by its protected content; lone backticks stay
/// (and set `open`).
fn code_spans(line: &str, open: &mut bool) -> Vec<Marked> {
    let src: Vec<char> = line.chars().collect();
    let mut out = Vec::with_capacity(src.len());
    let mut i = 0;
    while let Some(&c) = src.get(i) {
        if c != '`' {
            out.push((c, false));
            i += 1;
            continue;
        }
        let run = backticks_at(&src, i);
        let start = i + run;
        let close = (start..src.len())
            .find(|&j| backticks_at(&src, j) == run && src.get(j - 1) != Some(&'`'));
        match close {
            Some(end) => {
                let code = src.get(start..end).unwrap_or_default();
                out.extend(code.iter().map(|&c| (c, true)));
                i = end + run;
            }
            None => {
                *open = true;
                out.extend(std::iter::repeat_n(('`', false), run));
                i = start;
            }
        }
    }
    out
}

/// Length of the run of backticks starting at `i`.
fn backticks_at(src: &[char], i: usize) -> usize {
    let rest = src.get(i..).unwrap_or_default();
    rest.iter().take_while(|&&c| c == '`').count()
}

/// Rewrites `[text](url)` (and images `![alt](url)`) as `text (url)`, or just `url` when the
/// text is the URL itself. A `[` with no `]` after it sets `open`.
fn links(src: &[Marked], open: &mut bool) -> Vec<Marked> {
    let mut out = Vec::with_capacity(src.len());
    let mut i = 0;
    while let Some(&(c, protected)) = src.get(i) {
        if let Some((text, url, end)) = (c == '[' && !protected)
            .then(|| parse_link(src, i))
            .flatten()
        {
            if out.last() == Some(&('!', false)) {
                out.pop();
            }
            let text_str: String = text.iter().map(|&(c, _)| c).collect();
            let url_str: String = url.iter().collect();
            if !text_str.trim().is_empty() && text_str != url_str {
                out.extend_from_slice(text);
                out.extend([(' ', false), ('(', false)]);
                out.extend(url.iter().map(|&c| (c, true)));
                out.push((')', false));
            } else {
                out.extend(url.iter().map(|&c| (c, true)));
            }
            i = end;
        } else {
            let rest = src.get(i + 1..).unwrap_or_default();
            if c == '[' && !protected && !rest.iter().any(|&(c, _)| c == ']') {
                *open = true;
            }
            out.push((c, protected));
            i += 1;
        }
    }
    out
}

/// Parses a link starting at `src[open] == '['`: its text, its URL and the index after it.
fn parse_link(src: &[Marked], open: usize) -> Option<(&[Marked], Vec<char>, usize)> {
    let close = open + 1 + src.get(open + 1..)?.iter().position(|&(c, _)| c == ']')?;
    if src.get(close + 1)?.0 != '(' {
        return None;
    }
    let mut url = Vec::new();
    let mut depth = 0usize;
    for (j, &(c, _)) in src.iter().enumerate().skip(close + 2) {
        match c {
            ')' if depth == 0 => {
                let text = src.get(open + 1..close)?;
                return (!url.is_empty()).then_some((text, url, j + 1));
            }
            ')' => depth -= 1,
            '(' => depth += 1,
            c if c.is_whitespace() => return None,
            _ => {}
        }
        url.push(c);
    }
    None
}

/// Marks bare URLs (words containing `://`) as protected, minus trailing punctuation.
fn protect_urls(chars: &mut [Marked]) {
    for word in chars.split_mut(|&(c, _)| c.is_whitespace()) {
        let text: String = word.iter().map(|&(c, _)| c).collect();
        let Some(sep) = text.find("://") else {
            continue;
        };
        let sep = text.get(..sep).unwrap_or("").chars().count();
        let scheme = word
            .iter()
            .take(sep)
            .rev()
            .take_while(|&&(c, _)| c.is_ascii_alphanumeric() || "+.-".contains(c))
            .count();
        let tail = word
            .iter()
            .rev()
            .take_while(|&&(c, _)| "*_~.,;:!?)'\"".contains(c))
            .count();
        let end = word.len().saturating_sub(tail);
        for m in word.iter_mut().take(end).skip(sep - scheme) {
            m.1 = true;
        }
    }
}

/// Removes matched emphasis markers; unmatched or ambiguous ones stay as text (an opener
/// without a closer sets `open`).
fn emphasis(src: &[Marked], marker: &[char], open: &mut bool) -> Vec<Marked> {
    let len = marker.len();
    let mut out = Vec::with_capacity(src.len());
    let mut i = 0;
    while let Some(&c) = src.get(i) {
        if opens(src, i, marker) {
            let first = i + len + 1;
            match (first..src.len()).find(|&j| closes(src, j, marker)) {
                Some(close) => {
                    let content = src.get(i + len..close).unwrap_or_default();
                    if content.iter().any(|&(c, p)| p || c.is_alphanumeric()) {
                        out.extend_from_slice(content);
                        i = close + len;
                        continue;
                    }
                }
                None => *open = true,
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Whether an unprotected, unescaped `marker` starts at `i`.
fn marker_at(src: &[Marked], i: usize, marker: &[char]) -> bool {
    let fits = marker
        .iter()
        .enumerate()
        .all(|(k, &m)| src.get(i + k) == Some(&(m, false)));
    let escaped = i > 0 && src.get(i - 1).is_some_and(|&(c, _)| c == '\\');
    fits && !escaped
}

/// An opener follows a non-word character and starts a word-like run (`*x`, not `5*3`, `* `).
fn opens(src: &[Marked], i: usize, marker: &[char]) -> bool {
    let before_ok = i == 0 || src.get(i - 1).is_some_and(|&(c, _)| !c.is_alphanumeric());
    let after_ok = src
        .get(i + marker.len())
        .is_some_and(|&(c, p)| p || c.is_alphanumeric() || !c.is_ascii() || "(\"'[¿¡".contains(c));
    marker_at(src, i, marker) && before_ok && after_ok
}

/// A closer ends a non-blank run and is not followed by a letter or digit (`x*`, not `x*y`).
fn closes(src: &[Marked], j: usize, marker: &[char]) -> bool {
    let before_ok = j > 0 && src.get(j - 1).is_some_and(|&(c, _)| !c.is_whitespace());
    let after_ok = src
        .get(j + marker.len())
        .is_none_or(|&(c, _)| !c.is_alphanumeric());
    marker_at(src, j, marker) && before_ok && after_ok
}

mod controls;
mod stream;

pub(crate) use controls::strip_controls;
pub(crate) use stream::StreamCleaner;

#[cfg(test)]
mod tests;
