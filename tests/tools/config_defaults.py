#!/usr/bin/env python3
"""config_defaults.py - a shipped config file sets only what it means to set.

    config_defaults.py --bin HYBRID CONFIG.ini [--allow section.key ...]

Reads the registry's keys and defaults from `HYBRID --help` and CONFIG.ini's [section] key =
value lines (';' comments stripped).  Fails (exit 1, one line each) on a key the registry does
not know and on a value that differs from the key's default unless --allow names the key: a
workload's config/NAME.ini is what users start from, and a tuning value left in it overrides
the default that the H200 measurements chose (config/lle.ini held cnd_top = tiles after the
default became auto: every run of it factored the top separators on the host).  Exit 0 when
every line passes, printing how many keys were compared."""
import argparse
import re
import subprocess
import sys


def registry(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        sys.exit(f"config_defaults: {binary} --help exited {out.returncode}")
    keys, sec = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r"^  \[(\w+)\]$", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"^    (\w+) +\w+ +default '([^']*)'", line)
        if m and sec:
            keys[f"{sec}.{m.group(1)}"] = m.group(2)
    if len(keys) < 50:
        sys.exit(f"config_defaults: only {len(keys)} keys read from {binary} --help: its format changed?")
    return keys


def norm(v):
    v = v.strip()
    return v[1:-1] if len(v) >= 2 and v[0] == v[-1] == '"' else v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("config")
    ap.add_argument("--allow", nargs="*", default=[])
    a = ap.parse_args()
    keys = registry(a.bin)
    bad, seen, sec = [], 0, None
    with open(a.config) as f:
        for no, raw in enumerate(f, 1):
            line = raw.split(";", 1)[0].split("#", 1)[0].strip()
            if not line:
                continue
            m = re.match(r"^\[(\w+)\]$", line)
            if m:
                sec = m.group(1)
                continue
            m = re.match(r"^(\w+)\s*=\s*(.*)$", line)
            if not m or not sec:
                bad.append(f"{a.config}:{no}: not a [section] or key = value line: {raw.rstrip()}")
                continue
            name, val = f"{sec}.{m.group(1)}", norm(m.group(2))
            seen += 1
            if name not in keys:
                bad.append(f"{a.config}:{no}: {name} is not a key of the registry (hybrid --help)")
            elif val != keys[name] and name not in a.allow:
                bad.append(f"{a.config}:{no}: {name} = '{val}' differs from its default '{keys[name]}' "
                           f"(set it to the default, or name it in the test's --allow list if the file means it)")
    for b in bad:
        print("FAILED:", b)
    unused = [k for k in a.allow if k not in keys]
    for k in unused:
        print(f"FAILED: --allow {k} is not a key of the registry")
    if bad or unused:
        return 1
    print(f"PASSED: {a.config}: {seen} key(s), each its default or allowed ({len(a.allow)} allowed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
