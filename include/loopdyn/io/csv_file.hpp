#pragma once
/// A CSV table written as an OutputFile (output_file.hpp): a reader never sees half of it, the
/// target is replaced only on commit(), a failed run keeps its rows under failedPath (out.csv ->
/// out.failed.csv), an interrupted one under partialPath (out.partial.csv); devices and pipes are
/// written directly; symbolic links are followed.
///
/// Numbers are written in the shortest form that reads back to the same double. The rows are
/// formatted and written by a thread of the file's own, beside the computation that produces them
/// (the double four-bar's 10 s with 1 001 rows of 121 numbers: 9 ms of a 26 ms run had been the
/// CSV's, on the run's thread); at most kQueuedNumbers numbers wait for it (and at least one row),
/// and it writes them in batches: like the stream's buffer, a batch not yet written when the
/// process is interrupted is not in the partial file.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loopdyn/io/output_file.hpp"

namespace loopdyn::io {

class CsvFile {
 public:
  /// Rows wait for the writing thread while they hold fewer numbers than this (8 MB).
  static constexpr std::size_t kQueuedNumbers = std::size_t{1} << 20;
  /// The thread is woken when this many rows (or a quarter of kQueuedNumbers) wait, and at the end.
  static constexpr std::size_t kBatchRows = 16;
  /// The thread writes its formatted rows when the queue runs dry or they reach this many bytes:
  /// one system call for many rows (the stream writes a row of more than 1 KB at once, past its
  /// buffer: 1 001 system calls for the double four-bar's 1 001 rows).
  static constexpr std::size_t kWrittenBytes = std::size_t{1} << 16;
  /// After this many bytes the thread hands them to the device (OutputFile::startWriteback): the
  /// commit's rename then has little left to write out.
  static constexpr std::size_t kWritebackBytes = std::size_t{1} << 18;

  /// Opens the temporary file and writes the header. Throws OutputError if it cannot.
  CsvFile(std::string path, const std::vector<std::string>& header);
  /// Without a commit, the rows not yet written are dropped with the temporary file.
  ~CsvFile();
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(const CsvFile&) = delete;

  /// Queues the row for writing. Throws OutputError when an earlier row could not be written (a
  /// full disk); the row that fails last is reported by commit().
  void writeRow(const std::vector<double>& row);
  /// Writes what is queued, flushes, closes and renames onto the target path. Throws OutputError
  /// on failure.
  void commit();
  /// The same onto failedPath(path()), for the rows of a run that failed; returns that path.
  std::string commitFailed();

  const std::string& path() const { return file_.path(); }
  /// The target is a device or pipe, written directly (no sidecar belongs beside it).
  bool direct() const { return file_.direct(); }

 private:
  /// The writing thread: formats and writes queued rows until told to stop.
  void writeQueuedRows();
  /// The writing thread writes `text` (the mutex unlocked meanwhile) and empties it, and starts
  /// the device's writeback when `unsent` bytes reach kWritebackBytes; false, with the error kept
  /// for the producer, when it could not.
  bool writeText(std::unique_lock<std::mutex>& lock, std::string& text, std::size_t& unsent);
  /// Inside a catch block of the writing thread (the mutex unlocked): the error kept, the queue dropped.
  void keepError(std::unique_lock<std::mutex>& lock);
  /// Waits until every queued row is written and the thread has ended; rethrows its error.
  void finishWriting();
  /// Throws the writing thread's error, if it had one (the mutex held).
  void rethrowError() const;

  OutputFile file_;
  std::mutex mutex_;
  std::condition_variable rows_waiting_, room_left_;
  std::deque<std::vector<double>> queue_;
  std::vector<std::vector<double>> spare_;  ///< written rows' storage, reused
  std::size_t queued_numbers_ = 0;
  bool stop_ = false;     ///< no more rows come: write what is queued, then end
  bool abandon_ = false;  ///< end at once (no commit: the file goes)
  std::exception_ptr error_;
  std::thread writer_;
};

}  // namespace loopdyn::io
