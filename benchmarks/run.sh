#!/usr/bin/env bash
# Runs every Locksmith benchmark and writes benchmarks/RESULTS.md.
#
#   benchmarks/run.sh            # the report: about 6-12 minutes on 2 cores, build included
#   benchmarks/run.sh --quick    # a smoke run of everything in about 3 minutes (figures meaningless)
#
# --no-am builds only this module against the Locksmith modules installed in ~/.m2 (for use while
# others edit the tree); --no-build uses target/benchmarks.jar as it is.
# Other arguments go to dev.locksmith.benchmarks.report.RunAll: --include REGEX (JMH benchmarks),
# --skip-jmh, --skip-load, --out FILE, --json FILE. Needs Java 17+ and a redis-server on the PATH
# (else the one embedded-redis ships is used). Everything listens on 127.0.0.1 only, on free ports;
# the machine's own Redis service is never touched.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

build=(-am)
args=()
for arg in "$@"; do
  case "$arg" in
    --no-am) build=() ;;
    --no-build) build=(none) ;;
    *) args+=("$arg") ;;
  esac
done
if [ "${build[*]-}" != "none" ]; then
  ./mvnw -B -q -pl benchmarks ${build[@]+"${build[@]}"} package -DskipTests
fi

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$root" status --porcelain 2>/dev/null | head -1)" ]; then
  commit="$commit (with uncommitted changes)"
fi

exec java -Xms512m -Xmx1g "-Dlocksmith.commit=$commit" \
  -cp "$here/target/benchmarks.jar" dev.locksmith.benchmarks.report.RunAll \
  --out "$here/RESULTS.md" --json "$here/target/jmh-results.json" ${args[@]+"${args[@]}"}
