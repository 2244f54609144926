//! The map as its tools curate it — the use cases both adapters (the MCP server and the Node
//! binding) serve: listing the entries with their staleness (`list_agreements`), adding a pair by
//! hand (`add_agreement`, docs/DESIGN.md#agreements) and the session record of a `search_map`
//! call.

use std::path::Path;

use serde::Serialize;

use super::{MapSearchResult, is_stale};
use crate::index::CodeIndex;
use code_intel_session::learned::{
    self, DEFAULT_EMBEDDING_MODEL, Expiry, LearnError, LearnReport, MapItem, NewPair, ReadError,
    SessionInfo,
};
use code_intel_session::session::{SessionState, ToolCallRecord};
use code_intel_session::vocab::Phase;
use code_intel_session::vocab::Slot;

/// One entry of [`list`].
#[derive(Debug, Clone, Serialize)]
pub struct ListedItem {
    /// The learned pair or agreement.
    #[serde(flatten)]
    pub item: MapItem,
    /// Its symbol is not defined in the code index (`None`: not checked, no index yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<bool>,
}

/// The map's entries as `list_agreements` shows them.
#[derive(Debug, Clone, Serialize)]
pub struct MapListing {
    /// Learned pairs (with their agreement files), then agreements restating no pair.
    pub items: Vec<ListedItem>,
    /// Entries listed.
    pub total: usize,
    /// Stale entries left out (`include_stale` lists them).
    pub hidden_stale: usize,
    /// Expired entries left out.
    pub hidden_expired: usize,
    /// Whether symbols were checked against the code index.
    pub stale_checked: bool,
}

/// The map of `state_dir` (`learned_pairs.json` and `agreements/`), each entry checked against
/// `index` when given (an entry without a symbol is never stale). Without `include_stale`, stale
/// and expired entries are counted, not listed.
///
/// # Errors
/// [`ReadError`] when a map file cannot be read or parsed.
pub fn list(
    state_dir: &Path,
    expiry: &Expiry,
    index: Option<&CodeIndex>,
    include_stale: bool,
) -> Result<MapListing, ReadError> {
    let (mut items, mut hidden_stale, mut hidden_expired) = (Vec::new(), 0, 0);
    for item in learned::read_map(state_dir, expiry)? {
        let stale = match (index, item.symbol.as_deref()) {
            (Some(ix), Some(s)) => Some(is_stale(ix, s)),
            (Some(_), None) => Some(false),
            _ => None,
        };
        if !include_stale && item.expired {
            hidden_expired += 1;
        } else if !include_stale && stale == Some(true) {
            hidden_stale += 1;
        } else {
            items.push(ListedItem { item, stale });
        }
    }
    Ok(MapListing {
        total: items.len(),
        items,
        hidden_stale,
        hidden_expired,
        stale_checked: index.is_some(),
    })
}

/// A pair added by hand: `nl_term` means `symbol`, shown by `code_evidence`.
#[derive(Debug, Clone, Default)]
pub struct AgreementInput {
    /// The natural-language term.
    pub nl_term: String,
    /// The symbol it means.
    pub symbol: String,
    /// Why: the code that shows it.
    pub code_evidence: String,
    /// Files that go with it.
    pub related_files: Vec<String>,
}

/// What [`add_agreement`] did.
#[derive(Debug, Clone, Serialize)]
pub struct AddedAgreement {
    /// Pairs added or updated.
    pub learned: LearnReport,
    /// The agreement file written for the pair (repository-relative).
    pub agreement_file: Option<String>,
    /// E.g. the symbol is not defined in the code index (the entry is stale until it is).
    pub warnings: Vec<String>,
}

/// Why [`add_agreement`] wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum AgreementError {
    /// A required field is empty (after trimming).
    #[error("{field} must not be empty")]
    Empty {
        /// `nl_term`, `symbol` or `code_evidence`.
        field: &'static str,
    },
    /// Learning refused (an unreadable `learned_pairs.json` is left untouched) or failed.
    #[error(transparent)]
    Learn(#[from] LearnError),
}

/// Adds `input` to the map of `state_dir` (a learned pair and its agreement file), with the
/// intent and QueryFrame of `session` when given, and warns when `index` does not define the
/// symbol.
///
/// # Errors
/// [`AgreementError::Empty`] for an empty field; [`AgreementError::Learn`] as [`learned::learn`].
pub fn add_agreement(
    state_dir: &Path,
    input: &AgreementInput,
    session: Option<&SessionState>,
    index: Option<&CodeIndex>,
    expiry: &Expiry,
) -> Result<AddedAgreement, AgreementError> {
    for (field, value) in [
        ("nl_term", &input.nl_term),
        ("symbol", &input.symbol),
        ("code_evidence", &input.code_evidence),
    ] {
        if value.trim().is_empty() {
            return Err(AgreementError::Empty { field });
        }
    }
    let info = session.map(|s| SessionInfo {
        intent: s.intent.name().to_string(),
        query_frame: Slot::ALL
            .iter()
            .filter_map(|slot| {
                s.query_frame
                    .slots
                    .get(slot)
                    .map(|v| (slot.name().to_string(), v.value.clone()))
            })
            .collect(),
    });
    let pair = NewPair {
        nl_term: input.nl_term.trim().to_string(),
        symbol: input.symbol.trim().to_string(),
        similarity: None,
        code_evidence: Some(input.code_evidence.trim().to_string()),
        session_id: session.map(|s| s.session_id.to_string()),
        related_files: input.related_files.clone(),
        session: info,
    };
    let learned = learned::learn(
        state_dir,
        std::slice::from_ref(&pair),
        expiry,
        Some(DEFAULT_EMBEDDING_MODEL),
    )?;
    let mut warnings = Vec::new();
    if index.is_some_and(|ix| is_stale(ix, &pair.symbol)) {
        warnings.push(format!(
            "{} is not defined in the code index: the entry is stale and will not be offered as a fact until the symbol exists",
            pair.symbol
        ));
    }
    let agreement_file = learned
        .added
        .iter()
        .chain(&learned.updated)
        .find_map(|r| r.agreement_file.clone());
    Ok(AddedAgreement {
        learned,
        agreement_file,
        warnings,
    })
}

/// The session record of a `search_map` call for `query` with `n` results: the strong hits'
/// symbols in the summary.
pub fn search_map_record(query: &str, n: usize, result: &MapSearchResult) -> ToolCallRecord {
    let strong: Vec<&str> = result
        .hits
        .iter()
        .filter(|h| h.strong)
        .filter_map(|h| h.entry.item.symbol.as_deref())
        .collect();
    ToolCallRecord {
        tool: "search_map".into(),
        params: serde_json::json!({ "query": query, "n_results": n }),
        files: Vec::new(),
        result_summary: format!(
            "search_map: {} hits, strong: {}",
            result.hits.len(),
            if strong.is_empty() {
                "-".to_string()
            } else {
                strong.join(", ")
            }
        ),
        phase: Phase::Exploration,
        timestamp: Default::default(),
    }
}
