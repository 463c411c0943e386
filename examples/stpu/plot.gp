# gnuplot -e "csv='efficiency.csv'; out='efficiency.svg'" plot.gp
set terminal svg size 960,520 dynamic font "sans,12"
set output out
set datafile separator ","
set logscale xy
set xlabel "density"
set ylabel "packing efficiency (original columns / packed columns)"
set title "Sparse-TPU column packing on a 128 x 128 array (uniform matrices)"
set key outside right top
set grid
plot \
  csv using ($1 == 1000 ? $2 : NaN):3 with linespoints lc 1 pt 7 title "STPU-C0, 1000", \
  csv using ($1 == 1000 ? $2 : NaN):4 with linespoints lc 2 pt 5 title "STPU-C1, 1000", \
  csv using ($1 == 1000 ? $2 : NaN):5 with linespoints lc 3 pt 9 title "KMZ, 1000", \
  csv using ($1 == 1000 ? $2 : NaN):6 with lines lc 1 dt 3 title "C0 estimate, 1000", \
  csv using ($1 == 5000 ? $2 : NaN):3 with linespoints lc 1 pt 6 dt 2 title "STPU-C0, 5000", \
  csv using ($1 == 5000 ? $2 : NaN):4 with linespoints lc 2 pt 4 dt 2 title "STPU-C1, 5000", \
  csv using ($1 == 5000 ? $2 : NaN):5 with linespoints lc 3 pt 8 dt 2 title "KMZ, 5000", \
  csv using ($1 == 5000 ? $2 : NaN):6 with lines lc 1 dt 4 title "C0 estimate, 5000"
