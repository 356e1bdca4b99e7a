// Simulation in absolute coordinates: closed-form pendulum, energy, and the cross-check of paper
// 001 (same motion and same unique reactions whichever redundant equations are eliminated).

#include "loopdyn/sim/simulation.hpp"
#include "loopdyn/dynamics/formulations/elimination.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>

#include <algorithm>
#include <memory>

#include "loopdyn/analysis/reaction_uniqueness.hpp"
#include "loopdyn/loopdyn.hpp"
#include "loopdyn/sim/formulation_choice.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "loopdyn/kinematics/pair_wrench.hpp"
#include "loopdyn/spatial/rotation.hpp"
#include "test_models.hpp"

namespace loopdyn {
namespace {

/// A uniform bar of length l hanging from a ground pivot at its end, released at angle theta0
/// from the vertical.
Model barPendulum(Scalar l, Scalar theta0) {
  ModelSpec spec;
  spec.name = "pendulum";
  spec.dimension = 2;
  spec.gravity = Vec3(0, -9.81, 0);
  spec.ground_markers.push_back({"pivot", Vec3::Zero(), Mat3::Identity(), {}});
  BodySpec bar;
  bar.name = "bar";
  bar.mass = 2;
  bar.inertia = Mat3::Identity() * bar.mass * l * l / 12;
  bar.orientation = rotationZ(theta0 - std::numbers::pi / 2);  // body x along the bar, downwards
  bar.position = bar.orientation * Vec3(l / 2, 0, 0);
  bar.markers.push_back({"end", Vec3(-l / 2, 0, 0), Mat3::Identity(), {}});
  spec.bodies.push_back(bar);
  spec.joints.push_back({"O", JointType::Revolute, {"ground", "pivot", {}}, {"bar", "end", {}}, 0, {}, {}});
  return compile(spec);
}

TEST(Simulation, PendulumPeriodMatchesTheClosedForm) {
  const Scalar l = 0.8, theta0 = 0.1;
  const Model model = barPendulum(l, theta0);
  // T = 2 pi sqrt(I_O / (m g d)) (1 + theta0^2/16 + 11 theta0^4/3072 + ...), I_O = m l^2/3, d = l/2;
  // the next term, 173 theta0^6 / 737280, is 2e-10
  const Scalar T0 = 2 * std::numbers::pi * std::sqrt((l * l / 3) / (9.81 * l / 2));
  const Scalar t2 = theta0 * theta0;
  const Scalar expected = T0 * (1 + t2 / 16 + 11 * t2 * t2 / 3072);
  SimulationOptions options;
  options.t_end = 0.3 * expected;
  options.sample_interval = 1e-4;
  options.ode.rtol = options.ode.atol = 1e-12;
  LagrangeFormulation lagrange(model);
  // the angle from the vertical crosses zero at a quarter period (linear interpolation between
  // samples: the angle is linear there to 1e-12)
  Scalar previous_angle = theta0, previous_t = 0, quarter = -1;
  const SimulationResult r = simulate(model, lagrange, initialState(model), options, [&](const Sample& s, const DynamicsWorkspace&) {
    const Scalar angle = s.x.q(2) + std::numbers::pi / 2;
    if (quarter < 0 && previous_angle > 0 && angle <= 0)
      quarter = previous_t + (s.x.t - previous_t) * previous_angle / (previous_angle - angle);
    previous_angle = angle;
    previous_t = s.x.t;
  });
  ASSERT_TRUE(r.ok) << r.failure;
  ASSERT_GT(quarter, 0);
  EXPECT_NEAR(4 * quarter / expected, 1, 1e-6);
  // energy conserved to the integration tolerance
  EXPECT_LT(r.energy_drift_max / r.energy_scale, 1e-9);
}

bool warnsOfTheEnergyBlindSpot(const SimulationResult& r) {
  return std::any_of(r.warnings.begin(), r.warnings.end(),
                     [](const RunWarning& w) { return w.kind == RunWarning::Kind::EnergyBlindSpot; });
}

TEST(Simulation, SaysWhenTheEnergyCheckCannotSeeTheMotionsOwnEnergy) {
  // issue 46: the energy scale is at least the work of gravity over the characteristic length
  // (m g L = 15.7 J here), so a motion of 4e-6 J (1 mrad) could lose all of it at exit 0
  SimulationOptions options;
  options.t_end = 0.5;
  const Model small = barPendulum(0.8, 1e-3);
  LagrangeFormulation lagrange(small);
  const SimulationResult blind = simulate(small, lagrange, initialState(small), options, [](const Sample&, const DynamicsWorkspace&) {});
  ASSERT_TRUE(blind.ok) << blind.failure;
  EXPECT_TRUE(warnsOfTheEnergyBlindSpot(blind));
  // an energy tolerance that resolves a tenth of the motion's energy sees it (and the run holds it)
  options.energy_tolerance = 2e-8;
  const SimulationResult resolved = simulate(small, lagrange, initialState(small), options, [](const Sample&, const DynamicsWorkspace&) {});
  ASSERT_TRUE(resolved.ok) << resolved.failure;
  EXPECT_FALSE(warnsOfTheEnergyBlindSpot(resolved));
  // a swing of 0.3 rad (0.35 J) is seen at the default tolerance
  options.energy_tolerance = 0;
  const Model large = barPendulum(0.8, 0.3);
  LagrangeFormulation lagrange_large(large);
  const SimulationResult seen = simulate(large, lagrange_large, initialState(large), options, [](const Sample&, const DynamicsWorkspace&) {});
  ASSERT_TRUE(seen.ok) << seen.failure;
  EXPECT_FALSE(warnsOfTheEnergyBlindSpot(seen));
}

/// Per sample: positions and, per pair, the wrench on its first body at its point.
struct Trajectory {
  std::vector<VecX> q;
  std::vector<std::map<std::string, Vec6>> wrenches;
};

Trajectory run(const Model& model, Formulation& formulation, const State& x0, Scalar t_end) {
  SimulationOptions options;
  options.t_end = t_end;
  options.sample_interval = 0.05;
  options.ode.rtol = 1e-10;
  options.ode.atol = 1e-12;
  Trajectory out;
  const SimulationResult r = simulate(model, formulation, x0, options, [&](const Sample& s, const DynamicsWorkspace&) {
    out.q.push_back(s.x.q);
    std::map<std::string, Vec6> wrenches;
    for (std::size_t p = 0; p < model.pairs().size(); ++p) wrenches[model.pairs()[p].name] = s.reactions[p].on_body1;
    out.wrenches.push_back(wrenches);
  });
  EXPECT_TRUE(r.ok) << formulation.name() << ": " << r.failure;
  return out;
}

TEST(Simulation, RobotEliminationVariantsAndLagrangeAgreeOnMotionAndUniqueReactions) {
  // paper 001, sect. 4.4: eliminating equations 6 & 21, 18 & 21 or 19 & 21 (C.y & W4, W1 & W4,
  // W2 & W4) gives the same motion; the reactions in A, D..H, the driver and W5 agree, those in
  // B, C, W1..W4 do not. Over the whole steering profile (7 s: right turn, straight, left turn).
  const Model model = test::loadModel("mobile_robot");
  const State x0 = test::assembledInitialState(model);
  LagrangeFormulation lagrange(model);
  const Trajectory reference = run(model, lagrange, x0, 7);
  const std::vector<std::string> unique{"A", "D", "E", "F", "G", "H", "steer", "W5"};
  const std::vector<std::string> not_unique{"B", "C", "W1", "W2", "W3", "W4"};
  for (const std::vector<std::string>& eliminated :
       {std::vector<std::string>{"C.y", "W4"}, {"W1", "W4"}, {"W2", "W4"}}) {
    EliminationFormulation elimination(model, equationRows(model, eliminated));
    const Trajectory variant = run(model, elimination, x0, 7);
    ASSERT_EQ(variant.q.size(), reference.q.size());
    Scalar motion = 0;
    std::map<std::string, Scalar> difference, size;
    for (std::size_t k = 0; k < reference.q.size(); ++k) {
      motion = std::max(motion, (variant.q[k] - reference.q[k]).cwiseAbs().maxCoeff());
      for (const auto& [name, w] : reference.wrenches[k]) {
        difference[name] = std::max(difference[name], (variant.wrenches[k].at(name) - w).norm());
        size[name] = std::max(size[name], w.norm());
      }
    }
    EXPECT_LT(motion, 1e-6) << eliminated[0];
    for (const std::string& name : unique)
      EXPECT_LT(difference[name], 1e-6 * size[name]) << name << " with " << eliminated[0] << " eliminated";
    for (const std::string& name : not_unique)
      EXPECT_GT(difference[name], 1e-3 * size[name]) << name << " with " << eliminated[0] << " eliminated";
  }
}

TEST(Simulation, AutomaticEliminationIsReChosenWhereItsRowsBecomeDependent) {
  // The spatial four-bar (four parallel revolutes, redundancy 3): QR at t = 0 eliminates O4.rx,
  // B.ry, O2.ry; along the motion the kept joint-frame equations become dependent at a regular
  // configuration (measured with bs23, rtol 1e-8: A.ry at t = 1.408 s). A fixed choice must stop
  // there and say the mechanism is not singular; the automatic one continues with the rows QR
  // keeps there and moves like lagrange.
  const Model model = test::loadModel("four_bar_spatial");
  const State x0 = test::assembledInitialState(model);
  SimulationOptions options;
  options.t_end = 2;
  options.sample_interval = 0.05;
  options.integrator = ode::Method::Bs23;
  const std::vector<int> rows = equationRows(model, {"O4.rx", "B.ry", "O2.ry"});
  auto noSamples = [](const Sample&, const DynamicsWorkspace&) {};
  EliminationFormulation fixed(model, rows, false);
  const SimulationResult stopped = simulate(model, fixed, x0, options, noSamples);
  EXPECT_FALSE(stopped.ok);
  EXPECT_EQ(stopped.status, RunStatus::EvaluationFailed) << stopped.failure;
  // (where its equations turn dependent along this run: 0.814 s at bs23's default tolerance)
  EXPECT_GT(stopped.failure_time, 0);
  EXPECT_LT(stopped.failure_time, options.t_end);
  EXPECT_EQ(stopped.failure.reason, RunFailure::Reason::IntegratorGaveUp) << stopped.failure;
  EXPECT_EQ(stopped.failure.t, stopped.failure_time);
  EXPECT_EQ(stopped.failure.cause.kind, Problem::Kind::KeptRowsDependent) << stopped.failure;

  std::vector<VecX> q_elimination, q_lagrange;
  EliminationFormulation automatic(model, rows, true);
  const SimulationResult r = simulate(model, automatic, x0, options,
                                      [&](const Sample& s, const DynamicsWorkspace&) { q_elimination.push_back(s.x.q); });
  ASSERT_TRUE(r.ok) << r.failure;
  LagrangeFormulation lagrange(model);
  simulate(model, lagrange, x0, options, [&](const Sample& s, const DynamicsWorkspace&) { q_lagrange.push_back(s.x.q); });
  ASSERT_EQ(q_elimination.size(), q_lagrange.size());
  Scalar difference = 0;
  for (std::size_t k = 0; k < q_lagrange.size(); ++k)
    difference = std::max(difference, (q_elimination[k] - q_lagrange[k]).cwiseAbs().maxCoeff());
  // two bs23 runs at rtol 1e-8 over 2 s: measured 1e-8; 1e-6 allows for the error growth of
  // two independent integrations of different formulations
  EXPECT_LT(difference, 1e-6);
}

TEST(Simulation, DoubleFourBarPassesItsSingularConfigurationsConservingEnergy) {
  // IFToMM benchmark set-up (model header): 10 s from cranks vertical, top of crank 1 at 1 m/s.
  // Each of the 10 horizontal poses (rank 14 -> 12) is stepped across and recorded as a passage
  // on the motion's branch.
  const Model model = test::loadModel("double_four_bar");
  const State x0 = test::assembledInitialState(model);
  const SimulationOptions options = test::accurateOptions(10, 1e-10, 0.01);
  LagrangeFormulation lagrange(model);
  int crossings = 0;
  Scalar previous = 0;
  const SimulationResult r = simulate(model, lagrange, x0, options, [&](const Sample& s, const DynamicsWorkspace&) {
    // all bars horizontal when crank 1 is: sin(phi) changes sign
    const Scalar s_phi = std::sin(s.x.q(2));
    if (previous * s_phi < 0) ++crossings;
    previous = s_phi;
  });
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(crossings, 10);
  ASSERT_EQ(r.passages.size(), 10u);
  for (const SingularPassage& p : r.passages) {
    EXPECT_EQ(p.rank, 12) << "t = " << p.t;
    EXPECT_EQ(p.new_motions.cols(), 2) << "t = " << p.t;
    EXPECT_LT(p.branch_change, 0.05) << "t = " << p.t;  // measured below 0.02
  }
  EXPECT_EQ(r.crossing_steps, 10);
  // measured 1.3e-10 of the energy scale at rtol 1e-10 (the integration error of 1500 steps)
  EXPECT_LT(r.energy_drift_max / r.energy_scale, 1e-8);
}

// The projection trigger follows atol where atol / L exceeds rtol: the integrator lets positions err
// by about atol a step, and a trigger at rtol then projected after nearly every step, each a restart
// of adams at order 1, until its step size collapsed (rtol 1e-12, atol 1e-10 on the double
// four-bar: 10^6 steps by t = 1.17 s). Measured with the trigger at max(rtol, atol / L) over 1.5 s:
// 449 steps, 2 projections. A --projection-tolerance given below that drift is the user's choice (10
// rtol there still collapses, after 37 s): the run warns at its start.
TEST(Simulation, ProjectionTriggerFollowsAnAbsoluteToleranceAboveRtol) {
  const Model model = test::loadModel("double_four_bar");
  const State x0 = test::assembledInitialState(model);
  SimulationOptions options = test::accurateOptions(1.5, 1e-12, 0.01);
  options.ode.atol = 1e-10;
  options.integrator = ode::Method::Adams;
  LagrangeFormulation lagrange(model);
  const SimulationResult r = simulate(model, lagrange, x0, options, [](const Sample&, const DynamicsWorkspace&) {});
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_LT(r.statistics.steps, 5000);
  EXPECT_LT(r.projections, r.statistics.steps / 10);
  EXPECT_TRUE(r.warnings.empty());
  // an explicit trigger below that drift is the user's choice, and the run says what it costs
  options.t_end = 0.05;
  options.projection_tolerance = 1e-11;
  options.integrator = ode::Method::Dopri5;
  const SimulationResult tight = simulate(model, lagrange, x0, options, [](const Sample&, const DynamicsWorkspace&) {});
  ASSERT_EQ(tight.warnings.size(), 1u);
  ASSERT_DOUBLE_EQ(model.characteristicLength(), 0.5);
  EXPECT_EQ(tight.warnings[0].kind, RunWarning::Kind::ProjectionBelowDrift);
  EXPECT_EQ(tight.warnings[0].value, 1e-11);                 // the trigger asked
  EXPECT_DOUBLE_EQ(tight.warnings[0].bound, 2e-10);          // max(rtol, atol / L)
  EXPECT_FALSE(tight.warnings[0].adams);
}

// A run whose integrator restarts after most of its steps says so: projection with continuation
// off (paper 004's "traditional" QR basis, refactorised after every step) rewrites its variables
// after each step, and each rewrite restarts adams at order 1 with a step CVODE estimates anew,
// tiny from rest: about 100 000 steps for the first 20 ms of the redundant pendulum, the double
// four-bar or the modified 2x2 four-bar (54 322 for 0.1 s of the last, against 25 with the
// continuation, which never restarts). dopri5 restarts cheaply: no warning there.
TEST(Simulation, AdamsRestartingAfterMostStepsWarns) {
  const Model model = test::loadModel("redundant_pendulum");
  const State x0 = test::assembledInitialState(model);
  const auto run = [&](bool continuation, ode::Method integrator) {
    FormulationChoice choice;
    choice.method = "projection";
    choice.continuation = continuation;
    BuiltFormulation built = buildFormulation(model, x0, choice);
    EXPECT_TRUE(built.formulation) << built.problem;
    SimulationOptions options = test::accurateOptions(0.01, 1e-8, 0.01);
    options.integrator = integrator;
    options.generic_rank = built.generic_rank;
    return simulate(model, *built.formulation, x0, options, [](const Sample&, const DynamicsWorkspace&) {});
  };
  const auto restartWarning = [](const SimulationResult& r) {
    return std::count_if(r.warnings.begin(), r.warnings.end(),
                         [](const RunWarning& w) { return w.kind == RunWarning::Kind::AdamsRestarts; });
  };
  const SimulationResult off = run(false, ode::Method::Adams);
  ASSERT_TRUE(off.ok) << off.failure;
  EXPECT_EQ(off.restarts, off.statistics.steps);
  EXPECT_EQ(restartWarning(off), 1);
  const SimulationResult on = run(true, ode::Method::Adams);
  ASSERT_TRUE(on.ok) << on.failure;
  EXPECT_LT(on.restarts, on.statistics.steps / 2);
  EXPECT_EQ(restartWarning(on), 0);
  const SimulationResult one_step = run(false, ode::Method::Dopri5);
  ASSERT_TRUE(one_step.ok) << one_step.failure;
  EXPECT_EQ(restartWarning(one_step), 0);
}

// What is sampled does not change the motion: every formulation's right-hand side is a function
// of (t, y) alone, so the dense output's and the samples' evaluations in between leave the run bit
// for bit the same. The projection and partitioning formulations read b = dPhi/dt - C v from the
// jets, whose rounding depends on v, at a stale x.v: the modified 2x2 four-bar's projection run
// took 283 or 277 steps with samples every 10 or 3.7 ms and ended 2.6e-4 m apart after 3 s
// (continuation off; 4.5e-9 m with it). Over 1.5 s through its first passages (partitioning and
// elimination stop at the first one, a failure they report the same way both times).
TEST(Simulation, TheMotionDoesNotDependOnTheSampleInterval) {
  const Model model = test::loadModel("modified_2x2_four_bar");
  const State x0 = test::assembledInitialState(model);
  for (const auto& [method, continuation] : {std::pair{"lagrange", true}, std::pair{"projection", true},
                                             std::pair{"projection", false}, std::pair{"partitioning", true},
                                             std::pair{"elimination", true}}) {
    for (const ode::Method integrator : {ode::Method::Dopri5, ode::Method::Dop853}) {
      std::vector<State> ends;
      for (const Scalar interval : {0.01, 0.0037}) {
        FormulationChoice choice;
        choice.method = method;
        choice.continuation = continuation;
        BuiltFormulation built = buildFormulation(model, x0, choice);
        ASSERT_TRUE(built.formulation) << built.problem;
        SimulationOptions options = test::accurateOptions(1.5, 1e-8, interval);
        options.integrator = integrator;
        options.generic_rank = built.generic_rank;
        const SimulationResult r =
            simulate(model, *built.formulation, x0, options, [](const Sample&, const DynamicsWorkspace&) {});
        ends.push_back(r.final_state);
      }
      const std::string where = std::string(method) + (continuation ? ", " : " (continuation off), ") +
                                std::string(ode::methodName(integrator));
      EXPECT_EQ(ends[0].t, ends[1].t) << where;
      EXPECT_EQ(ends[0].q, ends[1].q) << where;
      EXPECT_EQ(ends[0].v, ends[1].v) << where;
    }
  }
}

TEST(Simulation, ModifiedDoubleFourBarPassesItsSingularConfigurations) {
  // Paper 004's modified double four-bar (redundant, rank 11 -> 10 at the horizontal). Plain
  // least-norm multipliers evaluated next to the singular configuration captured it at the first
  // horizontal pass from below (t = 2.18 s, 23% of the energy lost in one step); stepped across,
  // it passes every one at the CLI's default rtol.
  const Model model = test::loadModel("modified_double_four_bar");
  const State x0 = test::assembledInitialState(model);
  SimulationOptions options;
  options.t_end = 10;
  options.sample_interval = 0.01;
  LagrangeFormulation lagrange(model);
  int crossings = 0;
  Scalar previous = 0;
  const SimulationResult r = simulate(model, lagrange, x0, options, [&](const Sample& s, const DynamicsWorkspace&) {
    const Scalar s_phi = std::sin(s.x.q(2));  // crank 1 horizontal: all bars are
    if (previous * s_phi < 0) ++crossings;
    previous = s_phi;
  });
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_GE(crossings, 5);
  EXPECT_EQ(r.passages.size(), static_cast<std::size_t>(crossings));
  // measured 1.1e-8 at rtol 1e-8
  EXPECT_LT(r.energy_drift_max / r.energy_scale, 1e-6);
}

}  // namespace
}  // namespace loopdyn

