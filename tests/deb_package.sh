#!/bin/sh
# The Debian package as an operator meets it: dpkg-buildpackage builds
# netperf and netserver from a copy of the tree, lintian finds no error or
# warning, dpkg installs both, the installed programs and man pages answer
# from their installed paths, a netserver started from the installed
# unit's ExecStart line (with /etc/default/netserver's options) serves a
# TCP_RR to the installed netperf, and a purge leaves none of it behind.
# Usage: deb_package.sh SOURCE_DIR
set -eu
src=$(cd "$1" && pwd)
skip() { echo "skipped: deb_package: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "installing a package needs root"
for tool in dpkg-buildpackage dh lintian man; do
	command -v "$tool" >/dev/null 2>&1 ||
		skip "$tool is missing (scripts/deps installs it)"
done
# A netperf or netserver installed by someone else is theirs: never
# replaced or purged here.
for pkg in netperf netserver; do
	if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
		grep -q "install ok installed"; then
		skip "package $pkg is installed already; not touching it"
	fi
done

work=$(mktemp -d /tmp/np-deb-XXXXXX)
server=""
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	dpkg --purge netperf netserver >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "deb_package: $*"; exit 1; }

mkdir "$work/src"
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./obj-\* \
	-cf - . | tar -C "$work/src" -xf -
(cd "$work/src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
	{ tail -20 "$work/build.log"; fail "dpkg-buildpackage failed"; }
echo "built:" "$work"/*.deb
lintian --fail-on error,warning "$work"/*.changes ||
	fail "lintian reports errors or warnings"
echo "lintian: no errors, no warnings"

# Installed the way a fleet installs it, by the Ansible role's deb mode,
# where Ansible is here (tests/ansible_fleet.sh installs it); by dpkg
# where it is not.
if command -v ansible-playbook >/dev/null 2>&1; then
	cat >"$work/deb.yml" <<PLAY
- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - ansible.builtin.include_role:
        name: netperf
        tasks_from: deb
      vars:
        netperf_deb_dir: $work
        netperf_workdir: $work/host
    - ansible.builtin.assert:
        that: netperf_sbindir == '/usr/sbin' and netperf_bindir == '/usr/bin'
PLAY
	mkdir "$work/host"
	ANSIBLE_CONFIG=$src/deploy/ansible/ansible.cfg \
		ANSIBLE_ROLES_PATH=$src/deploy/ansible/roles \
		ANSIBLE_LOCAL_TEMP=$work/ansible-local ANSIBLE_NOCOLOR=1 \
		ansible-playbook -i localhost, "$work/deb.yml" >"$work/play.log" 2>&1 ||
		{ tail -30 "$work/play.log"; fail "the role's deb install failed"; }
	echo "installed by deploy/ansible's netperf_install: deb"
else
	dpkg -i "$work/netperf_"*_*.deb "$work/netserver_"*_*.deb >/dev/null ||
		fail "dpkg -i failed"
	echo "installed by dpkg -i (no ansible-playbook here for the role)"
fi
/usr/bin/netperf -V | grep -q '^Netperf version 3' ||
	fail "/usr/bin/netperf -V: $(/usr/bin/netperf -V 2>&1)"
/usr/sbin/netserver -V >/dev/null || fail "/usr/sbin/netserver -V failed"
for page in netperf netserver; do
	case $(man -w "$page") in
	/usr/share/man/*) ;;
	*) fail "man -w $page: $(man -w "$page" 2>&1)" ;;
	esac
done
[ -f /etc/default/netserver ] || fail "no /etc/default/netserver"
[ -f /usr/share/bash-completion/completions/netperf ] ||
	fail "no bash completion"

# The unit's last ExecStart wins: the drop-in's, which reads
# /etc/default/netserver. It runs here as systemd would, with the
# environment file's variables, on a free loopback port.
unit=/lib/systemd/system/netserver.service
exec_start=$(cat "$unit" "$unit.d"/*.conf | sed -n 's/^ExecStart=\(..*\)/\1/p' |
	tail -1)
case $exec_start in
/usr/sbin/netserver\ -D*) ;;
*) fail "unexpected ExecStart: $exec_start" ;;
esac
# shellcheck disable=SC1091
. /etc/default/netserver
cmd=$(printf '%s' "$exec_start" | sed "s#\$NETSERVER_ARGS#$NETSERVER_ARGS#")
# shellcheck disable=SC2086
$cmd -L 127.0.0.1 -p 0 2>"$work/server.log" &
server=$!
port=""
for _ in $(seq 50); do
	port=$(sed -n "s/.*port '\([0-9]*\)'.*/\1/p" "$work/server.log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { cat "$work/server.log"; fail "netserver did not start"; }
rate=$(/usr/bin/netperf -H 127.0.0.1 -p "$port" -t TCP_RR -l 1 -P 0 -v 0) ||
	fail "TCP_RR against the installed netserver failed"
awk -v r="$rate" 'BEGIN { exit !(r + 0 > 0) }' ||
	fail "TCP_RR gave \"$rate\" transactions/s"
echo "installed netserver from \"$exec_start\": TCP_RR $rate trans/s"
kill "$server"
wait "$server" 2>/dev/null || true
server=""

dpkg --purge netperf netserver >/dev/null || fail "dpkg --purge failed"
for f in /usr/bin/netperf /usr/sbin/netserver /etc/default/netserver \
	"$unit" /usr/share/man/man1/netperf.1.gz; do
	[ ! -e "$f" ] || fail "$f is left after the purge"
done
echo "purged: nothing left"
