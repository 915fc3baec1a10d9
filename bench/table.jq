# bench/table.jq: the result document as tab-separated rows for
# bench/table.awk: a head, one row per comparison, the histogram cost.
def n: if . == null then "" else tostring end;
def porder: {"same": 0, "cross": 1, "unpinned": 2}[.] // 3;

["title", .title],
["tools", "\(.tools.netperf) | \(.tools.iperf3) | \(.tools.qperf) | \(.tools.sockperf)"],
["mode", "\(.mode): \(.rounds) rounds x \(.length_s) s tests, \(.elapsed_s) s, \(.failed_runs) failed runs"],
(.comparisons | sort_by([.order, (.placement | porder)])[]
 | ["row", .placement, .label, (.ours_median | n), (.theirs_median | n),
    .units, (.ratio_median | n), (.ratio_min | n), (.ratio_max | n),
    (.n | n), .better, (.ratio_median_quiet | n), (.n_quiet | n)]),
["micro", (.histogram_cost.micro.clock_ns | n),
 (.histogram_cost.micro.hist_add_ns | n), (.histogram_cost.micro.both_ns | n)],
(.histogram_cost.placements[]
 | ["hist", .placement, (.netperf_tcp_rr_median | n),
    (.ns_per_transaction | n), (.micro_cost_pct | n),
    (.insitu_gap_ns_median | n), (.insitu_cost_pct | n),
    (.ab_ratio.median | n), (.ab_ratio.min | n), (.ab_ratio.max | n)]),
(.notes[] | ["note", .])
| @tsv
