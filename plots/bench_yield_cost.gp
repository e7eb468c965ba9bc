# make bench: what one yield costs with each libevent mechanism, on a
# default and a precise-timer base, beside the epoll_wait(0) floor and
# Python's await asyncio.sleep(0) measured on the same machine.
# inputs: bench_yield_cost.csv
load 'plots/style.gp'
f = bench_dir.'/bench_yield_cost.csv'
set title "What one yield costs, in µs (log scale)\n{/*0.8 grey: the poll floors; red: not a yield (no poll, I/O waits); green: the reference yield; blue: another real yield;}\n{/*0.8 amber: a timer (polls, but out of order, as in ex01); purple: Python's await asyncio.sleep(0)}"
set ylabel 'µs per yield (log scale)'
set logscale y
set yrange [0.01:2e4]
set ytics ('0.01' 0.01, '0.1' 0.1, '1' 1, '10' 10, '100' 100, '1000' 1000, '10000' 1e4)
set xtics noenhanced rotate by -35 left font ',9'
set bmargin 9
set rmargin 10
set boxwidth 0.7
# columns: mechanism,base,real_yield,yields_per_run,ns_per_yield
# One unit, µs, on the axis and on every bar: "3.9 ms" and "3.9 ns" look
# alike in a small font.
colour(m, real) = (real eq 'floor') ? 0x888888 : \
	((m eq 'asyncio_sleep0') ? 0x7b4fa0 : \
	((real eq 'no') ? 0xc0392b : ((m eq 'rr_yield') ? 0x2e8b57 : \
	((m eq 'timer0' || m eq 'timer1us') ? 0xe0a000 : 0x2c6fbb))))
tic(m, b) = (b eq 'none' || b eq 'asyncio') ? m : m.' ('.b.')'
us(v) = v >= 1e5 ? sprintf('%.0f', v / 1e3) : (v >= 1e3 ? sprintf('%.1f', v / 1e3) : sprintf('%.3f', v / 1e3))
plot f every ::1 using 0:($5 / 1e3):(colour(strcol(1), strcol(3))):xtic(tic(strcol(1), strcol(2))) with boxes lc rgb variable, \
     '' every ::1 using 0:($5 / 1e3):(us($5)) with labels offset 0,0.7 font ',9'
