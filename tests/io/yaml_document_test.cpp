// The compact YAML document (src/io/yaml_document.hpp) answers every question the model reader
// asks as yaml-cpp's own node tree does: both read the same texts -- every bundled model, every
// broken test model and hand-written corner cases (aliases, nulls, quoted nulls, duplicate keys,
// complex keys, a map iterated as a list) -- and are walked side by side.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/yaml_document.hpp"

namespace {

using loopdyn::io::YamlDocument;
using loopdyn::io::YamlNode;

/// What a question throws, or "" (the reader turns yaml-cpp's exceptions into located errors).
template <class F>
std::string thrown(F&& question) {
  try {
    question();
  } catch (const YAML::Exception& e) {
    return std::string(typeid(e).name()) + ": " + e.what();
  }
  return "";
}

void expectSameScalarReadings(const YAML::Node& y, const YamlNode& d, const std::string& at) {
  double yd = 0, dd = 0;
  const std::string yd_thrown = thrown([&] { yd = y.as<double>(); }), dd_thrown = thrown([&] { dd = d.as<double>(); });
  EXPECT_EQ(yd_thrown.empty(), dd_thrown.empty()) << at;
  if (yd_thrown.empty() && dd_thrown.empty() && !std::isnan(yd)) {
    EXPECT_EQ(yd, dd) << at;
  }
  int yi = 0, di = 0;
  EXPECT_EQ(thrown([&] { yi = y.as<int>(); }).empty(), thrown([&] { di = d.as<int>(); }).empty()) << at;
  EXPECT_EQ(yi, di) << at;
  bool yb = false, db = false;
  EXPECT_EQ(YAML::convert<bool>::decode(y, yb), d.decodeBool(db)) << at;
  EXPECT_EQ(yb, db) << at;
}

/// The node a subscript finds is the one iteration walked: its place and size tell it.
void expectSameShallow(const YAML::Node& y, const YamlNode& d, const std::string& at) {
  ASSERT_EQ(y.IsDefined(), d.IsDefined()) << at;
  if (!y.IsDefined()) return;
  EXPECT_EQ(y.Mark().pos, d.Mark().pos) << at;
  EXPECT_EQ(y.size(), d.size()) << at;
}

void expectSame(const YAML::Node& y, const YamlNode& d, const std::string& at, int depth = 0) {
  ASSERT_EQ(y.IsDefined(), d.IsDefined()) << at;
  if (!y.IsDefined() || depth > 12) return;  // (aliases may make cycles)
  ASSERT_EQ(y.IsNull(), d.IsNull()) << at;
  ASSERT_EQ(y.IsScalar(), d.IsScalar()) << at;
  ASSERT_EQ(y.IsSequence(), d.IsSequence()) << at;
  ASSERT_EQ(y.IsMap(), d.IsMap()) << at;
  EXPECT_EQ(y.Mark().line, d.Mark().line) << at;
  EXPECT_EQ(y.Mark().column, d.Mark().column) << at;
  EXPECT_EQ(y.size(), d.size()) << at;
  EXPECT_EQ(y.Scalar(), d.Scalar()) << at;
  EXPECT_EQ(y.as<std::string>("?"), d.as<std::string>("?")) << at;
  expectSameScalarReadings(y, d, at);
  // a key that is not there, and a key asked of a scalar (BadSubscript, at its mark)
  EXPECT_EQ(thrown([&] { (void)y["no such key"].IsDefined(); }), thrown([&] { (void)d["no such key"].IsDefined(); }))
      << at;
  EXPECT_EQ(thrown([&] { (void)y["no such key"].size(); }), thrown([&] { (void)d["no such key"].size(); })) << at;
  std::size_t k = 0;
  auto di = d.begin();
  for (auto yi = y.begin(); yi != y.end(); ++yi, ++di, ++k) {
    ASSERT_TRUE(di != d.end()) << at;
    const std::string item = at + "/" + std::to_string(k);
    EXPECT_EQ(yi->IsDefined(), di->IsDefined()) << item;  // (a map's pairs are no nodes: asked, they throw)
    EXPECT_EQ(thrown([&] { (void)yi->size(); }), thrown([&] { (void)di->size(); })) << item;
    EXPECT_EQ(thrown([&] { (void)yi->first.size(); }), thrown([&] { (void)di->first.size(); })) << item;
    if (y.IsSequence()) {
      expectSame(*yi, *di, item, depth + 1);
      expectSameShallow(y[k], d[k], item);
      EXPECT_FALSE(di->first.IsDefined()) << item;
    } else {
      expectSame(yi->first, di->first, item + " key", depth + 1);
      expectSame(yi->second, di->second, item + " value", depth + 1);
      const std::string key = yi->first.as<std::string>("");
      expectSameShallow(y[key.c_str()], d[key.c_str()], item + " [" + key + "]");
    }
  }
  EXPECT_TRUE(di == d.end()) << at;
  EXPECT_EQ(thrown([&] { (void)y[y.size()].IsDefined(); }), thrown([&] { (void)d[y.size()].IsDefined(); })) << at;
  EXPECT_EQ(thrown([&] { (void)y[0].IsDefined(); }), thrown([&] { (void)d[0].IsDefined(); })) << at;
}

void expectSameDocument(const std::string& text, const std::string& name) {
  YAML::Node y;
  const std::string y_thrown = thrown([&] { y = YAML::Load(text); });
  std::unique_ptr<YamlDocument> d;
  const std::string d_thrown = thrown([&] { d = std::make_unique<YamlDocument>(text); });
  ASSERT_EQ(y_thrown, d_thrown) << name;  // the same parser: the same syntax errors, at the same place
  if (!y_thrown.empty()) return;
  expectSame(y, d->root(), name);
}

TEST(YamlDocument, AnswersAsYamlCppsNodesOnCornerCases) {
  const std::vector<std::string> texts = {
      "",
      "# only a comment\n",
      "a: 1\nb: [1, 2.5, -3e2, .inf, -.inf, .nan, 0x1F, 017, '4', \"5\", yes, off, ~, null, '~', \"null\"]\n",
      "a:\nb: ~\nc: {}\nd: []\n",
      "a: 1\na: 2\n",                               // a key twice: both kept, the first found
      "? [1, 2]\n: complex\n? {x: 1}\n: map key\n",  // keys that are not scalars
      "base: &b {x: 1, y: [2, 3]}\nuse: *b\nlist: [*b, *b]\n",
      "cycle: &c [1, *c]\n",
      "s: !!str 12\nt: !custom {a: 1}\n",
      "text: |\n  two\n  lines\nfolded: >\n  one\n  line\n",
      "- plain\n- - nested\n  - list\n- {in: line}\n",
      "just a scalar\n",
      "a: [1, 2\n",  // a syntax error
      "a: *undefined\n",
      "a: 1\n---\nb: 2\n",  // the first document alone
  };
  for (std::size_t i = 0; i < texts.size(); ++i) expectSameDocument(texts[i], "text " + std::to_string(i));
}

TEST(YamlDocument, AnswersAsYamlCppsNodesOnEveryBundledAndBrokenModel) {
  int files = 0;
  for (const char* dir : {LOOPDYN_MODELS_DIR, LOOPDYN_TEST_DATA_DIR "/broken"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".yaml") continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      expectSameDocument(text.str(), entry.path().filename().string());
      ++files;
    }
  }
  EXPECT_GT(files, 100);
}

}  // namespace
