//! Minimum exploration requirements (docs/DESIGN.md#requirements: the table by intent × risk,
//! the markup relaxation) and the checks on what the model submits.

use serde::{Deserialize, Serialize};

use super::Intent;
use crate::vocab::{RiskLevel, Tool};

/// Extensions of pure markup files (docs/DESIGN.md#markup; this list, exactly). Template languages
/// coupled with logic (`.blade.php`, `.vue`, `.jsx`, `.tsx`, `.svelte`, `.twig`, ...) are not markup.
pub const MARKUP_EXTENSIONS: [&str; 10] = [
    ".html",
    ".htm",
    ".css",
    ".scss",
    ".sass",
    ".less",
    ".xml",
    ".svg",
    ".md",
    ".markdown",
];

/// Whether every file is pure markup (and there is at least one).
pub fn is_markup_context(files: &[String]) -> bool {
    !files.is_empty()
        && files.iter().all(|f| {
            let lower = f.to_ascii_lowercase();
            MARKUP_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))
        })
}

/// Minimum counts for `submit_understanding` to reach READY.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requirements {
    /// Minimum `symbols_identified`.
    pub symbols: usize,
    /// Minimum `entry_points`.
    pub entry_points: usize,
    /// Minimum `files_analyzed`.
    pub files: usize,
    /// Minimum `existing_patterns`.
    pub patterns: usize,
    /// Tools that must appear in the session's own tool-call record.
    pub tools: Vec<Tool>,
    /// Whether every filled slot among `target_feature`/`observed_issue` needs slot_evidence.
    pub slot_evidence: bool,
}

/// The requirement table by intent × risk.
///
/// IMPLEMENT/MODIFY: HIGH 5/2/4/2 symbols/entry points/files/patterns with slot evidence;
/// MEDIUM and LOW the baseline 3/1/2/1. Required tools `find_definitions` + `find_references`.
/// Markup context: 0/0/1/0 and `search_text` only; slot evidence still applies at HIGH.
/// INVESTIGATE: ≥ 1 symbol and ≥ 1 file. QUESTION: nothing. See docs/DESIGN.md#requirement-table
/// (and why LOW is not relaxed below the baseline) and docs/DESIGN.md#markup.
pub fn requirements(intent: Intent, risk: RiskLevel, markup: bool) -> Requirements {
    match intent {
        Intent::Question => Requirements {
            symbols: 0,
            entry_points: 0,
            files: 0,
            patterns: 0,
            tools: vec![],
            slot_evidence: false,
        },
        Intent::Investigate => Requirements {
            symbols: 1,
            entry_points: 0,
            files: 1,
            patterns: 0,
            tools: vec![],
            slot_evidence: false,
        },
        Intent::Implement | Intent::Modify => {
            let high = risk == RiskLevel::High;
            if markup {
                Requirements {
                    symbols: 0,
                    entry_points: 0,
                    files: 1,
                    patterns: 0,
                    tools: vec![Tool::SearchText],
                    slot_evidence: high,
                }
            } else if high {
                Requirements {
                    symbols: 5,
                    entry_points: 2,
                    files: 4,
                    patterns: 2,
                    tools: vec![Tool::FindDefinitions, Tool::FindReferences],
                    slot_evidence: true,
                }
            } else {
                Requirements {
                    symbols: 3,
                    entry_points: 1,
                    files: 2,
                    patterns: 1,
                    tools: vec![Tool::FindDefinitions, Tool::FindReferences],
                    slot_evidence: false,
                }
            }
        }
    }
}

/// Which submitted list falls short. Serialised snake_case; these are the keys of the
/// semantic-reason table (docs/DESIGN.md#semantic-reasons).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shortfall {
    /// `symbols_identified`.
    SymbolsIdentified,
    /// `entry_points`.
    EntryPoints,
    /// `existing_patterns`.
    ExistingPatterns,
    /// `files_analyzed`.
    FilesAnalyzed,
}

