#pragma once
/// A small streaming JSON writer, enough for loopdyn's reports: a TreeWriter (io/tree_writer.hpp)
/// whose output is JSON text. Keys keep the order in which they are written; non-finite numbers
/// are written as null.

#include <string>
#include <vector>

#include "loopdyn/io/tree_writer.hpp"

namespace loopdyn::io {

class JsonWriter final : public TreeWriter {
 public:
  /// indent 0: one line, no spaces; otherwise one value a line, nested `indent` spaces deeper.
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  const std::string& str() const { return out_; }

 private:
  void openObject() override;
  void closeObject() override;
  void openArray() override;
  void closeArray() override;
  void writeKey(const std::string& name) override;
  void writeString(const std::string& s) override;
  void writeNumber(double x) override;
  void writeInteger(int x) override;
  void writeBool(bool b) override;
  void writeNull() override;

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
