# ex02: worst and median heartbeat lateness by yield interval, C (precise
# base) beside the Python asyncio figures of the source guide.
# inputs: ex02_lag_meter_cadence.csv
load 'plots/style.gp'
f = data_dir.'/ex02_lag_meter_cadence.csv'
set title "ex02: heartbeat lateness by yield interval\n{/*0.8 40,000 items of about 3 µs, heartbeat every 5 ms; C on libevent with the precise timer}"
set ylabel 'heartbeat lateness (ms, log scale)'
set xlabel 'yield every N items'
set logscale y
set yrange [0.001:1000]
set format y '%g'
set key top right
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
# Python 3.14 asyncio, worst lag, from the source guide (not measured here).
$python << EOD
never,127.6
1,0.9
10,0.9
100,1.2
1000,11.5
EOD
# columns: yield_every,items,item_us,beat_ms,base,loop_total_ms,beats,worst_lag_ms,median_lag_ms,p99_lag_ms
plot f every ::1::5 using 8:xtic(1) title 'C worst' lc rgb bad, \
     '' every ::1::5 using 9 title 'C median' lc rgb blue, \
     $python using 2 title 'Python asyncio worst (source guide)' lc rgb grey
