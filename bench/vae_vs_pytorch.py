#!/usr/bin/python3
"""One VAE training step in variate and in PyTorch, side by side in one run.

The same computation in both: the IWAE paper's networks (encoder 784-200-200 tanh to a 50-d
Gaussian, decoder 50-200-200-784 Bernoulli logits), batch 100, a fresh binarization of the batch,
one reparameterized draw, the ELBO with the Gaussian KL in closed form, its gradient and an Adam
step (lr 1e-3, beta2 0.999, eps 1e-4). Times are the best of repeats over about two seconds, for
f64 and f32, on 1 and 2 threads; the ratio is variate's examples/s over PyTorch's.

    OMP_NUM_THREADS is set per configuration; run on an otherwise idle machine:
    /usr/bin/python3 bench/vae_vs_pytorch.py build/bench/vae_training_step

PyTorch (Debian's python3-torch) is only the comparator: without it the script says so and exits 0.
Debian's PyTorch does its products through the system BLAS (libblas.so.3): the reference BLAS
unless OpenBLAS is installed (libopenblas0-pthread), which makes it several times faster; the
library it loaded is printed, and only an OpenBLAS comparison is a fair one.
"""
import os
import re
import subprocess
import sys
import time

BATCH = 100


def variate_examples_per_second(binary, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([binary], env=env, check=True, capture_output=True, text=True).stdout
    rates = {}
    for line in out.splitlines():
        m = re.match(r"(f64|f32)\s+full step\s+[\d.]+ ms \(\s*(\d+) examples/s\)", line)
        if m:
            rates[m.group(1)] = float(m.group(2))
    if set(rates) != {"f64", "f32"}:
        sys.exit(f"vae_vs_pytorch: could not read the full-step rates from {binary}'s output:\n{out}")
    return rates


def torch_examples_per_second(torch, dtype, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(0)

    def mlp(n_in, n_out):
        return torch.nn.Sequential(
            torch.nn.Linear(n_in, 200), torch.nn.Tanh(), torch.nn.Linear(200, 200), torch.nn.Tanh(),
            torch.nn.Linear(200, n_out)).to(dtype)

    encoder, decoder = mlp(784, 100), mlp(50, 784)
    params = list(encoder.parameters()) + list(decoder.parameters())
    adam = torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-4)
    gray = torch.rand(BATCH, 784, dtype=dtype)

    def step():
        x = (torch.rand(BATCH, 784, dtype=dtype) < gray).to(dtype)
        h = encoder(x)
        loc, log_scale = h[:, :50], h[:, 50:]
        z = loc + torch.exp(log_scale) * torch.randn(BATCH, 50, dtype=dtype)
        logits = decoder(z)
        log_lik = (x * logits - torch.nn.functional.softplus(logits)).sum()
        kl = 0.5 * (loc.square() + torch.exp(2 * log_scale) - 1 - 2 * log_scale).sum()
        loss = -(log_lik - kl) / BATCH
        adam.zero_grad(set_to_none=True)
        loss.backward()
        adam.step()

    best, spent, repeats = float("inf"), 0.0, 0
    while repeats < 5 or spent < 2.0:
        start = time.perf_counter()
        step()
        seconds = time.perf_counter() - start
        best, spent, repeats = min(best, seconds), spent + seconds, repeats + 1
    return BATCH / best


def loaded_blas(torch):
    torch.ones(64, 64) @ torch.ones(64, 64)  # loads the BLAS
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line}
    return ", ".join(sorted(paths)) or "none found"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: vae_vs_pytorch.py PATH/TO/build/bench/vae_training_step")
    try:
        import torch
    except ImportError:
        print("vae_vs_pytorch: PyTorch is not installed (Debian: python3-torch); nothing to compare")
        return
    print(f"VAE training step, batch {BATCH}: examples/s (best of repeats); PyTorch {torch.__version__}")
    print(f"PyTorch's BLAS: {loaded_blas(torch)}")
    print("type threads   variate   pytorch   variate/pytorch")
    for threads in (1, 2):
        ours = variate_examples_per_second(sys.argv[1], threads)
        for name, dtype in (("f64", torch.float64), ("f32", torch.float32)):
            theirs = torch_examples_per_second(torch, dtype, threads)
            print(f"{name}  {threads:7d} {ours[name]:9.0f} {theirs:9.0f} {ours[name] / theirs:17.2f}")


if __name__ == "__main__":
    main()
