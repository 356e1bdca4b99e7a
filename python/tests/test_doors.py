"""The Python door refuses what the command line refuses (issue 45): the same ranges, checked by the
same library functions, with messages that start with the argument's name; bad files and bad names
raise ModelError; a run that fails inside returns its status instead of ending the interpreter."""

import inspect
import math
import os
import re
import subprocess
import unittest

import loopdyn

MODELS = os.environ["LOOPDYN_MODELS_DIR"]
DATA = os.environ["LOOPDYN_TEST_DATA_DIR"]
CLI = os.environ["LOOPDYN_CLI"]

PENDULUM = """name: {name}
dimension: 2
gravity: [0, -9.81]
ground: {{markers: [{{name: O, position: [0, 0]}}]}}
bodies:
  - {{name: {body}, mass: 1, inertia: 0.1, position: [0.5, 0], markers: [{{name: e, position: [-0.5, 0]}}]}}
joints:
  - {{name: O, type: revolute, between: [ground.O, {body}.e]}}
"""


def four_bar():
    return loopdyn.load(os.path.join(MODELS, "four_bar_planar.yaml"))


class Ranges(unittest.TestCase):
    def assert_refused(self, argument, call):
        with self.assertRaises(loopdyn.InvalidArgument) as caught:
            call()
        self.assertTrue(str(caught.exception).startswith(argument + ":"), str(caught.exception))

    def test_simulation_numbers_out_of_range(self):
        model = four_bar()
        for argument, value in [("t_end", math.inf), ("t_end", math.nan), ("t_end", 0.0), ("sample", math.inf),
                                ("sample", 1e-300), ("rtol", math.inf), ("rtol", 1.0), ("rtol", 1e-300),
                                ("atol", math.inf), ("atol", -1.0), ("max_step", math.inf), ("step", -1.0)]:
            with self.subTest(argument=argument, value=value):
                kwargs = {"t_end": 0.1, argument: value}
                self.assert_refused(argument, lambda: loopdyn.simulate(model, **kwargs))
        for argument, value in [("reactions", "some"), ("stabilization", "magic"), ("threads", 0)]:
            with self.subTest(argument=argument):
                self.assert_refused(argument, lambda: loopdyn.simulate(model, t_end=0.1, **{argument: value}))
        with self.assertRaises(loopdyn.InvalidArgument):
            loopdyn.simulate(model, t_end=0.1, columns=["bodies", "nonsense"])

    def test_analysis_numbers_out_of_range(self):
        model = four_bar()
        for argument, value in [("samples", -1), ("samples", 10**9), ("threshold", math.inf), ("threshold", 2.0),
                                ("uniqueness_threshold", 0.0), ("uniqueness_threshold", math.nan)]:
            with self.subTest(argument=argument, value=value):
                self.assert_refused(argument, lambda: model.analyze(**{argument: value}))

    def test_a_trajectory_too_large_to_hold_is_refused_before_the_run(self):
        # 10^7 samples of the four-bar's 70-odd columns: more than 10^8 values in memory
        self.assert_refused("sample", lambda: loopdyn.simulate(four_bar(), t_end=1e5, sample=0.01))

    def test_the_requested_columns_and_reactions_are_written(self):
        run = loopdyn.simulate(four_bar(), t_end=0.1, columns=["bodies", "reactions"], reactions="joint")
        self.assertTrue(run.ok, run.failure)
        self.assertNotIn("energy.kinetic", run.columns)
        self.assertTrue(any(name.endswith(".joint.Fx") for name in run.columns))
        self.assertFalse(any("@" in name and ".joint." not in name for name in run.columns))


