# ex06-ex07: the ladder from serial saves to overlapped ones, against the
# CPU floor: each bar is the hashing plus the I/O it did not hide.
# inputs: ex06_serial_saves_ladder.csv ex07_overlap_ladder.csv
load 'plots/style.gp'
f6 = data_dir.'/ex06_serial_saves_ladder.csv'
f7 = data_dir.'/ex07_overlap_ladder.csv'
set title "ex06-ex07: 120 SHA-256 items (difficulty 8), each saved to a 50 ms server (at most 10 in flight)\n{/*0.8 blue: time spent hashing; red: the wait for saves that the hashing did not hide}"
set ylabel 'run time (s)'
set xrange [-0.6:3.6]
set yrange [0:*]
set xtics ('CPU floor (no saves)' 0, 'serial' 1, 'batched (10)' 2, 'overlapped' 3)
set boxwidth 0.6
set key top right
# columns: mode,batch,n,difficulty,delay_ms,cap,total_s,cpu_floor_s,hash_s,
#          overhead_s,over_floor_s,io_floor_s   (data rows 1-3 in ex06, 2 in ex07)
plot f6 every ::1::3 using ($0):($9 + $10) with boxes lc rgb bad title 'I/O not hidden (overhead)', \
     f7 every ::2::2 using (3):($9 + $10) with boxes lc rgb bad notitle, \
     f6 every ::1::3 using ($0):9 with boxes lc rgb blue title 'hashing', \
     f7 every ::2::2 using (3):9 with boxes lc rgb blue notitle, \
     f6 every ::1::3 using ($0):($9 + $10):(sprintf('%.2f s', $7)) with labels offset 0,0.8 notitle, \
     f7 every ::2::2 using (3):($9 + $10):(sprintf('%.2f s', $7)) with labels offset 0,0.8 notitle
