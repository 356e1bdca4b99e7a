#include "loopdyn/io/csv_file.hpp"

#include <charconv>

namespace loopdyn::io {

namespace {

/// One row as text appended to `text`: the numbers in their shortest round-trip form, a zero as 0.
void appendRow(const std::vector<double>& row, std::string& text) {
  char buffer[32];
  for (std::size_t k = 0; k < row.size(); ++k) {
    if (k > 0) text += ',';
    // (+ 0: a zero is written 0 whatever its sign -- the sign of a zero is rounding's, not data)
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, row[k] + 0.0);
    text.append(buffer, ec == std::errc{} ? end : buffer);
  }
  text += '\n';
}

}  // namespace

CsvFile::CsvFile(std::string path, const std::vector<std::string>& header) : file_(std::move(path), true) {
  std::string line;
  for (std::size_t k = 0; k < header.size(); ++k) (line += k == 0 ? "" : ",") += header[k];
  line += '\n';
  file_.write(line);
  writer_ = std::thread([this] { writeQueuedRows(); });
}

CsvFile::~CsvFile() {
  if (!writer_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    abandon_ = true;
  }
  rows_waiting_.notify_one();
  writer_.join();
}

void CsvFile::writeRow(const std::vector<double>& row) {
  std::unique_lock lock(mutex_);
  room_left_.wait(lock, [&] { return queue_.empty() || queued_numbers_ + row.size() <= kQueuedNumbers || error_; });
  rethrowError();
  std::vector<double> copy;
  if (!spare_.empty()) {
    copy = std::move(spare_.back());
    spare_.pop_back();
  }
  copy.assign(row.begin(), row.end());
  queued_numbers_ += copy.size();
  queue_.push_back(std::move(copy));
  // (the thread woken for a batch of rows, not for each: a wake-up is a system call)
  const bool batch = queue_.size() >= kBatchRows || 4 * queued_numbers_ >= kQueuedNumbers;
  lock.unlock();
  if (batch) rows_waiting_.notify_one();
}

void CsvFile::writeQueuedRows() {
  std::string text;  // formatted rows not yet written: written when the queue runs dry or it is long
  std::size_t unsent = 0;  // bytes written since the last writeback started
  std::unique_lock lock(mutex_);
  for (;;) {
    if (queue_.empty() && !text.empty() && !writeText(lock, text, unsent)) return;
    rows_waiting_.wait(lock, [&] { return !queue_.empty() || stop_ || abandon_; });
    if (abandon_ || queue_.empty()) return;  // (stop_ with nothing left: the text is written)
    std::vector<double> row = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    try {
      appendRow(row, text);
    } catch (...) {
      keepError(lock);
      return;
    }
    lock.lock();
    queued_numbers_ -= row.size();
    spare_.push_back(std::move(row));
    room_left_.notify_all();
    if (text.size() >= kWrittenBytes && !writeText(lock, text, unsent)) return;
  }
}

bool CsvFile::writeText(std::unique_lock<std::mutex>& lock, std::string& text, std::size_t& unsent) {
  lock.unlock();
  try {
    file_.write(text);
    unsent += text.size();
    if (unsent >= kWritebackBytes) {
      file_.startWriteback();
      unsent = 0;
    }
  } catch (...) {
    keepError(lock);
    return false;
  }
  text.clear();
  lock.lock();
  return true;
}

void CsvFile::keepError(std::unique_lock<std::mutex>& lock) {
  lock.lock();
  error_ = std::current_exception();
  queue_.clear();
  room_left_.notify_all();
}

void CsvFile::finishWriting() {
  if (writer_.joinable()) {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    rows_waiting_.notify_one();
    writer_.join();
  }
  const std::lock_guard lock(mutex_);
  rethrowError();
}

void CsvFile::rethrowError() const {
  if (error_) std::rethrow_exception(error_);
}

void CsvFile::commit() {
  finishWriting();
  file_.commit();
}

std::string CsvFile::commitFailed() {
  finishWriting();
  return file_.commitFailed();
}

}  // namespace loopdyn::io
