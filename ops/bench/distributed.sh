#!/bin/bash
# The README's variant solved twice on this machine: by `foxbase solve`
# (one process, all cores) and by a coordinator and two one-thread
# workers on a directory store. Prints both wall times, the ratio and each
# worker's time breakdown (its last log line), checks that every tier's
# checksum is the same, and exits 1 if the distributed solve takes more
# than 1.5 times the local one (the target for a distributed solve).
#
#   bash ops/bench/distributed.sh            # builds target/release/foxbase first
#   FOXBASE=/path/to/foxbase bash ops/bench/distributed.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${FOXBASE:-}" ]; then
    cargo build --release --quiet --bin foxbase
    FOXBASE=target/release/foxbase
fi
D=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$D"' EXIT
echo bench-token > "$D/token"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

now() { date +%s.%N; }
s=$(now)
"$FOXBASE" solve --out "$D/local" --json > "$D/local.json" 2> "$D/local.err"
local_s=$(echo "$(now) - $s" | bc)

s=$(now)
"$FOXBASE" coordinator --store "$D/store" --listen "127.0.0.1:$PORT" --token-file "$D/token" --json \
    > "$D/coordinator.json" 2> "$D/coordinator.err" &
coordinator=$!
for n in 1 2; do
    "$FOXBASE" worker --coordinator "http://127.0.0.1:$PORT" --token-file "$D/token" --threads 1 \
        --cache "$D/cache$n" --name "worker$n" 2> "$D/worker$n.err" &
done
wait $coordinator
dist_s=$(echo "$(now) - $s" | bc)
wait

if ! cmp -s <(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["tiers"], sort_keys=True))' "$D/local/manifest.json") \
            <(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["tiers"], sort_keys=True))' "$D/store/manifest.json"); then
    echo "the distributed tables differ from the local ones" >&2
    exit 2
fi
ratio=$(echo "scale=2; $dist_s / $local_s" | bc)
printf 'local %.1f s, distributed %.1f s: %s times; every tier the same\n' "$local_s" "$dist_s" "$ratio"
for n in 1 2; do grep -h 'time:' "$D/worker$n.err" | sed 's/.*INFO /  /; s/ role="worker"//'; done
if [ "$(echo "$ratio > 1.5" | bc)" = 1 ]; then
    echo "over the target: at most 1.5 times the local solve" >&2
    exit 1
fi
