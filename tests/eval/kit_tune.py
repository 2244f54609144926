"""Coordinate ascent over RankParams on R@10 + MRR@10 of the given corpora (two-fold selection:
tune on two corpora, report kit_rank.py on the other two). Usage: kit_tune.py vite,akaunting [JSON start]."""
import json, os, subprocess, sys, re
corpora = sys.argv[1]
grid = {
 'symbol': [0.0, 0.1, 0.25, 0.5, 1.0], 'qualified_name': [0.0, 0.1, 0.25, 0.5, 1.0],
 'signature': [0.0, 0.1, 0.25, 0.5, 1.0], 'docstring': [0.0, 0.1, 0.25, 0.5, 1.0],
 'path': [0.1, 0.25, 0.5, 1.0], 'content': [0.5, 1.0, 1.5, 2.0], 'imports': [0.0, 0.25, 0.5, 1.0],
 'generic_word': [0.0, 0.1, 0.2, 0.3, 0.5, 0.7], 'test_factor': [0.2, 0.35, 0.5, 0.7, 1.0],
 'doc_factor': [0.1, 0.3, 0.5, 1.0], 'text_factor': [0.3, 0.5, 0.7, 1.0],
 'file_extra': [0.0, 0.2, 0.3, 0.5, 0.7, 1.0], 'candidates': [100, 200, 400, 800],
 'coverage': [0.0, 0.25, 0.5, 1.0, 2.0], 'size_prior': [0.0, 0.05, 0.1, 0.2],
}
cur = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
def score(p):
    out = subprocess.run(['python3', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kit_rank.py'), '--corpora', corpora, '--rank', json.dumps(p)], capture_output=True, text=True).stdout
    last = out.strip().splitlines()[-1]
    r10 = float(re.search(r'R@10 ([\d.]+)', last).group(1)); mrr = float(re.search(r'MRR ([\d.]+)', last).group(1))
    return r10 + mrr, last
best, line = score(cur)
print('start', best, line, flush=True)
for rnd in range(2):
    changed = False
    for k, vals in grid.items():
        for v in vals:
            p = dict(cur, **{k: v})
            if p == cur: continue
            s, l = score(p)
            if s > best + 0.002:
                best, cur, line, changed = s, p, l, True
                print(f'  {k}={v} -> {s:.4f} {l}', flush=True)
    print('round', rnd, json.dumps(cur), best, line, flush=True)
    if not changed: break
