//! Text helpers the memory modules share: cutting a text to a length for the prompt or a kept
//! fact, and the key two statements are compared by. Pure; below `facts`, `prompt` and
//! `store`, so each of them can use it without importing the others.

use unicode_segmentation::UnicodeSegmentation;

/// `text` cut to at most `max` characters at a grapheme boundary, ending in `…` when cut.
pub fn cap(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut chars = 0;
    for g in text.graphemes(true) {
        let n = g.chars().count();
        // Leave room for the ellipsis.
        if chars + n + 1 > max {
            break;
        }
        out.push_str(g);
        chars += n;
    }
    let mut out = out.trim_end().to_string();
    out.push('…');
    out
}

/// The key two statements are compared by: lower case, letters and digits only.
pub fn key(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_at_grapheme_boundaries() {
        const MAX: usize = 120;
        let cases: &[(&str, &str)] = &[
            ("short", "short"),
            ("  padded  ", "padded"),
            (&"a".repeat(MAX), &"a".repeat(MAX)),
        ];
        for (input, want) in cases {
            assert_eq!(cap(input, MAX), *want);
        }
        let long = "x".repeat(1000);
        let capped = cap(&long, MAX);
        assert_eq!(capped.chars().count(), MAX);
        assert!(capped.ends_with('…'));
        // A flag emoji is two chars in one grapheme: never split it.
        let flags = "🇨🇭".repeat(150);
        let capped = cap(&flags, 9);
        assert_eq!(capped, "🇨🇭🇨🇭🇨🇭🇨🇭…");
    }

    #[test]
    fn keys_ignore_case_and_punctuation() {
        assert_eq!(key("My dog is Rex."), key("my dog is rex"));
        assert_ne!(key("My dog is Rex"), key("My dog is Max"));
    }
}
