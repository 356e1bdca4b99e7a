// No allocation in the right-hand side (issues 16, 21): after a first call has sized every buffer,
// one forward-dynamics call of the divide-and-conquer algorithm allocates nothing. Counted at the C
// allocator itself (malloc, calloc, realloc, aligned allocations: Eigen allocates with malloc,
// operator new goes through it), so this executable is built on its own and never with the
// sanitizers, which replace the allocator.

#include <gtest/gtest.h>

#include <cerrno>
#include <cstddef>
#include <string>

#include "loopdyn/dynamics/dca/dca.hpp"
#include "loopdyn/dynamics/formulations/lagrange.hpp"
#include "loopdyn/sim/formulation_choice.hpp"
#include "loopdyn/dynamics/dca/hdca.hpp"
#include "loopdyn/io/model_reader.hpp"
#include "loopdyn/kinematics/assembly.hpp"
#include "test_models.hpp"

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
long allocations = 0;  // (the tests are single-threaded)
}

extern "C" {
void* malloc(std::size_t size) {
  ++allocations;
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  ++allocations;
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) {
  ++allocations;
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  ++allocations;
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** p, std::size_t alignment, std::size_t size) {
  ++allocations;
  *p = __libc_memalign(alignment, size);
  return *p ? 0 : ENOMEM;
}
void free(void* p) { __libc_free(p); }
}

namespace loopdyn {
namespace {

/// Allocations made by `call` once buffers are sized (it runs once before counting).
template <class Call>
long allocationsOf(Call call, int repetitions = 5) {
  call();
  const long before = allocations;
  for (int k = 0; k < repetitions; ++k) call();
  return allocations - before;
}

TEST(Allocation, TheCounterSeesEigenAndOperatorNew) {
  EXPECT_GT(allocationsOf([] { VecX v = VecX::Random(100); (void)v; }), 0);
  EXPECT_GT(allocationsOf([] { auto p = std::make_unique<std::string>(100, 'x'); (void)p; }), 0);
}

// The DCA's forward dynamics (DcaFormulation::forwardDynamics: bodies' motions, applied forces,
// main pass, back-substitution, joint accelerations) on every bundled model and on the A02 ladder.
TEST(Allocation, DcaForwardDynamicsAllocatesNothing) {
  std::vector<std::pair<std::string, Model>> models;
  for (const char* name : {"double_four_bar", "four_bar_spatial", "mobile_robot", "modified_2x2_four_bar",
                           "spatial_parallelogram", "stewart_platform", "knife_edge_car"})
    models.emplace_back(name, test::loadModel(name));
  test::LadderOptions ladder;
  ladder.loops = 16;
  models.emplace_back("ladder_16", compile(test::fourBarLadderSpec(ladder)));
  for (const auto& [name, model] : models) {
    const DcaFormulation dca(model);
    KinematicsWorkspace kin(model);
    State x = assemble(model, kin, initialState(model)).state;
    dca.tree().relativeState(x, x.q_r, x.v_r);
    DynamicsWorkspace ws(model);
    const VecX none;
    EXPECT_EQ(allocationsOf([&] { dca.forwardDynamics(model, ws, x, none); }), 0) << name;
  }
}

// The right-hand sides as the simulation calls them (Formulation::evaluate) at the assembled state:
// absolute lagrange, plain and on the constraints (projected), elimination (its rows chosen by QR,
// as `simulate --method elimination` builds it), projection, and the DCA and HDCA in joint
// coordinates.
TEST(Allocation, RightHandSidesAllocateNothing) {
  for (const char* name : {"double_four_bar", "four_bar_spatial", "mobile_robot", "spatial_parallelogram",
                           "modified_2x2_four_bar"}) {
    const Model model = test::loadModel(name);
    KinematicsWorkspace kin(model);
    const State x = assemble(model, kin, initialState(model)).state;
    DynamicsWorkspace ws(model);
    const LagrangeFormulation lagrange(model);
    VecX du(model.nv());
    State xs = x;
    EXPECT_EQ(allocationsOf([&] {
                xs = x;
                lagrange.evaluate(model, ws, xs, x.v, du, Evaluation{});
              }),
              0)
        << name << ", lagrange";
    EXPECT_EQ(allocationsOf([&] {
                xs = x;
                lagrange.evaluate(model, ws, xs, x.v, du, Evaluation{false, true});
              }),
              0)
        << name << ", lagrange on the constraints";
    FormulationChoice choice;
    choice.method = "elimination";
    const BuiltFormulation elimination = buildFormulation(model, x, choice);
    ASSERT_TRUE(elimination.formulation) << name << ": " << elimination.problem;
    EXPECT_EQ(allocationsOf([&] {
                xs = x;
                elimination.formulation->evaluate(model, ws, xs, x.v, du, Evaluation{});
              }),
              0)
        << name << ", elimination";
    // projection (continuation on): its products on G_K where the mechanism has no drivers, else
    // the QR (projection.hpp)
    choice.method = "projection";
    const BuiltFormulation projection = buildFormulation(model, x, choice);
    ASSERT_TRUE(projection.formulation) << name << ": " << projection.problem;
    VecX up(projection.formulation->velocityStateSize(model)), dup(up.size());
    ASSERT_TRUE((projection.formulation->start(model, ws, x, up)).empty()) << name;
    EXPECT_EQ(allocationsOf([&] {
                xs = x;
                projection.formulation->evaluate(model, ws, xs, up, dup, Evaluation{});
              }),
              0)
        << name << ", projection";
    const DcaFormulation dca(model);
    State xd = x;
    dca.tree().relativeState(x, xd.q_r, xd.v_r);
    const VecX u = xd.v_r;
    VecX du_r(dca.tree().nv());
    EXPECT_EQ(allocationsOf([&] { dca.evaluate(model, ws, xd, u, du_r, Evaluation{}); }), 0) << name << ", dca";
    HdcaFormulation hdca(model);
    VecX p(hdca.tree().nv());
    ASSERT_TRUE((hdca.start(model, ws, x, p)).empty()) << name;
    State xh = xd;
    EXPECT_EQ(allocationsOf([&] { hdca.evaluate(model, ws, xh, p, du_r, Evaluation{}); }), 0) << name << ", hdca";
  }
}

}  // namespace
}  // namespace loopdyn
