#pragma once
/// The node kernels of the divide-and-conquer algorithm (dca.hpp; paper 000, eqs. (5)-(7)): the
/// main pass's assembly of a node from its children, and the back-substitution's split of the
/// node's handle forces into its multipliers and its children's handle forces.
///
/// Two forms of the same arithmetic. The general one takes any number of connections, rows and
/// handles, and factorises W with diagonal pivoting where its rows are (nearly) dependent -- the
/// redundant loops and singular configurations. The single-connection one takes the node that
/// the chains, trees and ladders are made of: one connection of R <= 6 rows between two children
/// of at most kSingleHandles handles each (or one child and ground), with rows clearly independent
/// (every pivot of W in the rows' order at least kRegularPivotRatio of the largest: the kinetic
/// Gram matrices' rule). Its sizes are template parameters, so its blocks, W and its L D L^T live
/// on the stack at fixed size; where its W is not clearly regular it declines and the general
/// form runs. Both give the same accelerations and multipliers to rounding
/// (tests/dynamics/dca/dca_test.cpp, DivideAndConquer.SingleConnectionKernelsEqualTheGeneralOnes).

#include <array>
#include <vector>

#include "loopdyn/dynamics/dca/dca.hpp"

namespace loopdyn::dca_kernels {

using Node = DivideAndConquer::Node;
using Connection = DivideAndConquer::Connection;
using Endpoint = DivideAndConquer::Endpoint;

/// Handles a child of a single-connection node may have (a chain's subchain has 2).
inline constexpr int kSingleHandles = 3;

/// The main pass at a body's node (a leaf; paper 000, eq. (1) for one body): Phi = M^-1 on its
/// handle pair (one handle at most: the body itself), b = M^-1 F, at the body's orientation m.R.
template <int d>
void bodyNode(Node& node, const Body& body, const BodyMotion& m, const VecX& F);

/// The back-substitution at a body's node: its accelerations A = M^-1 (F + f) (Model's layout).
template <int d>
void bodyAccelerations(const Node& node, const Body& body, const BodyMotion& m, const VecX& F, VecX& A);

/// The general main pass at an assembly node with d velocity coordinates per body.
template <int d>
void assembleNode(Node& node, const std::array<const Node*, 2>& child, const std::vector<Connection>& connections);

/// The general back-substitution at an assembly node.
template <int d>
void backSubstituteNode(Node& node, std::vector<Node>& nodes, const std::vector<Connection>& connections);

/// The main pass at a node of one connection: false (and nothing written) where the node is not
/// of that form or its W is not clearly regular; true with node.single set where it assembled it.
template <int d>
bool assembleSingleConnection(Node& node, const std::array<const Node*, 2>& child, const Connection& connection);

/// The back-substitution at a node assembleSingleConnection assembled.
template <int d>
void backSubstituteSingleConnection(Node& node, std::vector<Node>& nodes, const Connection& connection);

}  // namespace loopdyn::dca_kernels
