#!/bin/sh
# bench/stan/nuts_side_by_side.sh STAN_PROGRAM VARIATE PLUGIN.so DATA.json OUT SEED...: for each seed,
# 4 chains x (1000 warm-up + 1000 draws) of NUTS with Stan's diagonal adaptation on two threads, once
# with the CmdStan program (`bench/stan/build.sh --sampler`) into OUT/stan<seed>/ and once with `VARIATE
# sample --metric diag` on the same model as a plugin (`variate build`) into OUT/variate<seed>/,
# each timed (OUT/*/seconds). bench/stan/nuts_side_by_side.py OUT compares them.
set -eu
if [ $# -lt 6 ]; then
  echo "usage: $0 STAN_PROGRAM VARIATE PLUGIN.so DATA.json OUT SEED..." >&2
  exit 2
fi
stan=$1 variate=$2 plugin=$3 data=$4 out=$5
shift 5
for seed in "$@"; do
  mkdir -p "$out/stan$seed" "$out/variate$seed"
  /usr/bin/time -f %e -o "$out/stan$seed/seconds" "$stan" sample num_chains=4 num_warmup=1000 num_samples=1000 \
    data file="$data" output file="$out/stan$seed/stan.csv" refresh=0 random seed="$seed" num_threads=2 >/dev/null
  /usr/bin/time -f %e -o "$out/variate$seed/seconds" "$variate" sample --model-file "$plugin" --data "$data" \
    --metric diag --chains 4 --warmup 1000 --draws 1000 --threads 2 --seed "$seed" --output "$out/variate$seed" --quiet \
    --overwrite >/dev/null
done
