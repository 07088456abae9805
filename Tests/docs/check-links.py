#!/usr/bin/env python3
"""Checks the relative links of README.md and docs/*.md (`make test-docs`, part of `make test`).

Every relative link (inline `[text](target)` and `![alt](target)`, a reference definition
`[id]: target`, an HTML `href=` or `src=`) must name a file or folder that exists, resolved
against the linking file's folder. A link with a `#anchor` into a markdown file (or `#anchor`
alone, into the same file) must name one of that file's headings, as GitHub makes their anchors:
the heading's text lowercased, punctuation dropped, each space made `-`, and `-1`, `-2`, ... after
repeats. Links with a scheme (`https:`, `mailto:`) and what is inside code (fenced blocks, code
spans) are not checked. Prints one line per broken link, `FILE:LINE: ...`, and exits 1 if any.

    python3 Tests/docs/check-links.py [FILE.md ...]    (default: README.md and docs/*.md)
"""
import glob
import os
import re
import sys
import urllib.parse

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def blank(match):
    """The matched text with every character but newlines made a space (line numbers stay)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def prose(text):
    """The text with fenced code blocks and code spans blanked out, and the lines of the fences'
    insides, for the heading scan."""
    lines = text.split("\n")
    fence = None
    in_code = [False] * len(lines)
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            in_code[i] = True
        elif fence is not None:
            in_code[i] = True
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
    kept = "\n".join("" if code else line for line, code in zip(lines, in_code))
    # Code spans: a run of backticks to the next run of the same length (spans may cross lines).
    kept = re.sub(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", blank, kept, flags=re.S)
    return kept, in_code


def heading_text(raw):
    """A heading's text as GitHub renders it: code spans keep their text, links their text,
    images and emphasis markers go."""
    text = re.sub(r"(`+)(.+?)\1", lambda m: m.group(2).strip(), raw)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(\*+|\b_+|_+\b)", "", text)
    return text.strip()


def slug(text):
    """GitHub's anchor for a heading's text: lowercase, punctuation dropped, spaces made `-`."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


ANCHORS = {}


def anchors(path):
    """Every anchor of a markdown file: its headings' (with GitHub's -1, -2 for repeats) and
    explicit `id=` / `name=` ones."""
    if path in ANCHORS:
        return ANCHORS[path]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    _, in_code = prose(text)
    lines = text.split("\n")
    found, seen = set(), {}

    def add(heading):
        base = slug(heading_text(heading))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")

    for i, line in enumerate(lines):
        if in_code[i]:
            continue
        m = ATX.match(line)
        if m:
            add(m.group(2))
        elif (SETEXT.match(line) and i > 0 and not in_code[i - 1] and lines[i - 1].strip()
              and not ATX.match(lines[i - 1]) and not lines[i - 1].lstrip().startswith(("-", "*", "|", ">"))
              and not SETEXT.match(lines[i - 1])):
            add(lines[i - 1].strip())
    for m in re.finditer(r"""<[^>]*\b(?:id|name)=["']([^"']+)["']""", text):
        found.add(m.group(1))
    ANCHORS[path] = found
    return found


def destinations(text):
    """(offset, target) of every link in the text (code already blanked out)."""
    # Inline links and images: what follows `](`.
    for m in re.finditer(r"\]\(", text):
        i = m.end()
        while i < len(text) and text[i] in " \t\n":
            i += 1
        if i < len(text) and text[i] == "<":
            end = text.find(">", i)
            if end < 0:
                continue
            yield i, text[i + 1:end]
            continue
        depth, j = 0, i
        while j < len(text) and not text[j].isspace():
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                if depth == 0:
                    break
                depth -= 1
            j += 1
        if j > i:
            yield i, text[i:j]
    # Reference definitions: `[id]: target` at the start of a line.
    for m in re.finditer(r"(?m)^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?", text):
        yield m.start(1), m.group(1)
    # HTML attributes.
    for m in re.finditer(r"""<[^>]*?\b(?:href|src)=["']([^"']+)["']""", text):
        yield m.start(1), m.group(1)


def check(path):
    """The broken links of one markdown file, as `FILE:LINE: ...` lines; and how many were read."""
    with open(path, encoding="utf-8") as f:
        text, _ = prose(f.read())
    rel = os.path.relpath(path, ROOT)
    problems, count = [], 0
    for offset, target in destinations(text):
        if SCHEME.match(target) or target.startswith("//"):
            continue
        count += 1
        line = text.count("\n", 0, offset) + 1
        where, _, anchor = target.partition("#")
        where = urllib.parse.unquote(where)
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), where)) if where else path
        if not os.path.exists(resolved):
            problems.append(f"{rel}:{line}: {target}: no such file: {os.path.relpath(resolved, ROOT)}")
            continue
        if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
            if urllib.parse.unquote(anchor) not in anchors(resolved):
                problems.append(f"{rel}:{line}: {target}: {os.path.relpath(resolved, ROOT)} has no heading "
                                f"with the anchor #{anchor}")
    return problems, count


def main(args):
    files = [os.path.abspath(a) for a in args] or (
        [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))))
    problems, count = [], 0
    for path in files:
        found, n = check(path)
        problems += found
        count += n
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-links: {len(problems)} broken of {count} relative links in {len(files)} files")
        return 1
    print(f"check-links: all {count} relative links in {len(files)} files hold")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
