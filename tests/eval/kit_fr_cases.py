#!/usr/bin/env python3
"""Where function-level recall is lost (docs/EVALUATION.md, "Open targets";
docs/log/2026-11-27-unmet-ranking-targets.md): for each English kit query with gold functions, whether one of the first 10 results of
`code-intel search --batch` lies in a gold function (the kit's rule: at least half of the result's
lines inside the function's range), and if not, why: no gold-function file among the ten, the
gold function folded under its file's shown chunk, the shown chunk holding it with more than its
range (a docblock), or the gold function not among the file's matching chunks.
Needs the kit prepared ($BENCH_DATA) and each corpus indexed."""
import argparse, collections, json, os, subprocess

ap = argparse.ArgumentParser()
ap.add_argument('--mode', default='hybrid')
ap.add_argument('--corpora', default='laravel,akaunting,paperless,vite')
ap.add_argument('--bin', default=os.environ.get('CODE_INTEL_BIN', 'target/release/code-intel'))
a = ap.parse_args()
data = os.environ.get('BENCH_DATA', '/tmp/bench-data')


def inside(s, e, g):
    overlap = max(0, min(e, g['end']) - max(s, g['start']) + 1)
    return overlap * 2 >= (e - s + 1)


cases = collections.Counter()
for c in a.corpora.split(','):
    qs = [json.loads(l) for l in open(f'{data}/queries/{c}.jsonl')]
    inp = ''.join(json.dumps({'query': q['query']}) + '\n' for q in qs)
    out = subprocess.run([a.bin, 'search', '--repo', f'{data}/src/{c}', '--json', '--batch', '--top', '10',
                          '--mode', a.mode], input=inp, capture_output=True, text=True, check=True).stdout.splitlines()
    for q, line in zip(qs, out):
        gf = q.get('gold_funcs')
        if not gf:
            continue
        hits = json.loads(line)['hits'][:10]
        if any(inside(h['start_line'], h['end_line'], g) for h in hits for g in gf if g['file'] == h['file']):
            cases['a shown chunk lies in a gold function'] += 1
            continue
        shown = [h for h in hits if h['file'] in {g['file'] for g in gf}]
        if not shown:
            cases['no file with a gold function among the ten'] += 1
            continue
        h = shown[0]
        own = [g for g in gf if g['file'] == h['file']]
        if any(inside(f['start_line'], f['end_line'], g) for f in h.get('also') or [] for g in own):
            cases['the gold function is folded under its file'] += 1
        elif any(g['start'] >= h['start_line'] and g['end'] <= h['end_line'] for g in own):
            cases['the shown chunk holds the gold function and more (a docblock)'] += 1
        else:
            cases['the gold function is not among the file\'s matching chunks'] += 1
n = sum(cases.values())
for k, v in cases.most_common():
    print(f'{v:4d}  {k}')
print(f'{n:4d}  queries with gold functions')
