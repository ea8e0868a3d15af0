#!/usr/bin/env bash
# Makes a Debian 12 slim base image from Debian's own package archive, for machines that reach
# apt mirrors but no container registry (the smoke test, offline builders). Equivalent in content
# to debian:12-slim: the minbase package set, no man pages, docs or locales, apt lists emptied.
#
#   deploy/container/debian-base.sh ENGINE [TAG]    (ENGINE: podman or docker; needs mmdebstrap)
#
# TAG defaults to localhost/strata-debian:12-slim, a name no registry serves, so the real
# debian:12-slim is never shadowed; pass it to the build as --build-arg BASE_IMAGE=TAG.
# Does nothing when TAG already exists (the engine's storage is the cache between runs).
set -euo pipefail

engine=${1:?usage: debian-base.sh podman|docker [TAG]}
tag=${2:-localhost/strata-debian:12-slim}
mirror=${STRATA_DEBIAN_MIRROR:-http://deb.debian.org}

if "$engine" image inspect "$tag" >/dev/null 2>&1; then exit 0; fi
# Two runs at once (parallel tests, two users) build it once: the second waits, then finds it.
exec 9>"${TMPDIR:-/tmp}/strata-debian-base.lock"
flock 9
if "$engine" image inspect "$tag" >/dev/null 2>&1; then exit 0; fi
command -v mmdebstrap >/dev/null || { echo "debian-base.sh: mmdebstrap is not installed" >&2; exit 1; }

echo "debian-base.sh: building $tag from $mirror with mmdebstrap (once per machine)"
slim=('/usr/share/man/*' '/usr/share/doc/*' '/usr/share/info/*' '/usr/share/locale/*' '/usr/share/lintian/*')
dpkg_opts=()
for path in "${slim[@]}"; do dpkg_opts+=(--dpkgopt="path-exclude=$path"); done
# Copyright files stay: they are the licences of what the image ships.
dpkg_opts+=(--dpkgopt='path-include=/usr/share/doc/*/copyright')
# No fsync per unpacked file, as in Debian's own images (a container layer is written whole or
# not at all); the option stays in the image's dpkg config, so later apt-get runs get it too.
dpkg_opts+=(--dpkgopt='force-unsafe-io')

# Through a file, not a pipe: a failed bootstrap must not leave an empty image under TAG.
tar_dir=$(mktemp -d)
trap 'rm -rf "$tar_dir"' EXIT
# merged-usr: /usr merged by the hook as in Debian's images, not by the usrmerge package (which
# would pull perl, ~50 MB, into the base).
mmdebstrap --variant=minbase --quiet "${dpkg_opts[@]}" \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
  bookworm "$tar_dir/rootfs.tar" \
  "deb $mirror/debian bookworm main" \
  "deb $mirror/debian bookworm-updates main" \
  "deb $mirror/debian-security bookworm-security main"
"$engine" import --change 'CMD ["bash"]' "$tar_dir/rootfs.tar" "$tag" >/dev/null
echo "debian-base.sh: $tag ready"
