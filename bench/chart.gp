# bench/chart.gp: the median ratio ours/theirs of every comparison, one
# bar per placement, the min-max over rounds as error bars. The scale is
# logarithmic, so 2x faster and 2x slower are bars of the same length, up
# and down from 1.
# gnuplot -e "datafile='...'; outfile='...'; subtitle='...'" bench/chart.gp
# datafile (tab-separated): label, then median, min, max for same, cross
# and unpinned ('?' where a comparison was not run in that placement).
set terminal svg size 1500,820 dynamic noenhanced font 'Helvetica,12' background rgb 'white'
set output outfile
set datafile separator tab
set datafile missing '?'
set title "netperf (this project) / iperf3, qperf, sockperf, bench/floor: median ratio ours/theirs over rounds, whiskers = min-max\n".subtitle
set ylabel 'ratio ours / theirs (log scale; above 1: ours higher)'
set style data histograms
set style histogram errorbars gap 1.5 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top right
set grid ytics
lg(x) = log(x) / log(2)
# at least 1/2.3 to 2.3, at most 1/18 to 18, else as the data need
set yrange [-4.2<*<-1.2 : 1.2<*<4.2]
set ytics ("1/16" -4, "1/8" -3, "1/4" -2, "1/2" -1, "1" 0, "2" 1, "4" 2, "8" 3, "16" 4)
set ytics add ("0.6" lg(0.6), "0.7" lg(0.7), "0.8" lg(0.8), "0.9" lg(0.9), "1.25" lg(1.25), "1.5" lg(1.5))
set xtics rotate by -35 left font ',10' nomirror
set bmargin 13
set rmargin 12
set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead lw 1.5 lc rgb 'black' front
set arrow 2 from graph 0, first lg(0.98) to graph 1, first lg(0.98) nohead lw 1 dt 2 lc rgb '#555555' front
set label 1 '0.98' at graph 1, first lg(0.98) offset 0.5,-0.3 font ',9'
plot datafile using (lg($2)):(lg($3)):(lg($4)):xtic(1) title 'same CPU (client 0, server 0)' lc rgb '#4477aa', \
     '' using (lg($5)):(lg($6)):(lg($7)) title 'cross CPU (client 0, server 1)' lc rgb '#ee7733', \
     '' using (lg($8)):(lg($9)):(lg($10)) title 'unpinned' lc rgb '#228833'
