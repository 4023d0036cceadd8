#!/usr/bin/env python3
"""same_figure.py --figure REGEX [--expect REGEX]... --workdir DIR -- CMD1... ::: CMD2...

Runs CMD1 and then CMD2 in DIR (created empty), each must exit 0; REGEX (one group) must match
each one's stdout+stderr once or more, and the last match's group must be the same text in both
(e.g. a digest that depends on the BLAS's summation order, so that no fixed value can be pinned,
but that two runs computing the same function must share); every --expect REGEX must match
CMD1's output.  Prints what it compared.  Exit 0 pass, 1 fail."""
import os, re, shutil, subprocess, sys

argv = sys.argv[1:]
cut = argv.index("--")
opts, cmds = argv[:cut], argv[cut + 1:]
sep = cmds.index(":::")
cmd1, cmd2 = cmds[:sep], cmds[sep + 1:]
fig, expects, wd = None, [], None
i = 0
while i < len(opts):
    if opts[i] == "--figure":
        fig = opts[i + 1]
    elif opts[i] == "--expect":
        expects.append(opts[i + 1])
    elif opts[i] == "--workdir":
        wd = opts[i + 1]
    else:
        sys.exit("same_figure.py: unknown option %s" % opts[i])
    i += 2
shutil.rmtree(wd, ignore_errors=True)
os.makedirs(wd)
fails, got = [], []
for k, cmd in enumerate((cmd1, cmd2), 1):
    p = subprocess.run(cmd, cwd=wd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    out = p.stdout.decode(errors="replace")
    print("---- run %d: %s (exit %d)\n%s" % (k, " ".join(cmd), p.returncode, out[-2000:]))
    if p.returncode != 0:
        fails.append("run %d exited %d" % (k, p.returncode))
    m = re.findall(fig, out, re.M)
    got.append(m[-1] if m else None)
    if not m:
        fails.append("run %d: no match of %r" % (k, fig))
    if k == 1:
        fails += ["run 1: no match of %r" % e for e in expects if not re.search(e, out, re.M)]
print("figure %r: run 1 %r, run 2 %r" % (fig, got[0], got[1]))
if None not in got and got[0] != got[1]:
    fails.append("the figure differs: %r vs %r" % (got[0], got[1]))
for f in fails:
    print("FAIL: " + f)
print("PASS" if not fails else "%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
