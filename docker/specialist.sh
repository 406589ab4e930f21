#!/bin/sh
# docker-compose.yml's `specialist` service, one per replica (`docker compose up --scale
# specialist=N`): a host that shares nothing with the operator's but the network (issue "Beyond one
# machine" §2). At its first start it asks the `enrol` service for a single-use join token (URL:
# the first argument), redeems it with `npm run join` against the ejabberd service, and from then
# on runs the specialist with its own state directory ($PARLEY_HOME in this container: its key,
# credential and password; of the operator's only its DID and the core agents' DIDs, which the
# token carries and `npm run join` keeps). A container that
# restarts before it joined tries the same token again until it expires (one account per replica,
# not one per attempt); a joined one reuses its enrolment; a new replica gets a new account.
set -eu
cd "$(dirname "$0")/.."
dispenser="$1"
server="$PARLEY_XMPP_HOST:${PARLEY_C2S_PORT:-15222}"
umask 077
mkdir -p "$PARLEY_HOME"
joined="$PARLEY_HOME/compose-specialist"
pending="$PARLEY_HOME/join-token"   # the account's name, then the token (a secret: never echoed)
if [ ! -s "$joined" ]; then
  if [ ! -s "$pending" ] || ! node -e '
    const t = require("fs").readFileSync(process.argv[1], "utf8").split("\n")[1];
    const { expires_at } = JSON.parse(Buffer.from(t.slice("parley-join.v1.".length), "base64url").toString("utf8"));
    process.exit(expires_at - Date.now() > 30_000 ? 0 : 1);
  ' "$pending"; then
    node -e '
      const [url, file] = process.argv.slice(1);
      fetch(url, { method: "POST" }).then(async (r) => {
        const body = await r.text();
        if (!r.ok) { console.error(`specialist: the enrol service said ${r.status}: ${body.trim()}`); process.exit(1); }
        const { name, token } = JSON.parse(body);
        require("fs").writeFileSync(file, `${name}\n${token}\n`, { mode: 0o600 });
      }, (err) => { console.error(`specialist: cannot reach the enrol service ${url}: ${err.message}`); process.exit(1); });
    ' "$dispenser" "$pending"
  fi
  name=$(sed -n 1p "$pending")
  echo "specialist: joining as $name through $server"
  node dist/scripts/join-cli.js --server "$server" --token "$(sed -n 2p "$pending")" --home "$PARLEY_HOME"
  printf '%s\n' "$name" > "$joined"
  rm -f "$pending"
fi
exec node dist/agents/specialist/main.js --name "$(cat "$joined")"
