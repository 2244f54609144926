//! The vocabulary every layer above shares: what a request wants ([`Intent`]), where a session is
//! ([`Phase`]), how risky it is ([`RiskLevel`]), the QueryFrame's slots ([`Slot`], [`SlotSource`]),
//! relevance verdicts ([`Tier`]), how a session ended ([`Outcome`]), code-intel's MCP tools
//! ([`Tool`]), the ids that name session and binding files ([`SessionId`], [`ClaudeSessionId`]),
//! and time: the one clock ([`now`]) and the [`Timestamp`] records carry (its text as written,
//! its instant parsed once).
//!
//! These are plain values with their wire names; this module depends on nothing else in the crate,
//! so every module may use it without creating a dependency cycle (ARCHITECTURE.md "Layers").
//! An id type holds only a valid id (checked when built or deserialised), so no path is ever made
//! from an unchecked string.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What the user wants done. Parsed case-insensitively; `ADD` → IMPLEMENT, `DELETE` → MODIFY,
/// `EXPLORE` → INVESTIGATE (the older names, docs/DESIGN.md#intents).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intent {
    /// Build something new.
    Implement,
    /// Change existing behaviour (fix, refactor, delete).
    Modify,
    /// Understand code; never writes.
    Investigate,
    /// Answer a question; never writes.
    Question,
}

impl Intent {
    /// The canonical upper-case name.
    pub fn name(self) -> &'static str {
        match self {
            Intent::Implement => "IMPLEMENT",
            Intent::Modify => "MODIFY",
            Intent::Investigate => "INVESTIGATE",
            Intent::Question => "QUESTION",
        }
    }

    /// Whether sessions of this intent may ever write.
    pub fn may_write(self) -> bool {
        matches!(self, Intent::Implement | Intent::Modify)
    }
}

/// An intent name that is none of the accepted ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown intent '{0}': use IMPLEMENT, MODIFY, INVESTIGATE or QUESTION")]
pub struct UnknownIntent(pub String);

impl FromStr for Intent {
    type Err = UnknownIntent;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_uppercase().as_str() {
            "IMPLEMENT" | "ADD" => Ok(Intent::Implement),
            "MODIFY" | "DELETE" => Ok(Intent::Modify),
            "INVESTIGATE" | "EXPLORE" => Ok(Intent::Investigate),
            "QUESTION" => Ok(Intent::Question),
            _ => Err(UnknownIntent(s.into())),
        }
    }
}

