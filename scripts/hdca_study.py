#!/usr/bin/env python3
"""Paper 002's numerical study (sect. 3) with loopdyn: the DCA and the HDCA on the three test cases
(models/hdca_case*.yaml), 10 s from rest, integrators dopri5 / adams / bs23 (MATLAB's ode45 /
ode113 / ode23) at tolerances 1e-3 ... 1e-9 (rtol = atol), no stabilisation (the paper's DCA
closes its loops at the acceleration level only). Writes

  docs/images/hdca_study_energy.svg, _velocity.svg, _position.svg   (paper Figs. 5, 8, 9: dopri5, 1e-6)
  docs/images/hdca_study_wall_ratio.svg, _rhs_ratio.svg             (paper Figs. 10, 11: DCA / HDCA)

and replaces the tables between the markers <!-- hdca-study:begin --> and <!-- hdca-study:end -->
in docs/formulations.md (paper Tables 1, 2, and the accuracy at every tolerance). Wall times are
the best of --repeat runs of `loopdyn simulate` on this machine (samples every 0.1 s, CSV written);
a right-hand side's own cost comes from the benchmark BM_Rhs (bench/simulation_bench.cpp).

Usage, from the repository root after building:
  scripts/hdca_study.py [--build build] [--repeat 3]
No dependencies beyond Python's standard library (the figures are written as SVG by hand)."""

import argparse
import csv
import json
import math
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [("hdca_case1_four_body_loop", "case 1: loop of 4"), ("hdca_case2_eight_body_loop", "case 2: loop of 8"),
         ("hdca_case3_double_loop", "case 3: double loop of 8")]
METHODS = ["dca", "hdca"]
INTEGRATORS = [("dopri5", "ode45"), ("adams", "ode113"), ("bs23", "ode23")]
TOLERANCES = [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9]
COLORS = {"dca": "#d62728", "hdca": "#1f77b4", 0: "#1f77b4", 1: "#ff7f0e", 2: "#2ca02c"}


