#!/usr/bin/env bash
# Rebuilds the real Kubernetes operator runtimes that opctl's `make test-runtimes`
# needs (see docs/real-runtimes.md in opctl), outside the project, and writes
# env.sh exporting the OPCTL_* variables that point at them.
#
# Usage:  bash build.sh [STEP...]        (default: all steps, in order)
# Steps:  apt trixie metacontroller shell-operator ansible-operator
#         ansible-runner-http collection kopf click env check
#
# Idempotent: a finished step leaves a stamp under $ROOT/stamps and is skipped
# on the next run; FORCE=1 redoes every step named (or all).
#
# Inputs (bare git directories as given by the `fetch` tool; override any):
#   SHELL_OPERATOR_GIT METACONTROLLER_GIT ANSIBLE_OPERATOR_GIT ANSIBLE_UTIL_GIT
#   KOPF_GIT CLICK_GIT          (defaults: /work/.mirror/OWNER+NAME/repo)
#   ROOT                        (default: ~/.cache/opctl-runtimes; never the project)
# Needs: root (apt-get), Go >= 1.24 at /usr/local/go or on PATH, Debian bookworm
# with access to deb.debian.org (bookworm + trixie) and the Go module proxy.
set -euo pipefail

ROOT=${ROOT:-$HOME/.cache/opctl-runtimes}
mkdir -p "$ROOT"
MIRROR=${MIRROR:-/work/.mirror}
SHELL_OPERATOR_GIT=${SHELL_OPERATOR_GIT:-$MIRROR/flant+shell-operator/repo}
METACONTROLLER_GIT=${METACONTROLLER_GIT:-$MIRROR/metacontroller+metacontroller/repo}
ANSIBLE_OPERATOR_GIT=${ANSIBLE_OPERATOR_GIT:-$MIRROR/operator-framework+ansible-operator-plugins/repo}
ANSIBLE_UTIL_GIT=${ANSIBLE_UTIL_GIT:-$MIRROR/operator-framework+operator-sdk-ansible-util/repo}
KOPF_GIT=${KOPF_GIT:-$MIRROR/nolar+kopf/repo}
CLICK_GIT=${CLICK_GIT:-$MIRROR/pallets+click/repo}

SHELL_OPERATOR_TAG=v1.20.3
MODULE_SDK_VERSION=v0.10.4
METACONTROLLER_TAG=v4.17.2
ANSIBLE_OPERATOR_TAG=v1.42.3
ANSIBLE_UTIL_TAG=v0.5.0
KOPF_TAG=1.44.6
CLICK_TAG=8.2.2

PY=${OPCTL_PYTHON:-/usr/bin/python3}
NICE=${NICE:-nice -n 15}
GO_TIMEOUT=${GO_TIMEOUT:-3600}

export PATH=/usr/local/go/bin:$PATH
export GOFLAGS=${GOFLAGS:--buildvcs=false}
export GOTOOLCHAIN=local

BOOKWORM_APT=(ansible python3-kubernetes python3-daemon python3-pexpect
  python3-requests-unixsocket python3-aiohttp python3-click python3-iso8601
  python3-pythonjsonlogger python3-yaml python3-typing-extensions
  python3-jsonpatch jq bash git ca-certificates)
TRIXIE_KOPF=(python3-aiohttp python3-yarl python3-multidict python3-propcache
  python3-frozenlist python3-aiosignal python3-aiohappyeyeballs
  python3-async-timeout python3-pythonjsonlogger python3-iso8601)
TRIXIE_ANSIBLE=(python3-ansible-runner)

SRC=$ROOT/src
BIN=$ROOT/bin
PYDIR=$ROOT/python
STAMPS=$ROOT/stamps
TRIXIE=$ROOT/trixie
COLLECTIONS=$ROOT/ansible/collections
RUNNER_BIN=$ROOT/ansible/bin
mkdir -p "$SRC" "$BIN" "$PYDIR" "$STAMPS"

