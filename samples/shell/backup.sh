#!/usr/bin/env bash
# The job that must never run on two hosts at once: a pretend backup that logs when it starts and
# ends. locksmith run gives it the lock's fencing token in LOCKSMITH_FENCING_TOKEN.
set -euo pipefail
host="$1"
log="$2"
echo "start $host ${LOCKSMITH_FENCING_TOKEN:?run me under locksmith run}" >> "$log"
sleep 0.05   # the "backup"
echo "end $host" >> "$log"
