# Mutation score of each lab's grader: the share of one-line changes to the
# reference (mutants) that some graded test notices.  Target: 95 %.
# inputs: mutation_score.csv
load 'plots/style.gp'
f = data_dir.'/mutation_score.csv'
set title "Grader strength: mutants of each reference that lose points\n{/*0.8 killed / (built - equivalent); a survivor is a change no test notices}"
set ylabel 'mutation score (%)'
set yrange [0:105]
set style fill solid 0.8
set boxwidth 0.6
set key off
set arrow from graph 0, first 95 to graph 1, first 95 nohead dt 2 lc rgb '#555555'
set label 'target 95 %' at graph 0.01, first 97 left
# columns: lab,generated,not_built,killed,survived,equivalent,score_pct,seconds
plot f using 0:7:xtic(stringcolumn(1)[1:4]) with boxes lc rgb blue, \
     f using 0:7:(sprintf('%.0f%% (%d/%d)', $7, $4, $2 - $3 - $6)) with labels offset 0,0.8
