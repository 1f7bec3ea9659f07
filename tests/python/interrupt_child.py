"""Run by test_variate.py: samples a long run, sends itself SIGINT (as Ctrl-C does) after a delay,
and prints what the sampler returned as JSON."""
import json
import os
import signal
import sys
import threading
import warnings

import variate

model = variate.Model("eight-schools")
threading.Timer(float(sys.argv[1]), os.kill, (os.getpid(), signal.SIGINT)).start()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fit = model.sample(chains=2, warmup=100, draws=100_000_000, seed=5, threads=2)
print(json.dumps({
    "interrupted": fit.interrupted,
    "draws_per_chain": fit.draws_per_chain,
    "mu_shape": list(fit.draws["mu"].shape),
    "theta_shape": list(fit.draws["theta"].shape),
    "lp_shape": list(fit.stats["lp__"].shape),
    "warnings": [str(w.message) for w in caught],
    "mu_mean": fit.summary()["mu"]["mean"],
}))
