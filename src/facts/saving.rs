//! What a fold's save does to a node's kept facts, decided from the rows the store read: the
//! new facts are added in order, a restated one moves to the end (the old row goes, and what
//! it replaced the new one replaced), each kept fact a new one corrects ([`replace`]) is
//! retired with its replacement named, then the bound drops facts that name nothing first
//! ([`evicted`]) and the record keeps as many retired ones; the summary loses its sentences
//! that say a replaced value ([`replace::without_stale`]).
//!
//! Pure, and outside the store's transaction: the store reads the rows, this module makes the
//! [`Plan`], and the store writes it only while the rows are still the node's (see
//! `store::summaries`).

use super::{evicted, replace};
use crate::text::key;

/// One of a node's fact rows, as the store read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    pub(crate) id: i64,
    pub(crate) text: String,
    /// A newer statement replaced it: out of the prompt, kept for the record.
    pub(crate) retired: bool,
    /// The row that replaced it, if it still names one.
    pub(crate) replaced_by: Option<i64>,
}

/// A fact the plan names: a row the node has, or the plan's `n`-th new fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fact {
    Row(i64),
    New(usize),
}

/// What a save writes, in this order: the new facts, the retirements, the moved
/// replacements, the deletions, and the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The new facts with the ids of the messages they came from, oldest first.
    pub(crate) add: Vec<(String, i64)>,
    /// Facts retired now, each with the fact that replaces it.
    pub(crate) retire: Vec<(Fact, Fact)>,
    /// Facts retired before whose replacement was restated: they name the restating one.
    pub(crate) repoint: Vec<(Fact, Fact)>,
    /// Facts that go: restated, over the bound, or retired ones over the record's bound.
    pub(crate) delete: Vec<Fact>,
    /// The summary without its sentences that say a replaced value.
    pub(crate) text: String,
}

/// A fact while the plan is made.
struct Entry {
    fact: Fact,
    text: String,
    retired: bool,
    /// Retired by this save.
    retired_now: bool,
    replaced_by: Option<Fact>,
    /// What `replaced_by` was before this save.
    replaced_by_before: Option<Fact>,
    gone: bool,
}

/// The plan for saving `summary` with the `new` facts (text, message id; oldest first) to a
/// node whose fact rows are `rows` (by id), keeping at most `max` current and `max` retired.
pub(crate) fn plan(rows: &[Row], new: &[(String, i64)], summary: &str, max: usize) -> Plan {
    let mut facts: Vec<Entry> = rows
        .iter()
        .map(|r| Entry {
            fact: Fact::Row(r.id),
            text: r.text.clone(),
            retired: r.retired,
            retired_now: false,
            replaced_by: r.replaced_by.map(Fact::Row),
            replaced_by_before: r.replaced_by.map(Fact::Row),
            gone: false,
        })
        .collect();
    let mut current: Vec<(Fact, String)> = rows
        .iter()
        .filter(|r| !r.retired)
        .map(|r| (Fact::Row(r.id), r.text.clone()))
        .collect();
    for (i, (text, _)) in new.iter().enumerate() {
        add(&mut facts, &mut current, Fact::New(i), text);
    }
    // Over the bound, a statement that names nothing goes before one that does, the oldest
    // first: a small-talk sentence never pushes a callsign out.
    for fact in evicted(&current, max) {
        forget(&mut facts, fact);
    }
    // The record of corrections is bounded too: the oldest retired facts go first.
    let retired: Vec<Fact> = facts
        .iter()
        .filter(|e| !e.gone && e.retired)
        .map(|e| e.fact)
        .collect();
    for fact in &retired[..retired.len().saturating_sub(max)] {
        forget(&mut facts, *fact);
    }
    written(&facts, new, summary)
}

/// Adds the new fact `this` to `facts` and `current`: a kept one it restates goes (what that
/// one replaced, this one replaced), and each current one it replaces is retired.
fn add(facts: &mut Vec<Entry>, current: &mut Vec<(Fact, String)>, this: Fact, text: &str) {
    facts.push(Entry {
        fact: this,
        text: text.to_string(),
        retired: false,
        retired_now: false,
        replaced_by: None,
        replaced_by_before: None,
        gone: false,
    });
    let k = key(text);
    let restated: Vec<Fact> = current
        .iter()
        .filter(|(_, t)| key(t) == k)
        .map(|(f, _)| *f)
        .collect();
    for old in restated {
        for e in facts.iter_mut().filter(|e| e.replaced_by == Some(old)) {
            e.replaced_by = Some(this);
        }
        forget(facts, old);
    }
    current.retain(|(_, t)| key(t) != k);
    for old in replace::replaced(current, text) {
        if let Some(e) = facts.iter_mut().find(|e| e.fact == old) {
            e.retired = true;
            e.retired_now = true;
            e.replaced_by = Some(this);
        }
        current.retain(|(f, _)| *f != old);
    }
    current.push((this, text.to_string()));
}

