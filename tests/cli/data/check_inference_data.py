"""Checks a `variate sample --output-format both` run's netCDF file against its Stan CSV files.

    python3 check_inference_data.py RUN.nc DTYPE OBSERVED CHAIN-1.csv CHAIN-2.csv ... [--killed]

Opens every group of RUN.nc with xarray as ArviZ does (xr.open_dataset(path, group=...)), checks
ArviZ's layout (dimensions chain, draw, <var>_dim_k, their coordinates, the attributes created_at
and inference_library) and that every value equals the CSV's: posterior variable `theta` element
[i] against column theta.<i+1> (rounded to float in an f32 run's file), sample_stats against the sampler columns under ArviZ's names.
DTYPE is the posterior's (float64, or float32 for an f32 run), OBSERVED y's values, comma-separated, for observed_data. With --killed the run was killed:
each chain's file holds a prefix of its CSV rows (at least one draw); the rest reads NaN.
Prints "ok" or fails with an AssertionError saying what differs.
"""
import csv
import sys

import numpy as np
import xarray as xr

STATS = {"lp": "lp__", "acceptance_rate": "accept_stat__", "step_size": "stepsize__", "tree_depth": "treedepth__",
         "n_steps": "n_leapfrog__", "diverging": "divergent__", "energy": "energy__"}


def read_csv(path, killed):
    """Column name -> values of the rows, skipping comments. A killed run's file may end in part of
    a row (a write that crosses a page boundary stops there on SIGKILL): without its newline, the
    last line is left out."""
    with open(path) as f:
        lines = f.read().split("\n")
    if not killed:
        assert lines[-1] == "", f"{path}: the last line has no newline"
    lines = lines[:-1]
    rows = list(csv.reader(line for line in lines if line.strip() and not line.startswith("#")))
    header, body = rows[0], rows[1:]
    return {name: np.array([float(r[j]) for r in body]) for j, name in enumerate(header)}


def check_attributes(ds, group):
    assert ds.attrs.get("inference_library") == "variate", (group, ds.attrs)
    assert "created_at" in ds.attrs and ds.attrs["created_at"].endswith("Z"), (group, ds.attrs)


def check_draw_group(ds, group, chains):
    check_attributes(ds, group)
    assert ds.sizes["chain"] == len(chains), (group, dict(ds.sizes))
    assert list(ds["chain"].values) == list(range(len(chains))), group
    assert list(ds["draw"].values) == list(range(ds.sizes["draw"])), group
    for name, var in ds.data_vars.items():
        assert var.dims[:2] == ("chain", "draw"), (group, name, var.dims)
        for k, dim in enumerate(var.dims[2:]):
            assert dim == f"{name}_dim_{k}", (group, name, var.dims)
            assert list(ds[dim].values) == list(range(ds.sizes[dim])), (group, dim)


def written_draws(stats, c, killed, csv_rows):
    """How many draws of chain c the file holds: all of the CSV's, or with --killed those before the NaN fill."""
    lp = stats["lp"].values[c]
    n = int(np.sum(~np.isnan(lp)))
    assert not np.isnan(lp[:n]).any(), f"chain {c}: NaN among the written draws"
    if killed:
        assert 1 <= n <= csv_rows, f"chain {c}: {n} draws in the file, {csv_rows} in the CSV"
    else:
        assert n == csv_rows == stats.sizes["draw"], f"chain {c}: {n} draws, {csv_rows} CSV rows"
    return n


def main(argv):
    killed = "--killed" in argv
    argv = [a for a in argv if a != "--killed"]
    path, dtype, observed, csv_paths = argv[1], argv[2], [float(v) for v in argv[3].split(",")], argv[4:]
    chains = [read_csv(p, killed) for p in csv_paths]
    posterior = xr.open_dataset(path, group="posterior")
    stats = xr.open_dataset(path, group="sample_stats")
    data = xr.open_dataset(path, group="observed_data")
    check_draw_group(posterior, "posterior", chains)
    check_draw_group(stats, "sample_stats", chains)
    assert set(stats.data_vars) == set(STATS), sorted(stats.data_vars)
    assert stats["diverging"].dtype == bool and stats["tree_depth"].dtype == np.int64, stats
    assert posterior["mu"].dtype == np.dtype(dtype), posterior["mu"].dtype
    check_attributes(data, "observed_data")
    assert data["y"].dims == ("y_dim_0",) and list(data["y"].values) == observed, data["y"]

    compared = 0
    for c, columns in enumerate(chains):
        n = written_draws(stats, c, killed, len(columns["lp__"]))
        for name, column in STATS.items():
            assert np.array_equal(stats[name].values[c, :n].astype(float), columns[column][:n]), (c, name)
        for name, var in posterior.data_vars.items():
            values = var.values[c, :n]
            for index in np.ndindex(*values.shape[1:]):
                column = ".".join([name] + [str(i + 1) for i in index])
                expected = columns[column][:n].astype(values.dtype)  # f32 runs store float
                assert np.array_equal(values[(slice(None),) + index], expected), (c, column)
                compared += n
        if killed:  # the draws not written are the fill value
            assert np.isnan(posterior["mu"].values[c, n:]).all(), c
    assert compared > 0
    print(f"ok: {compared} posterior values and {len(STATS)} sample_stats per draw compared")


if __name__ == "__main__":
    main(sys.argv)
