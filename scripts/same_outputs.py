#!/usr/bin/python3
"""Whether two loopdyn executables write the same results (issue 47: a reshaping changes nothing a
user sees).

    scripts/same_outputs.py OLD_CLI NEW_CLI [--t-end T] [--models DIR] [--keep DIR] [--args "..."]

Runs every bundled model x {lagrange, elimination, partitioning, projection, dca, hdca} x
{absolute, relative} with both executables (same arguments, one thread, --args appended) and compares the CSVs,
their .columns.json and the JSON summaries without their timings; and `analyze --json --criterion
--motions --topology` of every model in both coordinate choices, and the text report. Byte-identical files pass; a CSV
that differs is compared number by number and its largest relative difference is printed (a
changed operation order may move the last digits: the commit must say why). Exit 0 when every
pair is byte-identical, 1 otherwise.
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

METHODS = ["lagrange", "elimination", "partitioning", "projection", "dca", "hdca"]
COORDINATES = ["absolute", "relative"]
TIMINGS = {"wall_seconds", "stage_seconds"}
IGNORED = set()  # --ignore-keys: keys a change added or removed, left out on both sides


def run(cli, model, method, coordinates, t_end, out, extra=()):
    # (run beside the output, named without its directory: the messages name it the same on both sides)
    command = [str(pathlib.Path(cli).resolve()), "simulate", str(model.resolve()), "--t-end", str(t_end), "--method",
               method, "--coordinates", coordinates, "--threads", "1", "--out", out.name, "--json"] + list(extra)
    r = subprocess.run(command, capture_output=True, text=True, cwd=out.parent)
    summary = None
    try:
        summary = json.loads(r.stdout)
    except json.JSONDecodeError:
        pass
    return r.returncode, summary, r.stderr


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items()
                if k not in TIMINGS and k not in IGNORED and k not in ("output", "model")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def largest_relative_difference(a, b):
    rows_a, rows_b = a.read_text().splitlines(), b.read_text().splitlines()
    if len(rows_a) != len(rows_b) or rows_a[:1] != rows_b[:1]:
        return float("inf")
    worst = 0.0
    for ra, rb in zip(rows_a[1:], rows_b[1:]):
        for x, y in zip(ra.split(","), rb.split(",")):
            x, y = float(x), float(y)
            if x != y:
                worst = max(worst, abs(x - y) / max(abs(x), abs(y), 1e-300))
    return worst


def compare(old_cli, new_cli, models, t_end, keep, extra):
    work = pathlib.Path(keep) if keep else pathlib.Path(tempfile.mkdtemp(prefix="same_outputs_"))
    identical = True
    runs = written = 0
    for model in sorted(models.glob("*.yaml")):
        for method in METHODS:
            for coordinates in COORDINATES:
                label = f"{model.stem} {method} {coordinates}"
                results = []
                for side, cli in (("old", old_cli), ("new", new_cli)):
                    directory = work / side
                    directory.mkdir(parents=True, exist_ok=True)
                    out = directory / f"{model.stem}.{method}.{coordinates}.csv"
                    results.append((out,) + run(cli, model, method, coordinates, t_end, out, extra))
                (out_a, code_a, sum_a, err_a), (out_b, code_b, sum_b, err_b) = results
                runs += 1
                written += any(out_a.with_suffix(s).exists() for s in (".csv", ".failed.csv"))
                problems = []
                if code_a != code_b:
                    problems.append(f"exit {code_a} -> {code_b}")
                if without_timings(sum_a) != without_timings(sum_b):
                    problems.append("JSON summary differs")
                if err_a != err_b:
                    problems.append("standard error differs")
                for suffix in (".csv", ".failed.csv", ".columns.json", ".failed.columns.json"):
                    a, b = out_a.with_suffix(suffix), out_b.with_suffix(suffix)
                    if a.exists() != b.exists():
                        problems.append(f"{suffix} written by one only")
                    elif a.exists() and a.read_bytes() != b.read_bytes():
                        worst = largest_relative_difference(a, b) if suffix.endswith(".csv") else float("inf")
                        problems.append(f"{suffix} differs (largest relative difference {worst:.3g})")
                if problems:
                    identical = False
                    print(f"{label}: " + "; ".join(problems))
    if written == 0:
        # (both sides refusing the arguments alike is no comparison)
        identical = False
        print(f"none of the {runs} simulate runs wrote a CSV on the old side (refused arguments?): nothing compared")
    for model in sorted(models.glob("*.yaml")):
        for args in (["--json", "--criterion", "--motions", "--topology"],
                     ["--json", "--coordinates", "relative"], ["--criterion", "--motions", "--topology"]):
            runs = [subprocess.run([str(pathlib.Path(cli).resolve()), "analyze", str(model.resolve())] + args,
                                   capture_output=True, text=True) for cli in (old_cli, new_cli)]
            outputs = [r.stdout for r in runs]
            if "--json" in args and IGNORED:
                try:
                    outputs = [without_timings(json.loads(o)) for o in outputs]
                except json.JSONDecodeError:
                    pass
            if (runs[0].returncode, outputs[0], runs[0].stderr) != (runs[1].returncode, outputs[1], runs[1].stderr):
                identical = False
                print(f"{model.stem} analyze {' '.join(args)}: differs")
    print("identical" if identical else f"differences found (files in {work})")
    return identical


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old_cli")
    parser.add_argument("new_cli")
    parser.add_argument("--t-end", type=float, default=1.0)
    parser.add_argument("--models", default=str(pathlib.Path(__file__).resolve().parent.parent / "models"))
    parser.add_argument("--keep", help="directory for the outputs (default: a new temporary one)")
    parser.add_argument("--args", default="", help="more simulate arguments, e.g. \"--integrator adams\"")
    parser.add_argument("--ignore-keys", default="",
                        help="JSON keys to leave out of both sides, comma-separated (keys a change added)")
    args = parser.parse_args()
    IGNORED.update(k for k in args.ignore_keys.split(",") if k)
    sys.exit(0 if compare(args.old_cli, args.new_cli, pathlib.Path(args.models), args.t_end, args.keep, args.args.split()) else 1)


if __name__ == "__main__":
    main()
