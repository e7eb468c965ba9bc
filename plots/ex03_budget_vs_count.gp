# ex03: yielding on a time budget against yielding every N items, for cheap
# (3 us) and expensive (300 us) items: p99 heartbeat lateness (bars) and
# the throughput cost against never yielding (points, right axis).
# inputs: ex03_budget_yield_budgets.csv
load 'plots/style.gp'
f = data_dir.'/ex03_budget_yield_budgets.csv'
# (before the log scale: stats would drop the negative costs)
stats f using ((strcol(1) eq 'loop' && strcol(3) ne 'never') ? $9 : NaN) nooutput
set title "ex03: a time budget keeps the lag near the budget; a count does not\n{/*0.8 bars: p99 lateness of a 5 ms heartbeat (left axis); points: throughput cost against never yielding (right axis), inside a grey band of noise}"
set ylabel 'p99 heartbeat lateness (ms, log scale)'
set y2label 'throughput cost (%)'
set xlabel 'when the map yields'
set logscale y
set yrange [0.01:1000]
set format y '%g'
set y2range [-5:10]
set y2tics
set key top right
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set xtics noenhanced rotate by -20
if (!exists('panel')) { set bmargin 7 }
# columns: mechanism,item_us,yield,every_items,budget_ms,yields,loop_total_ms,
#          fastest_ms,cost_pct,beats,p50_lag_ms,p99_lag_ms,worst_lag_ms
# data rows 1-8: loop yield, 3 us items; 9-16: loop yield, 300 us items.
# Histogram clusters sit at x = 0..7, the two bars at about -0.2 and +0.2.
# The cost is noise on this machine: draw the band it spans over every row
# that yields (min to max of cost_pct) instead of suggesting a trend.
set object 1 rect from graph 0, second STATS_min to graph 1, second STATS_max fc rgb '#cccccc' fs transparent solid 0.35 noborder behind
set label 1 sprintf('cost %.1f%% to %.1f%%: noise', STATS_min, STATS_max) at graph 0.01, second STATS_max + 0.5 left font ',8' tc rgb '#555555' front
plot f every ::1::8 using 12:xtic(3) title 'lag, 3 µs items' lc rgb blue, \
     '' every ::9::16 using 12 title 'lag, 300 µs items' lc rgb amber, \
     '' every ::1::8 using ($0 - 0.2):9 axes x1y2 with points pt 9 ps 1.3 lc rgb '#1a3f73' title 'cost, 3 µs items', \
     '' every ::9::16 using ($0 + 0.2):9 axes x1y2 with points pt 9 ps 1.3 lc rgb '#8a6200' title 'cost, 300 µs items'
