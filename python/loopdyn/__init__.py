"""loopdyn: dynamics of rigid multibody systems with closed loops and redundant constraints.

    import loopdyn
    model = loopdyn.load("models/double_four_bar.yaml")
    report = model.analyze()                 # the fields of `loopdyn analyze --json`
    run = loopdyn.simulate(model, t_end=10)  # numpy arrays per column, as `loopdyn simulate`'s CSV
    run["crank1.phi"], run.passages, run.ok
"""

from __future__ import annotations

from dataclasses import dataclass, field
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._loopdyn import AssemblyError, InvalidArgument, Model, ModelError, OutputError, __version__, load
from ._loopdyn import _Request, _inverse, _simulate

__all__ = ["AssemblyError", "Inverse", "InvalidArgument", "Model", "ModelError", "OutputError", "Simulation", "__version__", "inverse", "load",
           "simulate"]


def _arrays(value):
    """The JSON report with its numeric lists as numpy arrays (lists of equal-length numeric lists:
    2D arrays); everything else as it is."""
    if isinstance(value, dict):
        return {key: _arrays(item) for key, item in value.items()}
    if isinstance(value, list) and value:
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
            return np.array(value, dtype=float)
        if all(isinstance(x, list) and x and all(isinstance(y, (int, float)) and not isinstance(y, bool) for y in x)
               for x in value) and len({len(x) for x in value}) == 1:
            return np.array(value, dtype=float)
        return [_arrays(x) for x in value]
    return value


def _analyze(self, samples: int = 8, method: str = "auto", threshold: float = 1e-9, uniqueness_threshold: float = 1e-8,
             criterion: bool = False, motions: bool = False, topology: bool = False, coordinates: str = "absolute",
             groups: Sequence[str] = (), sweep: Optional[str] = None,
             sweep_csv: Optional[Union[str, os.PathLike]] = None, arrays: bool = True, actuators: Sequence[str] = ()):
    """The report of `loopdyn analyze --json` (docs/analysis.md) as Python objects: the same keys and
    values, with numeric lists as numpy arrays (arrays=False: exactly the JSON's lists).
    sweep ("JOINT.angle=FROM:TO:POINTS", as `--sweep`) adds the projective criterion over a driven
    sweep of that joint coordinate (paper 003, Fig. 3; key criterion_sweep, and the criterion at the
    configuration), sweep_csv writes it as `--csv` does. actuators (as `--actuators`) adds the
    actuation at the pose (key actuation: what they control, their redundancy and preloads,
    whether the pose is an actuation singularity), and with sweep ("ACTUATOR.angle=FROM:TO:POINTS")
    the actuation along that actuator's sweep instead of the criterion's.
    coordinates="relative" adds the uniqueness decided inside the DCA (paper 000; key
    relative_uniqueness), as `analyze --coordinates relative`; groups ("NAME=PAIR,PAIR,...@BODY",
    as `--group`) adds the uniqueness of those pairs' resultant on BODY. Raises InvalidArgument for
    an argument out of its range or a group that does not resolve, and AssemblyError (a RuntimeError)
    when the model's initial configuration cannot be assembled (the message says why), where the
    command line exits 3; loopdyn.simulate returns that failure in its result instead."""
    if isinstance(groups, str):
        groups = [groups]
    if isinstance(actuators, str):
        actuators = [actuators]
    report = self._analyze(samples, method, threshold, uniqueness_threshold, criterion, motions, topology,
                           coordinates, list(groups), sweep or "", "" if sweep_csv is None else os.fspath(sweep_csv),
                           list(actuators))
    return _arrays(report) if arrays else report


Model.analyze = _analyze


