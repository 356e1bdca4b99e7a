#pragma once
/// A YAML document read from yaml-cpp's parser events into three flat arrays (issue 48: a model's
/// memory). yaml-cpp's own node tree (YAML::Load) keeps every node behind shared pointers, about
/// 18 KB a body of a planar chain, most of a large model's memory; this document keeps a node in
/// 24 bytes, its children's indices in one array and the scalars' texts in another.
///
/// YamlNode answers the questions the model reader asks (model_reader.cpp) with the meaning
/// yaml-cpp's `const YAML::Node` gives them, so that every diagnostic stays as it was: the same
/// events (the parser is yaml-cpp's), a missing key's node that throws YAML::InvalidNode on every
/// question but IsDefined, a scalar subscripted by a key that throws YAML::BadSubscript at its
/// mark, numbers and flags converted by yaml-cpp's own convert<T>, a map iterated as a list giving
/// undefined items (and the other way round). Aliases share their anchor's node.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

namespace loopdyn::io {

class YamlDocument;

class YamlNode {
 public:
  /// An undefined node that answers every question (what yaml-cpp's YAML::NodeType::Undefined gives).
  YamlNode() = default;

  bool IsDefined() const { return !zombie_ && index_ >= 0; }
  bool IsNull() const { return kindIs(Kind::Null); }
  bool IsScalar() const { return kindIs(Kind::Scalar); }
  bool IsSequence() const { return kindIs(Kind::Sequence); }
  bool IsMap() const { return kindIs(Kind::Map); }
  /// Where the node starts (0-based line and column; yaml-cpp's null mark for an undefined node).
  YAML::Mark Mark() const;
  /// A sequence's items, a map's pairs; 0 otherwise.
  std::size_t size() const;
  /// A scalar's text ("" for any other node).
  const std::string& Scalar() const;

  /// The value of a map's first key equal to `key` (a missing key: a node that is not defined).
  YamlNode operator[](const char* key) const;
  /// A sequence's item i.
  YamlNode operator[](std::size_t i) const;
  YamlNode operator[](int i) const { return (*this)[static_cast<std::size_t>(i < 0 ? -1 : i)]; }

  /// The text of a scalar, "null" for a null node, `fallback` for any other.
  template <class T>
  T as(const T& fallback) const;
  /// A scalar converted by yaml-cpp's convert<T> (double, int); YAML::TypedBadConversion if it is not one.
  template <class T>
  T as() const;
  /// true / false (yaml-cpp's spellings: y, yes, on, ...) into out; false if the node is not one.
  bool decodeBool(bool& out) const;

  /// A sequence's items as nodes, or a map's pairs as `first` (key) and `second` (value), in the
  /// file's order -- each item is also a node: the item itself in a sequence, undefined in a map.
  struct Item;
  class Iterator;
  Iterator begin() const;
  Iterator end() const;

 private:
  friend class YamlDocument;
  enum class Kind : std::uint8_t { Null, Scalar, Sequence, Map };
  YamlNode(const YamlDocument* document, std::int32_t index) : document_(document), index_(index) {}
  /// A missing key's node (yaml-cpp's zombie node): every question but IsDefined throws.
  static YamlNode missing(std::string key);
  bool kindIs(Kind kind) const;
  void requireValid() const;

  const YamlDocument* document_ = nullptr;
  std::int32_t index_ = -1;
  bool zombie_ = false;
  std::string key_;  ///< a missing key's name (its exception says it)
};

struct YamlNode::Item : YamlNode {
  YamlNode first, second;
};

class YamlNode::Iterator {
 public:
  Iterator(const YamlNode* node, std::size_t position) : node_(node), position_(position) {}
  const Item& operator*() const;
  const Item* operator->() const { return &**this; }
  Iterator& operator++() {
    ++position_;
    return *this;
  }
  bool operator!=(const Iterator& other) const { return position_ != other.position_; }
  bool operator==(const Iterator& other) const { return position_ == other.position_; }

 private:
  const YamlNode* node_;
  std::size_t position_;
  mutable Item item_;
};

/// The first document of a YAML text (a text without one: a null root, as YAML::Load gives).
/// Throws YAML::ParserException for a text that is not YAML.
class YamlDocument {
 public:
  explicit YamlDocument(const std::string& text);
  YamlDocument(const YamlDocument&) = delete;
  YamlDocument& operator=(const YamlDocument&) = delete;

  YamlNode root() const { return YamlNode(this, root_); }

 private:
  friend class YamlNode;
  class Builder;
  struct Entry {
    YamlNode::Kind kind = YamlNode::Kind::Null;
    std::int32_t pos = 0, line = 0, column = 0;
    /// A scalar: its text's index in scalars_; a container: its children's offset and count in
    /// children_ (a map's keys and values alternating).
    std::uint32_t begin = 0, count = 0;
  };
  const Entry& entry(std::int32_t index) const { return entries_[static_cast<std::size_t>(index)]; }

  std::vector<Entry> entries_;
  std::vector<std::int32_t> children_;
  std::vector<std::string> scalars_;
  std::int32_t root_ = -1;
};

template <>
inline std::string YamlNode::as<std::string>(const std::string& fallback) const {
  if (zombie_) return fallback;
  if (IsNull()) return "null";
  return IsScalar() ? Scalar() : fallback;
}

}  // namespace loopdyn::io
