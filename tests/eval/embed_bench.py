#!/usr/bin/env python3
"""Benchmarks of the semantic layer's responsiveness (docs/BENCHMARKS.md, "Semantic layer on 2
cores"). Every mode prints one JSON object per measurement, with the load average next to it.

  first-semantic REPO       copy REPO, `index` it, then run one hybrid search: seconds until a
                            search returns hits with a vector score (query-time embedding), and
                            how many hits had one
  latency REPO QUERIES      `search --batch` in one process, one query at a time, on a fresh copy:
                            per-query wall time with query-time embedding (`query_embed` true)
                            and without (false), p50/p95, plus the coverage reached
  server REPO               `code-intel serve` on a fresh copy: RSS once the model is loaded and
                            idle; find_definitions / search_text latency while the background
                            embeds vs once it is done (or after --idle-after seconds)

QUERIES is a kit query file (jsonl with "query"). The binary is $CODE_INTEL_BIN or
target/release/code-intel."""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

from mcp_client import McpClient

BIN = os.environ.get('CODE_INTEL_BIN', 'target/release/code-intel')


def load():
    return os.getloadavg()


def fresh_copy(repo):
    d = tempfile.mkdtemp(prefix='embed-bench-')
    dst = os.path.join(d, os.path.basename(repo.rstrip('/')))
    shutil.copytree(repo, dst, symlinks=True, ignore=shutil.ignore_patterns('.code-intel'))
    return d, dst


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round((len(xs) - 1) * p)))]


def has_vector(hit):
    return any(p.get('signal') == 'vector' and p.get('raw') is not None
               for p in hit.get('explanation', {}).get('parts', []))


def first_semantic(a):
    d, repo = fresh_copy(a.repo)
    try:
        t0 = time.time()
        p = subprocess.run([BIN, 'index', '--repo', repo, '--json'], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-2000:]
        t_index = time.time() - t0
        t1 = time.time()
        p = subprocess.run([BIN, 'search', '--repo', repo, '--json', '--top', '10', a.query],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-2000:]
        t_search = time.time() - t1
        o = json.loads(p.stdout)
        print(json.dumps({'mode': 'first-semantic', 'repo': a.repo, 'index_s': round(t_index, 1),
                          'search_s': round(t_search, 2), 'total_s': round(time.time() - t0, 1),
                          'search_mode': o.get('mode'), 'hits_with_vector': sum(map(has_vector, o.get('hits', []))),
                          'hits': len(o.get('hits', [])), 'query_embedding': o.get('query_embedding'),
                          'coverage': o.get('coverage'), 'load': load()}))
    finally:
        shutil.rmtree(d)


def latency(a):
    qs = [json.loads(l)['query'] for l in open(a.queries)][: a.limit]
    out = {}
    for qte in (True, False):
        d, repo = fresh_copy(a.repo)
        try:
            p = subprocess.run([BIN, 'index', '--repo', repo, '--json'], capture_output=True, text=True)
            assert p.returncode == 0, p.stderr[-2000:]
            proc = subprocess.Popen([BIN, 'search', '--repo', repo, '--json', '--batch', '--top', '10'],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
            times, last = [], None
            # Warm-up (model load, index open) is not a query of the run.
            proc.stdin.write(json.dumps({'query': 'warm up', 'mode': 'hybrid', 'query_embed': False}) + '\n')
            proc.stdout.readline()
            with_vec = 0
            for q in qs:
                t = time.time()
                proc.stdin.write(json.dumps({'query': q, 'mode': 'hybrid', 'query_embed': qte}) + '\n')
                last = json.loads(proc.stdout.readline())
                times.append((time.time() - t) * 1000)
                with_vec += any(map(has_vector, last.get('hits', [])))
            proc.stdin.close()
            proc.wait()
            out[qte] = {'n': len(times), 'p50_ms': round(pct(times, .5), 1), 'p95_ms': round(pct(times, .95), 1),
                        'mean_ms': round(statistics.mean(times), 1), 'queries_with_vector_scores': with_vec,
                        'coverage_end': (last or {}).get('coverage'), 'load': load()}
        finally:
            shutil.rmtree(d)
    print(json.dumps({'mode': 'latency', 'repo': a.repo, 'with_query_embedding': out[True],
                      'without': out[False]}))


def coverage(repo):
    p = subprocess.run([BIN, 'status', '--repo', repo, '--json'], capture_output=True, text=True)
    try:
        return json.loads(p.stdout).get('vectors', {}).get('coverage', {})
    except json.JSONDecodeError:
        return {}


def server(a):
    d, repo = fresh_copy(a.repo)
    try:
        p = subprocess.run([BIN, 'index', '--repo', repo, '--json'], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-2000:]
        env = dict(os.environ, CODE_INTEL_LOG='warn')
        m = McpClient(BIN, repo, env=env, client_name='embed_bench')
        m.call_tool('start_session', {'intent': 'INVESTIGATE', 'query': 'How is the configuration loaded?'})
        calls = [('find_definitions', {'symbol': a.symbol}), ('search_text', {'pattern': a.pattern})]

        def sample(n):
            lat = []
            for i in range(n):
                name, args = calls[i % 2]
                ms, _ = m.timed_call_tool(name, args)
                lat.append(ms)
                time.sleep(0.2)
            return {'n': n, 'p50_ms': round(pct(lat, .5), 1), 'p95_ms': round(pct(lat, .95), 1),
                    'max_ms': round(max(lat), 1)}

        time.sleep(a.settle)  # model load; the background run starts
        busy_cov = coverage(repo)
        during = sample(a.n)
        during['coverage'] = coverage(repo)
        during['load'] = load()
        t0 = time.time()
        while time.time() - t0 < a.idle_after:
            c = coverage(repo)
            if c and c.get('pending_texts', 1) == 0:
                break
            time.sleep(5)
        time.sleep(3)
        idle_rss = m.rss_mib()
        idle = sample(a.n)
        idle['coverage'] = coverage(repo)
        idle['load'] = load()
        print(json.dumps({'mode': 'server', 'repo': a.repo, 'coverage_at_start': busy_cov,
                          'tool_latency_during_background': during, 'tool_latency_after': idle,
                          'rss_mib_after': round(idle_rss, 1)}))
        m.close()
    finally:
        shutil.rmtree(d)


ap = argparse.ArgumentParser()
sub = ap.add_subparsers(dest='cmd', required=True)
s = sub.add_parser('first-semantic'); s.add_argument('repo'); s.add_argument('--query', default='validate the request input')
s = sub.add_parser('latency'); s.add_argument('repo'); s.add_argument('queries'); s.add_argument('--limit', type=int, default=60)
s = sub.add_parser('server'); s.add_argument('repo'); s.add_argument('--n', type=int, default=40)
s.add_argument('--settle', type=float, default=8); s.add_argument('--idle-after', type=float, default=120)
s.add_argument('--symbol', default='Request'); s.add_argument('--pattern', default='function handle')
a = ap.parse_args()
{'first-semantic': first_semantic, 'latency': latency, 'server': server}[a.cmd](a)
