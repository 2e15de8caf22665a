#!/usr/bin/env python3
"""The code's structure rules, checked (CTest `structure`):

1. Every file under src/, include/, client/ and server/ has at most 1,500
   lines.
2. Every function there has at most 120 lines (from the first line of its
   signature to its closing brace; a brace-matching scan of clang-formatted C
   that skips comments, strings and preprocessor lines).
3. The engine's layers point only down: util < sym < graph < ops < import,
   cost, export < shape < passes < api. A file under src/LAYER/ includes
   headers of LAYER itself and of lower layers only (import, cost and export
   are siblings and do not include each other). Relative includes are
   resolved too. The build enforces the same rule through per-layer include
   roots (CMakeLists.txt, FL_LAYER_DEPS_*); this test also checks that those
   lists allow nothing more, and that every folder of src/ is a layer.

Offenders of rules 1 and 2 that are still being split are listed, with
their size, in tests/structure/allow.txt. An offender not listed fails; a
listed one that grew fails; a listed one that no longer offends fails as
stale (remove its line), so the list only shrinks.

Usage: check_structure.py SOURCE_DIR
"""
import os
import re
import sys

MAX_FILE_LINES = 1500
MAX_FUNCTION_LINES = 120
DIRS = ("src", "include", "client", "server")
LAYER_RANK = {"util": 0, "sym": 1, "graph": 2, "ops": 3, "import": 4, "cost": 4, "export": 4,
              "shape": 5, "passes": 6, "api": 7}


def may_include(layer, other):
    return other == layer or LAYER_RANK[other] < LAYER_RANK[layer]


def blank(text):
    """Comments, string and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def functions(text):
    """(name, first line, line count) of every function defined in C text."""
    lines = blank(text).split("\n")
    k = 0
    while k < len(lines):  # preprocessor lines, with their continuations
        if lines[k].lstrip().startswith("#"):
            while lines[k].rstrip().endswith("\\") and k + 1 < len(lines):
                lines[k] = ""
                k += 1
            lines[k] = ""
        k += 1
    s = "\n".join(lines)
    depth, head_start, current = 0, 0, None
    for m in re.finditer(r"[{};]", s):
        ch, pos = m.group(), m.start()
        if ch == "{":
            if depth == 0:
                head = s[head_start:pos].strip()
                name = re.search(r"([A-Za-z_]\w*)\s*\(", head)
                if head.endswith(")") and name and "=" not in head.split("(")[0]:
                    first = s.count("\n", 0, s.index(head, head_start)) + 1
                    current = (name.group(1), first)
                else:
                    current = None
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                if current:
                    last = s.count("\n", 0, pos) + 1
                    yield current[0], current[1], last - current[1] + 1
                current = None
                head_start = pos + 1
        elif ch == ";" and depth == 0:
            head_start = pos + 1


def source_files(top):
    for d in DIRS:
        for root, _, files in os.walk(os.path.join(top, d)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(root, f), top)


def read_allow(path):
    allow = {}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 3 or parts[0] not in ("file", "function") or not parts[2].isdigit():
                sys.exit("%s:%d: expected 'file PATH LINES' or 'function PATH:NAME LINES'"
                         % (path, no))
            allow[(parts[0], parts[1])] = int(parts[2])
    return allow


def layer_of(top, path):
    parts = os.path.relpath(path, top).split(os.sep)
    if len(parts) >= 3 and parts[0] == "src" and parts[1] in LAYER_RANK:
        return parts[1]
    return None


def check_includes(top, rel, text, problems):
    layer = layer_of(top, os.path.join(top, rel))
    if not layer:
        return
    for no, line in enumerate(text.split("\n"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        inc = m.group(1)
        target = None
        first = inc.split("/", 1)[0]
        if first in LAYER_RANK and "/" in inc:
            target = first  # through the layers' include roots
        else:
            resolved = os.path.normpath(os.path.join(top, os.path.dirname(rel), inc))
            if os.path.exists(resolved):
                target = layer_of(top, resolved)
        if target and not may_include(layer, target):
            problems.append("%s:%d: includes \"%s\": layer %s may not include %s (the layers "
                            "point down: util < sym < graph < ops < import, cost, export < "
                            "shape < passes < api)" % (rel, no, inc, layer, target))


def check_cmake(top, problems):
    text = open(os.path.join(top, "CMakeLists.txt")).read()
    m = re.search(r"set\(FL_LAYERS ([^)]*)\)", text)
    if not m:
        problems.append("CMakeLists.txt: no set(FL_LAYERS ...): the per-layer build is gone")
        return
    layers = m.group(1).split()
    if sorted(layers) != sorted(LAYER_RANK):
        problems.append("CMakeLists.txt: FL_LAYERS is %s, the layers are %s"
                        % (" ".join(layers), " ".join(sorted(LAYER_RANK))))
    for layer in layers:
        d = re.search(r"set\(FL_LAYER_DEPS_%s\b([^)]*)\)" % re.escape(layer), text)
        if not d:
            problems.append("CMakeLists.txt: no FL_LAYER_DEPS_%s" % layer)
            continue
        for dep in d.group(1).replace('""', "").split():
            if dep not in LAYER_RANK or not may_include(layer, dep) or dep == layer:
                problems.append("CMakeLists.txt: FL_LAYER_DEPS_%s lists %s, which is not below "
                                "%s" % (layer, dep, layer))
    for entry in sorted(os.listdir(os.path.join(top, "src"))):
        if os.path.isdir(os.path.join(top, "src", entry)) and entry not in LAYER_RANK:
            problems.append("src/%s/ is not a layer (add it to the order in CMakeLists.txt, "
                            "this test and ARCHITECTURE.md)" % entry)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    allow_path = os.path.join(top, "tests", "structure", "allow.txt")
    allow = read_allow(allow_path)
    seen, problems, notes = set(), [], []

    def judge(kind, key, size, limit):
        listed = allow.get((kind, key))
        if size <= limit:
            return
        seen.add((kind, key))
        if listed is None:
            problems.append("%s %s has %d lines, above %d: split it" % (kind, key, size, limit))
        elif size > listed:
            problems.append("%s %s grew to %d lines (allow.txt lets it keep %d while it is "
                            "split, not grow)" % (kind, key, size, listed))
        elif size < listed:
            notes.append("%s %s is down to %d lines: lower its allow.txt entry (%d)"
                         % (kind, key, size, listed))

    for rel in source_files(top):
        text = open(os.path.join(top, rel), encoding="utf-8", errors="replace").read()
        judge("file", rel, text.count("\n"), MAX_FILE_LINES)
        for name, first, count in functions(text):
            judge("function", "%s:%s" % (rel, name), count, MAX_FUNCTION_LINES)
        check_includes(top, rel, text, problems)
    for key in sorted(set(allow) - seen):
        problems.append("stale entry in tests/structure/allow.txt: %s %s no longer offends "
                        "(or is gone): remove the line" % key)
    check_cmake(top, problems)
    for n in notes:
        print("note: " + n)
    for p in problems:
        print("FAIL " + p)
    print("structure: %d problem(s), %d allowed offender(s) left" % (len(problems), len(seen)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
