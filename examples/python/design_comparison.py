"""Design comparison: one tensor core (examples/tensor-core-2to4) running the same matrix
product dense and with A pruned 2:4 (its sparse mapping and compressed format); energy per
level and cycles side by side (design_comparison.png), and the sparse design's speedup.
Usage: python3 design_comparison.py [OUT_DIR]"""
import os, sys
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import fiberloop

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tensor-core-2to4")
f = lambda *names: [os.path.join(here, n) for n in ("arch.yaml", "problem.yaml") + names]
designs = {"dense": f("map-dense.yaml"), "2:4 sparse": f("map-sparse.yaml", "sparse.yaml")}
# the design has no compound classes to estimate from: the preset its args use
runs = {name: fiberloop.load(*files).model(energy="accelergy45") for name, files in designs.items()}
print(pd.DataFrame({n: r.to_dict() for n, r in runs.items()}).loc[["energy_pj", "cycles"]])
print("2:4 speedup %.2fx" % (runs["dense"].cycles / runs["2:4 sparse"].cycles))
pd.DataFrame({n: dict(r.level_energy_pj, compute=r.compute_energy_pj)
              for n, r in runs.items()}).T.plot.bar(
    stacked=True, ylabel="energy (pJ)", title="dense vs 2:4 sparse tensor core", rot=0)
plt.savefig(os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "design_comparison.png"))
