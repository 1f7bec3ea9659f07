#!/usr/bin/python3
"""Compares the NUTS runs that bench/stan/nuts_side_by_side.sh made with CmdStan and with variate.

    bench/stan/nuts_side_by_side.py OUT [--variate build/variate]

Per run: the min and median bulk ESS over the parameters, the mean step size and leapfrog steps per
draw, divergences and wall seconds; then, per side, over every chain:
- the step sizes warm-up adapted (mean and its standard error);
- the mean acceptance statistic against log step size (a least-squares line, read off at the step
  size the two sides share on average): the same line means the same transition at the same step;
- each chain's mean bulk ESS over the parameters against log step size, read off the same way: the
  ESS a chain gets at a given step size;
- the adapted inverse metric against the posterior variances of all draws pooled: the mean and the
  spread over the parameters of log(metric / variance).
ESS comes from `variate summary`, the same estimator for both sides' files.
"""
import argparse
import csv
import glob
import math
import os
import statistics as st
import subprocess
import sys


def read_chain(path):
    """The inverse metric of the adaptation comments and the rows of a Stan CSV file."""
    with open(path) as f:
        lines = f.readlines()
    metric = None
    for k, line in enumerate(lines):
        if line.startswith("# Diagonal elements of inverse mass matrix"):
            metric = [float(v) for v in lines[k + 1][1:].split(",")]
    rows = [line.strip().split(",") for line in lines if line.strip() and not line.startswith("#")]
    return metric, rows[0], [[float(v) for v in r] for r in rows[1:]]


def summary(variate, files, out):
    """Bulk ESS of every parameter of `files`, kept in `out` until a file is newer than it."""
    if not os.path.exists(out) or os.path.getmtime(out) < max(os.path.getmtime(f) for f in files):
        subprocess.run([variate, "summary", *files, "--csv", out], stdout=subprocess.DEVNULL, check=True)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    return [float(r["ESS_bulk"]) for r in rows if not r["name"].endswith("__")]


def line_at(xs, ys, x0):
    """The least-squares line of ys on xs at x0, and its standard error there."""
    n, mx, my = len(xs), st.mean(xs), st.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    residual_variance = sum((y - my - slope * (x - mx)) ** 2 for x, y in zip(xs, ys)) / (n - 2)
    return my + slope * (x0 - mx), math.sqrt(residual_variance * (1 / n + (x0 - mx) ** 2 / sxx))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--variate", default="build/variate")
    args = parser.parse_args()
    sides = {"stan": "stan_*.csv", "variate": "*-[0-9]*.csv"}
    runs = {side: [] for side in sides}
    for side, pattern in sides.items():
        for run in sorted(glob.glob(os.path.join(args.out, side + "[0-9]*"))):
            files = sorted(f for f in glob.glob(os.path.join(run, pattern)) if not f.endswith(".summary.csv"))
            seconds_file = os.path.join(run, "seconds")  # time(1) writes it when the run ends
            if not files or not os.path.exists(seconds_file) or os.path.getsize(seconds_file) == 0:
                continue  # a run still going, or one that failed
            chains = []
            for f in files:
                metric, header, rows = read_chain(f)
                col = {name: header.index(name) for name in header}
                first = col["energy__"] + 1
                chains.append(
                    {
                        "step": rows[0][col["stepsize__"]],
                        "accept": st.mean(r[col["accept_stat__"]] for r in rows),
                        "leapfrog": st.mean(r[col["n_leapfrog__"]] for r in rows),
                        "divergent": sum(r[col["divergent__"]] for r in rows),
                        "metric": metric,
                        "draws": [r[first:] for r in rows],
                        "ess": st.mean(summary(args.variate, [f], f + ".summary.csv")),
                    }
                )
            ess = summary(args.variate, files, os.path.join(run, "summary.all.csv"))
            with open(seconds_file) as f:
                seconds = float(f.read().split()[-1])
            runs[side].append({"name": os.path.basename(run), "chains": chains, "ess": ess, "seconds": seconds})
    if not all(runs.values()):
        sys.exit("nuts_side_by_side.py: expected finished runs of both sides in " + args.out)

    print(f"{'run':12s} {'min ESS':>8s} {'med ESS':>8s} {'step':>7s} {'leapfrog':>8s} {'div':>4s} {'seconds':>8s}")
    for side in sides:
        for r in runs[side]:
            c = r["chains"]
            print(
                f"{r['name']:12s} {min(r['ess']):8.0f} {st.median(r['ess']):8.0f} {st.mean(x['step'] for x in c):7.4f} "
                f"{st.mean(x['leapfrog'] for x in c):8.2f} {sum(x['divergent'] for x in c):4.0f} {r['seconds']:8.1f}"
            )
    chains = {side: [c for r in runs[side] for c in r["chains"]] for side in sides}
    common = math.log(st.mean(c["step"] for cs in chains.values() for c in cs))
    pooled = [row for cs in chains.values() for c in cs for row in c["draws"]]
    variance = [st.pvariance(column) for column in zip(*pooled)]
    print(f"\nper side, over chains (common step size {math.exp(common):.4f}):")
    for side in sides:
        cs, rs = chains[side], runs[side]
        steps = [c["step"] for c in cs]
        log_steps = [math.log(s) for s in steps]
        accept, accept_se = line_at(log_steps, [c["accept"] for c in cs], common)
        ess, ess_se = line_at(log_steps, [c["ess"] for c in cs], common)
        print(f"{side}: {len(rs)} runs, {len(cs)} chains")
        print(f"  median over runs: min bulk ESS {st.median(min(r['ess']) for r in rs):.0f}, "
              f"median bulk ESS {st.median(st.median(r['ess']) for r in rs):.0f}")
        print(f"  step size {st.mean(steps):.4f} +- {st.stdev(steps) / math.sqrt(len(steps)):.4f}")
        print(f"  acceptance at the common step size {accept:.4f} +- {accept_se:.4f}")
        print(f"  a chain's mean bulk ESS at the common step size {ess:.0f} +- {ess_se:.0f}")
        if all(c["metric"] for c in cs):
            logs = [[math.log(m / v) for m, v in zip(c["metric"], variance)] for c in cs]
            print(f"  log(inverse metric / posterior variance): mean {st.mean(st.mean(l) for l in logs):.4f}, "
                  f"spread over parameters {st.mean(st.pstdev(l) for l in logs):.4f}")


if __name__ == "__main__":
    main()
