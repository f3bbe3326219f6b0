# scale.gp: the chart of kdapp bench --scale (scale.tsv); run: gnuplot scale.gp
set terminal svg size 960,760 dynamic enhanced font 'sans,12' background rgb 'white'
set output 'scale.svg'
set datafile separator tab
set multiplot layout 2,1 title 'kdapp bench --scale: cost as the store grows'
set logscale xy
set format x '10^{%L}'
set offsets graph 0.05, graph 0.05, 0, 0
set grid
set key outside right
set xlabel 'episodes in the store'
set ylabel 'microseconds'
plot 'scale.tsv' using 1:4 with linespoints title 'apply / move', \
     '' using 1:5 with linespoints title 'revert / move', \
     '' using 1:21 with linespoints title 'apply / move, whole store', \
     '' using 1:22 with linespoints title 'revert / move, whole store', \
     '' using 1:26 with linespoints title 'apply / move, compacted', \
     '' using 1:30 with linespoints title 'apply / move, whole store, compacted', \
     '' using 1:6 with linespoints title 'strategy context', \
     '' using 1:7 with linespoints title 'list page'
set ylabel 'MiB, seconds'
plot '' using 1:10 with linespoints title 'LMDB file (MiB)', \
     '' using 1:12 with linespoints title 'undo records (MiB)', \
     '' using 1:8 with linespoints title 'replay (s)', \
     '' using 1:13 with linespoints title 'daemon anon (MiB)', \
     '' using 1:15 with linespoints title 'gateway anon (MiB)'
unset multiplot
