#!/bin/sh
# docker-compose.yml's `specialist` service, one per replica (`docker compose up --scale
# specialist=N`): a host that shares nothing with the operator's but the network (issue "Beyond one
# machine" §2). At its first start it asks the `enrol` service for a single-use join token (URL:
# the first argument), redeems it with `npm run join` against the ejabberd service, and from then
# on runs the specialist with its own state directory ($PARLEY_HOME in this container: its key,
# credential and password; nothing of the operator's but the operator's DID). A restarted
# container reuses its enrolment; a new replica gets a new account and token.
set -eu
cd "$(dirname "$0")/.."
dispenser="$1"
server="$PARLEY_XMPP_HOST:${PARLEY_C2S_PORT:-15222}"
mkdir -p "$PARLEY_HOME" && chmod 700 "$PARLEY_HOME"
joined="$PARLEY_HOME/compose-specialist"
if [ ! -s "$joined" ]; then
  # Three lines: the account's name, the token (a secret: never echoed), the operator's DID.
  answer=$(node -e '
    const [url] = process.argv.slice(1);
    fetch(url, { method: "POST" }).then(async (r) => {
      const body = await r.text();
      if (!r.ok) { console.error(`specialist: the enrol service said ${r.status}: ${body.trim()}`); process.exit(1); }
      const { name, token } = JSON.parse(body);
      const t = JSON.parse(Buffer.from(token.slice("parley-join.v1.".length), "base64url").toString("utf8"));
      console.log([name, token, t.operator].join("\n"));
    }, (err) => { console.error(`specialist: cannot reach the enrol service ${url}: ${err.message}`); process.exit(1); });
  ' "$dispenser")
  name=$(printf '%s\n' "$answer" | sed -n 1p)
  token=$(printf '%s\n' "$answer" | sed -n 2p)
  printf '%s\n' "$answer" | sed -n 3p > "$PARLEY_HOME/operator-did"
  node dist/scripts/join-cli.js --server "$server" --token "$token" --home "$PARLEY_HOME"
  printf '%s\n' "$name" > "$joined"
fi
PARLEY_OPERATOR_DID=$(cat "$PARLEY_HOME/operator-did")
export PARLEY_OPERATOR_DID
exec node dist/agents/specialist/main.js --name "$(cat "$joined")"
