#include "loopdyn/ode/dop853.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "loopdyn/common/check.hpp"

namespace loopdyn::ode {

namespace {

// Dormand and Prince's 8(5,3) coefficients as published with DOP853 (Hairer, Norsett and Wanner).
// Stage i (0-based) is at t + c[i] h; stage 12 is f at the step's end (its row of a is b), stages
// 13-15 are the dense output's.
constexpr Scalar c[16] = {0.0,
                          0.526001519587677318785587544488e-01,
                          0.789002279381515978178381316732e-01,
                          0.118350341907227396726757197510,
                          0.281649658092772603273242802490,
                          1.0 / 3.0,
                          0.25,
                          0.307692307692307692307692307692,
                          0.651282051282051282051282051282,
                          0.6,
                          0.857142857142857142857142857142,
                          1.0,
                          1.0,
                          0.1,
                          0.2,
                          0.777777777777777777777777777778};

/// a[i][j]: stage i's weight on stage j (j < i).
constexpr Scalar a[16][16] = {
    {},
    {5.26001519587677318785587544488e-2},
    {1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2},
    {2.95875854768068491816892993775e-2, 0, 8.87627564304205475450678981324e-2},
    {2.41365134159266685502369798665e-1, 0, -8.84549479328286085344864962717e-1, 9.24834003261792003115737966543e-1},
    {3.7037037037037037037037037037e-2, 0, 0, 1.70828608729473871279604482173e-1, 1.25467687566822425016691814123e-1},
    {3.7109375e-2, 0, 0, 1.70252211019544039314978060272e-1, 6.02165389804559606850219397283e-2, -1.7578125e-2},
    {3.70920001185047927108779319836e-2, 0, 0, 1.70383925712239993810214054705e-1, 1.07262030446373284651809199168e-1,
     -1.53194377486244017527936158236e-2, 8.27378916381402288758473766002e-3},
    {6.24110958716075717114429577812e-1, 0, 0, -3.36089262944694129406857109825, -8.68219346841726006818189891453e-1,
     2.75920996994467083049415600797e1, 2.01540675504778934086186788979e1, -4.34898841810699588477366255144e1},
    {4.77662536438264365890433908527e-1, 0, 0, -2.48811461997166764192642586468, -5.90290826836842996371446475743e-1,
     2.12300514481811942347288949897e1, 1.52792336328824235832596922938e1, -3.32882109689848629194453265587e1,
     -2.03312017085086261358222928593e-2},
    {-9.3714243008598732571704021658e-1, 0, 0, 5.18637242884406370830023853209, 1.09143734899672957818500254654,
     -8.14978701074692612513997267357, -1.85200656599969598641566180701e1, 2.27394870993505042818970056734e1,
     2.49360555267965238987089396762, -3.0467644718982195003823669022},
    {2.27331014751653820792359768449, 0, 0, -1.05344954667372501984066689879e1, -2.00087205822486249909675718444,
     -1.79589318631187989172765950534e1, 2.79488845294199600508499808837e1, -2.85899827713502369474065508674,
     -8.87285693353062954433549289258, 1.23605671757943030647266201528e1, 6.43392746015763530355970484046e-1},
    // b: the 8th-order solution
    {5.42937341165687622380535766363e-2, 0, 0, 0, 0, 4.45031289275240888144113950566, 1.89151789931450038304281599044,
     -5.8012039600105847814672114227, 3.1116436695781989440891606237e-1, -1.52160949662516078556178806805e-1,
     2.01365400804030348374776537501e-1, 4.47106157277725905176885569043e-2},
    {5.61675022830479523392909219681e-2, 0, 0, 0, 0, 0, 2.53500210216624811088794765333e-1,
     -2.46239037470802489917441475441e-1, -1.24191423263816360469010140626e-1, 1.5329179827876569731206322685e-1,
     8.20105229563468988491666602057e-3, 7.56789766054569976138603589584e-3, -8.298e-3},
    {3.18346481635021405060768473261e-2, 0, 0, 0, 0, 2.83009096723667755288322961402e-2,
     5.35419883074385676223797384372e-2, -5.49237485713909884646569340306e-2, 0, 0,
     -1.08347328697249322858509316994e-4, 3.82571090835658412954920192323e-4, -3.40465008687404560802977114492e-4,
     1.41312443674632500278074618366e-1},
    {-4.28896301583791923408573538692e-1, 0, 0, 0, 0, -4.69762141536116384314449447206, 7.68342119606259904184240953878,
     4.06898981839711007970213554331, 3.56727187455281109270669543021e-1, 0, 0, 0, -1.39902416515901462129418009734e-3,
     2.9475147891527723389556272149, -9.15095847217987001081870187138}};

/// The 5th-order error estimator's weights on the stages (times h: the difference of solutions).
constexpr Scalar e5[12] = {0.1312004499419488073250102996e-1, 0, 0, 0, 0, -0.1225156446376204440720569753e1,
                           -0.4957589496572501915214079952, 0.1664377182454986536961530415e1,
                           -0.3503288487499736816886487290, 0.3341791187130174790297318841,
                           0.8192320648511571246570742613e-1, -0.2235530786388629525884427845e-1};
/// The 3rd-order estimator: b minus these weights on stages 0, 8 and 11.
constexpr Scalar bhh0 = 0.244094488188976377952755905512, bhh8 = 0.733846688281611857341361741547,
                 bhh11 = 0.220588235294117647058823529412e-1;

/// The dense output's coefficients 5-8 (times h) on the 16 stages.
constexpr Scalar d[4][16] = {
    {-0.84289382761090128651353491142e1, 0, 0, 0, 0, 0.56671495351937776962531783590, -0.30689499459498916912797304727e1,
     0.23846676565120698287728149680e1, 0.21170345824450282767155149946e1, -0.87139158377797299206789907490,
     0.22404374302607882758541771650e1, 0.63157877876946881815570249290, -0.88990336451333310820698117400e-1,
     0.18148505520854727256656404962e2, -0.91946323924783554000451984436e1, -0.44360363875948939664310572000e1},
    {0.10427508642579134603413151009e2, 0, 0, 0, 0, 0.24228349177525818288430175319e3, 0.16520045171727028198505394887e3,
     -0.37454675472269020279518312152e3, -0.22113666853125306036270938578e2, 0.77334326684722638389603898808e1,
     -0.30674084731089398182061213626e2, -0.93321305264302278729567221706e1, 0.15697238121770843886131091075e2,
     -0.31139403219565177677282850411e2, -0.93529243588444783865713862664e1, 0.35816841486394083752465898540e2},
    {0.19985053242002433820987653617e2, 0, 0, 0, 0, -0.38703730874935176555105901742e3, -0.18917813819516756882830838328e3,
     0.52780815920542364900561016686e3, -0.11573902539959630126141871134e2, 0.68812326946963000169666922661e1,
     -0.10006050966910838403183860980e1, 0.77771377980534432092869265740, -0.27782057523535084065932004339e1,
     -0.60196695231264120758267380846e2, 0.84320405506677161018159903784e2, 0.11992291136182789328035130030e2},
    {-0.25693933462703749003312586129e2, 0, 0, 0, 0, -0.15418974869023643374053993627e3, -0.23152937917604549567536039109e3,
     0.35763911791061412378285349910e3, 0.93405324183624310003907691704e2, -0.37458323136451633156875139351e2,
     0.10409964950896230045147246184e3, 0.29840293426660503123344363579e2, -0.43533456590011143754432175058e2,
     0.96324553959188282948394950600e2, -0.39177261675615439165231486172e2, -0.14972683625798562581422125276e3}};

// step-size control (DOP853's defaults)
constexpr Scalar kSafety = 0.9, kLargestDecrease = 1.0 / 0.333, kLargestIncrease = 6.0;
/// consecutive right-hand-side failures (each quartering the step) before giving up
constexpr int kMaxRhsFailures = 10;

StepResult failed(StepFailure why, Scalar t) {
  StepResult r;
  r.ok = false;
  r.failure = why;
  r.t = t;
  return r;
}

}  // namespace

Dop853::Dop853(Rhs rhs, Scalar t0, const VecX& y0, const Options& options)
    : rhs_(std::move(rhs)),
      rtol_(options.rtol),
      atol_(options.atol),
      max_step_(options.max_step),
      min_step_(options.min_step),
      cap_(options.magnitude_cap),
      error_weights_(options.error_weights),
      t_(t0),
      y_(y0) {
  const Eigen::Index n = y0.size();
  for (VecX& k : k_) k.resize(n);
  for (VecX& r : rcont_) r.resize(n);
  y_stage_.resize(n), y_new_.resize(n), err5_.resize(n), err3_.resize(n), w_.resize(n), w_end_.resize(n), y_old_ = y0;
  if (cap_.size() == 0) cap_ = VecX::Constant(n, std::numeric_limits<Scalar>::infinity());
}

int Dop853::evaluate(Scalar t, const VecX& y, VecX& k) {
  ++stats_.rhs_evaluations;
  return rhs_(t, y.data(), k.data());
}

void Dop853::weights(const VecX& y0, const VecX& y1) {
  if (error_weights_) {  // the looser of the two ends' weights, as the larger magnitude below
    error_weights_(y0.data(), w_.data());
    error_weights_(y1.data(), w_end_.data());
    w_ = w_.cwiseMin(w_end_);
    return;
  }
  for (Eigen::Index i = 0; i < y0.size(); ++i)
    w_(i) = 1 / (atol_ + rtol_ * std::min(std::max(std::abs(y0(i)), std::abs(y1(i))), cap_(i)));
}

Scalar Dop853::initialStep(Scalar t_stop) {
  // d0 = |y0|, d1 = |f0| (weighted RMS); h0 = 0.01 d0 / d1; one explicit Euler step for f's rate
  const auto n = static_cast<Scalar>(y_.size());
  weights(y_, y_);
  const Scalar d0 = std::sqrt(y_.cwiseProduct(w_).squaredNorm() / n);
  const Scalar d1 = std::sqrt(k_[0].cwiseProduct(w_).squaredNorm() / n);
  const Scalar span = std::abs(t_stop - t_);
  Scalar h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, span);
  if (max_step_ > 0) h0 = std::min(h0, max_step_);
  y_stage_ = y_ + h0 * k_[0];
  if (evaluate(t_ + h0, y_stage_, k_[1]) != 0) return h0 * 1e-2;
  const Scalar d2 = std::sqrt((k_[1] - k_[0]).cwiseProduct(w_).squaredNorm() / n) / h0;
  const Scalar larger = std::max(d1, d2);
  const Scalar h1 = larger <= 1e-15 ? std::max(1e-6, 1e-3 * h0) : std::pow(0.01 / larger, 1.0 / 8);
  Scalar h = std::min({100 * h0, h1, span});
  if (max_step_ > 0) h = std::min(h, max_step_);
  return h;
}

