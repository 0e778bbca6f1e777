//! Which files of the folder need work, pure: what the walk found against what the index
//! holds. A file whose size and modification time are the ones indexed is left alone,
//! without being read; any other is read (its content hash then tells an edit from a touch,
//! `sync`), or recorded as skipped when the walk already knows why (an unsupported format,
//! too large); an indexed file the walk did not find is removed.

use super::folder::{Found, Skip};
use crate::store::KnowledgeFile;

/// The work one reindex has to do.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan<'a> {
    /// Files to read, each with the content hash indexed for it (`None`: new, or skipped
    /// before).
    pub(crate) read: Vec<(&'a Found, Option<u64>)>,
    /// Files new or changed that are skipped without reading, and why.
    pub(crate) skip: Vec<(&'a Found, &'a Skip)>,
    /// Paths indexed that the folder no longer has.
    pub(crate) remove: Vec<String>,
    /// Files as indexed (indexed or skipped).
    pub(crate) unchanged: usize,
}

/// The plan for `found` (the walk's files) against `stored` (the index's files); `resplit`:
/// the index was made by another version of the splitter, so every text file is read and
/// split again (without a hash to compare, so none is only touched).
pub(crate) fn plan<'a>(stored: &[KnowledgeFile], found: &'a [Found], resplit: bool) -> Plan<'a> {
    let mut plan = Plan::default();
    for f in found {
        let old = stored.iter().find(|s| s.path == f.path);
        match (old, &f.format) {
            (Some(s), Ok(_)) if resplit && s.skipped.is_none() => plan.read.push((f, None)),
            (Some(s), _) if s.size == f.size && s.mtime_ns == f.mtime_ns => plan.unchanged += 1,
            (_, Err(skip)) => plan.skip.push((f, skip)),
            (old, Ok(_)) => {
                let hash = old.filter(|s| s.skipped.is_none()).and_then(|s| s.hash);
                plan.read.push((f, hash));
            }
        }
    }
    plan.remove = stored
        .iter()
        .filter(|s| !found.iter().any(|f| f.path == s.path))
        .map(|s| s.path.clone())
        .collect();
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::split::Format;

    fn found(path: &str, size: u64, mtime_ns: i64) -> Found {
        Found {
            path: path.into(),
            size,
            mtime_ns,
            format: Ok(Format::Markdown),
            private: false,
        }
    }

    fn stored(path: &str, size: u64, mtime_ns: i64, skipped: bool) -> KnowledgeFile {
        KnowledgeFile {
            path: path.into(),
            size,
            mtime_ns,
            hash: Some(7),
            private: false,
            passages: usize::from(!skipped),
            skipped: skipped.then(|| "binary".to_string()),
            indexed_at: 0,
        }
    }

    /// A plan by path: (read, with the indexed hash), skipped, removed, unchanged.
    type Expect<'a> = (
        &'a [(&'a str, Option<u64>)],
        &'a [&'a str],
        &'a [&'a str],
        usize,
    );

    fn check(stored: &[KnowledgeFile], found: &[Found], expect: Expect<'_>) {
        check_with(stored, found, false, expect);
    }

    fn check_with(stored: &[KnowledgeFile], found: &[Found], resplit: bool, expect: Expect<'_>) {
        let p = plan(stored, found, resplit);
        let read: Vec<(&str, Option<u64>)> =
            p.read.iter().map(|(f, h)| (f.path.as_str(), *h)).collect();
        let skip: Vec<&str> = p.skip.iter().map(|(f, _)| f.path.as_str()).collect();
        let remove: Vec<&str> = p.remove.iter().map(String::as_str).collect();
        assert_eq!(
            (
                read.as_slice(),
                skip.as_slice(),
                remove.as_slice(),
                p.unchanged
            ),
            expect,
            "stored {stored:?} found {found:?}"
        );
    }

    #[test]
    fn size_and_time_first_then_the_hash() {
        let pdf = Found {
            format: Err(Skip::Format("pdf".into())),
            ..found("scan.pdf", 9, 9)
        };
        // Nothing indexed yet: every text file is read, a PDF is skipped unread.
        check(
            &[],
            &[found("a.md", 1, 1), pdf.clone()],
            (&[("a.md", None)], &["scan.pdf"], &[], 0),
        );
        // Same size and time: nothing to do, whether it was indexed or skipped.
        check(
            &[stored("a.md", 1, 1, false), stored("b.md", 2, 2, true)],
            &[found("a.md", 1, 1), found("b.md", 2, 2)],
            (&[], &[], &[], 2),
        );
        // A new time or a new size: read again, with the indexed hash to compare.
        check(
            &[stored("a.md", 1, 1, false), stored("b.md", 2, 2, false)],
            &[found("a.md", 1, 5), found("b.md", 3, 2)],
            (&[("a.md", Some(7)), ("b.md", Some(7))], &[], &[], 0),
        );
        // A file skipped before is read afresh (no hash to trust).
        check(
            &[stored("a.md", 1, 1, true)],
            &[found("a.md", 4, 4)],
            (&[("a.md", None)], &[], &[], 0),
        );
        // Gone from the folder: removed. A changed file now unsupported: skipped.
        check(
            &[stored("a.md", 1, 1, false), stored("scan.pdf", 1, 1, true)],
            std::slice::from_ref(&pdf),
            (&[], &["scan.pdf"], &["a.md"], 0),
        );
        // Another splitter made the index: every indexed text file is split again; skipped
        // ones stay skipped until they change.
        check_with(
            &[
                stored("a.md", 1, 1, false),
                stored("b.md", 2, 2, true),
                stored("scan.pdf", 9, 9, true),
            ],
            &[found("a.md", 1, 1), found("b.md", 2, 2), pdf],
            true,
            (&[("a.md", None)], &[], &[], 2),
        );
    }
}
