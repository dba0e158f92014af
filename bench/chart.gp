# Hot-sell throughput by strategy and concurrency, next to the raw limits of the same run.
# gnuplot -e "datafile='chart.tsv'; outfile='docs/benchmarks.png'; subtitle='...'" bench/chart.gp
# datafile: tab-separated, a header row (conc, then one column per series), one row per concurrency (report.awk).

set terminal pngcairo size 1200,640 noenhanced font "sans,10"
set output outfile
set datafile separator "\t"
set datafile missing "NaN"
set title "flashstock hot sell: purchases per second (median), and the raw limits measured in the same run\n" . subtitle
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set format y "%.0f"
set ylabel "requests / operations per second (log scale)"
set xlabel "concurrent clients"
set grid ytics
set key outside right top vertical
# Strategies first (solid), then the raw limits (hatched), as report.awk writes them.
columns = system("head -1 '" . datafile . "' | awk -F'\t' '{print NF}'") + 0
strategies = system("head -1 '" . datafile . "' | awk -F'\t' '{n = 0; for (i = 2; i <= NF; i++) if ($i !~ /^raw:/) n++; print n}'") + 0
plot for [i=2:strategies+1] datafile using i:xtic(1) title columnheader(i) fs solid 0.85, \
     for [i=strategies+2:columns] datafile using i:xtic(1) title columnheader(i) fs pattern 4
