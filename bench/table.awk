# bench/table.awk: prints bench/table.jq's rows as the table bench/run shows.
BEGIN { FS = "\t" }
function num(x) {
	if (x == "") return "-"
	if (x + 0 >= 1000) return sprintf("%.0f", x)
	if (x + 0 >= 10) return sprintf("%.1f", x)
	return sprintf("%.3f", x)
}
$1 == "title" { print "bench/run: " $2 }
$1 == "tools" { print $2 }
$1 == "mode" {
	print $2
	print ""
	printf "%-9s %-46s %10s %10s %-10s %6s  %-13s %2s  %s\n", "placement",
	    "comparison (ours / theirs)", "ours", "theirs", "units", "ratio",
	    "spread", "n", "quiet-only ratio (n)"
}
$1 == "row" {
	label = $3
	printf "%-9s %-46s %10s %10s %-10s %6.3f  %5.3f-%-7.3f %2d", $2,
	    label, num($4), num($5), $6, $7, $8, $9, $10
	if ($13 + 0 > 0)
		printf "  %.3f (%d)", $12, $13
	else
		printf "  - (0)"
	printf "\n"
}
$1 == "micro" {
	print ""
	print "Histogram timing cost of one TCP_RR transaction (issue 4: < 1 %):"
	printf "  micro-benchmark, warm caches: clock_gettime %.1f ns + " \
	    "stats_hist_add %.1f ns, together %.1f ns\n", $2, $3, $4
	both = $4
}
$1 == "hist" {
	printf "  %-5s netperf TCP_RR %s trans/s = %.0f ns each: micro %.2f %%",
	    $2, num($3), $4, $5
	if ($6 != "")
		printf "; in the loop (floor -H) %.1f ns = %.2f %%", $6, $7
	if ($8 != "")
		printf "; floor -H/untimed %.3f (%.3f-%.3f)", $8, $9, $10
	printf "\n"
}
$1 == "note" { print "note: " $2 }
