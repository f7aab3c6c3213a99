#!/usr/bin/env bash
# Checks that `go install github.com/karst-broker/karst/cmd/karst@VERSION`
# works for this checkout as a published version would: the checkout's
# tracked files (nested modules left out, as the module proxy's zip leaves
# them) are served as that version from a file GOPROXY, the dependencies
# from the local module cache, and `go install ...@VERSION` runs in an
# empty directory outside any module; the installed binary must report
# the version. No network is used.
#
#   scripts/go-install-check.sh    (VERSION defaults to v0.0.1-installcheck)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mod="$(cd "$root" && go list -m)"
version="${VERSION:-v0.0.1-installcheck}"
work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
proxy="$work/proxy/$mod/@v"
mkdir -p "$proxy" "$work/empty" "$work/gopath"
cp "$root/go.mod" "$proxy/$version.mod"
echo "$version" > "$proxy/list"
printf '{"Version":"%s","Time":"2026-12-04T00:00:00Z"}\n' "$version" > "$proxy/$version.info"
(cd "$root" && git ls-files -z) | python3 -c '
import os, sys, zipfile
root, mod, version, out = sys.argv[1:]
files = [f for f in sys.stdin.read().split("\0") if f]
nested = {os.path.dirname(f) for f in files if f.endswith("/go.mod")}
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for f in files:
        if any(f.startswith(d + "/") for d in nested) or not os.path.isfile(os.path.join(root, f)):
            continue
        z.write(os.path.join(root, f), mod + "@" + version + "/" + f)
' "$root" "$mod" "$version" "$proxy/$version.zip"
cache="$(go env GOMODCACHE)/cache/download"
(cd "$work/empty" && GOPROXY="file://$work/proxy,file://$cache" GOSUMDB=off GOFLAGS=-mod=mod GOPATH="$work/gopath" \
  GOMODCACHE="$work/gopath/pkg/mod" GOBIN="$work/bin" GOTOOLCHAIN=local go install "$mod/cmd/karst@$version")
out="$("$work/bin/karst" version)"
echo "$out"
case "$out" in
  *"$version"*) echo "go-install-check: ok, go install $mod/cmd/karst@$version" ;;
  *) echo "go-install-check: the installed karst does not report $version" >&2; exit 1 ;;
esac
