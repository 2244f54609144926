//! The embedding loop: [`VectorIndex::embed_pending`] embeds the pending texts group by group
//! under the repository's embedding lock, each group durable in the embedding cache as it is
//! done; [`EmbedRun`] is one run's steps, for a caller that drives the loop itself.

use serde::{Deserialize, Serialize};

use super::pending::{PendingRef, TextSource};
use super::{Coverage, VectorError, VectorIndex};
use crate::embed::{EmbedError, Embedder};

/// Texts handed to the embedder per call by [`VectorIndex::embed_pending`]: large enough for the
/// embedder's length-sorted batches of 8, small enough that progress and the write lock move often.
pub const EMBED_GROUP: usize = 64;

/// Seconds between intermediate saves of a long embedding run ([`EmbedRun::save_if_due`]).
const SAVE_EVERY_SECS: u64 = 30;

/// What [`VectorIndex::embed_pending`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EmbedReport {
    /// Texts embedded by this run.
    pub embedded: usize,
    /// Texts still pending (the run was stopped, or files changed under it).
    pub remaining: usize,
    /// Wall-clock duration, milliseconds.
    pub duration_ms: u64,
    /// Coverage after the run.
    pub coverage: Coverage,
    /// Another process was embedding this repository; this run did nothing.
    #[serde(default)]
    pub busy: bool,
}

/// The held embedding lock of a repository ([`VectorIndex::try_embed_lock`]); released on drop.
#[derive(Debug)]
pub struct EmbedLock {
    _lock: code_intel_session::persist::FileLock,
}

impl VectorIndex {
    /// Takes the embedding lock of this repository (`vectors/embed.lock`) if no other process or
    /// thread holds it: one embedding run at a time, so two processes never embed the same texts.
    /// `Ok(None)` when it is taken.
    ///
    /// # Errors
    /// [`VectorError::Persist`] when the lock file cannot be created or locked.
    pub fn try_embed_lock(&self) -> Result<Option<EmbedLock>, VectorError> {
        // Locks `embed.lock` (persist::FileLock appends `.lock`).
        let lock = code_intel_session::persist::FileLock::try_acquire(&self.dir.join("embed"))?;
        Ok(lock.map(|l| EmbedLock { _lock: l }))
    }

    /// Begins an embedding run ([`EmbedRun`]): takes the embedding lock ([`Self::try_embed_lock`])
    /// and lists the pending texts ([`Self::pending`]). `Ok(None)` when another process or thread
    /// holds the lock.
    ///
    /// # Errors
    /// [`VectorError::Persist`] when the lock file cannot be created or locked.
    pub fn begin_embedding(&self) -> Result<Option<EmbedRun>, VectorError> {
        let Some(lock) = self.try_embed_lock()? else {
            return Ok(None);
        };
        let now = std::time::Instant::now();
        Ok(Some(EmbedRun {
            _lock: lock,
            source: self.text_source(),
            pending: self.pending_refs(),
            handed_out: 0,
            embedded: 0,
            last_save: now,
        }))
    }

