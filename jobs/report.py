#!/usr/bin/env python3
"""report.py - turn a folder of hybrid JSON records into scaling tables and plots.

    jobs/report.py DIR|FILE [...] [--out PREFIX] [--mode auto|strong|weak] [--workload W]
                   [--name NAME] [--all] [--no-plots] [--force] [--size-key section.key]...

Reads every *.json record under the DIRs (recursively) and the FILEs given (files that are not hybrid records are
skipped with a warning), groups them by workload, run.name and configuration without the size key
(SIZE_KEYS below, as jobs/scaling.sh scales them; --size-key overrides), and for each group writes
  PREFIX.md      a markdown table: GPUs, the sizes that vary, time per phase, total, speedup,
                 efficiency (one section per group)
  PREFIX.csv     the same numbers, one row per GPU count (columns workload and name first)
  PREFIX-time.png, PREFIX-efficiency.png   time and parallel efficiency against GPUs
(with several groups the plots are PREFIX-<workload>[-<name>]-time.png ...).  PREFIX defaults to
DIR/report.  GPUs = ranks (one rank drives one GPU); on the host backend the tables and plots say
"ranks".  Records of one workload and run.name whose configurations differ in any key other than
the size key, output.dir and run.name are not one study: report.py refuses them (exit 1, naming
the keys), or with --force warns and reports each configuration as its own group.

Numbers: a phase's time is its slowest rank's time (the "max" column of the record); the total is
the sum over phases.  With several passed runs at one GPU count the fastest is used (best of k).
Only passed runs enter the table unless --all is given (failed runs are listed below the table).
PETSc validation (the HYBRID_VALIDATE=1 jobs write hybrid-validate's verdict into the record as
validation.petsc = {status, exit_code, command, verdict}): a run whose in-run check passed but
whose PETSc validation failed or ended in error has not passed (the job exited non-zero): it is
counted, listed below the table with the validator's verdict, and used only with --all.  Column
"PETSc" (markdown, when a record of the group has validation.petsc) / "petsc" (CSV, always):
the used run's validation.petsc.status (passed, failed, error, skipped, not applicable), "-"
for a run without it, and "k/m passed" when m > 1 runs at that GPU count were validated.
Speedup and efficiency are relative to the smallest GPU count P0 that has a passed run:
  strong: speedup = T(P0) / T(P), efficiency = speedup * P0 / P
  weak:   efficiency = T(P0) / T(P), (scaled) speedup = efficiency * P / P0
  gauss weak (HPL's convention): efficiency = rate per GPU / rate per GPU at P0, the rate
          (2/3 n^3 + 3/2 n^2) / T(P) in Gflop/s (column "Gflops/GPU"), since n grows with sqrt(P)
--mode auto takes the mode from run.name (jobs/scaling.sh sets WORKLOAD-MODE-scaling); failing
that it is weak when the runs' configurations differ in any key other than output.dir and
run.name, else strong.  Exit codes: 0 written, 1 usage or no records, 2 matplotlib missing
(the tables are still written; install python3-matplotlib or pass --no-plots).
"""
import argparse, csv, json, math, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hyplot import colours  # noqa: E402  (jobs/hyplot.py: the plotting tool shared with the table scripts)

REQUIRED = ("workload", "status", "ranks", "phases", "config")
IGNORED_KEYS = ("output.dir", "run.name", "run.exit_file")   # per-job paths and labels, not the configuration
# the size keys of a scaling study (jobs/scaling.sh's table): a study varies these and nothing else
SIZE_KEYS = {"gauss": ("gauss.n",), "spai": ("matrix.size",), "lle": ("lle.n",),
             "selftest": ("selftest.n",), "conv": ("conv.height", "conv.width"),
             "sort": ("sort.n",), "gemm": ("gemm.m", "gemm.n", "gemm.k")}


def warn(msg):
    print("report: warning: %s" % msg, file=sys.stderr)


