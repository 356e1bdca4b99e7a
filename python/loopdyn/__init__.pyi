import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

__version__: str

class ModelError(ValueError):
    """A model file or text is wrong; the message lists every problem as file:line:col: error: ..."""

class InvalidArgument(ValueError):
    """A request loopdyn cannot run: an unknown method or integrator, a number out of its range (the
    message starts with the argument's name: "rtol: must be ...")."""

class AssemblyError(RuntimeError):
    """Model.analyze: the model's initial configuration cannot be assembled (a loop that does not
    close, drivers asking for a pose the linkage cannot reach); the message names the file and why.
    loopdyn.simulate does not raise it: its result has ok False and the same words in failure."""

    kind: str
    """Why, as a code: "stalled", "out-of-iterations", "drivers-unreachable", "too-large" or
    "velocities-inconsistent"."""
    pairs: list[str]
    """The joints and drivers the failure names, largest misfit first."""

class OutputError(OSError):
    """loopdyn.simulate's out or report cannot be written; the message names the file and why.
    Raised before the run when the place cannot be written, and nothing is left under the name."""

class Model:
    """A compiled, immutable mechanism."""
    @staticmethod
    def from_yaml(text: str, name: str = "<yaml>") -> Model: ...
    @property
    def name(self) -> str: ...
    @property
    def dimension(self) -> int: ...
    @property
    def n(self) -> int: ...
    @property
    def m(self) -> int: ...
    @property
    def h(self) -> int: ...
    @property
    def bodies(self) -> List[str]: ...
    @property
    def pairs(self) -> List[str]: ...
    @property
    def units(self) -> Dict[str, str]:
        """The units the file declared ({"length": "mm", "angle": "deg", ...}); every number loopdyn
        gives back is SI (m, rad, kg, s, N) whatever they are."""
    @property
    def warnings(self) -> List[str]:
        """What the reader warned of ("file:line:col: warning: ..."), also raised as UserWarning by load."""
    def analyze(self, samples: int = 8, method: str = "auto", threshold: float = 1e-9,
                uniqueness_threshold: float = 1e-8, criterion: bool = False, motions: bool = False,
                topology: bool = False, coordinates: str = "absolute", groups: Sequence[str] = (),
                sweep: Optional[str] = None, sweep_csv: Optional[Union[str, os.PathLike]] = None,
                arrays: bool = True, actuators: Sequence[str] = ()) -> Dict[str, Any]:
        """The report of `loopdyn analyze --json` as Python objects (docs/analysis.md), numeric
        lists as numpy arrays (arrays=False: the JSON's lists; numbers the library holds as
        floating point are floats, counts ints, non-finite numbers None); coordinates="relative" adds
        relative_uniqueness (paper 000, inside the DCA); groups ("NAME=PAIR,PAIR,...@BODY", as
        `--group`) adds their resultants' uniqueness; sweep ("JOINT.angle=FROM:TO:POINTS", as
        `--sweep`) the criterion over a driven sweep (key criterion_sweep), sweep_csv its CSV (`--csv`). Raises InvalidArgument for an argument out of
        its range or a group that does not resolve, AssemblyError when the initial configuration
        cannot be assembled."""

def load(path: str) -> Model: ...

class Simulation:
    ok: bool
    failure: str
    formulation: str
    status: str
    failure_reason: str  # which account failure gives: "energy-drift", "steps-collapsed", "lock-up", ... ("" when ok)
    failure_time: float
    columns: Dict[str, np.ndarray]
    non_unique: List[str]
    events: List[Dict[str, Any]]
    warnings: List[str]
    passages: List[float]
    energy_drift: float
    energy_scale: float
    max_position_violation: float
    max_velocity_violation: float
    steps: int
    rhs_evaluations: int
    stage_seconds: Dict[str, float]  # the run's wall time by stage: start, integration, samples, watch, ...
    summary: Dict[str, Any]  # the object `loopdyn simulate --json` prints
    out: str     # the CSV written ("" for none; OUT.failed.csv when the run failed)
    report: str  # the HTML page written ("" for none; REPORT.failed.html when the run failed)
    def __getitem__(self, name: str) -> np.ndarray: ...
    @property
    def t(self) -> np.ndarray: ...

def simulate(model: Model, t_end: float, method: str = "lagrange", integrator: str = "dopri5",
             rtol: float = 1e-8, atol: float = 0, sample: float = 0.01,
             coordinates: str = "absolute", stabilization: str = "projection", threads: int = 1,
             columns: Sequence[str] = ("default",), reactions: str = "world", points: Sequence[str] = (),
             step: float = 1e-3,
             max_step: float = 0, continuation: bool = True, switching: bool = True,
             eliminate: Sequence[str] = (), baumgarte_alpha: float = 10, baumgarte_beta: float = 10,
             projection_tolerance: float = 0, energy_tolerance: float = 0,
             max_steps: int = 1_000_000, out: Optional[Union[str, os.PathLike]] = None,
             report: Optional[Union[str, os.PathLike]] = None, mark_non_unique: bool = False) -> Simulation: ...

class Inverse:
    ok: bool
    status: str
    failure: str
    failure_time: float
    columns: Dict[str, np.ndarray]
    non_unique: List[str]
    drivers: List[str]
    preloads: List[Dict[str, float]]
    unbounded_efforts: List[Dict[str, float]]
    max_position_residual: float
    max_velocity_residual: float
    max_acceleration_residual: float
    max_continuity_miss: float
    def __getitem__(self, name: str) -> np.ndarray: ...
    @property
    def t(self) -> np.ndarray: ...

def inverse(model: Model, actuators: Sequence[str] = (), trajectory: Optional[Union[str, os.PathLike]] = None,
            t_end: float = 0, sample: float = 0.01, columns: Sequence[str] = (), reactions: str = "world",
            resolution: str = "least-norm", motor_constants: Optional[Dict[str, float]] = None,
            effort_limits: Optional[Dict[str, Union[float, Tuple[float, float]]]] = None) -> Inverse: ...
