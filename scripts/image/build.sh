#!/usr/bin/env bash
# Builds Edict's container image without a daemon, reproducibly, as an OCI image layout
# (docs/image.md). Four layers, each a tar with sorted entries, numeric owners, every mtime set to
# SOURCE_DATE_EPOCH and no atime/ctime, compressed by `gzip -n` (no name or time in the header):
#   1. a root filesystem of Debian packages (mmdebstrap, variant extract: the C and C++ runtimes Node
#      links against, base-files and netbase; no shell, no package manager), the users root and
#      nonroot (65532), and dpkg status entries so that scanners see the packages;
#   2. Node: this machine's own binary (Debian's nodejs is 18, below the 20.19 Edict needs; the
#      registries reachable here serve no other Node build), checked to be >= 20.19 and to need only
#      libraries of layer 1;
#   3. the production node_modules (`npm ci --omit=dev` from package-lock.json);
#   4. the bundles (four controllers, launcher, CLI), the entry point, the chart's CRDs and RBAC rule
#      files and the examples the launcher installs; /usr/local/bin/edict runs the CLI.
# Layers 1-3 are cached in the output folder by a hash of what makes them (the Debian package list
# and this script, the Node binary, package.json and package-lock.json), so a second build redoes
# only the bundles. Same inputs, same digest.
#
# Usage: scripts/image/build.sh          (npm run image)
#   EDICT_IMAGE_OUT       output folder (default dist/image): oci/ is the layout, digest its manifest's
#   EDICT_IMAGE_NODE      the Node binary to ship (default: the `node` on PATH)
#   EDICT_DEBIAN_MIRROR   Debian mirror (default http://deb.debian.org/debian), EDICT_DEBIAN_SUITE (bookworm)
#   SOURCE_DATE_EPOCH     every timestamp in the image (default 1704067200, 2024-01-01T00:00:00Z)
# Needs root (CI runs as root): the layers keep numeric owners, and mmdebstrap installs as root.
set -euo pipefail
umask 022
export LC_ALL=C TZ=UTC

repo=$(cd "$(dirname "$0")/../.." && pwd)
here="$repo/scripts/image"
out=$(realpath -m "${EDICT_IMAGE_OUT:-$repo/dist/image}")
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-1704067200}"
mirror="${EDICT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite="${EDICT_DEBIAN_SUITE:-bookworm}"
# What Node needs at run time (ldd /usr/bin/node: libc, libm, libdl, libpthread, libstdc++, libgcc_s),
# plus /etc/os-release and the like (base-files) and /etc/services and /etc/protocols (netbase).
debian_packages=(base-files netbase libc6 libgcc-s1 libstdc++6)
nonroot_uid=65532

say() { echo "image: $*" >&2; }
fail() {
  echo "image: $*" >&2
  exit 1
}
start=$(date +%s)

[ "$(id -u)" -eq 0 ] || fail "run as root (CI does), e.g. sudo -E npm run image: the layers keep numeric owners"
[ "$(uname -m)" = x86_64 ] || fail "builds linux/amd64 only; this machine is $(uname -m)"
"$here/ensure-tools.sh" mmdebstrap

node_bin=$(realpath "${EDICT_IMAGE_NODE:-$(command -v node)}")
node_version=$("$node_bin" --version)
node -e 'const [a,b]=process.argv[1].slice(1).split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  "$node_version" || fail "$node_bin is Node $node_version; the image needs Node >= 20.19"
version=$(node -p 'require(process.argv[1]).version' "$repo/package.json")

# No layout of an earlier build survives a failed one.
rm -rf "$out/oci" "$out/digest"
mkdir -p "$out/cache"
work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Writes the tar of folder $1 (its entries, not the folder) to $2: sorted, numeric owners, fixed times.
reproducible_tar() {
  local entries
  mapfile -t entries < <(find "$1" -mindepth 1 -maxdepth 1 -printf '%P\n' | sort)
  tar --create --file="$2" --directory="$1" --sort=name --format=posix --numeric-owner \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    --mtime="@$SOURCE_DATE_EPOCH" -- "${entries[@]}"
}

layers=()
# layer NAME KEY FUNCTION: the layer FUNCTION fills (its argument: an empty folder) as a compressed
# blob, reused from the cache when a layer of that NAME was made from the same KEY.
layer() {
  local name=$1 key=$2 fill=$3 cached="$out/cache/$1-$2"
  if [ -f "$cached.blob" ] && [ -f "$cached.line" ]; then
    say "$name: cached ($key)"
  else
    local t0 stage
    t0=$(date +%s)
    stage="$work/$name"
    mkdir -p "$stage"
    "$fill" "$stage"
    reproducible_tar "$stage" "$work/$name.tar"
    local diff_id digest
    diff_id=$(sha256sum "$work/$name.tar" | cut -d' ' -f1)
    gzip -n -6 -c "$work/$name.tar" >"$work/$name.tar.gz"
    digest=$(sha256sum "$work/$name.tar.gz" | cut -d' ' -f1)
    rm -rf "$out/cache/$name-"* "$stage" "$work/$name.tar"
    mv "$work/$name.tar.gz" "$cached.blob"
    echo "$name sha256:$diff_id sha256:$digest $(stat -c %s "$cached.blob")" >"$cached.line"
    say "$name: built in $(($(date +%s) - t0)) s"
  fi
  layers+=("$cached")
}