StepResult Dop853::step(Scalar t_stop) {
  const Eigen::Index n = y_.size();
  if (!first_stage_valid_) {
    if (evaluate(t_, y_, k_[0]) != 0) return failed(StepFailure::EquationsFailed, t_);
    first_stage_valid_ = true;
    if (h_ <= 0) h_ = initialStep(t_stop);
  }
  const Scalar smallest = std::max(min_step_, 16 * std::numeric_limits<Scalar>::epsilon() * std::max<Scalar>(1, std::abs(t_)));
  int rhs_failures = 0;
  bool rejected = false;
  interpolable_ = false;  // (the stages are overwritten from here on)
  for (;;) {
    Scalar h = std::min(h_, t_stop - t_);
    if (max_step_ > 0) h = std::min(h, max_step_);
    const bool last = h >= t_stop - t_;
    if (h < smallest && !last) return failed(StepFailure::ErrorTestFailures, t_);
    // the stages 1..11 and the 8th-order solution (stage 12's row of a is b)
    int status = 0;
    for (int i = 1; i <= kStages && status == 0; ++i) {
      y_stage_ = y_;
      for (int j = 0; j < i; ++j)
        if (a[i][j] != 0) y_stage_.noalias() += (h * a[i][j]) * k_[j];
      if (i < kStages) status = evaluate(t_ + c[i] * h, y_stage_, k_[i]);
      else y_new_ = y_stage_;
    }
    if (status == 0) status = evaluate(last ? t_stop : t_ + h, y_new_, k_[12]);
    if (status < 0) return failed(StepFailure::EquationsFailed, t_ + h);
    if (status > 0) {
      if (++rhs_failures > kMaxRhsFailures) return failed(StepFailure::EquationsFailed, t_ + h);
      h_ = 0.25 * h;
      rejected = true;
      ++stats_.rejected_steps;
      continue;
    }
    // the error estimate (see the header)
    err5_.setZero(n);
    err3_ = -bhh0 * k_[0] - bhh8 * k_[8] - bhh11 * k_[11];
    for (int j = 0; j < kStages; ++j) {
      if (e5[j] != 0) err5_.noalias() += e5[j] * k_[j];
      if (a[kStages][j] != 0) err3_.noalias() += a[kStages][j] * k_[j];
    }
    weights(y_, y_new_);
    const Scalar s5 = err5_.cwiseProduct(w_).squaredNorm(), s3 = err3_.cwiseProduct(w_).squaredNorm();
    Scalar denominator = s5 + 0.01 * s3;
    if (!(denominator > 0)) denominator = 1;
    const Scalar err = h * s5 / std::sqrt(static_cast<Scalar>(n) * denominator);
    if (!std::isfinite(err)) return failed(StepFailure::ErrorNotFinite, t_ + h);
    const Scalar grow = std::pow(err, 1.0 / 8);  // h_new = h kSafety / grow, within the limits
    const Scalar factor = std::clamp(grow / kSafety, 1 / kLargestIncrease, kLargestDecrease);
    if (err <= 1) {
      t_old_ = t_, h_old_ = h, y_old_ = y_;
      std::swap(k_[0], k_[12]);  // (k_[12] now holds f at the start: the dense output reads both)
      std::swap(y_, y_new_);
      t_ = last ? t_stop : t_ + h;
      Scalar h_next = h / factor;
      if (rejected) h_next = std::min(h_next, h);
      // a step clipped at t_stop that met its tolerance says nothing against the longer one proposed
      h_ = last && h < h_ && h_next >= h ? std::max(h_next, h_) : h_next;
      ++stats_.steps;
      dense_ready_ = false;
      interpolable_ = true;
      return {};
    }
    h_ = h / std::min(kLargestDecrease, grow / kSafety);
    rejected = true;
    ++stats_.rejected_steps;
  }
}

