//! The tokens of a Rust file, as much as the layer check needs: names, `::` and single
//! punctuation characters with their line numbers; comments, strings, character literals,
//! lifetimes and numbers are dropped, so text in them never counts as an import.

pub fn tok(t: &[(Tok, usize)], i: usize) -> Option<&Tok> {
    t.get(i).map(|(k, _)| k)
}

/// A token, as much as the check needs: names, `::` and single punctuation characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

/// The tokens of a Rust file with their line numbers; comments, strings (raw and byte ones
/// too), character literals, lifetimes and numbers are dropped.
pub fn lex(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    // Counts the newlines in `c[from..to]`.
    let lines = |from: usize, to: usize| {
        c[from..to.min(c.len())]
            .iter()
            .filter(|&&x| x == '\n')
            .count()
    };
    while let Some(ch) = at(i) {
        let start = i;
        match ch {
            '/' if at(i + 1) == Some('/') => {
                while at(i).is_some_and(|x| x != '\n') {
                    i += 1;
                }
            }
            '/' if at(i + 1) == Some('*') => {
                let mut depth = 0;
                while i < c.len() {
                    if at(i) == Some('/') && at(i + 1) == Some('*') {
                        depth += 1;
                        i += 2;
                    } else if at(i) == Some('*') && at(i + 1) == Some('/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            '"' => i = skip_string(&c, i + 1),
            '\'' => i = skip_quote(&c, i),
            x if x.is_alphabetic() || x == '_' => {
                while at(i).is_some_and(|x| x.is_alphanumeric() || x == '_') {
                    i += 1;
                }
                let word: String = c[start..i].iter().collect();
                match (word.as_str(), at(i)) {
                    ("r" | "br" | "cr", Some('"' | '#')) => {
                        let hashes = c[i..].iter().take_while(|&&x| x == '#').count();
                        if at(i + hashes) == Some('"') {
                            i = skip_raw(&c, i + hashes + 1, hashes);
                        } else {
                            // A raw identifier, `r#type`: the name follows.
                            i += hashes;
                        }
                    }
                    ("b" | "c", Some('"')) => i = skip_string(&c, i + 1),
                    ("b", Some('\'')) => i = skip_quote(&c, i),
                    _ => out.push((Tok::Ident(word), line)),
                }
            }
            x if x.is_ascii_digit() => {
                while at(i).is_some_and(|x| x.is_alphanumeric() || x == '_') {
                    i += 1;
                }
            }
            ':' if at(i + 1) == Some(':') => {
                out.push((Tok::Sep, line));
                i += 2;
            }
            x if x.is_whitespace() => i += 1,
            x => {
                out.push((Tok::Punct(x), line));
                i += 1;
            }
        }
        line += lines(start, i);
    }
    out
}

/// Past a string whose opening quote is just before `i`.
fn skip_string(c: &[char], mut i: usize) -> usize {
    while let Some(&x) = c.get(i) {
        i += 1;
        match x {
            '\\' => i += 1,
            '"' => break,
            _ => {}
        }
    }
    i
}

/// Past a raw string whose opening `"` is just before `i`, closed by `"` and `hashes` `#`s.
fn skip_raw(c: &[char], mut i: usize, hashes: usize) -> usize {
    while i < c.len() {
        if c[i] == '"'
            && c[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&x| x == '#')
                .count()
                == hashes
        {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// Past a character literal (`'x'`, `'\n'`, `'\u{1F600}'`) at `i`, or past the quote of a
/// lifetime or label (`'a`), whose name is then read as a word.
fn skip_quote(c: &[char], i: usize) -> usize {
    match (c.get(i + 1), c.get(i + 2)) {
        (Some('\\'), _) => {
            let mut j = i + 3;
            while c.get(j).is_some_and(|&x| x != '\'') {
                j += 1;
            }
            j + 1
        }
        (Some(_), Some('\'')) => i + 3,
        _ => i + 1,
    }
}
