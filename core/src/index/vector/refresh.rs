//! Refresh: bringing the rows up to date with the lexical index as `sync_state.json` describes it
//! (re-chunking exactly the files whose SHA-256 changed, or taking their rows from a sync's
//! handoff), then the slots: cached vectors reused, tombstones compacted past the threshold.

use serde::{Deserialize, Serialize};

use super::rows::make_row;
use super::{FileRows, Row, RowHandoff, VectorError, VectorIndex};
use crate::index::chunk::Chunk;
use crate::index::sync::SyncState;

/// Compact the slots when tombstones exceed this fraction of them ...
pub const REBUILD_TOMBSTONE_FRACTION: f64 = 0.25;

/// ... and number at least this many.
pub const REBUILD_TOMBSTONE_MIN: usize = 64;

/// What a [`VectorIndex::refresh`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefreshReport {
    /// Files re-chunked because their SHA-256 changed (or are new).
    pub files_rechunked: usize,
    /// Files dropped (gone from the lexical index).
    pub files_removed: usize,
    /// Files whose bytes changed again since the sync: left without rows until the next sync.
    pub files_stale: usize,
    /// Keys that got a slot from the embedding cache without embedding (unchanged text).
    pub reused_vectors: usize,
    /// Whether the slots were compacted (tombstones over the threshold).
    pub compacted: bool,
    /// Whether nothing was to be done (the rows already described the lexical commit).
    pub up_to_date: bool,
}

impl VectorIndex {
    /// Whether the rows describe the lexical index's current commit (cheap: reads
    /// `sync_state.json`). False when the lexical index was never synced.
    pub fn is_current(&self) -> bool {
        self.state.is_current(&self.root)
    }

    /// Brings the rows up to date with the lexical index as `sync_state.json` describes it:
    /// re-chunks new and changed files (by file SHA-256; every file when the sync's framework
    /// strategies differ from those the rows were chunked with), drops removed ones, gives every key
    /// already in the embedding cache its slot without embedding, and compacts when tombstones
    /// exceed the threshold. Embeds nothing (see [`Self::pending`] / [`Self::embed_pending`]).
    /// Call after every [`CodeIndex::sync`](crate::index::CodeIndex::sync); cheap when nothing
    /// changed.
    ///
    /// A file whose bytes no longer match the sync state (edited after the sync) gets no rows
    /// (`files_stale`) until the next sync and refresh, so rows never describe another version
    /// of a file than the lexical index.
    ///
    /// # Errors
    /// [`VectorError::Cache`] when compaction cannot rewrite the cache file.
    pub fn refresh(&mut self) -> Result<RefreshReport, VectorError> {
        self.refresh_with(None)
    }

    /// [`Self::refresh`], taking the rows of a file from `handoff` when it holds them for the
    /// version `sync_state.json` records (see [`RowHandoff`]); other files are read and chunked.
    /// `report.files_rechunked` counts both.
    ///
    /// # Errors
    /// As [`Self::refresh`].
    pub fn refresh_with(
        &mut self,
        handoff: Option<&RowHandoff>,
    ) -> Result<RefreshReport, VectorError> {
        let mut report = RefreshReport::default();
        let Some(sync_state) = SyncState::load(&SyncState::path(&self.root)) else {
            // Never synced (or the state is unreadable): nothing is indexed.
            report.files_removed = self.state.files.len();
            if !self.state.files.is_empty() || !self.state.lexical_commit.is_empty() {
                self.state.files.clear();
                self.state.lexical_commit.clear();
                self.journal.full = true;
                self.after_rows_changed(&mut report)?;
            } else {
                report.up_to_date = true;
            }
            return Ok(report);
        };
        if sync_state.commit == self.state.lexical_commit
            && self.state.stale_files.is_empty()
            && sync_state.frameworks == self.state.frameworks
        {
            report.up_to_date = true;
            return Ok(report);
        }
        // When the sync chunked with other framework strategies (an `artisan` script or a
        // `composer.json` came or went), every file is chunked again as it did, unchanged ones
        // too: their rows may gain or lose framework sections.
        let rechunk_all = sync_state.frameworks != self.state.frameworks;
        if rechunk_all {
            self.frameworks = crate::index::framework::Frameworks::detect(self.root.path());
            self.state.frameworks = sync_state.frameworks.clone();
            self.journal.full = true;
        }
        let before = self.state.files.len();
        let changed = &mut self.journal.changed_files;
        self.state.files.retain(|path, _| {
            let keep = sync_state.files.get(path).is_some_and(|f| f.chunks > 0);
            if !keep {
                changed.insert(path.clone());
            }
            keep
        });
        report.files_removed = before - self.state.files.len();
        self.state.stale_files.clear();
        for (path, fs) in &sync_state.files {
            if fs.chunks == 0 || fs.skipped.is_some() {
                continue;
            }
            if !rechunk_all
                && self
                    .state
                    .files
                    .get(path)
                    .is_some_and(|f| f.sha256 == fs.sha256)
            {
                continue;
            }
            let handed = handoff.and_then(|h| h.take(self.recipe, path, &fs.sha256));
            let rows = handed.or_else(|| {
                self.chunk_file(path, &fs.sha256)
                    .map(|chunks| chunks.iter().map(|c| self.row(c)).collect())
            });
            match rows {
                Some(rows) => {
                    self.state.files.insert(
                        path.clone(),
                        FileRows {
                            sha256: fs.sha256.clone(),
                            rows,
                        },
                    );
                    self.journal.changed_files.insert(path.clone());
                    report.files_rechunked += 1;
                }
                None => {
                    self.state.files.remove(path);
                    self.journal.changed_files.insert(path.clone());
                    self.state.stale_files.push(path.clone());
                    report.files_stale += 1;
                }
            }
        }
        self.state.lexical_commit = sync_state.commit;
        self.after_rows_changed(&mut report)?;
        Ok(report)
    }

    /// After rows changed: refs, reuse of cached vectors, compaction.
    fn after_rows_changed(&mut self, report: &mut RefreshReport) -> Result<(), VectorError> {
        self.rebuild_refs();
        report.reused_vectors += self.adopt_cached();
        let dead = self.state.slots.len() - self.live_count;
        if dead >= REBUILD_TOMBSTONE_MIN
            && dead as f64 > REBUILD_TOMBSTONE_FRACTION * self.state.slots.len() as f64
        {
            self.compact()?;
            report.compacted = true;
        } else if self.graph.is_none() && self.live_count >= self.exact_max {
            self.build_graph();
        }
        self.dirty = true;
        Ok(())
    }

    /// Reads and chunks one file, if its bytes still have `sha256`.
    pub(super) fn chunk_file(&self, path: &str, sha256: &str) -> Option<Vec<Chunk>> {
        super::pending::chunk_file(
            &self.root,
            &self.chunk_options,
            &self.frameworks,
            path,
            sha256,
        )
    }

    fn row(&self, c: &Chunk) -> Row {
        make_row(self.recipe, c)
    }
}
