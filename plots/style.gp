# Shared look of every yieldlab chart.  render.sh sets data_dir, out, fmt
# (png|svg) and footnote before a chart script loads this file.
# overview.gp draws every chart as a panel of one page: it sets panel = 1
# and owns the terminal, the output and the footnote.
if (!exists('panel')) {
    if (fmt eq 'svg') {
        set terminal svg size 900,520 dynamic enhanced font 'sans,12' background rgb 'white'
    } else {
        set terminal pngcairo size 900,520 enhanced font 'sans,11' background rgb 'white'
    }
    set output out
}
set datafile separator ','
set datafile commentschars '#'
set key noautotitle
set border 3
set tics nomirror
set grid ytics lc rgb '#dddddd'
set style fill solid 0.85 border -1
if (!exists('panel')) {
    set bmargin 5
    set label 99 footnote at screen 0.01, screen 0.02 font ',9' tc rgb '#555555'
}
# Colours: good / slipping / bad, and neutral series.
good = '#2e8b57'; amber = '#e0a000'; bad = '#c0392b'
blue = '#2c6fbb'; grey = '#888888'
