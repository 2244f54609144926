//! A Unigram tokenizer model (SentencePiece's, as in `tokenizer.json`) that holds its vocabulary
//! in a finite-state transducer instead of a trie of hash maps.
//!
//! Why: `tokenizers`' own `Unigram` builds a byte trie whose every node owns a hash map; for the
//! 250,002 pieces of multilingual-e5-small (XLM-R's vocabulary) that is 782,760 nodes and 287 MiB
//! of live heap (measured with a program that only parses `tokenizer.json`), more than half of
//! the MCP server's memory with the model loaded (docs/MODEL.md, "Memory"). The same pieces in
//! an FST ([`tantivy_fst`], already linked for the lexical index) take a few MiB.
//!
//! What is the library's: everything around the model. [`CompactTokenizer`] is `tokenizers`'
//! own `TokenizerImpl` (normalizer, pre-tokenizer, added tokens, post-processor, padding,
//! truncation, all deserialised from `tokenizer.json` by the library) with this model in the
//! model's place. What is ours: [`CompactUnigram`], the model, which reproduces
//! `tokenizers::models::unigram::Unigram` 0.23 (`encode_optimized`, `tokenize`) step for step:
//! the best path by Viterbi over the pieces that start at each character (ties keep the first,
//! shortest piece), an unknown character scored `min_score - 10`, consecutive unknowns fused into
//! one token, byte fallback when the vocabulary has it. A test compares its ids with the
//! library's on real code and multilingual text (`core/tests/embed_real.rs`,
//! `compact_unigram_tokenizes_like_the_library`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use tantivy_fst::Map;
use tokenizers::models::unigram::UnigramTrainer;
use tokenizers::{
    DecoderWrapper, Model, NormalizerWrapper, PostProcessorWrapper, PreTokenizerWrapper, Token,
    TokenizerImpl,
};

/// `tokenizers`' `TokenizerImpl` with [`CompactUnigram`] as its model.
pub type CompactTokenizer = TokenizerImpl<
    CompactUnigram,
    NormalizerWrapper,
    PreTokenizerWrapper,
    PostProcessorWrapper,
    DecoderWrapper,
>;

/// The score penalty of an unknown character below the lowest piece score (`K_UNK_PENALTY` of
/// `tokenizers`' Unigram and SentencePiece's `unigram_model.cc`).
const UNK_PENALTY: f64 = 10.0;

/// A Unigram model: pieces with log-probability scores, looked up through an FST.
///
/// Memory: the FST (piece bytes → id), the pieces concatenated with their offsets (for
/// `id_to_token`), and one `f64` score per piece — about 8 MiB for 250k pieces.
pub struct CompactUnigram {
    /// Piece bytes → id. A piece listed twice maps to its last id, as the library's hash map does.
    ids: Map<Vec<u8>>,
    /// Every piece, concatenated in id order; piece `i` is `text[offsets[i]..offsets[i + 1]]`.
    text: String,
    offsets: Vec<u32>,
    scores: Vec<f64>,
    min_score: f64,
    unk_id: Option<u32>,
    byte_fallback: bool,
}

impl std::fmt::Debug for CompactUnigram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactUnigram")
            .field("pieces", &self.scores.len())
            .field("unk_id", &self.unk_id)
            .field("byte_fallback", &self.byte_fallback)
            .finish_non_exhaustive()
    }
}

/// Why a `model` object of `tokenizer.json` cannot be a [`CompactUnigram`].
#[derive(Debug, thiserror::Error)]
pub enum UnigramError {
    /// The model is another kind (BPE, WordPiece, …): load it with `tokenizers::Tokenizer`.
    #[error("the model is {0:?}, not Unigram")]
    NotUnigram(String),
    /// No pieces, an `unk_id` outside them, or more pieces than ids fit in `u32`.
    #[error("invalid Unigram vocabulary: {0}")]
    Vocabulary(String),
    /// The FST could not be built.
    #[error("cannot index the Unigram pieces: {0}")]
    Fst(#[from] tantivy_fst::Error),
}

/// The `model` object of `tokenizer.json` for a Unigram model.
#[derive(Deserialize)]
struct RawUnigram {
    #[serde(rename = "type")]
    kind: String,
    unk_id: Option<usize>,
    vocab: Vec<(String, f64)>,
    #[serde(default)]
    byte_fallback: bool,
}

impl<'de> Deserialize<'de> for CompactUnigram {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawUnigram::deserialize(deserializer)?;
        if raw.kind != "Unigram" {
            return Err(serde::de::Error::custom(UnigramError::NotUnigram(raw.kind)));
        }
        Self::new(raw.vocab, raw.unk_id, raw.byte_fallback).map_err(serde::de::Error::custom)
    }
}

