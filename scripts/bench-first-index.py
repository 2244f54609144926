#!/usr/bin/env python3
"""Times the first (cold) lexical index of repositories, beside `ctags -R` and semble's indexer.

Usage: scripts/bench-first-index.py [--bin PATH] [--runs N] [--tools code-intel,ctags,semble]
                                    [--semble-python PATH] REPO [REPO ...]

Each REPO is a working tree. It is copied with hard links (`cp -al`, no file data copied) into a
scratch directory without its `.code-intel/`, so every code-intel run starts with no index; the
page cache is left as it is (warm after the first run: the timings are of the work, not of the
disk). Per run it prints one JSON line: the tool, the repository, wall seconds, CPU seconds (user + system), the load average
before and after (the machine may be shared: read the timings with it), and for code-intel the
sync report's stage split (`timings`, see `SyncTimings` in core/src/index.rs).

- code-intel: `code-intel index --json` in the copy (the lexical index; no embedding).
- ctags: `ctags -R -f TAGS .` (universal-ctags; every file, .gitignore not read).
- semble: semble's own `create_index_from_path` (walk, chunk, BM25 tokenisation and postings)
  with the embedding step replaced by zeros, so only its lexical path is timed (it runs
  offline); chunking in SEMBLE_INDEX_WORKERS=2 processes, as many as the cores here.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEMBLE_LEXICAL = r"""
import sys, time
import numpy as np
import semble.index.create as create
from semble.types import ContentType

class Model:
    dim = 8

create.embed_chunks = lambda model, chunks: np.zeros((len(chunks), 8), dtype=np.float32)
start = time.perf_counter()
bm25, _, chunks, manifest = create.create_index_from_path(__import__('pathlib').Path(sys.argv[1]).resolve(), Model())
print(f"{time.perf_counter() - start:.3f} {len(manifest)} {len(chunks)}")
"""


def loadavg() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


def cpu_children() -> float:
    """User + system CPU seconds of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


CPU = {"last": 0.0}


def timed(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, str]:
    """Runs `cmd`; its wall seconds and stdout. Its CPU seconds (user + system, with its
    children's) go to CPU["last"]."""
    cpu = cpu_children()
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    CPU["last"] = cpu_children() - cpu
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return wall, done.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--bin", default="target/dist/code-intel")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--tools", default="code-intel,ctags,semble")
    ap.add_argument("--semble-python", default="/tmp/semble-venv/bin/python")
    args = ap.parse_args()
    binary = str(Path(args.bin).resolve())
    tools = args.tools.split(",")
    for repo in args.repos:
        scratch = Path(tempfile.mkdtemp(prefix="first-index-"))
        tree = scratch / repo.name
        subprocess.run(["cp", "-al", str(repo), str(tree)], check=True)
        shutil.rmtree(tree / ".code-intel", ignore_errors=True)
        try:
            for run in range(args.runs):
                for tool in tools:
                    row = {"tool": tool, "repo": str(repo), "run": run, "load_before": loadavg()}
                    if tool == "code-intel":
                        shutil.rmtree(tree / ".code-intel", ignore_errors=True)
                        wall, out = timed([binary, "index", "--json"], tree)
                        report = json.loads(out)
                        row.update(
                            files=report["files_added"],
                            chunks=report["chunks"],
                            sync_ms=report["duration_ms"],
                            timings=report.get("timings"),
                        )
                    elif tool == "ctags":
                        tags = scratch / "tags"
                        wall, _ = timed(["ctags", "-R", "-f", str(tags), "."], tree)
                        row.update(tags=sum(1 for _ in open(tags, errors="replace")))
                        tags.unlink()
                    elif tool == "semble":
                        env = dict(os.environ, SEMBLE_INDEX_WORKERS="2")
                        wall, out = timed(
                            [args.semble_python, "-c", SEMBLE_LEXICAL, str(tree)], tree, env
                        )
                        inner, files, chunks = out.split()
                        row.update(files=int(files), chunks=int(chunks), index_s=float(inner))
                    else:
                        sys.exit(f"unknown tool {tool}")
                    row.update(wall_s=round(wall, 2), cpu_s=round(CPU["last"], 2), load_after=loadavg())
                    print(json.dumps(row), flush=True)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