impl fmt::Display for Intent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Intent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Intent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Session phase. Serialised upper-case (`"EXPLORATION"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Phase {
    /// Code exploration with the exploration tools.
    Exploration,
    /// Semantic search to form hypotheses when exploration fell short.
    Semantic,
    /// Verifying hypotheses with the exploration tools.
    Verification,
    /// Edits allowed (for IMPLEMENT/MODIFY, on explored files).
    Ready,
}

impl Phase {
    /// The upper-case name.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Exploration => "EXPLORATION",
            Phase::Semantic => "SEMANTIC",
            Phase::Verification => "VERIFICATION",
            Phase::Ready => "READY",
        }
    }

    /// What the model should do next in this phase.
    pub fn next_step(self) -> &'static str {
        match self {
            Phase::Exploration => {
                "explore with find_definitions, find_references and search_text (see the plan), then call submit_understanding"
            }
            Phase::Semantic => {
                "form hypotheses about what exploration could not find, then call submit_semantic(hypotheses, semantic_reason)"
            }
            Phase::Verification => {
                "verify each hypothesis with find_definitions/find_references/search_text, then call submit_verification(results)"
            }
            Phase::Ready => {
                "call check_write_target(path) before editing; edit only explored files"
            }
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// code-intel's own MCP tools, by the name the server registers (Claude Code shows them with an
/// `mcp__code-intel__` or plugin prefix). Serialised as that name (`"find_definitions"`). The
/// phase/tool matrix, the router's plan, the requirements and the server's output bounds name
/// tools through this type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    /// Starts a session.
    StartSession,
    /// Sets the QueryFrame.
    SetQueryFrame,
    /// The session's phase and what it lacks.
    GetSessionStatus,
    /// EXPLORATION → READY (or SEMANTIC).
    SubmitUnderstanding,
    /// SEMANTIC → VERIFICATION.
    SubmitSemantic,
    /// VERIFICATION → READY.
    SubmitVerification,
    /// Whether a file may be written (and approving a new one).
    CheckWriteTarget,
    /// READY: explored files added.
    AddExploredFiles,
    /// Back to EXPLORATION.
    RevertToExploration,
    /// Exploration: text and regex search.
    SearchText,
    /// Exploration: definitions.
    FindDefinitions,
    /// Exploration: references.
    FindReferences,
    /// Exploration: a file's symbol tree.
    AnalyzeStructure,
    /// Exploration: the function at a line.
    GetFunctionAtLine,
    /// The map and the forest, ranked.
    SemanticSearch,
    /// NL term ↔ symbol verdicts recorded on the session.
    ConfirmSymbolRelevance,
    /// NL term ↔ symbol verdicts, no session.
    ValidateSymbolRelevance,
    /// Ends a session with its outcome.
    RecordOutcome,
    /// Adds an agreement to the map.
    AddAgreement,
    /// Lists the map's agreements.
    ListAgreements,
    /// Searches the map.
    SearchMap,
    /// One session's analysis.
    GetSessionAnalysis,
    /// Insights across sessions.
    GetImprovementInsights,
}

impl Tool {
    /// Every tool, in the order above.
    pub const ALL: [Tool; 23] = [
        Tool::StartSession,
        Tool::SetQueryFrame,
        Tool::GetSessionStatus,
        Tool::SubmitUnderstanding,
        Tool::SubmitSemantic,
        Tool::SubmitVerification,
        Tool::CheckWriteTarget,
        Tool::AddExploredFiles,
        Tool::RevertToExploration,
        Tool::SearchText,
        Tool::FindDefinitions,
        Tool::FindReferences,
        Tool::AnalyzeStructure,
        Tool::GetFunctionAtLine,
        Tool::SemanticSearch,
        Tool::ConfirmSymbolRelevance,
        Tool::ValidateSymbolRelevance,
        Tool::RecordOutcome,
        Tool::AddAgreement,
        Tool::ListAgreements,
        Tool::SearchMap,
        Tool::GetSessionAnalysis,
        Tool::GetImprovementInsights,
    ];

    /// The exploration ("forest") tools: EXPLORATION, VERIFICATION and READY allow them, and
    /// they bound their own output (`max_output_chars`).
    pub const EXPLORATION: [Tool; 5] = [
        Tool::SearchText,
        Tool::FindDefinitions,
        Tool::FindReferences,
        Tool::AnalyzeStructure,
        Tool::GetFunctionAtLine,
    ];

    /// The registered name (`find_definitions`).
    pub fn name(self) -> &'static str {
        match self {
            Tool::StartSession => "start_session",
            Tool::SetQueryFrame => "set_query_frame",
            Tool::GetSessionStatus => "get_session_status",
            Tool::SubmitUnderstanding => "submit_understanding",
            Tool::SubmitSemantic => "submit_semantic",
            Tool::SubmitVerification => "submit_verification",
            Tool::CheckWriteTarget => "check_write_target",
            Tool::AddExploredFiles => "add_explored_files",
            Tool::RevertToExploration => "revert_to_exploration",
            Tool::SearchText => "search_text",
            Tool::FindDefinitions => "find_definitions",
            Tool::FindReferences => "find_references",
            Tool::AnalyzeStructure => "analyze_structure",
            Tool::GetFunctionAtLine => "get_function_at_line",
            Tool::SemanticSearch => "semantic_search",
            Tool::ConfirmSymbolRelevance => "confirm_symbol_relevance",
            Tool::ValidateSymbolRelevance => "validate_symbol_relevance",
            Tool::RecordOutcome => "record_outcome",
            Tool::AddAgreement => "add_agreement",
            Tool::ListAgreements => "list_agreements",
            Tool::SearchMap => "search_map",
            Tool::GetSessionAnalysis => "get_session_analysis",
            Tool::GetImprovementInsights => "get_improvement_insights",
        }
    }

    /// The tool registered as `name` (exact, without a Claude Code prefix); `None` for any other
    /// name (Claude Code's own tools, other servers').
    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether this is one of [`Tool::EXPLORATION`].
    pub fn is_exploration(self) -> bool {
        Tool::EXPLORATION.contains(&self)
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Lists of tools compare with lists of names (`plan.tools == ["search_text"]`).
impl PartialEq<&str> for Tool {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

/// Risk level (docs/DESIGN.md#risk), ordered LOW < MEDIUM < HIGH.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum RiskLevel {
    /// Little uncertainty.
    #[default]
    Low,
    /// Some slots unknown.
    Medium,
    /// Much unknown: stricter exploration requirements and slot evidence.
    High,
}

/// A QueryFrame slot, named in snake_case (`target_feature`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Slot {
    /// What the request is about ("ログイン機能", "the checkout form").
    TargetFeature,
    /// When the problem occurs ("when the password is empty").
    TriggerCondition,
    /// What goes wrong ("no error is shown").
    ObservedIssue,
    /// What should be done ("add a check").
    DesiredAction,
}

impl Slot {
    /// All slots in their canonical order.
    pub const ALL: [Slot; 4] = [
        Slot::TargetFeature,
        Slot::TriggerCondition,
        Slot::ObservedIssue,
        Slot::DesiredAction,
    ];

    /// The wire name (`target_feature`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Slot::TargetFeature => "target_feature",
            Slot::TriggerCondition => "trigger_condition",
            Slot::ObservedIssue => "observed_issue",
            Slot::DesiredAction => "desired_action",
        }
    }
}

/// Where a slot value or a mapped symbol comes from (docs/DESIGN.md#fact-hypothesis).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum SlotSource {
    /// Quoted from the request or confirmed by exploration.
    Fact,
    /// Inferred in the SEMANTIC phase; must be verified before READY.
    Hypothesis,
}

/// The three relevance verdicts (docs/DESIGN.md#tiers), ordered `Rejected < FactHighRisk < Fact`
/// (so `max` is the best).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Tier {
    /// Physically rejected: treated as a hallucination; re-investigation guidance follows.
    #[serde(rename = "REJECTED")]
    Rejected,
    /// Accepted as FACT, but the session's risk is raised to HIGH (the grey zone).
    #[serde(rename = "FACT_HIGH_RISK")]
    FactHighRisk,
    /// Accepted as FACT.
    #[serde(rename = "FACT")]
    Fact,
}

impl Tier {
    /// The wire name (`FACT`, `FACT_HIGH_RISK`, `REJECTED`).
    pub fn name(self) -> &'static str {
        match self {
            Tier::Fact => "FACT",
            Tier::FactHighRisk => "FACT_HIGH_RISK",
            Tier::Rejected => "REJECTED",
        }
    }
}

/// How a session went: success / failure / partial (docs/DESIGN.md#record-outcome).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The change or answer was right.
    Success,
    /// It was wrong or abandoned.
    Failure,
    /// Part of it was right.
    Partial,
}

impl Outcome {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Failure => "failure",
            Outcome::Partial => "partial",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An outcome name that is none of `success`, `failure`, `partial`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown outcome '{0}': use success, failure or partial")]
pub struct UnknownOutcome(pub String);

impl FromStr for Outcome {
    type Err = UnknownOutcome;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "success" | "succeeded" => Ok(Outcome::Success),
            "failure" | "failed" | "fail" => Ok(Outcome::Failure),
            "partial" => Ok(Outcome::Partial),
            _ => Err(UnknownOutcome(s.to_string())),
        }
    }
}

/// A moment, kept as the RFC 3339 text it was written or read as (`2026-11-21T06:30:12.345Z`,
/// jiff's [`jiff::Timestamp`] display form when this code writes it) together with the instant
/// that text parses to, parsed once.
///
/// Reading is lenient, as for the plain strings this type replaces: any JSON string is accepted,
/// an empty or unparsable one included ([`Timestamp::instant`] is then `None`, so it compares with
/// nothing), and it is written back byte for byte. Equality is that of the text.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub struct Timestamp {
    text: String,
    #[serde(skip)]
    instant: Option<jiff::Timestamp>,
}

impl Timestamp {
    /// The current time (the one clock of the crate).
    pub fn now() -> Self {
        let instant = jiff::Timestamp::now();
        Self {
            text: instant.to_string(),
            instant: Some(instant),
        }
    }

    /// The text as written or read.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The instant, when the text is an RFC 3339 timestamp (with an offset).
    pub fn instant(&self) -> Option<jiff::Timestamp> {
        self.instant
    }

    /// Whether the text is empty (a record whose time is filled in when it is recorded).
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl From<String> for Timestamp {
    fn from(text: String) -> Self {
        let instant = text.parse().ok();
        Self { text, instant }
    }
}

impl From<&str> for Timestamp {
    fn from(text: &str) -> Self {
        Self::from(text.to_string())
    }
}

impl From<Timestamp> for String {
    fn from(t: Timestamp) -> String {
        t.text
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.text, f)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.text)
    }
}

/// The current time ([`Timestamp::now`]).
pub fn now() -> Timestamp {
    Timestamp::now()
}

/// Longest session id, in bytes.
pub const MAX_SESSION_ID_BYTES: usize = 128;

/// Whether `id` may name a session: 1 to [`MAX_SESSION_ID_BYTES`] bytes of `[A-Za-z0-9_-]`, so
/// that `<id>.json` is one plain file name under its directory.
fn valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_SESSION_ID_BYTES
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A string that is no valid session id ([`SessionId`], [`ClaudeSessionId`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid session id '{0}': use 1 to 128 characters of A-Z, a-z, 0-9, '_' and '-' (ids look like 20261121-063012-a1b2c3)"
)]
pub struct InvalidSessionId(pub String);

macro_rules! session_id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = InvalidSessionId;
            fn try_from(id: String) -> Result<Self, Self::Error> {
                if valid_session_id(&id) {
                    Ok(Self(id))
                } else {
                    Err(InvalidSessionId(id))
                }
            }
        }

        impl TryFrom<&str> for $name {
            type Error = InvalidSessionId;
            fn try_from(id: &str) -> Result<Self, Self::Error> {
                Self::try_from(id.to_string())
            }
        }

        impl FromStr for $name {
            type Err = InvalidSessionId;
            fn from_str(id: &str) -> Result<Self, Self::Err> {
                Self::try_from(id)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // `pad`, as for a plain string: widths in format strings keep working.
                f.pad(&self.0)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }
    };
}

session_id_type!(
    /// A code-intel session's id (`20261121-063012-a1b2c3`): 1 to [`MAX_SESSION_ID_BYTES`]
    /// bytes of `[A-Za-z0-9_-]`, checked when built or deserialised, so a path made from it
    /// (`sessions/<id>.json`) is one plain file name. Serialised as the bare string.
    SessionId
);

session_id_type!(
    /// Claude Code's id of its own session (the hooks' and the MCP server's `session_id`), under
    /// the same rule as [`SessionId`]: it names the binding file `bindings/<id>.json`. Serialised
    /// as the bare string.
    ClaudeSessionId
);

impl SessionId {
    /// A fresh id: local time to the second and six random hex digits (`20261121-063012-a1b2c3`).
    pub fn generate() -> Self {
        let stamp = jiff::Zoned::now().strftime("%Y%m%d-%H%M%S").to_string();
        let rand = uuid::Uuid::new_v4().simple().to_string();
        // Digits, '-' and hex digits only: always valid.
        Self(format!("{stamp}-{}", &rand[..6]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_holds_only_plain_file_names() {
        for ok in ["20261121-063012-a1b2c3", "session_20250112_143000", "A-z_9"] {
            let id: SessionId = ok.parse().unwrap();
            assert_eq!(id.as_str(), ok);
            assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{ok}\""));
            assert_eq!(
                serde_json::from_str::<SessionId>(&format!("\"{ok}\"")).unwrap(),
                id
            );
        }
        let long = "a".repeat(MAX_SESSION_ID_BYTES + 1);
        for bad in ["", "../../etc", "a/b", "a.json", "a b", "ä", long.as_str()] {
            assert_eq!(bad.parse::<SessionId>(), Err(InvalidSessionId(bad.into())));
            assert!(bad.parse::<ClaudeSessionId>().is_err());
            let json = serde_json::to_string(bad).unwrap();
            assert!(serde_json::from_str::<SessionId>(&json).is_err(), "{bad}");
        }
        assert!(
            "a".repeat(MAX_SESSION_ID_BYTES)
                .parse::<SessionId>()
                .is_ok()
        );
    }

    #[test]
    fn timestamps_keep_their_text_and_parse_it_once() {
        let now = Timestamp::now();
        assert_eq!(now.as_str(), now.instant().unwrap().to_string());
        for (text, instant) in [
            ("2026-01-01T00:00:00.5Z", Some("2026-01-01T00:00:00.5Z")),
            // Another offset is kept as written, not rewritten to UTC.
            ("2026-01-01T09:00:00+09:00", Some("2026-01-01T00:00:00Z")),
            // Read leniently, as the plain strings were: kept, and compared with nothing.
            ("", None),
            ("yesterday", None),
            ("2026-01-01T00:00:00", None),
        ] {
            let json = serde_json::to_string(text).unwrap();
            let t: Timestamp = serde_json::from_str(&json).unwrap();
            assert_eq!(t.as_str(), text);
            assert_eq!(serde_json::to_string(&t).unwrap(), json);
            assert_eq!(t.instant(), instant.map(|i| i.parse().unwrap()), "{text}");
            assert_eq!(format!("{t:>3}|{t:?}"), format!("{text:>3}|{text:?}"));
        }
        assert!(serde_json::from_str::<Timestamp>("null").is_err());
        assert!(Timestamp::default().is_empty());
    }

    #[test]
    fn generated_session_ids_are_valid() {
        let id = SessionId::generate();
        assert_eq!(id.len(), "20261121-063012-a1b2c3".len());
        assert_eq!(id.as_str().parse::<SessionId>(), Ok(id));
    }
}
