#!/usr/bin/env python3
"""The development kit's file-level metrics for `code-intel search --batch` with per-query `rank`
overrides (docs/EVALUATION.md, "Ranking for change requests"). Needs the kit prepared
($BENCH_DATA, see ../shared/bench-kit/README.md) and each corpus indexed with `code-intel index`."""
import json, subprocess, sys, os, argparse, statistics
ap = argparse.ArgumentParser()
ap.add_argument('--corpora', default='laravel,akaunting,paperless,vite')
ap.add_argument('--lang', default='en')
ap.add_argument('--rank', default='{}')
ap.add_argument('--mode', default='lexical')
ap.add_argument('--cli-mode', default='', help='also pass --mode to the process (opens the vectors even when no vector state exists yet, so hybrid can embed query-time)')
ap.add_argument('--bin', default=os.environ.get('CODE_INTEL_BIN', 'target/release/code-intel'))
ap.add_argument('--limit', type=int, default=0)
ap.add_argument('--dump', default='')
ap.add_argument('--extra', default='{}', help='JSON merged into every query object (e.g. {"weights": {"vector": 0.2, "keyword": 0.8}})')
ap.add_argument('--english-keywords', action='store_true', help='Japanese queries: pass the English commit subject as `keywords`, a stand-in for the English identifiers and terms the calling model is asked to add (an upper-bound proxy: the subject is what the change was called)')
a = ap.parse_args()
rank = json.loads(a.rank)
K = os.environ.get('BENCH_KIT', '../shared/bench-kit')
tot = {}
rows = []
dump = {}
for corpus in a.corpora.split(','):
    repo = f'{os.environ.get("BENCH_DATA", "/tmp/bench-data")}/src/{corpus}'
    qs = [json.loads(l) for l in open(f'{os.environ.get("BENCH_DATA", "/tmp/bench-data")}/queries/{corpus}.jsonl')]
    if a.lang == 'ja':
        ja = json.load(open(f'{K}/ja/{corpus}.json'))
        qs = [dict(q, query=ja[q['sha']], en=q['query']) for q in qs if q['sha'] in ja]
    if a.limit: qs = qs[:a.limit]
    inp = ''.join(json.dumps(dict({'id': i, 'query': q['query'], 'mode': a.mode, 'rank': rank}, **json.loads(a.extra), **({'keywords': q['en']} if a.english_keywords and 'en' in q else {}))) + '\n' for i, q in enumerate(qs))
    cmd = [a.bin, 'search', '--repo', repo, '--json', '--batch', '--top', '10']
    if a.cli_mode: cmd += ['--mode', a.cli_mode]
    p = subprocess.run(cmd, input=inp, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr[-2000:]); sys.exit(1)
    outs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    m = {'r1': 0, 'r5': 0, 'r10': 0, 'mrr': 0.0, 'n': len(qs), 'fr': 0, 'fn': 0}
    for q, o in zip(qs, outs):
        files = []
        for h in o.get('hits', []):
            if h['file'] not in files: files.append(h['file'])
        files = files[:10]
        gold = set(q['gold_files'])
        rk = next((i + 1 for i, f in enumerate(files) if f in gold), None)
        dump[q['id']] = {'q': q['query'], 'gold': q['gold_files'], 'rank': rk, 'files': files[:10]}
        if rk:
            m['r1'] += rk <= 1; m['r5'] += rk <= 5; m['r10'] += 1; m['mrr'] += 1 / rk
        if q.get('gold_funcs'):
            m['fn'] += 1
            ok = False
            for h in o.get('hits', [])[:10]:
                s, e = h['start_line'], h['end_line']
                for g in q['gold_funcs']:
                    if g['file'] != h['file']: continue
                    ov = max(0, min(e, g['end']) - max(s, g['start']) + 1)
                    if ov * 2 >= (e - s + 1): ok = True
            m['fr'] += ok
    n = m['n']
    print(f"{corpus:10s} {a.lang} n={n:3d} R@1 {m['r1']/n:.3f} R@5 {m['r5']/n:.3f} R@10 {m['r10']/n:.3f} MRR {m['mrr']/n:.3f} F-R@10 {m['fr']/max(1,m['fn']):.3f}")
    for k, v in m.items(): tot[k] = tot.get(k, 0) + v
n = tot['n']
print(f"{'ALL':10s} {a.lang} n={n:3d} R@1 {tot['r1']/n:.3f} R@5 {tot['r5']/n:.3f} R@10 {tot['r10']/n:.3f} MRR {tot['mrr']/n:.3f} F-R@10 {tot['fr']/max(1,tot['fn']):.3f}")
if a.dump: json.dump(dump, open(a.dump, 'w'), indent=1)
