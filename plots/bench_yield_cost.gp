# make bench: what one yield costs with each libevent mechanism, on a
# default and a precise-timer base, beside the epoll_wait(0) floor and
# Python's await asyncio.sleep(0) measured on the same machine.
# inputs: bench_yield_cost.csv
load 'plots/style.gp'
f = data_dir.'/bench_yield_cost.csv'
set title "What one yield costs (log scale)\n{/*0.8 grey: the poll floors; red: not a yield (no poll, I/O waits); green: the reference yield; blue: other real yields; amber: asyncio.sleep(0)}"
set ylabel 'time per yield (log scale)'
set logscale y
set yrange [10:2e7]
set ytics ('10 ns' 10, '100 ns' 100, '1 µs' 1e3, '10 µs' 1e4, '100 µs' 1e5, '1 ms' 1e6, '10 ms' 1e7)
set xtics noenhanced rotate by -35 left font ',9'
set bmargin 9
set rmargin 10
set boxwidth 0.7
# columns: mechanism,base,real_yield,yields_per_run,ns_per_yield
colour(m, real) = (real eq 'floor') ? 0x888888 : \
	((m eq 'asyncio_sleep0') ? 0xe0a000 : \
	((real eq 'no') ? 0xc0392b : ((m eq 'rr_yield') ? 0x2e8b57 : 0x2c6fbb)))
tic(m, b) = (b eq 'none' || b eq 'asyncio') ? m : m.' ('.b.')'
nice(v) = v >= 1e6 ? sprintf('%.1f ms', v / 1e6) : (v >= 1e3 ? sprintf('%.1f µs', v / 1e3) : sprintf('%.0f ns', v))
plot f using 0:5:(colour(strcol(1), strcol(3))):xtic(tic(strcol(1), strcol(2))) with boxes lc rgb variable, \
     '' using 0:5:(nice($5)) with labels offset 0,0.7 font ',8'
