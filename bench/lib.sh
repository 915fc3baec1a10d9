# shellcheck shell=bash
# bench/lib.sh: what bench/run, bench/wire, bench/rrfloor and
# bench/scaling share, sourced by each after it sets ROOT, BUILD and WORK
# and defines say and die. Not a program.
#
# PIDS holds every server a script starts; kill_servers ends them, by PID
# only, from the script's exit trap.
PIDS=()

# build_targets TARGET...: configures BUILD (Release) from ROOT and builds
# the targets; on failure shows the end of the build's output and dies.
build_targets() {
	local log="$WORK/build.log"

	say "building into $BUILD"
	{ cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release &&
		cmake --build "$BUILD" -j "$(nproc)" --target "$@"; } \
		>"$log" 2>&1 || {
		tail -30 "$log" >&2
		die "build failed"
	}
}

# start_netserver LOG [VAR=VALUE...] [-- OPTION...]: starts a foreground
# netserver on 127.0.0.1 and a port of the kernel's choosing, with the
# environment assignments and extra options given, under the command in
# the array WRAP if set (e.g. setpriv), its stderr in LOG;
# adds it to PIDS and sets PORT to its port once it has announced it
# (netserver announces only when ready to serve), or dies after 5 s.
start_netserver() {
	local log=$1 envs=() p
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	# Made here, so the wait below never reads a log not yet opened.
	: >"$log"
	env "${envs[@]}" ${WRAP[@]+"${WRAP[@]}"} "$NETSERVER" -D -L 127.0.0.1 \
		-p 0 "$@" 2>"$log" &
	p=$!
	PIDS+=("$p")
	PORT=""
	for _ in $(seq 50); do
		PORT=$(sed -n "s/.*port '\([0-9]*\)'.*/\1/p" "$log")
		[ -n "$PORT" ] && return 0
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	die "netserver did not start: $(cat "$log")"
}

# kill_servers: ends every server in PIDS and waits for it.
kill_servers() {
	local pid

	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	PIDS=()
}

# child_ticks PID: the CPU ticks server PID's reaped children (sessions)
# have used: cutime + cstime, fields 16 and 17 of /proc/PID/stat (14 and
# 15 after the command's closing parenthesis).
child_ticks() {
	local st
	st=$(cat "/proc/$1/stat") || die "netserver is gone"
	st=${st##*) }
	awk '{ print $14 + $15 }' <<<"$st"
}

# settled_ticks PID: waits until server PID has reaped its last session
# (its count of children's ticks stops moving), at most 2 s; prints the
# count.
settled_ticks() {
	local a b
	a=$(child_ticks "$1")
	for _ in $(seq 20); do
		sleep 0.1
		b=$(child_ticks "$1")
		[ "$a" = "$b" ] && [ -z "$(pgrep -P "$1")" ] && break
		a=$b
	done
	echo "$b"
}
