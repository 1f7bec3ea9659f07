#!/bin/bash
# Fair to a shared machine (issue 28: with one core held by another process, every layout at most
# 1.3x the time of its best thread setting). While a CPU-bound process holds one core, each layout
# (threaded chains, vectorized chains, --devices 2) runs with every thread count from 1 to the core
# count; repeats alternate so that other load slows every setting alike. Prints each run's wall
# seconds, then per layout the median of each setting and the ratio of the default setting (one
# thread per core) to the best one. Run it on an otherwise idle machine.
#
#   bench/shared_core.sh build/variate [repeats=3] [model=logistic] [sample options...]
set -euo pipefail
variate=${1:?usage: shared_core.sh VARIATE [REPEATS] [MODEL] [OPTIONS...]}
repeats=${2:-3}
model=${3:-logistic}
shift $(($# < 3 ? $# : 3))
extra=("$@")
cores=$(nproc)
work=$(mktemp -d)
hog=""
trap '[ -n "$hog" ] && kill "$hog" 2>/dev/null; rm -rf "$work"' EXIT

# The other process: a busy loop, at the same priority as the runs.
bash -c 'while :; do :; done' &
hog=$!

# Prints the layout, the thread count, the wall seconds and the CPU seconds (user + system: a
# thread that spins while it waits adds to them without adding draws).
run() {  # $1: layout, $2: threads; the rest: layout options
  local layout=$1 threads=$2 out="$work/out" times wall user system TIMEFORMAT="%R %U %S"
  shift 2
  times=$( { time "$variate" sample --model "$model" --seed 1 --quiet --overwrite --output "$out" \
    --threads "$threads" "$@" "${extra[@]}" >/dev/null 2>"$work/errors"; } 2>&1) || {
    cat "$work/errors" >&2
    exit 1
  }
  read -r wall user system <<<"$times"
  echo "$layout $threads $wall $(echo "$user + $system" | bc)"
}

echo "model $model, $cores cores, one held by a busy loop, $repeats repeats; columns: layout, threads, wall s, CPU s"
for ((i = 0; i < repeats; ++i)); do
  for ((t = 1; t <= cores; ++t)); do
    run threaded "$t"
    run vectorized "$t" --vectorize
    run devices-2 "$t" --devices 2
  done
done | tee "$work/times"

# The median of the numbers on standard input.
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for layout in threaded vectorized devices-2; do
  best=""
  line="$layout:"
  for ((t = 1; t <= cores; ++t)); do
    m=$(awk -v l="$layout" -v t="$t" '$1 == l && $2 == t { print $3 }' "$work/times" | median)
    line="$line threads $t ${m} s,"
    if [ -z "$best" ] || [ "$(echo "$m < $best" | bc -l)" = 1 ]; then best=$m; fi
    [ "$t" = "$cores" ] && default=$m
  done
  printf "%s default/best %.3f (target <= 1.3)\n" "$line" "$(echo "$default / $best" | bc -l)"
done
