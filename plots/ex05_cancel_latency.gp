# ex05: how long after a cancel (or a deadline) was due the task actually
# stopped, by how often the task yields.
# inputs: ex05_cancel_latency.csv ex05_cancel_deadline.csv
load 'plots/style.gp'
f = data_dir.'/ex05_cancel_latency.csv'
g = data_dir.'/ex05_cancel_deadline.csv'
set title "ex05: a task can only be cancelled where it yields\n{/*0.8 40,000 rows of about 3 µs; cancel (or deadline) 10 ms after the start; time from due to stopped}"
set ylabel 'due -> stopped (ms, log scale)'
set xlabel 'the task yields every N rows'
set logscale y
set yrange [0.001:1000]
set format y '%g'
set key top left
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9
label(n) = (n == 0) ? 'never' : sprintf('%d', n)
# columns: where,yield_every_rows,stop_by,rows,rows_done,status,run_ms,
#          request_late_ms,request_to_done_ms,due_to_done_ms,worst_lag_ms
# data rows 1-6: the task on the loop; row 7 is the worker thread (not drawn)
plot f every ::1::6 using 10:xtic(label($2)) title 'cancel request' lc rgb blue, \
     g every ::1::6 using 10 title 'deadline' lc rgb amber
