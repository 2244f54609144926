#!/usr/bin/env python3
"""Whole-process PreToolUse cost of two release builds of code-intel-pre-tool-use, interleaved run
by run: wall time and the child's CPU time (user+sys from getrusage, less sensitive to other
load). A temporary repository, no session, strict mode; the bypassPermissions row needs
code-intel-sandbox next to each hook (the rewrite).

Usage: scripts/bench-hook-cpu.py BEFORE_BIN AFTER_BIN [RUNS]   (absolute paths)"""
import json, os, resource, statistics, subprocess, sys, tempfile, time
builds = {'before': sys.argv[1], 'after': sys.argv[2]}
N = int(sys.argv[3]) if len(sys.argv) > 3 else 200
d = tempfile.mkdtemp(prefix='gate-cpu-')
repo = os.path.join(d, 'repo'); os.makedirs(repo + '/src')
open(repo + '/src/app.py', 'w').write('x\n'); open(repo + '/.gitignore', 'w').write('target/\n')
def inp(tool, ti, mode='acceptEdits'):
    return json.dumps({"session_id": "s1", "cwd": repo, "hook_event_name": "PreToolUse", "tool_name": tool,
                       "tool_input": ti, "permission_mode": mode}).encode()
scen = {
    'Read (allow)': inp('Read', {"file_path": repo + '/src/app.py'}),
    'Write, no session (deny)': inp('Write', {"file_path": repo + '/src/app.py', "content": "y"}),
    'Bash grep -rn (allow)': inp('Bash', {"command": "grep -rn foo src | head"}),
    'Bash ls src, bypassPermissions (allow + rewrite)': inp('Bash', {"command": "ls src"}, 'bypassPermissions'),
}
env = dict(os.environ, CLAUDE_PROJECT_DIR=repo, HOME=d)
res = {(b, s): ([], []) for b in builds for s in scen}
for i in range(N):
    for s, data in scen.items():
        for b, path in (builds.items() if i % 2 == 0 else reversed(list(builds.items()))):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.perf_counter()
            subprocess.run([path], input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=repo)
            t1 = time.perf_counter(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            res[(b, s)][0].append((t1 - t0) * 1000)
            res[(b, s)][1].append(((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)) * 1000)
print(f'{N} runs each, interleaved; load average {os.getloadavg()[0]:.1f}')
for s in scen:
    for b in builds:
        w, c = res[(b, s)]
        w.sort(); c.sort()
        print(f'{s:<50} {b:<6} wall p50 {statistics.median(w):6.2f} ms  p95 {w[int(len(w)*0.95)]:6.2f}   cpu p50 {statistics.median(c):5.2f} ms  mean {statistics.mean(c):5.2f}')
import shutil
shutil.rmtree(d, ignore_errors=True)
