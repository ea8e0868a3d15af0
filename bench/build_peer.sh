#!/usr/bin/env bash
# Builds a peer engine (llama.cpp or ik_llama.cpp) outside this tree, for the side-by-side
# scripts: only the tools they run, Release, at a pinned commit, with the CPU flags asked for.
#   bench/build_peer.sh PEER FLAVOR [SOURCE] [REF]
#     PEER    llama.cpp | ik_llama.cpp
#     FLAVOR  native (-DGGML_NATIVE=ON: AVX-512 where the CPU has it) |
#             avx2   (-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON)
#     SOURCE  a git URL, or a local checkout (default: $PEER_DIR/PEER if it exists, else the
#             project's GitHub URL)
#     REF     the commit or tag to build (defaults below). A clone made here is checked out at
#             REF; a local git checkout must already be at REF (it is not moved); a local
#             directory that is not a git checkout is built as it is, with a warning.
#   env: PEER_DIR (default /tmp: clones go to $PEER_DIR/PEER), JOBS (ninja -j, default 1: the
#        build runs under nice -n 19 beside other work), TARGETS (default: llama-bench
#        llama-batched-bench llama-server).
# The build directory is SOURCE/build (native) or SOURCE/build-avx2, so the checkouts in /tmp
# that DEVELOPERS.md describes are reused; tools already built there are not rebuilt. Progress
# goes to stderr; the last line on stdout is the bin directory:
#   llama_bin=$(bench/build_peer.sh llama.cpp avx2)
set -euo pipefail
usage="usage: $0 llama.cpp|ik_llama.cpp native|avx2 [SOURCE] [REF]"
peer=${1:?$usage}
flavor=${2:?$usage}
peer_dir=${PEER_DIR:-/tmp}
targets=${TARGETS:-llama-bench llama-batched-bench llama-server}
jobs=${JOBS:-1}

case "$peer" in
  # llama.cpp: the February 2025 commit (2025-02-21) the README's figures were measured with;
  # pass REF to pin another.
  llama.cpp) url=https://github.com/ggml-org/llama.cpp.git; default_ref=c392e5094 ;;
  # ik_llama.cpp: the commit the README's AVX2 figures name.
  ik_llama.cpp) url=https://github.com/ikawrakow/ik_llama.cpp.git; default_ref=8337e4c ;;
  *) echo "build_peer: unknown peer '$peer' (known: llama.cpp, ik_llama.cpp)" >&2; exit 2 ;;
esac
case "$flavor" in
  native) flags=(-DGGML_NATIVE=ON) build_name=build ;;
  avx2) flags=(-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON) build_name=build-avx2 ;;
  *) echo "build_peer: unknown flavor '$flavor' (known: native, avx2)" >&2; exit 2 ;;
esac
source=${3:-}
ref=${4:-$default_ref}
[ -n "$source" ] || { [ -d "$peer_dir/$peer" ] && source=$peer_dir/$peer || source=$url; }

# A URL is cloned once into $PEER_DIR/PEER and checked out at REF.
if [ ! -d "$source" ]; then
  dest=$peer_dir/$peer
  if [ ! -d "$dest" ]; then
    echo "build_peer: cloning $source into $dest" >&2
    git clone --quiet "$source" "$dest" >&2
    git -C "$dest" checkout --quiet --detach "$ref" >&2
  fi
  source=$dest
fi

# A local checkout is built where it is, but only at REF when it is a git checkout.
if git -C "$source" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  head=$(git -C "$source" rev-parse HEAD)
  want=$(git -C "$source" rev-parse --verify --quiet "$ref^{commit}" || true)
  if [ "$head" != "$want" ]; then
    echo "build_peer: $source is at ${head:0:12}, not at $ref (${want:-unknown here});" \
      "check it out there, or pass the REF you mean" >&2
    exit 1
  fi
else
  echo "build_peer: warning: $source is not a git checkout; building it as it is (commit unknown)" >&2
fi

build=$source/$build_name
missing=()
for t in $targets; do [ -x "$build/bin/$t" ] || missing+=("$t"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ -f "$build/CMakeCache.txt" ]; then
    native_wanted=$([ "$flavor" = native ] && echo ON || echo OFF)
    grep -q "^GGML_NATIVE:BOOL=$native_wanted\$" "$build/CMakeCache.txt" || {
      echo "build_peer: $build was configured with other CPU flags than '$flavor'; remove it or" \
        "use another SOURCE" >&2
      exit 1
    }
  else
    echo "build_peer: configuring $build ($flavor)" >&2
    nice -n 19 cmake -S "$source" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
      "${flags[@]}" >&2
  fi
  echo "build_peer: building ${missing[*]} in $build (nice -n 19, -j$jobs)" >&2
  nice -n 19 ninja -C "$build" -j"$jobs" "${missing[@]}" >&2
fi
echo "$build/bin"
