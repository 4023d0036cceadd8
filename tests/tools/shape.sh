#!/usr/bin/env bash
# tests/tools/shape.sh - the shape rules of DESIGN.md ("The shape of a workload"), checked on
# the C/CUDA sources under ROOT/app and ROOT/kernels (ROOT: the project root by default).
#
#   tests/tools/shape.sh [ROOT]
#
# Prints one line per violation, "file:line: what", and exits 1 when there is any (0 none):
#  1. a function longer than 120 lines (from the line of its name to its closing brace; brace
#     matched after comments, strings and preprocessor lines are blanked; key tables and other
#     initialisers (`= {`), struct/enum/union bodies and extern "C" blocks are not functions);
#  2. a configuration lookup (cfg_int, cfg_real, cfg_bool, cfg_str, cfg_enum, cfg_is,
#     cfg_given, cfg_grid) outside an options function: allowed in functions named
#     *_opts_from_cfg, in a workload's rank-0 cross-key check (a function named *_check taking
#     a hy_cfg), and in app/config/ itself (cfg_err and cfg_where only name a key in a message);
#  3. app/ testing the backend's kind (`->kind` / `.kind` on a backend, K_CUDA, K_HOST)
#     outside app/runtime/ (which opens the backend): drivers ask the k_backend table instead;
#  4. getenv("HYBRID_...") other than the documented ones below (none overrides a key).
# Documented environment variables read by app/ and kernels/ (a key could not say them):
#   HYBRID_IO_MEM_LIMIT   app/io: the memory limit of the matrix readers (test hook: tests/io)
#   HYBRID_DATADIR        app/config/cfg_path.c: where bare configuration file names are looked
#                         up before the install's share/hybrid/config (README "Running")
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
exec "${PYTHON:-python3}" - "$root" <<'EOF'
import os, re, sys

root = sys.argv[1]
MAX_LINES = 120
ENV_HOOKS = {"HYBRID_IO_MEM_LIMIT", "HYBRID_DATADIR"}
LOOKUP = re.compile(r"\bcfg_(int|real|bool|str|enum|is|given|grid)\s*\(")
KIND = re.compile(r"(->|\.)\s*kind\b(?!\s*\()|\bK_(CUDA|HOST)\b")
GETENV = re.compile(r"\bgetenv\s*\(\s*\"(HYBRID_[A-Za-z0-9_]*)\"")


def blank(text):
    """Comments, string/char literals and preprocessor lines replaced by blanks (newlines
    kept, so line numbers stay).  String contents are kept in a second copy for getenv."""
    out, i, n = [], 0, len(text)
    bol = True
    while i < n:
        c = text[i]
        if bol and c in " \t":
            out.append(c); i += 1; continue
        if bol and c == "#":  # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n"); i += 2; continue
                out.append(" "); i += 1
            continue
        bol = False
        if c == "\n":
            bol = True; out.append(c); i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" "); i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j])); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else text[i:j]); i = j
        else:
            out.append(c); i += 1
    return "".join(out)


def functions(code):
    """(name, first line, last line, params) of every function body at file scope."""
    res, depth, i, n = [], 0, 0, len(code)
    stmt_start = 0          # where the current file-scope declaration began
    transparent = []        # depths of extern "C" / namespace blocks (not counted)
    while i < n:
        c = code[i]
        if c == "{":
            if depth == len(transparent):
                head = code[stmt_start:i]
                h = " ".join(head.split())
                if re.search(r"\bextern\s+\"\s*\"\s*$|\bnamespace\b[^;()]*$", h):
                    transparent.append(depth); depth += 1; i += 1; stmt_start = i; continue
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(([^;{}]*)\)\s*(const\s*)?(__attribute__\s*\(\(.*\)\)\s*)?$", head, re.S)
                is_init = re.search(r"=\s*$", head) or re.search(r"\b(struct|enum|union|class)\b[^()]*$", h)
                if m and not is_init:
                    # the matching brace
                    d, j = 1, i + 1
                    while j < n and d:
                        if code[j] == "{": d += 1
                        elif code[j] == "}": d -= 1
                        j += 1
                    first = code.count("\n", 0, stmt_start + m.start(1)) + 1
                    last = code.count("\n", 0, j - 1) + 1
                    res.append((m.group(1), first, last, m.group(2)))
                    i = j; stmt_start = j; continue
            depth += 1
        elif c == "}":
            depth -= 1
            if transparent and depth == transparent[-1]:
                transparent.pop()
            if depth == len(transparent):
                stmt_start = i + 1
        elif c == ";" and depth == len(transparent):
            stmt_start = i + 1
        i += 1
    return res


def check_file(path, rel, out):
    with open(path, errors="replace") as f:
        text = f.read()
    code = blank(text)
    funcs = functions(code)
    for name, first, last, _ in funcs:
        if last - first + 1 > MAX_LINES:
            out.append("%s:%d: function %s is %d lines (at most %d)" % (rel, first, name, last - first + 1, MAX_LINES))
    top = rel.split("/")[0]
    in_config = rel.startswith("app/config/")
    lines = code.split("\n")

    def owner(ln):
        for name, first, last, params in funcs:
            if first <= ln <= last:
                return name, params
        return None, ""

    for ln, line in enumerate(lines, 1):
        if top == "app" and not in_config:
            for m in LOOKUP.finditer(line):
                name, params = owner(ln)
                ok = name and (name.endswith("_opts_from_cfg") or
                               (name.endswith("_check") and "hy_cfg" in params))
                if not ok:
                    out.append("%s:%d: cfg_%s(...) outside an options function (in %s): read the key "
                               "once in *_opts_from_cfg" % (rel, ln, m.group(1), name or "file scope"))
        if top == "app" and not rel.startswith("app/runtime/"):
            for m in KIND.finditer(line):
                out.append("%s:%d: tests the backend's kind ('%s'): ask the k_backend table "
                           "(a capability field, a NULL entry)" % (rel, ln, m.group(0).strip()))
    for ln, line in enumerate(text.split("\n"), 1):
        if "getenv" not in line or not lines[ln - 1].count("getenv"):
            continue  # in a comment
        for m in GETENV.finditer(line):
            if m.group(1) not in ENV_HOOKS:
                out.append("%s:%d: getenv(\"%s\"): not a documented test hook (make it a key, or a "
                           "[debug] key)" % (rel, ln, m.group(1)))


out, nfiles = [], 0
for top in ("app", "kernels"):
    for d, dirs, files in os.walk(os.path.join(root, top)):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".c", ".h", ".cu", ".cuh")):
                p = os.path.join(d, f)
                check_file(p, os.path.relpath(p, root), out)
                nfiles += 1
seen, uniq = set(), []
for o in out:  # one line per place and rule (two calls on one line are one violation)
    key = (o.split(": ")[0], o.split(": ")[1].split("(")[0].split("'")[0])
    if key not in seen:
        seen.add(key)
        uniq.append(o)
out = uniq
if os.environ.get("SHAPE_LIST"):
    for top in ("app", "kernels"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h", ".cu", ".cuh")):
                    p = os.path.join(d, f)
                    for name, first, last, _ in functions(blank(open(p, errors="replace").read())):
                        print("function %s:%d: %s %d" % (os.path.relpath(p, root), first, name, last - first + 1))
for o in out:
    print(o)
print("shape: %d file(s) under %s/{app,kernels}: %d violation(s)%s" %
      (nfiles, root, len(out), "" if out else ": PASSED"))
sys.exit(1 if out else 0)
EOF