def simulate(loopdyn, case, method, integrator, tol, out_dir):
    out = os.path.join(out_dir, f"{case}.{method}.{integrator}.{tol:.0e}.csv")
    cmd = [loopdyn, "simulate", os.path.join(ROOT, "models", case + ".yaml"), "--t-end", "10", "--out", out,
           "--method", method, "--integrator", integrator, "--rtol", str(tol), "--atol", str(tol),
           "--stabilization", "none", "--sample", "0.1", "--threads", "1", "--columns", "energy,violation", "--json"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    summary = json.loads(run.stdout)
    return summary, out


def read_series(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    t = [float(r["t"]) for r in rows]
    energy = [float(r["energy.balance"]) for r in rows]
    return {"t": t, "energy": [abs(e - energy[0]) for e in energy],
            "velocity": [float(r["violation.velocity"]) for r in rows],
            "position": [float(r["violation.position"]) for r in rows]}


def rhs_costs(build):
    """Mean cost of one right-hand side per case and method (microseconds), from BM_Rhs."""
    bench = os.path.join(build, "bench", "loopdyn_bench")
    run = subprocess.run([bench, "--benchmark_filter=BM_Rhs/hdca_case.*/h?dca$", "--benchmark_format=json",
                          "--benchmark_min_time=0.5"], capture_output=True, text=True)
    out = {}
    for b in json.loads(run.stdout)["benchmarks"]:
        _, case, method = b["name"].split("/")
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
        out[(case, method)] = b["real_time"] * scale
    return out


# ---- SVG, by hand: small multiples with log axes ----

def nice_log_ticks(lo, hi):
    return [10.0 ** k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def svg_panels(path, title, panels, xlabel, ylabel, xlog=False, ylog=True):
    """panels: list of (subtitle, [(label, color, xs, ys, dashed)])."""
    W, H, top, left, gap = 330, 260, 46, 62, 24
    width = left + len(panels) * (W + gap)
    height = top + H + 80
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
             f'font-size="12"><rect width="100%" height="100%" fill="white"/>',
             f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15">{title}</text>']
    ys_all = [y for _, lines in panels for line in lines for y in line[3] if (y > 0 or not ylog)]
    xs_all = [x for _, lines in panels for line in lines for x in line[2]]
    if not ys_all:
        return
    ylo, yhi = min(ys_all), max(ys_all)
    if ylog:
        ylo, yhi = 10 ** math.floor(math.log10(ylo)), 10 ** math.ceil(math.log10(yhi))
    else:
        pad = 0.05 * (yhi - ylo or 1)
        ylo, yhi = ylo - pad, yhi + pad
    xlo, xhi = min(xs_all), max(xs_all)

    def fx(x, ox):
        if xlog:
            return ox + W * (math.log10(x) - math.log10(xlo)) / (math.log10(xhi) - math.log10(xlo))
        return ox + W * (x - xlo) / (xhi - xlo)

    def fy(y):
        if ylog:
            y = max(y, ylo)
            return top + H - H * (math.log10(y) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo))
        return top + H - H * (y - ylo) / (yhi - ylo)

    for i, (subtitle, lines) in enumerate(panels):
        ox = left + i * (W + gap)
        parts.append(f'<rect x="{ox}" y="{top}" width="{W}" height="{H}" fill="none" stroke="#444"/>')
        parts.append(f'<text x="{ox + W / 2}" y="{top - 8}" text-anchor="middle">{subtitle}</text>')
        yticks = nice_log_ticks(ylo, yhi) if ylog else [ylo + k * (yhi - ylo) / 4 for k in range(5)]
        step = max(1, len(yticks) // 7)
        for k, y in enumerate(yticks):
            if not ylo <= y <= yhi:
                continue
            parts.append(f'<line x1="{ox}" x2="{ox + W}" y1="{fy(y):.1f}" y2="{fy(y):.1f}" stroke="#ddd"/>')
            if i == 0 and k % step == 0:
                label = f"1e{int(round(math.log10(y)))}" if ylog else f"{y:.2g}"
                parts.append(f'<text x="{ox - 4}" y="{fy(y) + 4:.1f}" text-anchor="end">{label}</text>')
        xticks = [x for x in ([1e-9, 1e-7, 1e-5, 1e-3] if xlog else [0, 2, 4, 6, 8, 10]) if xlo <= x <= xhi]
        for x in xticks:
            label = f"1e{int(round(math.log10(x)))}" if xlog else f"{x:g}"
            parts.append(f'<text x="{fx(x, ox):.1f}" y="{top + H + 16}" text-anchor="middle">{label}</text>')
        for label, color, xs, ys, dashed in lines:
            points = " ".join(f"{fx(x, ox):.1f},{fy(y):.1f}" for x, y in zip(xs, ys) if (y > 0 or not ylog))
            dash = ' stroke-dasharray="5,3"' if dashed else ""
            parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="1.6"{dash}/>')
        parts.append(f'<text x="{ox + W / 2}" y="{top + H + 34}" text-anchor="middle">{xlabel}</text>')
    parts.append(f'<text x="14" y="{top + H / 2}" transform="rotate(-90 14 {top + H / 2})" '
                 f'text-anchor="middle">{ylabel}</text>')
    legend = [(label, color, dashed) for label, color, _, _, dashed in panels[0][1]]
    for k, (label, color, dashed) in enumerate(legend):
        x = left + k * 210
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        parts.append(f'<line x1="{x}" x2="{x + 24}" y1="{height - 14}" y2="{height - 14}" stroke="{color}" '
                     f'stroke-width="2"{dash}/><text x="{x + 30}" y="{height - 10}">{label}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    loopdyn = os.path.join(args.build, "apps", "loopdyn", "loopdyn")
    images = os.path.join(ROOT, "docs", "images")
    results = {}
    series = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case, _ in CASES:
            for method in METHODS:
                for integrator, _ in INTEGRATORS:
                    for tol in TOLERANCES:
                        best = None
                        for _ in range(args.repeat):
                            summary, out = simulate(loopdyn, case, method, integrator, tol, tmp)
                            if best is None or summary["statistics"]["wall_seconds"] < best["statistics"]["wall_seconds"]:
                                best = summary
                        results[(case, method, integrator, tol)] = best
                        if integrator == "dopri5" and tol == 1e-6:
                            series[(case, method)] = read_series(out)
                        print(f"{case} {method} {integrator} {tol:.0e}: ok {best['ok']}, "
                              f"{best['statistics']['rhs_evaluations']} rhs, {best['statistics']['wall_seconds']:.4f} s",
                              flush=True)
    costs = rhs_costs(args.build)

    # Figs. 5, 8, 9: time histories at dopri5, 1e-6
    for key, title, ylabel in [("energy", "Energy balance error |E(t) - E(0)|, dopri5 at 1e-6 (paper Fig. 5)", "J"),
                               ("velocity", "Velocity constraint violation, dopri5 at 1e-6 (paper Fig. 8)", "1/s (scaled)"),
                               ("position", "Position constraint violation, dopri5 at 1e-6 (paper Fig. 9)", "scaled")]:
        panels = []
        for case, label in CASES:
            lines = [(m.upper(), COLORS[m], series[(case, m)]["t"], series[(case, m)][key], False) for m in METHODS]
            panels.append((label, lines))
        svg_panels(os.path.join(images, f"hdca_study_{key}.svg"), title, panels, "t (s)", ylabel)
    # Figs. 10, 11: ratios DCA / HDCA over the tolerance, per integrator
    for key, title, stat in [("wall_ratio", "Wall time of 10 s, DCA / HDCA (paper Fig. 10)", "wall_seconds"),
                             ("rhs_ratio", "Right-hand sides in 10 s, DCA / HDCA (paper Fig. 11)", "rhs_evaluations")]:
        panels = []
        for integrator, matlab in INTEGRATORS:
            lines = []
            for k, (case, label) in enumerate(CASES):
                ratios = [results[(case, "dca", integrator, t)]["statistics"][stat] /
                          results[(case, "hdca", integrator, t)]["statistics"][stat] for t in TOLERANCES]
                lines.append((label, COLORS[k], TOLERANCES, ratios, False))
            lines.append(("1 (equal)", "#888", [TOLERANCES[0], TOLERANCES[-1]], [1, 1], True))
            panels.append((f"{integrator} ({matlab})", lines))
        svg_panels(os.path.join(images, f"hdca_study_{key}.svg"), title, panels, "tolerance", "ratio", xlog=True,
                   ylog=False)

    # tables
    lines = ["Measured by `scripts/hdca_study.py` (10 s from rest, rtol = atol, no stabilisation, best of "
             f"{args.repeat} runs on this 2-core machine, one thread).", "",
             "Mean cost of one right-hand side in microseconds (paper Table 1; `BM_Rhs`, bench/simulation_bench.cpp):",
             "", "| case | DCA | HDCA | DCA / HDCA |", "|---|---|---|---|"]
    for case, label in CASES:
        d, h = costs.get((case, "dca"), float("nan")), costs.get((case, "hdca"), float("nan"))
        lines.append(f"| {label} | {d:.1f} | {h:.1f} | {d / h:.2f} |")
    lines += ["", "Wall time of a 10 s simulation in milliseconds at tolerance 1e-6 and 1e-9 (paper Table 2):", "",
              "| case | integrator | DCA 1e-6 | HDCA 1e-6 | DCA 1e-9 | HDCA 1e-9 |", "|---|---|---|---|---|---|"]
    for case, label in CASES:
        for integrator, matlab in INTEGRATORS:
            cells = [f"{1e3 * results[(case, m, integrator, t)]['statistics']['wall_seconds']:.1f}"
                     for t in (1e-6, 1e-9) for m in METHODS]
            lines.append(f"| {label} | {integrator} ({matlab}) | " + " | ".join(cells) + " |")
    lines += ["", "Accuracy and cost at every tolerance: largest energy-balance error relative to the energy scale, "
              "largest scaled velocity and position violation, right-hand sides (DCA / HDCA):", "",
              "| case | integrator | tolerance | energy DCA | energy HDCA | velocity DCA | velocity HDCA | position DCA "
              "| position HDCA | rhs DCA | rhs HDCA |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for case, label in CASES:
        for integrator, _ in INTEGRATORS:
            for t in TOLERANCES:
                d, h = results[(case, "dca", integrator, t)], results[(case, "hdca", integrator, t)]
                flag = lambda r: "" if r["ok"] else " (failed check)"
                lines.append(
                    f"| {label} | {integrator} | {t:.0e} | {d['energy']['relative_drift']:.1e}{flag(d)} | "
                    f"{h['energy']['relative_drift']:.1e}{flag(h)} | {d['violation']['velocity_max']:.1e} | "
                    f"{h['violation']['velocity_max']:.1e} | {d['violation']['position_max']:.1e} | "
                    f"{h['violation']['position_max']:.1e} | {d['statistics']['rhs_evaluations']} | "
                    f"{h['statistics']['rhs_evaluations']} |")
    doc = os.path.join(ROOT, "docs", "formulations.md")
    with open(doc) as f:
        text = f.read()
    block = "<!-- hdca-study:begin -->\n" + "\n".join(lines) + "\n<!-- hdca-study:end -->"
    text, count = re.subn(r"<!-- hdca-study:begin -->.*?<!-- hdca-study:end -->", lambda _: block, text, flags=re.S)
    if count != 1:
        raise SystemExit("docs/formulations.md: no <!-- hdca-study:begin --> ... <!-- hdca-study:end --> section")
    with open(doc, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
