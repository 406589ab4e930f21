#!/bin/sh
# `npm start` after its set-up: the supervisor, started without NODE_EXTRA_CA_CERTS. With that
# variable Node decodes every certificate of the file before its first line (the system bundle:
# `node -e 0` 120 ms of CPU instead of 35 on the 2-core box), and the supervisor opens no TLS
# connection. The file moves to PARLEY_CHILD_CA_CERTS, from which the supervisor hands it back to
# the children that may open TLS (shared/supervisor/child-env.ts).
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ]; then
  PARLEY_CHILD_CA_CERTS="$NODE_EXTRA_CA_CERTS"
  export PARLEY_CHILD_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
fi
exec node dist/scripts/supervisor.js "$@"
