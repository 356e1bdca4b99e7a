"""The Python module against the papers' figures and against the command line (python/)."""

import csv
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

import loopdyn

MODELS = os.environ["LOOPDYN_MODELS_DIR"]
CLI = os.environ["LOOPDYN_CLI"]


def model_path(name):
    return os.path.join(MODELS, name + ".yaml")


class Analysis(unittest.TestCase):
    def test_mobile_robot_matches_paper_001(self):
        # paper 001, sect. 4.2: n = 21, m = 17, h = 5, rank 20, redundancy 2; B, C, W1-W4 not unique
        model = loopdyn.load(model_path("mobile_robot"))
        self.assertEqual((model.n, model.m, model.h), (21, 17, 5))
        report = model.analyze()
        self.assertEqual(report["rank"], 20)
        self.assertEqual(report["redundancy"], 2)
        not_unique = sorted(p["name"] for p in report["pairs"] if not p["unique"])
        self.assertEqual(not_unique, ["B", "C", "W1", "W2", "W3", "W4"])

    def test_report_is_the_command_lines_json(self):
        path = model_path("spatial_parallelogram")
        groups = ["BD=B,D@platform", "KL=K,L@rod5"]  # paper 000's resultants on one body
        cli = subprocess.run([CLI, "analyze", path, "--json", "--topology", "--group", groups[0], "--group", groups[1]],
                             capture_output=True, text=True, check=True)
        report = loopdyn.load(path).analyze(topology=True, groups=groups, arrays=False)
        expected = json.loads(cli.stdout)
        self.assertEqual(report, expected)
        self.assertEqual(report["topology"]["loops"], 5)  # paper 000: five loops
        self.assertEqual([g["name"] for g in report["groups"]][-2:], ["BD", "KL"])
        with self.assertRaises(loopdyn.InvalidArgument) as caught:
            loopdyn.load(path).analyze(groups=["KM=K,X@ground", "Z=K"])
        self.assertTrue(str(caught.exception).startswith("groups: 'KM=K,X@ground': group 'KM': unknown joint"))
        self.assertIn("'Z=K': expected NAME=PAIR,PAIR,...@BODY", str(caught.exception))

    def test_relative_coordinates_give_paper_000s_steps(self):
        # paper 000, sect. 4: P decided at step 8, R at step 4; the same answers as the absolute route
        report = loopdyn.load(model_path("spatial_parallelogram")).analyze(samples=0, coordinates="relative")
        relative = report["relative_uniqueness"]
        steps = {p["name"]: p["step"] for p in relative["pairs"]}
        self.assertEqual((steps["P"], steps["R"], steps["A"]), ("step 8", "step 4", "step 2"))
        self.assertEqual(relative["ground_connection"]["G_size"], 18)
        self.assertEqual(list(relative["absolute_disagreements"]), [])
        with self.assertRaises(ValueError):
            loopdyn.load(model_path("spatial_parallelogram")).analyze(coordinates="polar")

    def test_numeric_fields_come_as_numpy_arrays(self):
        # the double four-bar at its singular pose: 15 coordinates, 3 admissible motions (paper 004)
        report = loopdyn.load(model_path("double_four_bar_singular")).analyze(motions=True)
        columns = report["motions"]["columns"]
        self.assertIsInstance(columns, np.ndarray)
        self.assertEqual(columns.shape, (3, 15))
        self.assertEqual(len(report["motions"]["coordinates"]), 15)  # names stay strings

    def test_bad_models_raise_model_error_with_the_line(self):
        with self.assertRaises(loopdyn.ModelError) as caught:
            loopdyn.Model.from_yaml("dimension: 2\nbodies:\n  - {name: bar, mass: -1, inertia: 0.1}\n", "inline.yaml")
        self.assertIn("inline.yaml:3:", str(caught.exception))
        self.assertIsInstance(caught.exception, ValueError)
        with self.assertRaises(loopdyn.ModelError):
            loopdyn.load("/nonexistent.yaml")

    def test_a_loop_that_cannot_close_raises_assembly_error(self):
        # the four-bar's ground pins 20 m apart: links of 1 + 4 + 3 m cannot reach
        with open(model_path("four_bar_planar")) as f:
            text = f.read().replace("position: [4, 0]", "position: [20, 0]")
        model = loopdyn.Model.from_yaml(text, "far_pins.yaml")
        with self.assertRaises(loopdyn.AssemblyError) as caught:
            model.analyze()
        self.assertIsInstance(caught.exception, RuntimeError)
        self.assertIn("far_pins.yaml", str(caught.exception))
        # the failure as a code, with the joints it names (issue 47.2)
        self.assertEqual(caught.exception.kind, "stalled")
        self.assertIn("B", caught.exception.pairs)
        run = loopdyn.simulate(model, t_end=0.1)  # a run returns the failure instead
        self.assertEqual((run.ok, run.status, run.columns), (False, "start-failed", {}))
        self.assertIn("cannot be assembled", run.failure)
        self.assertIn("the loop B - O4 - O2 - A cannot close", str(caught.exception))


