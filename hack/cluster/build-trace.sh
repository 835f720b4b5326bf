#!/usr/bin/env bash
# Summarises the traces EASYAI_BUILD_TRACE=DIR hack/cluster/build.sh leaves
# (go build -debug-trace): per component, the build's wall time, the time
# its compile and link actions took (added up over the cores), the longest
# link, and the packages that took longest to compile.
#   hack/cluster/build-trace.sh DIR
set -euo pipefail
dir=${1:?usage: hack/cluster/build-trace.sh DIR}
command -v jq >/dev/null || { echo "jq is needed: apt-get install jq" >&2; exit 1; }
for trace in "$dir"/*.json; do
  [ -e "$trace" ] || { echo "no traces in $dir" >&2; exit 1; }
  jq -r --arg name "$(basename "$trace" .json)" '
    (map(.ts) | (max - min) / 1e6) as $wall
    # Each action'"'"'s begin and end (same name and thread), cache checks aside.
    | [ .[] | select((.ph == "B" or .ph == "E") and (.name | startswith("Executing action (")) and (.name | contains("check cache") | not)) ]
    | group_by([.name, .tid]) | map(sort_by(.ts) | [range(0; length - 1; 2) as $i | {name: .[$i].name, us: (.[$i + 1].ts - .[$i].ts)}]) | flatten
    | map(select(.name | startswith("Executing action (build "))) as $builds
    | map(select(.name | startswith("Executing action (link "))) as $links
    | "\($name): \($wall | floor) s wall; compile \(($builds | map(.us) | add // 0) / 1e6 | floor) s of CPU over \($builds | length) packages; link \(($links | map(.us) | add // 0) / 1e6 | floor) s (\($links | length) binaries, the longest \(($links | map(.us) | max // 0) / 1e6 | floor) s)\n  slowest to compile: \($builds | sort_by(-.us) | .[:5] | map("\(.name | sub("Executing action \\(build "; "") | sub("\\)$"; "")) \(.us / 1e6 * 10 | floor / 10) s") | join(", "))"
  ' "$trace" 2>/dev/null || echo "$(basename "$trace" .json): the trace is not complete (a build still running, or stopped)"
done
