#!/usr/bin/env bash
# End-to-end test of ops/slurm/foxbase.sbatch on a one-node Slurm cluster
# started on this machine: installs slurm-wlm and munge with apt-get when
# missing (Debian/Ubuntu, as root), starts munged, slurmctld and slurmd from
# a configuration in a temporary directory (nothing in /etc is written or
# read: SLURM_CONF points at it, munged has its own key and socket), submits
# the batch script for the README variant, waits for the job, then solves
# the same variant locally with `foxbase solve` and checks that every table
# and plies file (tiers/*.fxt, tiers/*.fxp) is byte-identical and that both
# manifests give the start the same value. Every daemon it started is
# stopped, and its temporary directory removed, however it ends.
#
#   FOXBASE_BIN=target/release/foxbase bash ops/test/slurm.sh
#
# Without FOXBASE_BIN it builds the binary (cargo build --release --bin
# foxbase). The binary is copied into the temporary directory first, so a
# rebuild during the test does not change it. Other variables:
# JOB_TIMEOUT (seconds for the Slurm job, default 900), SLURM_PORT_BASE
# (slurmctld's port; slurmd's is the next one; default 26817), KEEP_TMP=1
# (keep the temporary directory, for debugging), REQUEUE=1 (also test the
# resume path: `scontrol requeue` the job once it has journaled 300 tiers,
# then check that its second run resumed from the journal; about two
# minutes more). Prints one PASS or FAIL line with the run time; exits 0 on
# PASS.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
began=$SECONDS
JOB_TIMEOUT=${JOB_TIMEOUT:-900}
port=${SLURM_PORT_BASE:-26817}

say() { printf 'slurm.sh: %s\n' "$*" >&2; }

tmp=
munged_pid=
slurmctld_pid=
slurmd_pid=
job_id=
cache_id=
result=FAIL
why="it stopped early"

cleanup() {
    local rc=$?
    set +e
    # The worker's default cache (ops/slurm/foxbase.sbatch), which a worker
    # killed by a requeue or a cancel leaves behind.
    [ -n "$cache_id" ] && rm -rf "${TMPDIR:-/tmp}/foxbase-cache-$cache_id"
    if [ -n "$job_id" ]; then
        scancel "$job_id" 2> /dev/null
        # Give the job's processes (coordinator, workers) time to go.
        for _ in $(seq 30); do
            state=$(squeue -h -j "$job_id" -o %T 2> /dev/null)
            [ -z "$state" ] && break
            sleep 1
        done
    fi
    for pid in "$slurmd_pid" "$slurmctld_pid" "$munged_pid"; do
        [ -n "$pid" ] || continue
        kill -TERM "$pid" 2> /dev/null
        for _ in $(seq 20); do
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.5
        done
        kill -KILL "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null
    done
    if [ "$result" != PASS ] && [ -n "$tmp" ] && [ -d "$tmp" ]; then
        for f in "$tmp"/job/slurm-*.out "$tmp"/log/slurmctld.log "$tmp"/log/slurmd.log "$tmp"/log/munged.log; do
            [ -f "$f" ] || continue
            echo "----- last lines of ${f#"$tmp"/}" >&2
            tail -n 40 "$f" >&2
        done
    fi
    if [ -n "$tmp" ] && [ "${KEEP_TMP:-0}" != 1 ]; then
        rm -rf "$tmp"
    elif [ -n "$tmp" ]; then
        say "kept $tmp"
    fi
    local took=$((SECONDS - began))
    if [ "$result" = PASS ]; then
        echo "PASS: slurm end-to-end test (${took}s)"
        exit 0
    fi
    echo "FAIL: slurm end-to-end test: $why (${took}s)"
    exit $((rc == 0 ? 1 : rc))
}
trap cleanup EXIT
trap 'why="interrupted"; exit 130' INT TERM

fail() {
    why=$*
    exit 1
}

# --- the binary ------------------------------------------------------------
if [ -z "${FOXBASE_BIN:-}" ]; then
    say "building foxbase (cargo build --release --bin foxbase)"
    (cd "$repo" && cargo build --release --bin foxbase) || fail "cargo build failed"
    FOXBASE_BIN=$repo/target/release/foxbase
