// Shared by the browser's tests: fixtures, a browser driven by keys, and
// the screen it drew as text.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/view/browser.h"
#include "tools/view/session.h"
#include "trace/json/trace_json.h"

namespace brickprof::view::test {

inline std::string data(const std::string& name) {
  return std::string(BRICKPROF_TEST_DATA) + "/" + name;
}

// A browser on a fixture (and a base), drawn at width x height.
struct Screen {
  std::unique_ptr<Session> session;
  std::unique_ptr<Browser> browser;
  int width, height;
  bool ascii;

  explicit Screen(const std::string& file, int w = 120, int h = 40, bool plain = false,
                  const std::string& base = {})
      : width(w), height(h), ascii(plain) {
    std::optional<Trace> base_trace;
    if (!base.empty()) base_trace = read_trace_file(data(base));
    session =
        std::make_unique<Session>(read_trace_file(data(file)), file, std::move(base_trace), base);
    browser = std::make_unique<Browser>(*session, w, h);
  }
  // Keys as typed: each character a key, or the named keys below.
  Screen& keys(const std::string& text) {
    for (char c : text) browser->key(static_cast<unsigned char>(c));
    return *this;
  }
  Screen& key(int k) {
    browser->key(k);
    return *this;
  }
  Canvas draw() {
    Canvas c(width, height, ascii);
    browser->draw(c);
    return c;
  }
  std::string text() { return draw().text(); }
  // The row of the screen that holds `needle`, or -1.
  int row_with(const std::string& needle) {
    Canvas c = draw();
    for (int y = 0; y < c.height(); ++y)
      if (c.row(y).find(needle) != std::string::npos) return y;
    return -1;
  }
  // The selected row's text (the tree's or a list's).
  std::string selected() {
    Canvas c = draw();
    for (int y = 2; y < c.height() - 1; ++y)
      if (c.at(0, y).selected && c.at(c.width() - 1, y).selected) return c.row(y);
    return {};
  }
};

}  // namespace brickprof::view::test
