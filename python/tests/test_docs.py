"""The docs name only what the outputs have: every key docs/simulation.md lists for
`loopdyn simulate --json` is in the JSON of a run (a completed one, a partitioning one, a failed one);
the README's table of bundled models lists every model in models/, with its n, m, h and rank."""

import json
import os
import re
import subprocess
import tempfile
import unittest

MODELS = os.environ["LOOPDYN_MODELS_DIR"]
CLI = os.environ["LOOPDYN_CLI"]
DOCS = os.path.join(MODELS, "..", "docs")


def keys_of(value):
    """Every key at any depth of a JSON value."""
    if isinstance(value, dict):
        return set(value) | set().union(*(keys_of(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(set(), *(keys_of(v) for v in value))
    return set()


class SimulateJson(unittest.TestCase):
    def test_every_key_the_docs_name_is_in_the_json(self):
        with open(os.path.join(DOCS, "simulation.md")) as f:
            text = f.read()
        start = text.index("`--json` prints\none object with these keys")
        paragraph = text[start:text.index("`events` and `warnings`.", start) + len("`events` and `warnings`.")]
        documented = set(re.findall(r"`([a-z_]+)`", paragraph))
        self.assertGreater(len(documented), 30)
        model = os.path.join(MODELS, "double_four_bar.yaml")
        found = set()
        with tempfile.TemporaryDirectory() as tmp:
            for flags in ([], ["--method", "partitioning"], ["--energy-tolerance", "1e-15"]):
                done = subprocess.run([CLI, "simulate", model, "--t-end", "0.2", "--json", "--out",
                                       os.path.join(tmp, "run.csv")] + flags, capture_output=True, text=True)
                found |= keys_of(json.loads(done.stdout))
        self.assertEqual(sorted(documented - found), [])


class BundledModels(unittest.TestCase):
    def test_the_readmes_table_lists_every_model_with_its_sizes_and_rank(self):
        with open(os.path.join(MODELS, "..", "README.md")) as f:
            rows = {}
            for line in f:
                match = re.match(r"\| `([a-z0-9_]+)(\[_singular\])?` \|[^|]*\| (\d+) \| (\d+) \| (\d+) \| ([\d /]+) \|", line)
                if match:
                    rows[match.group(1)] = (match.group(2), [int(x) for x in match.group(3, 4, 5)],
                                            [int(r) for r in match.group(6).split("/")])
        for name in sorted(f[:-5] for f in os.listdir(MODELS) if f.endswith(".yaml")):
            base = name[:-len("_singular")] if name.endswith("_singular") and name not in rows else name
            with self.subTest(model=name):
                self.assertIn(base, rows)
                suffix, sizes, ranks = rows[base]
                report = json.loads(subprocess.run([CLI, "analyze", os.path.join(MODELS, name + ".yaml"), "--json",
                                                    "--samples", "0", "--method", "qr"],
                                                   capture_output=True, text=True).stdout)
                self.assertEqual([report["n"], report["m"], report["h"]], sizes)
                self.assertEqual(report["rank"], ranks[-1] if name != base else ranks[0])


if __name__ == "__main__":
    unittest.main()
