#!/bin/sh
# bench/stan/build.sh CMDSTAN MODEL.stan: compiles MODEL.stan with CmdStan's stanc and links it into
# gradient_harness.cpp as ./MODEL (beside the .stan file), with CmdStan 2.32's default flags (-O3,
# no -march=native). CMDSTAN is a CmdStan 2.32 tree set up as ../shared/anchors/stan/NOTES.md
# describes (Stan Math 4.7 headers, Debian's Eigen, Boost and oneTBB).
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 CMDSTAN MODEL.stan" >&2
  exit 2
fi
cmdstan=$(cd "$1" && pwd)
model=${2%.stan}
case $model in /*) ;; *) model=$(pwd)/$model ;; esac
math=$cmdstan/stan/lib/stan_math
"$cmdstan/bin/stanc" --o="$model.hpp" "$model.stan"
g++ -std=c++17 -O3 -pthread -D_REENTRANT -DBOOST_DISABLE_ASSERTS -DNO_FPRINTF_OUTPUT -DTBB_INTERFACE_NEW \
  -Wno-ignored-attributes -Wno-deprecated-declarations -Wno-unused-function -Wno-unused-variable \
  -Wno-unused-local-typedefs -Wno-sign-compare \
  -I "$cmdstan/stan/src" -I "$cmdstan/stan/lib/rapidjson_1.1.0" -I "$math" -I "$math/lib/eigen_3.4.0" \
  -I "$math/lib/sundials_6.1.1/include" -DMODEL_HPP="\"$model.hpp\"" \
  "$(dirname "$0")/gradient_harness.cpp" -o "$model" -ltbb /usr/lib/x86_64-linux-gnu/libboost_regex.so.1.74.0
