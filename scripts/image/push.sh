#!/usr/bin/env bash
# Pushes the image scripts/image/build.sh made (the OCI layout in dist/image/oci) to a registry, in
# one command: skopeo copies the layout's manifest, config and layers as they are, so the pushed
# image has the layout's digest. Credentials are skopeo's (`skopeo login`, or --dest-creds).
# Usage: scripts/image/push.sh <destination> [skopeo copy options]      (npm run image:push -- ...)
#   e.g. scripts/image/push.sh docker://ghcr.io/edict-policy/edict:0.1.0
#        scripts/image/push.sh docker://127.0.0.1:5000/edict:0.1.0 --dest-tls-verify=false
#   EDICT_IMAGE_OUT  the build's output folder (default dist/image)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out="${EDICT_IMAGE_OUT:-$repo/dist/image}"
if [ $# -lt 1 ] || [[ "$1" != docker://* ]]; then
  echo "usage: scripts/image/push.sh docker://<registry>/<repository>:<tag> [skopeo copy options]" >&2
  exit 2
fi
destination=$1
shift
[ -f "$out/oci/index.json" ] || {
  echo "push: no image in $out/oci: build it first (npm run image)" >&2
  exit 1
}
"$repo/scripts/image/ensure-tools.sh" skopeo
tag=$(node -p 'require(process.argv[1]).version' "$repo/package.json")
# --preserve-digests: fail rather than push an image whose digest differs from the layout's.
skopeo copy --quiet --preserve-digests "$@" "oci:$out/oci:$tag" "$destination" >&2
echo "pushed $(cat "$out/digest") to $destination" >&2