hash_of() { cat "$@" | sha256sum | cut -c1-16; }

fill_rootfs() {
  local root=$1 debs="$work/debs"
  mkdir -p "$debs"
  mmdebstrap --quiet --mode=root --variant=extract --include="$(
    IFS=,
    echo "${debian_packages[*]}"
  )" \
    --extract-hook="cp \"\$1\"/var/cache/apt/archives/*.deb '$debs/'" \
    "$suite" "$root" "$mirror"
  # What a container runtime provides, or what names this machine, is not the image's.
  rm -rf "$root"/dev/* "$root"/etc/hostname "$root"/etc/resolv.conf "$root"/var/log/* \
    "$root"/var/cache/apt "$root"/var/lib/apt "$root"/etc/apt
  # Manuals and docs go; the copyright files stay (the packages' licences ask for them).
  rm -rf "$root"/usr/share/man "$root"/usr/share/info
  find "$root/usr/share/doc" -mindepth 2 ! -name copyright -delete 2>/dev/null || true
  # dpkg status entries, one file per package, where image scanners look in images without dpkg.
  mkdir -p "$root/var/lib/dpkg/status.d"
  local deb package
  for deb in "$debs"/*.deb; do
    package=$(dpkg-deb --field "$deb" Package)
    { dpkg-deb --field "$deb" Package Version Architecture Maintainer Source Installed-Size Depends Pre-Depends Description \
      | grep -v '^ ' | grep -v '^Description:'; echo 'Status: install ok installed'; } \
      >"$root/var/lib/dpkg/status.d/$package"
  done
  # The users: root, and nonroot (65532) that the image runs as, without a login shell.
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n' \
    "$nonroot_uid" "$nonroot_uid" >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:%d:\n' "$nonroot_uid" >"$root/etc/group"
  mkdir -p "$root/home/nonroot"
  chown "$nonroot_uid:$nonroot_uid" "$root/home/nonroot"
  chmod 1777 "$root/tmp"
}

fill_node() {
  # Every library Node links against must come from layer 1.
  local lib
  for lib in $(ldd "$node_bin" | awk '$1 ~ /\.so/ && $1 !~ /^linux-vdso/ {print $1}'); do
    lib=${lib##*/}
    grep -qxF -e "lib/x86_64-linux-gnu/$lib" -e "usr/lib/x86_64-linux-gnu/$lib" -e "lib64/$lib" "$work/debian-files" ||
      fail "$node_bin needs $lib, which the Debian layer lacks"
  done
  install -D -m 0755 "$node_bin" "$1/usr/bin/node"
}

fill_dependencies() {
  mkdir -p "$1/app"
  cp "$repo/package.json" "$repo/package-lock.json" "$1/app/"
  (cd "$1/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error >&2)
}

fill_app() {
  local app="$1/app" name
  mkdir -p "$app/dist/apps" "$app/docker" "$app/charts/edict" "$1/usr/local/bin"
  for name in admission-controller background-controller reports-controller cleanup-controller launcher cli; do
    cp -r "$repo/dist/apps/$name" "$app/dist/apps/$name"
  done
  cp "$repo/docker/entrypoint.mjs" "$app/docker/"
  cp -r "$repo/charts/edict/files" "$app/charts/edict/"
  cp -r "$repo/examples" "$app/examples"
  printf '#!/usr/bin/node\n// The Edict CLI.\nrequire("/app/dist/apps/cli/main.js");\n' >"$1/usr/local/bin/edict"
  chmod -R u+rwX,go+rX,go-w "$1"
  chmod 0755 "$1/usr/local/bin/edict"
}

# Layer 1 first: the Node layer checks its libraries against it.
layer debian "$(hash_of <(echo "$suite $mirror ${debian_packages[*]} $SOURCE_DATE_EPOCH") "$0")" fill_rootfs
tar --list --gzip --file="${layers[0]}.blob" >"$work/debian-files"
layer node "$(hash_of "$node_bin" <(echo "$SOURCE_DATE_EPOCH") "$0")" fill_node
layer dependencies "$(hash_of "$repo/package.json" "$repo/package-lock.json" <(npm --version; echo "$SOURCE_DATE_EPOCH") "$0")" \
  fill_dependencies

say "bundling the controllers, the launcher and the CLI"
t0=$(date +%s)
node "$here/bundle.cjs" >&2
say "bundled in $(($(date +%s) - t0)) s"
rm -f "$out/cache/app-"*
layer app "$(date +%s%N)" fill_app

digest=$(node "$here/layout.mjs" "$out/oci" "$version" "${layers[@]/%/.line}")
echo "$digest" >"$out/digest"
size=$(du -cb "${layers[@]/%/.blob}" | tail -1 | cut -f1)
say "built oci:$out/oci:$version, $digest, $((size / 1024 / 1024)) MiB compressed, in $(($(date +%s) - start)) s"
echo "$digest"
