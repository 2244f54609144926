//! The vector index's life next to the lexical index, written once for every adapter (the CLI,
//! the MCP server, the Node binding): whether a repository has vectors at all, opening them in
//! line with the lexical index for a search, and bringing them up to date after a sync.
//!
//! | use case | call | who |
//! |---|---|---|
//! | are there vectors to search? | [`VectorIndex::has_saved_state`] | `code-intel search`, Node `search` |
//! | vectors for a search | [`VectorIndex::open_current`] | `code-intel search`, Node `search` |
//! | vectors after a sync | [`VectorIndex::open_refreshed`] | `code-intel index`, Node `index({ embed })` |
//! | status without opening | [`VectorIndex::peek_state`], then [`VectorState::coverage`](super::VectorState::coverage) and [`VectorState::is_current`](super::VectorState::is_current) | `code-intel status`, `doctor` |
//! | an open index caught up | [`VectorIndex::refresh_if_behind`], or [`VectorIndex::refresh_and_save`] after the caller's own [`VectorIndex::is_current`] | the MCP server (its check under a read lock, the refresh under the write lock), before a query and in the background |
//!
//! Embedding what is pending is [`VectorIndex::embed_pending`] (one run under the embedding
//! lock, progress and stop flag from the caller: `code-intel index --embed`, Node
//! `index({ embed })`), or an [`EmbedRun`](super::EmbedRun) driven group by group by a caller
//! that holds the index only between groups (the MCP server's background task). What runs it (a
//! thread at a lower priority, libuv's pool, a progress bar, pauses while a tool call is
//! answered) is the adapter's.

use super::{RefreshReport, RowHandoff, STATE_FILE, VectorError, VectorIndex};
use code_intel_session::config::Config;
use code_intel_session::repo_path::RepoRoot;

impl VectorIndex {
    /// Whether `vectors/state.json` is a file: vectors of some model were saved for `root`
    /// (by `code-intel index`, the MCP server or a binding). Says nothing about their model or
    /// whether they describe the lexical index's current commit.
    pub fn has_saved_state(root: &RepoRoot) -> bool {
        Self::dir(root).join(STATE_FILE).is_file()
    }

    /// The vectors of `root` for searching: [`Self::open`], then [`Self::refresh_if_behind`] (a
    /// refresh and a save only when the rows do not describe the lexical index's current commit,
    /// so an unchanged repository costs the open alone). `model_id` and `dims` as for
    /// [`Self::open`].
    ///
    /// # Errors
    /// The errors of [`Self::open`], [`Self::refresh`] and [`Self::save`].
    pub fn open_current(
        root: &RepoRoot,
        config: &Config,
        model_id: &str,
        dims: usize,
    ) -> Result<Self, VectorError> {
        let mut vectors = Self::open(root, config, model_id, dims)?;
        vectors.refresh_if_behind()?;
        Ok(vectors)
    }

    /// The vectors of `root` after a sync: [`Self::open`] (creating an empty state when there is
    /// none), then [`Self::refresh_and_save`] with the sync's `handoff` whatever the saved
    /// lexical commit (a refresh with nothing to do returns `up_to_date` at the cost of reading
    /// `sync_state.json`). Embeds nothing: [`Self::embed_pending`] does.
    ///
    /// # Errors
    /// The errors of [`Self::open`], [`Self::refresh_with`] and [`Self::save`].
    pub fn open_refreshed(
        root: &RepoRoot,
        config: &Config,
        model_id: &str,
        dims: usize,
        handoff: Option<&RowHandoff>,
    ) -> Result<(Self, RefreshReport), VectorError> {
        let mut vectors = Self::open(root, config, model_id, dims)?;
        let refresh = vectors.refresh_and_save(handoff)?;
        Ok((vectors, refresh))
    }

    /// [`Self::refresh_with`] `handoff`, then [`Self::save`]: the rows in line with
    /// `sync_state.json` and on disk, with the coverage summary.
    ///
    /// # Errors
    /// The errors of [`Self::refresh_with`] and [`Self::save`].
    pub fn refresh_and_save(
        &mut self,
        handoff: Option<&RowHandoff>,
    ) -> Result<RefreshReport, VectorError> {
        let report = self.refresh_with(handoff)?;
        self.save()?;
        Ok(report)
    }

    /// When the rows do not describe the lexical index's current commit ([`Self::is_current`]:
    /// the commit alone, so stale files of the same commit wait for the next sync), refreshes
    /// and saves ([`Self::refresh_and_save`]) and returns what the refresh did; `None` when they
    /// do (nothing is written).
    ///
    /// # Errors
    /// The errors of [`Self::refresh`] and [`Self::save`].
    pub fn refresh_if_behind(&mut self) -> Result<Option<RefreshReport>, VectorError> {
        if self.is_current() {
            return Ok(None);
        }
        self.refresh_and_save(None).map(Some)
    }
}
