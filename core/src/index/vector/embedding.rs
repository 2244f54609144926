//! The embedding loop: [`VectorIndex::embed_pending`] embeds the pending texts group by group
//! under the repository's embedding lock, each group durable in the embedding cache as it is
//! done.

use serde::{Deserialize, Serialize};

use super::{Coverage, VectorError, VectorIndex};
use crate::embed::Embedder;

/// Texts handed to the embedder per call by [`VectorIndex::embed_pending`]: large enough for the
/// embedder's length-sorted batches of 8, small enough that progress and the write lock move often.
pub const EMBED_GROUP: usize = 64;

/// Seconds between intermediate saves of a long [`VectorIndex::embed_pending`] run.
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
    _lock: crate::persist::FileLock,
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
        let lock = crate::persist::FileLock::try_acquire(&self.dir.join("embed"))?;
        Ok(lock.map(|l| EmbedLock { _lock: l }))
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
        let Some(_lock) = self.try_embed_lock()? else {
            return Ok(EmbedReport {
                remaining: self.coverage().pending_texts,
                busy: true,
                coverage: self.coverage(),
                ..EmbedReport::default()
            });
        };
        let pending = self.pending();
        let total = pending.len();
        let mut done = 0;
        let mut last_save = std::time::Instant::now();
        for group in pending.chunks(EMBED_GROUP) {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let texts: Vec<&str> = group.iter().map(|p| p.text.as_str()).collect();
            let vectors = match embedder.embed_passages(&texts) {
                Ok(v) => v,
                Err(e) => {
                    self.save()?;
                    return Err(e.into());
                }
            };
            let items: Vec<(String, Vec<f32>)> =
                group.iter().map(|p| p.key.clone()).zip(vectors).collect();
            self.insert(&items)?;
            // Durable at once (an append to the cache file): a run killed later loses at most
            // the group in flight, and the next run embeds only what is missing.
            self.cache.flush()?;
            done += group.len();
            progress(done, total);
            if last_save.elapsed().as_secs() >= SAVE_EVERY_SECS {
                self.save()?;
                last_save = std::time::Instant::now();
            }
        }
        self.save()?;
        Ok(EmbedReport {
            busy: false,
            embedded: done,
            remaining: total - done,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            coverage: self.coverage(),
        })
    }
}
