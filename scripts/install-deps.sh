#!/usr/bin/env bash
# Installs the Debian packages Strata needs to build and test, only those missing.
# Safe to run again; needs root (or sudo) on Debian 12. See README "Dependencies" for why each is here.
set -euo pipefail

BUILD_PKGS=(g++ cmake ninja-build pkg-config nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev
            libpcre2-dev libcpp-httplib-dev libssl-dev zlib1g-dev)
TEST_PKGS=(googletest libgtest-dev libbenchmark-dev clang libclang-rt-14-dev lld nodejs
           python3-prometheus-client python3-yaml prometheus chromium fonts-dejavu-core
           podman runc mmdebstrap qemu-user)

want=("${BUILD_PKGS[@]}")
if [ "${1:-}" = "--test" ]; then want+=("${TEST_PKGS[@]}"); fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The machine's Node.js may come with its own npm (nodesource); only ask Debian for npm when absent.
if [ "${1:-}" = "--test" ] && ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi

echo "installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
