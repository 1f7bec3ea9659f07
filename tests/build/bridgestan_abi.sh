#!/usr/bin/env bash
# BridgeStan's C interface as its clients use it: the tool builds eight schools as a plugin, and a
# C program that knows nothing of variate dlopens it and checks every function (bridgestan_client.c).
#   bridgestan_abi.sh TOOL CLIENT WORK_DIR
set -euo pipefail
tool=$1 client=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
"$tool" build "$here/../../src/models/eight_schools.cpp" -o "$work/eight_schools.so" >/dev/null
"$client" "$work/eight_schools.so"
