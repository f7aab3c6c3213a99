#!/bin/sh
# Builds and runs Karst: ./your_program.sh [server.properties] [--override key=value]...
# With no arguments it serves the embedded default (PLAINTEXT on port 9092).
set -e
cd "$(dirname "$0")"
go build -o /tmp/karst-your-program ./cmd/karst
exec /tmp/karst-your-program serve "$@"