impl Shortfall {
    /// The wire name (`symbols_identified`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Shortfall::SymbolsIdentified => "symbols_identified",
            Shortfall::EntryPoints => "entry_points",
            Shortfall::ExistingPatterns => "existing_patterns",
            Shortfall::FilesAnalyzed => "files_analyzed",
        }
    }
}

/// A requirement `submit_understanding` found unmet (`MissingRequirement::requirement`).
/// Serialised snake_case, as session files and tool results have always spelled it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Requirement {
    /// Too few `symbols_identified`.
    SymbolsIdentified,
    /// Too few `entry_points`.
    EntryPoints,
    /// Too few `existing_patterns`.
    ExistingPatterns,
    /// Too few `files_analyzed`.
    FilesAnalyzed,
    /// A tool the plan requires was never called.
    RequiredTool,
    /// A slot lacks the evidence HIGH risk demands.
    SlotEvidence,
    /// The target feature matches none of the symbols (relevance check).
    NlSymbolMapping,
}

impl Requirement {
    /// The wire name (`symbols_identified`, `required_tool`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Requirement::SymbolsIdentified => "symbols_identified",
            Requirement::EntryPoints => "entry_points",
            Requirement::ExistingPatterns => "existing_patterns",
            Requirement::FilesAnalyzed => "files_analyzed",
            Requirement::RequiredTool => "required_tool",
            Requirement::SlotEvidence => "slot_evidence",
            Requirement::NlSymbolMapping => "nl_symbol_mapping",
        }
    }

    /// The shortfall whose semantic reasons apply when the session goes to SEMANTIC for this
    /// requirement: the four counts are their own; an unmapped target feature is a symbol
    /// shortfall (docs/DESIGN.md#semantic-reasons); tool and slot-evidence gaps keep the session in
    /// EXPLORATION and have none.
    pub fn shortfall(self) -> Option<Shortfall> {
        match self {
            Requirement::SymbolsIdentified | Requirement::NlSymbolMapping => {
                Some(Shortfall::SymbolsIdentified)
            }
            Requirement::EntryPoints => Some(Shortfall::EntryPoints),
            Requirement::ExistingPatterns => Some(Shortfall::ExistingPatterns),
            Requirement::FilesAnalyzed => Some(Shortfall::FilesAnalyzed),
            Requirement::RequiredTool | Requirement::SlotEvidence => None,
        }
    }
}

impl From<Shortfall> for Requirement {
    fn from(s: Shortfall) -> Self {
        match s {
            Shortfall::SymbolsIdentified => Requirement::SymbolsIdentified,
            Shortfall::EntryPoints => Requirement::EntryPoints,
            Shortfall::ExistingPatterns => Requirement::ExistingPatterns,
            Shortfall::FilesAnalyzed => Requirement::FilesAnalyzed,
        }
    }
}

impl std::fmt::Display for Requirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why exploration alone did not suffice (must match what submit_understanding found missing).
// docs/DESIGN.md#semantic-reasons (kept out of the doc comment, which is the tool's schema text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SemanticReason {
    /// No definition of the concept was found.
    NoDefinitionFound,
    /// No reference to the entry point was found.
    NoReferenceFound,
    /// No similar implementation to follow.
    NoSimilarImplementation,
    /// The architecture is not understood.
    ArchitectureUnknown,
    /// The relevant code is spread over many places.
    ContextFragmented,
}

impl SemanticReason {
    /// The wire name (`no_definition_found`, ...).
    pub fn name(self) -> &'static str {
        match self {
            SemanticReason::NoDefinitionFound => "no_definition_found",
            SemanticReason::NoReferenceFound => "no_reference_found",
            SemanticReason::NoSimilarImplementation => "no_similar_implementation",
            SemanticReason::ArchitectureUnknown => "architecture_unknown",
            SemanticReason::ContextFragmented => "context_fragmented",
        }
    }

    /// The reasons allowed for a shortfall (docs/DESIGN.md#semantic-reasons).
    pub fn allowed_for(shortfall: Shortfall) -> &'static [SemanticReason] {
        use SemanticReason::*;
        match shortfall {
            Shortfall::SymbolsIdentified => &[NoDefinitionFound, ArchitectureUnknown],
            Shortfall::EntryPoints => &[NoDefinitionFound, NoReferenceFound],
            Shortfall::ExistingPatterns => &[NoSimilarImplementation, ArchitectureUnknown],
            Shortfall::FilesAnalyzed => &[ContextFragmented, ArchitectureUnknown],
        }
    }
}

