# ex08: where each yield cadence starts to slip, by item time.  One point
# per run of the grid experiment: x is the item time that run really
# measured (its hashing time / n), y its overhead over its own hashing.
# The saves keep up while cap x (time between turns of the loop) > delay
# + a few slices; the sweet spot tracks the I/O's drain rate against the
# loop's CPU cost.
# inputs: ex08_yield_cadence_grid.csv
load 'plots/style.gp'
f = data_dir.'/ex08_yield_cadence_grid.csv'
set title "ex08: where each cadence starts to slip, by item time\n{/*0.8 120 items saved to a 50 ms server holding 10; yield every k items; overhead = a run's total minus its own hashing time}"
set xlabel 'item time in that run (ms, log scale)'
set ylabel 'overhead over the hashing (s)'
set logscale x
set xrange [1.5:50]
set xtics (2, 4, 8, 16, 32)
set yrange [0:0.9]
set key top right font ',9' maxrows 3
# columns: cadence,every,budget_ms,yields,n,difficulty,delay_ms,cap,total_s,
#          cpu_floor_s,hash_s,overhead_s,over_floor_s,saves_after_hashing,
#          drain_s,class,links,item_ms
item_ms(n, h) = 1000 * h / n
at(k, e, v) = (e == k) ? v : NaN
set arrow 1 from graph 0, first 0.6 to graph 1, first 0.6 nohead dt 2 lc rgb bad
set label 1 'never yielding: 12 waves of 50 ms (0.6 s) at any item time' at graph 0.02, first 0.625 font ',9' tc rgb bad
set arrow 2 from graph 0, first 0.05 to graph 1, first 0.05 nohead dt 2 lc rgb good
set label 2 'one server delay: hidden' at graph 0.02, first 0.075 font ',9' tc rgb good
# The rule of the README: a save holds a connection for the delay plus about
# three turns of the loop (k items each), so every k keeps up while
# delay + 3 k item <= cap item, i.e. item >= delay / (cap - 3 k):
# 50 / 7 = 7.1 ms for every 1, 50 / 4 = 12.5 ms for every 2, never for 5, 10.
set arrow 3 from 7.14, graph 0 to 7.14, graph 0.55 nohead dt 3 lc rgb good
set arrow 4 from 12.5, graph 0 to 12.5, graph 0.75 nohead dt 3 lc rgb blue
plot f using (item_ms($5, $11)):(at(1, $2, $12)) with points pt 7 ps 1.3 lc rgb good title 'every 1', \
     '' using (item_ms($5, $11)):(at(2, $2, $12)) with points pt 5 ps 1.3 lc rgb blue title 'every 2', \
     '' using (item_ms($5, $11)):(at(5, $2, $12)) with points pt 9 ps 1.5 lc rgb amber title 'every 5', \
     '' using (item_ms($5, $11)):(at(10, $2, $12)) with points pt 11 ps 1.5 lc rgb bad title 'every 10', \
     NaN with lines dt 3 lc rgb good title 'rule: every 1 keeps up from 7 ms', \
     NaN with lines dt 3 lc rgb blue title 'rule: every 2 keeps up from 12.5 ms'
