#!/usr/bin/env bash
# Runs one chapter of the user guide as a reader would: in a fresh work folder holding the
# chapter's files (file= blocks), its shell blocks in order with `variate` on PATH, then its Python
# blocks. Every command must succeed, except those written `! command`, which must fail.
#   run_chapter.sh TOOL CHAPTER_DIR WORK_DIR PYTHON [MODULE_DIR]
# MODULE_DIR holds the `variate` Python module; without it a chapter that imports the module is
# skipped (exit 77).
set -euo pipefail
tool=$1 chapter=$2 work=$3 python=$4 module=${5:-}

if [[ -z "$module" && -f "$chapter/script.py" ]] && grep -q '^import variate' "$chapter/script.py"; then
  echo "skipped: the chapter uses the Python module, which this build does not have"
  exit 77
fi
export PYTHONPATH="$module${PYTHONPATH:+:$PYTHONPATH}"

rm -rf "$work"
mkdir -p "$work/bin"
cp -R "$chapter/files/." "$work/"
ln -s "$tool" "$work/bin/variate"
export PATH="$work/bin:$PATH"
cd "$work"
if [[ -f "$chapter/commands.sh" ]]; then
  bash -euo pipefail -x "$chapter/commands.sh"
fi
if [[ -f "$chapter/script.py" ]]; then
  "$python" "$chapter/script.py"
fi
