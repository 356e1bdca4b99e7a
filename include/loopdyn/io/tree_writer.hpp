#pragma once
/// A report's shape written once: objects (keys in the order written), arrays, strings, numbers,
/// booleans and nulls, handed in order to a writer that makes of them what its reader needs --
/// JSON text (io::JsonWriter) or another language's objects (the Python module's dicts and lists).

#include <string>
#include <vector>

namespace loopdyn::io {

class TreeWriter {
 public:
  virtual ~TreeWriter() = default;

  TreeWriter& beginObject() { return openObject(), *this; }
  TreeWriter& endObject() { return closeObject(), *this; }
  TreeWriter& beginArray() { return openArray(), *this; }
  TreeWriter& endArray() { return closeArray(), *this; }
  /// The key of the next value inside an object.
  TreeWriter& key(const std::string& name) { return writeKey(name), *this; }
  TreeWriter& value(const std::string& s) { return writeString(s), *this; }
  TreeWriter& value(const char* s) { return writeString(std::string(s)), *this; }
  TreeWriter& value(double x) { return writeNumber(x), *this; }  ///< non-finite: the writer's null
  TreeWriter& value(int x) { return writeInteger(x), *this; }
  TreeWriter& value(bool b) { return writeBool(b), *this; }
  TreeWriter& null() { return writeNull(), *this; }
  template <typename T>
  TreeWriter& array(const std::vector<T>& items) {
    beginArray();
    for (const T& item : items) value(item);
    return endArray();
  }

 protected:
  virtual void openObject() = 0;
  virtual void closeObject() = 0;
  virtual void openArray() = 0;
  virtual void closeArray() = 0;
  virtual void writeKey(const std::string& name) = 0;
  virtual void writeString(const std::string& s) = 0;
  virtual void writeNumber(double x) = 0;
  virtual void writeInteger(int x) = 0;
  virtual void writeBool(bool b) = 0;
  virtual void writeNull() = 0;
};

}  // namespace loopdyn::io
