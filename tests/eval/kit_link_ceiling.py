#!/usr/bin/env python3
"""How far framework links could lift a Laravel corpus of the development kit, and what a
family of link re-rankers does (docs/log/2026-11-27-framework-link-ceiling.md).

1. Reachability: for each request whose gold files are all outside the first 10 files with links
   off (`framework_link` 0), is a gold file a framework neighbour of one of the first 3 / 10 / 50
   files? The share reachable from the first 10 bounds what any re-ranking that follows links
   from the first 10 could add to R@10.
2. A simulation of `CodeIndex::framework_rerank` over the first 50 files (checked against the
   binary's own links-on ranking, query by query), then a grid: seeds {3, 5, 10} ×
   `framework_link` {0.1, 0.2, 0.3, 0.5} × a weight for `imports`/`route-ref` links whose target is
   itself among the candidates {0, 0.25, 0.5, 1} (those kinds have no ranking weight today).

Needs an indexed copy of the corpus and its neighbour list:
  code-intel index --repo /tmp/x-akaunting
  cargo run --release -p code-intel-core --example framework_links -- /tmp/x-akaunting --edges > ak.jsonl
  python3 tests/eval/kit_link_ceiling.py akaunting /tmp/x-akaunting ak.jsonl
Queries are split into halves A/B by the parity of the first 8 hex digits of the commit SHA, as in
kit_framework.py. Lexical mode.
"""
import collections, itertools, json, os, re, subprocess, sys

BIN = os.environ.get('CODE_INTEL_BIN', 'target/release/code-intel')
DATA = os.environ.get('BENCH_DATA', '/tmp/bench-data')
# framework::KINDS weights (core/src/index/framework.rs).
W = {'renders': 1.0, 'component': 0.8, 'livewire': 0.8, 'includes': 0.5, 'extends': 0.2,
     'manages': 0.8, 'table': 0.5, 'relation': 0.3, 'foreign-key': 0.2, 'injects': 0.3,
     'routes': 0.3, 'route-ref': 0.0, 'imports': 0.0, 'extends-class': 0.2, 'implements': 0.1,
     'uses-trait': 0.2, 'companion': 1.0}

corpus, repo, edges = sys.argv[1:4]
qs = [json.loads(l) for l in open(f'{DATA}/queries/{corpus}.jsonl')]
nbk = collections.defaultdict(list)
for line in open(edges):
    d = json.loads(line)
    for n in d['neighbors']:
        nbk[d['file']].append((n['kind'], n['file'], n['outgoing']))


def role(f):
    """RankParams role factors by path (tests 0.2, translations and docs 0.3), approximated."""
    if re.search(r'(^|/)(tests?|__tests__|spec)/|Test\.php$|\.test\.|\.spec\.', f):
        return 0.2
    if re.search(r'(^|/)(lang|locales?|i18n)/', f) or re.search(r'\.(md|rst|txt)$', f):
        return 0.3
    return 1.0


def run(rank, top):
    inp = ''.join(json.dumps({'id': i, 'query': q['query'], 'mode': 'lexical', 'rank': rank}) + '\n'
                  for i, q in enumerate(qs))
    p = subprocess.run([BIN, 'search', '--repo', repo, '--json', '--batch', '--top', str(top)],
                       input=inp, capture_output=True, text=True, check=True)
    res = []
    for line in p.stdout.splitlines():
        if line.strip():
            files = {}
            for h in json.loads(line).get('hits', []):
                files.setdefault(h['file'], h['score'])
            res.append(list(files.items()))
    return res


def rerank(r, f=0.2, seeds=3, imp=0.0):
    scores, bonus = dict(r), {}
    for file, s in r[:seeds]:
        for kind, n, out in nbk[file]:
            w = W.get(kind, 0.0)
            if kind in ('imports', 'route-ref') and n in scores and out:
                w = imp
            b = f * w * s * role(n)
            if b > 0 and n != file:
                bonus[n] = max(bonus.get(n, 0.0), b)
    new = {k: v + bonus.get(k, 0.0) for k, v in scores.items()}
    for k, b in bonus.items():
        new.setdefault(k, b)
    return [k for k, _ in sorted(new.items(), key=lambda kv: (-kv[1], kv[0]))]


def ev(lists, idx):
    r10 = mrr = 0.0
    for i in idx:
        gold = set(qs[i]['gold_files'])
        rk = next((j + 1 for j, f in enumerate(lists[i][:10]) if f in gold), None)
        if rk:
            r10 += 1
            mrr += 1 / rk
    return r10 / len(idx), mrr / len(idx)


off = run({'framework_link': 0}, 50)
on = run({}, 10)
same = sum(rerank(off[i])[:10] == [k for k, _ in on[i]] for i in range(len(qs)))
print(f'simulation = binary (links on) for {same} of {len(qs)} queries')
halves = {'A': [i for i, q in enumerate(qs) if int(q['sha'][:8], 16) % 2 == 0],
          'B': [i for i, q in enumerate(qs) if int(q['sha'][:8], 16) % 2 == 1],
          'all': list(range(len(qs)))}
offl = [[k for k, _ in r] for r in off]
onl = [[k for k, _ in r] for r in on]
for h, idx in halves.items():
    miss = [i for i in idx if not set(qs[i]['gold_files']) & set(offl[i][:10])]
    reach = {k: sum(any(set(qs[i]['gold_files']) & {n for _, n, _ in nbk[f]} for f in offl[i][:k])
                    for i in miss) for k in (3, 10, 50)}
    print(f'half {h}: n={len(idx)} links off R@10/MRR@10 {ev(offl, idx)[0]:.3f}/{ev(offl, idx)[1]:.3f}, '
          f'on {ev(onl, idx)[0]:.3f}/{ev(onl, idx)[1]:.3f}; {len(miss)} misses, a gold file is a '
          f'neighbour of the first 3 / 10 / 50 files in {reach[3]} / {reach[10]} / {reach[50]} '
          f'(ceiling from the first 10: +{reach[10] / len(idx):.3f} R@10)')
print('grid: seeds, framework_link, imports-among-candidates -> R@10/MRR@10 per half')
for seeds, f, imp in itertools.product((3, 5, 10), (0.1, 0.2, 0.3, 0.5), (0, 0.25, 0.5, 1.0)):
    L = [rerank(r, f, seeds, imp) for r in off]
    print(seeds, f, imp, ' '.join(f'{h} {ev(L, idx)[0]:.3f}/{ev(L, idx)[1]:.3f}' for h, idx in halves.items()))