log() { printf '\n=== %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }
done_already() { [[ -z ${FORCE:-} && -e $STAMPS/$1 ]]; }
stamp() { date -u +%FT%TZ >"$STAMPS/$1"; }

# extract GITDIR TAG DEST: a fresh copy of the tag's tree in DEST.
extract() {
  local git=$1 tag=$2 dest=$3
  [[ -d $git ]] || die "no git directory $git (fetch the repository first)"
  git --git-dir="$git" rev-parse -q --verify "refs/tags/$tag^{commit}" >/dev/null ||
    die "$git has no tag $tag (tags: $(git --git-dir="$git" tag | tr '\n' ' ' | tail -c 300))"
  rm -rf "$dest.tmp" "$dest"
  mkdir -p "$dest.tmp"
  git --git-dir="$git" archive "$tag" | tar -x -C "$dest.tmp"
  mv "$dest.tmp" "$dest"
}

# gobuild DIR PKG OUT [LDFLAGS]: builds PKG in DIR into $BIN/OUT.
gobuild() {
  local dir=$1 pkg=$2 out=$3 ldflags=${4:-}
  command -v go >/dev/null || die "go not found (expected /usr/local/go/bin)"
  # shellcheck disable=SC2086 # NICE is a command and its arguments
  (cd "$dir" && timeout "$GO_TIMEOUT" $NICE go build -trimpath -ldflags "$ldflags" -o "$BIN/$out.tmp" "$pkg")
  mv "$BIN/$out.tmp" "$BIN/$out"
}

tag_commit() { git --git-dir="$1" rev-parse "refs/tags/$2^{commit}"; }

step_apt() {
  done_already apt && return 0
  log "apt: bookworm packages"
  if ! dpkg-query -W -f='${Status}\n' "${BOOKWORM_APT[@]}" 2>/dev/null | grep -vq '^install ok installed$' &&
     [[ $(dpkg-query -W -f='${Status}\n' "${BOOKWORM_APT[@]}" 2>/dev/null | wc -l) -eq ${#BOOKWORM_APT[@]} ]]; then
    echo "all installed"
  else
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${BOOKWORM_APT[@]}"
  fi
  stamp apt
}

# A private apt configuration whose only source is trixie; the system's
# sources, lists and status are not touched (packages are only downloaded).
step_trixie() {
  done_already trixie && return 0
  log "trixie: download and unpack ${TRIXIE_KOPF[*]} ${TRIXIE_ANSIBLE[*]}"
  local conf=$TRIXIE/apt
  mkdir -p "$conf/sources.list.d" "$conf/preferences.d" "$conf/lists/partial" \
    "$conf/cache/archives/partial" "$TRIXIE/debs"
  cat >"$conf/sources.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
EOF
  cat >"$conf/apt.conf" <<EOF
Dir::Etc::SourceList "$conf/sources.list";
Dir::Etc::SourceParts "$conf/sources.list.d";
Dir::Etc::Preferences "$conf/preferences";
Dir::Etc::PreferencesParts "$conf/preferences.d";
Dir::State::Lists "$conf/lists";
Dir::Cache "$conf/cache";
Dir::State::status "$conf/status";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
APT::Sandbox::User "root";
EOF
  : >"$conf/status"
  export APT_CONFIG=$conf/apt.conf
  apt-get update -q
  (cd "$TRIXIE/debs" && rm -f ./*.deb && apt-get download -q "${TRIXIE_KOPF[@]}" "${TRIXIE_ANSIBLE[@]}")
  unset APT_CONFIG
  # Two roots, so the kopf path and the ansible path each get only their own.
  rm -rf "$PYDIR/trixie-kopf" "$PYDIR/trixie-ansible"
  local p deb
  for p in "${TRIXIE_KOPF[@]}"; do
    deb=$(ls "$TRIXIE/debs/${p}_"*.deb) || die "no .deb for $p"
    dpkg -x "$deb" "$PYDIR/trixie-kopf"
  done
  for p in "${TRIXIE_ANSIBLE[@]}"; do
    deb=$(ls "$TRIXIE/debs/${p}_"*.deb) || die "no .deb for $p"
    dpkg -x "$deb" "$PYDIR/trixie-ansible"
  done
  # Debian's python3-ansible-runner 2.4.1-1 was built without setuptools-scm
  # metadata: its dist-info says 0.0.0, and `ansible-runner --version` with it.
  # Record the packaged upstream version instead.
  local sp=$PYDIR/trixie-ansible/usr/lib/python3/dist-packages v
  if [[ -d $sp/ansible_runner-0.0.0.dist-info ]]; then
    deb=$(ls "$TRIXIE/debs/python3-ansible-runner_"*.deb)
    v=$(dpkg-deb -f "$deb" Version); v=${v%-*}; v=${v#*:}
    sed -i "s/^Version: 0\.0\.0\$/Version: $v/" "$sp/ansible_runner-0.0.0.dist-info/METADATA"
    mv "$sp/ansible_runner-0.0.0.dist-info" "$sp/ansible_runner-$v.dist-info"
  fi
  stamp trixie
}

step_metacontroller() {
  done_already metacontroller && return 0
  log "metacontroller $METACONTROLLER_TAG"
  local d=$SRC/metacontroller-$METACONTROLLER_TAG
  extract "$METACONTROLLER_GIT" "$METACONTROLLER_TAG" "$d"
  # The version its release build (.goreleaser.yaml) writes in; it logs it.
  gobuild "$d" ./pkg/cmd/metacontroller metacontroller \
    "-X main.version=${METACONTROLLER_TAG#v} -X main.commit=$(tag_commit "$METACONTROLLER_GIT" "$METACONTROLLER_TAG")"
  cp "$d/manifests/production/metacontroller-crds-v1.yaml" "$ROOT/metacontroller-crds-v1.yaml"
  stamp metacontroller
}

step_shell_operator() {
  done_already shell-operator && return 0
  log "shell-operator $SHELL_OPERATOR_TAG (module-sdk $MODULE_SDK_VERSION)"
  local d=$SRC/shell-operator-$SHELL_OPERATOR_TAG
  extract "$SHELL_OPERATOR_GIT" "$SHELL_OPERATOR_TAG" "$d"
  (cd "$d" &&
    go mod edit -require=github.com/deckhouse/module-sdk@$MODULE_SDK_VERSION &&
    timeout 1200 go mod download github.com/deckhouse/module-sdk@$MODULE_SDK_VERSION)
  # The version its Dockerfile writes in (else `shell-operator version` says v1.2.0-dev).
  gobuild "$d" ./cmd/shell-operator shell-operator \
    "-X github.com/flant/shell-operator/pkg/app.Version=$SHELL_OPERATOR_TAG"
  stamp shell-operator
}

step_ansible_operator() {
  done_already ansible-operator && return 0
  log "ansible-operator $ANSIBLE_OPERATOR_TAG"
  local d=$SRC/ansible-operator-plugins-$ANSIBLE_OPERATOR_TAG
  extract "$ANSIBLE_OPERATOR_GIT" "$ANSIBLE_OPERATOR_TAG" "$d"
  # The version variables its Makefile writes in (else `version` says unknown).
  local v=github.com/operator-framework/ansible-operator-plugins/internal/version k8s
  k8s=$(sed -n 's/^export K8S_VERSION = //p' "$d/Makefile")
  gobuild "$d" ./cmd/ansible-operator ansible-operator \
    "-X $v.Version=$ANSIBLE_OPERATOR_TAG -X $v.GitVersion=$ANSIBLE_OPERATOR_TAG -X $v.GitCommit=$(tag_commit "$ANSIBLE_OPERATOR_GIT" "$ANSIBLE_OPERATOR_TAG") -X $v.KubernetesVersion=v$k8s"
  stamp ansible-operator
}

# ansible_runner_http (the same repository, images/ansible-operator/) with a
# dist-info registering it as the ansible_runner.plugins entry point `http`,
# and an ansible-runner launcher that finds ansible-runner 2.4 by itself.
step_ansible_runner_http() {
  done_already ansible-runner-http && return 0
  log "ansible_runner_http + ansible-runner launcher"
  local d=$SRC/ansible-operator-plugins-$ANSIBLE_OPERATOR_TAG
  [[ -d $d ]] || extract "$ANSIBLE_OPERATOR_GIT" "$ANSIBLE_OPERATOR_TAG" "$d"
  local h=$PYDIR/ansible-runner-http
  rm -rf "$h" && mkdir -p "$h"
  cp -r "$d/images/ansible-operator/ansible_runner_http/ansible_runner_http" "$h/"
  local di=$h/ansible_operator_http_events-1.0.0.dist-info
  mkdir -p "$di"
  cat >"$di/METADATA" <<'EOF'
Metadata-Version: 2.1
Name: ansible-operator-http-events
Version: 1.0.0
Summary: HTTP event emitter for ansible-runner used by ansible-operator
Requires-Dist: requests
Requires-Dist: requests-unixsocket
EOF
  printf '[ansible_runner.plugins]\nhttp = ansible_runner_http\n' >"$di/entry_points.txt"
  printf 'ansible_runner_http\n' >"$di/top_level.txt"
  printf 'manual\n' >"$di/INSTALLER"
  : >"$di/RECORD"
  # ansible-operator runs `ansible-runner` by name from PATH. The launcher
  # puts ansible-runner 2.4 first on PYTHONPATH, then execs it on $PY.
  mkdir -p "$RUNNER_BIN"
  cat >"$RUNNER_BIN/ansible-runner" <<EOF
#!/bin/sh
# ansible-runner 2.4 (Debian trixie's python3-ansible-runner, unpacked) on $PY.
PYTHONPATH="$(ansible_pythonpath)\${PYTHONPATH:+:\$PYTHONPATH}"
export PYTHONPATH
exec "$PY" -c 'import sys; from ansible_runner.__main__ import main; sys.argv[0] = "ansible-runner"; sys.exit(main())' "\$@"
EOF
  chmod +x "$RUNNER_BIN/ansible-runner"
  stamp ansible-runner-http
}

step_collection() {
  done_already collection && return 0
  log "operator_sdk.util $ANSIBLE_UTIL_TAG"
  local d=$SRC/operator-sdk-ansible-util-$ANSIBLE_UTIL_TAG
  extract "$ANSIBLE_UTIL_GIT" "$ANSIBLE_UTIL_TAG" "$d"
  local out=$ROOT/ansible/build
  rm -rf "$out" && mkdir -p "$out"
  (cd "$d" && ansible-galaxy collection build --force --output-path "$out" .)
  rm -rf "$COLLECTIONS" && mkdir -p "$COLLECTIONS"
  ansible-galaxy collection install --offline --force -p "$COLLECTIONS" "$out"/operator_sdk-util-*.tar.gz
  stamp collection
}

step_kopf() {
  done_already kopf && return 0
  log "kopf $KOPF_TAG"
  local d=$PYDIR/kopf-$KOPF_TAG
  rm -rf "$d.src"
  extract "$KOPF_GIT" "$KOPF_TAG" "$d.src"
  rm -rf "$d" && mkdir -p "$d"
  mv "$d.src/kopf" "$d/kopf"
  rm -rf "$d.src"
  # Normally written by setuptools-scm at build time.
  local commit major minor patch
  commit=$(tag_commit "$KOPF_GIT" "$KOPF_TAG")
  IFS=. read -r major minor patch <<<"$KOPF_TAG"
  cat >"$d/kopf/_cogs/helpers/versions.py" <<EOF
# Written by opctl-runtimes build.sh in place of setuptools-scm's file.
__all__ = ["__version__", "__version_tuple__", "version", "version_tuple",
           "__commit_id__", "commit_id"]
__version__ = version = "$KOPF_TAG"
__version_tuple__ = version_tuple = ($major, $minor, $patch)
__commit_id__ = commit_id = "g${commit:0:8}"
EOF
  # A dist-info, as pip would write: `kopf --version` (click.version_option)
  # and importlib.metadata look kopf up by its distribution name.
  local di=$d/kopf-$KOPF_TAG.dist-info
  mkdir -p "$di"
  printf 'Metadata-Version: 2.1\nName: kopf\nVersion: %s\nRequires-Python: >=3.10\n' "$KOPF_TAG" >"$di/METADATA"
  printf '[console_scripts]\nkopf = kopf.cli:main\n' >"$di/entry_points.txt"
  printf 'kopf\n' >"$di/top_level.txt"
  printf 'manual\n' >"$di/INSTALLER"
  : >"$di/RECORD"
  stamp kopf
}

step_click() {
  done_already click && return 0
  log "click $CLICK_TAG"
  local d=$PYDIR/click-$CLICK_TAG
  rm -rf "$d.src"
  extract "$CLICK_GIT" "$CLICK_TAG" "$d.src"
  rm -rf "$d" && mkdir -p "$d"
  mv "$d.src/src/click" "$d/click"
  rm -rf "$d.src"
  # A dist-info, so importlib.metadata (click 8.2's deprecated __version__,
  # and anything checking requirements) sees 8.2.x rather than bookworm's 8.1.3.
  mkdir -p "$d/click-$CLICK_TAG.dist-info"
  printf 'Metadata-Version: 2.1\nName: click\nVersion: %s\n' "$CLICK_TAG" >"$d/click-$CLICK_TAG.dist-info/METADATA"
  printf 'click\n' >"$d/click-$CLICK_TAG.dist-info/top_level.txt"
  printf 'manual\n' >"$d/click-$CLICK_TAG.dist-info/INSTALLER"
  : >"$d/click-$CLICK_TAG.dist-info/RECORD"
  stamp click
}

kopf_pythonpath() {
  echo "$PYDIR/kopf-$KOPF_TAG:$PYDIR/click-$CLICK_TAG:$PYDIR/trixie-kopf/usr/lib/python3/dist-packages"
}
ansible_pythonpath() {
  echo "$PYDIR/trixie-ansible/usr/lib/python3/dist-packages:$PYDIR/ansible-runner-http"
}

step_env() {
  log "env.sh"
  cat >"$ROOT/env.sh.tmp" <<EOF
# Written by $ROOT/build.sh: the real runtimes for opctl's make test-runtimes.
export OPCTL_METACONTROLLER=$BIN/metacontroller
export OPCTL_METACONTROLLER_CRDS=$ROOT/metacontroller-crds-v1.yaml
export OPCTL_SHELL_OPERATOR=$BIN/shell-operator
export OPCTL_KOPF_PYTHONPATH=$(kopf_pythonpath)
export OPCTL_ANSIBLE_OPERATOR=$BIN/ansible-operator
export OPCTL_ANSIBLE_PYTHONPATH=$(ansible_pythonpath)
export OPCTL_ANSIBLE_RUNNER_BIN_DIR=$RUNNER_BIN
export OPCTL_ANSIBLE_COLLECTIONS_PATH=$COLLECTIONS
EOF
  mv "$ROOT/env.sh.tmp" "$ROOT/env.sh"
}

step_check() {
  log "smoke checks"
  # shellcheck disable=SC1091
  . "$ROOT/env.sh"
  local rc=0
  run() { echo "\$ $*"; "$@" || { echo "FAILED: $*"; rc=1; }; }
  run sh -c '"$OPCTL_METACONTROLLER" --help 2>&1 | head -5'
  run test -s "$OPCTL_METACONTROLLER_CRDS"
  run sh -c '"$OPCTL_SHELL_OPERATOR" version'
  run sh -c '"$OPCTL_ANSIBLE_OPERATOR" version'
  run env PYTHONPATH="$OPCTL_KOPF_PYTHONPATH" "$PY" -c 'import kopf, kopf.testing; print(kopf.__version__)'
  run env PYTHONPATH="$OPCTL_KOPF_PYTHONPATH" "$PY" -c 'from importlib.metadata import version as v; import aiohttp, click, pythonjsonlogger, iso8601; print(*(f"{p} {v(p)}" for p in ("kopf", "click", "aiohttp", "yarl", "multidict", "python-json-logger", "iso8601", "PyYAML", "jsonpatch", "typing_extensions")), sep=", ")'
  run env PYTHONPATH="$OPCTL_ANSIBLE_PYTHONPATH" "$PY" -c 'import ansible_runner; from importlib.metadata import entry_points; print([e for e in entry_points(group="ansible_runner.plugins")])'
  run "$OPCTL_ANSIBLE_RUNNER_BIN_DIR/ansible-runner" --version
  run sh -c 'ansible-galaxy collection list -p "$OPCTL_ANSIBLE_COLLECTIONS_PATH" 2>/dev/null | grep -E "operator_sdk.util +0\.5\.0"'
  run sh -c 'command -v bash && command -v jq && jq --version'
  return $rc
}

ALL=(apt trixie metacontroller shell-operator ansible-operator ansible-runner-http collection kopf click env check)
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=("${ALL[@]}")
start=$(date +%s)
for s in "${steps[@]}"; do
  fn=step_${s//-/_}
  declare -F "$fn" >/dev/null || die "unknown step $s (steps: ${ALL[*]})"
  "$fn"
done
log "done in $(($(date +%s) - start)) s: ${steps[*]}"
