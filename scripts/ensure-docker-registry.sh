#!/usr/bin/env bash
# Makes sure the OCI registry the image-verification tests start is installed: Debian's
# docker-registry package (CNCF distribution 2.8, /usr/bin/docker-registry). Idempotent: does
# nothing when the binary is there. Otherwise installs it with apt-get as root, or through
# `sudo -n` (never prompts). Exits non-zero with what to run when neither is possible.
# Usage: scripts/ensure-docker-registry.sh   (EDICT_DOCKER_REGISTRY overrides the binary's path)
set -uo pipefail

binary="${EDICT_DOCKER_REGISTRY:-/usr/bin/docker-registry}"
if [ -x "$binary" ]; then
  exit 0
fi
if [ -n "${EDICT_DOCKER_REGISTRY:-}" ]; then
  echo "ensure-docker-registry: EDICT_DOCKER_REGISTRY=$binary is not an executable file" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-docker-registry: $binary is missing and this machine has no apt-get;" \
    "install a CNCF distribution registry binary and set EDICT_DOCKER_REGISTRY to its path" >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  run=(sudo -n)
else
  echo "ensure-docker-registry: $binary is missing; install it with: sudo apt-get install -y docker-registry" >&2
  exit 1
fi

echo "ensure-docker-registry: installing Debian's docker-registry (the OCI registry the tests start)" >&2
export DEBIAN_FRONTEND=noninteractive
# The package's service is not wanted: the tests start their own registry on a free loopback port.
if ! "${run[@]}" apt-get install -y --no-install-recommends docker-registry >&2; then
  "${run[@]}" apt-get update >&2 && "${run[@]}" apt-get install -y --no-install-recommends docker-registry >&2
fi
if [ ! -x "$binary" ]; then
  echo "ensure-docker-registry: apt-get did not install $binary; install it with: sudo apt-get install -y docker-registry" >&2
  exit 1
fi
# Debian starts the packaged service on :5000; stop it so `npm run registry` can take that port.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet docker-registry 2>/dev/null; then
  "${run[@]}" systemctl disable --now docker-registry >/dev/null 2>&1 || true
fi
echo "ensure-docker-registry: installed $binary" >&2
