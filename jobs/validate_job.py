#!/usr/bin/env python3
"""validate_job.py - PETSc/SLEPc validation inside a workload's Slurm job (HYBRID_VALIDATE=1).

  validate_job.py keys WORKLOAD DIR CONFIG [section.key=value ...]
      prints, one a line, the [output] keys that make the run write the files hybrid-validate
      reads into DIR (the job adds them before the user's overrides, so the user's win)
  validate_job.py run WORKLOAD RECORDS VALIDATOR
      reads the run's record in RECORDS (the newest *.json), runs `VALIDATOR SUBCOMMAND ...` on the
      files the record's configuration names, prints its output and a verdict line
      "job: validation (hybrid-validate SUB): PASSED|FAILED ...", and writes the verdict into the
      record as validation.petsc = {status, exit_code, command, verdict} (passed | failed | error |
      skipped | not applicable); exit 0 passed / skipped / not applicable, else the validator's code

The jobs call it from PREFIX/share/hybrid/jobs (installed) or jobs/ (source tree); it needs
Python 3 only.  Every workload but selftest has a check (README, "Validation in a job")."""
import configparser, glob, json, os, subprocess, sys, tempfile

# workload -> [(output key, file name)], written for the validator
FILES = {
    "gauss": [("matrix", "A.petsc"), ("rhs", "b.petsc"), ("solution", "x.petsc")],
    "spai": [("matrix", "A.petsc"), ("rhs", "b.petsc"), ("preconditioner", "M.petsc")],
    "lle": [("matrix", "M.petsc"), ("eigvecs", "V.mtx"), ("eigvals", "L.mtx")],
    "sort": [("sort_input", "in.npy"), ("sort_keys", "out.npy")],
    "gemm": [("a", "A.petsc"), ("b", "B.petsc"), ("c", "C.petsc")],
    "conv": [("source", "in.npy"), ("kernel", "k.mtx"), ("npy", "out.npy")],
}


def config_value(config, overrides, dotted, default):
    """A key's value from the INI file and the section.key=value overrides (the last wins)."""
    val = default
    try:
        cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), strict=False, interpolation=None)
        cp.read(config)
        sec, _, key = dotted.partition(".")
        if cp.has_option(sec, key):
            val = cp.get(sec, key).strip()
    except (configparser.Error, OSError, UnicodeDecodeError):
        pass
    for o in overrides:
        k, _, v = o.partition("=")
        if k == dotted:
            val = v
    return val


def cmd_keys(wl, d, config, overrides):
    files = list(FILES.get(wl, []))
    if wl == "sort" and config_value(config, overrides, "sort.payload", "none") == "index":
        files.append(("sort_index", "index.npy"))
    if wl == "gemm":
        try:
            beta = float(config_value(config, overrides, "gemm.beta", "0"))
        except ValueError:
            beta = 0.0
        if beta != 0:
            files.append(("c0", "C0.petsc"))
    for key, name in files:
        print("output.%s=%s" % (key, os.path.join(d, name)))
    return 0


def validator_args(wl, rec):
    """The subcommand and its arguments from the record's (typed) configuration."""
    c = rec.get("config") or {}
    out = c.get("output") or {}
    sec = c.get(wl) or {}
    f = lambda k: str(out.get(k, ""))
    if wl == "gauss":
        tol = "1e-3" if sec.get("precision") == "single" else "1e-8"
        return ["solve", "-A", f("matrix"), "-b", f("rhs"), "-x", f("solution"), "-tol", tol, "-dense"]
    if wl == "spai":
        a = ["spai", "-A", f("matrix"), "-b", f("rhs"), "-M", f("preconditioner"), "-only-m"]
        its = (rec.get("metrics") or {}).get("iterations")
        tol = (c.get("solver") or {}).get("tol")
        if isinstance(its, int):
            a += ["-iters", str(its)]
        if tol is not None:
            a += ["-tol", repr(float(tol))]
        return a
    if wl == "lle":
        return ["lle", "-M", f("matrix"), "-vecs", f("eigvecs"), "-vals", f("eigvals")]
    if wl == "sort":
        a = ["sort", "-input", f("sort_input"), "-output", f("sort_keys")]
        return a + (["-index", f("sort_index")] if f("sort_index") else [])
    if wl == "gemm":
        a = ["gemm", "-A", f("a"), "-B", f("b"), "-C", f("c"), "-alpha", repr(float(sec.get("alpha", 1))),
             "-beta", repr(float(sec.get("beta", 0))), "-prec", str(sec.get("precision", "float"))]
        return a + (["-C0", f("c0")] if f("c0") else [])
    if wl == "conv":
        return ["conv", "-input", f("source"), "-kernel", f("kernel"), "-output", f("npy"),
                "-boundary", str(sec.get("boundary", "renormalise")), "-passes", str(sec.get("passes", 1))]
    return None


def write_record(path, rec):
    """Replace the record atomically (a temporary file in its folder, renamed over it)."""
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.", dir=os.path.dirname(path) or ".")
    with os.fdopen(fd, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def cmd_run(wl, records, validator):
    recs = sorted(glob.glob(os.path.join(records, "*.json")), key=os.path.getmtime)
    if not recs:
        print("job: validation: no record in %s (the run wrote none): nothing to validate" % records)
        return 5
    path = recs[-1]
    with open(path) as f:
        rec = json.load(f)
    args = validator_args(wl, rec)
    petsc = {"status": "not applicable", "exit_code": None, "command": None, "verdict": None}
    rc = 0
    if args is None:
        print("job: validation: workload %s has no PETSc check (not applicable)" % wl)
    elif not (os.path.isfile(validator) and os.access(validator, os.X_OK)):
        petsc.update(status="skipped", verdict="hybrid-validate not built (%s not found; configure with "
                     "PETSc and SLEPc, or set HYBRID_VALIDATOR)" % validator)
        print("job: validation: skipped: " + petsc["verdict"])
    else:
        cmd = [validator] + args
        env = dict(os.environ)
        if os.geteuid() == 0:   # Open MPI (PETSc's MPI on Debian) refuses root otherwise
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        print("job: validation: " + " ".join(cmd))
        sys.stdout.flush()
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode(errors="replace")
        for line in out.splitlines():
            print("validate: " + line)
        last = ([l for l in out.splitlines() if l.startswith(("PASSED", "FAILED"))] or ["(no verdict line)"])[-1]
        rc = p.returncode
        petsc.update(status="passed" if rc == 0 else "failed" if rc == 4 else "error", exit_code=rc,
                     command=cmd, verdict=last)
    v = rec.get("validation")
    if not isinstance(v, dict):
        v = {}
    v["petsc"] = petsc
    rec["validation"] = v
    write_record(path, rec)
    st = petsc["status"].upper() if petsc["status"] in ("passed", "failed") else petsc["status"]
    why = petsc["verdict"] or ""
    for w in ("PASSED: ", "FAILED: "):
        why = why[len(w):] if why.startswith(w) else why
    print("job: validation (hybrid-validate %s): %s%s; recorded in %s as validation.petsc" % (
        args[0] if args else "-", st, " (" + why + ")" if why else "", path))
    return rc


def main(argv):
    if len(argv) >= 4 and argv[1] == "keys":
        return cmd_keys(argv[2], argv[3], argv[4] if len(argv) > 4 else "", argv[5:])
    if len(argv) == 5 and argv[1] == "run":
        return cmd_run(argv[2], argv[3], argv[4])
    sys.stderr.write(__doc__)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
