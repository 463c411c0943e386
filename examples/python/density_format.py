"""Density x format: the spMspM design of examples/format-sweep with A and B as coordinate
lists (COO) or bitmasks, at densities 0.01 to 0.8; energy against density, one line per format
(density_format.png), and the density where the bitmask starts to win on energy.
Usage: python3 density_format.py [OUT_DIR]"""
import os, sys
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt
import fiberloop

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "format-sweep")
spec = fiberloop.load(*(os.path.join(here, f) for f in
                        ("arch.yaml", "map.yaml", "coord-skipping.yaml", "problem.yaml")))
fmt = ",".join("sparse_optimizations.targets[name=%s].representation_format.data_spaces[name=%s]"
               ".format" % (t, d) for t in ("DRAM", "Buffer") for d in "AB")
df = fiberloop.sweep(spec, axes={
    "density:problem.instance.densities.A.density,problem.instance.densities.B.density":
        "0.01:0.8:+0.01",
    "format:" + fmt: ["COO", "bitmask"]},
    energy="accelergy45")   # as sweep.sh: the design has no compound classes to estimate from
e = df.pivot(index="density", columns="format", values="energy_pj")
print("bitmask wins on energy from density", e.index[(e.bitmask < e.COO).argmax()])
e.plot(logx=True, logy=True, ylabel="energy (pJ)", title="Z = A B, 64^3: energy by format")
plt.savefig(os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "density_format.png"))