def load_records(dirs):
    recs = []
    paths = []
    for d in dirs:
        if os.path.isfile(d):
            paths.append(d)
            continue
        if not os.path.isdir(d):
            raise SystemExit("report: error: %s is not a folder or a record file" % d)
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            paths += [os.path.join(root, f) for f in sorted(files) if f.endswith(".json")]
    for path in paths:
        try:
            with open(path) as fh:
                r = json.load(fh)
        except (OSError, ValueError) as e:
            warn("%s: not readable JSON (%s), skipped" % (path, e))
            continue
        if not isinstance(r, dict) or any(k not in r for k in REQUIRED):
            warn("%s: not a hybrid record (needs %s), skipped" % (path, ", ".join(REQUIRED)))
            continue
        sweep = (r.get("metrics") or {}).get("sweep")
        if isinstance(sweep, list) and len(sweep) > 1:
            warn("%s: a gauss sweep record (%d combinations of the gauss.n / nb / grid lists) holds "
                 "several runs; a study takes one run per record: skipped" % (path, len(sweep)))
            continue
        r["_path"] = path
        recs.append(r)
    return recs


def flat_config(r):
    out = {}
    for sec, keys in (r.get("config") or {}).items():
        if isinstance(keys, dict):
            for k, v in keys.items():
                out["%s.%s" % (sec, k)] = str(v)
    return out


def study_config(r, size_keys):
    """The configuration that must be the same across one study: without the size key(s)."""
    skip = set(IGNORED_KEYS) | set(size_keys.get(r["workload"], ()))
    return tuple(sorted((k, v) for k, v in flat_config(r).items() if k not in skip))


def gauss_gflops(r):
    """HPL's rate of a gauss run: (2/3 n^3 + 3/2 n^2) / total time, in Gflop/s; None without n."""
    try:
        n = float(flat_config(r)["gauss.n"])
    except (KeyError, ValueError):
        return None
    t = total_time(r)
    return (2.0 / 3.0 * n ** 3 + 1.5 * n ** 2) / t / 1e9 if t > 0 else None


def total_time(r):
    return sum(float(p.get("max", 0.0)) for p in r["phases"].values())


def petsc_status(r):
    """validation.petsc.status of a record (written by jobs/validate_job.py), or None."""
    v = r.get("validation")
    p = v.get("petsc") if isinstance(v, dict) else None
    return str(p.get("status")) if isinstance(p, dict) and p.get("status") is not None else None


def petsc_verdict(r):
    v = r.get("validation")
    p = v.get("petsc") if isinstance(v, dict) else None
    return (p.get("verdict") or "") if isinstance(p, dict) else ""


def run_passed(r):
    """Passed: the in-run check passed and, where the job ran hybrid-validate, so did PETSc."""
    return r.get("status") == "passed" and petsc_status(r) not in ("failed", "error")


def group_mode(recs, forced):
    if forced != "auto":
        return forced
    names = {flat_config(r).get("run.name", "") for r in recs}
    for n in names:
        m = re.search(r"(?:^|[-_:])(strong|weak)(?:$|[-_:])", n)
        if m:
            return m.group(1)
    cfgs = [{k: v for k, v in flat_config(r).items() if k not in IGNORED_KEYS} for r in recs]
    return "weak" if any(c != cfgs[0] for c in cfgs[1:]) else "strong"


def varying_keys(recs):
    cfgs = [flat_config(r) for r in recs]
    keys = sorted(set().union(*cfgs)) if cfgs else []
    return [k for k in keys if k not in IGNORED_KEYS and len({c.get(k) for c in cfgs}) > 1]


