#!/bin/sh
# `variate sample --checkpoint-every` on two MPI ranks (label `mpi`, registered in
# tests/CMakeLists.txt): rank 0 writes the checkpoints. The run equals 2 thread devices; killed
# (SIGKILL, by the tool's test hook) in warm-up and while sampling, it resumes on 2 ranks to the
# draws of the uninterrupted run. Ranks that read different checkpoints fail, each with one whole
# error line. Usage: mpi_checkpoint.sh MPIEXEC VARIATE
set -u
mpiexec=$1
variate=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sample="sample --model eight-schools --chains 2 --warmup 100 --draws 60 --seed 5 --checkpoint-every 10"
fail() {
  echo "FAILED: $1; the job's output:"
  cat "$dir/log"
  exit 1
}
# The same rows: the CSV files less their header comments, which name the file.
same_draws() {
  for c in 1 2; do
    [ "$(grep -v '^#' "$1/eight-schools-$c.csv")" = "$(grep -v '^#' "$2/eight-schools-$c.csv")" ] || return 1
  done
}
# shellcheck disable=SC2086
"$variate" $sample --devices 2 --output "$dir/threads" >"$dir/log" 2>&1 || fail "2 thread devices"
# shellcheck disable=SC2086
"$mpiexec" -np 2 "$variate" $sample --output "$dir/ranks" >"$dir/log" 2>&1 || fail "2 ranks"
same_draws "$dir/threads" "$dir/ranks" || fail "2 ranks' draws differ from 2 thread devices'"
# Chain 1 in warm-up, chain 1 sampling, chain 2 in warm-up (the chains run one after another).
for at in 1:40 1:130 2:70; do
  out="$dir/killed-$(echo "$at" | tr : -)"
  # shellcheck disable=SC2086
  VARIATE_TEST_KILL_AT_CHECKPOINT=$at "$mpiexec" -np 2 -x VARIATE_TEST_KILL_AT_CHECKPOINT "$variate" $sample \
    --output "$out" >"$dir/log" 2>&1 && fail "the run was not killed at $at"
  [ -e "$out/checkpoint/eight-schools-${at%%:*}.ckpt" ] || fail "no checkpoint after the kill at $at"
  # shellcheck disable=SC2086
  "$mpiexec" -np 2 "$variate" $sample --resume "$out" >"$dir/log" 2>&1 || fail "the resume after the kill at $at"
  grep -q "chain ${at%%:*} at iteration ${at#*:}" "$dir/log" || fail "the resume after $at did not start there"
  same_draws "$dir/ranks" "$out" || fail "killed at $at and resumed, the draws differ from the uninterrupted run's"
done
# Each rank resumes another folder (as ranks on machines that do not share the output folder could).
# shellcheck disable=SC2086
VARIATE_TEST_KILL_AT_CHECKPOINT=1:40 "$variate" $sample --devices 2 --output "$dir/rank0" >/dev/null 2>&1
# shellcheck disable=SC2086
VARIATE_TEST_KILL_AT_CHECKPOINT=1:80 "$variate" $sample --devices 2 --output "$dir/rank1" >/dev/null 2>&1
"$mpiexec" -np 2 sh -c "exec '$variate' $sample --resume '$dir'/rank\${OMPI_COMM_WORLD_RANK:-\$PMI_RANK}" \
  >"$dir/log" 2>&1 && fail "ranks resumed from different checkpoints"
mismatch="the checkpoints each device read (every MPI rank must read the same output folder): device 1 of axis"
grep -q "$mismatch 'data' holds 0x" "$dir/log" || fail "no checkpoint mismatch error"
if grep -v "^variate: error: " "$dir/log" | grep -q "device 1 of axis"; then fail "an error line cut by another"; fi
echo "passed: 2 ranks equal 2 thread devices, resume bit for bit after kills at 1:40, 1:130, 2:70, refuse different checkpoints"
