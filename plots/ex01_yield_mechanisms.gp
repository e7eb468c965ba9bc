# ex01: what each way of "yielding" does to a 5 ms heartbeat (lag), to the
# tasks' order, and what one yield costs.  In the overview (panel mode) only
# the lag panel is drawn: a panel cannot hold a multiplot.
# inputs: ex01_round_robin_mechanisms.csv ex01_round_robin_order.csv ex01_round_robin_cost.csv
load 'plots/style.gp'
f = data_dir.'/ex01_round_robin_mechanisms.csv'
g = data_dir.'/ex01_round_robin_order.csv'
h = data_dir.'/ex01_round_robin_cost.csv'
# columns: yield,tasks,steps,work_us,beat_ms,tasks_ms,beats,worst_lag_ms,
#          median_lag_ms,priorities,rounds_out_of_order,ns_per_step
# green: the reference; blue: another real yield; amber: a timer (polls, but
# out of order and, at 1 ms, slow); red: not a yield (never polls).
kind(y) = (y eq 'rr_yield') ? 0x2e8b57 : ((y eq 'max_dispatch') ? 0x2c6fbb : \
	((y eq 'timer0' || y eq 'timer1ms') ? 0xe0a000 : 0xc0392b))
nice(v) = v >= 1e6 ? sprintf('%.2f ms', v / 1e6) : sprintf('%.0f ns', v)
set xtics noenhanced rotate by -30 left
set boxwidth 0.6
if (!exists('panel')) {
    set terminal push
    if (fmt eq 'svg') { set terminal svg size 1200,520 dynamic enhanced font 'sans,12' background rgb 'white' } \
    else { set terminal pngcairo size 1200,520 enhanced font 'sans,11' background rgb 'white' }
    set output out
    set multiplot layout 1,3 title "ex01: what each way of yielding does\n{/*0.8 green: the reference; blue: another real yield; amber: a timer; red: not a yield (the loop never polls)}"
    set bmargin 7
}
set title (exists('panel') && !exists('beside') ? 'ex01: ' : '').'heartbeat lateness by yield mechanism: 2 tasks, 20 steps of 1 ms'
set ylabel 'worst lateness of a 5 ms heartbeat (ms)'
set yrange [0:*]
plot f using 0:8:(kind(strcol(1))):xtic(1) with boxes lc rgb variable, \
     '' using 0:8:(sprintf('%.1f', $8)) with labels offset 0,0.8 font ',9'
if (!exists('panel')) {
    set title 'order: 4 tasks, 4 empty steps'
    set ylabel 'rounds not run a, b, c, d (of 4)'
    set yrange [0:4.5]
    set ytics 1
    plot g using 0:11:(kind(strcol(1))):xtic(1) with boxes lc rgb variable, \
         '' using 0:11:(sprintf('%d', $11)) with labels offset 0,0.8 font ',9'
    set title 'cost: 1 task of empty steps (log scale)'
    set ylabel 'time per yield'
    set logscale y
    set yrange [50:5e6]
    set ytics ('100 ns' 100, '1 µs' 1e3, '10 µs' 1e4, '100 µs' 1e5, '1 ms' 1e6)
    plot h using 0:12:(kind(strcol(1))):xtic(1) with boxes lc rgb variable, \
         '' using 0:12:(nice($12)) with labels offset 0,0.8 font ',9'
    unset multiplot
    set label 99 footnote at screen 0.01, screen 0.02 font ',9' tc rgb '#555555'
}
