# ex08: overhead over the hashing by yield cadence, coloured by how well the
# saves stayed hidden; the Python figures of the source write-up beside.
# inputs: ex08_yield_cadence_sweep.csv
load 'plots/style.gp'
f = data_dir.'/ex08_yield_cadence_sweep.csv'
set title "ex08: how often you yield decides whether the saves stay hidden\n{/*0.8 120 items at difficulty 8, saves to a 50 ms server capped at 10; green: hidden (< 0.15 s), amber: slipping, red: starved}"
set ylabel 'overhead over the hashing (s)'
set xlabel 'yield cadence (frequent on the left, never on the right)'
set xtics noenhanced
set yrange [0:0.8]
set boxwidth 0.6
set key top left reverse Left
# columns: cadence,every,budget_ms,yields,n,difficulty,delay_ms,cap,total_s,
#   cpu_floor_s,hash_s,overhead_s,over_floor_s,saves_after_hashing,drain_s,class
# Data rows 1-5 (every 1, 2, 5, 10, never) at x = 1-5; row 6, the 5 ms
# budget, at x = 0 (the header row is row 0).
x(r) = (r == 6) ? 0 : r
colour(c) = (c eq 'well_hidden') ? 0x2e8b57 : ((c eq 'slipping') ? 0xe0a000 : 0xc0392b)
# Python asyncio, overhead over the CPU floor, from the source write-up.
$python << EOD
1,0.08
2,0.07
3,0.32
4,0.55
5,0.64
EOD
plot f using (x($0)):12:(colour(strcol(16))):xtic(1) with boxes lc rgb variable notitle, \
     '' using (x($0)):12:(sprintf('%.2f', $12)) with labels offset 0,0.8 notitle, \
     $python using ($1 + 0.22):2 with points pt 7 ps 1.4 lc rgb '#333333' title 'Python asyncio (source write-up)'
