# ex04: heartbeat lateness over time while 8 SHA-256 calls of 32 MiB run,
# inline on the loop thread against offloaded to a worker thread.
# inputs: ex04_offload_series.csv
load 'plots/style.gp'
f = data_dir.'/ex04_offload_series.csv'
set title "ex04: the heartbeat while 8 one-call SHA-256 jobs of 32 MiB run\n{/*0.8 inline: one long call, nothing to yield inside; offload: the same calls on a worker thread}"
set xlabel 'time since the work started (ms)'
set ylabel 'heartbeat lateness (ms, log scale)'
set logscale y
set yrange [0.005:1000]
set format y '%g'
set key top left
# columns: mode,t_ms,lag_ms (lateness raised to 5 us so the log scale can show it)
atleast(y) = (y < 0.005) ? 0.005 : y
plot f using ((strcol(1) eq 'inline') ? $2 : NaN):(atleast($3)) with impulses lw 3 lc rgb bad title 'inline', \
     '' using ((strcol(1) eq 'inline') ? $2 : NaN):(atleast($3)) with points pt 7 ps 0.8 lc rgb bad notitle, \
     '' using ((strcol(1) eq 'offload') ? $2 : NaN):(atleast($3)) with linespoints pt 7 ps 0.5 lc rgb good title 'offloaded (1 worker)', \
     '' using ((strcol(1) eq 'idle') ? $2 : NaN):(atleast($3)) with lines lc rgb grey dt 2 title 'idle loop'
