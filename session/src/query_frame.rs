//! QueryFrame: the user's request structured into four quoted slots, and the quote check that
//! keeps the model from inventing them (docs/DESIGN.md#query-frame, docs/DESIGN.md#quotes).
//!
//! A slot is accepted only if its `quote` occurs in the raw request after normalisation
//! ([`normalize_for_quote`]: Unicode NFKC, lower-casing, whitespace collapsed), so full-width and
//! half-width Japanese input, different spacing and letter case never fail spuriously. A quote
//! that is not in the request can still pass through a [`QuoteChecker`], the seam for the
//! embedding check of the semantic layer; the default checker accepts nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use crate::vocab::{Slot, SlotSource};
use crate::vocab::{Tier, Timestamp};

/// How a quote was matched against the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuoteMatch {
    /// Found verbatim.
    Exact,
    /// Found after NFKC, case folding and whitespace normalisation.
    Normalized,
    /// Not found, but accepted by the [`QuoteChecker`] as semantically consistent.
    Semantic,
}

/// One filled slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlotValue {
    /// The model's reading of the slot.
    pub value: String,
    /// The words of the request it rests on.
    pub quote: String,
    /// FACT or HYPOTHESIS.
    pub source: SlotSource,
    /// How the quote was validated.
    pub matched: QuoteMatch,
}

/// The exploration-tool call that grounds a slot.
// docs/DESIGN.md#slot-evidence (kept out of the doc comment, which is the tool's schema text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlotEvidence {
    /// Tool called in this session (find_definitions, search_text, ...).
    pub tool: String,
    /// Its parameters.
    #[serde(default)]
    pub params: serde_json::Value,
    /// What it showed.
    pub result_summary: String,
    /// RFC 3339 timestamp, filled in when the evidence is recorded (whatever was submitted).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub timestamp: String,
}

/// What a confirmed symbol carries in the session's `mapped_symbols` (read by the learned map).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolConfirmation {
    /// The model's evidence in the code.
    pub code_evidence: String,
    /// The tier it was confirmed with (FACT or FACT_HIGH_RISK).
    pub tier: Tier,
    /// Raw cosine.
    pub similarity: f32,
    /// Calibrated z-score.
    pub calibrated: f32,
    /// RFC 3339.
    pub confirmed_at: Timestamp,
}

/// A natural-language term mapped to a code symbol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MappedSymbol {
    /// The symbol (`LoginService`, `App\Http\Controllers\UserController::store`).
    pub symbol: String,
    /// FACT or HYPOTHESIS.
    pub source: SlotSource,
    /// The request term it stands for, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nl_term: Option<String>,
    /// The evidence and calibrated score it was confirmed with (`confirm_symbol_relevance`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<SymbolConfirmation>,
}

/// The structured request (docs/DESIGN.md#query-frame).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryFrame {
    /// The request as the user wrote it.
    pub raw_query: String,
    /// Accepted slots.
    #[serde(default)]
    pub slots: BTreeMap<Slot, SlotValue>,
    /// Symbols the exploration mapped the request to.
    #[serde(default)]
    pub mapped_symbols: Vec<MappedSymbol>,
    /// Evidence per slot.
    #[serde(default)]
    pub slot_evidence: BTreeMap<Slot, SlotEvidence>,
}

/// A [`QueryFrame`] as `get_session_status` shows it: everything but the request itself, which
/// the status carries once as `query`: a response never echoes an input twice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameView {
    /// Accepted slots.
    #[serde(default)]
    pub slots: BTreeMap<Slot, SlotValue>,
    /// Symbols the exploration mapped the request to.
    #[serde(default)]
    pub mapped_symbols: Vec<MappedSymbol>,
    /// Evidence per slot.
    #[serde(default)]
    pub slot_evidence: BTreeMap<Slot, SlotEvidence>,
}

impl From<&QueryFrame> for FrameView {
    fn from(f: &QueryFrame) -> Self {
        Self {
            slots: f.slots.clone(),
            mapped_symbols: f.mapped_symbols.clone(),
            slot_evidence: f.slot_evidence.clone(),
        }
    }
}

impl QueryFrame {
    /// An empty frame for `raw_query`.
    pub fn new(raw_query: impl Into<String>) -> Self {
        Self {
            raw_query: raw_query.into(),
            slots: BTreeMap::new(),
            mapped_symbols: Vec::new(),
            slot_evidence: BTreeMap::new(),
        }
    }

