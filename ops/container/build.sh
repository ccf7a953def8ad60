#!/usr/bin/env bash
# Builds the foxbase container image from the host: the static musl binary
# (cargo, on the host), then `podman build` of ops/container/Containerfile in
# a small temporary context. Needs the rustup target x86_64-unknown-linux-musl
# and musl-gcc (Debian: apt-get install musl-tools; ring compiles C).
#
#   ops/container/build.sh [IMAGE]            # default IMAGE: localhost/foxbase:latest
#
# Environment: CARGO_TARGET_DIR (default target/musl, so that the host's own
# target/release is left alone), PODMAN (default "podman"; e.g. "podman
# --storage-driver vfs"), FOXBASE_SKIP_CARGO=1 to package the binary already
# built.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
image=${1:-localhost/foxbase:latest}
target_dir=${CARGO_TARGET_DIR:-$repo/target/musl}
case $target_dir in /*) ;; *) target_dir=$repo/$target_dir ;; esac
read -r -a podman <<<"${PODMAN:-podman}"

if [ "${FOXBASE_SKIP_CARGO:-0}" != 1 ]; then
    command -v musl-gcc >/dev/null || { echo "build.sh: musl-gcc missing (apt-get install musl-tools)" >&2; exit 1; }
    # debug = 1 in Cargo.toml's release profile: off and stripped here, so the
    # binary is about 13 MB instead of about 50 MB. Cargo.toml is unchanged.
    (cd "$repo" && CARGO_TARGET_DIR=$target_dir CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true \
        cargo build --release --locked --target x86_64-unknown-linux-musl --bin foxbase)
fi
bin=$target_dir/x86_64-unknown-linux-musl/release/foxbase
[ -x "$bin" ] || { echo "build.sh: $bin missing" >&2; exit 1; }

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/rootfs/data" "$ctx/rootfs/tmp"
cp "$bin" "$ctx/foxbase"
cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca-certificates.crt"
# --no-cache: buildah 1.28 (podman 4.3) reuses a cached COPY layer whose
# files match even when its --chown differs, which leaves /data and /tmp
# owned by root in an image built after one without --chown.
old_id=$("${podman[@]}" image inspect -f '{{.Id}}' "$image" 2>/dev/null || true)
"${podman[@]}" build --no-cache -q -f "$repo/ops/container/Containerfile" -t "$image" "$ctx" >/dev/null
# The image this tag named before is left untagged: remove it unless a
# container still uses it.
new_id=$("${podman[@]}" image inspect -f '{{.Id}}' "$image")
if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then "${podman[@]}" rmi "$old_id" >/dev/null 2>&1 || true; fi
size=$("${podman[@]}" image inspect -f '{{.Size}}' "$image")
echo "build.sh: $image, $((size / 1000000)) MB ($size bytes), binary $(stat -c %s "$bin") bytes"