/// The consistency checks (docs/DESIGN.md#consistency): entry points linked to symbols, no
/// duplicates, patterns require files. Returns the error messages (empty = consistent).
pub fn consistency_errors(
    symbols: &[String],
    entry_points: &[String],
    files: &[String],
    patterns: &[String],
) -> Vec<String> {
    let mut errors = Vec::new();
    for (name, list) in [
        ("symbols_identified", symbols),
        ("entry_points", entry_points),
        ("files_analyzed", files),
        ("existing_patterns", patterns),
    ] {
        let mut seen = std::collections::HashSet::new();
        for item in list {
            if item.trim().is_empty() {
                errors.push(format!("{name} contains an empty entry"));
            } else if !seen.insert(item.trim()) {
                errors.push(format!("{name} lists '{item}' twice"));
            }
        }
    }
    for ep in entry_points {
        let linked = symbols
            .iter()
            .any(|s| !s.is_empty() && (ep.contains(s.as_str()) || s.contains(ep.as_str())));
        if !linked {
            errors.push(format!("entry point '{ep}' is not linked to any of symbols_identified (name its symbol there too)"));
        }
    }
    if !patterns.is_empty() && files.is_empty() {
        errors.push("existing_patterns given but files_analyzed is empty: name the files the patterns are in".into());
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn markup_is_exactly_the_seed_list() {
        assert!(is_markup_context(&v(&[
            "a.html",
            "b/C.CSS",
            "d.svg",
            "README.md"
        ])));
        assert!(!is_markup_context(&v(&["a.html", "v.blade.php"])));
        assert!(!is_markup_context(&v(&["App.tsx"])));
        assert!(!is_markup_context(&v(&["x.vue"])));
        assert!(!is_markup_context(&[]));
    }

    #[test]
    fn table_by_intent_and_risk() {
        let r = requirements(Intent::Modify, RiskLevel::High, false);
        assert_eq!(
            (
                r.symbols,
                r.entry_points,
                r.files,
                r.patterns,
                r.slot_evidence
            ),
            (5, 2, 4, 2, true)
        );
        let r = requirements(Intent::Implement, RiskLevel::Low, false);
        assert_eq!(
            (
                r.symbols,
                r.entry_points,
                r.files,
                r.patterns,
                r.slot_evidence
            ),
            (3, 1, 2, 1, false)
        );
        assert_eq!(r.tools, ["find_definitions", "find_references"]);
        let r = requirements(Intent::Modify, RiskLevel::Medium, true);
        assert_eq!(
            (r.symbols, r.files, r.tools.clone()),
            (0, 1, vec![Tool::SearchText])
        );
        let r = requirements(Intent::Investigate, RiskLevel::High, false);
        assert_eq!((r.symbols, r.files, r.tools.len()), (1, 1, 0));
        assert_eq!(
            requirements(Intent::Question, RiskLevel::High, false).files,
            0
        );
    }

    #[test]
    fn consistency_catches_unlinked_entry_points_duplicates_and_orphan_patterns() {
        let errs = consistency_errors(
            &v(&["LoginService", "LoginService"]),
            &v(&["AuthController::store"]),
            &[],
            &v(&["guard pattern"]),
        );
        assert_eq!(errs.len(), 3, "{errs:?}");
        assert!(
            consistency_errors(
                &v(&["LoginService", "login"]),
                &v(&["LoginService.login"]),
                &v(&["a.py"]),
                &v(&["p"])
            )
            .is_empty()
        );
    }
}
