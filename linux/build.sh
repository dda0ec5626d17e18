#!/bin/bash
# Build the Rewind guest kernel reproducibly: linux/build.sh OUT
#
# Debian's linux-source-6.12 + patches/series + the ABI header
# (include/rewind/abi.h, installed as <asm/rewind_abi.h>) + tinyconfig and
# config.fragment -> bzImage at OUT.
#
# Results are cached in ${REWIND_CACHE:-$HOME/.cache/rewind}/kernel/<key>/
# where <key> hashes every input; a hit only copies the bzImage (and its
# System.map, as OUT.map).
#
# Environment:
#   REWIND_CACHE             cache root (default $HOME/.cache/rewind)
#   REWIND_KERNEL_JOBS       make -j (default: nproc)
#   REWIND_KERNEL_KEEP_TREE  1: keep one patched tree in the cache
#                            (kernel/tree) for fast incremental rebuilds
#   REWIND_KERNEL_TARBALL    source tarball (default the Debian package's)
set -euo pipefail

die() {
	echo "linux/build.sh: error: $*" >&2
	exit 1
}
log() { echo "linux/build.sh: $*" >&2; }

[ $# -eq 1 ] || die "usage: linux/build.sh OUT"
out=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
abi=$root/include/rewind/abi.h
tarball=${REWIND_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
cache=${REWIND_CACHE:-$HOME/.cache/rewind}/kernel
jobs=${REWIND_KERNEL_JOBS:-$(nproc)}

# --- inputs -----------------------------------------------------------------
[ -r "$tarball" ] || die "$tarball not found: install linux-source-6.12 (run make deps)"
[ -r "$abi" ] || die "$abi not found"
[ -r "$here/patches/series" ] || die "$here/patches/series not found"
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/patches/series")
for p in "${patches[@]}"; do
	[ -r "$here/patches/$p" ] || die "patch $p listed in series not found"
done
for tool in gcc ld make flex bison bc perl xz tar patch sha256sum; do
	command -v "$tool" >/dev/null || die "$tool not found (run make deps)"
done
[ -e /usr/include/gelf.h ] || die "libelf headers not found: install libelf-dev (run make deps)"

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
key=$({
	echo "rewind-kernel-v1"
	echo "tarball $(stat -c '%s %Y' "$tarball") $pkgver"
	gcc --version | head -n1
	ld --version | head -n1
	for p in "${patches[@]}"; do sha256sum <"$here/patches/$p"; done
	sha256sum <"$here/patches/series"
	sha256sum <"$here/config.fragment"
	sha256sum <"$here/build.sh"
	sha256sum <"$abi"
} | sha256sum | cut -c1-24)
entry=$cache/$key

# The bzImage, and beside it its System.map as OUT.map: a stuck run's report
# names the kernel function from it (vmm/kernel_map.c). The map goes first,
# so a bzImage never sits beside another kernel's map.
install_out() {
	mkdir -p "$(dirname "$out")"
	rm -f "$out.map"
	if [ -f "$entry/System.map" ]; then
		cp "$entry/System.map" "$out.map.tmp.$$" && mv -f "$out.map.tmp.$$" "$out.map"
	fi
	cp "$entry/bzImage" "$out.tmp.$$" && mv -f "$out.tmp.$$" "$out"
}

if [ -f "$entry/bzImage" ]; then
	install_out
	log "cached $entry/bzImage -> $out"
	exit 0
fi

# --- build ------------------------------------------------------------------
# A parent `make -jN` hands its jobserver down; the kernel build runs its own
# -j and must not warn about it (a warning fails the build below).
unset MAKEFLAGS MFLAGS MAKELEVEL
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # one build at a time per cache
if [ -f "$entry/bzImage" ]; then # built meanwhile by someone else
	install_out
	exit 0
fi

export KBUILD_BUILD_USER=rewind KBUILD_BUILD_HOST=rewind
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 1970"
export KBUILD_BUILD_VERSION=1 LOCALVERSION=
export LC_ALL=C TZ=UTC

srcid="$(stat -c '%s %Y' "$tarball") $pkgver"
fresh_tree() { # $1: parent directory
	log "extracting $tarball (~25 s)"
	rm -rf "$1/linux-source-6.12" "$1/mtimes"
	tar -xf "$tarball" -C "$1" || die "extracting $tarball failed"
	tree=$1/linux-source-6.12
	mkdir "$tree/.rewind-applied"
	echo "$srcid" >"$tree/.rewind-applied/source"
}

if [ "${REWIND_KERNEL_KEEP_TREE:-0}" = 1 ]; then
	work=$cache/tree
	mkdir -p "$work"
	tree=$work/linux-source-6.12
	# Reuse the tree: undo the patches it has, unless anything looks odd.
	if [ -f "$tree/.rewind-applied/source" ] &&
		[ "$(cat "$tree/.rewind-applied/source")" = "$srcid" ] &&
		[ -f "$tree/.rewind-applied/series" ]; then
		log "reusing $tree"
		ok=1
		# Remember the files the patches touch, to give those whose
		# content comes back unchanged their old mtime (no rebuild).
		(cd "$tree" && sed -n 's|^+++ b/||p' .rewind-applied/*.patch "${patches[@]/#/$here/patches/}" |
			sort -u | while read -r f; do
				[ -f "$f" ] && echo "$(stat -c %Y "$f") $(sha256sum <"$f" | cut -c1-64) $f"
			done) >"$work/mtimes"
		mapfile -t old < <(tac "$tree/.rewind-applied/series")
		for p in "${old[@]}"; do
			patch -d "$tree" -p1 -R -s --batch <"$tree/.rewind-applied/$p" >/dev/null || {
				ok=0
				break
			}
		done
		rm -f "$tree/.rewind-applied/series" "$tree/.rewind-applied/"*.patch
		[ $ok = 1 ] || fresh_tree "$work"
	else
		fresh_tree "$work"
	fi
else
	work=$(mktemp -d "$cache/.work-XXXXXX")
	trap 'rm -rf "$work"' EXIT
	fresh_tree "$work"
fi

for p in "${patches[@]}"; do
	log "applying $p"
	patch -d "$tree" -p1 -s --batch --forward <"$here/patches/$p" ||
		die "patch $p does not apply to linux-source-6.12 ($pkgver)"
	cp "$here/patches/$p" "$tree/.rewind-applied/$p"
	echo "$p" >>"$tree/.rewind-applied/series"
done
cmp -s "$abi" "$tree/arch/x86/include/uapi/asm/rewind_abi.h" ||
	cp "$abi" "$tree/arch/x86/include/uapi/asm/rewind_abi.h"
if [ -f "$work/mtimes" ]; then
	while read -r mtime sum f; do
		[ -f "$tree/$f" ] && [ "$(sha256sum <"$tree/$f" | cut -c1-64)" = "$sum" ] &&
			touch -d "@$mtime" "$tree/$f"
	done <"$work/mtimes"
	rm -f "$work/mtimes"
fi

log "configuring: tinyconfig + config.fragment"
(
	cd "$tree"
	make -s tinyconfig >/dev/null
	scripts/kconfig/merge_config.sh -m .config "$here/config.fragment" >/dev/null
	make -s olddefconfig
) || die "configuring the kernel failed"

lost=
while read -r line; do
	case $line in
	CONFIG_*=y) grep -qx "$line" "$tree/.config" || lost="$lost ${line%=y}" ;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym% is not set}
		grep -q "^$sym=" "$tree/.config" && lost="$lost $sym(should be off)"
		;;
	esac
done <"$here/config.fragment"
[ -z "$lost" ] || die "config.fragment settings lost in olddefconfig:$lost"

log "make -j$jobs bzImage (a cold build takes ~8 min on 2 cores)"
start=$(date +%s)
if ! make -C "$tree" -j"$jobs" bzImage >"$work/build.log" 2>&1; then
	grep -E 'error|Error' "$work/build.log" | head -n 30 >&2 || true
	die "kernel build failed, log: $work/build.log (kept: REWIND_KERNEL_KEEP_TREE=1 keeps it)"
fi
if grep -q 'warning:' "$work/build.log"; then
	grep 'warning:' "$work/build.log" >&2
	die "the kernel build has warnings (see above)"
fi
log "built in $(($(date +%s) - start)) s"

stage=$(mktemp -d "$cache/.entry-XXXXXX")
cp "$tree/arch/x86/boot/bzImage" "$stage/bzImage"
cp "$tree/.config" "$stage/config"
cp "$work/build.log" "$stage/build.log"
[ -f "$tree/System.map" ] && cp "$tree/System.map" "$stage/System.map"
chmod 755 "$stage"
mv -T "$stage" "$entry" 2>/dev/null || rm -rf "$stage" # lost a race: same content
install_out
log "$entry/bzImage -> $out"
