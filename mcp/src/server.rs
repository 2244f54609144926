//! The rmcp stdio MCP server (`code-intel serve`): server state, the tool router and the
//! `ServerHandler`. Tools are thin adapters over `code_intel_core` (parse the wire input, one core
//! call on a blocking thread, convert the result).

use std::sync::{Arc, Mutex};

use code_intel_core::config::Config;
use code_intel_core::repo_path::RepoRoot;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt as _, tool_handler, tool_router};

/// What the model reads first (CLAUDE_CODE.md §6: Claude Code cuts server instructions at 2 KB).
pub const INSTRUCTIONS: &str = "\
code-intel gates edits: Edit/Write/Bash writes into this repository are denied until a code-intel \
session is READY and the target file was explored. Workflow:
1. start_session(intent, query): intent IMPLEMENT | MODIFY | INVESTIGATE | QUESTION, query = the user's \
request verbatim. Read extraction_prompt and plan.
2. set_query_frame: fill the slots you can, each {value, quote}; quote must be copied from the request.
3. Explore (EXPLORATION phase): find_definitions, find_references, search_text, analyze_structure, \
get_function_at_line, plus Read/Grep. IMPLEMENT/MODIFY need find_definitions and find_references.
4. submit_understanding(symbols_identified, entry_points, files_analyzed, existing_patterns). The \
answer is READY, or SEMANTIC with missing_requirements.
5. In SEMANTIC: submit_semantic(hypotheses, semantic_reason); in VERIFICATION: verify each \
hypothesis with the exploration tools, then submit_verification(results).
6. READY: call check_write_target(path) before every edit. If denied, follow recovery_options: \
add_explored_files(files) after reading them, or revert_to_exploration.
session_id is optional: it defaults to the session this server started last. get_session_status shows \
the phase and what is missing. A tool refused in the current phase says which tool to call next.";

/// The server: shared state plus the tool router. Cloned per request by rmcp; every field is shared.
#[derive(Clone)]
pub struct CodeIntel {
    root: RepoRoot,
    #[allow(dead_code)]
    config: Arc<Config>,
    /// `CLAUDE_CODE_SESSION_ID` at spawn (CLAUDE_CODE.md §3), recorded on sessions this server starts.
    #[allow(dead_code)]
    claude_session_id: Option<String>,
    /// The session most recently started by this process: the default `session_id`.
    #[allow(dead_code)]
    current_session: Arc<Mutex<Option<String>>>,
    tool_router: ToolRouter<Self>,
}

#[tool_router(allow_empty)]
impl CodeIntel {
    /// Creates the server for `root` with its loaded `config`.
    pub fn new(root: RepoRoot, config: Config, claude_session_id: Option<String>) -> Self {
        Self {
            root,
            config: Arc::new(config),
            claude_session_id,
            current_session: Arc::new(Mutex::new(None)),
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CodeIntel {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new("code-intel", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS.to_string())
    }
}

/// Environment variable Claude Code sets to its session id for the MCP server (CLAUDE_CODE.md §3).
const CLAUDE_SESSION_ENV: &str = "CLAUDE_CODE_SESSION_ID";

/// Serves MCP on stdin/stdout until the client disconnects.
///
/// # Errors
/// When the configuration cannot be loaded or the transport fails to start.
pub async fn serve(root: RepoRoot) -> anyhow::Result<()> {
    let config = Config::load(root.path())?;
    let claude_session_id = std::env::var(CLAUDE_SESSION_ENV).ok().filter(|s| !s.is_empty());
    tracing::info!(root = %root.path().display(), claude_session = ?claude_session_id, "code-intel MCP server starting");
    let server = CodeIntel::new(root, config, claude_session_id);
    let running = server.serve(rmcp::transport::stdio()).await?;
    let reason = running.waiting().await?;
    tracing::info!(?reason, "code-intel MCP server stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_fit_the_two_kilobyte_cut() {
        assert!(INSTRUCTIONS.len() <= 2048, "{} bytes", INSTRUCTIONS.len());
    }
}
