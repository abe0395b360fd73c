#!/usr/bin/env bash
# Writes testdata/upgrade/<commit>/<style>.txtar: the seed project of the
# README in the go, kopf and ansible styles, exactly as the opctl of an
# earlier commit writes it, for the upgrade test. The fixtures kept are of
# ae8e8a2 (2026-11-30), the first opctl that landed, and a7e8292
# (2026-12-02), a later one, whose projects have a CI workflow.
# It builds that opctl from a git worktree (the Go module proxy serves its
# dependencies) and leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
commit="$1"
work="$(mktemp -d)"
trap 'git worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach "$work/src" "$commit" >/dev/null
(cd "$work/src" && GOFLAGS=-mod=mod go build -o "$work/opctl" ./cmd/opctl)
mkdir -p "testdata/upgrade/$commit"
for style in go kopf ansible; do
  repo=()
  [ "$style" = go ] && repo=(--repo example.com/db-operator)
  (
    cd "$work"
    ./opctl init --style "$style" --domain example.com --name db-operator "${repo[@]}" --yes "$style" >/dev/null
    cd "$style"
    ../opctl create api --group myapp --version v1 --kind Database \
      --field engine:string:enum=mysql,postgres:required --field version:string \
      --field storage:quantity --field replicas:int32:min=1:max=5:default=1 --owns ConfigMap >/dev/null
  )
  out="testdata/upgrade/$commit/$style.txtar"
  {
    echo "The seed project in the $style style as opctl $commit wrote it: hack/upgrade-fixtures/make.sh."
    (cd "$work/$style" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while read -r f; do
      printf -- '-- %s --\n' "$f"
      cat "$f"
      # txtar needs each file to end its last line.
      [ -z "$(tail -c1 "$f")" ] || echo
    done)
  } >"$out"
  echo "wrote $out"
done
