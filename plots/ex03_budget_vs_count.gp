# ex03: yielding on a time budget against yielding every N items, for cheap
# (3 us) and expensive (300 us) items: p99 heartbeat lateness.
# inputs: ex03_budget_yield_budgets.csv
load 'plots/style.gp'
f = data_dir.'/ex03_budget_yield_budgets.csv'
set title "ex03: a time budget keeps the lag near the budget; a count does not\n{/*0.8 p99 lateness of a 5 ms heartbeat; a count that suits 3 µs items stalls 300 µs items}"
set ylabel 'p99 heartbeat lateness (ms, log scale)'
set xlabel 'when the map yields'
set logscale y
set yrange [0.01:1000]
set format y '%g'
set key top left
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
set xtics noenhanced rotate by -20
set bmargin 7
# columns: mechanism,item_us,yield,every_items,budget_ms,yields,loop_total_ms,
#          fastest_ms,cost_pct,beats,p50_lag_ms,p99_lag_ms,worst_lag_ms
# data rows 1-8: loop yield, 3 us items; 9-16: loop yield, 300 us items
plot f every ::1::8 using 12:xtic(3) title '3 µs items' lc rgb blue, \
     '' every ::9::16 using 12 title '300 µs items' lc rgb amber
