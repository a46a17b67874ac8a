// The HTML page's cuts (tools/html/README.md, "Cuts"): a report view's JSON
// copied with each list directly under it cut to its first entries, as a
// filter the view's renderer writes through, so a view of tens of MB (the
// critical path of 10^6 events) is never held whole.
#pragma once

#include <cstddef>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace brickprof {

// A list that was cut: `key` is its key's JSON text as the view wrote it
// (quoted), `kept` of its `of` entries were copied.
struct ListCut {
  std::string key;
  size_t kept = 0;
  size_t of = 0;
};

// Copies one JSON value (as brickprof's writers produce it: valid, UTF-8) to
// `out`; when it is an object, each array under one of its keys keeps at most
// `limit` entries. finish() passes on what is buffered.
class ListCutBuf : public std::streambuf {
 public:
  ListCutBuf(std::ostream& out, size_t limit) : out_(out), limit_(limit) {}
  ~ListCutBuf() override { finish(); }
  ListCutBuf(const ListCutBuf&) = delete;
  ListCutBuf& operator=(const ListCutBuf&) = delete;

  void finish();
  const std::vector<ListCut>& cuts() const { return cuts_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* data, std::streamsize n) override;
  int sync() override;

 private:
  void feed(const char* data, size_t n);
  bool in_list(char c);  // a character between a list's entries; true when handled
  void put(char c) {
    if (copying_) buffer_.push_back(c);
  }

  std::ostream& out_;
  const size_t limit_;
  std::string buffer_;  // copied, not yet passed on
  std::vector<ListCut> cuts_;
  // Where the scan is.
  int depth_ = 0;
  bool in_string_ = false, escape_ = false;
  bool object_ = false;      // the value is an object
  bool expect_key_ = false;  // at depth 1: the next string is a key
  bool key_text_ = false;    // copying a key's text into key_
  std::string key_;
  // A list under a key: its entries so far, whether one is open, and the
  // comma (with white space) held until the next entry is known to be kept.
  bool list_ = false, entry_open_ = false, copying_ = true;
  size_t entries_ = 0;
  std::string held_;
};

}  // namespace brickprof
