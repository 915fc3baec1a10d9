# bench/summary.jq: turns bench/run's samples into the result document:
# per-tool medians, and for every comparable pair the ratio ours/theirs in
# each round (the two ran back to back), its median and its spread.
# Run by bench/run as jq -n --argjson meta M --slurpfile samples S: meta
# holds what bench/run knew about the run (kept as .meta in the result, so
# bench/run --report can recompute everything from a result file).

include "stats";

def field($f): if $f == "value" then .value else .raw[$f] end;

# Every comparison: ours and theirs name a group, a tool and a field;
# a placement in either pins that side to one placement (else the pair is
# made in each placement where both ran). better: which way is good for us.
def pairs: [
  {order: 1, label: "TCP_STREAM 128K / iperf3 -l 128K",
   ours: {group: "tcp_stream_128K", tool: "netperf"},
   theirs: {group: "tcp_stream_128K", tool: "iperf3"}},
  {order: 2, label: "TCP_STREAM 128K / qperf tcp_bw 128K",
   ours: {group: "tcp_stream_128K", tool: "netperf"},
   theirs: {group: "tcp_stream_128K", tool: "qperf"}},
  {order: 3, label: "TCP_STREAM 16K / iperf3 -l 16K",
   ours: {group: "tcp_stream_16K", tool: "netperf"},
   theirs: {group: "tcp_stream_16K", tool: "iperf3"}},
  {order: 4, label: "TCP_STREAM 16K / qperf tcp_bw 16K",
   ours: {group: "tcp_stream_16K", tool: "netperf"},
   theirs: {group: "tcp_stream_16K", tool: "qperf"}},
  {order: 5, label: "TCP_STREAM 128K / floor",
   ours: {group: "tcp_stream_128K", tool: "netperf"},
   theirs: {group: "tcp_stream_128K", tool: "floor"}},
  {order: 6, label: "TCP_RR / qperf tcp_lat",
   ours: {group: "tcp_rr", tool: "netperf"},
   theirs: {group: "tcp_rr", tool: "qperf"}},
  {order: 7, label: "TCP_RR / sockperf pp --tcp",
   ours: {group: "tcp_rr", tool: "netperf"},
   theirs: {group: "tcp_rr", tool: "sockperf"}},
  {order: 8, label: "TCP_RR / floor",
   ours: {group: "tcp_rr", tool: "netperf"},
   theirs: {group: "tcp_rr", tool: "floor"}},
  {order: 9, label: "UDP_RR / qperf udp_lat",
   ours: {group: "udp_rr", tool: "netperf"},
   theirs: {group: "udp_rr", tool: "qperf"}},
  {order: 10, label: "UDP_RR / sockperf pp",
   ours: {group: "udp_rr", tool: "netperf"},
   theirs: {group: "udp_rr", tool: "sockperf"}},
  {order: 11, label: "UDP_RR / floor",
   ours: {group: "udp_rr", tool: "netperf"},
   theirs: {group: "udp_rr", tool: "floor"}},
  {order: 12, label: "UDP_STREAM 1472 / iperf3 -u (received)",
   ours: {group: "udp_stream", tool: "netperf"},
   theirs: {group: "udp_stream", tool: "iperf3"}},
  {order: 13, label: "UDP_STREAM 1472 / floor (received)",
   ours: {group: "udp_stream", tool: "netperf"},
   theirs: {group: "udp_stream", tool: "floor"}},
  {order: 14, label: "send SD 128K / qperf send_cost (lower=better)", better: "lower",
   units: "us/KB",
   ours: {group: "tcp_stream_128K", tool: "netperf", field: "local_sd"},
   theirs: {group: "tcp_stream_128K", tool: "qperf",
            field: "send_cost_us_per_KB"}},
  {order: 15, label: "recv SD 128K / qperf recv_cost (lower=better)", better: "lower",
   units: "us/KB",
   ours: {group: "tcp_stream_128K", tool: "netperf", field: "remote_sd"},
   theirs: {group: "tcp_stream_128K", tool: "qperf",
            field: "recv_cost_us_per_KB"}},
  {order: 16, label: "send SD 16K / qperf send_cost (lower=better)", better: "lower",
   units: "us/KB",
   ours: {group: "tcp_stream_16K", tool: "netperf", field: "local_sd"},
   theirs: {group: "tcp_stream_16K", tool: "qperf",
            field: "send_cost_us_per_KB"}},
  {order: 17, label: "recv SD 16K / qperf recv_cost (lower=better)", better: "lower",
   units: "us/KB",
   ours: {group: "tcp_stream_16K", tool: "netperf", field: "remote_sd"},
   theirs: {group: "tcp_stream_16K", tool: "qperf",
            field: "recv_cost_us_per_KB"}},
  {order: 18, label: "floor TCP_RR timed (-H) / untimed",
   ours: {group: "tcp_rr", tool: "floor+timing"},
   theirs: {group: "tcp_rr", tool: "floor"}},
  {order: 19, label: "TCP_RR --wire / without",
   ours: {group: "tcp_rr", tool: "netperf+wire"},
   theirs: {group: "tcp_rr", tool: "netperf"}},
  {order: 20, label: "TCP_STREAM 128K --wire / without",
   ours: {group: "tcp_stream_128K", tool: "netperf+wire"},
   theirs: {group: "tcp_stream_128K", tool: "netperf"}},
  {order: 21, label: "--streams 1 / iperf3 -P 1",
   ours: {group: "streams_1", tool: "netperf"},
   theirs: {group: "streams_1", tool: "iperf3"}},
  {order: 22, label: "--streams 2 / iperf3 -P 2",
   ours: {group: "streams_2", tool: "netperf"},
   theirs: {group: "streams_2", tool: "iperf3"}},
  {order: 23, label: "--streams 4 / iperf3 -P 4",
   ours: {group: "streams_4", tool: "netperf"},
   theirs: {group: "streams_4", tool: "iperf3"}},
  {order: 24, label: "--streams 2 / --streams 1", chart: false,
   ours: {group: "streams_2", tool: "netperf"},
   theirs: {group: "streams_1", tool: "netperf"}},
  {order: 25, label: "--streams 4 / --streams 1", chart: false,
   ours: {group: "streams_4", tool: "netperf"},
   theirs: {group: "streams_1", tool: "netperf"}},
  {order: 26, label: "iperf3 -P 2 / -P 1", chart: false,
   ours: {group: "streams_2", tool: "iperf3"},
   theirs: {group: "streams_1", tool: "iperf3"}},
  {order: 27, label: "iperf3 -P 4 / -P 1", chart: false,
   ours: {group: "streams_4", tool: "iperf3"},
   theirs: {group: "streams_1", tool: "iperf3"}},
  {order: 28, label: "TCP_RR same CPU / cross CPU", chart: false,
   ours: {group: "tcp_rr", tool: "netperf", placement: "same"},
   theirs: {group: "tcp_rr", tool: "netperf", placement: "cross"}},
  {order: 29, label: "UDP_RR same CPU / cross CPU", chart: false,
   ours: {group: "udp_rr", tool: "netperf", placement: "same"},
   theirs: {group: "udp_rr", tool: "netperf", placement: "cross"}},
  {order: 30, label: "UDP_STREAM --batch 32 / iperf3 -u (received)",
   ours: {group: "udp_stream", tool: "netperf+batch"},
   theirs: {group: "udp_stream", tool: "iperf3"}},
  {order: 31, label: "UDP_STREAM --batch 32 / plain (received)",
   ours: {group: "udp_stream", tool: "netperf+batch"},
   theirs: {group: "udp_stream", tool: "netperf"}},
  {order: 32, label: "UDP_STREAM --udp-gso / iperf3 -u (received)",
   ours: {group: "udp_stream", tool: "netperf+gso"},
   theirs: {group: "udp_stream", tool: "iperf3"}},
  {order: 33, label: "UDP_STREAM --udp-gso / plain (received)",
   ours: {group: "udp_stream", tool: "netperf+gso"},
   theirs: {group: "udp_stream", tool: "netperf"}},
  {order: 34, label: "TCP_STREAM 128K --zerocopy / without",
   ours: {group: "tcp_stream_128K", tool: "netperf+zerocopy"},
   theirs: {group: "tcp_stream_128K", tool: "netperf"}},
  {order: 35, label: "send SD 128K --zerocopy / without (lower=better)",
   better: "lower", units: "us/KB",
   ours: {group: "tcp_stream_128K", tool: "netperf+zerocopy", field: "local_sd"},
   theirs: {group: "tcp_stream_128K", tool: "netperf", field: "local_sd"}},
  {order: 36, label: "TCP_RR --busy-poll 50 / without",
   ours: {group: "tcp_rr", tool: "netperf+busypoll"},
   theirs: {group: "tcp_rr", tool: "netperf"}},
  {order: 37, label: "--streams 2 / 2 netperf processes",
   ours: {group: "streams_2", tool: "netperf"},
   theirs: {group: "streams_2", tool: "netperf-x2"}},
  {order: 38, label: "--streams 4 / 4 netperf processes",
   ours: {group: "streams_4", tool: "netperf"},
   theirs: {group: "streams_4", tool: "netperf-x4"}},
  {order: 39, label: "2 netperf processes / --streams 1 (ideal 2)", chart: false,
   ours: {group: "streams_2", tool: "netperf-x2"},
   theirs: {group: "streams_1", tool: "netperf"}},
  {order: 40, label: "4 netperf processes / --streams 1 (ideal 4)", chart: false,
   ours: {group: "streams_4", tool: "netperf-x4"},
   theirs: {group: "streams_1", tool: "netperf"}},
  {order: 41, label: "TCP_STREAM 128K --skip-rx-copy / without",
   ours: {group: "tcp_stream_128K", tool: "netperf+skiprx"},
   theirs: {group: "tcp_stream_128K", tool: "netperf"}},
  {order: 42, label: "recv SD 128K --skip-rx-copy / without (lower=better)",
   better: "lower", units: "us/KB",
   ours: {group: "tcp_stream_128K", tool: "netperf+skiprx", field: "remote_sd"},
   theirs: {group: "tcp_stream_128K", tool: "netperf", field: "remote_sd"}},
  {order: 43, label: "TCP_RR --timestamps / without",
   ours: {group: "tcp_rr", tool: "netperf+timestamps"},
   theirs: {group: "tcp_rr", tool: "netperf"}},
  {order: 44, label: "UDP_RR --timestamps / without",
   ours: {group: "udp_rr", tool: "netperf+timestamps"},
   theirs: {group: "udp_rr", tool: "netperf"}}
];

