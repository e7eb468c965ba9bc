# ex01: how late a 5 ms heartbeat was, by the way two tasks "yield".
# inputs: ex01_round_robin_mechanisms.csv
load 'plots/style.gp'
f = data_dir.'/ex01_round_robin_mechanisms.csv'
set title "ex01: heartbeat lateness by yield mechanism\n{/*0.8 two tasks of 20 steps of 1 ms each, heartbeat every 5 ms; red: not a yield, amber: a yield but out of order or slow}"
set ylabel 'worst heartbeat lateness (ms)'
set xlabel 'how the tasks yield (ex01 --yield)'
set xtics noenhanced
set yrange [0:*]
set boxwidth 0.6
# columns: yield,tasks,steps,work_us,beat_ms,tasks_ms,beats,worst_lag_ms,median_lag_ms
kind(y) = (y eq 'rr_yield') ? 0x2e8b57 : ((y eq 'timer0' || y eq 'timer1ms') ? 0xe0a000 : 0xc0392b)
plot f using 0:8:(kind(strcol(1))):xtic(1) with boxes lc rgb variable, \
     '' using 0:8:(sprintf('%.1f', $8)) with labels offset 0,0.8 font ',10'
