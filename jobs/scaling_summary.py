#!/usr/bin/env python3
"""scaling_summary.py - one table over the studies of jobs/gpu-scaling.sh, against their targets.

    jobs/scaling_summary.py DIR

DIR/studies.txt (written by jobs/gpu-scaling.sh: "NAME WORKLOAD MODE rc=RC|skipped|... TARGET ...",
one line per study) names the studies; each study's numbers come from DIR/NAME/report.csv
(jobs/report.py: the fastest passed run per GPU count, total = sum over phases of the slowest rank's
time, speedup and efficiency against the smallest GPU count).  TARGET is "-" or a comma list of
KIND@P>=X (KIND speedup or efficiency, at P GPUs).  Writes DIR/summary.md and DIR/summary.csv and
prints the markdown: per study and GPU count the total, the wall time, speedup, efficiency, the
distinct devices the ranks drove (from the record's devices: host + bus id, so that "2 GPUs" means
two devices), the build (the records' version: git describe) and the devices' names, the targets met or missed, and for a missed target the phase that grew most over the
ideal (strong: T_phase(P0) P0 / P; weak: T_phase(P0)).  Exit 0 (1 when DIR has no studies.txt).
"""
import csv, json, os, re, sys


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def load(record):
    try:
        with open(record) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def devices(record):
    """Distinct devices the run's ranks drove: (host, bus id or device number)."""
    r = load(record)
    if r is None:
        return None
    devs = r.get("devices") or []
    return len({(d.get("host"), d.get("bus_id") or d.get("device")) for d in devs if isinstance(d, dict)})


def targets(spec):
    out = []
    for t in spec.split(","):
        m = re.fullmatch(r"(speedup|efficiency)@([0-9]+)>=([0-9.]+)", t.strip())
        if m:
            out.append((m.group(1), int(m.group(2)), float(m.group(3))))
    return out


def why(rows, p, mode):
    """The phase that grew most over the ideal at P GPUs: 'phase X: A s vs ideal B s'."""
    base = next((r for r in rows if r["status"] == "passed"), None)
    row = next((r for r in rows if int(r["gpus"]) == p), None)
    if base is None or row is None:
        return ""
    p0 = int(base["gpus"])
    worst = None
    for k in row:
        if not (k.startswith("phase_") and k.endswith("_s")):
            continue
        t, t0 = num(row[k]), num(base.get(k))
        if t is None or t0 is None:
            continue
        ideal = t0 * p0 / p if mode == "strong" else t0
        if worst is None or t - ideal > worst[0]:
            worst = (t - ideal, k[6:-2], t, ideal)
    if worst is None:
        return ""
    return "phase %s: %.4g s at %d vs ideal %.4g s (+%.4g s)" % (worst[1], worst[2], p, worst[3], worst[0])


def main(argv):
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 1
    d = argv[0]
    try:
        with open(os.path.join(d, "studies.txt")) as f:
            studies = [ln.split() for ln in f if ln.strip()]
    except OSError as e:
        print("scaling_summary: error: %s" % e, file=sys.stderr)
        return 1
    md = ["# hybrid multi-GPU scaling: summary", "",
          "Total = sum over phases of the slowest rank's time (s); wall = the record's wall_seconds; "
          "speedup / efficiency against the smallest GPU count (jobs/report.py); devices = distinct "
          "GPUs the ranks drove.", "",
          "| study | GPUs | backend | total (s) | wall (s) | speedup | efficiency | devices | target | met |",
          "|---|---:|---|---:|---:|---:|---:|---:|---|---|"]
    out_rows = []
    notes = []
    versions, names = set(), set()
    for s in studies:
        name, wl, mode, state = s[0], s[1], s[2], s[3]
        spec = s[4] if len(s) > 4 else "-"
        if mode == "paper":
            notes.append("- %s: jobs/paper-tables.sh 001 --full: %s (DIR/paper-001/)" % (name, state))
            continue
        rep = os.path.join(d, name, "report.csv")
        if state == "skipped" or not os.path.exists(rep):
            md.append("| %s | - | - | - | - | - | - | - | %s | %s |" % (
                name, spec, "skipped (budget)" if state == "skipped" else "no report (%s)" % state))
            out_rows.append({"study": name, "state": state})
            continue
        rows = [r for r in read_rows(rep) if r.get("mode") == mode]
        tg = targets(spec) if spec != "-" else []
        have = {int(r["gpus"]) for r in rows if r.get("status") == "passed"}
        for kind, tp, x in tg:
            if tp not in have:   # a target whose GPU count has no passed run is not met
                notes.append("- %s at %d GPUs: %s >= %g not measured (no passed run at %d GPUs; %s)" % (
                    name, tp, kind, x, tp, state))
        for r in rows:
            p = int(r["gpus"])
            met = []
            for kind, tp, x in tg:
                if tp != p:
                    continue
                v = num(r.get(kind))
                ok = v is not None and v >= x
                met.append("%s %s >= %g: %s" % (kind, "-" if v is None else "%.3g" % v, x,
                                                 "met" if ok else "MISSED"))
                if not ok:
                    w = why(rows, p, mode)
                    notes.append("- %s at %d GPUs: %s %s < %g%s" % (
                        name, p, kind, "-" if v is None else "%.3g" % v, x, (": " + w) if w else ""))
            nd = devices(r.get("record", ""))
            rec = load(r.get("record", "")) or {}
            versions.add(str(rec.get("version", "?")))
            names.update("%s (%s)" % (d.get("name"), d.get("host")) for d in rec.get("devices") or []
                         if isinstance(d, dict))
            md.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, p, r.get("backend", ""), "%.4g" % num(r["total_s"]),
                "-" if num(r.get("wall_s")) is None else "%.4g" % num(r["wall_s"]),
                "-" if num(r.get("speedup")) is None else "%.3f" % num(r["speedup"]),
                "-" if num(r.get("efficiency")) is None else "%.3f" % num(r["efficiency"]),
                "-" if nd is None else str(nd),
                ", ".join("%s@%d>=%g" % (k, tp, x) for k, tp, x in tg if tp == p) or "-",
                "; ".join(met) or "-"))
            out_rows.append({"study": name, "state": state, "workload": wl, "mode": mode, "gpus": p,
                             "backend": r.get("backend", ""), "total_s": r["total_s"],
                             "wall_s": r.get("wall_s", ""), "speedup": r.get("speedup", ""),
                             "efficiency": r.get("efficiency", ""), "devices": "" if nd is None else nd,
                             "met": "; ".join(met)})
    md[1:1] = ["", "Build: %s; devices: %s." % (", ".join(sorted(versions)) or "-", ", ".join(sorted(names)) or "-")]
    if notes:
        md += ["", "Missed targets, skipped or failed steps:", ""] + notes
    md.append("")
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write("\n".join(md))
    keys = ["study", "state", "workload", "mode", "gpus", "backend", "total_s", "wall_s", "speedup",
            "efficiency", "devices", "met"]
    with open(os.path.join(d, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in out_rows:
            w.writerow({k: r.get(k, "") for k in keys})
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
