#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy into DIR (default
# .cache/envtest-<version>), only when they are missing, and prints DIR: the
# value for KUBEBUILDER_ASSETS. A cold build takes about 10 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k8s_version=$(sed -n 's/^require k8s.io\/kubernetes //p' "$here/kube-apiserver/go.mod")
etcd_version=$(sed -n 's/^require go.etcd.io\/etcd\/server\/v3 //p' "$here/etcd/go.mod")
dir=${1:-"$here/../../.cache/envtest-$k8s_version-etcd-$etcd_version"}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
GO=${GO:-go}

if [ ! -x "$dir/kube-apiserver" ]; then
  minor=$(echo "$k8s_version" | cut -d. -f2)
  echo "building kube-apiserver $k8s_version into $dir (about 10 minutes cold)..." >&2
  (cd "$here/kube-apiserver" && CGO_ENABLED=0 "$GO" build -trimpath -o "$dir/kube-apiserver.tmp" \
    -ldflags "-X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor" \
    k8s.io/kubernetes/cmd/kube-apiserver)
  mv "$dir/kube-apiserver.tmp" "$dir/kube-apiserver"
fi
if [ ! -x "$dir/etcd" ]; then
  echo "building etcd $etcd_version into $dir..." >&2
  (cd "$here/etcd" && CGO_ENABLED=0 "$GO" build -trimpath -o "$dir/etcd.tmp" .)
  mv "$dir/etcd.tmp" "$dir/etcd"
fi
if [ ! -e "$dir/kubectl" ] && command -v kubectl >/dev/null; then
  ln -s "$(command -v kubectl)" "$dir/kubectl"
fi
echo "$dir"
