//! Helpers shared by the unit tests of several modules.

/// Cuts `text` at the given fractions of its length, on char boundaries: the pieces of a
/// stream, to check that streamed processing matches processing the whole text.
pub(crate) fn split_at_fractions(text: &str, cuts: &[f64]) -> Vec<String> {
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let mut at: Vec<usize> = cuts
        .iter()
        .filter_map(|f| bounds.get((f * bounds.len() as f64) as usize).copied())
        .collect();
    at.sort_unstable();
    at.dedup();
    let mut pieces = Vec::new();
    let mut from = 0;
    for a in at {
        pieces.push(text.get(from..a).unwrap_or("").to_owned());
        from = a;
    }
    pieces.push(text.get(from..).unwrap_or("").to_owned());
    pieces
}

/// A stored message of `role` saying `text`, with `id` and time 0.
pub(crate) fn stored(id: i64, role: crate::store::Role, text: &str) -> crate::store::StoredMessage {
    crate::store::StoredMessage {
        id,
        role,
        text: text.to_string(),
        at: 0,
        prompt: None,
    }
}
