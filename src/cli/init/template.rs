//! The config `meshai init` writes: `config.example.toml`, embedded at build time, with the
//! lines for the node, the LLM, the database and the knowledge folder replaced and every
//! comment kept, so the file
//! stays the documented reference. Pure: text in, text out.
//!
//! Only the lines named here change; a test parses the result for each kind of value and
//! checks that every other line is the example's.

/// The reference config, as shipped.
pub const EXAMPLE: &str = include_str!("../../../config.example.toml");

/// The node, as the config names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RadioLine {
    /// `serial = "PATH"`.
    Serial(String),
    /// `tcp = "HOST:PORT"`; the example's `serial` line is commented out.
    Tcp(String),
}

/// What `meshai init` found, to put in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Values {
    pub radio: RadioLine,
    pub base_url: String,
    pub model: String,
    pub database: String,
    /// The knowledge folder (`[knowledge] dir`); `None` leaves the example's commented line.
    pub knowledge: Option<String>,
    /// Comment lines put before the example's (without the `# `).
    pub header: Vec<String>,
}

/// The example lacks a line this module edits: a build with an edited example that a test
/// would have caught.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("config.example.toml has no `{key} =` line in [{section}]")]
pub struct MissingLine {
    pub(crate) section: &'static str,
    pub(crate) key: &'static str,
}

/// One edit: in `[section]`, the line setting `key` (commented out or not) becomes `new`.
struct Edit {
    section: &'static str,
    key: &'static str,
    new: Line,
    done: bool,
}

enum Line {
    /// `key = value`, the line's comment kept.
    Set(String),
    /// The line, commented out.
    CommentOut,
}

/// `example` with `values` put in.
pub fn render(example: &str, values: &Values) -> Result<String, MissingLine> {
    let (serial, tcp) = match &values.radio {
        RadioLine::Serial(path) => (Line::Set(quote(path)), None),
        RadioLine::Tcp(addr) => (Line::CommentOut, Some(Line::Set(quote(addr)))),
    };
    let mut edits = vec![
        edit("radio", "serial", serial),
        edit("llm", "base_url", Line::Set(quote(&values.base_url))),
        edit("llm", "model", Line::Set(quote(&values.model))),
        edit("storage", "database", Line::Set(quote(&values.database))),
    ];
    edits.extend(tcp.map(|t| edit("radio", "tcp", t)));
    edits.extend(
        values
            .knowledge
            .as_ref()
            .map(|dir| edit("knowledge", "dir", Line::Set(quote(dir)))),
    );

    let mut out = String::with_capacity(example.len() + 256);
    for line in &values.header {
        out.push_str(&format!("# {line}\n"));
    }
    let mut section = "";
    for line in example.lines() {
        // A section header may carry a comment: `[knowledge]  # ...`.
        let header = line.split('#').next().unwrap_or_default().trim();
        if let Some(name) = header.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            section = name.trim();
        }
        let edit = edits
            .iter_mut()
            .find(|e| !e.done && e.section == section && key_of(line) == Some(e.key));
        match edit {
            Some(e) => {
                e.done = true;
                out.push_str(&apply(line, e.key, &e.new));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    match edits.iter().find(|e| !e.done) {
        Some(e) => Err(MissingLine {
            section: e.section,
            key: e.key,
        }),
        None => Ok(out),
    }
}

fn edit(section: &'static str, key: &'static str, new: Line) -> Edit {
    Edit {
        section,
        key,
        new,
        done: false,
    }
}

/// The key a `key = value` line sets, also when it is commented out (`# key = value`).
fn key_of(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let t = t.strip_prefix('#').map_or(t, str::trim_start);
    let (key, _) = t.split_once('=')?;
    let key = key.trim();
    (!key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(key)
}

/// The edited line: the new setting, then the old line's trailing comment at its old column
/// when there is room (two spaces further out otherwise).
fn apply(line: &str, key: &str, new: &Line) -> String {
    let value = match new {
        Line::CommentOut => return format!("# {}", line.trim_start()),
        Line::Set(value) => value,
    };
    let set = format!("{key} = {value}");
    match trailing_comment(line) {
        None => set,
        Some((column, comment)) => {
            let pad = column.saturating_sub(set.chars().count()).max(2);
            format!("{set}{}{comment}", " ".repeat(pad))
        }
    }
}

/// The `# ...` after a line's value, with its column: the example's values are plain strings,
/// numbers or lists without `#` in them.
fn trailing_comment(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let body_start = line.len() - t.len() + if t.starts_with('#') { 1 } else { 0 };
    let body = line.get(body_start..)?;
    let (_, after_eq) = body.split_once('=')?;
    let value_start = line.len() - after_eq.len();
    let mut in_string = false;
    for (i, c) in after_eq.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '#' if !in_string => {
                let at = value_start + i;
                return Some((line.get(..at)?.chars().count(), line.get(at..)?));
            }
            _ => {}
        }
    }
    None
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
