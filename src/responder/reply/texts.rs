//! What users read instead of a raw error: the LLM's failure notices and the store's, each
//! one packet and without a detail of the error.

use crate::lang::{Lang, Say, say};
use crate::llm::LlmError;

/// The one short packet a user gets when the LLM fails, in `lang`: never the raw error. The
/// store's notices are `Say::StoreFailed` and `Say::StoreDamaged`.
pub(crate) fn failure_text(lang: Lang, e: &LlmError) -> String {
    let what = match e {
        LlmError::Timeout => Say::LlmTimeout,
        LlmError::Connect(_) | LlmError::Status { .. } | LlmError::Setup(_) => Say::LlmUnavailable,
        LlmError::BadResponse(_) | LlmError::Empty => Say::LlmUnusable,
    };
    say(lang, what).to_string()
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
            let text = failure_text(Lang::En, e);
            assert!(text.chars().count() <= 150 && text.len() <= 200, "{text}");
            for detail in ["10.0.0.7", "CUDA", "base url", "choices"] {
                assert!(!text.contains(detail), "{e:?} leaks {detail:?}: {text}");
            }
        }
        assert_eq!(
            failure_text(Lang::En, &LlmError::Timeout),
            "Sorry, the AI took too long to answer. Please try again later."
        );
    }
}
