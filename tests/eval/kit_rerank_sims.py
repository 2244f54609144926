#!/usr/bin/env python3
"""Re-rankings simulated over `code-intel search --batch --top 100` output before anything is
built (docs/log/2026-11-27-tried-and-dropped-rerankings-and-vendored-scope.md). Each is applied to the
first 100 files as the binary ranked them, lexical mode, the kit's 760 English requests:

  test-subject  a test file among the candidates lends beta x its (role-factored) score to the
                source file it tests by name (`FooTest.php`, `test_foo.py`, `foo.spec.ts` ->
                `Foo`/`foo`; a trailing run of the test's name words, `DatabaseEloquentBuilder` ->
                `Builder`; ties broken by shared path components)
  file-bm25     the kit's bm25-file score of each candidate (max-normalised) added at weight w
                to the file's score (max-normalised), or fused by RRF (k = 60) at weight w
  stylesheets   the score of `.css`/`.scss`/`.less`/`.sass` files x f
  decl-start    function-level R@10 if each shown chunk's range started at its declaration
                (leading doc comments, attributes and decorators left out), the ranking as is

Run with the kit's virtualenv (bm25s): /tmp/bench-venv/bin/python tests/eval/kit_rerank_sims.py
Needs the kit prepared ($BENCH_DATA) and each corpus indexed; CODE_INTEL_BIN, default
target/release/code-intel. Search output is cached under $SIMS_CACHE (default /tmp/kit-sims)."""
import collections, json, os, pickle, re, subprocess, sys

DATA = os.environ.get('BENCH_DATA', '/tmp/bench-data')
KIT = os.environ.get('BENCH_KIT', '../shared/bench-kit')
BIN = os.environ.get('CODE_INTEL_BIN', 'target/release/code-intel')
CACHE = os.environ.get('SIMS_CACHE', '/tmp/kit-sims')
CORPORA = ['laravel', 'akaunting', 'paperless', 'vite']
TEST_DIRS = {'test', 'tests', '__tests__', 'spec', 'specs', 'fixtures', '__fixtures__', '__mocks__',
             '__snapshots__', 'e2e', 'testdata'}


def is_test(p):
    parts = p.split('/')
    name = parts[-1]
    low = name.lower()
    stem = low.split('.')[0]
    if (stem.startswith('test_') or stem.endswith(('_test', '_tests')) or '.test.' in low
            or '.spec.' in low or name.endswith('Test.php')):
        return True
    return any(d.lower() in TEST_DIRS for d in parts[:-1])


def words(s):
    return [w.lower() for w in re.findall(r'[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+', s)]


def test_stem(p):
    stem = p.split('/')[-1].split('.')[0]
    if stem.lower().startswith('test_'):
        stem = stem[5:]
    for suf in ('_tests', '_test', 'Tests', 'Test', '-test', '-spec'):
        if stem.endswith(suf) and len(stem) > len(suf):
            return stem[:-len(suf)]
    return stem


def subjects(test, by_stem):
    tw = words(test_stem(test))
    for n in range(len(tw)):
        found = by_stem.get(''.join(tw[n:]), [])
        if found:
            tparts = {x.lower() for x in test.split('/')[:-1]} | set(tw)
            share = lambda f: len(tparts & {x.lower() for x in f.split('/')[:-1]})
            best = max(map(share, found))
            return [f for f in found if share(f) == best]
    return []


def searched(corpus, qs):
    os.makedirs(CACHE, exist_ok=True)
    path = f'{CACHE}/{corpus}-lexical.jsonl'
    if not os.path.exists(path):
        inp = ''.join(json.dumps({'query': q['query']}) + '\n' for q in qs)
        env = dict(os.environ, CODE_INTEL_MODEL_DIR='/nonexistent')
        out = subprocess.run([BIN, 'search', '--repo', f'{DATA}/src/{corpus}', '--json', '--batch',
                              '--top', '100', '--mode', 'lexical'], input=inp, capture_output=True,
                             text=True, check=True, env=env).stdout
        open(path, 'w').write(out)
    return [json.loads(l) for l in open(path)]


def bm25_file(corpus, qs):
    path = f'{CACHE}/{corpus}-bm25file.pkl'
    if os.path.exists(path):
        return pickle.load(open(path, 'rb'))
    sys.path.insert(0, KIT)
    import numpy as np
    import run_eval as R
    from pathlib import Path
    b = R.BM25Baseline(R.Corpus(Path(DATA), corpus), 'file')
    out = []
    for q in qs:
        qt = [b.vocab[t] for t in R.tokenize(q['query']) if t in b.vocab]
        s = b.retriever.get_scores(qt) if qt else []
        idx = np.argsort(-s)[:200] if qt else []
        out.append({b.docs[i]: float(s[i]) for i in idx if s[i] > 0})
    pickle.dump(out, open(path, 'wb'))
    return out


