#!/usr/bin/env python3
"""small_dev_emu.py --src SRCDIR --workdir DIR [--cxx c++]

Compiles tests/gauss/emu/emu_small_dev.cpp (the small-n LU kernels' shared device functions,
kernels/cuda/gauss_small_dev.cuh, under the CPU emulator tests/gauss/emu/emu.h: one warp of 32
threads) and runs it: its checks against sequential references decide the exit code (0 when
all of at least 600 pass).  Exit 77 (skip) when the C++ compiler has no C++20 <barrier>."""
import argparse, os, re, subprocess, sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--cxx", default="c++")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    probe = subprocess.run([a.cxx, "-std=c++20", "-x", "c++", "-fsyntax-only", "-"], input=b"#include <barrier>\n",
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if probe.returncode != 0:
        print("SKIP: %s has no C++20 <barrier>" % a.cxx)
        return 77
    emu = os.path.join(a.src, "tests", "gauss", "emu")
    exe = os.path.join(a.workdir, "emu_small_dev")
    cmd = [a.cxx, "-std=c++20", "-O1", "-pthread", "-Wall", "-I", emu, "-I", os.path.join(a.src, "kernels", "cuda"),
           os.path.join(emu, "emu_small_dev.cpp"), "-o", exe]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sys.stdout.write(p.stdout.decode(errors="replace"))
    if p.returncode != 0:
        print("FAILED: the emulated device functions do not compile")
        return 1
    try:
        p = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    except subprocess.TimeoutExpired:
        print("FAILED: the emulated device functions ran past 60 s")
        return 1
    out = p.stdout.decode(errors="replace")
    sys.stdout.write(out)
    m = re.search(r"^PASSED: ([0-9]+) of ([0-9]+) checks passed$", out, re.M)
    if p.returncode != 0 or not m or m.group(1) != m.group(2) or int(m.group(1)) < 600:
        print("FAILED: the emulated device functions (exit %d)" % p.returncode)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