class CriterionSweep(unittest.TestCase):
    def test_a_crank_turn_of_paper_003s_four_bar_is_the_command_lines(self):
        # the crank's centre velocity along x vanishes where the crank is horizontal (points 0, 12,
        # 24 of 25 over a turn): crank.x is a singular choice there (paper 003, Fig. 3)
        path, sweep = model_path("paper003_four_bar"), "O1.angle=0:6.283185307179586:25"
        with tempfile.TemporaryDirectory() as tmp:
            cli_csv, py_csv = os.path.join(tmp, "cli.csv"), os.path.join(tmp, "py.csv")
            done = subprocess.run([CLI, "analyze", path, "--json", "--criterion", "--sweep", sweep, "--csv", cli_csv],
                                  capture_output=True, text=True, check=True)
            report = loopdyn.load(path).analyze(sweep=sweep, sweep_csv=py_csv, arrays=False)
            with open(cli_csv, "rb") as a, open(py_csv, "rb") as b:
                self.assertEqual(a.read(), b.read())
        self.assertEqual(report["criterion_sweep"], json.loads(done.stdout)["criterion_sweep"])
        swept = loopdyn.load(path).analyze(sweep=sweep)["criterion_sweep"]
        self.assertEqual(swept["cos2_alpha"].shape, (25, 9))
        x = swept["coordinates"].index("crank.x")
        for k in (0, 12, 24):
            self.assertLess(swept["cos2_alpha"][k, x], 1e-20)
        np.testing.assert_allclose(swept["cos2_alpha"] + swept["cos2_beta"], 1, atol=1e-9)
        with self.assertRaises(loopdyn.InvalidArgument) as caught:
            loopdyn.load(path).analyze(sweep="O7.angle=0:1:5")
        self.assertTrue(str(caught.exception).startswith("sweep: unknown joint 'O7'"), str(caught.exception))


