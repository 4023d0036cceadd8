#!/usr/bin/env python3
"""hyplot.py - the one plotting and record-reading tool of jobs/ (report.py and the paper-table
scripts import it; shell scripts call its command line).  matplotlib (Agg) for the plots: axes with
units, a title, distinct colours, the legend outside the data, colour bars on scatter plots.

  hyplot.py embedding EMB POINTS OUT.png [--title T]
      scatter of an lle embedding (the run's output.embedding, CSV with a header or .npy, n x d;
      the first two columns) coloured by the manifold parameter t (the last column of the run's
      output.points CSV), with a colour bar
  hyplot.py record DIR PATH [--scale S]
      the value at the dotted PATH (e.g. metrics.time_seconds) of the one record in DIR, times S;
      prints FAIL (exit 4) when DIR holds no record, more than one, or one that did not pass

Exit codes: 0 ok, 1 usage, 2 unreadable input, 3 matplotlib missing, 4 no passed record."""
import glob, json, os, sys


def mpl():
    """matplotlib.pyplot with the Agg backend, or None when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def colours(n):
    """n distinct colours (tab10, tab20, then evenly spaced hues)."""
    import matplotlib
    if n <= 10:
        return [matplotlib.colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [matplotlib.colormaps["tab20"](i) for i in range(n)]
    return [matplotlib.colormaps["hsv"](i / float(n)) for i in range(n)]


def finish(fig, ax, path, title, xlabel, ylabel, legend=True):
    """Labels, grid, the legend outside the axes, saved to path (tight bounding box)."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt
    plt.close(fig)
    return path


def line_plot(path, title, xlabel, ylabel, series, logx=None, logy=False, hline=None, dashed=()):
    """series: [(label, xs, ys)], a None y skipped; logx: None or the base; dashed: labels drawn
    dashed (e.g. the seed's figures).  Returns path, or None without matplotlib."""
    plt = mpl()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(6.6, 4.4))
    cols = colours(max(1, len(series)))
    for (label, xs, ys), col in zip(series, cols):
        pts = [(x, y) for x, y in zip(xs, ys) if y is not None and (y > 0 or not logy)]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ("--" if label in dashed else "-") + "o", ms=3,
                    color=col, label=label)
    if hline is not None:
        ax.axhline(hline, color="grey", lw=0.8)
    if logx:
        ax.set_xscale("log", base=logx)
    if logy:
        ax.set_yscale("log")
    return finish(fig, ax, path, title, xlabel, ylabel)


def read_table(path):
    """An n x m float array from .npy or CSV (a header line is skipped when it is not numbers)."""
    import numpy as np
    if path.endswith(".npy"):
        a = np.load(path)
    else:
        with open(path) as f:
            first = f.readline()
        try:
            [float(v) for v in first.split(",")]
            skip = 0
        except ValueError:
            skip = 1
        a = np.loadtxt(path, delimiter=",", skiprows=skip, ndmin=2)
    return a.reshape(len(a), -1)


def embedding_plot(path, emb, t, title):
    """Scatter of emb's first two columns coloured by t (colour bar 'manifold parameter t')."""
    plt = mpl()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 5.0))
    y = emb[:, 1] if emb.shape[1] > 1 else emb[:, 0] * 0
    sc = ax.scatter(emb[:, 0], y, c=t, s=6 if len(emb) < 5000 else 1.5, cmap="viridis", linewidths=0)
    cb = fig.colorbar(sc, ax=ax)
    cb.set_label("manifold parameter t (generator units)")
    ax.set_aspect("auto")
    return finish(fig, ax, path, title, "embedding coordinate 1 (eigenvector entry, dimensionless)",
                  "embedding coordinate 2 (eigenvector entry, dimensionless)", legend=False)


def load_records(d):
    """The JSON records under d (recursively), each with '_path'."""
    out = []
    for p in sorted(glob.glob(os.path.join(d, "**", "*.json"), recursive=True)):
        try:
            with open(p) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(r, dict) and "workload" in r:
            r["_path"] = p
            out.append(r)
    return out


def value(rec, dotted):
    """The value at a dotted path of a record, or None."""
    v = rec
    for part in dotted.split("."):
        v = v.get(part) if isinstance(v, dict) else None
    return v


def main(argv):
    if len(argv) >= 5 and argv[1] == "embedding":
        title = argv[argv.index("--title") + 1] if "--title" in argv else "lle embedding"
        try:
            emb, pts = read_table(argv[2]), read_table(argv[3])
        except (OSError, ValueError) as e:
            print("hyplot: error: %s" % e, file=sys.stderr)
            return 2
        if len(emb) != len(pts):
            print("hyplot: error: %s has %d rows, %s %d" % (argv[2], len(emb), argv[3], len(pts)), file=sys.stderr)
            return 2
        if embedding_plot(argv[4], emb, pts[:, -1], title) is None:
            print("hyplot: error: matplotlib is not installed (apt-get install python3-matplotlib)", file=sys.stderr)
            return 3
        print("hyplot: %s (%d points)" % (argv[4], len(emb)))
        return 0
    if len(argv) >= 4 and argv[1] == "record":
        scale = float(argv[argv.index("--scale") + 1]) if "--scale" in argv else 1.0
        recs = load_records(argv[2])
        v = value(recs[0], argv[3]) if len(recs) == 1 and recs[0].get("status") == "passed" else None
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            print("FAIL")
            return 4
        print("%.4f" % (v * scale))
        return 0
    sys.stderr.write(__doc__)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
