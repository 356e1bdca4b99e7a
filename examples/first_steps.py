"""First steps with loopdyn from Python: load a mechanism, ask which joint reactions it determines,
simulate it, and plot its motion beside a unique and a non-unique reaction.

    PYTHONPATH=build/python /usr/bin/python3 examples/first_steps.py [OUT.png]

The mechanism is paper 001's mobile robot with its trolley (models/mobile_robot.yaml): 7 bodies,
redundant by 2, and six of its joints (B, C, W1-W4) carry reactions that no rigid model can
determine -- any formulation returns one of infinitely many sets of them. loopdyn says which.
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")  # a file, no window (also on a machine without a display)
import matplotlib.pyplot as plt

import loopdyn

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("output", "first_steps.png")

model = loopdyn.load(os.path.join(here, "..", "models", "mobile_robot.yaml"))
report = model.analyze()
not_unique = [p["name"] for p in report["pairs"] if not p["unique"]]
print(f"{model.name}: rank {report['rank']}, redundancy {report['redundancy']}, "
      f"mobility {report['mobility']}; reactions not unique: {', '.join(not_unique)}")

run = loopdyn.simulate(model, t_end=8)  # the steering manoeuvre: right turn, straight, left turn
print(f"simulated {run.t[-1]:g} s in {run.steps} steps: {'ok' if run.ok else run.failure}")
if not run.ok:
    sys.exit(1)

figure, (path, reactions) = plt.subplots(1, 2, figsize=(11, 4.2))
path.plot(run["platform.x"], run["platform.y"])
path.set(title="the platform's path", xlabel="x (m)", ylabel="y (m)")
path.set_aspect("equal", adjustable="datalim")
for column, style in (("A@platform.Fx", "-"), ("B@platform.Fx", "--")):
    unique = column not in run.non_unique
    reactions.plot(run.t, run[column], style,
                   label=f"{column} ({'unique' if unique else 'NOT unique: one of infinitely many'})")
reactions.set(title="joint reactions on the platform", xlabel="t (s)", ylabel="force (N)")
reactions.legend(fontsize="small")
figure.tight_layout()
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
figure.savefig(out, dpi=110)
print(f"plot: {out}")