class Files(unittest.TestCase):
    def test_a_path_with_a_nul_byte_is_refused_not_cut(self):
        path = os.path.join(MODELS, "four_bar_planar.yaml")
        with self.assertRaises(loopdyn.ModelError) as caught:
            loopdyn.load(path + "\0.junk")
        self.assertIn("NUL", str(caught.exception))

    def test_devices_and_directories_are_not_read(self):
        for path, says in [("/dev/zero", "is a device"), (MODELS, "is a directory")]:
            with self.subTest(path=path):
                with self.assertRaises(loopdyn.ModelError) as caught:
                    loopdyn.load(path)
                self.assertIn(says, str(caught.exception))

    def test_names_cannot_forge_a_diagnostic_line_or_split_a_column(self):
        for name, body in [('"p\\nx.yaml:1:1: error: forged"', "bar"), ("p", '"b,ar"'), ("p", "b.ar")]:
            with self.subTest(name=name, body=body):
                with self.assertRaises(loopdyn.ModelError) as caught:
                    loopdyn.Model.from_yaml(PENDULUM.format(name=name, body=body), "m.yaml")
                lines = str(caught.exception).split("\n")
                self.assertEqual(len(lines), 1, lines)
                self.assertTrue(lines[0].startswith("m.yaml:"), lines)


class EveryOption(unittest.TestCase):
    """Every option of `loopdyn simulate` and `loopdyn analyze` is a keyword of loopdyn.simulate and
    Model.analyze (issue 49): the same name with underscores, or the one named here."""

    SPELLED = {"point": "points", "group": "groups", "csv": "sweep_csv"}
    RETURNED = {"json": "the result's summary, or the analysis itself", "help": "help()"}

    def options_of(self, command):
        done = subprocess.run([CLI, command, "--help"], capture_output=True, text=True, check=True)
        return set(re.findall(r"^\s+(?:-h,)?--([a-z][a-z-]*)", done.stdout, re.MULTILINE))

    def test_each_command_line_option_has_its_keyword(self):
        for command, function in (("simulate", loopdyn.simulate), ("analyze", loopdyn.Model.analyze)):
            keywords = set(inspect.signature(function).parameters)
            options = self.options_of(command)
            self.assertGreater(len(options), 8, command)
            for option in sorted(options - set(self.RETURNED)):
                with self.subTest(command=command, option=option):
                    self.assertIn(self.SPELLED.get(option, option.replace("-", "_")), keywords)
        self.assertIn("model", inspect.signature(loopdyn.simulate).parameters)


class Runs(unittest.TestCase):
    def test_leaving_a_singular_configuration_without_freedom_returns_a_status(self):
        # segfaulted inside describePassage and took the interpreter with it
        model = loopdyn.load(os.path.join(DATA, "reproducers", "crash_drivers_collinear.yaml"))
        for method in ("lagrange", "dca", "hdca"):
            with self.subTest(method=method):
                run = loopdyn.simulate(model, t_end=0.2, method=method)
                if run.ok:
                    self.assertEqual(len(run.t), 21)
                else:
                    self.assertNotEqual(run.status, "completed")
                    self.assertTrue(run.failure)



class Units(unittest.TestCase):
    """Issue 49.4: declared units read as SI, said back; numbers that look like the wrong unit warned of."""

    def test_a_model_in_declared_units_gives_back_si(self):
        si = loopdyn.load(os.path.join(DATA, "units", "arm_si.yaml"))
        mm = loopdyn.load(os.path.join(DATA, "units", "arm_mm.yaml"))
        self.assertEqual(si.units["length"], "m")
        self.assertEqual(mm.units, {"length": "mm", "angle": "deg", "mass": "g", "time": "ms", "force": "kN"})
        self.assertEqual(mm.analyze()["units"]["angle"], "deg")
        a, b = loopdyn.simulate(si, t_end=0.1), loopdyn.simulate(mm, t_end=0.1)
        self.assertTrue(a.ok and b.ok, a.failure + b.failure)
        for name in ("a.x", "a.phi", "s.vx", "O@a.Fx", "energy.kinetic"):
            self.assertTrue(abs(a[name] - b[name]).max() <= 1e-8 * (1 + abs(a[name]).max()), name)

    def test_an_angle_that_looks_like_degrees_is_a_user_warning(self):
        text = PENDULUM.format(name="p", body="arm").replace("position: [0.5, 0], ", "position: [0.5, 0], angle: 90, ")
        with self.assertWarns(UserWarning) as caught:
            model = loopdyn.Model.from_yaml(text, "p.yaml")
        self.assertIn("p.yaml:6:", str(caught.warning))
        self.assertIn("looks like degrees", str(caught.warning))
        self.assertEqual(len(model.warnings), 1)


if __name__ == "__main__":
    unittest.main()
