# Sourced by build-image.sh and the smoke test: picks a container engine and the flags this
# machine needs. Defines functions only; sets nothing until called.
#
#   strata_pick_engine          prints podman or docker (STRATA_CONTAINER_ENGINE overrides),
#                               the first whose daemon/storage answers; fails with a reason
#   strata_probe_build ENGINE BASE   sets STRATA_BUILD_FLAGS (array) to what lets a RUN step work
#   strata_probe_run ENGINE IMAGE    sets STRATA_RUN_FLAGS (array) to what lets a container start
#
# Why probes: in VM-like sandboxes rootful podman's default crun refuses cgroup v1/v2 hybrid
# hosts, and its default ulimits (nofile 1048576) exceed what a process without CAP_SYS_RESOURCE
# may set. runc plus the host's own limits works there; a normal host needs no flags at all.

strata_pick_engine() {
  local candidates=(podman docker) e why=() err
  if [ -n "${STRATA_CONTAINER_ENGINE:-}" ]; then candidates=("$STRATA_CONTAINER_ENGINE"); fi
  for e in "${candidates[@]}"; do
    if ! command -v "$e" >/dev/null 2>&1; then why+=("$e is not installed"); continue; fi
    if err=$("$e" info 2>&1 >/dev/null); then echo "$e"; return 0; fi
    why+=("'$e info' failed: $(printf '%s' "$err" | tail -n 1)")
  done
  local IFS=';'
  echo "no usable container engine (${why[*]})" >&2
  return 1
}

# The limits this process already has, so the runtime never has to raise one.
strata_host_ulimits() {
  local nofile nproc pid_max
  nofile=$(ulimit -Hn)
  nproc=$(ulimit -Hu)
  pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
  # podman caps its own process count at pid_max; asking for more is refused.
  if [ "$nproc" = unlimited ] || [ "$nproc" -gt "$pid_max" ]; then nproc=$pid_max; fi
  if [ "$nofile" = unlimited ]; then nofile=1048576; fi
  echo "--ulimit nofile=$nofile:$nofile --ulimit nproc=$nproc:$nproc"
}

strata_probe_build() {
  local engine=$1 base=$2 dir flags
  dir=$(mktemp -d)
  printf 'FROM %s\nRUN true\n' "$base" >"$dir/Containerfile"
  STRATA_BUILD_FLAGS=()
  local candidates=("")
  if [ "$engine" = podman ] && command -v runc >/dev/null 2>&1; then candidates+=("--runtime runc"); fi
  for flags in "${candidates[@]}"; do
    # shellcheck disable=SC2086  # flags are words by design
    # --no-cache: a cached RUN layer would pass without starting the runtime at all.
    if "$engine" build -q --no-cache --iidfile "$dir/iid" $flags -f "$dir/Containerfile" "$dir" \
        >/dev/null 2>"$dir/err"; then
      "$engine" rmi -f "$(cat "$dir/iid")" >/dev/null 2>&1 || true
      read -r -a STRATA_BUILD_FLAGS <<<"$flags"
      rm -rf "$dir"
      return 0
    fi
  done
  echo "$engine cannot build a RUN step on $base here: $(tail -n 3 "$dir/err")" >&2
  rm -rf "$dir"
  return 1
}

strata_probe_run() {
  local engine=$1 image=$2 flags err
  err=$(mktemp)
  local candidates=("")
  if [ "$engine" = podman ]; then
    if command -v runc >/dev/null 2>&1; then candidates+=("--runtime runc $(strata_host_ulimits)"); fi
    candidates+=("$(strata_host_ulimits)")
  fi
  STRATA_RUN_FLAGS=()
  for flags in "${candidates[@]}"; do
    # shellcheck disable=SC2086
    if "$engine" run --rm $flags --entrypoint true "$image" >/dev/null 2>"$err"; then
      read -r -a STRATA_RUN_FLAGS <<<"$flags"
      rm -f "$err"
      return 0
    fi
  done
  echo "$engine cannot start a container here: $(tail -n 3 "$err")" >&2
  rm -f "$err"
  return 1
}
