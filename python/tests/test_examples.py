"""The Python lines a new user runs first (README, scripts/demo.sh) keep working: the example loads,
analyzes, simulates and writes its plot."""

import os
import subprocess
import sys
import tempfile
import unittest

EXAMPLES = os.path.join(os.environ["LOOPDYN_MODELS_DIR"], "..", "examples")


class FirstSteps(unittest.TestCase):
    def test_the_first_steps_example_prints_the_analysis_and_writes_its_plot(self):
        with tempfile.TemporaryDirectory() as tmp:
            plot = os.path.join(tmp, "first_steps.png")
            done = subprocess.run([sys.executable, os.path.join(EXAMPLES, "first_steps.py"), plot],
                                  capture_output=True, text=True, env=dict(os.environ))
            self.assertEqual(done.returncode, 0, done.stderr)
            # paper 001, sect. 4.2: rank 20, redundancy 2; B, C, W1-W4 not unique
            self.assertIn("rank 20, redundancy 2, mobility 1; reactions not unique: B, C, W1, W2, W3, W4",
                          done.stdout)
            with open(plot, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