class Simulation(unittest.TestCase):
    def test_arrays_equal_the_command_lines_csv(self):
        # the double four-bar for 2 s, through its singular crossings at 0.714 s and 1.714 s
        # (paper 004, sect. 3.2): every column equal to the bit (the CSV holds round-trip decimals)
        path = model_path("double_four_bar")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run.csv")
            subprocess.run([CLI, "simulate", path, "--t-end", "2", "--out", out], capture_output=True, check=True)
            with open(out, newline="") as f:
                rows = list(csv.reader(f))
        header, values = rows[0], np.array([[float(x) for x in row] for row in rows[1:]])
        run = loopdyn.simulate(loopdyn.load(path), t_end=2)
        self.assertTrue(run.ok, run.failure)
        self.assertEqual(list(run.columns), header)
        for j, name in enumerate(header):
            np.testing.assert_array_equal(run[name], values[:, j], err_msg=name)
        self.assertEqual(len(run.passages), 2)
        self.assertAlmostEqual(run.passages[0], 0.714, delta=0.01)
        # the events as data: each passage's kind, time and ranks, and the report's words
        self.assertEqual([e["kind"] for e in run.events], ["singular-passage"] * 2)
        self.assertEqual(run.events[0]["t"], run.passages[0])
        self.assertEqual((run.events[0]["rank_regular"], run.events[0]["rank"]), (14, 12))
        self.assertFalse(run.events[0]["left_branch"])
        self.assertIn("rank 14 -> 12", run.events[0]["text"])
        # where the run's time went, by stage
        self.assertEqual(list(run.stage_seconds), ["start", "integration", "samples", "watch", "projections",
                                                   "formulation", "checks"])
        self.assertGreater(run.stage_seconds["integration"], 0)

    def test_every_option_of_the_command_line_reaches_the_run(self):
        # the options the request gained with the library's one set-up (issue 47): the projection
        # without continuation under Baumgarte stabilisation, and a named elimination, give the
        # command line's numbers to the bit
        cases = [(model_path("double_four_bar"), dict(method="projection", continuation=False, stabilization="baumgarte", baumgarte_alpha=5,
                       baumgarte_beta=7, energy_tolerance=1e-3),
                  ["--method", "projection", "--continuation", "off", "--stabilization", "baumgarte",
                   "--baumgarte-alpha", "5", "--baumgarte-beta", "7", "--energy-tolerance", "1e-3"]),
                 (model_path("redundant_pendulum"), dict(method="elimination", eliminate=["rod1"], projection_tolerance=1e-7),
                  ["--method", "elimination", "--eliminate", "rod1", "--projection-tolerance", "1e-7"]),
                 (model_path("double_four_bar"), dict(points=["tip=crank1.top", "mid=coupler1.left"], columns=["bodies", "points"]),
                  ["--point", "tip=crank1.top", "--point", "mid=coupler1.left", "--columns", "bodies,points"])]
        for path, kwargs, flags in cases:
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "run.csv")
                cli = subprocess.run([CLI, "simulate", path, "--t-end", "0.5", "--out", out] + flags,
                                     capture_output=True, text=True)
                with open(out if cli.returncode == 0 else out.replace(".csv", ".failed.csv"), newline="") as f:
                    rows = list(csv.reader(f))
            run = loopdyn.simulate(loopdyn.load(path), t_end=0.5, **kwargs)
            self.assertEqual(run.ok, cli.returncode == 0, cli.stderr)
            header, values = rows[0], np.array([[float(x) for x in row] for row in rows[1:]])
            self.assertEqual(list(run.columns), header)
            for j, name in enumerate(header):
                np.testing.assert_array_equal(run[name], values[:, j], err_msg=f"{kwargs}: {name}")
        with self.assertRaises(loopdyn.InvalidArgument) as caught:  # (not redundant: the motion would change)
            loopdyn.simulate(loopdyn.load(model_path("redundant_pendulum")), t_end=0.5, method="elimination",
                             eliminate=["rod1", "rod2"])
        self.assertTrue(str(caught.exception).startswith("eliminate: removes too many"), str(caught.exception))
        with self.assertRaises(loopdyn.InvalidArgument) as caught:
            loopdyn.simulate(loopdyn.load(model_path("double_four_bar")), t_end=0.5, points=["tip=crank1.tip"])
        self.assertEqual(str(caught.exception),
                         "points: 'tip=crank1.tip': body 'crank1' has no marker 'tip' (did you mean 'top'?)")

    def test_parallelogram_cranks_stay_parallel(self):
        # paper 004's exact motion: all three cranks turn alike through the singular crossings
        run = loopdyn.simulate(loopdyn.load(model_path("double_four_bar")), t_end=3, rtol=1e-10, atol=1e-12)
        self.assertTrue(run.ok, run.failure)
        np.testing.assert_allclose(run["crank2.phi"], run["crank1.phi"], atol=1e-7)
        np.testing.assert_allclose(run["crank3.phi"], run["crank1.phi"], atol=1e-7)
        self.assertLess(run.energy_drift, 1e-8 * run.energy_scale)

    def test_relative_coordinates_give_the_same_motion_and_joint_columns(self):
        model = loopdyn.load(model_path("double_four_bar"))
        absolute = loopdyn.simulate(model, t_end=1, rtol=1e-10, atol=1e-12)
        relative = loopdyn.simulate(model, t_end=1, rtol=1e-10, atol=1e-12, coordinates="relative")
        self.assertTrue(relative.ok, relative.failure)
        # two integrations at rtol 1e-10 (issue 15: the same motion to 1e-8)
        np.testing.assert_allclose(relative["crank1.phi"], absolute["crank1.phi"], atol=1e-8)
        self.assertIn("O1.q1", relative.columns)
        self.assertNotIn("O1.q1", absolute.columns)
        dca = loopdyn.simulate(model, t_end=1, rtol=1e-10, atol=1e-12, method="dca")
        self.assertTrue(dca.ok, dca.failure)
        np.testing.assert_allclose(dca["crank1.phi"], absolute["crank1.phi"], atol=1e-8)
        hdca = loopdyn.simulate(model, t_end=1, rtol=1e-10, atol=1e-12, method="hdca")
        self.assertTrue(hdca.ok, hdca.failure)
        np.testing.assert_allclose(hdca["crank1.phi"], absolute["crank1.phi"], atol=1e-8)
        # projection in joint coordinates passes the singular configuration at 0.714 s (its own
        # integration error at rtol 1e-10 is larger: 1e-7 here)
        projection = loopdyn.simulate(model, t_end=1, rtol=1e-10, atol=1e-12, method="projection",
                                      coordinates="relative")
        self.assertTrue(projection.ok, projection.failure)
        np.testing.assert_allclose(projection["crank1.phi"], absolute["crank1.phi"], atol=1e-7)
        # elimination and partitioning stop at that singular configuration, by design, and say so
        stopped = loopdyn.simulate(model, t_end=1, method="elimination")
        self.assertFalse(stopped.ok)
        self.assertEqual(stopped.status, "singular-configuration")
        self.assertAlmostEqual(stopped.failure_time, 0.714, delta=0.001)
        # up to it they give the same motion
        for method in ("elimination", "partitioning"):
            run = loopdyn.simulate(model, t_end=0.6, rtol=1e-10, atol=1e-12, method=method, coordinates="relative")
            self.assertTrue(run.ok, run.failure)
            np.testing.assert_allclose(run["crank1.phi"], absolute["crank1.phi"][:len(run["crank1.phi"])], atol=1e-8)
        with self.assertRaises(ValueError):
            loopdyn.simulate(model, t_end=1, coordinates="natural")

    def test_a_drivers_effort_is_the_power_it_puts_in_per_coordinate_rate(self):
        # the sign convention of docs/simulation.md: d(T + V)/dt = sum of effort x coordinate rate,
        # for the five-bar's two rotation drivers and for a distance driver lifting a slider
        run = loopdyn.simulate(loopdyn.load(model_path("five_bar")), t_end=1, sample=1e-3, columns=["all"])
        power = run["drive1.effort"] * run["A.v1"] + run["drive2.effort"] * run["E.v1"]
        rate = np.gradient(run["energy.kinetic"] + run["energy.potential"], run.t)
        inner = slice(1, -1)  # (central differences inside, one-sided at the ends)
        self.assertLess(np.max(np.abs(rate - power)[inner]), 1e-4 * np.max(np.abs(rate)))
        lift = loopdyn.Model.from_yaml("""dimension: 2
gravity: [0, -9.81]
ground: {markers: [{name: rail, position: [0, 0], angle: 1.5707963267948966}, {name: o, position: [0, 0]}]}
bodies:
  - {name: bob, mass: 2, inertia: 0.1, position: [0, 1], angle: 1.5707963267948966, markers: [{name: c, position: [0, 0]}]}
joints:
  - {name: slide, type: prismatic, between: [ground.rail, bob.c]}
drivers:
  - {name: push, between: [ground.o, bob.c], profile: {type: sine, offset: 1, amplitude: 0.2, frequency: 1, phase: 0}}
""", "lift.yaml")
        run = loopdyn.simulate(lift, t_end=1, sample=1e-3)
        self.assertAlmostEqual(run["push.effort"][0], 2 * 9.81, delta=1e-9)  # holds the bob up: pushes apart
        length = np.hypot(run["bob.x"], run["bob.y"])
        rate = np.gradient(run["energy.kinetic"] + run["energy.potential"], run.t)
        power = run["push.effort"] * np.gradient(length, run.t)
        self.assertLess(np.max(np.abs(rate - power)[inner]), 1e-4 * np.max(np.abs(rate)))

    def test_bad_requests_raise(self):
        model = loopdyn.load(model_path("four_bar_planar"))
        with self.assertRaises(ValueError):
            loopdyn.simulate(model, t_end=1, integrator="euler")
        with self.assertRaises(ValueError):
            loopdyn.simulate(model, t_end=-1)


if __name__ == "__main__":
    unittest.main()
