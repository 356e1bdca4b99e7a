#pragma once
/// What a run says about itself: the scaled violations of a state, the singular configuration
/// next to a failure, times as text, the energy check's blind spot (private to src/sim/).

#include <optional>
#include <string>

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/sim/simulation.hpp"

namespace loopdyn::detail {

/// The bodies with a non-finite entry in a vector over the velocity coordinates.
std::vector<std::string> bodiesWithNonFinite(const Model& model, const VecX& a);

/// Scaled violations of the state as evaluated in ws.
void violations(const Model& model, const DynamicsWorkspace& ws, const State& x, Scalar& position, Scalar& velocity);

/// Which pairs lose their independence at x, or nothing: the rank counted as at a passage, at
/// kSingularRatio (a passage's closest approach is found to the watch's resolution, |R_rr| /
/// |R_11| near 1e-8, where the analysis' threshold counts full rank).
std::optional<NearSingularity> nearSingularity(const Model& model, State x, int rank);

/// "t = 0.714356 s"
std::string timeLabel(Scalar t);

/// x as a stream prints it (6 significant digits).
std::string numberText(Scalar x);

/// The energy check's blind spot (issue 46): where the gravity floor sets the energy scale (a
/// mechanism that moves little under gravity), a drift below tolerance x floor passes even if it
/// is most of the motion's own energy, max T + max |V - V(0)| (measured: a singular 3-RPR lost 98 %
/// of a 2e-5 J motion on a 20 J floor at exit 0). Said, with the energy tolerance that would
/// resolve a tenth of it.
std::optional<RunWarning> energyBlindSpot(Scalar motion, Scalar floor, Scalar tolerance);

}  // namespace loopdyn::detail
