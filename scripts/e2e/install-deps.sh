#!/usr/bin/env bash
# Installs the Debian packages that the real-VS-Code end-to-end tests and `npm start` need:
#   build: what code-server's native modules (kerberos, native-keymap, @vscode/spdlog, ...) compile against
#   browser: Debian's Chromium, driven by playwright-core in the e2e tests
# Non-interactive; does nothing (no apt-get update either) when every package is already installed.
#
# Usage: scripts/e2e/install-deps.sh [--all | --build | --browser] [--check]
#   --all      build + browser packages (default; what CI uses)
#   --build    only code-server's build packages (what `npm start` needs)
#   --browser  only chromium
#   --check    install nothing: list the missing packages and exit 1 if any is missing
set -euo pipefail

BUILD_PACKAGES=(libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev pkg-config)
BROWSER_PACKAGES=(chromium fonts-noto-color-emoji)

want=(); check=0
for arg in "$@"; do
  case "$arg" in
    --all) want+=("${BUILD_PACKAGES[@]}" "${BROWSER_PACKAGES[@]}") ;;
    --build) want+=("${BUILD_PACKAGES[@]}") ;;
    --browser) want+=("${BROWSER_PACKAGES[@]}") ;;
    --check) check=1 ;;
    *) echo "install-deps.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done
if [ "${#want[@]}" -eq 0 ]; then want=("${BUILD_PACKAGES[@]}" "${BROWSER_PACKAGES[@]}"); fi

missing=()
for pkg in "${want[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  if [ "$status" != "install ok installed" ]; then missing+=("$pkg"); fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all Debian packages present (${want[*]})"
  exit 0
fi

if [ "$check" -eq 1 ]; then
  echo "install-deps: missing Debian packages: ${missing[*]}"
  exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing Debian packages: ${missing[*]}" >&2
  echo "install-deps: run as root, or: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q "${missing[@]}"
echo "install-deps: done"
