#!/usr/bin/env bash
# Installs the integration-test host (code-server 4.100.3 = VS Code 1.100.3, playwright-core) and the apt packages
# it needs; idempotent: a second run with the same lockfile does no work.
set -euo pipefail
cd "$(dirname "$0")"

# chromium: the headless browser that loads the workbench; libkrb5-dev: headers for code-server's kerberos addon;
# ripgrep: stands in for the rg binary @vscode/ripgrep would download from GitHub.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v rg >/dev/null || missing+=(ripgrep)
[ -e /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: apt-get install ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

stamp=node_modules/.autobench-setup
want="$({ cat package.json; cat package-lock.json 2>/dev/null || true; } | sha256sum | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f node_modules/code-server/out/node/entry.js ]; then
  echo "setup: node_modules up to date"
else
  # @vscode/ripgrep's postinstall fetches rg from GitHub unless its cache (under $TMPDIR) holds the archive:
  # seed it with Debian's rg. The version pair is the one code-server 4.100.3's lockfile pins.
  mkdir -p .tmp/vscode-ripgrep-cache-1.15.11
  tar czf .tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz -C "$(dirname "$(command -v rg)")" rg
  # Native addons (kerberos, node-pty, argon2) build with node-gyp: point it at the running node's own headers
  # (offline: node-gyp would otherwise download them from nodejs.org).
  prefix="$(dirname "$(dirname "$(command -v node)")")"
  if [ -z "${npm_config_nodedir:-}" ] && [ -f "$prefix/include/node/node.h" ]; then export npm_config_nodedir="$prefix"; fi
  verb=install; [ -f package-lock.json ] && verb=ci
  echo "setup: npm $verb (native builds; a few minutes)"
  # unsafe_perm: code-server's preinstall refuses root without it; yes: node-pty's postinstall runs `npx node-gyp`.
  TMPDIR="$PWD/.tmp" npm_config_unsafe_perm=true npm_config_yes=true \
    npm "$verb" --no-audit --no-fund --foreground-scripts --loglevel=error > .tmp/npm-install.log 2>&1 \
    || { tail -50 .tmp/npm-install.log; exit 1; }
  test -x node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg \
    || { echo "setup: @vscode/ripgrep has no rg binary; see .tmp/npm-install.log" >&2; exit 1; }
  { cat package.json; cat package-lock.json; } | sha256sum | cut -c1-16 > "$stamp"
fi
node -p '"setup: code-server " + require("code-server/package.json").version + ", VS Code " + require("code-server/lib/vscode/package.json").version'
