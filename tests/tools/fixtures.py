#!/usr/bin/env python3
"""Check that the test fixtures exist: a missing fixture fails `make test` and CI, it does not
skip silently.

fixtures.py matrices DIR NAME...   every NAME is a non-empty file in DIR (../shared/matrices)
fixtures.py python MODULE...       this Python imports every MODULE (numpy, scipy, ...)
  --optional   a missing fixture is a skip (exit 77), not a failure (exit 1): the explicit
               opt-out, set by configuring with -DHYBRID_TEST_FIXTURES=optional

Prints what it found and what is missing; exit 0 all present, 1 missing, 77 missing and optional.
"""
import importlib, os, sys

HINT = ("configure with -DHYBRID_TEST_FIXTURES=optional to let the tests that need it skip "
        "instead")


def main(argv):
    optional = "--optional" in argv
    argv = [a for a in argv if a != "--optional"]
    if len(argv) < 2 or argv[0] not in ("matrices", "python"):
        print(__doc__)
        return 2
    missing = []
    if argv[0] == "matrices":
        d = argv[1]
        if not os.path.isdir(d):
            missing.append("the folder %s (the real test matrices, ../shared/matrices beside the "
                           "source tree)" % d)
        else:
            for name in argv[2:]:
                p = os.path.join(d, name)
                if not os.path.isfile(p) or os.path.getsize(p) == 0:
                    missing.append(p)
                else:
                    print("ok: %s (%d bytes)" % (p, os.path.getsize(p)))
    else:
        for mod in argv[1:]:
            try:
                m = importlib.import_module(mod)
                print("ok: %s %s (%s)" % (mod, getattr(m, "__version__", "?"), sys.executable))
            except Exception as e:  # ImportError, or a broken install
                missing.append("Python module %s for %s (%s: %s)" % (mod, sys.executable,
                                                                     type(e).__name__, e))
    for m in missing:
        print("%s: fixture missing: %s" % ("SKIP" if optional else "FAILED", m))
    if missing:
        print(("SKIP" if optional else "FAILED") + ": %d fixture(s) missing; %s" %
              (len(missing), "optional (-DHYBRID_TEST_FIXTURES=optional)" if optional else HINT))
        return 77 if optional else 1
    print("PASSED: every fixture present")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
