#include "yaml_document.hpp"

#include <yaml-cpp/eventhandler.h>

#include <sstream>
#include <utility>

namespace loopdyn::io {

// ---- the document, from the parser's events ----

/// yaml-cpp's events into the document's arrays: each node an entry when it starts (its anchor
/// then names it, as yaml-cpp's NodeBuilder registers anchors), a container's children gathered
/// while it is open and stored together when it ends.
class YamlDocument::Builder final : public YAML::EventHandler {
 public:
  explicit Builder(YamlDocument& document) : d_(document) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { add(YamlNode::Kind::Null, mark, anchor); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override { attach(anchors_.at(anchor - 1)); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    const std::int32_t index = add(YamlNode::Kind::Scalar, mark, anchor);
    d_.entries_[static_cast<std::size_t>(index)].begin = static_cast<std::uint32_t>(d_.scalars_.size());
    d_.scalars_.push_back(value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(YamlNode::Kind::Sequence, mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(YamlNode::Kind::Map, mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  std::int32_t add(YamlNode::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    const auto index = static_cast<std::int32_t>(d_.entries_.size());
    Entry entry;
    entry.kind = kind;
    entry.pos = mark.pos, entry.line = mark.line, entry.column = mark.column;
    d_.entries_.push_back(entry);
    if (anchor != YAML::NullAnchor) {
      if (anchors_.size() < anchor) anchors_.resize(anchor, -1);
      anchors_[anchor - 1] = index;
    }
    attach(index);
    return index;
  }
  void attach(std::int32_t index) {
    if (open_.empty())
      d_.root_ = index;
    else
      open_.back().second.push_back(index);
  }
  void open(YamlNode::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    const std::int32_t index = add(kind, mark, anchor);
    open_.emplace_back(index, std::vector<std::int32_t>{});
  }
  void close() {
    auto& [index, children] = open_.back();
    Entry& entry = d_.entries_[static_cast<std::size_t>(index)];
    entry.begin = static_cast<std::uint32_t>(d_.children_.size());
    entry.count = static_cast<std::uint32_t>(children.size());
    d_.children_.insert(d_.children_.end(), children.begin(), children.end());
    open_.pop_back();
  }

  YamlDocument& d_;
  std::vector<std::int32_t> anchors_;  ///< anchor k's node at k - 1
  std::vector<std::pair<std::int32_t, std::vector<std::int32_t>>> open_;  ///< containers open, innermost last
};

YamlDocument::YamlDocument(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  Builder builder(*this);
  if (!parser.HandleNextDocument(builder) || root_ < 0) {
    Entry none;  // no document: a null root without a place (yaml-cpp's Node())
    none.pos = none.line = none.column = -1;
    entries_.assign(1, none);
    root_ = 0;
  }
}

// ---- a node's answers, as yaml-cpp's const YAML::Node gives them ----

YamlNode YamlNode::missing(std::string key) {
  YamlNode node;
  node.zombie_ = true;
  node.key_ = std::move(key);
  return node;
}

void YamlNode::requireValid() const {
  if (zombie_) throw YAML::InvalidNode(key_);
}

bool YamlNode::kindIs(Kind kind) const {
  requireValid();
  return index_ >= 0 && document_->entry(index_).kind == kind;
}

YAML::Mark YamlNode::Mark() const {
  requireValid();
  if (index_ < 0) return YAML::Mark::null_mark();
  const YamlDocument::Entry& e = document_->entry(index_);
  YAML::Mark mark;
  mark.pos = e.pos, mark.line = e.line, mark.column = e.column;
  return mark;
}

std::size_t YamlNode::size() const {
  requireValid();
  if (index_ < 0) return 0;
  const YamlDocument::Entry& e = document_->entry(index_);
  return e.kind == Kind::Sequence ? e.count : e.kind == Kind::Map ? e.count / 2 : 0;
}

const std::string& YamlNode::Scalar() const {
  static const std::string empty;
  requireValid();
  if (index_ < 0 || document_->entry(index_).kind != Kind::Scalar) return empty;
  return document_->scalars_[document_->entry(index_).begin];
}

YamlNode YamlNode::operator[](const char* key) const {
  requireValid();
  if (index_ < 0) return missing(key);
  const YamlDocument::Entry& e = document_->entry(index_);
  if (e.kind == Kind::Scalar) throw YAML::BadSubscript(Mark(), key);
  if (e.kind != Kind::Map) return missing(key);
  for (std::uint32_t k = 0; k + 1 < e.count; k += 2) {
    const YamlNode name(document_, document_->children_[e.begin + k]);
    if (name.IsScalar() && name.Scalar() == key) return YamlNode(document_, document_->children_[e.begin + k + 1]);
  }
  return missing(key);
}

YamlNode YamlNode::operator[](std::size_t i) const {
  requireValid();
  const std::string key = std::to_string(i);
  if (index_ < 0) return missing(key);
  const YamlDocument::Entry& e = document_->entry(index_);
  if (e.kind == Kind::Scalar) throw YAML::BadSubscript(Mark(), i);
  if (e.kind == Kind::Sequence && i < e.count) return YamlNode(document_, document_->children_[e.begin + i]);
  if (e.kind == Kind::Map)  // (a key that reads as the number i)
    for (std::uint32_t k = 0; k + 1 < e.count; k += 2) {
      const YamlNode name(document_, document_->children_[e.begin + k]);
      std::size_t value = 0;
      if (name.IsScalar() && YAML::convert<std::size_t>::decode(YAML::Node(name.Scalar()), value) && value == i)
        return YamlNode(document_, document_->children_[e.begin + k + 1]);
    }
  return missing(key);
}

namespace {

/// yaml-cpp's conversion of a scalar's text (the same code YAML::Node::as runs).
template <class T>
bool decodeScalar(const YamlNode& node, T& out) {
  return node.IsScalar() && YAML::convert<T>::decode(YAML::Node(node.Scalar()), out);
}

}  // namespace

template <class T>
T YamlNode::as() const {
  requireValid();
  T value{};
  if (!decodeScalar(*this, value)) throw YAML::TypedBadConversion<T>(Mark());
  return value;
}

template double YamlNode::as<double>() const;
template int YamlNode::as<int>() const;

bool YamlNode::decodeBool(bool& out) const { return decodeScalar(*this, out); }

// ---- iteration ----

YamlNode::Iterator YamlNode::begin() const { return Iterator(this, 0); }

YamlNode::Iterator YamlNode::end() const {
  if (zombie_ || index_ < 0) return Iterator(this, 0);
  const YamlDocument::Entry& e = document_->entry(index_);
  const bool container = e.kind == Kind::Sequence || e.kind == Kind::Map;
  return Iterator(this, container ? size() : 0);
}

const YamlNode::Item& YamlNode::Iterator::operator*() const {
  const YamlDocument& d = *node_->document_;
  const YamlDocument::Entry& e = d.entry(node_->index_);
  if (e.kind == Kind::Sequence) {
    static_cast<YamlNode&>(item_) = YamlNode(&d, d.children_[e.begin + position_]);
    item_.first = item_.second = missing("");
  } else {  // a map's pair: the item itself is no node (yaml-cpp's, iterated as a list)
    static_cast<YamlNode&>(item_) = missing("");
    item_.first = YamlNode(&d, d.children_[e.begin + 2 * position_]);
    item_.second = YamlNode(&d, d.children_[e.begin + 2 * position_ + 1]);
  }
  return item_;
}

}  // namespace loopdyn::io
