#!/usr/bin/env bash
# Builds the Strata image from the repository's Containerfile with podman or docker (`make image`).
#
#   deploy/container/build-image.sh [TAG]                       full build (compiles in the image)
#   deploy/container/build-image.sh --prebuilt BINARY [TAG]     runtime stage + an already built
#                                                               `strata` (Debian 12, as `make build`)
# TAG defaults to strata:<project version>. Environment: BASE_IMAGE (default
# docker.io/library/debian:12-slim; when that cannot be pulled, deploy/container/debian-base.sh
# makes localhost/strata-debian:12-slim from Debian's archive),
# JOBS (compile jobs in the build stage), SOURCE / LICENSES (OCI labels), STRATA_CONTAINER_ENGINE.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=engine.sh
source "$repo/deploy/container/engine.sh"

prebuilt=""
if [ "${1:-}" = "--prebuilt" ]; then prebuilt=${2:?--prebuilt needs the path of a strata binary}; shift 2; fi
version=$(sed -n 's/^project(strata VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
tag=${1:-strata:$version}
base=${BASE_IMAGE:-docker.io/library/debian:12-slim}
revision=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)
# A remote URL may carry credentials (https://user:token@host/...); the label never does.
source_url=${SOURCE:-$(git -C "$repo" remote get-url origin 2>/dev/null | sed -E 's#://[^@/]*@#://#' || true)}

engine=$(strata_pick_engine)
# No registry in reach and no BASE_IMAGE chosen: make the same Debian 12 slim from Debian's archive.
if [ -z "${BASE_IMAGE:-}" ] && ! "$engine" image inspect "$base" >/dev/null 2>&1 &&
   ! "$engine" pull -q "$base" >/dev/null 2>&1; then
  echo "build-image.sh: cannot pull $base; making a Debian 12 slim base from Debian's archive instead" >&2
  base=localhost/strata-debian:12-slim
  "$repo/deploy/container/debian-base.sh" "$engine" "$base"
fi
strata_probe_build "$engine" "$base"
args=("${STRATA_BUILD_FLAGS[@]}" -f "$repo/Containerfile" -t "$tag"
      --build-arg "BASE_IMAGE=$base" --build-arg "VERSION=$version" --build-arg "REVISION=$revision"
      --build-arg "SOURCE=${source_url:-unknown}" --build-arg "LICENSES=${LICENSES:-NOASSERTION}")
# Podman writes OCI images by default, whose config has no HEALTHCHECK; Docker's format keeps it.
if [ "$engine" = podman ]; then args+=(--format docker); fi

if [ -n "$prebuilt" ]; then
  [ -x "$prebuilt" ] || { echo "build-image.sh: $prebuilt is not an executable strata binary" >&2; exit 1; }
  # The context is a folder holding only the binary: nothing else is sent to the builder.
  context=$(mktemp -d)
  trap 'rm -rf "$context"' EXIT
  cp "$prebuilt" "$context/strata"
  strip "$context/strata" 2>/dev/null || true
  "$engine" build "${args[@]}" --target prebuilt "$context"
else
  "$engine" build "${args[@]}" --build-arg "JOBS=${JOBS:-}" --target runtime "$repo"
fi
echo "built $tag with $engine ($("$engine" image inspect --format '{{.Size}}' "$tag") bytes)"
