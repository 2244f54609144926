//! code-intel-node: code-intel's core API as a native Node.js addon (napi-rs).
//!
//! A thin adapter: every export calls the same `code_intel_core` entry points the MCP server
//! (`mcp/src/server*`) and the hooks (`hooks/src`) call — the session store, the gate, the
//! exploration tools, the index, the learned map and the outcome journal — so a Node script,
//! the CLI and Claude Code share one repository's state safely (per-session file locks, atomic
//! writes). Calls that touch the disk return a `Promise` and run on libuv's thread pool
//! ([`task`]); failures are JavaScript `Error`s with a stable `code` and a `hint` ([`error`]).
//!
//! JavaScript API (generated `index.d.ts`): [`repo::open_repo`] → `Repo`
//! (index, status, search, exploration tools, sessions, learned map, insights) → `Session`
//! ([`session`]); the gate as functions ([`gate`]). See `bindings/node/README.md`.

pub mod error;
pub mod gate;
pub mod repo;
pub mod session;
pub mod task;
