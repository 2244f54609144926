#!/usr/bin/env python3
"""Command lines for scripts/bash-diff.sh REV --corpus FILE: every command of the Bash lists
(bash/cases/*.tsv), every string literal of the analyser's unit tests (bash/src/tests.rs) that
reads like a command line, and generated interpreter one-liners: each call name of the
interpreter tables (bash/src/interp*) called with a path in Python, Node, Perl, Ruby and PHP,
bare, as a method and as a module member, with a read and a write mode. Written NUL-separated.

Usage: scripts/bash-corpus.py OUT
"""
import glob, re, sys

repo = __file__.rsplit('/scripts/', 1)[0]
cmds = []
for tsv in sorted(glob.glob(repo + '/bash/cases/*.tsv')):
    for line in open(tsv, encoding='utf-8'):
        if line.startswith('#') or not line.strip():
            continue
        parts = line.rstrip('\n').split('\t')
        if len(parts) >= 4:
            cmds.append('\t'.join(parts[3:]).replace('⏎', '\n').replace('⇥', '\t'))

def rust_strings(text):
    # r#"..."#, r"...", "..." (with escapes)
    for m in re.finditer(r'r(#*)"(.*?)"\1|"((?:[^"\\]|\\.)*)"', text, re.S):
        if m.group(2) is not None:
            yield m.group(2)
        else:
            s = m.group(3)
            s = re.sub(r'\\(.)', lambda e: {'n': '\n', 't': '\t', '\\': '\\', '"': '"', "'": "'", '0': '\0'}.get(e.group(1), '\\' + e.group(1)), s)
            yield s

for f in [repo + '/bash/src/tests.rs'] + glob.glob(repo + '/bash/src/**/*.rs', recursive=True):
    for s in rust_strings(open(f, encoding='utf-8').read()):
        if ' ' in s and '\0' not in s and len(s) < 2000:
            cmds.append(s)

names = set()
for f in glob.glob(repo + '/bash/src/interp*.rs') + glob.glob(repo + '/bash/src/interp/*.rs'):
    text = open(f, encoding='utf-8').read()
    for m in re.finditer(r'\(\s*"([^"]*)"\s*,\s*Call::', text, re.S):
        for p in m.group(1).replace('\\\n', ' ').split():
            names.add(p.lstrip('*.'))
for n in sorted(names):
    last = re.split(r'[.:]', n)[-1]
    for mode in ['w', 'r']:
        cmds += [
            f"python3 -c \"{n}('src/m1.py', '{mode}')\"",
            f"python3 -c \"import os; x.{last}('src/m1.py', '{mode}')\"",
            f"python3 -c \"from m import {last}; {last}('src/m1.py')\"",
            f"python3 -c \"f = {n}; f('src/m1.py')\"",
            f"python3 -c \"getattr(os, '{last}')('src/m1.py')\"",
            f"node -e \"{n}('src/m1.py', '{mode}')\"",
            f"node -e \"const fs = require('fs'); fs.{last}('src/m1.py', 'x')\"",
            f"node -e \"require('child_process').{last}('touch src/m1.py')\"",
            f"node -e \"fs['{last}']('src/m1.py')\"",
            f"perl -e '{n} \"src/m1.py\"'",
            f"perl -e '{last}(\"src/m1.py\")'",
            f"perl -e 'my $r = \\&{last}; $r->(\"src/m1.py\")'",
            f"ruby -e '{n}(\"src/m1.py\", \"{mode}\")'",
            f"ruby -e 'File.{last}(\"src/m1.py\")'",
            f"ruby -e 'send(:{last}, \"src/m1.py\")'",
            f"php -r '{n}(\"src/m1.py\", \"{mode}\");'",
            f"php -r '$f = \"{last}\"; $f(\"src/m1.py\");'",
            f"php -r 'array_map(\"{last}\", [\"src/m1.py\"]);'",
            f"awk '{{ {last}(\"src/m1.py\") }}' f",
        ]
seen = set()
out = [c for c in cmds if not (c in seen or seen.add(c))]
open(sys.argv[1], 'w', encoding='utf-8').write('\0'.join(out))
print(len(out), 'command lines', file=sys.stderr)
