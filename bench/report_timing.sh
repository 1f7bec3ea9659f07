#!/bin/bash
# How long `variate report` takes to write the page of a large run, and the page's size and the
# time Chromium takes to render it (issue 26: the MNIST softmax regression's output, 7,850
# parameters x 4 chains x 4,000 draws, written in under 10 s and open in under 3 s). The run is
# made once by bench/synthetic_run in DIR; the render time is the page's own figure
# (data-render-ms: milliseconds from the start of loading to the last plot drawn), read from
# headless Chromium's DOM as the browser test reads it.
#
#   bench/report_timing.sh build [DIR=/tmp/mnist-run] [repeats=3]
set -euo pipefail
build=${1:?usage: report_timing.sh BUILD_DIR [RUN_DIR] [REPEATS]}
dir=${2:-/tmp/mnist-run}
repeats=${3:-3}
[ -e "$dir/summary.json" ] || "$build/bench/synthetic_run" "$dir"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
page="$dir/report.html"
for ((i = 0; i < repeats; ++i)); do
  start=$(date +%s.%N)
  "$build/variate" report "$dir" --output "$page" >/dev/null
  end=$(date +%s.%N)
  printf "written in %.2f s, %d bytes" "$(echo "$end - $start" | bc)" "$(stat -c %s "$page")"
  if [ -x /usr/bin/chromium ]; then
    rm -rf "$profile"/*
    ms=$(/usr/bin/chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
      --disable-extensions --virtual-time-budget=20000 --window-size=1400,2400 --user-data-dir="$profile/p" \
      --dump-dom "file://$(realpath "$page")" 2>/dev/null | grep -o 'data-render-ms="[0-9]*"' | grep -o '[0-9]*' || true)
    printf ", rendered in Chromium in %s ms" "${ms:-?}"
  fi
  echo
done
