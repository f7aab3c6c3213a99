#!/usr/bin/env bash
# Downloads kafka-clients of every version in ./versions with its runtime dependencies into
# target/lib/VERSION (Maven, cached in ~/.m2; a version already complete is not asked for again)
# and compiles the checks once, against the oldest version.
set -euo pipefail
cd "$(dirname "$0")"
mapfile -t VERSIONS < <(grep -Ev '^\s*(#|$)' versions)

for v in "${VERSIONS[@]}"; do
  [ -f "target/lib/$v/.complete" ] && continue
  rm -rf "target/lib/$v"
  echo "fetching kafka-clients $v"
  timeout 300 mvn -q -B -Dkafka.version="$v" dependency:copy-dependencies
  [ -f "target/lib/$v/kafka-clients-$v.jar" ] || { echo "kafka-clients-$v.jar not fetched" >&2; exit 1; }
  touch "target/lib/$v/.complete"
done

stamp=target/classes/.compiled
if [ ! -f "$stamp" ] || [ -n "$(find src versions -newer "$stamp" -print -quit)" ]; then
  echo "compiling against kafka-clients ${VERSIONS[0]}"
  rm -rf target/classes
  mkdir -p target/classes
  javac --release 17 -Xlint:all -Werror -d target/classes -cp "target/lib/${VERSIONS[0]}/*" $(find src -name '*.java')
  touch "$stamp"
fi
