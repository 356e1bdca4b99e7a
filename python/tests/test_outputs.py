"""The files loopdyn.simulate writes with out= and report= (issue 49): the command line's own --out,
its OUT.columns.json and --report page, handled as the command line handles them (a failed run's
under the failed names, nothing replacing the model, nothing left when a place cannot be written)."""

import json
import os
import re
import subprocess
import tempfile
import unittest

import loopdyn

MODELS = os.environ["LOOPDYN_MODELS_DIR"]
CLI = os.environ["LOOPDYN_CLI"]
DOUBLE_FOUR_BAR = os.path.join(MODELS, "double_four_bar.yaml")
TIMINGS = {"wall_seconds", "stage_seconds"}


def read(path):
    with open(path, "rb") as f:
        return f.read()


def without(value, keys):
    """A JSON value without these keys at any depth."""
    if isinstance(value, dict):
        return {k: without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [without(v, keys) for v in value]
    return value


def page_shape(path, names):
    """A page with its numbers and the files' names left out: what is drawn, not when or where."""
    text = read(path).decode()
    for name in names:
        text = text.replace(name, "NAME")
    return re.sub(r"[0-9][0-9.e+-]*", "N", text)


class OutAndReport(unittest.TestCase):
    def test_the_files_are_the_command_lines(self):
        # 0.8 s of the double four-bar: through its first singular crossing (0.714 s)
        with tempfile.TemporaryDirectory() as tmp:
            cli_dir, py_dir = os.path.join(tmp, "cli"), os.path.join(tmp, "py")
            os.mkdir(cli_dir)
            os.mkdir(py_dir)
            done = subprocess.run([CLI, "simulate", DOUBLE_FOUR_BAR, "--t-end", "0.8", "--threads", "1", "--json",
                                   "--out", os.path.join(cli_dir, "run.csv"), "--report",
                                   os.path.join(cli_dir, "run.html")], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            run = loopdyn.simulate(loopdyn.load(DOUBLE_FOUR_BAR), t_end=0.8, out=os.path.join(py_dir, "run.csv"),
                                   report=os.path.join(py_dir, "run.html"))
            self.assertTrue(run.ok, run.failure)
            self.assertEqual((run.out, run.report), (os.path.join(py_dir, "run.csv"), os.path.join(py_dir, "run.html")))
            for name in ("run.csv", "run.columns.json"):
                self.assertEqual(read(os.path.join(py_dir, name)), read(os.path.join(cli_dir, name)), name)
            self.assertEqual(sorted(os.listdir(py_dir)), sorted(os.listdir(cli_dir)))
            cli_summary = json.loads(done.stdout)
            self.assertEqual(without(run.summary, TIMINGS | {"output"}), without(cli_summary, TIMINGS | {"output"}))
            self.assertEqual(len(run.summary["singular_passages"]), 1)
            self.assertEqual(page_shape(os.path.join(py_dir, "run.html"), [py_dir]),
                             page_shape(os.path.join(cli_dir, "run.html"), [cli_dir]))

    def test_a_failed_run_goes_under_the_failed_names(self):
        with tempfile.TemporaryDirectory() as tmp:
            out, report = os.path.join(tmp, "run.csv"), os.path.join(tmp, "run.html")
            run = loopdyn.simulate(loopdyn.load(DOUBLE_FOUR_BAR), t_end=0.2, energy_tolerance=1e-15, out=out,
                                   report=report)
            self.assertFalse(run.ok)
            self.assertEqual(run.status, "energy-drift")
            self.assertEqual((run.failure_reason, run.summary["failure_reason"]), ("energy-drift", "energy-drift"))
            self.assertEqual((run.out, run.report), (os.path.join(tmp, "run.failed.csv"),
                                                     os.path.join(tmp, "run.failed.html")))
            self.assertEqual(sorted(os.listdir(tmp)), ["run.failed.columns.json", "run.failed.csv", "run.failed.html"])
            self.assertEqual(run.summary["output"], "")

    def test_a_model_that_cannot_be_assembled_writes_nothing(self):
        # the four-bar's ground pins 20 m apart (as the command line, which exits 3 before any file)
        with open(os.path.join(MODELS, "four_bar_planar.yaml")) as f:
            model = loopdyn.Model.from_yaml(f.read().replace("position: [4, 0]", "position: [20, 0]"), "far.yaml")
        with tempfile.TemporaryDirectory() as tmp:
            run = loopdyn.simulate(model, t_end=0.1, out=os.path.join(tmp, "run.csv"),
                                   report=os.path.join(tmp, "run.html"))
            self.assertEqual((run.ok, run.status, run.failure_reason, run.out, run.report),
                             (False, "start-failed", "problem", "", ""))
            self.assertEqual(os.listdir(tmp), [])

    def test_no_output_replaces_the_model_or_another_output(self):
        with tempfile.TemporaryDirectory() as tmp:
            model_file = os.path.join(tmp, "m.yaml")
            with open(model_file, "wb") as f:
                f.write(read(DOUBLE_FOUR_BAR))
            model = loopdyn.load(model_file)
            for kwargs, says in [({"out": model_file}, "out would write"), ({"report": model_file}, "report would write"),
                                 ({"out": os.path.join(tmp, "x"), "report": os.path.join(tmp, "x")},
                                  "out and report would both write")]:
                with self.subTest(kwargs=kwargs):
                    with self.assertRaises(loopdyn.InvalidArgument) as caught:
                        loopdyn.simulate(model, t_end=0.1, **kwargs)
                    self.assertIn(says, str(caught.exception))
            self.assertEqual(read(model_file), read(DOUBLE_FOUR_BAR))
            self.assertEqual(os.listdir(tmp), ["m.yaml"])

    def test_a_place_that_cannot_be_written_fails_before_the_run(self):
        with self.assertRaises(loopdyn.OutputError) as caught:
            loopdyn.simulate(loopdyn.load(DOUBLE_FOUR_BAR), t_end=100, out="/nonexistent-dir/run.csv")
        self.assertIn("/nonexistent-dir/run.csv", str(caught.exception))

    def test_a_page_needs_the_bodies(self):
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(loopdyn.InvalidArgument) as caught:
                loopdyn.simulate(loopdyn.load(DOUBLE_FOUR_BAR), t_end=0.1, columns=["energy"],
                                 report=os.path.join(tmp, "x.html"))
            self.assertTrue(str(caught.exception).startswith("report:"), str(caught.exception))
            self.assertEqual(os.listdir(tmp), [])


if __name__ == "__main__":
    unittest.main()
