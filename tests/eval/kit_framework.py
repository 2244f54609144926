#!/usr/bin/env python3
"""Framework links on the development kit (docs/EVALUATION.md, "Framework links"): file-level
R@10, MRR@10 and Blade-file R@10 of `code-intel search --batch` for several
`RankParams::framework_link` values on the same index, next to the kit's bm25-chunk baseline.

Queries are split in two halves by the parity of the first 8 hex digits of their commit SHA
(`--half A` = even, `B` = odd, `all`): choose the weight on one half, report on the other.
Blade R@10 counts, among the queries with a `.blade.php` gold file, those with a Blade gold file
in the first 10 distinct files.

  python3 tests/eval/kit_framework.py --corpus akaunting --repo /tmp/x-akaunting \
      --weights 0,0.25,0.5,1 --half A [--baseline]
"""
import argparse, json, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument('--corpus', required=True)
ap.add_argument('--repo', required=True, help='an indexed copy of the corpus snapshot')
ap.add_argument('--weights', default='0,0.5')
ap.add_argument('--half', default='all', choices=['A', 'B', 'all'])
ap.add_argument('--mode', default='lexical')
ap.add_argument('--rank', default='{}', help='other RankParams overrides (JSON)')
ap.add_argument('--baseline', action='store_true', help='also run the kit bm25-chunk baseline')
ap.add_argument('--bin', default=os.environ.get('CODE_INTEL_BIN', 'target/release/code-intel'))
ap.add_argument('--dump', default='')
a = ap.parse_args()
data = os.environ.get('BENCH_DATA', '/tmp/bench-data')
kit = os.environ.get('BENCH_KIT', '../shared/bench-kit')
qs = [json.loads(l) for l in open(f'{data}/queries/{a.corpus}.jsonl')]
if a.half != 'all':
    want = 0 if a.half == 'A' else 1
    qs = [q for q in qs if int(q['sha'][:8], 16) % 2 == want]


def metrics(name, results):
    n = len(qs)
    r10 = mrr = 0.0
    blade_n = blade_hit = 0
    for q, files in zip(qs, results):
        gold = set(q['gold_files'])
        rk = next((i + 1 for i, f in enumerate(files[:10]) if f in gold), None)
        if rk:
            r10 += 1
            mrr += 1 / rk
        bgold = {g for g in gold if g.endswith('.blade.php')}
        if bgold:
            blade_n += 1
            blade_hit += any(f in bgold for f in files[:10])
    print(f'{a.corpus:10s} half={a.half:3s} {name:22s} n={n:3d} R@10 {r10/n:.3f} MRR@10 {mrr/n:.3f} '
          f'Blade R@10 {blade_hit/max(1, blade_n):.3f} (n={blade_n})', flush=True)


def distinct(hits):
    files = []
    for h in hits:
        f = h if isinstance(h, str) else (h.get('file') or h.get('path'))
        if f and f not in files:
            files.append(f)
    return files


extra = json.loads(a.rank)
dump = {}
for w in [float(x) for x in a.weights.split(',')]:
    rank = dict(extra, framework_link=w)
    inp = ''.join(json.dumps({'id': i, 'query': q['query'], 'mode': a.mode, 'rank': rank}) + '\n'
                  for i, q in enumerate(qs))
    p = subprocess.run([a.bin, 'search', '--repo', a.repo, '--json', '--batch', '--top', '10'],
                       input=inp, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr[-2000:])
        sys.exit(1)
    outs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    results = [distinct(o.get('hits', [])) for o in outs]
    dump[f'framework_link={w}'] = {q['id']: r[:10] for q, r in zip(qs, results)}
    metrics(f'framework_link={w}', results)
if a.baseline:
    inp = ''.join(json.dumps({'id': i, 'query': q['query']}) + '\n' for i, q in enumerate(qs))
    p = subprocess.run(['/tmp/bench-venv/bin/python', f'{kit}/baseline_cli.py', '--batch', '--method',
                        'bm25-chunk', '--repo', f'{data}/src/{a.corpus}', '--top', '10'],
                       input=inp, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr[-2000:])
        sys.exit(1)
    outs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    results = []
    for o in outs:
        if isinstance(o, dict):
            o = next((o[k] for k in ('results', 'hits', 'matches', 'items', 'chunks', 'data') if k in o), [])
        results.append(distinct(o))
    dump['bm25-chunk'] = {q['id']: r[:10] for q, r in zip(qs, results)}
    metrics('kit bm25-chunk', results)
if a.dump:
    json.dump(dump, open(a.dump, 'w'), indent=1)