fi
[ -x "$FOXBASE_BIN" ] || fail "FOXBASE_BIN=$FOXBASE_BIN is not an executable"

# --- packages --------------------------------------------------------------
need=()
for tool in munged:munge slurmctld:slurm-wlm slurmd:slurm-wlm sbatch:slurm-wlm; do
    command -v "${tool%%:*}" > /dev/null 2>&1 || need+=("${tool#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
    [ "$(id -u)" = 0 ] || fail "missing ${need[*]}: run as root to install them"
    say "installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q > /dev/null || fail "apt-get update failed"
    apt-get install -y -q --no-install-recommends "${need[@]}" > /dev/null || fail "apt-get install ${need[*]} failed"
fi
for tool in munged slurmctld slurmd sbatch squeue sinfo scancel scontrol; do
    command -v "$tool" > /dev/null || fail "$tool not found after installing"
done
say "$(slurmd -V)"

# --- the cluster -----------------------------------------------------------
tmp=$(mktemp -d /tmp/foxbase-slurm.XXXXXX)
mkdir -p "$tmp"/{bin,munge,state,spool,log,run,job}
# munged wants its socket's directory and those above it searchable by all
# and writable by no one else.
chmod 711 "$tmp" "$tmp/munge"
cp "$FOXBASE_BIN" "$tmp/bin/foxbase"
bin=$tmp/bin/foxbase

dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munge_socket=$tmp/munge/munge.socket
munged --foreground --socket="$munge_socket" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" \
    --seed-file="$tmp/munge/munged.seed" > "$tmp/log/munged.out" 2>&1 &
munged_pid=$!
for _ in $(seq 50); do
    [ -S "$munge_socket" ] && break
    kill -0 "$munged_pid" 2> /dev/null || fail "munged exited: $(tail -n 3 "$tmp/log/munged.out" "$tmp/log/munged.log" 2> /dev/null)"
    sleep 0.2
done
[ -S "$munge_socket" ] || fail "munged did not create its socket"

host=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF=$tmp/slurm.conf
cat > "$SLURM_CONF" << EOF
# A one-node cluster for ops/test/slurm.sh; settings that need no cgroups.
ClusterName=foxbasetest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$munge_socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
KillWait=10
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" > "$tmp/log/slurmctld.out" 2>&1 &
slurmctld_pid=$!
slurmd -D -N "$host" -f "$SLURM_CONF" > "$tmp/log/slurmd.out" 2>&1 &
slurmd_pid=$!

say "waiting for node $host to be idle"
state=
for _ in $(seq 60); do
    kill -0 "$slurmctld_pid" 2> /dev/null || fail "slurmctld exited: $(tail -n 5 "$tmp/log/slurmctld.out" "$tmp/log/slurmctld.log" 2> /dev/null)"
    kill -0 "$slurmd_pid" 2> /dev/null || fail "slurmd exited: $(tail -n 5 "$tmp/log/slurmd.out" "$tmp/log/slurmd.log" 2> /dev/null)"
    state=$(sinfo -h -n "$host" -o %t 2> /dev/null || true)
    [ "$state" = idle ] && break
    sleep 1
done
[ "$state" = idle ] || fail "node $host is not idle after 60s (state: ${state:-none})"

# --- the job ---------------------------------------------------------------
# The coordinator's URL uses the node's name; where that does not resolve
# (a bare VM), point the workers at the loopback address.
coord_host=
getent hosts "$host" > /dev/null || coord_host=127.0.0.1
say "submitting ops/slurm/foxbase.sbatch"
cd "$tmp/job"
job_id=$(FOXBASE_BIN=$bin JOB_DIR=$tmp/job STORE=$tmp/store COORD_HOST=$coord_host \
    sbatch --parsable --output="$tmp/job/slurm-%j.out" "$repo/ops/slurm/foxbase.sbatch") ||
    fail "sbatch refused the job"
job_id=${job_id%%;*}
cache_id=$job_id
say "job $job_id submitted; waiting up to ${JOB_TIMEOUT}s"
job_began=$SECONDS
last=
while :; do
    line=$(scontrol -o show job "$job_id" 2> /dev/null || true)
    state=$(sed -n 's/.* JobState=\([A-Z_]*\).*/\1/p' <<< "$line")
    if [ "$state" != "$last" ]; then
        say "job $job_id: ${state:-gone} after $((SECONDS - job_began))s"
        last=$state
    fi
    case $state in
        PENDING | CONFIGURING | RUNNING | COMPLETING | REQUEUED | RESIZING | SUSPENDED | '') ;;
        *) break ;;
    esac
    if [ -z "$state" ] && [ $((SECONDS - job_began)) -gt 10 ]; then
        fail "job $job_id vanished from slurmctld"
    fi
    [ $((SECONDS - job_began)) -lt "$JOB_TIMEOUT" ] || fail "job $job_id still $state after ${JOB_TIMEOUT}s"
    if [ "${REQUEUE:-0}" = 1 ] && [ -z "${requeued:-}" ] && [ "$state" = RUNNING ] &&
        [ "$(wc -l 2> /dev/null < "$tmp/store/journal.log" || echo 0)" -gt 300 ]; then
        say "requeueing job $job_id ($(wc -l < "$tmp/store/journal.log") journal lines)"
        scontrol requeue "$job_id" || fail "scontrol requeue $job_id failed"
        requeued=1
    fi
    sleep 2
