#!/usr/bin/env bash
# The consumer test: builds and packs every package, then runs each example in examples/ the way a user outside
# this repository would: copied to a temporary directory, its registry dependencies and the packed tarballs
# installed with npm (no workspace links), type-checked with its own `tsc` (moduleResolution nodenext) and run
# with its own `npm test` on plain Node, which resolves the packages' built dist/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Run through `npm run examples`, which puts the Node 24 of the `node` devDependency first on PATH.
node -e 'const [a, b] = process.versions.node.split(".").map(Number); if (a < 22 || (a === 22 && b < 19)) { console.error("examples: run them with `npm run examples` (Node >= 22.19 needed, this is " + process.version + ")"); process.exit(1) }'
work="$(mktemp -d "${TMPDIR:-/tmp}/gateway-control-examples.XXXXXX")"
trap 'rm -rf "$work"' EXIT

cd "$root"
npm run build --silent
mkdir -p "$work/packs"
for manifest in packages/*/package.json; do
  npm pack --silent --workspace "$(node -p "require('./$manifest').name")" --pack-destination "$work/packs" >/dev/null
done
tarballs=("$work"/packs/*.tgz)
echo "examples: packed ${#tarballs[@]} packages"

for example in "$root"/examples/*/; do
  name="$(basename "$example")"
  echo "examples: $name"
  cp -r "$example" "$work/$name"
  rm -rf "$work/$name/node_modules"
  (
    cd "$work/$name"
    npm install --silent --no-audit --no-fund "${tarballs[@]}"
    npm run --silent typecheck
    npm test --silent
    # The CLI as installed from the tarballs: the built dist/, no sources beside the bin.
    npx --no gateway-control --help >/dev/null
    DATA_DIR="$work/$name/data" npx --no gateway-control migrate >/dev/null
  )
done
echo "examples: all passed"
