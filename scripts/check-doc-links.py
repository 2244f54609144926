#!/usr/bin/env python3
"""Check the links of the repository's Markdown and the doc anchors cited in code.

1. Every relative link in a tracked Markdown file (`[text](path)`, `[text](path#anchor)`,
   `[text](#anchor)`) names a file or directory that exists, and its anchor is a heading
   of that file (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens,
   `-1`, `-2` for repeats) or an `<a id="…">` in it.
2. Every `<NAME>.md#<anchor>` cited in a tracked source file (Rust, shell, Python, TOML,
   JSON, JS/TS) resolves the same way, `<NAME>.md` being `docs/<NAME>.md` or the root's,
   and every `docs/<NAME>.md` or `docs/log/<record>.md` path such a file names exists.
3. Every record in `docs/log/` has its line in `docs/log/README.md`.

Links to other sites (`http:`, `https:`, `mailto:`) and into `../shared/` (the
development kit, outside the repository) are not checked. Exit 1 with one line per
broken link, 0 when all resolve.

    python3 scripts/check-doc-links.py          # from the repository root
"""

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
CITED = re.compile(r"\b((?:docs/)?[A-Z][A-Z_]*\.md)#([A-Za-z0-9_-]+)")
DOC_PATH = re.compile(r"(?<![\w/.-])(docs/(?:log/[0-9][\w.-]*|[A-Z][A-Z_]*)\.md)\b")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
FENCE = re.compile(r"^\s*(```|~~~)")
SOURCE_EXT = {".rs", ".sh", ".py", ".toml", ".json", ".js", ".mjs", ".ts", ".yml", ".yaml"}


def tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    return [ROOT / line for line in out.splitlines() if (ROOT / line).is_file()]


def slug(text: str) -> str:
    """GitHub's heading anchor: markup removed, lower case, punctuation dropped."""
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = text.replace("`", "").lower()
    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " -_" or cat[0] in "LN" or cat == "Mn":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def anchors(path: Path, cache: dict) -> set:
    if path not in cache:
        found, seen, fenced = set(), {}, False
        for line in path.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            found.update(ANCHOR.findall(line))
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def strip_code(text: str) -> str:
    """Markdown without fenced blocks and inline code spans (links there are not links)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def check_target(src: Path, target: str, cache: dict) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
        return None
    path_part, _, frag = target.partition("#")
    if path_part:
        dest = (src.parent / path_part).resolve()
        try:
            dest.relative_to(ROOT)
        except ValueError:
            return None  # outside the repository (../shared/…): not ours to check
        if not dest.exists():
            return f"missing file {path_part}"
    else:
        dest = src
    if frag and dest.suffix == ".md" and dest.is_file():
        if frag not in anchors(dest, cache):
            return f"no heading #{frag} in {dest.relative_to(ROOT)}"
    return None


def main() -> int:
    files = tracked()
    cache: dict = {}
    errors = []
    md_by_name: dict = {}
    for f in files:
        if f.suffix == ".md":
            md_by_name.setdefault(f.name, []).append(f)
    for f in files:
        rel = f.relative_to(ROOT)
        if rel.parts[0] in {"target", ".e2e-cache", "node_modules"} or "node_modules" in rel.parts:
            continue
        if f.suffix == ".md":
            # Whole text, not line by line: a link's text may wrap onto the next line.
            text = strip_code(f.read_text(encoding="utf-8"))
            for m in list(LINK.finditer(text)) + list(IMAGE.finditer(text)):
                err = check_target(f, m.group(1), cache)
                if err:
                    lineno = text.count("\n", 0, m.start(1)) + 1
                    errors.append(f"{rel}:{lineno}: {m.group(1)}: {err}")
        elif f.suffix in SOURCE_EXT:
            try:
                text = f.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            for lineno, line in enumerate(text.splitlines(), 1):
                for m in DOC_PATH.finditer(line):
                    if not (ROOT / m.group(1)).is_file():
                        errors.append(f"{rel}:{lineno}: {m.group(1)}: missing file")
                for m in CITED.finditer(line):
                    name, frag = m.group(1), m.group(2)
                    cands = [ROOT / name] if "/" in name else [ROOT / "docs" / name, ROOT / name]
                    dest = next((c for c in cands if c.is_file()), None)
                    if dest is None:
                        errors.append(f"{rel}:{lineno}: {name}#{frag}: missing file")
                    elif frag not in anchors(dest, cache):
                        errors.append(
                            f"{rel}:{lineno}: {name}#{frag}: no heading #{frag} in {dest.relative_to(ROOT)}"
                        )
    # 3. The log's index lists every record.
    log = ROOT / "docs" / "log"
    if log.is_dir():
        index = (log / "README.md").read_text(encoding="utf-8") if (log / "README.md").is_file() else ""
        for record in sorted(log.glob("*.md")):
            if record.name != "README.md" and f"]({record.name})" not in index:
                errors.append(f"docs/log/README.md: {record.name} is not listed (one line per record)")
    for e in errors:
        print(e)
    print(f"check-doc-links: {len(errors)} broken", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
