//! The map (seed 004's 地図): what earlier sessions established — learned pairs
//! (`.code-intel/learned_pairs.json`) and agreements (`.code-intel/agreements/*.md`) — as
//! embedded entries that [`super::semantic`] searches before the forest (the code).
//!
//! Writing both files belongs to outcome recording; this module only reads them. Without either
//! file the map is empty. Entry vectors are cached by text (an [`EmbeddingCache`] under
//! `.code-intel/index/embeddings/map/`), so only new or edited entries are embedded.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::embed::{CacheError, EmbedError, Embedder, EmbeddingCache, split_identifiers};
use crate::relevance::learned::{self, LearnedPairsError};
use crate::repo_path::RepoRoot;

/// Directory of agreements inside the state directory.
pub const AGREEMENTS_DIR: &str = "agreements";
/// Characters of an agreement's body kept in its entry text.
pub const AGREEMENT_TEXT_CHARS: usize = 1000;
/// Agreements read at most (a map is a few dozen entries; this bounds a pathological directory).
pub const MAX_AGREEMENTS: usize = 1000;

/// Errors reading or embedding the map.
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    /// `learned_pairs.json` exists but is unreadable or malformed.
    #[error(transparent)]
    LearnedPairs(#[from] LearnedPairsError),
    /// The agreements directory or a file in it cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The entry cache failed.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// Embedding entries failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
}

/// Where a map entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapSource {
    /// A pair of `learned_pairs.json`.
    LearnedPair,
    /// A Markdown file of `agreements/`.
    Agreement,
}

/// One entry of the map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapEntry {
    /// Where it comes from.
    pub source: MapSource,
    /// The natural-language term (`ログイン機能`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nl_term: Option<String>,
    /// The symbol it maps to (`AuthService`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// The evidence recorded with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_evidence: Option<String>,
    /// The agreement file (relative to `.code-intel/agreements/`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agreement_file: Option<String>,
    /// The embedded text.
    #[serde(skip)]
    pub text: String,
}

/// The map's entries and their vectors.
#[derive(Debug, Default)]
pub struct MapIndex {
    entries: Vec<MapEntry>,
    vectors: Vec<Vec<f32>>,
}

/// Fields of an agreement's YAML-like front matter (`key: value` lines between `---` lines).
fn front_matter(text: &str) -> (Vec<(String, String)>, &str) {
    let Some(rest) = text.strip_prefix("---") else {
        return (Vec::new(), text);
    };
    let Some(end) = rest.find("\n---") else {
        return (Vec::new(), text);
    };
    let fields = rest[..end]
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let body = rest[end + 4..].trim_start_matches(['-', '\r', '\n']);
    (fields, body)
}

fn pair_text(nl_term: &str, symbol: &str, evidence: Option<&str>) -> String {
    let mut text = format!("{nl_term}\n{symbol} ({})", split_identifiers(symbol));
    if let Some(e) = evidence.filter(|e| !e.trim().is_empty()) {
        text.push('\n');
        text.push_str(e.trim());
    }
    text
}

