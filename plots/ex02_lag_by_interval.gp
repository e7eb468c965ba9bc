# ex02: heartbeat lateness by yield interval: C on the precise base (worst
# and median), C on libevent's default base (median: the coarse clock's
# invented lag), and Python asyncio measured on the same machine (make bench).
# inputs: ex02_lag_meter_cadence.csv bench_lag.csv
load 'plots/style.gp'
f = data_dir.'/ex02_lag_meter_cadence.csv'
g = bench_dir.'/bench_lag.csv'
set title "ex02: heartbeat lateness by yield interval\n{/*0.8 40,000 items of about 3 µs beside a 5 ms heartbeat; medians of the never-yield runs are left out (2 or 3 beats)}"
set ylabel 'heartbeat lateness (ms, log scale)'
set xlabel 'yield every N items'
set logscale y
set yrange [0.003:1000]
set format y '%g'
set key top right font ',9'
set xtics ('never' 0, '1' 1, '10' 2, '100' 3, '1000' 4)
set xrange [-0.6:4.6]
set boxwidth 0.19
# cadence columns: yield_every,items,item_us,beat_ms,base,loop_total_ms,beats,
#                  worst_lag_ms,median_lag_ms,...
# bench_lag columns: runtime,yield_every,items,item_ns,beats,worst_lag_ms,...
slot(e) = (e eq 'never' || e eq '0') ? 0 : (e eq '1' ? 1 : (e eq '10' ? 2 : (e eq '100' ? 3 : 4)))
mine(b) = b eq 'mine'
plot f using (mine(strcol(5)) ? slot(strcol(1)) - 0.3 : NaN):8 with boxes lc rgb bad title 'C worst (precise timer)', \
     '' using (mine(strcol(5)) && strcol(1) ne 'never' ? slot(strcol(1)) - 0.1 : NaN):9 with boxes lc rgb blue title 'C median (precise timer)', \
     '' using (!mine(strcol(5)) && strcol(1) ne 'never' ? slot(strcol(1)) + 0.1 : NaN):9 with boxes lc rgb amber title 'C median, default base (coarse clock)', \
     g using ((strcol(1) eq 'python_asyncio') ? slot(strcol(2)) + 0.3 : NaN):6 with boxes lc rgb grey title 'asyncio worst (Python, make bench: data/bench\_lag.csv)'
