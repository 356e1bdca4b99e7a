#pragma once
/// A small streaming JSON writer (objects, arrays, strings, numbers, booleans), enough for
/// loopdyn's reports. Keys keep the order in which they are written.

#include <string>
#include <vector>

namespace loopdyn::io {

class JsonWriter {
 public:
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  /// The key of the next value inside an object.
  JsonWriter& key(const std::string& name);
  JsonWriter& value(const std::string& s);
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(double x);  ///< non-finite numbers are written as null
  JsonWriter& value(int x);
  JsonWriter& value(bool b);
  JsonWriter& null();
  template <typename T>
  JsonWriter& array(const std::vector<T>& items) {
    beginArray();
    for (const T& item : items) value(item);
    return endArray();
  }

  const std::string& str() const { return out_; }

 private:
  void beforeValue();
  void newline();
  void close(char bracket);
  std::string out_;
  int indent_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
};

/// JSON string literal with escapes.
std::string jsonQuote(const std::string& s);

}  // namespace loopdyn::io
