#!/bin/sh
# bench/stan/build.sh [--sampler] CMDSTAN MODEL.stan: compiles MODEL.stan with CmdStan's stanc into
# ./MODEL (beside the .stan file), with CmdStan 2.32's default flags (-O3, no -march=native):
# - by default linked into gradient_harness.cpp, which times the model's gradient;
# - with --sampler linked into CmdStan's own main (with STAN_THREADS, so that num_threads runs
#   chains side by side), the program bench/stan/nuts_side_by_side.sh samples with; CmdStan's main
#   object is compiled first if it is missing (a few minutes).
# CMDSTAN is a CmdStan 2.32 tree set up as ../shared/anchors/stan/NOTES.md describes (Stan Math 4.7
# headers, Debian's Eigen, Boost and oneTBB).
set -eu
sampler=no
if [ "${1:-}" = --sampler ]; then
  sampler=yes
  shift
fi
if [ $# -ne 2 ]; then
  echo "usage: $0 [--sampler] CMDSTAN MODEL.stan" >&2
  exit 2
fi
cmdstan=$(cd "$1" && pwd)
model=${2%.stan}
case $model in /*) ;; *) model=$(pwd)/$model ;; esac
math=$cmdstan/stan/lib/stan_math
"$cmdstan/bin/stanc" --o="$model.hpp" "$model.stan"
compile="g++ -std=c++17 -O3 -pthread -D_REENTRANT -DBOOST_DISABLE_ASSERTS -DNO_FPRINTF_OUTPUT -DTBB_INTERFACE_NEW
  -Wno-ignored-attributes -Wno-deprecated-declarations -Wno-unused-function -Wno-unused-variable
  -Wno-unused-local-typedefs -Wno-sign-compare
  -I $cmdstan/stan/src -I $cmdstan/stan/lib/rapidjson_1.1.0 -I $math -I $math/lib/eigen_3.4.0
  -I $math/lib/sundials_6.1.1/include"
libraries="-ltbb /usr/lib/x86_64-linux-gnu/libboost_regex.so.1.74.0"
if [ $sampler = no ]; then
  $compile -DMODEL_HPP="\"$model.hpp\"" "$(dirname "$0")/gradient_harness.cpp" -o "$model" $libraries
else
  (cd "$cmdstan" && make -s STAN_THREADS=true src/cmdstan/main_threads.o)
  $compile -DSTAN_THREADS -I "$cmdstan/src" -I "$cmdstan/lib/CLI11-1.9.1" -c -x c++ -o "$model.o" "$model.hpp"
  g++ -std=c++17 -O3 -pthread "$model.o" "$cmdstan/src/cmdstan/main_threads.o" -o "$model" $libraries
fi