def metrics(qs, scored):
    r10 = mrr = 0.0
    for q, sc in zip(qs, scored):
        top = sorted(sc, key=lambda f: (-sc[f], f))[:10]
        rank = next((i + 1 for i, f in enumerate(top) if f in q['gold_files']), None)
        if rank:
            r10 += 1
            mrr += 1 / rank
    return r10, mrr


COMMENT = re.compile(r'^\s*(/\*\*?|\*|\*/|//|#(?!\[)|#\[|@\w|$)')


def decl_start(corpus, f, s, e, cache={}):
    if f not in cache:
        try:
            cache[f] = open(f'{DATA}/src/{corpus}/{f}', errors='replace').read().split('\n')
        except OSError:
            cache[f] = []
    lines, i = cache[f], s
    while i < e and i - 1 < len(lines) and COMMENT.match(lines[i - 1]):
        i += 1
    return i


def inside(s, e, g):
    return 2 * max(0, min(e, g['end']) - max(s, g['start']) + 1) >= e - s + 1


def main():
    data = {}
    for c in CORPORA:
        qs = [json.loads(l) for l in open(f'{DATA}/queries/{c}.jsonl')]
        data[c] = (qs, searched(c, qs))

    def report(name, variant):
        row, tot = [], [0, 0, 0]
        for c, (qs, outs) in data.items():
            r, m = metrics(qs, [variant(c, i, o) for i, o in enumerate(outs)])
            row.append(f'{c} {r / len(qs):.3f}/{m / len(qs):.3f}')
            tot = [tot[0] + r, tot[1] + m, tot[2] + len(qs)]
        print(f'{name:24s} ' + '  '.join(row) + f'  ALL {tot[0] / tot[2]:.3f}/{tot[1] / tot[2]:.3f}')

    base = lambda o: {h['file']: h['score'] for h in o['hits']}
    print('R@10/MRR@10 per corpus')
    report('shipped', lambda c, i, o: base(o))
    by_stem = {}
    for c in CORPORA:
        d = collections.defaultdict(list)
        for dp, dn, fn in os.walk(f'{DATA}/src/{c}'):
            dn[:] = [x for x in dn if x not in ('.git', '.code-intel', 'node_modules', 'vendor')]
            for f in fn:
                rel = os.path.relpath(os.path.join(dp, f), f'{DATA}/src/{c}')
                if not is_test(rel):
                    d[''.join(words(f.split('.')[0]))].append(rel)
        by_stem[c] = d
    for beta in (0.25, 0.5, 1, 2, 4):
        def lend(c, i, o, beta=beta):
            sc = base(o)
            for h in o['hits']:
                if is_test(h['file']):
                    subs = subjects(h['file'], by_stem[c])
                    for s in subs:
                        sc[s] = sc.get(s, 0) + beta * h['score'] / len(subs)
            return sc
        report(f'test-subject {beta}', lend)
    files = {c: bm25_file(c, data[c][0]) for c in CORPORA}
    for w in (0.05, 0.1, 0.2, 0.3, 0.5):
        def lin(c, i, o, w=w):
            fr, hits = files[c][i], o['hits']
            top, fmax = (hits[0]['score'] if hits else 1), max(fr.values(), default=1)
            return {h['file']: h['score'] / top + w * fr.get(h['file'], 0) / fmax for h in hits}

        def rrf(c, i, o, w=w):
            sc = {h['file']: 1 / (61 + k) for k, h in enumerate(o['hits'])}
            for k, f in enumerate(sorted(files[c][i], key=lambda f: -files[c][i][f])):
                sc[f] = sc.get(f, 0) + w / (61 + k)
            return sc
        report(f'file-bm25 linear {w}', lin)
        report(f'file-bm25 rrf {w}', rrf)
    for f in (0.7, 0.5, 0.3):
        report(f'stylesheets x{f}', lambda c, i, o, f=f: {
            h['file']: h['score'] * (f if h['file'].endswith(('.css', '.scss', '.less', '.sass')) else 1)
            for h in o['hits']})
    n = a = b = 0
    for c, (qs, outs) in data.items():
        for q, o in zip(qs, outs):
            gf = q.get('gold_funcs')
            if not gf:
                continue
            hits = o['hits'][:10]
            n += 1
            a += any(inside(h['start_line'], h['end_line'], g) for h in hits for g in gf if g['file'] == h['file'])
            b += any(inside(decl_start(c, h['file'], h['start_line'], h['end_line']), h['end_line'], g)
                     for h in hits for g in gf if g['file'] == h['file'])
    print(f'F-R@10 ({n} requests): ranges as shown {a / n:.3f}, from the declaration {b / n:.3f}')


main()
