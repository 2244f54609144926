//! The embedding cache: persistence across opens, crash damage (torn and corrupt records), foreign
//! files, garbage collection, concurrent writers.

#![cfg(feature = "embed")]

use std::path::Path;

use code_intel_core::embed::{CacheError, Embedder, EmbeddingCache, FakeEmbedder};

const MODEL: &str = "multilingual-e5-small@52be70567067";

fn sha(n: u32) -> String {
    format!("{n:064x}")
}

fn vector(n: u32, dims: usize) -> Vec<f32> {
    (0..dims).map(|i| n as f32 + i as f32 / 10.0).collect()
}

fn fill(cache: &mut EmbeddingCache, range: std::ops::Range<u32>) {
    let dims = cache.dims();
    let items: Vec<(String, Vec<f32>)> = range.map(|n| (sha(n), vector(n, dims))).collect();
    cache
        .insert_many(items.iter().map(|(s, v)| (s.as_str(), v.as_slice())))
        .unwrap();
}

fn only_file(dir: &Path) -> std::path::PathBuf {
    let files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "emb"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn vectors_survive_reopen_and_are_not_duplicated() {
    let dir = tempfile::tempdir().unwrap();
    let mut cache = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert!(cache.is_empty());
    fill(&mut cache, 0..10);
    assert_eq!(cache.pending(), 10);
    assert_eq!(cache.get(&sha(3)), Some(vector(3, 4)));
    cache.flush().unwrap();
    assert_eq!(cache.pending(), 0);
    // A second batch is appended, and a key already held keeps its first vector.
    let again = [(sha(3), vec![9.0f32; 4]), (sha(10), vector(10, 4))];
    let added = cache
        .insert_many(again.iter().map(|(s, v)| (s.as_str(), v.as_slice())))
        .unwrap();
    assert_eq!(added, 1);
    cache.flush().unwrap();

    let file = only_file(dir.path());
    assert!(
        file.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("multilingual-e5-small_52be70567067-"),
        "{file:?}"
    );
    let reopened = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert_eq!(reopened.len(), 11);
    assert_eq!(reopened.open_report().loaded, 11);
    assert_eq!(reopened.open_report().dropped_records, 0);
    assert_eq!(reopened.get(&sha(3)), Some(vector(3, 4)));
    assert_eq!(reopened.get(&sha(10)), Some(vector(10, 4)));
    // Upper-case hex is the same key; an unknown or malformed key is simply absent.
    assert!(reopened.contains(&sha(10).to_uppercase()));
    assert_eq!(reopened.get(&sha(99)), None);
    assert_eq!(reopened.get("not-a-sha"), None);
    assert_eq!(
        reopened.missing([
            sha(1).as_str(),
            sha(50).as_str(),
            sha(50).as_str(),
            sha(51).as_str()
        ]),
        vec![sha(50).as_str(), sha(51).as_str()]
    );
}

#[test]
fn flush_without_changes_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut cache = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    cache.flush().unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn models_and_dimensions_are_separate() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut a, 0..3);
    a.flush().unwrap();
    let b = EmbeddingCache::open(dir.path(), "other-model@1", 4).unwrap();
    assert!(b.is_empty(), "another model id has its own file");
    // The same file name opened with other dimensions: ignored and replaced at the next flush.
    let mut c = EmbeddingCache::open(dir.path(), MODEL, 8).unwrap();
    assert!(c.is_empty());
    assert_eq!(
        c.open_report().reset.as_deref(),
        Some("written for another model id or dimension count")
    );
    fill(&mut c, 5..6);
    c.flush().unwrap();
    let c2 = EmbeddingCache::open(dir.path(), MODEL, 8).unwrap();
    assert_eq!(c2.len(), 1);
    assert_eq!(c2.get(&sha(5)), Some(vector(5, 8)));
}

#[test]
fn a_torn_last_record_is_dropped_and_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let mut cache = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut cache, 0..5);
    cache.flush().unwrap();
    let file = only_file(dir.path());
    let full = std::fs::read(&file).unwrap();
    // A crash in the middle of appending the 5th record.
    std::fs::write(&file, &full[..full.len() - 10]).unwrap();

    let mut reopened = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert_eq!(reopened.len(), 4);
    assert_eq!(reopened.open_report().dropped_records, 1);
    assert!(!reopened.contains(&sha(4)));
    // The next flush rewrites the file whole, so later appends line up again.
    fill(&mut reopened, 4..6);
    reopened.flush().unwrap();
    fill(&mut reopened, 6..7);
    reopened.flush().unwrap();
    let again = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert_eq!(again.len(), 7);
    assert_eq!(again.open_report().dropped_records, 0);
    assert_eq!(again.get(&sha(6)), Some(vector(6, 4)));
}