fn cut(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Reads the map's entries: every learned pair, then every agreement that does not restate a
/// pair (same `nl_term` and `symbol` in its front matter; the pair then carries the file name).
///
/// # Errors
/// [`MapError::LearnedPairs`] for a malformed `learned_pairs.json`; [`MapError::Read`] when the
/// agreements directory exists but cannot be listed. Unreadable single agreement files are
/// skipped.
pub fn load_entries(root: &RepoRoot) -> Result<Vec<MapEntry>, MapError> {
    let state = root.state_dir();
    let mut entries = Vec::new();
    let mut pairs_seen = BTreeSet::new();
    if let Some(pairs) = learned::load(&state)? {
        for p in pairs.pairs {
            pairs_seen.insert((p.nl_term.clone(), p.symbol.clone()));
            entries.push(MapEntry {
                source: MapSource::LearnedPair,
                text: pair_text(&p.nl_term, &p.symbol, p.code_evidence.as_deref()),
                nl_term: Some(p.nl_term),
                symbol: Some(p.symbol),
                code_evidence: p.code_evidence,
                agreement_file: p.agreement_file,
            });
        }
    }
    let dir = state.join(AGREEMENTS_DIR);
    let listing = match std::fs::read_dir(&dir) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(entries),
        Err(source) => return Err(MapError::Read { path: dir, source }),
    };
    let mut files: Vec<PathBuf> = listing
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
        .collect();
    files.sort();
    for path in files.into_iter().take(MAX_AGREEMENTS) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let (fields, body) = front_matter(&text);
        let get = |k: &str| {
            fields
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
                .filter(|v| !v.is_empty())
        };
        let (nl_term, symbol) = (get("nl_term"), get("symbol"));
        if let (Some(t), Some(s)) = (&nl_term, &symbol)
            && pairs_seen.contains(&(t.clone(), s.clone()))
        {
            continue;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut entry_text = match (&nl_term, &symbol) {
            (Some(t), Some(s)) => pair_text(t, s, None),
            _ => String::new(),
        };
        let body = cut(body.trim(), AGREEMENT_TEXT_CHARS);
        if !body.is_empty() {
            if !entry_text.is_empty() {
                entry_text.push('\n');
            }
            entry_text.push_str(body);
        }
        if entry_text.trim().is_empty() {
            continue;
        }
        entries.push(MapEntry {
            source: MapSource::Agreement,
            nl_term,
            symbol,
            code_evidence: None,
            agreement_file: Some(name),
            text: entry_text,
        });
    }
    Ok(entries)
}

/// Cache key of an entry text: hex SHA-256 of `map-v1`, NUL, the text.
fn entry_key(text: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"map-v1\0");
    h.update(text.as_bytes());
    hex::encode(h.finalize())
}

impl MapIndex {
    /// `<root>/.code-intel/index/embeddings/map`.
    pub fn cache_dir(root: &RepoRoot) -> PathBuf {
        root.state_dir().join("index/embeddings/map")
    }

    /// Loads the map of `root` and embeds its entries with `embedder` (new or edited entries
    /// only; the rest come from the cache, which is pruned to the current entries).
    ///
    /// # Errors
    /// [`MapError`] when the files are malformed, the cache fails or embedding fails.
    pub fn load(root: &RepoRoot, embedder: &dyn Embedder) -> Result<Self, MapError> {
        let entries = load_entries(root)?;
        Self::from_entries(&Self::cache_dir(root), entries, embedder)
    }

    /// Embeds `entries` with `embedder`, through the entry cache in `cache_dir`.
    ///
    /// # Errors
    /// As [`Self::load`].
    pub fn from_entries(
        cache_dir: &Path,
        entries: Vec<MapEntry>,
        embedder: &dyn Embedder,
    ) -> Result<Self, MapError> {
        if entries.is_empty() {
            return Ok(Self::default());
        }
        let mut cache = EmbeddingCache::open(cache_dir, embedder.model_id(), embedder.dims())?;
        let keys: Vec<String> = entries.iter().map(|e| entry_key(&e.text)).collect();
        let missing: Vec<usize> = (0..entries.len())
            .filter(|&i| !cache.contains(&keys[i]))
            .collect();
        if !missing.is_empty() {
            let texts: Vec<&str> = missing.iter().map(|&i| entries[i].text.as_str()).collect();
            let vectors = embedder.embed_passages(&texts)?;
            cache.insert_many(missing.iter().map(|&i| keys[i].as_str()).zip(vectors))?;
            cache.retain(keys.iter().map(String::as_str))?;
        }
        let vectors = keys
            .iter()
            .map(|k| cache.get(k).map(<[f32]>::to_vec).unwrap_or_default())
            .collect();
        Ok(Self { entries, vectors })
    }