def build_rows(recs, mode, include_failed):
    """One row per rank count: the fastest passed run (or, with include_failed, any run)."""
    phases = []
    for r in recs:
        for p in r["phases"]:
            if p not in phases:
                phases.append(p)
    vary = varying_keys(recs)
    by_p = {}
    for r in recs:
        by_p.setdefault(int(r["ranks"]), []).append(r)
    rows = []
    for p in sorted(by_p):
        runs = by_p[p]
        ok = [r for r in runs if run_passed(r)]
        pool = ok if ok else (runs if include_failed else [])
        if not pool:
            continue
        best = min(pool, key=total_time)
        cfg = flat_config(best)
        checked = [r for r in runs if petsc_status(r) is not None]
        petsc = petsc_status(best) or "-"
        if len(checked) > 1:
            petsc += " (%d/%d passed)" % (sum(petsc_status(r) == "passed" for r in checked), len(checked))
        rows.append({
            "gpus": p, "nodes": best.get("nodes", ""), "backend": best.get("backend", ""),
            # a run whose PETSc validation failed / ended in error has that status here
            "status": best.get("status", "") if run_passed(best) or best.get("status") != "passed"
                      else petsc_status(best), "petsc": petsc,
            "runs": len(runs), "passed": len(ok),
            "vary": {k: cfg.get(k, "") for k in vary},
            "phases": {ph: (float(best["phases"][ph]["max"]) if ph in best["phases"] else None)
                       for ph in phases},
            "total": total_time(best), "wall": best.get("wall_seconds"),
            "gflops_gpu": (gauss_gflops(best) / p) if best["workload"] == "gauss" and gauss_gflops(best) else None,
            "path": best["_path"],
        })
    base = next((row for row in rows if row["status"] == "passed" and row["total"] > 0), None)
    for row in rows:
        row["speedup"] = row["efficiency"] = None
        if base is None or row["total"] <= 0 or row["status"] != "passed":
            continue
        p0, t0 = base["gpus"], base["total"]
        if mode == "strong":
            row["speedup"] = t0 / row["total"]
            row["efficiency"] = row["speedup"] * p0 / row["gpus"]
        elif row["gflops_gpu"] is not None and base["gflops_gpu"]:
            row["efficiency"] = row["gflops_gpu"] / base["gflops_gpu"]   # gauss: HPL's rate per GPU
            row["speedup"] = row["efficiency"] * row["gpus"] / p0
        else:
            row["efficiency"] = t0 / row["total"]
            row["speedup"] = row["efficiency"] * row["gpus"] / p0
    return rows, phases, vary, base


def fmt(x, digits=4):
    if x is None:
        return "-"
    if isinstance(x, float):
        return "%.*g" % (digits, x)
    return str(x)


def units(rows):
    """What one rank drives: "GPUs", or "ranks" when every row ran on the host backend."""
    return "ranks" if rows and all(r["backend"] == "host" for r in rows) else "GPUs"


