#!/usr/bin/env bash
# Cross-builds karst release binaries: static (CGO_ENABLED=0), reproducible
# paths (-trimpath), stamped with the version, commit and commit date that
# `karst version` prints, one per target, into dist/ with SHA256SUMS.
#
#   scripts/release.sh                 every target, version from git describe
#   VERSION=v0.1.0 scripts/release.sh  a named release
#
# Environment:
#   VERSION  release name (default: git describe --tags --always --dirty, else "devel")
#   COMMIT   source revision (default: git rev-parse HEAD, else "unknown")
#   DATE     commit time, RFC 3339 (default: the commit's, else empty)
#   TARGETS  space-separated GOOS/GOARCH (default: linux and darwin on amd64 and arm64)
#   DIST     output directory (default: dist)
# Output: $DIST/karst-$VERSION-$GOOS-$GOARCH and $DIST/SHA256SUMS. The
# Dockerfile builds its binary with this script, so both are built alike.
set -euo pipefail
cd "$(dirname "$0")/.."

git_or() { git "$@" 2>/dev/null || true; }
VERSION="${VERSION:-$(git_or describe --tags --always --dirty)}"
VERSION="${VERSION:-devel}"
COMMIT="${COMMIT:-$(git_or rev-parse HEAD)}"
COMMIT="${COMMIT:-unknown}"
DATE="${DATE-$(git_or log -1 --format=%cI HEAD)}"
TARGETS="${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}"
DIST="${DIST:-dist}"

pkg=github.com/karst-broker/karst/internal/version
ldflags="-s -w -X $pkg.Version=$VERSION -X $pkg.Commit=$COMMIT -X $pkg.Date=$DATE"

mkdir -p "$DIST"
built=()
failed=()
for target in $TARGETS; do
  goos="${target%/*}" goarch="${target#*/}"
  out="$DIST/karst-$VERSION-$goos-$goarch"
  start=$SECONDS
  # -buildvcs=false: the stamp comes from -ldflags, and the build must not
  # depend on .git (absent in the Docker build context).
  if CGO_ENABLED=0 GOOS="$goos" GOARCH="$goarch" \
      go build -buildvcs=false -trimpath -ldflags "$ldflags" -o "$out" ./cmd/karst; then
    echo "built $out ($(wc -c <"$out") bytes, $((SECONDS - start)) s)"
    built+=("$(basename "$out")")
  else
    echo "FAILED $target" >&2
    failed+=("$target")
  fi
done

if [ ${#built[@]} -gt 0 ]; then
  (cd "$DIST" && sha256sum "${built[@]}" >SHA256SUMS)
  echo "wrote $DIST/SHA256SUMS"
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "release build failed for: ${failed[*]}" >&2
  exit 1
fi
