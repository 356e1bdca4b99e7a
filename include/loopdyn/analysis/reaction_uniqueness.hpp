#pragma once
/// Which joint reactions a rigid model determines uniquely (paper 001, sect. 3; paper 000,
/// sect. 3), pair by pair, multiplier by multiplier, force/moment component by component, and for
/// groups of pairs acting on one common body.
///
/// In an overconstrained model the multipliers lambda are fixed only up to a self-equilibrated
/// set (the null space of C^T); a reaction is unique when no such set changes it. The tests and
/// their thresholds are in analysis/uniqueness_methods.hpp; docs/uniqueness.md explains the
/// output. Everything here holds at the given configuration: at a singular configuration the
/// answer can differ from the one at neighbouring configurations (see RankReport::singular).

#include <optional>
#include <string>
#include <vector>

#include "loopdyn/analysis/constraint_rank.hpp"
#include "loopdyn/analysis/uniqueness_methods.hpp"
#include "loopdyn/kinematics/constraint_evaluation.hpp"
#include "loopdyn/kinematics/state.hpp"
#include "loopdyn/model/model.hpp"

namespace loopdyn {

struct UniquenessOptions {
  /// Methods to run; the first one decides, the others are checked against it.
  std::vector<UniquenessMethod> methods = {UniquenessMethod::QR, UniquenessMethod::Rank, UniquenessMethod::SVD,
                                           UniquenessMethod::Nullspace};
  Scalar rank_threshold = kRankThreshold;
  Scalar uniqueness_threshold = kUniquenessThreshold;
  /// Groups tested in addition to the model's own (see resolveGroup).
  std::vector<Group> extra_groups;
  /// As RankOptions::sparse_route: false decides by the dense factorisations always.
  bool sparse_route = true;
};

/// One method's answers about one element: the element itself and each of its multipliers.
struct MethodResult {
  UniquenessMethod method = UniquenessMethod::QR;
  Decision reaction;
  std::vector<Decision> components;  ///< one per equation of the element, in its order

  /// Every multiplier of the element is unique (paper 000's "second step").
  bool componentsUnique() const;
};

/// Whether a tested element (a pair's reaction, a group's resultant) is unique.
struct ElementUniqueness {
  std::vector<int> equations;         ///< rows of C whose multipliers make up the element
  std::vector<MethodResult> methods;  ///< in the order requested; methods[0] decides

  bool unique() const { return methods.front().reaction.unique; }
  bool componentsUnique() const { return methods.front().componentsUnique(); }
  /// The equations (rows of C) whose multipliers are unique.
  std::vector<int> uniqueComponents() const;
  /// Margin of the deciding method's answer about the element (decades; see Decision).
  Scalar margin() const { return methods.front().reaction.margin; }
  /// All methods give the same answers for the element and for each of its multipliers.
  bool methodsAgree() const;
};

/// What is known about one physical component of a reaction.
enum class ComponentStatus {
  Unique,
  NonUnique,
  NotTransmitted,  ///< identically zero: the pair cannot transmit it (e.g. a revolute's moment about its axis)
};

std::string_view componentStatusName(ComponentStatus status);

struct PairUniqueness {
  int pair = 0;  ///< index into Model::pairs()
  ElementUniqueness reaction;
  /// The wrench the pair exerts on its first body at the pair's point (pairFrame), component by
  /// component in the order of wrenchComponents(dimension): in world axes and in the joint frame.
  std::vector<ComponentStatus> global, joint;
  /// All methods agree on every physical component.
  bool physical_methods_agree = true;
};

struct GroupUniqueness {
  Group group;
  /// The resultant wrench of the group's pairs on the group's body, reduced to one point (the
  /// world origin for the ground, the body's centre of mass otherwise). Its "components" are the
  /// members' multipliers: a unique resultant can have non-unique components.
  ElementUniqueness resultant;
};

struct UniquenessReport {
  std::vector<UniquenessMethod> methods;
  std::vector<int> ranks;  ///< rank of C per method, in the order of `methods`
  int rank = 0;            ///< as the deciding method found it
  int redundancy = 0;      ///< m + h - rank
  Scalar rank_threshold = kRankThreshold;
  Scalar uniqueness_threshold = kUniquenessThreshold;
  std::vector<PairUniqueness> pairs;  ///< one per Model::pairs() entry, same order
  std::vector<GroupUniqueness> groups;
  /// Decided by independent rows (the sparse route, independentRowsReport): no rank test ran, every
  /// method's answer is the same by construction.
  bool by_independent_rows = false;

  /// All methods agree on every pair, component and group.
  bool methodsAgree() const;
  /// The smallest margin of any decision about a pair or group reaction.
  Scalar smallestMargin() const;
};

/// The first option out of its range (common/errors.hpp): method (none chosen), threshold
/// (rank_threshold), uniqueness_threshold (both strictly between 0 and 1), or nothing.
std::optional<OptionProblem> uniquenessOptionsProblem(const UniquenessOptions& options);

/// Runs the uniqueness analysis at state x (assumed assembled). Evaluates the constraints into
/// ws. Throws InvalidArgument for options out of range (uniquenessOptionsProblem) or wrong state
/// sizes.
UniquenessReport analyzeReactionUniqueness(const Model& model, KinematicsWorkspace& ws, const State& x,
                                           const UniquenessOptions& options = {});

/// What holds along the mechanism's motion through x, not only at x: the analysis at x widened by
/// the analyses at configurations near x with the drivers free (configurationsNear). A reaction,
/// a multiplier or a physical component is non-unique if it is so at x or at any of them; a
/// component is not transmitted only if it is so everywhere. The configuration at x can be
/// special: at the robot's straight steering (paper 001) B's self-equilibrated force happens to
/// be perpendicular to the platform's x axis, so B's Fx is unique there and nowhere else; and a
/// world-axis component can be unique only because a body is aligned with the world axes.
/// Leaves ws evaluated at x.
UniquenessReport analyzeReactionUniquenessNear(const Model& model, KinematicsWorkspace& ws, const State& x,
                                               const UniquenessOptions& options = {},
                                               const RankOptions& sampling = {});

/// Components that are unique at the configuration of `at` but not in `near`
/// (analyzeReactionUniquenessNear): one "<pair> <component> (world axes|joint frame)" per entry.
std::vector<std::string> uniqueOnlyHere(const Model& model, const UniquenessReport& at, const UniquenessReport& near);

}  // namespace loopdyn
