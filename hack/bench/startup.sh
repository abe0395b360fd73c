#!/usr/bin/env bash
# Start-up cost of opctl as a whole process: binary size, median wall time of
# `opctl version`, `opctl create api --dry-run` and the README's seed (init
# then create api, two processes writing their files under TMPDIR), and the
# package init work Go reports with GODEBUG=inittrace=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-20}
bin=$(mktemp -d)/opctl
project=$(mktemp -d)
# Whatever ends the script, nothing of it stays behind.
trap 'rm -rf "$project" "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/opctl
"$bin" init --style go --domain example.com --name db-operator --repo example.com/db-operator --yes "$project" >/dev/null

median_ms() { # command... -> median wall time in ms over RUNS runs
  local times=()
  for _ in $(seq "$RUNS"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

seed_median_ms() { # the README's seed as two processes, init then create api, each time in a new directory
  local times=() d t0 t1
  for _ in $(seq "$RUNS"); do
    d=$(mktemp -d)
    t0=$(date +%s%N)
    "$bin" init --style go --domain example.com --name db-operator --repo example.com/db-operator --yes "$d" >/dev/null
    (cd "$d" && "$bin" create api --group myapp --version v1 --kind Database \
      --field engine:string:enum=mysql,postgres:required --field replicas:int32:min=1:max=5:default=1 --owns ConfigMap >/dev/null)
    t1=$(date +%s%N)
    rm -rf "$d"
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

echo "binary size: $(( $(stat -c %s "$bin") / 1024 / 1024 )) MiB"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "opctl version: $(median_ms "$bin" version) ms (median of $RUNS)"
echo "opctl create api --dry-run: $(cd "$project" && median_ms "$bin" create api --group myapp --version v1 --kind Database \
  --field engine:string:enum=mysql,postgres:required --field replicas:int32:min=1:max=5:default=1 --owns ConfigMap --dry-run) ms (median of $RUNS)"
echo "seed, init + create api: $(seed_median_ms) ms (median of $RUNS, files under ${TMPDIR:-/tmp})"
GODEBUG=inittrace=1 "$bin" version 2>&1 >/dev/null | awk '/^init/ {ms += $5; n++} END {printf "package init: %d packages, %.1f ms in total\n", n, ms}'
echo "largest package inits:"
# awk, not head: it reads all of sort's output, so sort never dies of
# SIGPIPE under pipefail.
GODEBUG=inittrace=1 "$bin" version 2>&1 >/dev/null | sort -k5 -n -r | awk 'NR <= 5 {printf "  %s %s ms\n", $2, $5}'
