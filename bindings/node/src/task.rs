//! The one way this addon runs core code off the JavaScript thread: a [`Job`] is an
//! [`napi::Task`] whose `compute` runs on libuv's thread pool (`UV_THREADPOOL_SIZE` threads,
//! 4 by default) and whose result or [`Failure`] is turned into a JavaScript value or `Error` back on
//! the JavaScript thread.

use napi::bindgen_prelude::{AsyncTask, ToNapiValue, TypeName, ValueType};
use napi::{Env, Task, sys};
use serde::Serialize;

use crate::error::{Failure, guarded};

type Work<R> = Box<dyn FnOnce() -> Result<R, Failure> + Send>;

/// A unit of blocking work for libuv's pool.
pub struct Job<R: Send + 'static> {
    work: Option<Work<R>>,
}

impl<R> Job<R>
where
    R: Send + ToNapiValue + TypeName + 'static,
{
    /// A job running `f` (panics become `INTERNAL` errors).
    pub fn new(f: impl FnOnce() -> Result<R, Failure> + Send + 'static) -> AsyncTask<Self> {
        AsyncTask::new(Self {
            work: Some(Box::new(f)),
        })
    }
}

/// A JSON result on its way to JavaScript: `serde_json::Value` converts to a JavaScript value
/// (napi's `serde-json` feature) but names no TypeScript type, which a task's value must.
pub struct Json(pub serde_json::Value);

impl TypeName for Json {
    fn type_name() -> &'static str {
        "unknown"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ToNapiValue for Json {
    /// # Safety
    /// As `serde_json::Value`'s conversion, to which this delegates with the same `env`.
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        // SAFETY: same contract as the wrapped type's implementation; `env` is passed through.
        unsafe { serde_json::Value::to_napi_value(env, val.0) }
    }
}

/// A job whose result is serialised to a plain JavaScript object (the same JSON the MCP tools
/// return, snake_case keys).
pub fn json_job<T: Serialize>(
    f: impl FnOnce() -> Result<T, Failure> + Send + 'static,
) -> AsyncTask<Job<Json>> {
    Job::new(move || {
        let value = f()?;
        serde_json::to_value(value)
            .map(Json)
            .map_err(|e| Failure::internal(format!("cannot serialise the result: {e}")))
    })
}

impl<R> Task for Job<R>
where
    R: Send + ToNapiValue + TypeName + 'static,
{
    type Output = Result<R, Failure>;
    type JsValue = R;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(match self.work.take() {
            Some(f) => guarded(f),
            None => Err(Failure::internal("the job ran twice")),
        })
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<R> {
        output.map_err(|f| f.into_js(&env))
    }
}
