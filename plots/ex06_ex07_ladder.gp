# ex06-ex07: what the saves cost on top of the hashing, from serial saves
# to overlapped ones.  Each bar is one run's overhead = its total minus its
# OWN hashing time (both measured in that run), so bars from different runs
# compare fairly even though the same hashes take more or less time from
# run to run on a shared VM.  Two item times: the calibrated default and
# half of it.
# inputs: ex06_serial_saves_ladder.csv ex07_overlap_ladder.csv ex06_serial_saves_fast.csv ex07_overlap_fast.csv
load 'plots/style.gp'
f6 = data_dir.'/ex06_serial_saves_ladder.csv'
f7 = data_dir.'/ex07_overlap_ladder.csv'
g6 = data_dir.'/ex06_serial_saves_fast.csv'
g7 = data_dir.'/ex07_overlap_fast.csv'
set title "ex06-ex07: the saves' cost on top of the hashing, serial to overlapped\n{/*0.8 120 items, each saved to a 50 ms server holding at most 10; overhead = a run's total minus its own hashing time}"
set ylabel 'overhead over the hashing (s, log scale)'
set logscale y
set yrange [0.01:20]
set format y '%g'
set xrange [-0.6:2.6]
set xtics ('serial' 0, 'batched (10)' 1, 'overlapped' 2)
set boxwidth 0.36
set key top right
# columns: mode,batch,n,difficulty,delay_ms,cap,total_s,cpu_floor_s,hash_s,
#          overhead_s,over_floor_s,io_floor_s,links,item_ms
slot(m) = (m eq 'serial') ? 0 : ((m eq 'batched') ? 1 : ((m eq 'overlapped') ? 2 : NaN))
item(n, h) = sprintf('%.0f ms', 1000 * h / n)
ms(v) = sprintf('%.3f s', v)
# Dashed lines: the least each version must wait (120, 12 and 1 server delays).
set arrow 1 from -0.45, 6 to 0.45, 6 nohead dt 2 lc rgb grey front
set arrow 2 from 0.55, 0.6 to 1.45, 0.6 nohead dt 2 lc rgb grey front
set arrow 3 from 1.55, 0.05 to 2.45, 0.05 nohead dt 2 lc rgb grey front
plot f6 using (slot(strcol(1)) - 0.19):10 with boxes lc rgb blue title 'items of the default time, about 16 ms', \
     f7 using (slot(strcol(1)) - 0.19):10 with boxes lc rgb blue notitle, \
     g6 using (slot(strcol(1)) + 0.19):10 with boxes lc rgb amber title 'items of half that time', \
     g7 using (slot(strcol(1)) + 0.19):10 with boxes lc rgb amber notitle, \
     f6 using (slot(strcol(1)) - 0.19):10:(ms($10)) with labels offset 0,0.8 font ',9' notitle, \
     f7 using (slot(strcol(1)) - 0.19):10:(ms($10)) with labels offset 0,0.8 font ',9' notitle, \
     g6 using (slot(strcol(1)) + 0.19):10:(ms($10)) with labels offset 0,0.8 font ',9' notitle, \
     g7 using (slot(strcol(1)) + 0.19):10:(ms($10)) with labels offset 0,0.8 font ',9' notitle, \
     NaN with lines dt 2 lc rgb grey title 'the least it must wait: 120, 12, 1 server delays'
