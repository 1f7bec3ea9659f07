#!/usr/bin/python3
"""Writes a 100-point data set in posteriordb's gp_pois_regr layout (N, x, y, k), for timing the GP
gradients at N = 100 (posteriordb's own has 11 points):

    bench/gp100_data.py DIR
    build/bench/suite_gradient --models gp_pois_regr-gp_regr --data-folder DIR

DIR/gp_pois_regr.json.zip is what suite_gradient reads; DIR/gp_pois_regr.json is the same data for
a Stan harness. x is evenly spaced on [-10, 10], y = 2.5 + 1.5 sin(0.6 x) plus N(0, 0.5) noise
(seed 1), and k the rounded exp of the noise-free curve.
"""
import json
import math
import pathlib
import random
import sys
import zipfile


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gp100_data.py DIR")
    folder = pathlib.Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(1)
    n = 100
    x = [-10 + 20 * i / (n - 1) for i in range(n)]
    curve = [2.5 + 1.5 * math.sin(0.6 * xi) for xi in x]
    data = {"N": n, "x": x, "y": [c + rng.gauss(0, 0.5) for c in curve], "k": [round(math.exp(c)) for c in curve]}
    text = json.dumps(data)
    (folder / "gp_pois_regr.json").write_text(text)
    with zipfile.ZipFile(folder / "gp_pois_regr.json.zip", "w") as archive:
        archive.writestr("gp_pois_regr.json", text)


if __name__ == "__main__":
    main()
