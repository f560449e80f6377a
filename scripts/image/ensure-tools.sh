#!/usr/bin/env bash
# Makes sure the Debian tools the image scripts use are installed (each command is its package's
# name: mmdebstrap, umoci, skopeo). Idempotent: does nothing when they are there; otherwise installs
# the missing ones with apt-get as root, or through `sudo -n` (never prompts), as
# scripts/ensure-docker-registry.sh does. Exits non-zero with what to run when neither is possible.
# Usage: scripts/image/ensure-tools.sh mmdebstrap [umoci skopeo ...]
set -uo pipefail

missing=()
for tool in "$@"; do
  case "$tool" in
    mmdebstrap | umoci | skopeo) ;;
    *)
      echo "ensure-tools: unknown tool $tool (known: mmdebstrap, umoci, skopeo)" >&2
      exit 2
      ;;
  esac
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-tools: ${missing[*]} missing and this machine has no apt-get; install them" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  run=(sudo -n)
else
  echo "ensure-tools: ${missing[*]} missing; install with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "ensure-tools: installing Debian's ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${run[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
  "${run[@]}" apt-get update >&2 && "${run[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi
for tool in "${missing[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "ensure-tools: apt-get did not install $tool; install it with: sudo apt-get install -y $tool" >&2
    exit 1
  }
done
