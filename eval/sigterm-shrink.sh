#!/bin/bash
# How long a campaign takes to exit after SIGTERM during its end-of-
# campaign shrinking, on a crash whose runs are long (testdata/hostile's
# allocation loop, input "A"): docs/PERFORMANCE.md, "Cancelling a run in
# flight". From the repository root:
#
#   go build -o /tmp/wafer . && eval/sigterm-shrink.sh /tmp/wafer
set -u
wafer=${1:?usage: eval/sigterm-shrink.sh WAFER_BINARY}
d=$(mktemp -d)
mkdir "$d/seeds" && printf A >"$d/seeds/a"
"$wafer" fuzz -o "$d/out" testdata/hostile/hostile.wasm "$d/seeds" >"$d/log" 2>&1 &
pid=$!
for _ in $(seq 1 3000); do grep -q "INFO: shrinking" "$d/log" && break; sleep 0.2; done
sleep 1
t0=$(date +%s.%N)
kill -TERM $pid
wait $pid
code=$?
t1=$(date +%s.%N)
echo "exit $code $(echo "$t1 - $t0" | bc) s after SIGTERM"
rm -rf "$d"
