#!/usr/bin/python3
"""The library's layers, checked: every #include "loopdyn/..." in include/ and src/ points to the
same layer or one below it (docs/architecture.md, ../shared/STYLE.md).

    scripts/check_layers.py ROOT [--pretend FILE:HEADER]

ROOT is the repository. --pretend adds one include of HEADER to FILE before the check (how the
tests show that an upward include fails it). Exit 0 when every include points downward; 1 with
one line per offending include (file:line: what it includes and why not).
"""

import argparse
import pathlib
import re
import sys

# Each layer uses only those before it (and itself); ode and io sit beside the chain.
CHAIN = ["common", "linalg", "spatial", "model", "kinematics", "analysis", "dynamics", "dynamics/formulations",
         "dynamics/dca", "sim", "facade"]
BESIDE = {
    "ode": {"common", "ode"},
    "io": {"common", "linalg", "spatial", "model", "io"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"loopdyn/([a-z_/]+)\.hpp"')


def layer_of(relative):
    """The layer of a path below include/loopdyn/ or src/ ('dynamics/dca/dca' -> 'dynamics/dca')."""
    parts = relative.split("/")
    if len(parts) == 1:
        return "facade"  # loopdyn.hpp, facade.cpp: the library's front door
    if parts[0] == "dynamics" and len(parts) > 2:
        return "dynamics/" + parts[1]
    return parts[0]


def allowed(user, used):
    if user in BESIDE:
        return used in BESIDE[user]
    if used in BESIDE:
        return used == "ode" and CHAIN.index(user) >= CHAIN.index("sim") or \
            used == "io" and user == "facade"
    if user not in CHAIN or used not in CHAIN:
        return False
    return CHAIN.index(used) <= CHAIN.index(user)


def sources(root):
    for base in (root / "include" / "loopdyn", root / "src"):
        for path in sorted(base.rglob("*")):
            if path.suffix in (".hpp", ".cpp"):
                yield path, path.relative_to(base).with_suffix("").as_posix()


def check(root, pretend):
    problems = []
    for path, relative in sources(root):
        user = layer_of(relative)
        lines = path.read_text().splitlines()
        for extra_file, header in pretend:
            if path.resolve() == extra_file.resolve():
                lines.append(f'#include "{header}"')
        for number, line in enumerate(lines, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            used = layer_of(match.group(1))
            if not allowed(user, used):
                problems.append(f"{path.relative_to(root)}:{number}: includes loopdyn/{match.group(1)}.hpp: "
                                f"layer {used} is above {user} (order: {' <- '.join(CHAIN)}; ode, io beside)")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=pathlib.Path)
    parser.add_argument("--pretend", action="append", default=[], help="FILE:HEADER")
    args = parser.parse_args()
    pretend = [(args.root / p.split(":")[0], p.split(":")[1]) for p in args.pretend]
    problems = check(args.root, pretend)
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
