"""The cost of one evaluation from Python, the same calls as bench/bench_lib.c makes in C:
spec.model(detail=False) on a design loaded once, one metric read. Prints the best of 8
rounds of about 0.2 s of the process's CPU time (as bench_lib.c) as microseconds per
evaluation.
Usage: PYTHONPATH=BUILDDIR/python python3 bench_python.py FILE... (python-acceptance.sh)."""
import sys
import time

import fiberloop

spec = fiberloop.load(*sys.argv[1:])
for _ in range(200):                               # warm-up
    spec.model(detail=False).energy_pj
best = 1e30
for _ in range(8):
    t0 = time.process_time()
    n = 0
    while True:
        for _ in range(16):
            e = spec.model(detail=False).energy_pj
        n += 16
        t = time.process_time() - t0
        if t >= 0.2:
            break
    best = min(best, t / n)
print("py_us_per_eval %.3f (energy_pj %.17g)" % (best * 1e6, e))
