# make bench: the save server (C, evhttp) against its aiohttp twin, the same
# client sending the same saves: CPU per save and peak memory of each server.
# inputs: bench_servers.csv
load 'plots/style.gp'
f = data_dir.'/bench_servers.csv'
# columns: server,delay_ms,saves,conns,cap,saves_per_s,p50_ms,p99_ms,
#          cpu_us_per_save,rss_kb,rounds,cpu_ratio_to_c,rss_ratio_to_c
slot(d) = d == 0 ? 0 : 1
is_c(s) = s eq 'c_evhttp'
set multiplot layout 1,2 title "The save server against its Python twin (aiohttp), same client and load\n{/*0.8 blue: saveserver (C, libevent evhttp); amber: aio\\_saveserver.py; the saves, connections and cap are in data/bench\\_servers.csv}"
set xtics ('delay 0 ms' 0, 'delay 50 ms' 1)
set xrange [-0.6:1.6]
set boxwidth 0.38
set yrange [0:*]
set key top left
set offsets 0, 0, graph 0.25, 0

set title 'CPU time of the server per save'
set ylabel 'µs per save'
plot f using (slot($2) - 0.2):(is_c(strcol(1)) ? $9 : NaN) with boxes lc rgb blue title 'C', \
     '' using (slot($2) + 0.2):(is_c(strcol(1)) ? NaN : $9) with boxes lc rgb amber title 'aiohttp', \
     '' using (slot($2) + (is_c(strcol(1)) ? -0.2 : 0.2)):9:(sprintf('%.0f', $9)) with labels offset 0,0.6 font ',9' notitle

set title 'peak memory (VmHWM) of the server'
set ylabel 'MB'
plot f using (slot($2) - 0.2):(is_c(strcol(1)) ? $10 / 1024 : NaN) with boxes lc rgb blue title 'C', \
     '' using (slot($2) + 0.2):(is_c(strcol(1)) ? NaN : $10 / 1024) with boxes lc rgb amber title 'aiohttp', \
     '' using (slot($2) + (is_c(strcol(1)) ? -0.2 : 0.2)):($10 / 1024):(sprintf('%.1f', $10 / 1024)) with labels offset 0,0.6 font ',9' notitle
unset multiplot
