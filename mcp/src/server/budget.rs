//! One memory budget for the server's tool calls, shared across concurrent calls (issue 40).
//!
//! rmcp answers each request on its own task, so without a bound N concurrent heavy calls cost N
//! times one: `search_text {"pattern": "\\w{1,10000}"}` used to cost about 110 MB while in
//! flight (the regex compiler growing toward grep-regex's 100 MB default before refusing it), and
//! 16 of them 1.8 GB. Two bounds fix that:
//! - each call's own peak is bounded where it is made: a regex compiles into at most
//!   `explore::text::REGEX_SIZE_LIMIT` and searches with a lazy-DFA cache of at most
//!   `REGEX_DFA_SIZE_LIMIT`, files are read up to `max_file_bytes`, answers are cut to
//!   `max_output_chars`;
//! - [`Budget`]: every call takes its [`cost_mib`] from one pool of [`BUDGET_MIB`] before it
//!   runs and gives it back when it answers. A call that does not fit waits (tokio's semaphore
//!   is fair: first come, first served) for at most [`MAX_WAIT`], then is refused with a tool
//!   error `server_busy` that says when to retry. No call is dropped.
//!
//! The costs are upper bounds of a call's working memory above the server's resident base
//! (index readers, the model), measured on release builds (docs/BENCHMARKS.md, "Hostile
//! protocol and concurrency"). With the base of a 10k-file repository and the model loaded
//! (about 300 MiB) the server stays under [`CEILING_MIB`] whatever the clients send.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::json;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The pool every tool call takes its cost from, in MiB.
pub const BUDGET_MIB: u32 = 512;

/// The documented ceiling of the server's resident memory under any mix of calls, in MiB:
/// [`BUDGET_MIB`] plus the resident base (checked by `mcp/tests/protocol_soak.rs`).
pub const CEILING_MIB: u32 = 1024;

/// Longest a call waits for its share of the budget before it is refused.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// What one call of the tool `name` may take, in MiB (an upper bound of its working memory).
pub fn cost_mib(name: &str) -> u32 {
    match name {
        // A user regex (compiled ≤ 10 MiB, DFA cache ≤ 16 MiB) over files read one at a time
        // (≤ max_file_bytes each), or a word-boundary search plus tree-sitter parses.
        "search_text" | "find_references" => 48,
        // tree-sitter parses of up to max_file_bytes per file, index reads.
        "find_definitions" | "analyze_structure" | "get_function_at_line" => 32,
        // Ranked searches, query embeddings and calibration backgrounds; a sync on start.
        "semantic_search"
        | "search_map"
        | "validate_symbol_relevance"
        | "confirm_symbol_relevance"
        | "submit_understanding"
        | "start_session" => 32,
        // Session files (≤ 16 MiB, the hook's limit) read and written under their lock.
        _ => 8,
    }
}

/// The shared pool (see the module docs). Cloning shares it.
#[derive(Debug, Clone)]
pub struct Budget {
    pool: Arc<Semaphore>,
    total: u32,
    wait: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        tracing::debug!(
            budget_mib = BUDGET_MIB,
            ceiling_mib = CEILING_MIB,
            "tool calls share one memory budget"
        );
        Self::new(BUDGET_MIB, MAX_WAIT)
    }
}

impl Budget {
    /// A pool of `total_mib` where a call waits at most `wait`.
    pub fn new(total_mib: u32, wait: Duration) -> Self {
        Self {
            pool: Arc::new(Semaphore::new(total_mib as usize)),
            total: total_mib,
            wait,
        }
    }

    /// Takes the cost of a call of `tool`, waiting for it when the pool is short; the permit
    /// gives it back when dropped.
    ///
    /// # Errors
    /// A `server_busy` tool error (with `retry_after_seconds`) when the share did not come free
    /// within the wait.
    pub async fn admit(&self, tool: &str) -> Result<OwnedSemaphorePermit, CallToolResult> {
        let cost = cost_mib(tool).min(self.total);
        let acquire = Arc::clone(&self.pool).acquire_many_owned(cost);
        match tokio::time::timeout(self.wait, acquire).await {
            Ok(Ok(permit)) => Ok(permit),
            // The pool is never closed; answer as busy all the same.
            Ok(Err(_)) | Err(_) => {
                tracing::warn!(
                    tool,
                    cost,
                    "tool call refused: the memory budget stayed in use"
                );
                Err(CallToolResult::structured_error(json!({
                    "error": "server_busy",
                    "message": format!(
                        "code-intel is answering other calls that use its memory budget ({} MiB); \
                         this call ({tool}, {cost} MiB) waited {} s: retry it later",
                        self.total,
                        self.wait.as_secs()
                    ),
                    "retry_after_seconds": 5,
                })))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn calls_wait_for_their_share_then_are_refused_as_busy() {
        let budget = Budget::new(104, Duration::from_millis(200));
        let a = budget.admit("search_text").await.unwrap();
        let b = budget.admit("search_text").await.unwrap();
        // 96 of 104 taken: a third heavy call waits, then is refused with a retry hint.
        let refused = budget.admit("search_text").await.unwrap_err();
        let body = refused.structured_content.unwrap();
        assert_eq!(body["error"], "server_busy", "{body}");
        assert_eq!(body["retry_after_seconds"], 5);
        // A cheap call still fits, and the heavy one does once a share is back.
        drop(budget.admit("get_session_status").await.unwrap());
        drop(a);
        drop(budget.admit("search_text").await.unwrap());
        drop(b);
        assert_eq!(budget.pool.available_permits(), 104);
    }

    #[test]
    fn every_cost_fits_the_pool() {
        for tool in [
            "search_text",
            "start_session",
            "get_session_status",
            "anything",
        ] {
            assert!(cost_mib(tool) > 0 && cost_mib(tool) <= BUDGET_MIB, "{tool}");
        }
        const { assert!(BUDGET_MIB < CEILING_MIB) };
    }
}
