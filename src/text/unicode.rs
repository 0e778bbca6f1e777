//! What Unicode says about a character that the standard library does not: whether it is a
//! format character (general category Cf). Below everything that cleans text for a prompt or
//! for the air (`text::one_line`, `llm::clean`), so both use the one list.

/// Unicode's format characters (general category Cf, Unicode 16): bidi controls, zero-width
/// space and joiners, word joiner, BOM, soft hyphen, tags, and the rarer ones. Written out
/// rather than taken from a crate: the category is a short, stable list, and the only one the
/// crate needs.
pub(crate) fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_characters_and_not() {
        let format = [
            '\u{AD}',
            '\u{200B}',
            '\u{200D}',
            '\u{202E}',
            '\u{2066}',
            '\u{FEFF}',
            '\u{E0041}',
        ];
        let not = [
            'a', ' ', '\n', '\u{7}', '\u{2028}', '\u{FE0F}', 'é', '你', '👨',
        ];
        assert!(format.iter().all(|&c| is_format(c)), "{format:?}");
        assert!(!not.iter().any(|&c| is_format(c)), "{not:?}");
    }
}
