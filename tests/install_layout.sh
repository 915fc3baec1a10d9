#!/bin/sh
# cmake --install into a scratch prefix: the programs, the man pages and
# the systemd unit land where they belong, and the unit passes
# "systemd-analyze verify" when systemd-analyze is there.
# Usage: install_layout.sh CMAKE BUILD_DIR
set -eu
cmake=$1
build=$2
prefix=$(mktemp -d /tmp/np-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
for f in bin/netperf sbin/netserver share/man/man1/netperf.1 \
	share/man/man8/netserver.8 lib/systemd/system/netserver.service \
	share/bash-completion/completions/netperf \
	share/bash-completion/completions/netserver; do
	if [ ! -f "$prefix/$f" ]; then
		echo "not installed: $f"
		exit 1
	fi
done
"$prefix/sbin/netserver" -V
# The installed completion registers both programs with bash.
for cmd in netperf netserver; do
	bash --norc -c ". '$prefix/share/bash-completion/completions/$cmd' &&
		complete -p netperf && complete -p netserver" >/dev/null || {
		echo "completion for $cmd does not register both programs"
		exit 1
	}
done
unit=$prefix/lib/systemd/system/netserver.service
for want in '^ExecStart=/.*/sbin/netserver -D$' '^DynamicUser=yes$' \
	'^NoNewPrivileges=yes$' '^ProtectSystem=strict$' \
	'^Restart=on-failure$' '^CapabilityBoundingSet=$'; do
	if ! grep -q "$want" "$unit"; then
		echo "$unit lacks $want"
		exit 1
	fi
done
if command -v systemd-analyze >/dev/null 2>&1; then
	# The unit names the netserver of the configured prefix; check it
	# against the one just installed.
	mkdir "$prefix/verify"
	sed "s#^ExecStart=[^ ]*/netserver#ExecStart=$prefix/sbin/netserver#" \
		"$unit" >"$prefix/verify/netserver.service"
	systemd-analyze verify --man=no "$prefix/verify/netserver.service"
	echo "systemd-analyze verify: OK"
else
	echo "systemd-analyze not found: unit not verified"
fi
