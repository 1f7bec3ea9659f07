#!/usr/bin/env bash
# Installs variate from a build tree into a fresh prefix, then uses it as a user would, from outside
# the tree: a CMake project with find_package (shared and static library, and the MPI component
# when the build has MPI), a program compiled with pkg-config's flags, the installed tool
# building a model plugin against the installed headers and sampling it, and, when the build has
# the Python module, the installed module sampling that plugin.
#   install_and_use.sh BUILD_DIR WORK_DIR WITH_MPI(ON|OFF) [PYTHON PYTHON_INSTALL_DIR]
set -euo pipefail
build=$1 work=$2 with_mpi=$3 python=${4:-} python_dir=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null

cmake -S "$here/installed_project" -B "$work/project" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DWITH_MPI="$with_mpi" >/dev/null
cmake --build "$work/project" -j2 >/dev/null
# The shared library is found through the build tree's run path to the installed prefix.
"$work/project/uses_shared"
"$work/project/uses_static"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046 # pkg-config prints several flags, split on purpose
c++ "$here/installed_project/main.cpp" -o "$work/uses_pkg_config" $(pkg-config --cflags --libs variate) \
  -Wl,-rpath,"$prefix/lib"
"$work/uses_pkg_config"

"$prefix/bin/variate" --version
"$prefix/bin/variate" build "$here/../../src/models/beta_bernoulli.cpp" -o "$work/beta_bernoulli.so"
echo '{"N": 4, "y": [0, 1, 0, 0]}' >"$work/flips.json"
"$prefix/bin/variate" sample --model-file "$work/beta_bernoulli.so" --data "$work/flips.json" --chains 1 \
  --warmup 50 --draws 20 --output "$work/draws" >/dev/null
test -s "$work/draws/beta_bernoulli-1.csv"

if [[ -n "$python" ]]; then
  # From outside the tree, so that only the installed module can be found.
  (cd "$work" && PYTHONPATH="$prefix/$python_dir" "$python" -c "
import variate
assert variate.__file__.startswith('$prefix/'), variate.__file__
fit = variate.Model(file='$work/beta_bernoulli.so', data={'N': 4, 'y': [0, 1, 0, 0]}).sample(chains=1, warmup=50, draws=20)
assert fit.draws['theta'].shape == (1, 20), fit.draws['theta'].shape
")
fi
