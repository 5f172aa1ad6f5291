#!/usr/bin/env bash
# Installs what the playground's browser test (tools/web/browser_test.py) drives: Debian's
# headless-capable Chromium and its WebDriver, chromedriver, where they are missing (apt-get: root).
#   usage: tools/web/install-browser.sh
set -euo pipefail
if command -v chromium > /dev/null && command -v chromedriver > /dev/null; then
  exit 0
fi
echo "playground: installing chromium, chromium-driver (Debian)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends chromium chromium-driver > /dev/null ||
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium chromium-driver > /dev/null; }
