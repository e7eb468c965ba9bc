# ex05: how long after a cancel (or a deadline) was due the task actually
# stopped, by how often the task yields.
# inputs: ex05_cancel_latency.csv ex05_cancel_deadline.csv
load 'plots/style.gp'
f = data_dir.'/ex05_cancel_latency.csv'
g = data_dir.'/ex05_cancel_deadline.csv'
set title "ex05: a task can only be cancelled where it yields\n{/*0.8 40,000 rows of 16 SHA-256 rounds; cancel (or deadline) 10 ms after the start; time from due to stopped}"
set ylabel 'due -> stopped (ms, log scale)'
set xlabel 'the task yields every N rows'
set logscale y
set yrange [0.001:1000]
set format y '%g'
set key top left
set xtics ('1' 0, '10' 1, '100' 2, '1000' 3, '10000' 4, 'never' 5)
set xrange [-0.6:5.6]
set boxwidth 0.36
# columns: where,yield_every_rows,stop_by,rows,rows_done,status,run_ms,
#          request_late_ms,request_to_done_ms,due_to_done_ms,worst_lag_ms
# The worker-thread row is not drawn.  The never-yield task was not
# cancelled at all: it finished (status done) before the request could run,
# so its bars are hatched and labelled so.
slot(n) = n == 1 ? 0 : (n == 10 ? 1 : (n == 100 ? 2 : (n == 1000 ? 3 : (n == 10000 ? 4 : 5))))
onloop(w) = w eq 'loop'
isdone(st) = st eq 'done'
plot f using (onloop(strcol(1)) && !isdone(strcol(6)) ? slot($2) - 0.19 : NaN):10 with boxes lc rgb blue title 'cancel request', \
     g using (onloop(strcol(1)) && !isdone(strcol(6)) ? slot($2) + 0.19 : NaN):10 with boxes lc rgb amber title 'deadline', \
     f using (onloop(strcol(1)) && isdone(strcol(6)) ? slot($2) - 0.19 : NaN):10 with boxes fs pattern 4 border lc rgb blue title 'never cancelled: it finished (done)', \
     g using (onloop(strcol(1)) && isdone(strcol(6)) ? slot($2) + 0.19 : NaN):10 with boxes fs pattern 4 border lc rgb amber notitle, \
     f using (onloop(strcol(1)) && isdone(strcol(6)) ? slot($2) : NaN):10:('finished,\nnot cancelled') with labels offset 0,1.8 font ',9' notitle