    /// Slots not filled, in canonical order.
    pub fn missing_slots(&self) -> Vec<Slot> {
        Slot::ALL
            .into_iter()
            .filter(|s| !self.slots.contains_key(s))
            .collect()
    }

    /// Slots or mapped symbols still HYPOTHESIS, as human-readable items.
    pub fn hypotheses(&self) -> Vec<String> {
        let slots = self
            .slots
            .iter()
            .filter(|(_, v)| v.source == SlotSource::Hypothesis)
            .map(|(s, _)| format!("slot {}", s.name()));
        let syms = self
            .mapped_symbols
            .iter()
            .filter(|m| m.source == SlotSource::Hypothesis)
            .map(|m| format!("symbol {}", m.symbol));
        slots.chain(syms).collect()
    }
}

/// A slot as the model fills it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SlotInput {
    /// Your reading of the slot.
    pub value: String,
    /// Words copied verbatim from the request that support the value.
    pub quote: String,
}

/// `set_query_frame` input: any subset of the slots. Field docs are the tool's schema
/// descriptions (feature `schema`), written for the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct QueryFrameInput {
    /// What the request is about (feature, screen, component).
    pub target_feature: Option<SlotInput>,
    /// When the problem occurs.
    pub trigger_condition: Option<SlotInput>,
    /// What goes wrong.
    pub observed_issue: Option<SlotInput>,
    /// What should be done.
    pub desired_action: Option<SlotInput>,
}

impl QueryFrameInput {
    /// The submitted slots in canonical order.
    pub fn slots(&self) -> Vec<(Slot, &SlotInput)> {
        [
            (Slot::TargetFeature, &self.target_feature),
            (Slot::TriggerCondition, &self.trigger_condition),
            (Slot::ObservedIssue, &self.observed_issue),
            (Slot::DesiredAction, &self.desired_action),
        ]
        .into_iter()
        .filter_map(|(s, v)| v.as_ref().map(|v| (s, v)))
        .collect()
    }
}

/// One rejected slot, an item of `validation_errors` (docs/DESIGN.md#slots).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotValidationError {
    /// The slot.
    pub slot: Slot,
    /// Why (`quote not found in query`, `empty value`).
    pub error: String,
}

/// The seam for accepting a quote that is not literally in the request (the semantic layer plugs
/// an embedding check in here).
pub trait QuoteChecker {
    /// Whether `value`, quoted as `quote`, is semantically consistent with `query`.
    fn semantically_consistent(&self, value: &str, quote: &str, query: &str) -> bool;
}

/// The checker used without an embedding model: accepts nothing beyond the literal check.
#[derive(Debug, Clone, Copy, Default)]
pub struct LiteralOnly;

impl QuoteChecker for LiteralOnly {
    fn semantically_consistent(&self, _value: &str, _quote: &str, _query: &str) -> bool {
        false
    }
}

