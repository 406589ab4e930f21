#!/usr/bin/env bash
# Every set-up step the quick start needs, idempotent and fast when nothing is missing:
# ejabberd and chromium from Debian (as root), node modules (npm ci), and a fresh build.
set -euo pipefail
cd "$(dirname "$0")/.."
quiet=0; [ "${1:-}" = "--quiet" ] && quiet=1
say() { [ $quiet = 1 ] || echo "setup: $*" >&2; }
# What the steps print on success (a bundle's size, a kept code cache) is for `npm start`, not for
# an operator's `npm run status`; their errors always show.
progress=/dev/stderr; [ $quiet = 1 ] && progress=/dev/null

if [ ! -x /usr/sbin/ejabberdctl ]; then
  if [ "$(id -u)" = 0 ]; then
    say "installing ejabberd from Debian (apt-get)…"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q ejabberd >&2
    # The package starts a system service where systemd runs; Parley uses its own instance.
    (command -v systemctl >/dev/null && systemctl disable --now ejabberd >/dev/null 2>&1) || true
  else
    echo "setup: ejabberd is missing; run as root, or: sudo apt-get install -y ejabberd" >&2
    exit 1
  fi
fi

# The console's browser tests drive Debian's Chromium (playwright-core never downloads a browser).
if ! command -v chromium >/dev/null && [ "$(id -u)" = 0 ]; then
  say "installing chromium from Debian (apt-get) for the console's browser tests…"
  export DEBIAN_FRONTEND=noninteractive
  (apt-get install -y -q chromium >&2 || { apt-get update -q >&2 && apt-get install -y -q chromium >&2; }) \
    || echo "setup: could not install chromium; the console's browser tests will fail" >&2
fi

# openssl makes the certificate for exposed ports (PARLEY_EXPOSE_ADDRESS); iproute2 lets the TLS
# test put "another device" in a network namespace of its own, and a cluster's nodes run in
# namespaces of their own (shared/ejabberd/hosts.ts); without it both use loopback addresses.
if { ! command -v openssl >/dev/null || ! command -v ip >/dev/null; } && [ "$(id -u)" = 0 ]; then
  say "installing openssl and iproute2 from Debian (apt-get)…"
  export DEBIAN_FRONTEND=noninteractive
  (apt-get install -y -q openssl iproute2 >&2 || { apt-get update -q >&2 && apt-get install -y -q openssl iproute2 >&2; }) \
    || echo "setup: could not install openssl/iproute2; exposing ports needs openssl" >&2
fi

# A second real XMPP client for the chat tests (issue 16: "test each from a real XMPP client"):
# Debian's slixmpp, the library SPADE builds on.
# Debian's package directory first: importing slixmpp takes ≈ 0.25 s, and this runs at every npm start.
if [ ! -d /usr/lib/python3/dist-packages/slixmpp ] && ! /usr/bin/python3 -c 'import slixmpp' >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  say "installing python3-slixmpp from Debian (apt-get) for the chat tests' second client…"
  export DEBIAN_FRONTEND=noninteractive
  (apt-get install -y -q python3-slixmpp >&2 || { apt-get update -q >&2 && apt-get install -y -q python3-slixmpp >&2; }) \
    || echo "setup: could not install python3-slixmpp; the slixmpp chat test will be skipped" >&2
fi

stamp=node_modules/.parley-lock
if [ ! -d node_modules ] || [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  say "installing node modules (npm ci)…"
  npm ci --no-audit --no-fund >&2
  cp package-lock.json "$stamp"
fi

# Rebuild when any TypeScript source is newer than the last build.
if [ ! -f dist/.built ] || [ -n "$(find agents shared scripts skills test -name '*.ts' -newer dist/.built -print -quit 2>/dev/null)" ]; then
  say "building…"
  npx tsc -p tsconfig.json >&2
  touch dist/.built
fi
# The contracts' validators compiled once for every agent (shared/contracts/precompiled.ts); a
# process whose contracts differ compiles them itself, so this only saves start-up time.
gen=dist/shared/contracts/validators.gen.cjs
if [ ! -f "$gen" ] || [ -n "$(find contracts -name '*.json' -newer "$gen" -print -quit)" ]; then
  node -e "import('./dist/shared/contracts/index.js').then((m) => m.contracts())" >&2
fi
# The same for the skills' own validators (skill.json, roles file, draft-07 meta-schema;
# shared/skills/own-validators.ts): their schemas change only with a build.
gen=dist/shared/skills/skill-manifest.gen.cjs
if [ ! -f "$gen" ] || [ dist/.built -nt "$gen" ]; then
  node -e "import('./dist/shared/skills/index.js').then((m) => m.precompileOwnValidators())" >&2
  # A module that already matched is left as it is: its time stamp says it was checked since the
  # build (else every start after a build ran this step again).
  [ -f "$gen" ] && touch "$gen"
fi
# The arithmetic skill's mathjs with V8's code cache (skills/arithmetic/mathjs-load.ts), made under
# its workers' V8 flags (--max-old-space-size = the skill's memory limit) so that V8 accepts it.
cache=dist/skills/arithmetic/mathjs.v8cache
if [ ! -f "$cache" ] || [ dist/.built -nt "$cache" ]; then
  mb=$(node -p "require('./skills/arithmetic/skill.json').limits?.memoryMb ?? 128")
  node --max-old-space-size="$mb" dist/skills/arithmetic/make-cache.js >"$progress" || say "no code cache for mathjs: its workers compile it"
fi
# Single-file agents (npm run bundle; shared/supervisor/bundles.ts): rebuilt after a build when
# esbuild is installed (a devDependency). The supervisor uses a bundle only while it matches
# dist/, so a failed or skipped bundling only costs start-up time: the agents start from dist/.
if [ -d node_modules/esbuild ] && { [ ! -f dist/bundle/.built ] || [ dist/.built -nt dist/bundle/.built ]; }; then
  say "bundling the agents…"
  if node dist/scripts/bundle.js >"$progress"; then touch dist/bundle/.built; else say "bundling failed: the agents start from dist/"; fi
fi
