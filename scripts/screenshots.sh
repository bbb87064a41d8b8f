#!/usr/bin/env bash
# Regenerates the README's console screenshots (docs/console-*.png) from the browser tests: runs
# ConsoleBrowser.test.ts, ConsoleJobs.test.ts and ConsolePromptJobs.test.ts in Debian's Chromium (they write every page at 1366 and 390 px,
# and dark, to screenshots/console/), then copies the ones the README shows into docs/. Run it with
# `npm run screenshots` (Node 24 first on PATH); it fails when Chromium is missing or a screenshot was not made.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
rm -rf screenshots/console
REQUIRE_BROWSER=1 npx vitest run packages/server/test/ConsoleBrowser.test.ts packages/server/test/ConsoleJobs.test.ts \
  packages/server/test/ConsolePromptJobs.test.ts

# screenshot (in screenshots/console/, without .png) → README image (in docs/, without .png)
shots=(
  "prompt-versions-1366 console-prompt-versions"
  "prompt-versions-dark-1366 console-prompt-versions-dark"
  "mcp-integration-1366 console-mcp-integration"
  "api-key-presets-390 console-api-keys-390"
  "menu-open-390 console-menu-390"
  "editor-refused-390 console-editor-390"
  "publish-confirm-390 console-publish-390"
)
for pair in "${shots[@]}"; do
  read -r from to <<<"$pair"
  if [[ ! -f "screenshots/console/$from.png" ]]; then
    echo "screenshots: screenshots/console/$from.png was not made" >&2
    exit 1
  fi
  cp "screenshots/console/$from.png" "docs/$to.png"
  echo "screenshots: docs/$to.png"
done