impl CompactUnigram {
    /// A model over `vocab` (piece, score) in id order.
    ///
    /// # Errors
    /// [`UnigramError::Vocabulary`] for an empty vocabulary with an `unk_id`, an `unk_id` outside
    /// it, or more than `u32::MAX` pieces; [`UnigramError::Fst`] if the FST cannot be built.
    pub fn new(
        vocab: Vec<(String, f64)>,
        unk_id: Option<usize>,
        byte_fallback: bool,
    ) -> Result<Self, UnigramError> {
        if let Some(unk) = unk_id
            && unk >= vocab.len()
        {
            return Err(UnigramError::Vocabulary(format!(
                "unk_id {unk} with {} pieces",
                vocab.len()
            )));
        }
        let too_many = || UnigramError::Vocabulary(format!("{} pieces", vocab.len()));
        let mut text = String::new();
        let mut offsets = Vec::with_capacity(vocab.len() + 1);
        let mut scores = Vec::with_capacity(vocab.len());
        let mut min_score = f64::INFINITY;
        offsets.push(0u32);
        for (piece, score) in &vocab {
            text.push_str(piece);
            offsets.push(u32::try_from(text.len()).map_err(|_| too_many())?);
            scores.push(*score);
            min_score = min_score.min(*score);
        }
        let mut order: Vec<u32> =
            (0..u32::try_from(vocab.len()).map_err(|_| too_many())?).collect();
        // By bytes, then by id: of two equal pieces the later id is kept (as a hash map insert).
        order.sort_by(|&a, &b| {
            vocab[a as usize]
                .0
                .as_bytes()
                .cmp(vocab[b as usize].0.as_bytes())
                .then(a.cmp(&b))
        });
        let mut keys: Vec<(&[u8], u64)> = Vec::with_capacity(order.len());
        for id in order {
            let piece = vocab[id as usize].0.as_bytes();
            match keys.last_mut() {
                Some(last) if last.0 == piece => last.1 = u64::from(id),
                _ => keys.push((piece, u64::from(id))),
            }
        }
        let ids = Map::from_iter(keys)?;
        Ok(Self {
            ids,
            text,
            offsets,
            scores,
            min_score,
            unk_id: unk_id.map(|u| u as u32),
            byte_fallback,
        })
    }

    fn piece(&self, id: u32) -> Option<&str> {
        let i = id as usize;
        let (start, end) = (*self.offsets.get(i)?, *self.offsets.get(i + 1)?);
        self.text.get(start as usize..end as usize)
    }

    /// Calls `found(end, id)` for every piece that starts at byte `start` of `sentence`, shortest
    /// first (the order of the library's trie walk).
    fn pieces_at(&self, sentence: &[u8], start: usize, mut found: impl FnMut(usize, u32)) {
        let fst = self.ids.as_fst();
        let mut node = fst.root();
        let mut out = tantivy_fst::raw::Output::zero();
        for (i, &b) in sentence[start..].iter().enumerate() {
            let Some(t) = node.find_input(b) else { return };
            let t = node.transition(t);
            out = out.cat(t.out);
            node = fst.node(t.addr);
            if node.is_final() {
                found(start + i + 1, out.cat(node.final_output()).value() as u32);
            }
        }
    }

    /// The best segmentation of `sentence` into pieces (strings), unknown runs fused: the
    /// library's `Unigram::encode_optimized`.
    fn encode<'s>(&self, sentence: &'s str) -> Result<Vec<&'s str>, tokenizers::Error> {
        #[derive(Clone, Copy)]
        struct Best {
            id: u32,
            score: f64,
            starts_at: Option<usize>,
        }
        let size = sentence.len();
        if size == 0 {
            return Ok(Vec::new());
        }
        let unk_score = self.min_score - UNK_PENALTY;
        let bytes = sentence.as_bytes();
        let mut best = vec![
            Best {
                id: 0,
                score: 0.0,
                starts_at: None,
            };
            size + 1
        ];
        let mut starts_at = 0;
        while starts_at < size {
            let till_here = best[starts_at].score;
            let mblen = sentence[starts_at..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
            let mut has_single_node = false;
            self.pieces_at(bytes, starts_at, |end, id| {
                let candidate = self.scores[id as usize] + till_here;
                let target = &mut best[end];
                if target.starts_at.is_none() || candidate > target.score {
                    *target = Best {
                        id,
                        score: candidate,
                        starts_at: Some(starts_at),
                    };
                }
                if end - starts_at == mblen {
                    has_single_node = true;
                }
            });
            if !has_single_node {
                let unk = self.unk_id.ok_or_else(|| {
                    tokenizers::Error::from("an unknown character and no unk_id in the model")
                })?;
                let candidate = unk_score + till_here;
                let target = &mut best[starts_at + mblen];
                if target.starts_at.is_none() || candidate > target.score {
                    *target = Best {
                        id: unk,
                        score: candidate,
                        starts_at: Some(starts_at),
                    };
                }
            }
            starts_at += mblen;
        }
        // Back from the end; consecutive unknowns become one token (the library's `fuse_unk`).
        let mut pieces: Vec<&'s str> = Vec::new();
        let mut unknown_from: Option<usize> = None;
        let mut unknown_to = 0;
        let mut end = size;
        while end > 0 {
            let node = best[end];
            let start = node.starts_at.unwrap_or(0);
            if Some(node.id) == self.unk_id {
                if unknown_from.is_none() {
                    unknown_to = end;
                }
                unknown_from = Some(start);
            } else {
                if let Some(from) = unknown_from.take() {
                    pieces.push(&sentence[from..unknown_to]);
                }
                pieces.push(&sentence[start..end]);
            }
            end = start;
        }
        if let Some(from) = unknown_from {
            pieces.push(&sentence[from..unknown_to]);
        }
        pieces.reverse();
        Ok(pieces)
    }
}