#[test]
fn a_corrupt_record_is_dropped_and_the_rest_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut cache = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut cache, 0..5);
    cache.flush().unwrap();
    let file = only_file(dir.path());
    let mut bytes = std::fs::read(&file).unwrap();
    let record = 32 + 4 * 4 + 4;
    let second_record_vector = bytes.len() - 4 * record + 32 + 2;
    bytes[second_record_vector] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();

    let mut reopened = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert_eq!(reopened.len(), 4);
    assert_eq!(reopened.open_report().dropped_records, 1);
    assert!(!reopened.contains(&sha(1)), "the damaged record");
    assert_eq!(
        reopened.get(&sha(4)),
        Some(vector(4, 4)),
        "records after it survive"
    );
    reopened.flush().unwrap();
    assert_eq!(
        EmbeddingCache::open(dir.path(), MODEL, 4)
            .unwrap()
            .open_report()
            .dropped_records,
        0
    );
}

#[test]
fn a_foreign_file_is_ignored_then_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let mut cache = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut cache, 0..1);
    cache.flush().unwrap();
    let file = only_file(dir.path());
    std::fs::write(&file, b"garbage").unwrap();
    let mut reopened = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert!(reopened.is_empty());
    assert_eq!(
        reopened.open_report().reset.as_deref(),
        Some("not an embedding cache file")
    );
    fill(&mut reopened, 1..2);
    reopened.flush().unwrap();
    assert_eq!(EmbeddingCache::open(dir.path(), MODEL, 4).unwrap().len(), 1);
}

#[test]
fn a_fifo_in_place_of_the_file_is_replaced_not_read() {
    // A plain read of a FIFO blocks until a writer appears: `index --embed` hung.
    let dir = tempfile::tempdir().unwrap();
    let mut cache = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut cache, 0..1);
    cache.flush().unwrap();
    let file = only_file(dir.path());
    std::fs::remove_file(&file).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&file)
        .status()
        .unwrap();
    assert!(status.success());
    let (tx, rx) = std::sync::mpsc::channel();
    let path = dir.path().to_path_buf();
    std::thread::spawn(move || {
        let mut reopened = EmbeddingCache::open(&path, MODEL, 4).unwrap();
        let reset = reopened.open_report().reset.clone();
        fill(&mut reopened, 1..2);
        reopened.flush().unwrap();
        let _ = tx.send((reopened.len(), reset));
    });
    let (len, reset) = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("opening and flushing the cache returned");
    assert_eq!((len, reset.as_deref()), (1, Some("not a regular file")));
    assert!(std::fs::metadata(&file).unwrap().is_file());
    assert_eq!(EmbeddingCache::open(dir.path(), MODEL, 4).unwrap().len(), 1);
}

#[test]
fn retain_removes_dead_vectors_and_compacts() {
    let dir = tempfile::tempdir().unwrap();
    let mut cache = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut cache, 0..10);
    cache.flush().unwrap();
    fill(&mut cache, 10..12); // pending ones are kept too when live
    let size_before = std::fs::metadata(only_file(dir.path())).unwrap().len();
    let live: Vec<String> = [1, 3, 11].map(sha).to_vec();
    let removed = cache.retain(live.iter().map(String::as_str)).unwrap();
    assert_eq!(removed, 9);
    assert_eq!(cache.len(), 3);
    assert_eq!(cache.pending(), 0);
    assert_eq!(cache.get(&sha(3)), Some(vector(3, 4)));
    assert!(!cache.contains(&sha(0)));
    let file = only_file(dir.path());
    assert!(std::fs::metadata(&file).unwrap().len() < size_before);
    let reopened = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert_eq!(reopened.len(), 3);
    assert_eq!(reopened.get(&sha(11)), Some(vector(11, 4)));
    // Nothing dead: nothing removed.
    let mut again = reopened;
    assert_eq!(again.retain(live.iter().map(String::as_str)).unwrap(), 0);
    // No temp files left behind by the atomic rewrite.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn bad_input_is_rejected_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut cache = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    let good = vector(1, 4);
    let short = vec![0.0f32; 3];
    let err = cache
        .insert_many([
            (sha(1).as_str(), good.as_slice()),
            (sha(2).as_str(), short.as_slice()),
        ])
        .unwrap_err();
    assert!(
        matches!(
            err,
            CacheError::BadDims {
                expected: 4,
                got: 3,
                ..
            }
        ),
        "{err}"
    );
    assert!(cache.is_empty(), "nothing inserted from a rejected batch");
    let err = cache.insert_many([("xyz", good.as_slice())]).unwrap_err();
    assert!(matches!(err, CacheError::BadKey { .. }), "{err}");
    assert!(matches!(
        EmbeddingCache::open(dir.path(), MODEL, 0),
        Err(CacheError::BadParams { .. })
    ));
}

