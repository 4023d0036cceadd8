#!/usr/bin/env python3
"""kernel_emu.py --src SRCDIR --workdir DIR [--cxx c++] [--reps R]

Runs the CUDA backend's gauss panel kernels on the host (tests/gauss/emu): their source is cut
from kernels/cuda/gauss_cuda.cu (swap_blk_k; nopiv_top_k and nopiv_rows_k, the no-pivot base
block; swap_plan_k and swap_apply_k, a step's row swaps by one planned permutation) and kernels/cuda/gauss_panel_cuda.cu (panel_base_k with its helpers and its clocks' instantiation, panel_reg_k), rewritten for the emulator (every __shared__ array a per-block arena, the
cooperative grid an emulated barrier, __ldcg a plain load), compiled with emu_gauss.cpp and run:
its checks against sequential references decide the exit code.  Exit 77 (skip) when the C++
compiler has no C++20 <barrier>."""
import argparse, os, re, subprocess, sys


def cut(path, start, end):
    s = open(path).read()
    a = s.index(start)
    b = s.index(end, a)
    return s[a:b]


def rewrite(s):
    s = s.replace("extern __shared__ double pb_sh[];", "double *pb_sh = (double *)emu_dyn();")
    s = re.sub(r"extern __shared__ (\w+(?: \w+)?) (\w+)\[\];", lambda m: "%s *%s = (%s *)emu_dyn();" % (m.group(1), m.group(2), m.group(1)), s)
    s = re.sub(r"__shared__ (\w+) (\w+)\[([^\]]+)\];",
               lambda m: "%s *%s = (%s *)emu_sh(__COUNTER__, sizeof(%s) * (%s));" % (m.group(1), m.group(2), m.group(1), m.group(1), m.group(3)), s)
    s = s.replace("cg::grid_group grid = cg::this_grid();", "emu_grid grid;")
    s = re.sub(r"__ldcg\(([^;]*?)\)(;| :)", lambda m: "(*(%s))%s" % (m.group(1), m.group(2)), s)
    if "__shared__" in s or "__ldcg" in s or "cg::" in s:
        raise SystemExit("kernel_emu: a construct the rewrite does not know is left in the kernel source")
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--cxx", default="c++")
    ap.add_argument("--reps", default="8")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    cu = os.path.join(a.src, "kernels", "cuda")
    swap = cut(os.path.join(cu, "gauss_cuda.cu"), "#define C_SWB_MAX", "/* getrf_rec: the base block's swaps of rows")
    panel = cut(os.path.join(cu, "gauss_panel_cuda.cu"), "#define PB_THREADS", "/* Launch the fused base block")
    nopiv = cut(os.path.join(a.src, "kernels", "k_gauss.h"), "#define K_GAUSS_NOPIV_MAX", "\n") + "\n" + \
        cut(os.path.join(cu, "gauss_cuda.cu"), "#define C_NP_THREADS", "/* The two launches of the no-pivot base block")
    open(os.path.join(a.workdir, "swap.inc"), "w").write(rewrite(swap))
    open(os.path.join(a.workdir, "panel.inc"), "w").write(rewrite(panel))
    open(os.path.join(a.workdir, "nopiv.inc"), "w").write(rewrite(nopiv))
    plan = cut(os.path.join(a.src, "kernels", "k_gauss.h"), "#define K_GAUSS_PLAN_INTS", "\n") + "\n" + \
        cut(os.path.join(cu, "gauss_cuda.cu"), "#define C_PLAN_MAX", "/* Build the swap plan") + \
        cut(os.path.join(cu, "gauss_cuda.cu"), "/* One block per tile of ct columns: every used", "/* Apply the plan's swaps")
    open(os.path.join(a.workdir, "plan.inc"), "w").write(rewrite(plan))
    emu = os.path.join(a.src, "tests", "gauss", "emu")
    exe = os.path.join(a.workdir, "emu_gauss")
    probe = subprocess.run([a.cxx, "-std=c++20", "-x", "c++", "-fsyntax-only", "-"], input=b"#include <barrier>\n",
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if probe.returncode != 0:
        print("SKIP: %s has no C++20 <barrier>" % a.cxx)
        return 77
    cmd = [a.cxx, "-std=c++20", "-O1", "-pthread", "-I", a.workdir, "-I", emu, os.path.join(emu, "emu_gauss.cpp"), "-o", exe]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sys.stdout.write(p.stdout.decode(errors="replace"))
    if p.returncode != 0:
        print("FAILED: the emulated kernels do not compile")
        return 1
    try:
        p = subprocess.run([exe, a.reps], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    except subprocess.TimeoutExpired:
        print("FAILED: the emulated kernels ran past 60 s")
        return 1
    out = p.stdout.decode(errors="replace")
    sys.stdout.write(out)
    m = re.search(r"^PASSED: ([0-9]+) of ([0-9]+) checks passed$", out, re.M)
    if p.returncode != 0 or not m or m.group(1) != m.group(2) or int(m.group(1)) < 5 * int(a.reps):
        print("FAILED: the emulated kernels (exit %d)" % p.returncode)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
