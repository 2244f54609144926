//! [`TermDisjunction`]: a sum of boosted term queries that tantivy's block-max WAND prunes in
//! every segment, the query of a long request ([`super::lexical::flat_request_query`]).
//!
//! tantivy (0.25) prunes a `BooleanQuery` of `Should` clauses with block-max WAND only when every
//! clause's scorer in a segment is a term scorer that reads frequencies; the scorer of a term a
//! segment does not hold is an empty posting list that reads none, so one such term turns
//! pruning off for the whole segment, and the query scores every document any term matches. A
//! request of a hundred words always has some term a segment lacks. [`TermDisjunction`] builds,
//! for each segment, the `BooleanQuery`'s weight over only the clauses whose term the segment
//! holds: the same documents and scores (an absent term scores nothing), pruned.
//! docs/log/2026-11-28-long-request-latency.md has the measurements.

use std::sync::Arc;

use tantivy::query::{
    BooleanWeight, BoostQuery, EmptyScorer, EnableScoring, Explanation, Occur, Query, Scorer,
    SumCombiner, TermQuery, Weight,
};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, Score, SegmentReader, Term};

/// The sum of the BM25 scores of `clauses` (a term, read with frequencies, and its boost), as a
/// `BooleanQuery` of boosted `TermQuery`s in `Should` clauses scores it, pruned in every segment
/// (see the module docs).
#[derive(Debug, Clone)]
pub struct TermDisjunction {
    clauses: Vec<(Term, Score)>,
}

impl TermDisjunction {
    /// The disjunction of `clauses`: each a term and its boost.
    pub fn new(clauses: Vec<(Term, Score)>) -> Self {
        Self { clauses }
    }

    /// The clauses, as given.
    pub fn clauses(&self) -> &[(Term, Score)] {
        &self.clauses
    }
}

impl Query for TermDisjunction {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let weights = self
            .clauses
            .iter()
            .map(|(term, boost)| {
                let q = BoostQuery::new(
                    Box::new(TermQuery::new(term.clone(), IndexRecordOption::WithFreqs)),
                    *boost,
                );
                Ok((term.clone(), Arc::from(q.weight(enable_scoring)?)))
            })
            .collect::<tantivy::Result<Vec<_>>>()?;
        Ok(Box::new(DisjunctionWeight { weights }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for (term, _) in &self.clauses {
            visitor(term, false);
        }
    }
}

/// The weights of a [`TermDisjunction`]'s clauses, computed once with the searcher's
/// statistics and shared by the per-segment `BooleanWeight`s.
struct DisjunctionWeight {
    weights: Vec<(Term, Arc<dyn Weight>)>,
}

/// A clause's weight shared between segments.
struct Shared(Arc<dyn Weight>);

impl Weight for Shared {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        self.0.scorer(reader, boost)
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        self.0.explain(reader, doc)
    }
}

impl DisjunctionWeight {
    /// The `BooleanWeight` of the clauses whose term `reader`'s segment holds; `None` when it
    /// holds none.
    fn in_segment(
        &self,
        reader: &SegmentReader,
    ) -> tantivy::Result<Option<BooleanWeight<SumCombiner>>> {
        let mut inverted: Vec<(tantivy::schema::Field, Arc<tantivy::InvertedIndexReader>)> =
            Vec::new();
        let mut kept: Vec<(Occur, Box<dyn Weight>)> = Vec::new();
        for (term, weight) in &self.weights {
            let field = term.field();
            let index = match inverted.iter().find(|(f, _)| *f == field) {
                Some((_, i)) => Arc::clone(i),
                None => {
                    let i = reader.inverted_index(field)?;
                    inverted.push((field, Arc::clone(&i)));
                    i
                }
            };
            if index.get_term_info(term)?.is_some() {
                kept.push((Occur::Should, Box::new(Shared(Arc::clone(weight)))));
            }
        }
        Ok((!kept.is_empty())
            .then(|| BooleanWeight::new(kept, true, Box::new(SumCombiner::default))))
    }
}

