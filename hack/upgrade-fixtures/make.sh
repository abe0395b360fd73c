#!/usr/bin/env bash
# Writes testdata/upgrade/<commit>/<style>.txtar: the seed project of the
# README in every style that opctl had, exactly as the opctl of an earlier
# commit writes it, for the upgrade tests. The fixtures kept are of ae8e8a2
# (2026-11-30), the first opctl that landed, a7e8292 and 5ed8b62
# (2026-12-02), whose projects have a CI workflow and record the hashes of
# the team's files, and 209aab1 (2026-12-03).
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
styles="go kopf metacontroller metacontroller-decorator shell-operator ansible"
for style in $styles; do
  if ! "$work/opctl" init --help | grep -q -- "$style"; then
    continue # a style that opctl did not have
  fi
  flags=(--domain example.com)
  [ "$style" = go ] && flags+=(--repo example.com/db-operator)
  # A decorator has no API group of its own to name (though opctls of
  # before 2026-12-02 asked for a domain all the same).
  [ "$style" = metacontroller-decorator ] && flags=()
  (
    cd "$work"
    ./opctl init --style "$style" --name db-operator "${flags[@]}" --yes "$style" >/dev/null 2>&1 ||
      { rm -rf "$style"; ./opctl init --style "$style" --name db-operator --domain example.com --yes "$style" >/dev/null; }
    cd "$style"
    if [ "$style" = metacontroller-decorator ]; then
      # The decorator adds no CRD: it decorates an existing kind.
      ../opctl create api --target apps/v1/StatefulSet --name databases --owns Service >/dev/null
    else
      ../opctl create api --group myapp --version v1 --kind Database \
        --field engine:string:enum=mysql,postgres:required --field version:string \
        --field storage:quantity --field replicas:int32:min=1:max=5:default=1 --owns ConfigMap >/dev/null
    fi
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
