#!/usr/bin/env python3
"""Writes the A02-style ladder of N four-bar loops (issues 14-16; the IFToMM double four-bar is
N = 2): ground pivots at (i, 0), i = 0..N, vertical unit rods (1 kg, J = 1/12) up to (i, 1),
horizontal unit couplers between their tops, revolute joints, gravity -y; the first crank's top
moving at 1 m/s in +x. Prints the YAML; e.g. for the benchmarks' largest:
    models/generators/ladder.py 256 > /tmp/ladder_256.yaml"""

import sys


def ladder(n):
    lines = [f"# A02 ladder of {n} four-bar loops (models/generators/ladder.py)",
             f"name: ladder_{n}", "dimension: 2", "gravity: [0, -9.81]", "", "ground:", "  markers:"]
    lines += [f"    - {{name: o{i}, position: [{i}, 0]}}" for i in range(n + 1)]
    lines += ["", "bodies:"]
    for i in range(n + 1):
        lines += [f"  - name: crank{i}", "    mass: 1", f"    inertia: {1 / 12!r}", f"    position: [{i}, 0.5]",
                  "    angle: 1.5707963267948966"]
        if i == 0:
            lines.append("    velocity: {linear: [0.5, 0], angular: -1}")
        lines += ["    markers:", "      - {name: bottom, position: [-0.5, 0]}", "      - {name: top, position: [0.5, 0]}"]
    for i in range(n):
        lines += [f"  - name: coupler{i}", "    mass: 1", f"    inertia: {1 / 12!r}", f"    position: [{i + 0.5}, 1]",
                  "    angle: 0", "    markers:", "      - {name: left, position: [-0.5, 0]}",
                  "      - {name: right, position: [0.5, 0]}"]
    lines += ["", "joints:"]
    lines += [f"  - {{name: O{i}, type: revolute, between: [ground.o{i}, crank{i}.bottom]}}" for i in range(n + 1)]
    for i in range(n):
        lines.append(f"  - {{name: L{i}, type: revolute, between: [crank{i}.top, coupler{i}.left]}}")
        lines.append(f"  - {{name: R{i}, type: revolute, between: [crank{i + 1}.top, coupler{i}.right]}}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(ladder(int(sys.argv[1]) if len(sys.argv) > 1 else 2))
