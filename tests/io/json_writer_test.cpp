#include "loopdyn/io/json_writer.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace loopdyn::io {
namespace {

TEST(JsonWriter, WritesNestedContainersCompactly) {
  JsonWriter w(0);
  w.beginObject();
  w.key("n").value(15);
  w.key("singular").value(true);
  w.key("names").array(std::vector<std::string>{"B.x", "q\"uote"});
  w.key("x").value(0.1);
  w.key("bad").value(std::numeric_limits<double>::quiet_NaN());
  w.key("empty").beginArray().endArray();
  w.endObject();
  EXPECT_EQ(w.str(), R"({"n":15,"singular":true,"names":["B.x","q\"uote"],"x":0.1,"bad":null,"empty":[]})");
}

}  // namespace
}  // namespace loopdyn::io
