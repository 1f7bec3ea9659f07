#!/usr/bin/python3
"""The cost of a log-density gradient called from Python (the `variate` module) against the same
call in process in C++ (bench/plugin_gradient.cpp, inference::make_target), in one run: eight
schools (10 parameters) and logistic regression with the fused GLM likelihood at N = 10000,
D = 21 (bench/models/logistic_glm.cpp), both as plugins built by `variate build` on the same data
and at the same 64 points, on one thread (OMP_NUM_THREADS=1). Target: Python adds at most 2 us per call.

    cmake --build build --target variate_cli variate_python plugin_gradient
    /usr/bin/python3 bench/python_gradient.py build

Times are the best over about three seconds of loops of calls that take about 20 ms each; the Python
loop's own cost (about 0.05 us a call) is counted against the module. On a loaded machine the
figures scatter; run it on an idle one.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EIGHT_SCHOOLS = {"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}


def logistic_data(n=10000, d=21):
    rng = np.random.default_rng(20261129)
    x = rng.standard_normal((n, d))
    w = 0.3 * rng.standard_normal(d)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-x @ w))).astype(np.int64)
    return {"N": n, "D": d, "X": x, "y": y}


def in_process_ns(build, plugin, data_file, calls):
    out = subprocess.run([os.path.join(build, "bench", "plugin_gradient"), plugin, data_file, str(calls)],
                         check=True, capture_output=True, text=True).stdout
    return float(re.search(r"in process: (\d+) ns", out).group(1))


def points(model):
    d = model.dimension
    return [np.array([0.1 * ((i * d + k) % 13) - 0.6 for k in range(d)]) for i in range(64)]


def loop_calls(model, seconds=0.02):
    """Calls that take about `seconds`: short loops, so that the best of many finds a quiet moment."""
    start = time.perf_counter()
    for x in points(model):
        model.log_density_gradient(x)
    return max(20, int(seconds / ((time.perf_counter() - start) / 64)))


def python_ns(model, calls, budget=3.0):
    points_ = points(model)
    gradient = model.log_density_gradient
    best, spent, repeats = float("inf"), 0.0, 0
    while repeats < 5 or spent < budget:
        start = time.perf_counter()
        for c in range(calls):
            gradient(points_[c & 63])
        seconds = time.perf_counter() - start
        best, spent, repeats = min(best, seconds), spent + seconds, repeats + 1
    return best / calls * 1e9


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    # One thread for the kernels on both sides (read when the library loads, so before the import).
    os.environ["OMP_NUM_THREADS"] = "1"
    sys.path.insert(0, os.path.join(build, "python"))
    import variate

    cases = [("eight schools", os.path.join(ROOT, "src", "models", "eight_schools.cpp"), EIGHT_SCHOOLS),
             ("logistic N=10000 D=21", os.path.join(ROOT, "bench", "models", "logistic_glm.cpp"), logistic_data())]
    print("log-density gradient, one thread: ns per call in process (C++) and from Python")
    print(f"{'model':<24}{'dim':>5}{'C++':>10}{'Python':>10}{'added':>10}")
    with tempfile.TemporaryDirectory() as work:
        for name, source, data in cases:
            plugin = os.path.join(work, os.path.basename(source).replace(".cpp", ".so"))
            subprocess.run([os.path.join(build, "variate"), "build", source, "-o", plugin], check=True,
                           capture_output=True)
            data_file = plugin.replace(".so", ".json")
            with open(data_file, "w") as f:
                json.dump({k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in data.items()}, f)
            model = variate.Model(file=plugin, data=data)
            calls = loop_calls(model)
            cpp = in_process_ns(build, plugin, data_file, calls)
            py = python_ns(model, calls)
            print(f"{name:<24}{model.dimension:>5}{cpp:>10.0f}{py:>10.0f}{py - cpp:>10.0f}")
    print("target: at most 2000 ns added per call")


if __name__ == "__main__":
    main()