def ok: map(select(.value != null));

# A run counts as quiet when the CPUs were at least idle_pct % idle just
# before it started and just after it ended (the next run's first look).
def mark_quiet($pct):
  . as $all
  | [range(0; length) as $i
     | $all[$i] + {quiet: (($all[$i].idle_pct_before // 100) >= $pct
                           and (($all[$i + 1].idle_pct_first
                                 // $all[$i + 1].idle_pct_before // 100)
                                >= $pct))}];

$meta as {date: $date, mode: $mode, rounds: $rounds, length: $length,
          elapsed: $elapsed, fails: $fails, quiet: $quiet,
          kernel: $kernel, ncpu: $ncpu, cpu_model: $cpu_model, virt: $virt,
          clocksource: $clocksource, tools: $tools, histcost: $histcost,
          wire_note: $wire_note, mode_note: $mode_note}
| ($samples | mark_quiet($quiet.idle_pct // 90)) as $samples
| ($samples | ok) as $s
| ($s | map(.placement) | unique) as $placements
| ($s | map(.round) | unique) as $round_ids
# The sample of one side in one round, its value, and whether the machine
# was quiet when it started.
| def sample($side; $p; $r):
    ($side.placement // $p) as $pp
    | [$s[] | select(.placement == $pp and .round == $r
                     and .group == $side.group and .tool == $side.tool)][0];
  def pick($side; $p; $r):
    sample($side; $p; $r) | if . then field($side.field // "value") else null end;
  def quiet($side; $p; $r):
    sample($side; $p; $r) | if . then .quiet else false end;
  def compare($pair; $p):
    [$round_ids[] as $r
     | {r: $r, o: pick($pair.ours; $p; $r), t: pick($pair.theirs; $p; $r),
        q: (quiet($pair.ours; $p; $r) and quiet($pair.theirs; $p; $r))}
     | select(.o != null and .t != null and .t != 0)] as $rs
    | select($rs | length > 0)
    | ($rs | map(.o / .t)) as $ratios
    | ($rs | map(select(.q) | .o / .t)) as $qratios
    | {order: $pair.order, label: $pair.label,
       placement: (if $pair.ours.placement then
                     "\($pair.ours.placement)/\($pair.theirs.placement)"
                   else $p end),
       ours: $pair.ours, theirs: $pair.theirs,
       better: ($pair.better // "higher"),
       chart: (if $pair | has("chart") then $pair.chart else true end),
       units: ($pair.units // ([$s[] | select(.group == $pair.ours.group)
                                     | .units][0])),
       n: ($rs | length),
       ours_median: ($rs | map(.o) | median),
       theirs_median: ($rs | map(.t) | median),
       ratio_median: ($ratios | median),
       ratio_min: ($ratios | min), ratio_max: ($ratios | max),
       ratios: $ratios,
       n_quiet: ($qratios | length),
       ratio_median_quiet: ($qratios | median)};
  [pairs[] as $pair
   | if $pair.ours.placement then compare($pair; null)
     else $placements[] as $p | compare($pair; $p) end] as $cmp
| def cmp_of($order; $p):
    [$cmp[] | select(.order == $order and .placement == $p)][0];
  def med($p; $g; $t; $f):
    [$s[] | select(.placement == $p and .group == $g and .tool == $t)
          | field($f)] | map(select(. != null)) | median;
{
  schema: "netperf-bench", schema_version: 1,
  title: "loopback, \($kernel), \($ncpu) vCPU \($virt), \($date), \($rounds) rounds x \($length) s",
  date: $date, mode: $mode, rounds: $rounds, length_s: $length,
  elapsed_s: $elapsed, failed_runs: $fails,
  quiet_check: ($quiet + {how: "before each run, wait up to max_wait_s (at most budget_s in all) for the CPUs to be idle_pct % idle over 0.1 s; each sample records the idle share first seen (idle_pct_first) and when it started (idle_pct_before); a sample is quiet when idle_pct_before and the next sample's idle_pct_first are both at least idle_pct"}),
  machine: {kernel: $kernel, ncpu: $ncpu, cpu_model: $cpu_model,
            virtualization: $virt, clocksource: $clocksource},
  tools: $tools,
  pinning: {
    same: {client_cpu: 0, server_cpu: 0},
    cross: {client_cpu: 0, server_cpu: 1},
    unpinned: {client_cpu: null, server_cpu: null},
    how: "Clients run under taskset -c CLIENT; iperf3, qperf and sockperf servers were started under taskset -c SERVER (their forked children inherit it); netperf also gets -T CLIENT,SERVER, which binds its own and netserver's test threads (netserver itself was started unpinned); bench/floor pins its two processes with sched_setaffinity. The --streams/-P rows pin nothing on either side."
  },
  conversions: {
    stream: "Throughput in 10^6 bits/s counted at the receiver: netperf result.throughput, iperf3 end.sum_received.bits_per_second / 1e6, qperf bw (bytes/s with -uu) x 8 / 1e6, floor bytes received x 8 / receiver's interval.",
    rr: "Transactions/s, one transaction = one full round trip. netperf and floor: counted. qperf tcp_lat/udp_lat: latency is one way (elapsed / messages, i.e. RTT/2), so trans/s = 1e9 / (2 x latency_ns). sockperf pp: avg-latency is RTT/2 unless --full-rtt, so trans/s = 1e6 / (2 x avg_latency_us); its own rate over the valid window is kept as raw.valid_rate.",
    service_demand: "netperf: us of CPU (all CPUs of the machine, /proc/stat) per KB = 1024 bytes. qperf send_cost/recv_cost: CPU time (all CPUs, /proc/stat) per GB = 10^9 bytes, printed with -uu in ns/GB; us/KB = ns/GB x 1e-3 x 1024 / 1e9 = ns/GB x 1.024e-9. Both ends share this machine, so each tool's send and recv figures are the same machine seen from each side.",
    sizes: "sockperf's smallest message is 14 bytes (its header); the other RR runs use 1 byte. On this loopback 14-byte and 1-byte TCP_RR/UDP_RR rates are within run-to-run noise of each other."
  },
  meta: $meta,
  samples: $samples,
  tool_medians: [$s | group_by([.placement, .group, .tool])[]
                 | {placement: .[0].placement, group: .[0].group,
                    tool: .[0].tool, units: .[0].units, n: length,
                    median: (map(.value) | median),
                    min: (map(.value) | min), max: (map(.value) | max)}],
  comparisons: ($cmp | sort_by(.order)),
  histogram_cost: {
    method: "No switch turns netperf's per-transaction timing off, so it is measured twice without one. (1) bench/histcost times clock_gettime(CLOCK_MONOTONIC) + stats_hist_add (lib/stats) in a loop, warm caches; cost = both_ns / (ns per netperf TCP_RR transaction). (2) floor tcp_rr -H does exactly what netperf's RR client does per transaction and measures, inside the real loop, the time from the clock read after the answer to the next request's clock read (timing_gap_ns): one clock read + one histogram add + a branch, with the caches as the network stack leaves them; cost = gap / ns per transaction. (3) floor with -H vs without, interleaved, as a rate ratio: limited by run-to-run noise.",
    micro: $histcost,
    placements: [$placements[] | select(. != "unpinned") as $p
      | (med($p; "tcp_rr"; "netperf"; "value")) as $np
      | (med($p; "tcp_rr"; "floor+timing"; "value")) as $ft
      | (med($p; "tcp_rr"; "floor+timing"; "timing_gap_ns")) as $gap
      | select($np != null)
      | {placement: $p,
         netperf_tcp_rr_median: $np,
         ns_per_transaction: (1e9 / $np),
         micro_cost_pct: ($histcost.both_ns * $np / 1e9 * 100),
         floor_timed_rate_median: $ft,
         insitu_gap_ns_median: $gap,
         insitu_cost_pct: (if $gap and $ft then $gap * $ft / 1e9 * 100
                           else null end),
         insitu_gap_vs_netperf_pct: (if $gap then $gap * $np / 1e9 * 100
                                     else null end),
         ab_ratio: (cmp_of(18; $p) | if . then {median: .ratio_median,
                      min: .ratio_min, max: .ratio_max, n: .n} else null end)}]
  },
  notes: ([if $mode_note != "" then $mode_note else empty end]
          + [if $wire_note != "" then $wire_note else empty end]
          + [($samples | map(select(.value != null and (.quiet | not))) | length) as $busy
             | if $busy > 0 then "\($busy) of \($samples | length) runs had the machine less than \($quiet.idle_pct // 90) % idle just before or just after them (other work was running): the quiet-only column uses only rounds where both runs of a pair were quiet" else empty end]
          + [if $fails > 0 then "\($fails) runs failed; see samples with an error field" else empty end])
}
