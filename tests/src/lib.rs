//! End-to-end test support: a fake Anthropic Messages API and a runner that drives the real,
//! pinned Claude Code CLI against a fixture repository with code-intel's hooks and MCP server.
//!
//! How a case works (shared/docs/CLAUDE_CODE.md §10): [`FakeApi`] answers Claude Code's
//! `/v1/messages` calls with scripted [`Step`]s (assistant turns with `tool_use` blocks); Claude
//! Code executes those tools for real (permission checks, project hooks, `.mcp.json` servers) and
//! sends each outcome back as a `tool_result` in its next request, which the fake logs. A test then
//! asserts on the files on disk, the `permission_denials` of the `--output-format json` result, and
//! the logged tool results.
//!
//! ```no_run
//! use code_intel_e2e::{ClaudeCase, Step, locate_claude};
//! use serde_json::json;
//!
//! # fn main() -> anyhow::Result<()> {
//! let Some(claude) = locate_claude()? else { return Ok(()) }; // loud skip only if asked for
//! let mut case = ClaudeCase::new()?;
//! let target = case.path_str("notes.txt");
//! case.script(vec![Step::tool("Write", json!({ "file_path": target, "content": "hi\n" }))]);
//! let run = case.run(&claude)?;
//! assert_eq!(case.read("notes.txt")?.as_deref(), Some("hi\n"), "{}", run.describe());
//! # Ok(()) }
//! ```
//!
//! Binaries come from the workspace target directory ([`bin_dir`]); tests never build them, so run
//! `cargo build --workspace` before `cargo test -p code-intel-e2e`. Claude Code comes from
//! `scripts/install-claude-code.sh` or `$CODE_INTEL_CLAUDE`.

pub mod case;
pub mod claude_config;
pub mod conversation;
pub mod fake_api;
pub mod fixture;
pub mod learning;
pub mod locate;
pub mod shop_fixture;

pub use case::{CaseError, ClaudeCase, ClaudeRun, Denial};
pub use claude_config::{Hook, code_intel_hooks, code_intel_mcp_json, mcp_tool, settings_json};
pub use fake_api::{Block, FakeApi, LoggedRequest, Step, ToolResult, tool_use_id};
pub use locate::{LocateError, bin_dir, locate_claude, require_binaries, workspace_binary};
