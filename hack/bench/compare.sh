#!/usr/bin/env bash
# Side by side with kubebuilder (not run in CI): the time from an empty
# directory to a scaffolded tree, and to a tree where `go build ./...`
# succeeds, for the same API, alternating tools, RUNS times each with a warm
# module cache; then files and lines produced. Prints medians and the ratio
# opctl/kubebuilder. Only the Go module proxy is needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-5}
KUBEBUILDER_VERSION=v4.16.0
CONTROLLER_GEN_VERSION=$(sed -n 's/.*ControllerTools: *"\(v[^"]*\)".*/\1/p' scaffold/pins/versions.go)
tools="$PWD/.cache/bench-tools"
mkdir -p "$tools"
if [ ! -x "$tools/kubebuilder" ]; then
  echo "installing kubebuilder $KUBEBUILDER_VERSION from the Go module proxy..." >&2
  GOBIN="$tools" go install "sigs.k8s.io/kubebuilder/v4@$KUBEBUILDER_VERSION"
fi
if [ ! -x "$tools/controller-gen" ]; then
  echo "installing controller-gen $CONTROLLER_GEN_VERSION from the Go module proxy..." >&2
  GOBIN="$tools" go install "sigs.k8s.io/controller-tools/cmd/controller-gen@$CONTROLLER_GEN_VERSION"
fi
go build -o "$tools/opctl" ./cmd/opctl
export PATH="$tools:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_ms() { date +%s%3N; }

kubebuilder_run() { # dir -> "scaffold_ms build_ms"
  mkdir -p "$1" && cd "$1"
  local t0 t1 t2
  t0=$(now_ms)
  kubebuilder init --domain example.com --repo example.com/db-operator --project-name db-operator >/dev/null 2>&1
  kubebuilder create api --group myapp --version v1 --kind Database --resource --controller --make=false >/dev/null 2>&1
  t1=$(now_ms)
  make manifests generate CONTROLLER_GEN="$tools/controller-gen" >/dev/null 2>&1
  go build ./... >/dev/null
  t2=$(now_ms)
  cd - >/dev/null
  echo "$((t1 - t0)) $((t2 - t0))"
}

opctl_run() {
  mkdir -p "$1" && cd "$1"
  local t0 t1 t2
  t0=$(now_ms)
  opctl init --style go --domain example.com --name db-operator --repo example.com/db-operator --yes . >/dev/null
  opctl create api --group myapp --version v1 --kind Database \
    --field engine:string:enum=mysql,postgres:required --field version:string \
    --field storage:quantity --field replicas:int32:min=1:max=5:default=1 --owns ConfigMap >/dev/null
  t1=$(now_ms)
  go build ./... >/dev/null
  t2=$(now_ms)
  cd - >/dev/null
  echo "$((t1 - t0)) $((t2 - t0))"
}

echo "warming the module and build caches (untimed)..." >&2
kubebuilder_run "$work/warm-kb" >/dev/null
opctl_run "$work/warm-opctl" >/dev/null

kb_scaffold=() kb_build=() op_scaffold=() op_build=()
for i in $(seq "$RUNS"); do
  read -r s b < <(kubebuilder_run "$work/kb-$i"); kb_scaffold+=("$s"); kb_build+=("$b")
  read -r s b < <(opctl_run "$work/opctl-$i"); op_scaffold+=("$s"); op_build+=("$b")
  echo "run $i: kubebuilder ${kb_scaffold[-1]}/${kb_build[-1]} ms, opctl ${op_scaffold[-1]}/${op_build[-1]} ms" >&2
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
count() { (cd "$1" && find . -type f -not -path './bin/*' | wc -l); }
lines() { (cd "$1" && find . -type f -not -path './bin/*' -exec cat {} + | wc -l); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

ks=$(median "${kb_scaffold[@]}") kb=$(median "${kb_build[@]}")
os=$(median "${op_scaffold[@]}") ob=$(median "${op_build[@]}")
echo
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3), $RUNS runs each, warm module cache"
echo "| measure | kubebuilder $KUBEBUILDER_VERSION | opctl | opctl/kubebuilder |"
echo "|---|---|---|---|"
echo "| empty dir → scaffolded tree (median ms) | $ks | $os | $(ratio "$os" "$ks") |"
echo "| empty dir → \`go build ./...\` succeeds (median ms) | $kb | $ob | $(ratio "$ob" "$kb") |"
echo "| files | $(count "$work/kb-1") | $(count "$work/opctl-1") | $(ratio "$(count "$work/opctl-1")" "$(count "$work/kb-1")") |"
echo "| lines | $(lines "$work/kb-1") | $(lines "$work/opctl-1") | $(ratio "$(lines "$work/opctl-1")" "$(lines "$work/kb-1")") |"