impl Weight for DisjunctionWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        match self.in_segment(reader)? {
            Some(w) => w.scorer(reader, boost),
            None => Ok(Box::new(EmptyScorer)),
        }
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        match self.in_segment(reader)? {
            Some(w) => w.explain(reader, doc),
            None => Err(tantivy::TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            ))),
        }
    }

    fn for_each_pruning(
        &self,
        threshold: Score,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(DocId, Score) -> Score,
    ) -> tantivy::Result<()> {
        match self.in_segment(reader)? {
            Some(w) => w.for_each_pruning(threshold, reader, callback),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::TopDocs;
    use tantivy::query::BooleanQuery;
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{Index, IndexWriter, TantivyDocument, doc};

    use super::*;

    /// Several segments, some without some of the query's terms: the same hits and scores as
    /// the `BooleanQuery` it replaces.
    #[test]
    fn scores_as_the_boolean_query_across_segments_lacking_terms() {
        let mut b = Schema::builder();
        let body = b.add_text_field("body", TEXT);
        let title = b.add_text_field("title", TEXT);
        let index = Index::create_in_ram(b.build());
        let mut writer: IndexWriter = index.writer(50_000_000).unwrap();
        let words = [
            "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
        ];
        for segment in 0..3 {
            for i in 0..300usize {
                // Segment 0 never holds "theta"; segment 2 never holds "alpha".
                let text: Vec<&str> = words
                    .iter()
                    .enumerate()
                    .filter(|(k, w)| {
                        (i * (k + 3) + segment) % (k + 2) == 0
                            && !(segment == 0 && **w == "theta")
                            && !(segment == 2 && **w == "alpha")
                    })
                    .map(|(_, w)| *w)
                    .collect();
                let mut d = TantivyDocument::default();
                d.add_text(body, text.join(" "));
                d.add_text(title, words[i % words.len()]);
                writer.add_document(d).unwrap();
            }
            writer.commit().unwrap();
        }
        writer.add_document(doc!(body => "omega")).unwrap();
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        assert!(searcher.segment_readers().len() >= 3);
        let clauses: Vec<(Term, Score)> = words
            .iter()
            .enumerate()
            .flat_map(|(k, w)| {
                [
                    (Term::from_field_text(body, w), 1.0 + k as f32 * 0.3),
                    (Term::from_field_text(title, w), 0.5),
                ]
            })
            .chain([(Term::from_field_text(body, "absent"), 2.0)])
            .collect();
        let boolean = BooleanQuery::new(
            clauses
                .iter()
                .map(|(t, b)| {
                    let q: Box<dyn Query> = Box::new(BoostQuery::new(
                        Box::new(TermQuery::new(t.clone(), IndexRecordOption::WithFreqs)),
                        *b,
                    ));
                    (Occur::Should, q)
                })
                .collect(),
        );
        let pruned = TermDisjunction::new(clauses);
        // Every matching document's score (summed in another order, so equal within rounding,
        // and ties may come in another order).
        let all: std::collections::HashMap<tantivy::DocAddress, Score> = searcher
            .search(&boolean, &TopDocs::with_limit(10_000))
            .unwrap()
            .into_iter()
            .map(|(s, a)| (a, s))
            .collect();
        for top in [1, 10, 100, 1000] {
            let want = searcher
                .search(&boolean, &TopDocs::with_limit(top))
                .unwrap();
            let got = searcher.search(&pruned, &TopDocs::with_limit(top)).unwrap();
            assert_eq!(want.len(), got.len(), "top {top}");
            for (w, g) in want.iter().zip(&got) {
                assert!((w.0 - g.0).abs() < 1e-4, "top {top}: {w:?} {g:?}");
                assert!((all[&g.1] - g.0).abs() < 1e-4, "top {top}: {g:?}");
            }
        }
        assert_eq!(
            boolean.count(&searcher).unwrap(),
            pruned.count(&searcher).unwrap()
        );
    }
}