fn forget(facts: &mut [Entry], fact: Fact) {
    if let Some(e) = facts.iter_mut().find(|e| e.fact == fact) {
        e.gone = true;
    }
}

/// The plan that turns the rows into `facts`, and the summary without the stale sentences.
fn written(facts: &[Entry], new: &[(String, i64)], summary: &str) -> Plan {
    let kept = facts.iter().filter(|e| !e.gone);
    let text_of = |fact: Fact| {
        facts
            .iter()
            .find(|e| e.fact == fact && !e.gone)
            .map(|e| e.text.clone())
    };
    // What the model wrote may still say a corrected value (this fold's correction, or an
    // older one it took from the conversation): the sentences that do go.
    let replaced: Vec<(String, String)> = kept
        .clone()
        .filter(|e| e.retired)
        .map(|e| {
            let by = e.replaced_by.and_then(text_of).unwrap_or_default();
            (e.text.clone(), by)
        })
        .collect();
    let current: Vec<String> = kept
        .clone()
        .filter(|e| !e.retired)
        .map(|e| e.text.clone())
        .collect();
    Plan {
        add: new.to_vec(),
        retire: kept
            .clone()
            .filter(|e| e.retired_now)
            .filter_map(|e| Some((e.fact, e.replaced_by?)))
            .collect(),
        repoint: kept
            .filter(|e| !e.retired_now && e.replaced_by != e.replaced_by_before)
            .filter_map(|e| Some((e.fact, e.replaced_by?)))
            .collect(),
        delete: facts.iter().filter(|e| e.gone).map(|e| e.fact).collect(),
        text: replace::without_stale(summary, &replaced, &current),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, text: &str) -> Row {
        Row {
            id,
            text: text.into(),
            retired: false,
            replaced_by: None,
        }
    }

    fn new(texts: &[&str]) -> Vec<(String, i64)> {
        texts.iter().map(|t| (t.to_string(), 100)).collect()
    }

    #[test]
    fn a_correction_retires_what_it_replaces_and_the_summary_loses_the_old_value() {
        let rows = [
            row(1, "My callsign is SP9QRZ."),
            row(2, "My friend's callsign is DL1ABC."),
        ];
        let plan = plan(
            &rows,
            &new(&["Update: my callsign is SP2KWT now."]),
            "Tomasz has the callsign SP9QRZ. He likes yagis.",
            5,
        );
        assert_eq!(plan.retire, [(Fact::Row(1), Fact::New(0))]);
        assert!(plan.repoint.is_empty() && plan.delete.is_empty());
        assert_eq!(plan.text, "He likes yagis.");
    }

    #[test]
    fn a_restated_fact_moves_to_the_end_and_takes_over_what_it_replaced() {
        let rows = [
            Row {
                retired: true,
                replaced_by: Some(2),
                ..row(1, "My callsign is SP9QRZ.")
            },
            row(2, "My callsign is SP2KWT."),
            row(3, "My dog is Rex."),
        ];
        let plan = plan(&rows, &new(&["my callsign is SP2KWT!"]), "", 5);
        assert_eq!(plan.delete, [Fact::Row(2)]);
        assert_eq!(plan.repoint, [(Fact::Row(1), Fact::New(0))]);
        assert!(plan.retire.is_empty());
    }

    #[test]
    fn the_bound_drops_what_names_nothing_first_and_the_oldest_retired() {
        let rows = [
            Row {
                retired: true,
                replaced_by: Some(3),
                ..row(1, "My callsign is SP1AAA.")
            },
            row(2, "i am ann and i like radios"),
            row(3, "My callsign is SP2BBB."),
        ];
        let plan = plan(&rows, &new(&["My callsign is SP3CCC."]), "", 1);
        // SP2BBB is retired by SP3CCC; the small talk goes over the bound; of the two
        // retired, the older goes.
        assert_eq!(plan.retire, [(Fact::Row(3), Fact::New(0))]);
        assert_eq!(plan.delete, [Fact::Row(1), Fact::Row(2)]);
    }
}