    /// The entries, in file order.
    pub fn entries(&self) -> &[MapEntry] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry with its cosine to `query` (a unit vector), best first.
    pub fn search(&self, query: &[f32]) -> Vec<(&MapEntry, f32)> {
        let mut out: Vec<(&MapEntry, f32)> = self
            .entries
            .iter()
            .zip(&self.vectors)
            .filter(|(_, v)| v.len() == query.len())
            .map(|(e, v)| (e, super::vector::dot(query, v)))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::FakeEmbedder;

    fn repo(files: &[(&str, &str)]) -> (tempfile::TempDir, RepoRoot) {
        let dir = tempfile::tempdir().unwrap();
        for (p, c) in files {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, c).unwrap();
        }
        let root = RepoRoot::new(dir.path()).unwrap();
        (dir, root)
    }

    const PAIRS: &str = r#"{"version": 2, "pairs": [
        {"nl_term": "ログイン機能", "symbol": "AuthService", "code_evidence": "AuthService.login() authenticates", "agreement_file": "login_auth.md"},
        {"nl_term": "password hashing", "symbol": "BcryptHasher"}
    ]}"#;

    const AGREEMENT: &str = "---\ndoc_type: agreement\nnl_term: ログイン機能\nsymbol: AuthService\n---\n\n# ログイン機能 → AuthService\n";

    #[test]
    fn reads_pairs_and_agreements_without_duplicates() {
        let (_d, root) = repo(&[
            (".code-intel/learned_pairs.json", PAIRS),
            (".code-intel/agreements/login_auth.md", AGREEMENT),
            (
                ".code-intel/agreements/naming.md",
                "# Naming\n\nControllers end in Controller; services in Service.\n",
            ),
            (".code-intel/agreements/notes.txt", "not markdown"),
        ]);
        let entries = load_entries(&root).unwrap();
        let summary: Vec<(MapSource, Option<&str>, Option<&str>)> = entries
            .iter()
            .map(|e| (e.source, e.symbol.as_deref(), e.agreement_file.as_deref()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    MapSource::LearnedPair,
                    Some("AuthService"),
                    Some("login_auth.md")
                ),
                (MapSource::LearnedPair, Some("BcryptHasher"), None),
                (MapSource::Agreement, None, Some("naming.md")),
            ]
        );
        assert_eq!(
            entries[0].text,
            "ログイン機能\nAuthService (authentication service)\nAuthService.login() authenticates"
        );
        assert!(entries[2].text.contains("Controllers end in Controller"));
    }

    #[test]
    fn no_files_is_an_empty_map_and_bad_json_an_error() {
        let (_d, root) = repo(&[]);
        assert!(load_entries(&root).unwrap().is_empty());
        let map = MapIndex::load(&root, &FakeEmbedder::new(16)).unwrap();
        assert!(map.is_empty());
        let (_d, root) = repo(&[(".code-intel/learned_pairs.json", "{oops")]);
        let err = load_entries(&root).unwrap_err();
        assert!(err.to_string().contains("learned_pairs.json"), "{err}");
    }

    #[test]
    fn search_ranks_entries_and_embeds_each_text_once() {
        let (_d, root) = repo(&[(".code-intel/learned_pairs.json", PAIRS)]);
        let fake = FakeEmbedder::new(64);
        let map = MapIndex::load(&root, &fake).unwrap();
        let q = fake
            .embed_queries(&["bcrypt hasher for passwords"])
            .unwrap();
        let hits = map.search(&q[0]);
        assert_eq!(hits[0].0.symbol.as_deref(), Some("BcryptHasher"));
        assert!(hits[0].1 > hits[1].1);
        // A second load takes the vectors from the cache.
        let cache = EmbeddingCache::open(&MapIndex::cache_dir(&root), fake.model_id(), 64).unwrap();
        assert_eq!(cache.len(), 2);
    }
}