namespace loopdyn {
namespace {

/// A model from tests/data/degenerate (valid mechanisms with no or few constraints, issue 23).
Model degenerateModel(const std::string& name) {
  return compile(io::readModelFile(std::string(LOOPDYN_TEST_DATA_DIR) + "/degenerate/" + name + ".yaml"));
}

/// Every formulation the command line offers, built for the model at x0.
std::vector<std::unique_ptr<Formulation>> everyFormulation(const Model& model, const State& x0) {
  std::vector<std::unique_ptr<Formulation>> out;
  for (const char* method : {"lagrange", "elimination", "partitioning", "projection"}) {
    FormulationChoice choice;
    choice.method = method;
    BuiltFormulation built = buildFormulation(model, x0, choice);
    EXPECT_TRUE(built.formulation) << method << ": " << built.problem;
    if (built.formulation) out.push_back(std::move(built.formulation));
  }
  return out;
}

// A body with no joint at all (m = h = 0: every matrix of the constraints has no rows) falls
// freely: x = v_x t, y = v_y t - g t^2 / 2, phi = w t, with every formulation. 1e-9: the
// integration error at rtol 1e-10 over 2 s of a quadratic motion.
TEST(Simulation, FreeBodyFallsFreely) {
  const Model model = degenerateModel("free_body");
  const State x0 = test::assembledInitialState(model);
  for (const auto& formulation : everyFormulation(model, x0)) {
    Scalar error = 0;
    const SimulationResult r =
        simulate(model, *formulation, x0, test::accurateOptions(2, 1e-10, 0.05), [&](const Sample& s, const DynamicsWorkspace&) {
          const Scalar t = s.x.t;
          error = std::max({error, std::abs(s.x.q(0) - t), std::abs(s.x.q(1) - (2 * t - 0.5 * 9.81 * t * t)),
                            std::abs(s.x.q(2) - 0.5 * t)});
        });
    ASSERT_TRUE(r.ok) << formulation->name() << ": " << r.failure;
    EXPECT_LT(error, 1e-9) << formulation->name();
  }
}

// A spatial body hanging from ground on a spring-damper only (k = 100 N/m, c = 1 N s/m, 1 kg):
// z - z_eq = x0 e^(-zeta w t) (cos w_d t + zeta w / w_d sin w_d t), z_eq = -1 - m g / k,
// x0 = m g / k (it starts at the free length, at rest). 1e-8 m at rtol 1e-10 over 3 s.
TEST(Simulation, MassOnASpringMovesAsTheDampedOscillator) {
  const Model model = degenerateModel("mass_on_spring");
  const State x0 = test::assembledInitialState(model);
  const Scalar k = 100, c = 1, m = 1, g = 9.81, w = std::sqrt(k / m), zeta = c / (2 * std::sqrt(k * m));
  const Scalar wd = w * std::sqrt(1 - zeta * zeta), z_eq = -1 - m * g / k, x_start = m * g / k;
  for (const auto& formulation : everyFormulation(model, x0)) {
    Scalar error = 0;
    const SimulationResult r =
        simulate(model, *formulation, x0, test::accurateOptions(3, 1e-10, 0.05), [&](const Sample& s, const DynamicsWorkspace&) {
          const Scalar t = s.x.t;
          const Scalar z = z_eq + x_start * std::exp(-zeta * w * t) * (std::cos(wd * t) + zeta * w / wd * std::sin(wd * t));
          error = std::max({error, std::abs(s.x.q(2) - z), s.x.q.head<2>().norm()});
        });
    ASSERT_TRUE(r.ok) << formulation->name() << ": " << r.failure;
    EXPECT_LT(error, 1e-8) << formulation->name();
  }
}

// Three constant distance drivers and no joint hold a 2 kg body against gravity: it stays where it
// is, the two hanging distances each carry m g / sqrt 2 = 13.87 N, the third nothing (1e-9
// relative: an algebraic solve at rest).
TEST(Simulation, DriversAloneHoldABodyAgainstGravity) {
  const Model model = degenerateModel("drivers_only");
  const State x0 = test::assembledInitialState(model);
  ASSERT_EQ(model.m(), 3);
  ASSERT_EQ(model.drivers().size(), 3u);
  LagrangeFormulation lagrange(model);
  Scalar moved = 0;
  VecX effort;
  const SimulationResult r =
      simulate(model, lagrange, x0, test::accurateOptions(1, 1e-10, 0.1), [&](const Sample& s, const DynamicsWorkspace&) {
        moved = std::max(moved, (s.x.q - x0.q).norm());
        effort = s.lambda;
      });
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_LT(moved, 1e-12);
  const Scalar hanging = 2 * 9.81 / std::sqrt(2.0);
  EXPECT_NEAR(std::abs(effort(0)), hanging, 1e-9 * hanging);
  EXPECT_NEAR(std::abs(effort(1)), hanging, 1e-9 * hanging);
  EXPECT_NEAR(effort(2), 0, 1e-9 * hanging);
}

}  // namespace
}  // namespace loopdyn

