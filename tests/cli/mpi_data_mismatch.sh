#!/bin/sh
# `variate sample` on two MPI ranks that read other data (the same shapes, other values): the job
# fails on both ranks before sampling, each with one whole error line (label `mpi`, registered in
# tests/CMakeLists.txt). Usage: mpi_data_mismatch.sh MPIEXEC VARIATE
set -u
mpiexec=$1
variate=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf 'y\n0\n1\n1\n0\n' >"$dir/rank0.csv"
printf 'y\n1\n1\n1\n0\n' >"$dir/rank1.csv"
# Open MPI names the rank in OMPI_COMM_WORLD_RANK, MPICH in PMI_RANK.
"$mpiexec" -np 2 sh -c "exec '$variate' sample --model beta-bernoulli --chains 1 --warmup 10 --draws 10 \
  --data '$dir'/rank\${OMPI_COMM_WORLD_RANK:-\$PMI_RANK}.csv --output '$dir/out'" >"$dir/log" 2>&1
status=$?
fail() {
  echo "FAILED: $1 (exit status $status); the job's output:"
  cat "$dir/log"
  exit 1
}
[ "$status" -ne 0 ] || fail "the job succeeded"
grep -q "the data each MPI rank read (--data): device 1 of axis 'data' holds 0x" "$dir/log" || fail "no data mismatch error"
if grep -q "variate: error: .*variate: error:" "$dir/log"; then fail "a doubled error prefix"; fi
if grep -v "^variate: error: " "$dir/log" | grep -q "device 1 of axis"; then fail "an error line cut by another"; fi
[ ! -e "$dir/out/beta-bernoulli-1.csv" ] || fail "the job wrote draws"
echo "passed: $(head -n 1 "$dir/log")"
