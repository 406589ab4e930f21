#!/bin/sh
# docker-compose.yml's `ejabberd` service: the project's own ejabberd exactly as on bare metal
# (`npm run ejabberd -- start`: config rendered into $PARLEY_HOME, Debian's ejabberdctl, the core
# accounts provisioned), kept in the foreground for the container runtime, stopped cleanly on
# SIGTERM (`docker compose stop`/`down`).
set -eu
cd "$(dirname "$0")/.."
stopping=0
stop() {
  stopping=1
  node dist/scripts/ejabberd-cli.js stop || true
  exit 0
}
trap stop TERM INT
node dist/scripts/ejabberd-cli.js start
pid=$(cat "$PARLEY_HOME/ejabberd/run/ejabberd.pid")
# `sleep & wait` so that the trap runs at once when the signal comes.
while kill -0 "$pid" 2>/dev/null; do
  sleep 2 &
  wait $! || true
done
[ "$stopping" = 1 ] && exit 0
echo "ejabberd: the node (pid $pid) exited; its log is in $PARLEY_HOME/ejabberd/logs" >&2
exit 1
