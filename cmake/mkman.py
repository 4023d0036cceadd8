#!/usr/bin/env python3
"""cmake/mkman.py - write the man page hybrid.1 (roff) from the output of `hybrid --help`.

  mkman.py HELP.txt VERSION OUT.1

The help text's first line is the NAME line, lines starting "usage:" (and the indented
continuation) the SYNOPSIS, paragraphs the DESCRIPTION, and a line ending in ':' at column 0
(e.g. "exit codes:") a section heading.  Indented lines are kept as they are (.nf)."""
import datetime
import sys


def esc(line):
    """Escape roff's special characters in one line of text."""
    line = line.replace("\\", "\\\\").replace("-", "\\-")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: mkman.py HELP.txt VERSION OUT.1")
    text = open(sys.argv[1], encoding="utf-8").read().splitlines()
    version, out = sys.argv[2], sys.argv[3]
    if not text or not text[0].startswith("hybrid"):
        sys.exit("mkman.py: %s does not start with 'hybrid' (not the output of hybrid --help)" % sys.argv[1])
    date = datetime.date.today().isoformat()
    head = text[0].split(":", 1)
    summary = head[1].strip() if len(head) > 1 else "MPI + CUDA batch application"
    o = ['.TH HYBRID 1 "%s" "hybrid %s" "User Commands"' % (date, version),
         ".SH NAME", "hybrid \\- " + esc(summary), ".SH SYNOPSIS", ".nf"]
    i = 1
    while i < len(text) and not text[i].strip():
        i += 1
    while i < len(text) and text[i].strip():
        o.append(esc(text[i].replace("usage:", "").strip()))
        i += 1
    o += [".fi", ".SH DESCRIPTION"]
    pre = False
    for line in text[i:]:
        if not line.strip():
            if pre:
                o.append(".fi")
                pre = False
            o.append(".PP")
        elif line[0] != " " and line.rstrip().endswith(":"):
            if pre:
                o.append(".fi")
                pre = False
            o.append(".SH " + esc(line.rstrip()[:-1].upper()))
        elif line.startswith(" "):
            if not pre:
                o.append(".nf")
                pre = True
            o.append(esc(line))
        else:
            if pre:
                o.append(".fi")
                pre = False
            o.append(esc(line))
    if pre:
        o.append(".fi")
    o += [".SH FILES", ".nf", "PREFIX/share/hybrid/config/*.ini   configurations (found by bare name)",
          "PREFIX/share/hybrid/jobs/         Slurm job scripts, scaling and report tools", ".fi",
          ".SH ENVIRONMENT", ".TP", "HYBRID_DATADIR",
          "a folder searched for a configuration given by a bare name (after the current directory, "
          "before the install's share/hybrid/config)."]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(o) + "\n")


if __name__ == "__main__":
    main()
