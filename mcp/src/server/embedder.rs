//! The server's embedding model: loaded lazily, on a background thread, by the first call that
//! needs it (docs/DESIGN.md#sync-ux: the relevance tiers, a quote not in the request, a
//! `semantic_search` its mode ranks with vectors or over a non-empty map), which waits for it
//! (up to 20 s), and then shared by every tool. A session that only explores lexically never loads it ([`ModelStatus`] says
//! `not_loaded`). A tool asking before the load finished gets [`NotReady::Loading`]
//! ("initializing, retry after N s", docs/DESIGN.md#initializing); a missing or broken model gets
//! [`NotReady::Unavailable`] with the fix, and everything lexical keeps working.
//!
//! The model cache is resolved by [`crate::model::resolve_cache_dir`] (`CODE_INTEL_MODEL_DIR`, else
//! `${XDG_CACHE_HOME:-$HOME/.cache}/code-intel/models`); `CODE_INTEL_EMBEDDINGS=off` turns the model
//! off. These are the only environment reads of the semantic layer.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use code_intel_core::embed::{Embedder, FastEmbedOptions, FastEmbedder, ModelPaths};
use rmcp::model::CallToolResult;
use serde::Serialize;
use serde_json::json;

/// Environment variable that turns the embedding model off (`off`, `0` or `false`).
pub const EMBEDDINGS_ENV: &str = "CODE_INTEL_EMBEDDINGS";

/// How long loading usually takes (docs/MODEL.md: about 2 s for the tokenizer and the q4 session on
/// an idle machine; more when other work competes): the basis of `retry_after_seconds`.
const TYPICAL_LOAD: Duration = Duration::from_secs(3);

/// What `status` says of a model no call has needed yet.
const NOT_LOADED: &str = "not loaded: it loads on the first call that needs it (relevance checks, a quote not in the request, semantic_search of a question, a CJK request or the map)";

/// Why the model cannot be used right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotReady {
    /// Still loading; ask again after `retry_after_s` seconds.
    Loading {
        /// Suggested wait, whole seconds, at least 1.
        retry_after_s: u64,
    },
    /// Not installed, damaged, or failed to load; `message` names the fix.
    Unavailable {
        /// The load error (it says to run `code-intel model fetch`).
        message: String,
    },
}

/// The embedding model's availability as `start_session` and `get_session_status` report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelStatus {
    /// `not_loaded` (no call has needed it yet; the first that does loads it), `ready`,
    /// `loading` (model-backed tools answer "initializing") or `unavailable` (they answer
    /// lexically or with the fix; see `message`).
    pub state: &'static str,
    /// The loaded model, when ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    /// While loading: seconds to wait before a model-backed tool will answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
    /// When unavailable: why, with the fix; when not loaded: what loads it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl NotReady {
    /// A one-line description.
    pub fn message(&self) -> String {
        match self {
            NotReady::Loading { retry_after_s } => {
                format!("the embedding model is initializing, retry after {retry_after_s} s")
            }
            NotReady::Unavailable { message } => {
                format!("the embedding model is unavailable: {message}")
            }
        }
    }

    /// The `isError` tool result (the `initializing` shape with `retry_after_seconds`,
    /// docs/DESIGN.md#initializing).
    pub fn into_result(self) -> CallToolResult {
        let body = match &self {
            NotReady::Loading { retry_after_s } => json!({
                "error": "initializing",
                "status": "initializing",
                "message": self.message(),
                "retry_after_seconds": retry_after_s,
            }),
            NotReady::Unavailable { .. } => json!({
                "error": "model_unavailable",
                "message": self.message(),
            }),
        };
        CallToolResult::structured_error(body)
    }
}

enum State {
    /// Not loaded yet: the first [`SharedEmbedder::get`] or [`SharedEmbedder::wait`] starts the
    /// load from this model cache (or fails with the error of choosing one).
    Idle {
        cache_dir: Result<PathBuf, String>,
    },
    Loading {
        since: Instant,
    },
    Ready(Arc<dyn Embedder>),
    Failed(String),
}