namespace loopdyn {
namespace {

// A car whose steering contradicts its knife edges locks up (issue 14): once the right front
// wheel turns and the left stays straight, the three axle lines meet in no point, the rank of C
// rises from 8 to 9 and no motion is admissible. The run stops there with the lock-up named -- the
// time (the turn starts at 0.5 s; the (r+1)-th QR pivot passes 1e-3 of the first within the next
// 0.2 s at 1 m/s), the wheel, the ranks -- and fails, instead of losing the car's energy with an
// impulse the equations do not contain. Held straight, the same car rolls on at 1 m/s.
// The drift check reads the step ends, not the samples: a fully driven Stewart platform under
// projection at rtol 1e-10 (atol 1e-10) takes 75 steps of 40 ms whose ends stay below the
// projection trigger (measured 8e-11), while the dense output between them is 1.4e-8 off the
// constraints -- its interpolation error, which the samples' projection removes. The run is
// right and must not fail: its step ends stay below 100 x the trigger, its samples' violation
// above.
TEST(Simulation, DriftIsJudgedAtTheStepEndsNotInTheInterpolatedSamples) {
  const Model model = test::loadModel("stewart_platform");
  const State x0 = test::assembledInitialState(model);
  FormulationChoice choice;
  choice.method = "projection";
  const BuiltFormulation built = buildFormulation(model, x0, choice);
  ASSERT_TRUE(built.formulation) << built.problem;
  SimulationOptions options = test::accurateOptions(3, 1e-10, 0.01);
  options.ode.atol = 1e-10;  // (`simulate --rtol 1e-10` with the default atol)
  const SimulationResult r = simulate(model, *built.formulation, x0, options, [](const Sample&, const DynamicsWorkspace&) {});
  ASSERT_TRUE(r.ok) << r.failure;
  const Scalar trigger = options.ode.rtol;  // (the projection trigger defaults to rtol)
  EXPECT_LT(r.max_step_position_violation, 100 * trigger);
  EXPECT_GT(r.max_position_violation, 100 * trigger);
  std::printf("stewart platform, projection, rtol 1e-10: step ends %.2g, samples %.2g (scaled)\n",
              r.max_step_position_violation, r.max_position_violation);
}

TEST(Simulation, ContradictorySteeringLocksTheCarAndTheRunSaysSo) {
  ModelSpec spec = io::readModelFile(std::string(LOOPDYN_TEST_DATA_DIR) + "/lockup/car_inconsistent_steering.yaml");
  for (const bool steer : {true, false}) {
    if (!steer) spec.drivers[1].profile = Profile::constant(0);  // held straight
    const Model model = compile(spec);
    KinematicsWorkspace kin(model);
    const State x0 = assemble(model, kin, initialState(model)).state;
    LagrangeFormulation lagrange(model);
    const SimulationResult r = simulate(model, lagrange, x0, test::accurateOptions(2, 1e-8, 0.01),
                                        [](const Sample&, const DynamicsWorkspace&) {});
    if (!steer) {
      EXPECT_TRUE(r.ok) << r.failure;
      EXPECT_NEAR(r.final_state.v(0), 1, 1e-9);
      continue;
    }
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.status, RunStatus::LockUp);
    EXPECT_TRUE(isFailedCheck(r.status));
    EXPECT_EQ(r.failure.reason, RunFailure::Reason::LockUp) << r.failure;
    EXPECT_EQ(r.failure.rank_regular, 8);
    EXPECT_EQ(r.failure.equation.rfind("WFR", 0), 0u) << r.failure.equation;
    ASSERT_FALSE(r.events.empty());
    const RunEvent& lock_up = r.events.back();
    EXPECT_EQ(lock_up.kind, EventKind::LockUp);
    EXPECT_EQ(lock_up.rank_regular, 8);
    EXPECT_EQ(lock_up.rank, 9);
    ASSERT_GE(lock_up.equation, 0);
    EXPECT_EQ(model.equations()[static_cast<std::size_t>(lock_up.equation)].name, "WFR");
    EXPECT_EQ(lock_up.t, r.final_state.t);
    EXPECT_GT(r.final_state.t, 0.5);
    EXPECT_LT(r.final_state.t, 0.7);
  }
}

// Issue 45, item 11: the divide-and-conquer formulations crawled to the same lock-up. dca with
// adams projected its velocities after each of 10^6 steps (38 s, "step size too small" at
// t = 0.505 s): the row turning independent could not be projected on; hdca with dopri5 at rtol
// 1e-12 took 24 791 steps, its nodes taking that row as independent from 1e-5 on and its
// velocities, solved from the momenta, jumping with it (dop853 ended "step size too small").
TEST(Simulation, TheDivideAndConquerFormulationsStopAtALockUpAsFastAsTheOthers) {
  const Model model = loadModel(std::string(LOOPDYN_TEST_DATA_DIR) + "/lockup/car_inconsistent_steering.yaml");
  struct Case {
    const char* method;
    const char* integrator;
    Scalar rtol;
  };
  for (const Case& c : {Case{"dca", "adams", 1e-8}, Case{"hdca", "adams", 1e-8}, Case{"hdca", "dopri5", 1e-12},
                        Case{"hdca", "dop853", 1e-12}, Case{"dca", "dop853", 1e-12}}) {
    SimulationRequest request;
    request.t_end = 2;
    request.method = c.method;
    request.integrator = c.integrator;
    request.rtol = c.rtol;
    request.max_steps = 5'000;
    const loopdyn::Trajectory run = simulateModel(model, request);
    const std::string where = std::string(c.method) + " " + c.integrator + " " + std::to_string(c.rtol);
    EXPECT_EQ(run.result.status, RunStatus::LockUp) << where << ": " << run.result.failure;
    EXPECT_LT(run.result.statistics.steps, 500) << where;
    EXPECT_GT(run.result.final_state.t, 0.5) << where;
    EXPECT_LT(run.result.final_state.t, 0.7) << where;
  }
}

}  // namespace
}  // namespace loopdyn
