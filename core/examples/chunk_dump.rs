//! Temporary: dumps chunk summaries of files.
#![allow(clippy::print_stdout, missing_docs)]
use code_intel_core::index::chunk::{ChunkOptions, chunk_source};
fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap();
        match chunk_source(&path, &bytes, &ChunkOptions::default()) {
            Ok(chunks) => {
                for c in chunks {
                    println!("{:?}\t{}-{}\t{}\t{}\t{}\t{}", c.kind, c.start_line, c.end_line, c.qualified_name, c.content.len(), serde_json::Value::Object(c.meta), c.signature);
                }
            }
            Err(e) => println!("{path}: skipped {e}"),
        }
    }
}