/// The shared model: not loaded, loading, ready or failed. Cheap to query from async code
/// ([`Self::get`], which starts the load on first use; [`Self::loaded`], which never does);
/// blocking threads may wait for it ([`Self::wait`]).
pub struct SharedEmbedder {
    state: Mutex<State>,
    changed: Condvar,
}

impl SharedEmbedder {
    fn with(state: State) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(state),
            changed: Condvar::new(),
        })
    }

    /// [`Self::lazy`] with the cache directory from the environment ([`crate::model::resolve_cache_dir`]),
    /// or a model that stays unavailable when `CODE_INTEL_EMBEDDINGS` is `off` (or `0`/`false`):
    /// no load, no memory for the model, everything semantic answers with that reason.
    pub fn lazy_from_env() -> Arc<Self> {
        let off = std::env::var(EMBEDDINGS_ENV).is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "off" | "0" | "false"
            )
        });
        if off {
            tracing::info!("embeddings disabled by {EMBEDDINGS_ENV}");
            return Self::unavailable(format!(
                "embeddings are disabled ({EMBEDDINGS_ENV}=off): unset it to use the model"
            ));
        }
        Self::lazy(crate::model::resolve_cache_dir(None))
    }

    /// A model that loads from the model cache `cache_dir` when a caller first needs it
    /// ([`Self::get`], [`Self::wait`]); until then it takes no memory. `Err` (no cache directory
    /// could be chosen) makes the model unavailable with that message on first use.
    pub fn lazy(cache_dir: anyhow::Result<PathBuf>) -> Arc<Self> {
        Self::with(State::Idle {
            cache_dir: cache_dir.map_err(|e| format!("{e:#}")),
        })
    }

    /// Moves an idle model to loading and starts the loading thread (under the state lock, so
    /// one load per server).
    fn begin_load(self: &Arc<Self>, state: &mut State) {
        let State::Idle { cache_dir } = state else {
            return;
        };
        let dir = match cache_dir {
            Ok(dir) => dir.clone(),
            Err(e) => {
                *state = State::Failed(e.clone());
                self.changed.notify_all();
                return;
            }
        };
        *state = State::Loading {
            since: Instant::now(),
        };
        let target = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("code-intel-model".into())
            .spawn(move || {
                let started = Instant::now();
                let paths = ModelPaths::in_cache(&dir, ModelPaths::DEFAULT_MODEL);
                // One session on the int8-activation graph for queries and the background
                // passages: the server's idle memory is a target (docs/BENCHMARKS.md).
                let options = FastEmbedOptions {
                    intra_threads: Some(1),
                    one_session: true,
                    ..FastEmbedOptions::default()
                };
                // A panic inside the runtime must not leave callers waiting for ever.
                let loaded = std::panic::catch_unwind(|| FastEmbedder::load(&paths, &options))
                    .unwrap_or_else(|_| {
                        Err(code_intel_core::embed::EmbedError::Load {
                            dir: paths.model_dir.clone(),
                            reason: "loading panicked".into(),
                        })
                    });
                match loaded {
                    Ok(model) => {
                        tracing::info!(model = model.model_id(), ms = started.elapsed().as_millis() as u64, "embedding model loaded");
                        target.finish(Ok(Arc::new(model)));
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "embedding model unavailable; semantic checks are off, lexical tools keep working");
                        target.finish(Err(e.to_string()));
                    }
                }
            });
        if let Err(e) = spawned {
            *state = State::Failed(format!("cannot start the model loading thread: {e}"));
            self.changed.notify_all();
        }
    }

    /// A model that will never be available, with the reason.
    pub fn unavailable(message: impl Into<String>) -> Arc<Self> {
        Self::with(State::Failed(message.into()))
    }

    /// Ends loading (wakes every waiter).
    fn finish(&self, outcome: Result<Arc<dyn Embedder>, String>) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        *state = match outcome {
            Ok(e) => State::Ready(e),
            Err(msg) => State::Failed(msg),
        };
        self.changed.notify_all();
    }

    fn current(state: &State) -> Result<Arc<dyn Embedder>, NotReady> {
        match state {
            State::Ready(e) => Ok(Arc::clone(e)),
            State::Failed(msg) => Err(NotReady::Unavailable {
                message: msg.clone(),
            }),
            // Callers start the load before they read an idle state; `loaded` reads it as loading.
            State::Idle { .. } => Err(NotReady::Loading {
                retry_after_s: TYPICAL_LOAD.as_secs(),
            }),
            State::Loading { since } => {
                let left = TYPICAL_LOAD.saturating_sub(since.elapsed());
                Err(NotReady::Loading {
                    // Whole seconds, rounded up, at least 1 (also once the typical time is over).
                    retry_after_s: (left.as_secs() + u64::from(left.subsec_nanos() > 0)).max(1),
                })
            }
        }
    }

    /// Whether the model is usable now, for session tools to report (so an agent knows whether
    /// the model-backed tools will answer or say "initializing"). Never starts the load.
    pub fn status(&self) -> ModelStatus {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(*state, State::Idle { .. }) {
            return ModelStatus {
                state: "not_loaded",
                model_id: None,
                retry_after_s: None,
                message: Some(NOT_LOADED.into()),
            };
        }
        match Self::current(&state) {
            Ok(e) => ModelStatus {
                state: "ready",
                model_id: Some(e.model_id().to_owned()),
                retry_after_s: None,
                message: None,
            },
            Err(NotReady::Loading { retry_after_s }) => ModelStatus {
                state: "loading",
                model_id: None,
                retry_after_s: Some(retry_after_s),
                message: None,
            },
            Err(nr @ NotReady::Unavailable { .. }) => ModelStatus {
                state: "unavailable",
                model_id: None,
                retry_after_s: None,
                message: Some(nr.message()),
            },
        }
    }

    /// The model if it is loaded, without starting a load or waiting: for uses that help only
    /// when the model is there anyway (the map's hints at `start_session`).
    pub fn loaded(&self) -> Option<Arc<dyn Embedder>> {
        match &*self.state.lock().unwrap_or_else(PoisonError::into_inner) {
            State::Ready(e) => Some(Arc::clone(e)),
            _ => None,
        }
    }

    /// Waits (async, on a blocking thread) until the model is ready, without starting its load:
    /// `None` once it failed. What the background embedding waits on, so that it starts only after
    /// a call that needed the model loaded it.
    pub async fn until_loaded(self: &Arc<Self>) -> Option<Arc<dyn Embedder>> {
        loop {
            let this = Arc::clone(self);
            let waited = tokio::task::spawn_blocking(move || {
                let state = this.state.lock().unwrap_or_else(PoisonError::into_inner);
                let (state, _) = this
                    .changed
                    .wait_timeout_while(state, Duration::from_secs(60), |s| {
                        matches!(s, State::Idle { .. } | State::Loading { .. })
                    })
                    .unwrap_or_else(PoisonError::into_inner);
                match &*state {
                    State::Ready(e) => Some(Some(Arc::clone(e))),
                    State::Failed(_) => Some(None),
                    _ => None,
                }
            })
            .await;
            match waited {
                Ok(Some(outcome)) => return outcome,
                Ok(None) => {}
                Err(_) => return None,
            }
        }
    }

    /// The model now, without waiting; starts loading it if nobody has yet.
    ///
    /// # Errors
    /// [`NotReady::Loading`] while loading, [`NotReady::Unavailable`] when loading failed.
    pub fn get(self: &Arc<Self>) -> Result<Arc<dyn Embedder>, NotReady> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        self.begin_load(&mut state);
        Self::current(&state)
    }

    /// The model, waiting at most `timeout` for a load in progress. Blocks: call it from a blocking
    /// thread (`spawn_blocking`), never from async code.
    ///
    /// # Errors
    /// As [`Self::get`], after the wait.
    pub fn wait(self: &Arc<Self>, timeout: Duration) -> Result<Arc<dyn Embedder>, NotReady> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        self.begin_load(&mut state);
        let (state, _) = self
            .changed
            .wait_timeout_while(state, timeout, |s| matches!(s, State::Loading { .. }))
            .unwrap_or_else(PoisonError::into_inner);
        Self::current(&state)
    }

    /// [`Self::wait`] for async callers (waits on a blocking thread).
    ///
    /// # Errors
    /// As [`Self::wait`].
    pub async fn wait_async(
        self: &Arc<Self>,
        timeout: Duration,
    ) -> Result<Arc<dyn Embedder>, NotReady> {
        let this = Arc::clone(self);
        tokio::task::spawn_blocking(move || this.wait(timeout))
            .await
            .unwrap_or_else(|e| {
                Err(NotReady::Unavailable {
                    message: format!("waiting for the model failed: {e}"),
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use code_intel_core::embed::FakeEmbedder;

    #[test]
    fn a_loading_model_says_initializing_with_a_retry_delay() {
        let shared = SharedEmbedder::with(State::Loading {
            since: Instant::now(),
        });
        let Err(NotReady::Loading { retry_after_s }) = shared.get() else {
            panic!("expected Loading")
        };
        assert!((1..=3).contains(&retry_after_s), "{retry_after_s}");
        let r = NotReady::Loading { retry_after_s }.into_result();
        assert_eq!(r.is_error, Some(true));
        let body = r.structured_content.unwrap();
        assert_eq!(body["error"], "initializing");
        assert_eq!(body["retry_after_seconds"], retry_after_s);
        assert!(body["message"].as_str().unwrap().contains("retry after"));
        // A wait that times out is still Loading.
        assert!(matches!(
            shared.wait(Duration::from_millis(10)),
            Err(NotReady::Loading { .. })
        ));
    }

    #[test]
    fn waiters_wake_when_loading_ends() {
        let shared = SharedEmbedder::with(State::Loading {
            since: Instant::now(),
        });
        let waiter = {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || shared.wait(Duration::from_secs(30)).map(|e| e.dims()))
        };
        std::thread::sleep(Duration::from_millis(20));
        shared.finish(Ok(Arc::new(FakeEmbedder::new(16))));
        assert_eq!(waiter.join().unwrap(), Ok(16));
        assert_eq!(shared.get().map(|e| e.dims()), Ok(16));
    }

    #[test]
    fn a_lazy_model_loads_only_when_a_caller_needs_it() {
        let dir = tempfile::tempdir().unwrap();
        let shared = SharedEmbedder::lazy(Ok(dir.path().to_path_buf()));
        // Reporting the state and asking whether it is loaded start nothing.
        assert_eq!(shared.status().state, "not_loaded");
        assert!(shared.loaded().is_none());
        assert_eq!(shared.status().state, "not_loaded");
        // The first caller that needs it starts the load (here: an empty cache, so it fails
        // with the fix).
        let err = shared
            .wait(Duration::from_secs(60))
            .map(|_| ())
            .unwrap_err();
        assert!(
            matches!(&err, NotReady::Unavailable { message } if message.contains("code-intel model fetch")),
            "{err:?}"
        );
        assert_eq!(shared.status().state, "unavailable");
    }

    #[test]
    fn a_missing_model_is_unavailable_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let shared = SharedEmbedder::lazy(Ok(dir.path().to_path_buf()));
        let err = shared
            .wait(Duration::from_secs(60))
            .map(|_| ())
            .unwrap_err();
        let NotReady::Unavailable { message } = &err else {
            panic!("{err:?}")
        };
        assert!(message.contains("code-intel model fetch"), "{message}");
        let body = err.into_result().structured_content.unwrap();
        assert_eq!(body["error"], "model_unavailable");

        let shared = SharedEmbedder::lazy(Err(anyhow::anyhow!("HOME is not set")));
        assert_eq!(
            shared.get().map(|_| ()),
            Err(NotReady::Unavailable {
                message: "HOME is not set".into()
            })
        );
    }
}