@dataclass
class Simulation:
    """The outcome of loopdyn.simulate: one numpy array per output column (the names of the CSV
    `loopdyn simulate` writes; `non_unique` lists the reactions the model does not determine), the
    events (dicts: kind, t, text and the numbers of that kind) and singular passages, and the run's
    checks. A failed run (ok False; status the kind of failure, e.g. "singular-configuration" or
    "energy-drift", failure_time when, failure in words) keeps its samples up to the failure.
    summary is the object `loopdyn simulate --json` prints (docs/simulation.md); out and report the
    files written ("" for none): the names asked for, or OUT.failed.csv / REPORT.failed.html when
    the run failed, as the command line's."""

    ok: bool
    failure: str
    formulation: str
    columns: Dict[str, np.ndarray]
    status: str = "completed"
    failure_reason: str = ""
    failure_time: float = 0.0
    non_unique: List[str] = field(default_factory=list)
    events: List[Dict[str, Any]] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    passages: List[float] = field(default_factory=list)
    energy_drift: float = 0.0
    energy_scale: float = 0.0
    max_position_violation: float = 0.0
    max_velocity_violation: float = 0.0
    steps: int = 0
    rhs_evaluations: int = 0
    stage_seconds: Dict[str, float] = field(default_factory=dict)
    summary: Dict[str, Any] = field(default_factory=dict)
    out: str = ""
    report: str = ""

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    @property
    def t(self) -> np.ndarray:
        return self.columns["t"]


def simulate(model: Model, t_end: float, method: str = "lagrange", integrator: str = "dopri5",
             rtol: float = 1e-8, atol: float = 0, sample: float = 0.01,
             coordinates: str = "absolute", stabilization: str = "projection", threads: int = 1,
             columns: Sequence[str] = ("default",), reactions: str = "world", points: Sequence[str] = (),
             step: float = 1e-3,
             max_step: float = 0, continuation: bool = True, switching: bool = True,
             eliminate: Sequence[str] = (), baumgarte_alpha: float = 10, baumgarte_beta: float = 10,
             projection_tolerance: float = 0, energy_tolerance: float = 0,
             max_steps: int = 1_000_000, out: Optional[Union[str, os.PathLike]] = None,
             report: Optional[Union[str, os.PathLike]] = None, mark_non_unique: bool = False) -> Simulation:
    """Forward dynamics from the model's assembled initial state for t_end seconds, sampled every
    `sample` seconds: the same numbers as `loopdyn simulate MODEL --t-end T_END` with the options
    of the same names (`--method METHOD --integrator INTEGRATOR --rtol RTOL --atol ATOL --sample
    SAMPLE --coordinates COORDINATES --stabilization STABILIZATION --threads THREADS --columns
    COLUMNS --reactions REACTIONS --point POINT ... --step STEP --max-step MAX_STEP --continuation CONTINUATION
    --switching SWITCHING --eliminate NAME ... --baumgarte-alpha A --baumgarte-beta B
    --projection-tolerance P --energy-tolerance E`); atol 0 (the default) is rtol / 100, as the
    CLI's; points ("NAME=BODY.MARKER") adds a body-fixed point's columns NAME.x ... NAME.vx ....
    out writes the CSV and its OUT.columns.json (`--out`), report the HTML page (`--report`): the
    same files as the command line's, committed when the run ends (a failed run's under
    OUT.failed.csv, REPORT.failed.html); neither may replace the model file or the other;
    mark_non_unique puts a `*` after the non-unique columns' names (`--mark-non-unique`).
    Raises InvalidArgument (a ValueError) for a request that cannot run, with the ranges the
    command line enforces: the message starts with the argument's name ("rtol: must be ..."), and
    OutputError (an OSError) naming the file that cannot be written (before the run when it can)."""
    if isinstance(columns, str):
        columns = [columns]
    if isinstance(eliminate, str):
        eliminate = [eliminate]
    if isinstance(points, str):
        points = [points]
    request = _Request()
    for name, value in (("t_end", t_end), ("method", method), ("integrator", integrator), ("rtol", rtol),
                        ("atol", atol), ("sample", sample), ("coordinates", coordinates),
                        ("stabilization", stabilization), ("threads", threads), ("columns", list(columns)),
                        ("reactions", reactions), ("points", list(points)), ("step", step), ("max_step", max_step),
                        ("continuation", continuation), ("switching", switching), ("eliminate", list(eliminate)),
                        ("baumgarte_alpha", baumgarte_alpha), ("baumgarte_beta", baumgarte_beta),
                        ("projection_tolerance", projection_tolerance), ("energy_tolerance", energy_tolerance),
                        ("max_steps", max_steps)):
        setattr(request, name, value)
    return Simulation(**_simulate(model, request, "" if out is None else os.fspath(out),
                                  "" if report is None else os.fspath(report), mark_non_unique))


