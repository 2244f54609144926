#!/usr/bin/env python3
"""Whole-process PreToolUse latency of two hook binaries, each run directly (exec form) and through
the installed shell form `sh -c '<bin> || exit 2'`, next to /bin/true. A throwaway repository in
/tmp/lat/repo (no session: Read is allowed, Write denied).

Usage: scripts/bench-hook-forms.py BEFORE_BIN AFTER_BIN   (release builds of code-intel-pre-tool-use)
"""
import subprocess, time, json, statistics, os, sys
repo='/tmp/lat/repo'
read=json.dumps({"session_id":"s1","cwd":repo,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":repo+"/src/a.py"}}).encode()
write=json.dumps({"session_id":"s1","cwd":repo,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":repo+"/src/a.py","content":"y"}}).encode()
env=dict(os.environ, CLAUDE_PROJECT_DIR=repo)
def run(cmd, inp, n=400):
    ts=[]
    for _ in range(n):
        t=time.perf_counter(); subprocess.run(cmd, input=inp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env); ts.append((time.perf_counter()-t)*1000)
    ts.sort(); return ts[len(ts)//2], ts[int(len(ts)*0.95)]
os.makedirs(repo + '/src', exist_ok=True)
open(repo + '/src/a.py', 'w').write('x\n')
for label, binp in [('before', sys.argv[1]), ('after', sys.argv[2])]:
    for name, inp in [('Read (allow)', read), ('Write (deny)', write)]:
        print(label, name, 'exec p50/p95 ms %.2f/%.2f' % run([binp], inp), ' sh -c "|| exit 2" p50/p95 ms %.2f/%.2f' % run(['sh','-c',binp+' || exit 2'], inp))
print('hello-world (true) %.2f/%.2f' % run(['/bin/true'], b''), ' sh -c true %.2f/%.2f' % run(['sh','-c','true'], b''))