def markdown(group, rows, phases, vary, base, mode, recs):
    wl, name = group
    lines = ["## %s%s: %s scaling" % (wl, " (%s)" % name if name else "", mode), ""]
    if base is None:
        lines += ["No passed run: no speedup or efficiency.", ""]
    else:
        lines += [("Baseline: %d " + units(rows).rstrip("s") + "(s), %.4g s. Time = sum over phases of the slowest rank's "
                  "time, in seconds; best of the passed runs at each GPU count.") % (
                      base["gpus"], base["total"]), ""]
    unit = units(rows)
    gfl = any(r["gflops_gpu"] is not None for r in rows)
    val = any(petsc_status(r) is not None for r in recs)
    head = [unit, "nodes", "backend"] + vary + phases + ["total (s)"] + (
        ["Gflops/%s" % unit.rstrip("s")] if gfl else []) + ["speedup", "efficiency"] + (
        ["PETSc"] if val else []) + ["runs"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---:" if i != 2 else "---" for i in range(len(head))) + "|")
    for r in rows:
        cells = [str(r["gpus"]), str(r["nodes"]), r["backend"]] + [r["vary"][k] for k in vary]
        cells += [fmt(r["phases"][ph]) for ph in phases]
        cells += [fmt(r["total"])] + ([fmt(r["gflops_gpu"])] if gfl else [])
        cells += [fmt(r["speedup"], 3), fmt(r["efficiency"], 3)] + ([r["petsc"]] if val else [])
        cells += ["%d/%d passed" % (r["passed"], r["runs"])]
        lines.append("| " + " | ".join(cells) + " |")
    failed = [r for r in recs if not run_passed(r)]
    if failed:
        lines += ["", "Runs that did not pass (not in the figures unless --all):", ""]
        for r in sorted(failed, key=lambda r: (int(r["ranks"]), r["_path"])):
            if r.get("status") == "passed":   # the in-run check passed, PETSc's did not
                lines.append("- %d rank(s): PETSc validation %s: %s (%s)" % (
                    int(r["ranks"]), petsc_status(r), petsc_verdict(r) or "(no verdict line)", r["_path"]))
                continue
            lines.append("- %d rank(s): %s, exit %s: %s (%s)" % (
                int(r["ranks"]), r.get("status"), r.get("exit_code"),
                r.get("error") or r.get("verdict") or "", r["_path"]))
    lines.append("")
    return lines


def plots(prefix, group, rows, phases, mode):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    wl, name = group
    title = "%s%s, %s scaling" % (wl, " (%s)" % name if name else "", mode)
    ok = [r for r in rows if r["status"] == "passed"]
    xs = [r["gpus"] for r in ok]
    files = []
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    unit = units(rows)
    ax.plot(xs, [r["total"] for r in ok], "o-", lw=2, color="black", label="total")
    for ph, col in zip(phases, colours(len(phases))):
        pts = [(r["gpus"], r["phases"][ph]) for r in ok if r["phases"][ph]]
        if pts:
            ax.plot([p for p, _ in pts], [t for _, t in pts], ".--", color=col, label=ph)
    if len(xs) > 1:   # no "ideal" for a single point
        p0, t0 = ok[0]["gpus"], ok[0]["total"]
        ideal = [t0 * p0 / x for x in xs] if mode == "strong" else [t0 for _ in xs]
        ax.plot(xs, ideal, ":", color="gray", label="ideal")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels([str(x) for x in xs])
    ax.set_xlabel(unit if unit == "ranks" else "GPUs (ranks)")
    ax.set_ylabel("time (s), slowest rank")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    files.append(prefix + "-time.png")
    fig.savefig(files[-1], dpi=100, bbox_inches="tight")
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    eff = [(r["gpus"], r["efficiency"]) for r in ok if r["efficiency"] is not None]
    ax.plot([p for p, _ in eff], [e for _, e in eff], "o-", lw=2, color="tab:blue",
            label="efficiency")
    if len(eff) > 1:
        ax.axhline(1.0, ls=":", color="gray", label="ideal")
    ax.set_xscale("log", base=2)
    if xs:
        ax.set_xticks(xs)
        ax.set_xticklabels([str(x) for x in xs])
    top = max([1.1] + [e * 1.1 for _, e in eff])
    ax.set_ylim(0, top)
    ax.set_xlabel(unit if unit == "ranks" else "GPUs (ranks)")
    ax.set_ylabel("parallel efficiency (%s%s)" % (mode, ", Gflops per GPU" if any(
        r["gflops_gpu"] is not None for r in ok) and mode == "weak" else ""))
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    files.append(prefix + "-efficiency.png")
    fig.savefig(files[-1], dpi=100, bbox_inches="tight")
    plt.close(fig)
    return files


def split_studies(recs, size_keys, force):
    """Groups (workload, name[, configuration]) -> records; None after the error when one
    workload + run.name holds several configurations and not force."""
    studies = {}
    for r in recs:
        studies.setdefault((r["workload"], flat_config(r).get("run.name", "")), []).append(r)
    groups = {}
    for (wl, name), rs in sorted(studies.items()):
        cfgs = {}
        for r in rs:
            cfgs.setdefault(study_config(r, size_keys), []).append(r)
        if len(cfgs) == 1:
            groups[(wl, name)] = rs
            continue
        dicts = [dict(c) for c in cfgs]
        keys = sorted(k for k in set().union(*dicts) if len({d.get(k) for d in dicts}) > 1)
        msg = ("%d records of workload %s%s have %d different configurations (differing in %s, "
               "besides the size key %s): not one study" % (
                   len(rs), wl, " (run.name %r)" % name if name else "", len(cfgs), ", ".join(keys),
                   "/".join(size_keys.get(wl, ())) or "(none)"))
        if not force:
            print("report: error: %s; report them separately (--workload, --name, other folders) or "
                  "pass --force to report each configuration as its own group" % msg, file=sys.stderr)
            return None
        warn(msg + "; --force: one group per configuration")
        for c, crs in cfgs.items():
            label = ",".join("%s=%s" % (k, dict(c).get(k, "")) for k in keys)
            groups[(wl, (name + " " if name else "") + label)] = crs
    return groups


def slug(s):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_") or "run"


def main(argv):
    ap = argparse.ArgumentParser(description="hybrid scaling report: JSON records -> markdown, "
                                 "CSV and PNG (see the module docstring)")
    ap.add_argument("dirs", nargs="+", metavar="DIR|FILE")
    ap.add_argument("--out", help="output prefix (default: first DIR/report)")
    ap.add_argument("--mode", choices=["auto", "strong", "weak"], default="auto")
    ap.add_argument("--workload", help="only records of this workload")
    ap.add_argument("--name", help="only records with this run.name")
    ap.add_argument("--all", action="store_true", help="show failed runs where no run passed")
    ap.add_argument("--no-plots", action="store_true", help="tables only (no matplotlib needed)")
    ap.add_argument("--force", action="store_true",
                    help="records of one study with differing configurations: warn and report "
                         "each configuration as its own group (default: refuse, exit 1)")
    ap.add_argument("--size-key", action="append", default=[], metavar="section.key",
                    help="the size key(s) a study varies (default: the workload's, as scaling.sh)")
    a = ap.parse_args(argv)
    recs = load_records(a.dirs)
    if a.workload:
        recs = [r for r in recs if r["workload"] == a.workload]
    if a.name is not None:
        recs = [r for r in recs if flat_config(r).get("run.name", "") == a.name]
    if not recs:
        print("report: error: no hybrid records in %s%s" % (" ".join(a.dirs), (
            " matching the filters" if a.workload or a.name is not None else "")), file=sys.stderr)
        return 1
    first = a.dirs[0] if os.path.isdir(a.dirs[0]) else (os.path.dirname(a.dirs[0]) or ".")
    prefix = a.out or os.path.join(first, "report")
    if os.path.dirname(prefix):
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
    size_keys = dict(SIZE_KEYS)
    if a.size_key:
        size_keys = {w: tuple(a.size_key) for w in {r["workload"] for r in recs}}
    groups = split_studies(recs, size_keys, a.force)
    if groups is None:
        return 1
    md = ["# hybrid scaling report", "",
          "%d record(s) from %s." % (len(recs), ", ".join(a.dirs)), ""]
    csv_rows, plot_jobs = [], []
    all_phases, all_vary = [], []
    for group in sorted(groups):
        grecs = groups[group]
        mode = group_mode(grecs, a.mode)
        rows, phases, vary, base = build_rows(grecs, mode, a.all)
        md += markdown(group, rows, phases, vary, base, mode, grecs)
        for ph in phases:
            if ph not in all_phases:
                all_phases.append(ph)
        for k in vary:
            if k not in all_vary:
                all_vary.append(k)
        for r in rows:
            csv_rows.append((group, mode, r))
        gp = prefix if len(groups) == 1 else "-".join(
            [prefix, slug(group[0])] + ([slug(group[1])] if group[1] else []))
        plot_jobs.append((gp, group, rows, phases, mode))
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(md))
    with open(prefix + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "name", "mode", "gpus", "nodes", "backend", "status"] + all_vary +
                   ["phase_%s_s" % p for p in all_phases] +
                   ["total_s", "wall_s", "speedup", "efficiency", "runs", "passed", "record", "petsc"])
        for (wl, name), mode, r in csv_rows:
            w.writerow([wl, name, mode, r["gpus"], r["nodes"], r["backend"], r["status"]] +
                       [r["vary"].get(k, "") for k in all_vary] +
                       ["" if r["phases"].get(p) is None else repr(r["phases"][p])
                        for p in all_phases] +
                       [repr(r["total"]), "" if r["wall"] is None else r["wall"],
                        "" if r["speedup"] is None else repr(r["speedup"]),
                        "" if r["efficiency"] is None else repr(r["efficiency"]),
                        r["runs"], r["passed"], r["path"], r["petsc"]])
    print("report: %d record(s), %d group(s): %s.md, %s.csv" % (len(recs), len(groups), prefix,
                                                                  prefix))
    print("\n".join(md[4:]))
    if a.no_plots:
        return 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("report: error: matplotlib is not installed for %s (Debian: apt-get install "
              "python3-matplotlib; or pass --no-plots); tables were written" % sys.executable,
              file=sys.stderr)
        return 2
    for job in plot_jobs:
        for f in plots(*job):
            print("report: plot %s" % f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
