#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh: what 'make install' and 'make deb' give a host.  The files
# land where the tools that read them look (ip's plugin directory, man,
# bash-completion, pkg-config, systemd); the mark header builds a client
# with nothing but what was installed; the packages pass lintian.
# Needs make tools first (selftests/run's callers build).
source "$(dirname "$0")/../lib/lib.sh"

MULTIARCH=$(gcc -print-multiarch)
dest=

# install_to VAR [MAKE ARGS...]: a fresh make install into a new
# directory, named in VAR; "@" in ARGS stands for it.
install_to() {
	local -n _dir=$1
	local args=()
	shift
	_dir=$(mktemp -d)
	args=("${@//@/$_dir}")
	make -s -C "$MPLANE_ROOT" install "${args[@]}" >/dev/null ||
		fail "make install ${args[*]} failed"
}

test_layout() {
	local f missing=()

	install_to dest DESTDIR=@ PREFIX=/usr
	trap 'rm -rf "$dest"' EXIT
	for f in usr/sbin/mplanectl \
		"usr/lib/$MULTIARCH/ip/link_mplane.so" \
		usr/share/man/man8/mplanectl.8 usr/share/man/man4/mplane.4 \
		usr/share/bash-completion/completions/mplanectl \
		usr/include/mplane/mplane_mark.h \
		"usr/lib/$MULTIARCH/pkgconfig/mplane-mark.pc" \
		usr/lib/systemd/system/mplane-exporter.service \
		usr/lib/systemd/system/mplane-link@.service \
		usr/share/mplane/expect.conf usr/share/mplane/torch/launch.sh \
		usr/share/mplane/grafana/mplane.json \
		usr/share/doc/mplane/README.md usr/share/doc/mplane/examples/mp0.conf; do
		[ -f "$dest/$f" ] || missing+=("$f")
	done
	assert_eq "missing files" "${missing[*]}" ""
	assert_eq "slave plugin" \
		"$(readlink "$dest/usr/lib/$MULTIARCH/ip/link_mplane_slave.so")" \
		link_mplane.so
	# No installed text names the build tree (binaries keep it in their
	# debug information, which packages strip).
	f=$(grep -rlI -- "$MPLANE_ROOT" "$dest" || true)
	assert_eq "files naming the build tree" "$f" ""
}

# The man pages render without a warning, and mplane(4) documents every
# setting ip and mplanectl take.
test_man_pages() {
	local page out kw missing=()

	for page in mplanectl.8 mplane.4; do
		out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
			man --warnings -E UTF-8 -l "$MPLANE_ROOT/Documentation/$page" 2>&1 >/dev/null)
		assert_eq "warnings of $page" "$out" ""
	done
	for kw in $("$MPLANE_BUILD/mplanectl" link add --help |
		awk '/^Settings/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
		grep -q "^\.B[IR]* ${kw//-/\\\\-}\b" "$MPLANE_ROOT/Documentation/mplane.4" ||
			missing+=("$kw")
	done
	assert_eq "settings missing from mplane(4)" "${missing[*]}" ""
	grep -q '^\.SH FILES' "$MPLANE_ROOT/Documentation/mplanectl.8" ||
		fail "mplanectl(8) has no FILES"
}

# A program built with only the installed header and pkg-config file
# sends a mark the server's protocol accepts.
test_mark_client_from_install() {
	local cflags sock got

	install_to dest DESTDIR=@ PREFIX=/usr
	trap 'rm -rf "$dest"' EXIT
	cflags=$(PKG_CONFIG_SYSROOT_DIR=$dest \
		PKG_CONFIG_LIBDIR=$dest/usr/lib/$MULTIARCH/pkgconfig \
		pkg-config --cflags mplane-mark) || fail "pkg-config finds no mplane-mark"
	assert_eq "cflags" "${cflags% }" "-I$dest/usr/include/mplane"
	cat >"$dest/client.c" <<-'EOF'
		#include <stdio.h>
		#include <mplane_mark.h>
		int main(int argc, char **argv)
		{
			int fd = mplane_mark_open(argv[1]);

			if (fd < 0 || argc < 2)
				return 1;
			return mplane_mark(fd, MPLANE_MARK_STEP, 42) ? 1 : 0;
		}
	EOF
	# Only the installed header and the C library: no -I of the tree.
	gcc -Wall -Werror $cflags -o "$dest/client" "$dest/client.c" ||
		fail "the installed header does not build a client"
	sock=$dest/mark.sock
	got=$(python3 - "$sock" "$dest/client" <<-'EOF'
		import socket, struct, subprocess, sys
		s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
		s.bind(sys.argv[1])
		rc = subprocess.call([sys.argv[2], sys.argv[1]])
		s.settimeout(5)
		d = s.recv(4096)
		magic, = struct.unpack_from("=I", d)
		print(rc, hex(magic), len(d))
	EOF
	)
	[[ $got == "0 0x4d504d4b "* ]] || fail "the mark datagram: $got"
}

test_completion() {
	local got

	[ -f /usr/share/bash-completion/bash_completion ] ||
		skip "no bash-completion (scripts/deps.sh package)"
	got=$(PATH=$MPLANE_BUILD:$PATH bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1"
		c() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		      COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
		      _mplanectl mplanectl "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
		      echo "${COMPREPLY[*]}"; }
		c mplanectl tele
		c mplanectl -j link ""
		c mplanectl link add mp0 policy ""
		c mplanectl link set mp0 cnp-int
		c mplanectl telemetry export --li' _ \
		"$MPLANE_ROOT/tools/completion/mplanectl.bash")
	assert_eq "completions" "$got" "telemetry
show add set del plane monitor
flowlet hash rr spray
cnp-interval
--listen"
}

# systemd reads the units without a complaint (binaries as installed).
test_units_verify() {
	local out

	install_to dest PREFIX=@
	trap 'rm -rf "$dest"' EXIT
	out=$(systemd-analyze verify --man=no \
		"$dest/lib/systemd/system/mplane-exporter.service" \
		"$dest/lib/systemd/system/mplane-link@.service" 2>&1) ||
		fail "systemd-analyze: $out"
	assert_eq "systemd-analyze's complaints" "$out" ""
	grep -q "^ExecStart=$dest/sbin/mplanectl telemetry export" \
		"$dest/lib/systemd/system/mplane-exporter.service" ||
		fail "ExecStart does not name the installed mplanectl"
}

# The packages build from a copy of the tree and pass lintian: no error
# and no warning.
test_deb_lintian() {
	local out

	command -v lintian >/dev/null || skip "no lintian (scripts/deps.sh package)"
	make -s -C "$MPLANE_ROOT" deb >/dev/null || fail "make deb failed"
	out=$(lintian --tag-display-limit 0 "$MPLANE_BUILD"/deb/mplane-tools_*.deb \
		"$MPLANE_BUILD"/deb/mplane-dkms_*.deb 2>&1 | grep -E '^[EW]: ' || true)
	assert_eq "lintian" "$out" ""
	out=$(dpkg-deb -c "$MPLANE_BUILD"/deb/mplane-dkms_*.deb)
	[[ $out == *"usr/src/mplane-$(<"$MPLANE_ROOT/VERSION")/dkms.conf"* ]] ||
		fail "mplane-dkms has no dkms.conf"
	dpkg-deb -f "$MPLANE_BUILD"/deb/mplane-dkms_*.deb Depends | grep -q dkms ||
		fail "mplane-dkms does not depend on dkms"
}

ktap_run \
	test_layout \
	test_man_pages \
	test_mark_client_from_install \
	test_completion \
	test_units_verify \
	test_deb_lintian
