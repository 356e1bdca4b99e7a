#pragma once
// Checks shared by the tests of the joint-coordinate formulations (relative lagrange, dca): the
// same dynamics as the absolute lagrange formulation at one state, and random trees to try them on.

#include <functional>
#include <memory>
#include <random>
#include <string>

#include "loopdyn/dynamics/formulation.hpp"
#include "loopdyn/kinematics/tree_kinematics.hpp"

namespace loopdyn::test {

/// Every bundled model at its assembled state: `make(model)`'s body accelerations equal absolute
/// lagrange's to 1e-9 of their size (both solve well-conditioned equations) and each unique pair's
/// generalized force C_X^T lambda_X to 1e-8 of the largest (gtest expectations). Returns the
/// number of unique pairs compared; `models` counts the models. With `regular_only`, models that
/// start at a singular configuration are left out (a formulation whose solve takes the plain
/// tangent basis there, projection.hpp: the branch is decided when a simulation starts).
int expectLagrangeDynamicsOnEveryBundledModel(const std::function<std::unique_ptr<Formulation>(const Model&)>& make,
                                              int& models, bool regular_only = false);

/// A random tree of `bodies` bodies (serial: a chain) with every tree joint type of `dimension`,
/// gravity tilted at random in 3D, and every other joint written child first (traversed backwards).
Model randomTree(int dimension, int bodies, bool serial, std::mt19937& rng);

/// A random joint state: each link moved from its reference pose by a random rate over 1 s, and
/// random joint rates (entries in [-2, 2]).
void randomJointState(const Model& model, const TreeKinematics& tree, std::mt19937& rng, VecX& q, VecX& v);

/// The largest magnitude of v's entries (0 for none).
Scalar maxAbs(const VecX& v);

}  // namespace loopdyn::test