@dataclass
class Inverse:
    """The outcome of loopdyn.inverse: one numpy array per output column (the names of the CSV
    `loopdyn inverse` writes: the bodies' motion, every reaction, every actuator's DRIVER.effort),
    `non_unique` the columns the model does not determine (with redundant actuation, efforts too),
    `drivers` the actuators, `preloads` the efforts' free combinations at the start (redundant
    actuation: each a dict driver -> coefficient, an orthonormal basis), the largest residuals of
    the equations solved and max_continuity_miss, the largest miss of one smooth motion between
    consecutive times relative to the step (above 0.1 the run stops as a branch jump). A run that
    stopped (ok False; status motion-not-prescribed, actuation-singular, assembly-failed,
    evaluation-failed, inconsistent-motion or branch-jump, failure_time when, failure in words)
    keeps its rows up to there; at actuation-singular, unbounded_efforts are the directions (dicts
    as preloads) in which the efforts grow without bound near the pose."""

    ok: bool
    status: str
    failure: str
    failure_time: float
    columns: Dict[str, np.ndarray]
    non_unique: List[str] = field(default_factory=list)
    drivers: List[str] = field(default_factory=list)
    preloads: List[Dict[str, float]] = field(default_factory=list)
    unbounded_efforts: List[Dict[str, float]] = field(default_factory=list)
    max_position_residual: float = 0.0
    max_velocity_residual: float = 0.0
    max_acceleration_residual: float = 0.0
    max_continuity_miss: float = 0.0

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    @property
    def t(self) -> np.ndarray:
        return self.columns["t"]


def inverse(model: Model, actuators: Sequence[str] = (), trajectory: Optional[Union[str, os.PathLike]] = None,
            t_end: float = 0, sample: float = 0.01, columns: Sequence[str] = (), reactions: str = "world",
            resolution: str = "least-norm", motor_constants: Optional[Dict[str, float]] = None,
            effort_limits: Optional[Dict[str, Union[float, Tuple[float, float]]]] = None) -> Inverse:
    """Inverse dynamics (docs/inverse_dynamics.md): the efforts of the actuators and the reactions
    of a prescribed motion, the same numbers as `loopdyn inverse MODEL --actuators A,B --trajectory
    T.csv` (or `--t-end T_END --sample SAMPLE` for the model's own drivers). actuators: joint
    efforts or revolute/prismatic joints; trajectory: a CSV with t and JOINT.q1 (JOINT.v1, with it JOINT.a1) columns,
    e.g. a `loopdyn simulate --columns joints` output. With redundant actuation, resolution chooses
    the efforts (`--resolution`): least-norm, weighted (the least sum of (effort / k)^2 with
    motor_constants {actuator: k}) or bounded (that choice within effort_limits {actuator: max or
    (lower, upper)}; the run stops where none is). Raises InvalidArgument (the message starts
    with the argument's name) and ModelError (the table's file:line:col)."""
    if isinstance(actuators, str):
        actuators = [actuators]
    if isinstance(columns, str):
        columns = [columns]
    limits = {}
    for name, bound in (effort_limits or {}).items():
        limits[name] = (-abs(float(bound)), abs(float(bound))) if isinstance(bound, (int, float)) else tuple(map(float, bound))
    return Inverse(**_inverse(model, list(actuators), "" if trajectory is None else os.fspath(trajectory), t_end, sample,
                              list(columns), reactions, resolution, dict(motor_constants or {}), limits))
