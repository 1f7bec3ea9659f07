#!/bin/sh
# `variate train` on two MPI ranks (label `mpi`, registered in tests/CMakeLists.txt): the Image
# Transformer on the embedded digits, data parallel over 2 ranks, must end each epoch with the
# checkpoint, bit for bit, of 2 thread devices in one process, resume likewise, and print its report
# once (rank 0). Options that depend on a rank's own clock or process are refused.
# Usage: mpi_train.sh MPIEXEC VARIATE
set -u
mpiexec=$1
variate=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
train="train --model image-transformer-digits --layers 1 --embed-dim 8 --heads 2 --train-images 200 --batch 20 \
  --eval-images 20 --eval-samples 0 --seed 3"
fail() {
  echo "FAILED: $1; the job's output:"
  cat "$dir/log"
  exit 1
}
for epochs in 1 2; do  # the second run resumes the first
  # shellcheck disable=SC2086
  "$variate" $train --epochs $epochs --devices 2 --output-dir "$dir/threads" >"$dir/log" 2>&1 ||
    fail "2 thread devices, $epochs epochs"
  # shellcheck disable=SC2086
  "$mpiexec" -np 2 "$variate" $train --epochs $epochs --output-dir "$dir/ranks" >"$dir/log" 2>&1 ||
    fail "2 ranks, $epochs epochs"
  cmp -s "$dir/threads/checkpoint" "$dir/ranks/checkpoint" ||
    fail "after $epochs epochs, 2 ranks' checkpoint differs from 2 thread devices'"
done
grep -q "resumed from .* after epoch 1" "$dir/log" || fail "the second run on 2 ranks did not resume"
[ "$(grep -c "^model: .* over 2 devices (data parallel)" "$dir/log")" = 1 ] || fail "not one model line naming 2 devices"
[ "$(grep -c "^wrote " "$dir/log")" = 1 ] || fail "not one 'wrote' line"
# shellcheck disable=SC2086
"$mpiexec" -np 2 "$variate" $train --epochs 1 --minutes 1 --output-dir "$dir/minutes" >"$dir/log" 2>&1 &&
  fail "--minutes was accepted under mpirun"
grep -q "minutes is not supported under mpirun" "$dir/log" || fail "no --minutes error"
echo "passed: 2 ranks equal 2 thread devices over 2 epochs (with a resume)"
