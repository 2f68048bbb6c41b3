#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh RELEASE MODDIR OUT: a busybox initramfs that loads just
# what the guest needs to mount this host's root over virtio-9p, then hands
# over to selftests/vm/guest-init.sh on that root.  The module list and its
# load order come from the kernel's own modules.dep (modprobe
# --show-depends), so a kernel that builds virtio or 9p in needs no change.
set -euo pipefail

release=$1 moddir=$2 out=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# busybox-static installs a static /bin/busybox; a dynamic one cannot run
# in an initramfs without its libraries.
busybox=/bin/busybox
[ -x "$busybox" ] && ! readelf -l "$busybox" | grep -q INTERP ||
	{ echo "mkinitramfs: need a static $busybox (busybox-static, make deps)" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,newroot,modules}
cp "$busybox" "$stage/bin/busybox"

n=10
for m in virtio_pci 9pnet_virtio 9p; do
	modprobe -d "$moddir" -S "$release" --show-depends "$m"
done |
	awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
while read -r ko; do
	name=$(basename "$ko"); name=${name%%.ko*}
	src=$moddir/${ko#/}
	[ -f "$src" ] || src=$ko
	case "$ko" in
	*.ko.xz)  xz -dc "$src" >"$stage/modules/$n-$name.ko" ;;
	*.ko.zst) zstd -qdc "$src" >"$stage/modules/$n-$name.ko" ;;
	*.ko.gz)  gzip -dc "$src" >"$stage/modules/$n-$name.ko" ;;
	*)        cp "$src" "$stage/modules/$n-$name.ko" ;;
	esac
	n=$((n + 1))
done

install -m 0755 "$here/initramfs-init" "$stage/init"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
