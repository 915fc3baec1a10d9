#!/bin/sh
# The Ansible playbook (deploy/ansible) for real: four network namespaces on
# a bridge are the hosts, each reached through community.docker's nsenter
# connection pointed at a holder process inside it. Two run netserver, two
# run netperf against both (mesh), all at one --start-at; the controller
# merges. Checks that every client ran, that the merged counts are the sum
# of the parts, and that every run started on time: never before, and
# less than 20 ms after once its wait for a CPU (the kernel's count, which
# other work on the machine decides) is taken away.
#
# Usage: ansible_fleet.sh NETPERF NETSERVER SRCDIR
# Needs root (namespaces) and Debian's ansible package, which it installs
# when missing (CI runs as root); exits 77 only when it cannot.
set -u
netperf=$1
netserver=$2
src=$3

skip() {
	echo "ansible_fleet: SKIP: $*"
	exit 77
}
fail() {
	echo "ansible_fleet: FAIL: $*"
	exit 1
}

[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "no ip(8)"
collections=/usr/lib/python3/dist-packages/ansible_collections
have_nsenter() {
	[ -f "$collections/community/docker/plugins/connection/nsenter.py" ] ||
		ansible-doc -t connection community.docker.nsenter \
			>/dev/null 2>&1
}
# ansible-core alone (installed by another test, or by hand) lacks the
# community collections: the full package brings them.
if ! command -v ansible-playbook >/dev/null 2>&1 || ! have_nsenter; then
	# The package is large, so it is installed by this test rather than by
	# scripts/deps, and only where the test runs.
	command -v apt-get >/dev/null || skip "no ansible-playbook and no apt-get"
	echo "ansible_fleet: installing Debian's ansible package"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends ansible >/dev/null 2>&1 ||
		skip "cannot install the ansible package"
fi
have_nsenter || skip "ansible has no community.docker.nsenter connection"

id=$$
# A private /24 from the PID, so that parallel runs cannot collide.
net=10.$((64 + (id / 256) % 64)).$((id % 256))
br=npbr$id
work=$(mktemp -d /tmp/np-ansible-XXXXXX)
holders=""

cleanup() {
	for h in 1 2 3 4; do
		f=$work/h$h/netserver.pid
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	for p in $holders; do
		kill "$p" 2>/dev/null
	done
	for h in 1 2 3 4; do
		ip netns del "npa${id}h$h" 2>/dev/null
	done
	ip link del "$br" 2>/dev/null
	[ -n "${NP_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip link add "$br" type bridge || fail "cannot make bridge $br"
ip link set "$br" up
for h in 1 2 3 4; do
	ns=npa${id}h$h
	ip netns add "$ns" || fail "cannot make namespace $ns"
	ip link add "npv${id}h$h" type veth peer name eth0 netns "$ns" ||
		fail "cannot make a veth into $ns"
	ip link set "npv${id}h$h" master "$br" up
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "$net.$h/24" dev eth0
	ip -n "$ns" link set eth0 up
	ip netns exec "$ns" sleep 300 &
	holders="$holders $!"
	mkdir -p "$work/h$h"
done

# The inventory: each host's connection enters its holder's namespaces.
inv=$work/inventory.ini
{
	echo "[netperf_servers]"
	set -- $holders
	for h in 1 2; do
		eval pid=\${$h}
		echo "h$h ansible_connection=community.docker.nsenter" \
			"ansible_nsenter_pid=$pid netperf_address=$net.$h" \
			"netperf_workdir=$work/h$h" \
			"ansible_python_interpreter=/usr/bin/python3"
	done
	echo "[netperf_clients]"
	for h in 3 4; do
		eval pid=\${$h}
		echo "h$h ansible_connection=community.docker.nsenter" \
			"ansible_nsenter_pid=$pid netperf_address=$net.$h" \
			"netperf_workdir=$work/h$h" \
			"ansible_python_interpreter=/usr/bin/python3"
	done
} >"$inv"

# netserver and netperf live in different build directories: give the
# hosts one directory holding both, as an installed system would.
mkdir -p "$work/bin"
ln -s "$netperf" "$work/bin/netperf"
ln -s "$netserver" "$work/bin/netserver"

mkdir -p "$work/results"
t0=$(date +%s)
ANSIBLE_CONFIG=$src/deploy/ansible/ansible.cfg \
	ANSIBLE_LOCAL_TEMP=$work/ansible-local \
	ANSIBLE_REMOTE_TEMP=$work/ansible-remote \
	ANSIBLE_NOCOLOR=1 \
	ansible-playbook -i "$inv" "$src/deploy/ansible/site.yml" \
	-e "netperf_bindir=$work/bin" \
	-e "netperf_controller_netperf=$netperf" \
	-e "netperf_results_dir=$work/results" \
	-e netperf_topology=mesh -e netperf_test=TCP_RR \
	-e netperf_service=foreground \
	-e netperf_length=2 -e netperf_interval=0.5 -e netperf_lead=20 \
	-e netperf_max_skew=0.02 -e netperf_server_stop=true \
	-e "netperf_args='-c -C'" \
	>"$work/play.log" 2>&1
prc=$?
t1=$(date +%s)
echo "ansible_fleet: playbook took $((t1 - t0)) s, status $prc"
if [ $prc -ne 0 ]; then
	tail -40 "$work/play.log"
	fail "ansible-playbook failed"
fi

# Every client ran against every server: four result files, none an
# error document, all with the one scheduled start.
python3 - "$work/results" <<'EOF' || { tail -30 "$work/play.log"; fail "results do not add up"; }
import json, os, sys
d = sys.argv[1]
want = ["h3--h1.json", "h3--h2.json", "h4--h1.json", "h4--h2.json"]
docs = {}
for n in want:
    p = os.path.join(d, n)
    if not os.path.exists(p):
        sys.exit("missing " + n)
    docs[n] = json.load(open(p))
    if docs[n].get("errors"):
        sys.exit(n + " failed: " + docs[n]["errors"][0])
sched = {x["timing"]["start_scheduled_ns"] for x in docs.values()}
if len(sched) != 1 or None in sched:
    sys.exit("not one scheduled start: %s" % sched)
starts = [x["timing"]["start_actual_ns"] for x in docs.values()]
for n, x in docs.items():
    t = x["timing"]
    late = t["start_actual_ns"] - t["start_scheduled_ns"]
    wait = t.get("start_cpu_wait_ns")
    if late < 0:
        sys.exit("%s started %.3f ms before its time" % (n, -late / 1e6))
    if wait is None:
        # A kernel without schedstat: the whole lateness is judged.
        print("ansible_fleet: %s: the kernel counts no wait for a CPU" % n)
        wait = 0
    print("ansible_fleet: %s started %.3f ms late, %.3f ms of it waiting "
          "for a CPU" % (n, late / 1e6, wait / 1e6))
    if not (late - wait) / 1e6 < 20:
        sys.exit("%s started %.3f ms late, only %.3f ms of it waiting for "
                 "a CPU" % (n, late / 1e6, wait / 1e6))
m = json.load(open(os.path.join(d, "merged.json")))
if m["runs"] != 4 or m["failed_runs"] != 0:
    sys.exit("merged %d runs, %d failed" % (m["runs"], m["failed_runs"]))
for side in ("local", "remote"):
    for k in ("transactions", "bytes_sent", "bytes_recv", "send_calls",
              "recv_calls"):
        parts = sum(x[side]["counts"][k] for x in docs.values())
        if m["counts"][side][k] != parts:
            sys.exit("%s %s: merged %d, parts %d" %
                     (side, k, m["counts"][side][k], parts))
if m["latency_us"]["count"] != sum(x["latency_us"]["count"]
                                   for x in docs.values()):
    sys.exit("latency counts do not add up")
skew = m["timing"]["start_skew_ms"]
spread = (max(starts) - min(starts)) / 1e6
if abs(skew - spread) > 1e-6:
    sys.exit("merge says skew %.6f ms, the files %.6f ms" % (skew, spread))
if m["throughput"]["window"] is None:
    sys.exit("no all-active window: " + str(m["throughput"]["window_note"]))
print("ansible_fleet: 4 runs, start skew %.3f ms, %d transactions" %
      (skew, m["counts"]["local"]["transactions"]))
EOF

# The foreground netservers were stopped by the play.
for h in 1 2; do
	[ -s "$work/h$h/netserver.pid" ] && fail "h$h: netserver still has a pidfile"
done

# The pairing of the other topologies, from the role's own template
# rendered with the same Jinja, without running anything.
/usr/bin/python3 - "$src/deploy/ansible/roles/netperf/tasks/plan.yml" <<'EOF' || fail "plan.yml"
import sys, jinja2, yaml
plan = yaml.safe_load(open(sys.argv[1]))
tmpl = [t for t in plan if "set_fact" in str(t.keys()) or
        "ansible.builtin.set_fact" in t][0]["ansible.builtin.set_fact"]["netperf_peers"]
env = jinja2.Environment()
groups = {"netperf_servers": ["s1", "s2"], "netperf_clients": ["c1", "c2"]}
def peers(topo, me):
    return env.from_string(tmpl).render(groups=groups, netperf_topology=topo,
                                        inventory_hostname=me).strip()
want = {("pairs", "c1"): "['s1']", ("pairs", "c2"): "['s2']",
        ("one-to-many", "c1"): "['s1']", ("one-to-many", "c2"): "['s1']",
        ("mesh", "c1"): "['s1', 's2']"}
for (topo, me), w in want.items():
    got = peers(topo, me)
    if got != w:
        sys.exit("%s %s: %s, want %s" % (topo, me, got, w))
groups["netperf_servers"] = ["a", "b", "c"]
if peers("mesh", "b") != "['a', 'c']":
    sys.exit("mesh leaves out the host itself: " + peers("mesh", "b"))
EOF
echo "ansible_fleet: PASS"
exit 0
