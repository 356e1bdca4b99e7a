#include "loopdyn/dynamics/dca/ball_momenta.hpp"

#include <map>

namespace loopdyn {

BallMomenta::BallMomenta(const Model& model, const TreeKinematics& tree) {
  std::map<BodyIndex, TreeKinematics::LinkCoordinates> links;
  for (const TreeKinematics::LinkCoordinates& link : tree.links()) links.emplace(link.body, link);
  std::map<BodyIndex, int> ball_of;  // child body -> index in balls_
  std::vector<Mat3> child_marker;    // M_k: the orientation of k's marker on its child
  for (const BodyIndex b : model.topology().order) {
    const TreeKinematics::LinkCoordinates& link = links.at(b);
    const int omega = link.model->ballRatesIndex();
    if (omega < 0) continue;
    Ball ball{link.model, link.q_offset, link.v_offset + omega, false, {}};
    Mat3 marker = Mat3::Identity();  // (a free joint: the body's own axes)
    if (link.joint >= 0) {
      const Joint& joint = model.joints()[static_cast<std::size_t>(link.joint)];
      ball.reversed = joint.first.body == b;
      marker = ball.reversed ? joint.first.orientation : joint.second.orientation;
      // a forward ball joint whose first marker is on a ball child's body: that ball's child
      if (const auto parent = ball_of.find(joint.first.body); !ball.reversed && parent != ball_of.end())
        balls_[static_cast<std::size_t>(parent->second)].children.push_back(
            {static_cast<int>(balls_.size()),
             child_marker[static_cast<std::size_t>(parent->second)].transpose() * joint.first.orientation});
    }
    ball_of[b] = static_cast<int>(balls_.size());
    balls_.push_back(std::move(ball));
    child_marker.push_back(marker);
  }
}

void BallMomenta::carried(const VecX& q_r, const VecX& p, Eigen::Ref<VecX> u) const {
  u = p;
  for (const Ball& k : balls_) {
    Vec3 uk = k.reversed ? Vec3(p.segment<3>(k.w)) : Vec3(rotation(k, q_r).transpose() * p.segment<3>(k.w));
    for (const auto& [c, B] : k.children) uk += (k.reversed ? 1 : -1) * B * p.segment<3>(balls_[static_cast<std::size_t>(c)].w);
    u.segment<3>(k.w) = uk;
  }
}

void BallMomenta::joint(const VecX& q_r, Eigen::Ref<const VecX> u, VecX& p) const {
  p = u;
  for (auto k = balls_.rbegin(); k != balls_.rend(); ++k) {  // children first
    Vec3 sum = u.segment<3>(k->w);
    for (const auto& [c, B] : k->children) sum += (k->reversed ? -1 : 1) * B * p.segment<3>(balls_[static_cast<std::size_t>(c)].w);
    p.segment<3>(k->w) = k->reversed ? sum : Vec3(rotation(*k, q_r) * sum);
  }
}

void BallMomenta::rates(const VecX& q_r, const VecX& v_r, const VecX& p, Eigen::Ref<VecX> du, VecX& pdot) const {
  if (balls_.empty()) return;
  pdot = du;
  for (const Ball& k : balls_) {
    const auto pk = p.segment<3>(k.w);
    Vec3 rate = k.reversed ? Vec3(pdot.segment<3>(k.w))
                           : Vec3(rotation(k, q_r).transpose() * (pdot.segment<3>(k.w) - v_r.segment<3>(k.w).cross(pk)));
    for (const auto& [c, B] : k.children)
      rate += (k.reversed ? 1 : -1) * B * pdot.segment<3>(balls_[static_cast<std::size_t>(c)].w);
    du.segment<3>(k.w) = rate;
  }
}

}  // namespace loopdyn