done
exit_code=$(sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p' <<< "$line")
job_seconds=$((SECONDS - job_began))
if [ "$state" != COMPLETED ] || [ "$exit_code" != 0:0 ]; then
    fail "job $job_id ended $state with exit code $exit_code"
fi
job_id_done=$job_id
job_id= # nothing to cancel any more
say "job $job_id_done completed in ${job_seconds}s"
[ -f "$tmp/store/manifest.json" ] || fail "the job wrote no manifest.json"
if [ -n "${requeued:-}" ]; then
    out=$tmp/job/slurm-$job_id_done.out
    grep -q 'restart 1' "$out" || fail "the requeued job did not run a second time"
    before=$(sed -n 's/.*(\([0-9]*\) finished before this run).*/\1/p' "$out" | tail -n 1)
    [ "${before:-0}" -gt 0 ] || fail "the requeued job did not resume from the journal"
    say "the requeued job resumed with $before tiers finished before"
fi

# --- the local solve and the comparison ------------------------------------
say "solving the same variant locally"
local_began=$SECONDS
"$bin" solve --out "$tmp/local" > "$tmp/log/solve.out" 2>&1 || fail "foxbase solve failed: $(tail -n 5 "$tmp/log/solve.out")"
say "local solve took $((SECONDS - local_began))s"

sums() { (cd "$1" && find tiers -maxdepth 1 -type f \( -name '*.fxt' -o -name '*.fxp' \) -print0 | sort -z | xargs -0 sha256sum); }
sums "$tmp/store" > "$tmp/store.sha256"
sums "$tmp/local" > "$tmp/local.sha256"
tables=$(grep -c '\.fxt$' "$tmp/local.sha256" || true)
plies=$(grep -c '\.fxp$' "$tmp/local.sha256" || true)
if [ "$tables" -eq 0 ] || [ "$plies" -eq 0 ]; then
    fail "the local solve wrote $tables tables and $plies plies files"
fi
diff -u "$tmp/local.sha256" "$tmp/store.sha256" > "$tmp/sha256.diff" ||
    fail "tables differ from the local solve's: $(head -n 12 "$tmp/sha256.diff")"

# The start's value from manifest.json: {"start": {"position": ..., "value": ...}}.
start_value() {
    if command -v jq > /dev/null; then
        jq -r '.start.value' "$1"
    else
        tr -d '\n' < "$1" | grep -o '"start"[^}]*}' | grep -o '"value" *: *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/'
    fi
}
v_job=$(start_value "$tmp/store/manifest.json")
v_local=$(start_value "$tmp/local/manifest.json")
if [ -z "$v_local" ] || [ "$v_local" = null ]; then
    fail "no start value in the local manifest.json"
fi
[ "$v_job" = "$v_local" ] || fail "start value: job $v_job, local $v_local"

say "$tables tables and $plies plies files identical; start value $v_job; job ${job_seconds}s"
result=PASS
