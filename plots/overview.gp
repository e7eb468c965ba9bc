# The overview page: the headline chart of every lab, one panel each
# (8 panels in 4 x 2: no empty cell).
# inputs: ex01_round_robin_mechanisms.csv ex02_lag_meter_cadence.csv bench_lag.csv ex03_budget_yield_budgets.csv ex04_offload_series.csv ex05_cancel_latency.csv ex05_cancel_deadline.csv ex06_serial_saves_ladder.csv ex07_overlap_ladder.csv ex06_serial_saves_fast.csv ex07_overlap_fast.csv ex08_yield_cadence_sweep.csv ex08_yield_cadence_grid.csv
charts = "ex01_yield_mechanisms ex02_lag_by_interval ex03_budget_vs_count ex04_lag_over_time ex05_cancel_latency ex06_ex07_ladder ex08_cadence ex08_item_time"
if (fmt eq 'svg') {
    set terminal svg size 1800,2200 dynamic enhanced font 'sans,11' background rgb 'white'
} else {
    set terminal pngcairo size 1800,2200 enhanced font 'sans,10' background rgb 'white'
}
set output out
panel = 1
set multiplot layout 4,2 title "yieldlab: the headline figure of each lab\n{/*0.8 ".footnote."}" font ',14'
do for [c in charts] {
    reset
    load 'plots/'.c.'.gp'
}
unset multiplot
