#include "loopdyn/io/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace loopdyn::io {

std::string jsonQuote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void JsonWriter::newline() {
  if (indent_ <= 0) return;
  out_ += '\n';
  out_.append(first_.size() * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::beforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
  }
}

void JsonWriter::openObject() {
  beforeValue();
  out_ += '{';
  first_.push_back(true);
}

void JsonWriter::close(char bracket) {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += bracket;
}

void JsonWriter::closeObject() { close('}'); }

void JsonWriter::openArray() {
  beforeValue();
  out_ += '[';
  first_.push_back(true);
}

void JsonWriter::closeArray() { close(']'); }

void JsonWriter::writeKey(const std::string& name) {
  beforeValue();
  out_ += jsonQuote(name);
  out_ += indent_ > 0 ? ": " : ":";
  after_key_ = true;
}

void JsonWriter::writeString(const std::string& s) {
  beforeValue();
  out_ += jsonQuote(s);
}

void JsonWriter::writeNumber(double x) {
  beforeValue();
  if (!std::isfinite(x)) {
    out_ += "null";
    return;
  }
  // shortest text that reads back as the same double
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, x).ptr;
  out_.append(buf, end);
}

void JsonWriter::writeInteger(int x) {
  beforeValue();
  out_ += std::to_string(x);
}

void JsonWriter::writeBool(bool b) {
  beforeValue();
  out_ += b ? "true" : "false";
}

void JsonWriter::writeNull() {
  beforeValue();
  out_ += "null";
}

}  // namespace loopdyn::io
