//! What users read instead of a raw error: the LLM's failure notices and the store's, each
//! one packet and without a detail of the error.

use crate::llm::LlmError;

/// The notice when SQLite fails (disk full, permissions): one packet, no raw error.
pub(crate) const STORE_FAILED: &str = "Sorry, my memory store failed. Try again later.";

/// What a command that needs the memory says when the database is damaged.
pub(crate) const STORE_DAMAGED: &str = "Sorry, my memory store is damaged: I can't do that now. I still answer, without memory, until the operator repairs it.";

/// The one short packet a user gets when the LLM fails: never the raw error.
pub(crate) fn failure_text(e: &LlmError) -> String {
    match e {
        LlmError::Timeout => "Sorry, the AI took too long to answer. Please try again later.",
        LlmError::Connect(_) | LlmError::Status { .. } | LlmError::Setup(_) => {
            "Sorry, the AI is unavailable right now. Please try again later."
        }
        LlmError::BadResponse(_) | LlmError::Empty => {
            "Sorry, the AI gave an unusable answer. Please try again."
        }
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_failure_notice_fits_one_packet_and_says_no_error_detail() {
        let errors = [
            LlmError::Timeout,
            LlmError::Connect("tcp connect error: 10.0.0.7:8080".into()),
            LlmError::Status {
                status: 500,
                body: "CUDA out of memory".into(),
                retry_after: None,
            },
            LlmError::Setup("bad base url".into()),
            LlmError::BadResponse("missing field `choices`".into()),
            LlmError::Empty,
        ];
        for e in &errors {
            let text = failure_text(e);
            assert!(text.chars().count() <= 150 && text.len() <= 200, "{text}");
            for detail in ["10.0.0.7", "CUDA", "base url", "choices"] {
                assert!(!text.contains(detail), "{e:?} leaks {detail:?}: {text}");
            }
        }
        assert_eq!(
            failure_text(&LlmError::Timeout),
            "Sorry, the AI took too long to answer. Please try again later."
        );
        assert!(STORE_FAILED.len() <= 150);
        assert!(STORE_DAMAGED.len() <= 150, "{}", STORE_DAMAGED.len());
    }
}