    /// Embeds every pending text with `embedder`, [`EMBED_GROUP`] texts per call, inserting as it
    /// goes, flushing each group's vectors to the embedding cache, and saving the state every
    /// 30 s and at the end. `progress(done, total)` is called after each
    /// group; `stop` is checked between groups. Holds the embedding lock ([`Self::try_embed_lock`]);
    /// when another process holds it, returns at once with `busy` set and nothing embedded.
    ///
    /// # Errors
    /// [`VectorError::Embed`] (what was embedded before the failure is saved first), or the
    /// errors of [`Self::insert`] and [`Self::save`].
    pub fn embed_pending(
        &mut self,
        embedder: &dyn Embedder,
        progress: &mut dyn FnMut(usize, usize),
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<EmbedReport, VectorError> {
        let started = std::time::Instant::now();
        let Some(mut run) = self.begin_embedding()? else {
            return Ok(EmbedReport {
                remaining: self.coverage().pending_texts,
                busy: true,
                coverage: self.coverage(),
                ..EmbedReport::default()
            });
        };
        while run.remaining() > 0 {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let Some(group) = run.embed_next(embedder, EMBED_GROUP) else {
                break;
            };
            let group = match group {
                Ok(g) => g,
                Err(e) => {
                    self.save()?;
                    return Err(e.into());
                }
            };
            run.insert(self, &group)?;
            // Durable at once (an append to the cache file): a run killed later loses at most
            // the group in flight, and the next run embeds only what is missing.
            self.cache.flush()?;
            progress(run.embedded(), run.total());
            run.save_if_due(self)?;
        }
        self.save()?;
        Ok(EmbedReport {
            busy: false,
            embedded: run.embedded(),
            remaining: run.total() - run.embedded(),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            coverage: self.coverage(),
        })
    }
}

/// One embedding run of a repository ([`VectorIndex::begin_embedding`]): the embedding lock,
/// held until the run drops, and the texts that were pending when it began, handed out a group
/// at a time (named by file and line, their texts made again from the files group by group, so a
/// run over a large repository holds no texts but the group's). [`VectorIndex::embed_pending`] is one run from start to end; a caller that must
/// not hold the index while the model works (the MCP server, whose searches read the vectors
/// meanwhile) drives a run itself: [`Self::embed_next`] needs no index, [`Self::insert`] and
/// [`Self::save_if_due`] take it for a moment.
#[derive(Debug)]
pub struct EmbedRun {
    _lock: EmbedLock,
    source: TextSource,
    pending: Vec<PendingRef>,
    /// Texts handed to the embedder so far (a prefix of `pending`).
    handed_out: usize,
    /// Texts whose vectors were inserted.
    embedded: usize,
    /// When the run began or last saved the state.
    last_save: std::time::Instant,
}

/// A group of texts embedded by [`EmbedRun::embed_next`]: (embedding key, unit vector) pairs.
pub type EmbeddedGroup = Vec<(String, Vec<f32>)>;

impl EmbedRun {
    /// Texts pending when the run began.
    pub fn total(&self) -> usize {
        self.pending.len()
    }

    /// Texts not yet handed to the embedder.
    pub fn remaining(&self) -> usize {
        self.pending.len() - self.handed_out
    }

    /// Texts whose vectors [`Self::insert`] inserted.
    pub fn embedded(&self) -> usize {
        self.embedded
    }

    /// Embeds the next `group` texts (at least one) with `embedder`; `None` when every text was
    /// handed out. A group that fails is not handed out again by this run. The group's files are
    /// read and chunked again; a text whose file changed since the run began is left out (the
    /// refresh after the next sync names its new texts), so a group may be smaller or empty.
    ///
    /// # Errors
    /// The embedder's error.
    pub fn embed_next(
        &mut self,
        embedder: &dyn Embedder,
        group: usize,
    ) -> Option<Result<EmbeddedGroup, EmbedError>> {
        let start = self.handed_out;
        let end = (start + group.max(1)).min(self.pending.len());
        if start == end {
            return None;
        }
        self.handed_out = end;
        let group = self.source.texts(&self.pending[start..end]);
        if group.is_empty() {
            return Some(Ok(Vec::new()));
        }
        let texts: Vec<&str> = group.iter().map(|p| p.text.as_str()).collect();
        Some(
            embedder
                .embed_passages(&texts)
                .map(|vectors| group.into_iter().map(|p| p.key).zip(vectors).collect()),
        )
    }

    /// Inserts an embedded group into `vectors` ([`VectorIndex::insert`]: in memory and the
    /// embedding cache's pending records, flushed by [`VectorIndex::flush_vectors`] or
    /// [`VectorIndex::save`]) and counts its texts as embedded.
    ///
    /// # Errors
    /// The errors of [`VectorIndex::insert`].
    pub fn insert(
        &mut self,
        vectors: &mut VectorIndex,
        group: &EmbeddedGroup,
    ) -> Result<(), VectorError> {
        vectors.insert(group)?;
        self.embedded += group.len();
        Ok(())
    }

    /// Saves `vectors` ([`VectorIndex::save`]) when 30 s passed since the run began or last
    /// saved, so a long run's progress shows in `status` and survives a crash.
    ///
    /// # Errors
    /// The errors of [`VectorIndex::save`].
    pub fn save_if_due(&mut self, vectors: &mut VectorIndex) -> Result<(), VectorError> {
        if self.last_save.elapsed().as_secs() >= SAVE_EVERY_SECS {
            vectors.save()?;
            self.last_save = std::time::Instant::now();
        }
        Ok(())
    }
}
