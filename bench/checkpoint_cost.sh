#!/bin/bash
# What checkpoints cost a run (issue 26: checkpointing every 100 iterations costs at most 2% of the
# sampling time): `variate sample` with and without --checkpoint-every 100, repeats alternating so
# that a busy machine slows both alike. Prints each run's sampling seconds (the longest chain's, from
# the Stan CSV files' Elapsed Time block) and wall seconds, then the medians and their ratios.
#
#   bench/checkpoint_cost.sh build/variate [repeats=5] [model=eight-schools] [sample options...]
#   bench/checkpoint_cost.sh build/variate 5 digits-softmax --draws 1000
set -euo pipefail
variate=${1:?usage: checkpoint_cost.sh VARIATE [REPEATS] [MODEL] [OPTIONS...]}
repeats=${2:-5}
model=${3:-eight-schools}
shift $(($# < 3 ? $# : 3))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The longest chain's sampling seconds in folder $1.
sampling_seconds() {
  grep -h "seconds (Sampling)" "$1"/*.csv | awk '{ if ($2 > m) m = $2 } END { print m }'
}

run() {  # $1: label; the rest: extra options
  local label=$1 out="$work/$1" start end
  shift
  rm -rf "$out"
  start=$(date +%s.%N)
  "$variate" sample --model "$model" --seed 1 --quiet --overwrite --output "$out" "$@" "${extra[@]}" >/dev/null
  end=$(date +%s.%N)
  echo "$label $(sampling_seconds "$out") $(echo "$end - $start" | bc)"
}

extra=("$@")
echo "model $model, $repeats repeats; columns: run, sampling s, wall s"
for ((i = 0; i < repeats; ++i)); do
  run plain
  run checkpointed --checkpoint-every 100
done | tee "$work/times"
# The median of the numbers on standard input.
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
column() { awk -v run="$1" -v k="$2" '$1 == run { print $k }' "$work/times" | median; }
for k in 2 3; do
  plain=$(column plain $k)
  checkpointed=$(column checkpointed $k)
  printf "median %s s: plain %.3f, checkpointed %.3f, ratio %.4f\n" "$([ $k = 2 ] && echo sampling || echo wall)" \
    "$plain" "$checkpointed" "$(echo "$checkpointed / $plain" | bc -l)"
done
