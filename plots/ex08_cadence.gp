# ex08: overhead over the hashing by yield cadence, coloured by how well the
# saves stayed hidden (ex08_item_time.gp shows the item-time dimension); the Python figures of the High Performance Python ch. 9 write-up
# beside (overhead over its CPU floor: a different baseline, labelled so).
# inputs: ex08_yield_cadence_sweep.csv
load 'plots/style.gp'
f = data_dir.'/ex08_yield_cadence_sweep.csv'
set title "ex08: how often you yield decides whether the saves stay hidden\n{/*0.8 120 items saved to a 50 ms server holding 10; green: hidden (< 0.15 s), amber: slipping, red: starved}"
set ylabel 'overhead over this run''s hashing (s)'
set xlabel 'yield cadence (frequent on the left, never on the right)'
set xtics noenhanced ('budget 5 ms' 0, 'every 1' 1, 'every 2' 2, 'every 5' 3, 'every 10' 4, 'never' 5)
set xrange [-0.6:5.6]
set yrange [0:0.85]
set boxwidth 0.5
set key top left reverse Left font ',9'
# columns: cadence,every,budget_ms,yields,n,difficulty,delay_ms,cap,total_s,
#   cpu_floor_s,hash_s,overhead_s,over_floor_s,saves_after_hashing,drain_s,
#   class,links,item_ms
slot(c) = (c[1:6] eq 'budget') ? 0 : ((c eq 'every 1') ? 1 : ((c eq 'every 2') ? 2 : \
	((c eq 'every 5') ? 3 : ((c eq 'every 10') ? 4 : ((c eq 'never') ? 5 : NaN)))))
colour(c) = (c eq 'well_hidden') ? 0x2e8b57 : ((c eq 'slipping') ? 0xe0a000 : 0xc0392b)
# Python asyncio, overhead over ITS CPU floor, from the write-up (not measured here).
$python << EOD
1,0.08
2,0.07
3,0.32
4,0.55
5,0.64
EOD
plot f every ::1 using (slot(strcol(1))):12:(colour(strcol(16))) with boxes lc rgb variable title 'C: overhead over this run''s own hashing', \
     f every ::1 using (slot(strcol(1))):12:(sprintf('%.2f s', $12)) with labels offset 0,0.7 font ',9' notitle, \
     $python using ($1 + 0.38):2 with points pt 7 ps 1.2 lc rgb '#333333' title 'Python asyncio, over its CPU floor (HPP ch. 9 write-up)'
