#!/usr/bin/env bash
# Makes the venv VENVS/VERSION of every confluent-kafka version in ./versions with the Python
# named beside it and installs that version's binary wheel (pip, from its cache after the first
# time; --only-binary, so a missing wheel fails instead of building librdkafka). A venv whose
# stamp names its version is left alone. The venvs live outside the work tree
# ($INTEROP_CACHE, default ~/.cache/karst-interop), so a fresh clone on the same machine (CI's)
# reuses them.
set -euo pipefail
cd "$(dirname "$0")"
VENVS="${INTEROP_CACHE:-$HOME/.cache/karst-interop}/librdkafka"
mkdir -p "$VENVS"

# python_for MAJOR.MINOR: the interpreter of that version: python3 when it is that version,
# else pyenv's (these machines keep several under $PYENV_ROOT/versions), else pythonX.Y on PATH.
python_for() {
  if [ "$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "$1" ]; then
    command -v python3; return
  fi
  local p
  for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1".*/bin/python"$1"; do
    [ -x "$p" ] && { echo "$p"; return; }
  done
  if command -v "python$1" > /dev/null && "python$1" -c '' 2> /dev/null; then command -v "python$1"; return; fi
  echo "no Python $1 on this machine" >&2
  return 1
}

while read -r version python; do
  venv="$VENVS/$version"
  [ "$(cat "$venv/.installed" 2> /dev/null)" = "confluent-kafka==$version python$python" ] && continue
  interpreter="$(python_for "$python")"
  echo "confluent-kafka $version: venv with $interpreter"
  rm -rf "$venv"
  "$interpreter" -m venv "$venv"
  timeout 300 "$venv/bin/pip" install -q --disable-pip-version-check --only-binary=:all: "confluent-kafka==$version"
  echo "confluent-kafka==$version python$python" > "$venv/.installed"
done < <(grep -Ev '^\s*(#|$)' versions)