#[test]
fn two_writers_keep_each_others_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    let mut b = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut a, 0..3);
    fill(&mut b, 3..6);
    a.flush().unwrap();
    b.flush().unwrap(); // appends after a's records (the file is clean)
    fill(&mut a, 6..7);
    a.flush().unwrap();
    let merged = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert_eq!(merged.len(), 7);
    assert_eq!(merged.open_report().dropped_records, 0);
}

#[test]
fn caches_fake_embeddings_by_content_hash() {
    // The intended use: embed only what the cache misses.
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeEmbedder::new(16);
    let mut cache = EmbeddingCache::open(dir.path(), fake.model_id(), fake.dims()).unwrap();
    let chunks = [(sha(1), "def login(user)"), (sha(2), "def logout(user)")];
    let missing = cache.missing(chunks.iter().map(|(s, _)| s.as_str()));
    let texts: Vec<&str> = chunks
        .iter()
        .filter(|(s, _)| missing.contains(&s.as_str()))
        .map(|(_, t)| *t)
        .collect();
    let vectors = fake.embed_passages(&texts).unwrap();
    cache
        .insert_many(
            missing
                .iter()
                .copied()
                .zip(vectors.iter().map(Vec::as_slice)),
        )
        .unwrap();
    cache.flush().unwrap();
    let reopened = EmbeddingCache::open(dir.path(), fake.model_id(), fake.dims()).unwrap();
    assert!(
        reopened
            .missing(chunks.iter().map(|(s, _)| s.as_str()))
            .is_empty()
    );
    assert_eq!(
        reopened.get(&sha(1)).unwrap(),
        fake.embed_one("def login(user)").as_slice()
    );
}

#[test]
fn retain_keeps_live_vectors_another_process_appended() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut a, 0..2);
    a.flush().unwrap();
    let mut b = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut b, 2..4);
    b.flush().unwrap();
    // `a` never saw 2 and 3; 3 is live and must survive a's compaction, 2 is dead.
    let live = [sha(0), sha(3)];
    let removed = a.retain(live.iter().map(String::as_str)).unwrap();
    assert_eq!(removed, 2, "1 held by a, 2 merged from b");
    let reopened = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert_eq!(reopened.len(), 2);
    assert_eq!(reopened.get(&sha(3)), Some(vector(3, 4)));
}

#[test]
fn vectors_read_back_after_another_process_replaced_the_file() {
    // The cache keeps offsets, not vectors: a file another process rewrote (renamed over the
    // old one) must neither lose this cache's vectors nor hand back another record's.
    let dir = tempfile::tempdir().unwrap();
    let mut a = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut a, 0..6);
    a.flush().unwrap();
    let mut reader = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert_eq!(reader.pending(), 0);
    // Another process compacts to 4 and 5: every offset of the old file moves.
    let live = [sha(4), sha(5)];
    assert_eq!(a.retain(live.iter().map(String::as_str)).unwrap(), 4);
    for n in 0..6 {
        assert_eq!(reader.get(&sha(n)), Some(vector(n, 4)), "vector {n}");
    }
    // This reader's next flush appends to the new file; the reader still reads the old ones.
    fill(&mut reader, 6..7);
    reader.flush().unwrap();
    for n in 0..7 {
        assert_eq!(reader.get(&sha(n)), Some(vector(n, 4)), "vector {n}");
    }
    let reopened = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    assert_eq!(reopened.len(), 3);
    for n in 4..7 {
        assert_eq!(reopened.get(&sha(n)), Some(vector(n, 4)), "vector {n}");
    }
}

#[test]
fn a_record_damaged_after_opening_reads_as_missing() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    fill(&mut a, 0..3);
    a.flush().unwrap();
    let reader = EmbeddingCache::open(dir.path(), MODEL, 4).unwrap();
    // Flip a byte inside the last record's vector, in place.
    let file = only_file(dir.path());
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() - 8;
    bytes[at] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(reader.get(&sha(0)), Some(vector(0, 4)));
    assert_eq!(
        reader.get(&sha(2)),
        None,
        "CRC mismatch: not a wrong vector"
    );
}
