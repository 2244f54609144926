#!/usr/bin/env python3
"""Index scale benchmark: the lexical index of generated repositories of growing size, side by side
with what a user would otherwise run on the same files, in one run.

    cargo build --release -p code-intel-mcp
    scripts/bench-index-scale.py                 # 1k, 3k, 10k files
    scripts/bench-index-scale.py 1000 3000 10000 50000
    scripts/bench-index-scale.py --repo DIR      # an existing tree (e.g. an unpacked git archive)
    scripts/bench-index-scale.py 1000 3000 10000 50000 --plot docs/index-scale.svg   # and the plot

Per repository (runs interleaved with the comparison tool, median of RUNS):
- full lexical index from scratch (`code-intel index`, no embedding model) vs `ctags -R`: wall and
  CPU (user + sys) time, peak RSS, from `/usr/bin/time`;
- no-change re-sync (`code-intel index` again) vs `sha256sum` over the same files, both run
  directly (wall time of the process as Python's `subprocess` sees it);
- one edited file searchable: append a function to one file, `code-intel index`, then
  `code-intel search` finds it (wall of both processes; the sync's own `duration_ms`).

Generated files get an mtime an hour in the past, so the racy-mtime rule (re-hash entries whose
mtime is within 2 s of their indexing) does not turn the first re-sync into a re-hash. Likewise,
before the re-syncs are timed the script waits 2.1 s after the last full index (which created
`.code-intel/` in the root, a directory change) and runs one untimed sync: a walk records its stamp
(core/src/index/sync/stamp.rs) only when no directory changed within 2 s of it, and a sync skips
the walk only once a stamp is recorded. The table says how many timed re-syncs walked.
Nothing is asserted; numbers go to stdout as a Markdown table.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 3
WORKSPACE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("CODE_INTEL_BIN", os.path.join(WORKSPACE, "target/release/code-intel"))
ENV = dict(os.environ, CODE_INTEL_MODEL_DIR="/nonexistent/code-intel-models", CODE_INTEL_LOG="warn")


def generate(n, root):
    """n small files in Python, JavaScript, PHP and TypeScript, 50 packages x 20 folders."""
    past = time.time() - 3600
    for i in range(n):
        d = os.path.join(root, f"pkg{i % 50}", f"sub{(i // 50) % 20}")
        os.makedirs(d, exist_ok=True)
        k = i % 4
        if k == 0:
            name, body = f"mod_{i}.py", (
                f'class Service{i}:\n    """Handles order {i}."""\n\n    def process_order_{i}(self, order):\n'
                f"        total = sum(item.price for item in order.items)\n        return total * {i}\n\n\n"
                f"def helper_{i}(x):\n    return x + {i}\n")
        elif k == 1:
            name, body = f"mod_{i}.js", (
                f"/** Render widget {i}. */\nexport function renderWidget{i}(items) {{\n"
                f"  return items.map((x) => x * {i});\n}}\n\nexport class Widget{i} {{\n  draw() {{ return {i}; }}\n}}\n")
        elif k == 2:
            name, body = f"Mod{i}.php", (
                f"<?php\nnamespace App\\Pkg{i % 50};\n\nclass Controller{i}\n{{\n    /** Store record {i}. */\n"
                f'    public function store{i}($request)\n    {{\n        return $request->input("x{i}");\n    }}\n}}\n')
        else:
            name, body = f"mod_{i}.ts", (
                f"export interface Item{i} {{ id: number; name: string }}\n\n"
                f'export function loadItems{i}(ids: number[]): Item{i}[] {{\n  return ids.map((id) => ({{ id, name: "n{i}" }}));\n}}\n')
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(body)
        os.utime(path, (past, past))


def timed(cmd, **kw):
    """(wall s, cpu s, peak RSS MiB, stdout) of one process, via /usr/bin/time."""
    fmt = "%e %U %S %M"
    with tempfile.NamedTemporaryFile("r") as t:
        start = time.monotonic()
        out = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", fmt] + cmd, env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, **kw)
        wall = time.monotonic() - start
        _, user, sys_, rss = t.read().split()[-4:]
    return wall, float(user) + float(sys_), int(rss) / 1024, out.stdout


def plain(cmd):
    """(wall s, stdout) of one process run directly, as `sha256sum` is run (no /usr/bin/time)."""
    start = time.monotonic()
    out = subprocess.run(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    return time.monotonic() - start, out.stdout


def sources(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        out += [os.path.join(d, f) for f in files if not f.startswith(".")]
    return out


def med(xs):
    return statistics.median(xs)


def bench(root, label):
    state = os.path.join(root, ".code-intel")
    files = sources(root)
    index, ctags = [], []
    for _ in range(RUNS):
        shutil.rmtree(state, ignore_errors=True)
        wall, cpu, rss, out = timed([BIN, "index", "--repo", root, "--json"])
        report = json.loads(out)
        index.append((wall, cpu, rss))
        ctags.append(timed(["ctags", "-R", "-f", "/dev/null", "--exclude=.code-intel", root])[:3])
    time.sleep(2.1)
    timed([BIN, "index", "--repo", root, "--json"])
    resync, resync_ms, sha, walked = [], [], [], 0
    for _ in range(RUNS + 2):
        wall, out = plain([BIN, "index", "--repo", root, "--json"])
        resync.append(wall)
        resync_ms.append(json.loads(out)["duration_ms"])
        walked += json.loads(out).get("walked", True)
        # One sha256sum process per 2,000 files, like xargs does.
        start = time.monotonic()
        for k in range(0, len(files), 2000):
            subprocess.run(["sha256sum"] + files[k:k + 2000], stdout=subprocess.DEVNULL, check=True)
        sha.append(time.monotonic() - start)
    edit, edit_ms, found = [], [], 0
    # The edited file: the first Python file, else PHP, else JavaScript, in path order.
    by_ext = {ext: sorted(f for f in files if f.endswith(ext)) for ext in (".py", ".php", ".js")}
    ext = next(e for e in (".py", ".php", ".js") if by_ext[e])
    target = by_ext[ext][len(by_ext[ext]) // 2]
    for k in range(RUNS + 2):
        name = f"planted_bench_function_{k}"
        code = {
            ".py": f"\n\ndef {name}(x):\n    return x\n",
            ".php": f"\nfunction {name}($x)\n{{\n    return $x;\n}}\n",
            ".js": f"\nfunction {name}(x) {{\n  return x;\n}}\n",
        }[ext]
        with open(target, "a") as f:
            f.write(code)
        start = time.monotonic()
        _, _, _, out = timed([BIN, "index", "--repo", root, "--json"])
        _, _, _, hits = timed([BIN, "search", "--repo", root, "--json", "--top", "3", name])
        edit.append(time.monotonic() - start)
        edit_ms.append(json.loads(out)["duration_ms"])
        found += any(h.get("symbol") == name for h in json.loads(hits).get("hits", []))
    i_wall, i_cpu, i_rss = (med([r[j] for r in index]) for j in range(3))
    c_wall, c_cpu, c_rss = (med([r[j] for r in ctags]) for j in range(3))
    POINTS.append({"files": len(files), "index": i_wall, "ctags": c_wall, "resync": med(resync),
                   "sha256sum": med(sha), "edit": med(edit)})
    return (f"| {label} | {len(files):,} / {report['chunks']:,} | {i_wall:.2f} s / {i_cpu:.2f} s / {i_rss:.0f} MiB "
            f"| {c_wall:.2f} s / {c_cpu:.2f} s / {c_rss:.0f} MiB | {i_wall / c_wall:.1f}× / {i_cpu / c_cpu:.1f}× "
            f"| {med(resync) * 1e3:.0f} ms ({med(resync_ms):.0f} ms in sync; walked {walked}/{RUNS + 2}) "
            f"| {med(sha) * 1e3:.0f} ms "
            f"| {med(resync) / med(sha):.2f}× "
            f"| {med(edit) * 1e3:.0f} ms ({med(edit_ms):.0f} ms in sync), found {found}/{RUNS + 2} |")


POINTS = []

# (key, legend, colour, dashed): each series of the plot; the comparison tools dashed.
SERIES = [
    ("index", "full index (code-intel index)", "#1f77b4", False),
    ("ctags", "ctags -R", "#1f77b4", True),
    ("resync", "no-change re-sync (code-intel index)", "#d62728", False),
    ("sha256sum", "sha256sum over the files", "#d62728", True),
    ("edit", "one edited file searchable (index + search)", "#2ca02c", False),
]


def plot(points, path):
    """A log-log SVG of each series' wall time against the number of files (no plotting library:
    the chart is a few lines and circles)."""
    import math
    w, h, left, right, top, bottom = 820, 440, 70, 340, 20, 50
    xs = [p["files"] for p in points]
    ys = [p[k] for p in points for k, *_ in SERIES]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    x1 = x1 if x1 > x0 else x0 + 1
    px = lambda x: left + (math.log10(x) - x0) / (x1 - x0) * (w - left - right)
    py = lambda y: top + (y1 - math.log10(y)) / (y1 - y0) * (h - top - bottom)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>']
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        label = f"{10 ** e * 1000:g} ms" if e < 0 else f"{10 ** e:g} s"
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{w - right}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for x in xs:
        out.append(f'<line x1="{px(x):.1f}" y1="{top}" x2="{px(x):.1f}" y2="{h - bottom}" stroke="#eee"/>')
        out.append(f'<text x="{px(x):.1f}" y="{h - bottom + 16}" text-anchor="middle">{x:,}</text>')
    out.append(f'<text x="{(left + w - right) / 2:.0f}" y="{h - 10}" text-anchor="middle">files in the repository (log scale)</text>')
    out.append(f'<text x="14" y="{(top + h - bottom) / 2:.0f}" transform="rotate(-90 14 {(top + h - bottom) / 2:.0f})" text-anchor="middle">wall time, median (log scale)</text>')
    for i, (key, legend, colour, dashed) in enumerate(SERIES):
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        pts = " ".join(f"{px(p['files']):.1f},{py(p[key]):.1f}" for p in points)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        out += [f'<circle cx="{px(p["files"]):.1f}" cy="{py(p[key]):.1f}" r="3" fill="{colour}"/>' for p in points]
        ly = top + 20 + i * 22
        out.append(f'<line x1="{w - right + 15}" y1="{ly}" x2="{w - right + 45}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{w - right + 52}" y="{ly + 4}">{legend}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    args = sys.argv[1:]
    svg = None
    if "--plot" in args:
        k = args.index("--plot")
        svg = args[k + 1]
        del args[k:k + 2]
    print("| repository | files / chunks | full index wall / CPU / peak RSS | `ctags -R` wall / CPU / RSS "
          "| index ÷ ctags (wall / CPU) | no-change re-sync (process) | `sha256sum` | re-sync ÷ sha256sum "
          "| edit → searchable (index + search processes) |")
    print("|---|---|---|---|---|---|---|---|---|")
    if args[:1] == ["--repo"]:
        print(bench(os.path.abspath(args[1]), os.path.basename(args[1].rstrip("/"))), flush=True)
        return
    for n in [int(a) for a in args] or [1000, 3000, 10000]:
        with tempfile.TemporaryDirectory() as root:
            generate(n, root)
            print(bench(root, f"generated {n:,}"), flush=True)
    if svg:
        plot(POINTS, svg)


if __name__ == "__main__":
    main()
