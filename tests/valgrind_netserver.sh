#!/bin/sh
# netserver under Valgrind memcheck: one test of each kind against it, then
# SIGTERM. Passes when netserver exits 0 (Valgrind's --error-exitcode, 99,
# means a leak or an invalid access) and every process Valgrind watched,
# the per-connection children included, reports no errors (valgrind.supp
# holds the one report that is libbpf's way, not a fault). Runs the
# forking daemon and -f (one process); exits 77 when it cannot run.
# Usage: valgrind_netserver.sh NETSERVER NETPERF [SANITIZE]
set -u
netserver=$1
netperf=$2
case ${3:-OFF} in
ON | on | 1 | TRUE | true | YES | yes)
	echo "a sanitized build cannot run under Valgrind: skipped"
	exit 77
	;;
esac
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind is not installed: skipped"
	exit 77
fi
dir=$(mktemp -d /tmp/np-vg-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail=0

# $1: the netserver options that pick the mode.
run_mode() {
	# Emptied here, not by the redirection below, which the background
	# child may make after the loop has read the last mode's port.
	: >"$dir/ns.err"
	valgrind --leak-check=full --error-exitcode=99 --track-fds=no \
		--suppressions="$(dirname "$0")/valgrind.supp" \
		--trace-children=yes --log-file="$dir/vg.%p" \
		"$netserver" "$@" -p 0 -L 127.0.0.1 2>"$dir/ns.err" &
	vpid=$!
	port=""
	i=0
	while [ -z "$port" ] && [ $i -lt 300 ]; do
		port=$(sed -n "s/.*port '\([0-9]*\)'.*/\1/p" "$dir/ns.err")
		[ -n "$port" ] || sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$port" ]; then
		echo "netserver $* did not start"
		cat "$dir/ns.err"
		kill -KILL $vpid
		return 1
	fi
	for t in TCP_STREAM TCP_RR UDP_RR TCP_CRR UDP_STREAM; do
		if ! "$netperf" -H 127.0.0.1 -p "$port" -t $t -l 1 \
			>/dev/null 2>"$dir/np.err"; then
			echo "$t against netserver $*: $(cat "$dir/np.err")"
			fail=1
		fi
	done
	# As root, --wire: netserver's capture and its eBPF counter (each end
	# its own), then netserver's side of netperf's count for both.
	for share in 0 1; do
		if [ "$(id -u)" -eq 0 ] &&
			! NETPERF_WIRE_SHARE=$share "$netperf" -H 127.0.0.1 \
				-p "$port" -t TCP_RR -l 1 --wire \
				>/dev/null 2>"$dir/np.err"; then
			echo "TCP_RR --wire (NETPERF_WIRE_SHARE=$share) against" \
				"netserver $*: $(cat "$dir/np.err")"
			fail=1
		fi
	done
	kill -TERM $vpid
	wait $vpid
	status=$?
	if [ $status -ne 0 ]; then
		echo "netserver $* exited with status $status"
		fail=1
	fi
	for f in "$dir"/vg.*; do
		if ! grep -q "ERROR SUMMARY: 0 errors" "$f"; then
			echo "Valgrind found errors in netserver $*:"
			cat "$f"
			fail=1
		fi
	done
	echo "netserver $*: $(ls "$dir"/vg.* | wc -l) processes checked"
	rm -f "$dir"/vg.*
}

run_mode -D
run_mode -f
exit $fail