impl Model for CompactUnigram {
    type Trainer = UnigramTrainer;

    fn tokenize(&self, sentence: &str) -> tokenizers::Result<Vec<Token>> {
        let mut offset = 0;
        let mut tokens = Vec::new();
        for piece in self.encode(sentence)? {
            let len = piece.len();
            let offsets = (offset, offset + len);
            offset += len;
            if let Some(id) = self.token_to_id(piece) {
                tokens.push(Token::new(id, piece.to_owned(), offsets));
                continue;
            }
            if self.byte_fallback {
                let bytes: Option<Vec<Token>> = piece
                    .bytes()
                    .map(|b| {
                        let name = format!("<0x{b:02X}>");
                        self.token_to_id(&name)
                            .map(|id| Token::new(id, name, offsets))
                    })
                    .collect();
                if let Some(bytes) = bytes {
                    tokens.extend(bytes);
                    continue;
                }
            }
            let unk = self
                .unk_id
                .ok_or_else(|| tokenizers::Error::from("an unknown piece and no unk_id"))?;
            tokens.push(Token::new(unk, piece.to_owned(), offsets));
        }
        Ok(tokens)
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).map(|id| id as u32)
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        self.piece(id).map(str::to_owned)
    }

    fn get_vocab(&self) -> HashMap<String, u32> {
        let mut stream = self.ids.stream();
        let mut vocab = HashMap::with_capacity(self.ids.len());
        while let Some((piece, id)) = tantivy_fst::Streamer::next(&mut stream) {
            vocab.insert(String::from_utf8_lossy(piece).into_owned(), id as u32);
        }
        vocab
    }

    fn get_vocab_size(&self) -> usize {
        self.scores.len()
    }

    fn save(&self, _folder: &Path, _prefix: Option<&str>) -> tokenizers::Result<Vec<PathBuf>> {
        Err("CompactUnigram is loaded from tokenizer.json and not saved".into())
    }

    fn get_trainer(&self) -> UnigramTrainer {
        UnigramTrainer::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces() -> Vec<(String, f64)> {
        // The library's own doc example for `Unigram::encode`.
        [
            ("<unk>", 0.0),
            ("a", 0.0),
            ("b", 0.0),
            ("c", 0.0),
            ("d", 0.0),
            ("cd", 1.0),
            ("ab", 2.0),
            ("abc", 5.0),
            ("abcd", 10.0),
        ]
        .iter()
        .map(|(p, s)| (p.to_string(), *s))
        .collect()
    }

    #[test]
    fn segments_like_the_library_example() {
        let model = CompactUnigram::new(pieces(), Some(0), false).unwrap();
        assert_eq!(
            model.encode("abcdacdxx").unwrap(),
            vec!["abcd", "a", "cd", "xx"]
        );
        let ids: Vec<u32> = model
            .tokenize("abcdacdxx")
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(ids, vec![8, 1, 5, 0]);
    }

    /// (id, piece) of each token `model` gives `text`.
    fn tokens(model: &impl Model, text: &str) -> Vec<(u32, String)> {
        model
            .tokenize(text)
            .unwrap()
            .into_iter()
            .map(|t| (t.id, t.value))
            .collect()
    }

    #[test]
    fn agrees_with_the_library_model_on_tricky_text() {
        let vocab = {
            let mut v = pieces();
            v.extend(
                [
                    ("▁", -1.0),
                    ("é", -2.0),
                    ("日本", -3.0),
                    ("日", -4.0),
                    ("ab", -9.0),
                ]
                .iter()
                .map(|(p, s)| (p.to_string(), *s)),
            );
            v
        };
        let ours = CompactUnigram::new(vocab.clone(), Some(0), false).unwrap();
        let theirs = tokenizers::models::unigram::Unigram::from(vocab, Some(0), false).unwrap();
        for text in [
            "",
            "abab",
            "日本語x日",
            "éé▁abcd",
            "xyz",
            "▁▁cdab€",
            "a\u{0}b",
        ] {
            assert_eq!(tokens(&ours, text), tokens(&theirs, text), "{text:?}");
        }
        assert_eq!(ours.token_to_id("ab"), theirs.token_to_id("ab"));
        assert_eq!(ours.id_to_token(11), Some("日本".to_owned()));
        assert_eq!(
            ours.token_to_id("ab"),
            Some(13),
            "a piece listed twice keeps its last id"
        );
    }

    #[test]
    fn rejects_an_unk_id_outside_the_vocabulary() {
        assert!(CompactUnigram::new(pieces(), Some(9), false).is_err());
    }
}
