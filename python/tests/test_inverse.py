"""loopdyn.inverse: the command line's inverse dynamics (docs/inverse_dynamics.md) from Python."""

import os
import tempfile
import unittest

import numpy as np

import loopdyn

MODELS = os.environ["LOOPDYN_MODELS_DIR"]


class Inverse(unittest.TestCase):
    def test_the_drivers_efforts_are_simulates(self):
        model = loopdyn.load(os.path.join(MODELS, "five_bar.yaml"))
        forward = loopdyn.simulate(model, t_end=0.2, sample=0.05, rtol=1e-11)
        run = loopdyn.inverse(model, t_end=0.2, sample=0.05)
        self.assertTrue(run.ok, run.failure)
        self.assertEqual(run.drivers, ["drive1", "drive2"])
        self.assertEqual(run.non_unique, [])
        self.assertEqual(run.preloads, [])
        scale = np.abs(forward["drive1.effort"]).max()
        self.assertLess(np.abs(run["drive1.effort"] - forward["drive1.effort"]).max(), 1e-8 * scale)
        self.assertLess(run.max_continuity_miss, 1e-3)

    def test_redundant_efforts_are_a_named_choice(self):
        model = loopdyn.load(os.path.join(MODELS, "parallelogram_lift_two_motors.yaml"))
        least = loopdyn.inverse(model, t_end=1, sample=0.1)
        total = least["motor1.effort"] + least["motor2.effort"]  # (unique: the deck's lift)
        np.testing.assert_allclose(least["motor1.effort"], total / 2, rtol=1e-9, atol=1e-9)
        bounded = loopdyn.inverse(model, t_end=1, sample=0.1, resolution="bounded", motor_constants={"motor2": 2},
                                  effort_limits={"motor2": (-10, 60)})
        self.assertTrue(bounded.ok, bounded.failure)
        np.testing.assert_allclose(bounded["motor2.effort"], np.clip(0.8 * total, -10, 60), rtol=1e-9, atol=1e-9)
        with self.assertRaisesRegex(loopdyn.InvalidArgument, "motor_constants: the weighted resolution needs"):
            loopdyn.inverse(model, t_end=1, resolution="weighted")

    def test_the_actuation_analysis_finds_the_slider_cranks_dead_centre(self):
        report = loopdyn.load(os.path.join(MODELS, "slider_crank.yaml")).analyze(
            actuators=["rail"], sweep="rail.distance=0.7:0.9:4")
        actuation = report["actuation"]
        self.assertEqual((actuation["freedoms"], actuation["controlled"], actuation["redundancy"]), (1, 1, 0))
        edge = actuation["crossings"][0]
        self.assertTrue(edge["edge"] and edge["singular"])
        self.assertAlmostEqual(edge["value"], 0.8, places=6)  # rod 0.6 + crank 0.2
        self.assertNotIn("criterion_sweep", report)

    def test_samples_too_coarse_to_vouch_for_the_branch(self):
        run = loopdyn.inverse(loopdyn.load(os.path.join(MODELS, "jansen_linkage.yaml")), t_end=0.6, sample=0.2)
        self.assertFalse(run.ok)
        self.assertEqual(run.status, "branch-jump")
        self.assertAlmostEqual(run.failure_time, 0.4)
        self.assertEqual(len(run.t), 2)

    def test_a_motor_from_its_motion_and_the_doors_errors(self):
        model = loopdyn.load(os.path.join(MODELS, "slider_crank.yaml"))
        with tempfile.TemporaryDirectory() as scratch:
            motion = os.path.join(scratch, "motion.csv")
            loopdyn.simulate(model, t_end=0.1, sample=0.001, rtol=1e-11, columns=["joints"], out=motion)
            run = loopdyn.inverse(model, actuators="motor", trajectory=motion)
            self.assertTrue(run.ok, run.failure)
            self.assertLess(np.abs(run["motor.effort"][:-8] - 2).max(), 2e-8)
            with self.assertRaisesRegex(loopdyn.InvalidArgument, "actuators: 'motr' is neither"):
                loopdyn.inverse(model, actuators="motr", trajectory=motion)
            with self.assertRaisesRegex(loopdyn.ModelError, r"motion.columns.json:2:1: error: .* is not a finite number"):
                loopdyn.inverse(model, actuators="motor", trajectory=os.path.join(scratch, "motion.columns.json"))
        singular = loopdyn.inverse(loopdyn.load(os.path.join(MODELS, "three_rpr_singular.yaml")), t_end=0.1)
        self.assertEqual(singular.status, "actuation-singular")
        self.assertEqual(len(singular.unbounded_efforts), 1)
        for leg in ("D1", "D2", "D3"):  # the locked legs' self-stress: equal forces
            self.assertAlmostEqual(singular.unbounded_efforts[0][leg], 3 ** -0.5, places=9)
        self.assertIn("along 0.577 D1 + 0.577 D2 + 0.577 D3", singular.failure)
        free = loopdyn.inverse(loopdyn.load(os.path.join(MODELS, "double_four_bar.yaml")), t_end=0.1)
        self.assertFalse(free.ok)
        self.assertEqual(free.status, "motion-not-prescribed")


if __name__ == "__main__":
    unittest.main()