void Dop853::prepareDenseOutput() {
  // after an accepted step k_[0] is f at its end and k_[12] f at its start: the stages of the
  // step are k_[12] (first), k_[1..11], k_[0] (end); put them back in order for the sums
  std::swap(k_[0], k_[12]);
  const Scalar h = h_old_;
  bool extra_stages = true;
  for (int i = 13; i < kAllStages && extra_stages; ++i) {
    y_stage_ = y_old_;
    for (int j = 0; j < i; ++j)
      if (a[i][j] != 0) y_stage_.noalias() += (h * a[i][j]) * k_[j];
    extra_stages = evaluate(t_old_ + c[i] * h, y_stage_, k_[i]) == 0;
  }
  // y(t_old + theta h) = r0 + theta (r1 + (1 - theta) (r2 + theta (r3 + (1 - theta) (r4 + theta (r5
  //                      + (1 - theta) (r6 + theta r7))))))
  rcont_[0] = y_old_;
  rcont_[1] = y_ - y_old_;
  rcont_[2] = h * k_[0] - rcont_[1];
  rcont_[3] = rcont_[1] - h * k_[12] - rcont_[2];
  for (int r = 0; r < 4; ++r) {
    rcont_[4 + r].setZero();
    // (where an extra stage cannot be evaluated, r4..r7 stay zero: the cubic Hermite interpolant
    // through both ends' values and derivatives, order 3)
    if (!extra_stages) continue;
    for (int j = 0; j < kAllStages; ++j)
      if (d[r][j] != 0) rcont_[4 + r].noalias() += (h * d[r][j]) * k_[j];
  }
  std::swap(k_[0], k_[12]);
  dense_ready_ = true;
}

void Dop853::interpolate(Scalar t, VecX& y) {
  LOOPDYN_CHECK(interpolable_ && t >= t_old_ - 1e-12 * std::max<Scalar>(1, std::abs(t_old_)) &&
                    t <= t_ + 1e-12 * std::max<Scalar>(1, std::abs(t_)),
                "dense output requested at t = ", t, " outside the last step");
  if (!dense_ready_) prepareDenseOutput();
  const Scalar s = (t - t_old_) / h_old_, s1 = 1 - s;
  y = rcont_[7];
  y = rcont_[6] + s * y;
  y = rcont_[5] + s1 * y;
  y = rcont_[4] + s * y;
  y = rcont_[3] + s1 * y;
  y = rcont_[2] + s * y;
  y = rcont_[1] + s1 * y;
  y = rcont_[0] + s * y;
}

void Dop853::reset(Scalar t, const VecX& y) {
  t_ = t;
  y_ = y;
  first_stage_valid_ = false;
  interpolable_ = false;
}

}  // namespace loopdyn::ode
