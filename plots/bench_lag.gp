# make bench: a 5 ms heartbeat beside 40,000 items of ~3 us on one loop,
# yielding every N items; C (libevent, the reference yield) against Python
# asyncio (await asyncio.sleep(0)) doing the same work on the same machine.
# inputs: bench_lag.csv
load 'plots/style.gp'
f = bench_dir.'/bench_lag.csv'
# columns: runtime,yield_every,items,item_ns,beats,worst_lag_ms,median_lag_ms,loop_total_ms
slot(e) = e == 0 ? 0 : (e == 1 ? 1 : (e == 10 ? 2 : (e == 100 ? 3 : 4)))
is_c(r) = r eq 'c_libevent'
ms(v) = v >= 10 ? sprintf('%.0f', v) : sprintf('%.2g', v)
set multiplot layout 1,2 title "Heartbeat lag beside a CPU loop: C (libevent) against Python asyncio\n{/*0.8 40,000 items of about 3 µs, yield every N items; blue: C with event\\_active + loopcontinue, amber: await asyncio.sleep(0)}"
set xtics ('never' 0, '1' 1, '10' 2, '100' 3, '1000' 4)
set xrange [-0.6:4.6]
set xlabel 'yield every N items'
set boxwidth 0.38

set title 'worst heartbeat lateness (log scale)'
set ylabel 'ms'
set logscale y
set yrange [0.01:1000]
plot f using (slot($2) - 0.2):(is_c(strcol(1)) ? $6 : NaN) with boxes lc rgb blue title 'C', \
     '' using (slot($2) + 0.2):(is_c(strcol(1)) ? NaN : $6) with boxes lc rgb amber title 'asyncio', \
     '' using (slot($2) + (is_c(strcol(1)) ? -0.2 : 0.2)):6:(ms($6)) with labels offset 0,0.6 font ',8' notitle

set title 'loop total: the cost of yielding'
unset logscale y
set yrange [0:*]
set key top right
plot f using (slot($2) - 0.2):(is_c(strcol(1)) ? $8 : NaN) with boxes lc rgb blue title 'C', \
     '' using (slot($2) + 0.2):(is_c(strcol(1)) ? NaN : $8) with boxes lc rgb amber title 'asyncio', \
     '' using (slot($2) + (is_c(strcol(1)) ? -0.2 : 0.2)):8:(sprintf('%.0f', $8)) with labels offset 0,0.6 font ',8' notitle
unset multiplot