/// Normalises text for quote comparison: Unicode NFKC (full-width ASCII → ASCII, half-width
/// katakana → full-width, ideographic space → space), lower-casing (affects cased scripts only),
/// every run of whitespace collapsed to one space, trimmed.
pub fn normalize_for_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.nfkc().flat_map(char::to_lowercase) {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Checks a quote against the request: [`QuoteMatch::Exact`], [`QuoteMatch::Normalized`] (also
/// tried with all whitespace removed, since Japanese has no spaces and a model may add some), or
/// `None`.
pub fn match_quote(quote: &str, query: &str) -> Option<QuoteMatch> {
    if quote.trim().is_empty() {
        return None;
    }
    if query.contains(quote) {
        return Some(QuoteMatch::Exact);
    }
    let (q, r) = (normalize_for_quote(quote), normalize_for_quote(query));
    if r.contains(&q) {
        return Some(QuoteMatch::Normalized);
    }
    let squash = |s: &str| s.chars().filter(|c| *c != ' ').collect::<String>();
    squash(&r)
        .contains(&squash(&q))
        .then_some(QuoteMatch::Normalized)
}

/// Validates one submitted slot against the request.
///
/// # Errors
/// A [`SlotValidationError`] (`empty value`, `quote not found in query`) when the slot is rejected.
pub fn validate_slot(
    slot: Slot,
    input: &SlotInput,
    query: &str,
    checker: &dyn QuoteChecker,
) -> Result<SlotValue, SlotValidationError> {
    if input.value.trim().is_empty() {
        return Err(SlotValidationError {
            slot,
            error: "empty value".into(),
        });
    }
    let matched = match match_quote(&input.quote, query) {
        Some(m) => m,
        None if checker.semantically_consistent(&input.value, &input.quote, query) => {
            QuoteMatch::Semantic
        }
        None => {
            return Err(SlotValidationError {
                slot,
                error: "quote not found in query".into(),
            });
        }
    };
    Ok(SlotValue {
        value: input.value.trim().into(),
        quote: input.quote.clone(),
        source: SlotSource::Fact,
        matched,
    })
}

/// The prompt that asks the model to extract the slots (docs/DESIGN.md#extraction-prompt).
pub fn extraction_prompt(query: &str) -> String {
    format!(
        "Extract these slots from the request below, each as {{\"value\": your reading, \"quote\": words copied \
         verbatim from the request}}. Omit a slot the request does not state; never invent a quote.\n\
         - target_feature: the feature or component concerned\n\
         - trigger_condition: when/under which input the problem occurs\n\
         - observed_issue: what goes wrong now\n\
         - desired_action: what should be done\n\
         Then call set_query_frame with them.\n\nRequest: {query}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn si(v: &str, q: &str) -> SlotInput {
        SlotInput {
            value: v.into(),
            quote: q.into(),
        }
    }

    #[test]
    fn quotes_match_across_width_case_and_spacing() {
        let q = "ログイン機能でパスワードが空のとき、エラーが出ない。Fix the LoginService ASAP";
        assert_eq!(
            match_quote("パスワードが空のとき", q),
            Some(QuoteMatch::Exact)
        );
        // Half-width katakana and full-width Latin in the quote.
        assert_eq!(match_quote("ﾛｸﾞｲﾝ機能", q), Some(QuoteMatch::Normalized));
        assert_eq!(
            match_quote("ＬｏｇｉｎＳｅｒｖｉｃｅ", q),
            Some(QuoteMatch::Normalized)
        );
        assert_eq!(
            match_quote("fix  the\nloginservice", q),
            Some(QuoteMatch::Normalized)
        );
        assert_eq!(
            match_quote("ログイン 機能", q),
            Some(QuoteMatch::Normalized)
        );
        assert_eq!(match_quote("ユーザー登録", q), None);
        assert_eq!(match_quote("   ", q), None);
    }

    #[test]
    fn rejected_slots_carry_the_seed_error_text() {
        let err = validate_slot(
            Slot::ObservedIssue,
            &si("crash", "it crashes"),
            "login is slow",
            &LiteralOnly,
        )
        .unwrap_err();
        assert_eq!(
            err,
            SlotValidationError {
                slot: Slot::ObservedIssue,
                error: "quote not found in query".into()
            }
        );
        let err = validate_slot(
            Slot::TargetFeature,
            &si(" ", "login"),
            "login is slow",
            &LiteralOnly,
        )
        .unwrap_err();
        assert_eq!(err.error, "empty value");
    }

    #[test]
    fn checker_seam_accepts_semantic_matches() {
        struct Yes;
        impl QuoteChecker for Yes {
            fn semantically_consistent(&self, _: &str, _: &str, _: &str) -> bool {
                true
            }
        }
        let v = validate_slot(
            Slot::TargetFeature,
            &si("auth", "sign-in"),
            "login is slow",
            &Yes,
        )
        .unwrap();
        assert_eq!(v.matched, QuoteMatch::Semantic);
    }

    proptest! {
        #[test]
        fn any_substring_of_the_request_is_accepted(query in "\\PC{0,40}", a in 0usize..40, len in 1usize..20) {
            let chars: Vec<char> = query.chars().collect();
            prop_assume!(a < chars.len());
            let quote: String = chars[a..(a + len).min(chars.len())].iter().collect();
            prop_assume!(!quote.trim().is_empty());
            prop_assert!(match_quote(&quote, &query).is_some());
        }

        #[test]
        fn normalisation_is_idempotent(s in "\\PC{0,40}") {
            let n = normalize_for_quote(&s);
            prop_assert_eq!(normalize_for_quote(&n), n);
        }
    }
}
