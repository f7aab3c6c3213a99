#!/usr/bin/env bash
# Downloads every client of ./versions and kafka-clients 4.4.0, each with its runtime dependencies,
# into target/lib/VERSION (Maven, cached in ~/.m2; a version already complete is not asked for
# again), compiles the three programs (src/old against the oldest kafka-clients, src/old08 against
# kafka_2.10 0.8.2.2, src/modern against 4.4.0; src/common into each), and makes the venv of
# kafka-python (requirements.txt). kcat is installed by interop/run with apt-get.
set -euo pipefail
cd "$(dirname "$0")"
MODERN=4.4.0

fetch() { # artifact version
  [ -f "target/lib/$2/.complete" ] && return
  rm -rf "target/lib/$2"
  echo "fetching $1 $2"
  timeout 300 mvn -q -B -Dclient.artifact="$1" -Dclient.version="$2" dependency:copy-dependencies
  [ -f "target/lib/$2/$1-$2.jar" ] || { echo "$1-$2.jar not fetched" >&2; exit 1; }
  # kafka_2.10 brings slf4j-log4j12 too; one slf4j binding (slf4j-simple) keeps the logs quiet.
  rm -f "target/lib/$2"/slf4j-log4j12-*.jar
  touch "target/lib/$2/.complete"
}

OLDEST=""
while read -r artifact version; do
  fetch "$artifact" "$version"
  if [ "$artifact" = kafka-clients ] && [ -z "$OLDEST" ]; then OLDEST="$version"; fi
  if [ "$artifact" = kafka_2.10 ]; then SCALA_08="$version"; fi
done < <(grep -Ev '^\s*(#|$)' versions)
fetch kafka-clients "$MODERN"

compile() { # output-dir classpath-version source-dir
  local stamp="target/$1/.compiled"
  if [ -f "$stamp" ] && [ -z "$(find src/common "src/$3" versions -newer "$stamp" -print -quit)" ]; then return; fi
  echo "compiling src/$3 against target/lib/$2"
  rm -rf "target/$1"
  mkdir -p "target/$1"
  # -Xlint:-path: the old jars name Class-Path entries that Maven does not fetch.
  javac --release 17 -Xlint:all -Xlint:-path -Werror -d "target/$1" -cp "target/lib/$2/*" \
    $(find src/common "src/$3" -name '*.java')
  touch "$stamp"
}
compile old "$OLDEST" old
compile old08 "$SCALA_08" old08
compile modern "$MODERN" modern

if [ ! -f .venv/.installed ] || ! cmp -s .venv/.installed requirements.txt; then
  echo "installing kafka-python (pip)"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  timeout 600 .venv/bin/pip install -q -r requirements.txt
  cp requirements.txt .venv/.installed
fi
