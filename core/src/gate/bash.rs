//! TEMPORARY placeholder with the agreed API; the real analyser replaces this file.
//! Until then every command counts as a write to an unknown target (fail closed).

use serde::{Deserialize, Serialize};

/// Analysis of one Bash command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BashAnalysis {
    /// Writes.
    pub writes: Vec<BashWrite>,
    /// Reads.
    pub reads: Vec<BashTarget>,
}

/// One write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BashWrite {
    /// Target.
    pub target: BashTarget,
    /// How.
    pub via: String,
}

/// A target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum BashTarget {
    /// A literal path.
    Path(String),
    /// Anything under a directory.
    Tree(String),
    /// Unknown statically.
    Dynamic(String),
}

/// Placeholder: every command is a write to an unknown target.
pub fn analyze(command: &str) -> BashAnalysis {
    BashAnalysis { writes: vec![BashWrite { target: BashTarget::Dynamic(command.into()), via: "unknown".into() }], reads: vec![] }
}
