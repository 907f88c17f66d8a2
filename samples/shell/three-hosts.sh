#!/usr/bin/env bash
# Three "hosts" (processes) each run backup.sh ROUNDS times under `locksmith run`, then the log is
# checked: every start is followed by the end of the same host, and fencing tokens increase.
#
#   ./three-hosts.sh URL [ROUNDS]
#   ./three-hosts.sh "file:///mnt/shared/locks" 5
#   ./three-hosts.sh "tcp://lockhost:7420" 5
set -euo pipefail
url="$1"
rounds="${2:-5}"
here="$(cd "$(dirname "$0")" && pwd)"
jar="${LOCKSMITH_JAR:-$here/../../locking-cli/target/locksmith.jar}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

host() {
  for _ in $(seq "$rounds"); do
    java -jar "$jar" run --url "$url" --key nightly-backup --ttl 10s --wait 2m -- \
      "$here/backup.sh" "$1" "$log"
  done
}

pids=()
for name in alpha beta gamma; do
  host "$name" &
  pids+=("$!")
done
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1 # a run that failed (busy, lost, no server) fails the whole check
done

# Check the log: start/end pairs of one host, never interleaved, tokens increasing.
violations=0
awk '
  $1 == "start" { if (open != "") { print "overlap: " $2 " started while " open " ran"; bad = 1 }
                  if ($3 <= last) { print "token went back: " $3 " after " last; bad = 1 }
                  open = $2; last = $3; starts++ }
  $1 == "end"   { if (open != $2) { print "unmatched end of " $2; bad = 1 } open = "" }
  END           { if (open != "") { print "no end of " open "'"'"'s last run"; bad = 1 }
                  print starts + 0 " runs, " (bad ? "VIOLATIONS" : "no overlaps, tokens increasing"); exit bad }
' "$log" || violations=1
if [ "$failed" -ne 0 ]; then
  echo "a host's locksmith run failed; see its output above" >&2
fi
if [ "$failed" -ne 0 ] || [ "$violations" -ne 0 ]; then
  exit 1
fi
