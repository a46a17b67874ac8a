// The tree pane (see tree_pane.h).
#include "tools/view/tree_pane.h"

#include <algorithm>

#include "trace/model/format.h"

namespace brickprof::view {
namespace {

struct Column {
  const char* name;
  SortKey key;
  int width;
};

constexpr Column kColumns[] = {
    {"Count", SortKey::kCount, 8}, {"Total", SortKey::kTotal, 10},  {"Avg", SortKey::kAvg, 10},
    {"GPU", SortKey::kGpu, 10},    {"%Parent", SortKey::kTotal, 9},
};
constexpr Column kDiffColumns[] = {
    {"Count", SortKey::kCount, 8}, {"Total", SortKey::kTotal, 10}, {"Avg", SortKey::kAvg, 10},
    {"GPU", SortKey::kGpu, 10},    {"ΔAvg", SortKey::kChange, 9},  {"", SortKey::kChange, 3},
};
// Under 100 columns the figures close up, so names keep room.
constexpr int kRoomyWidth = 100;
constexpr Column kNarrowColumns[] = {
    {"Count", SortKey::kCount, 7}, {"Total", SortKey::kTotal, 9},   {"Avg", SortKey::kAvg, 9},
    {"GPU", SortKey::kGpu, 9},     {"%Parent", SortKey::kTotal, 8},
};
constexpr Column kNarrowDiffColumns[] = {
    {"Count", SortKey::kCount, 7}, {"Total", SortKey::kTotal, 9}, {"Avg", SortKey::kAvg, 9},
    {"GPU", SortKey::kGpu, 9},     {"ΔAvg", SortKey::kChange, 8}, {"", SortKey::kChange, 2},
};

int columns_width(std::span<const Column> columns) {
  int w = 0;
  for (const Column& c : columns) w += c.width;
  return w;
}

// The tree drawing in front of a row's label, and its expand marker.
std::string tree_prefix(BrowseTree& tree, uint32_t row, int max_width, bool ascii) {
  const uint32_t depth = tree.depth(row);
  // Deep nests keep the innermost levels that fit; "…" says more are left.
  const uint32_t fit = static_cast<uint32_t>(std::max(1, (max_width - 4) / 2));
  const uint32_t shown = std::min(depth, fit);
  std::vector<bool> continues(shown, false);  // per shown level: a sibling follows below
  uint32_t at = row;
  for (uint32_t level = shown; level-- > 0;) {
    continues[level] = !tree.last_sibling(at);
    at = tree.parent(at);
  }
  // ASCII as htop draws its tree: "|-", "`-", "| ", and + / - for
  // collapsed / expanded.
  std::string s;
  if (shown < depth) s += ascii ? "." : "…";
  for (uint32_t level = 0; level + 1 < shown; ++level)
    s += continues[level] ? (ascii ? "| " : "│ ") : "  ";
  if (shown > 0) s += continues[shown - 1] ? (ascii ? "|-" : "├─") : (ascii ? "`-" : "└─");
  if (tree.has_children(row))
    s += tree.expanded(row) ? (ascii ? "-" : "▾") : (ascii ? "+" : "▸");
  else
    s += shown > 0 && !ascii ? "─" : " ";
  s += ' ';
  return s;
}

std::string signed_pct(double pct) { return (pct >= 0 ? "+" : "") + format_fixed(pct, 1) + "%"; }

}  // namespace

Style kind_style(NodeKind kind) {
  switch (kind) {
    case NodeKind::kLayer:
      return Style::kLayer;
    case NodeKind::kBrick:
      return Style::kBrick;
    case NodeKind::kScope:
      return Style::kScope;
    case NodeKind::kKernel:
      return Style::kKernel;
    case NodeKind::kTransfer:
    case NodeKind::kMemset:
      return Style::kTransfer;
    case NodeKind::kSync:
      return Style::kSync;
  }
  return Style::kNormal;
}

Style row_style(const BrowseTree& tree, uint32_t row) {
  if (tree.is_ptx(row)) return Style::kPtx;
  if (tree.is_outside(row)) return Style::kDim;
  const AggregateNode& a = tree.aggregate().nodes[row];
  return a.first == kNoNode ? Style::kThread : kind_style(tree.trace().nodes[a.first].kind);
}

std::string row_extra(const BrowseTree& tree, uint32_t row) {
  if (tree.is_ptx(row)) return {};
  const AggregateNode& a = tree.aggregate().nodes[row];
  if (a.first == kNoNode) return {};
  const Trace& t = tree.trace();
  const Node& n = t.nodes[a.first];
  const GpuDetail* g = t.detail(n);
  std::string s;
  if (n.kind == NodeKind::kKernel && g) {
    s = "<<<";
    append_dims(s, g->grid);
    s += ",";
    append_dims(s, g->block);
    s += ">>> smem " + format_bytes(g->smem);
    if (g->registers) s += ", " + std::to_string(g->registers) + " regs";
  } else if (n.kind == NodeKind::kTransfer || n.kind == NodeKind::kMemset) {
    s = format_bytes(a.bytes);
  }
  return s;
}

void draw_tree(Canvas& canvas, Rect r, Session& session, ListCursor& cursor, const Matcher& match) {
  BrowseTree& tree = session.tree();
  const bool diff = session.has_base();
  const bool roomy = r.w >= kRoomyWidth;
  // No GPU column where there is no GPU work: "-" on every row says nothing.
  const bool gpu = session.has_gpu_work();
  std::vector<Column> columns;
  for (const Column& c : diff ? (roomy ? std::span<const Column>(kDiffColumns) : kNarrowDiffColumns)
                              : (roomy ? std::span<const Column>(kColumns) : kNarrowColumns))
    if (gpu || c.key != SortKey::kGpu) columns.push_back(c);
  const int figures = columns_width(columns);
  const int name_w = std::max(10, r.w - figures);

  // Heading.
  canvas.fill(r.x, r.y, r.w, Style::kHeader);
  canvas.put(r.x + 1, r.y, "Name", Style::kHeader);
  const char* arrow = tree.descending() ? "▼" : "▲";
  if (tree.sort_key() == SortKey::kName) canvas.put(r.x + 5, r.y, arrow, Style::kHeader);
  int x = r.x + name_w;
  for (const Column& c : columns) {
    std::string name = c.name;
    // The sorted column says so (%Parent sorts with Total: the same order).
    if (tree.sort_key() == c.key && *c.name && std::string_view(c.name) != "%Parent") name += arrow;
    canvas.put_right(x, r.y, c.width - 1, name, Style::kHeader);
    x += c.width;
  }

  const std::vector<uint32_t>& rows = tree.visible();
  const size_t height = static_cast<size_t>(tree_body_height(r.h));
  cursor.follow(rows.size(), height, 2);
  for (size_t i = 0; i < height; ++i) {
    const int y = r.y + 1 + static_cast<int>(i);
    canvas.fill(r.x, y, r.w, Style::kNormal);
    const size_t at = cursor.top + i;
    if (at >= rows.size()) continue;
    const uint32_t row = rows[at];
    const std::string prefix = tree_prefix(tree, row, name_w / 2, canvas.ascii());
    int cx = r.x + canvas.put(r.x, y, prefix, Style::kDim, name_w - 1);
    const std::string label = tree.label(row);
    const int label_x = cx;
    const int room = r.x + name_w - 1 - cx;
    const int dots = display_width("…", canvas.ascii());               // "..." on an ASCII screen
    if (display_width(label, canvas.ascii()) > room && room > dots) {  // cut: say so
      cx += canvas.put(cx, y, label, row_style(tree, row), room - dots);
      cx += canvas.put(cx, y, "…", Style::kDim);
    } else {
      cx += canvas.put(cx, y, label, row_style(tree, row), room);
    }
    if (const size_t m = match.find(label); m != std::string::npos) {
      const std::string_view text = label;
      const int from = label_x + display_width(text.substr(0, m), canvas.ascii());
      const int w = display_width(text.substr(m, match.pattern().size()), canvas.ascii());
      if (from < r.x + name_w - 1)
        canvas.restyle(from, y, std::min(w, r.x + name_w - 1 - from), Style::kMatch);
    }
    if (const std::string extra = row_extra(tree, row); !extra.empty() && cx < r.x + name_w - 3) {
      const int room = r.x + name_w - 2 - cx;
      if (display_width(extra, canvas.ascii()) > room && room > dots) {
        const int shown = canvas.put(cx + 1, y, extra, Style::kDim, room - dots);
        canvas.put(cx + 1 + shown, y, "…", Style::kDim);
      } else {
        canvas.put(cx + 1, y, extra, Style::kDim, room);
      }
    }
    if (!tree.is_ptx(row)) {
      const AggregateNode& a = tree.aggregate().nodes[row];
      const int64_t total = tree.total_ns(row);
      const int64_t avg = a.count ? total / static_cast<int64_t>(a.count) : 0;
      int fx = r.x + name_w;
      size_t column = 0;  // the next cell's
      auto cell = [&](const std::string& text, Style style = Style::kNormal) {
        const int width = columns[column++].width;
        canvas.put_right(fx, y, width - 1, text, style);
        fx += width;
      };
      cell(a.count ? std::to_string(a.count) : "");
      cell(format_duration(total));
      cell(a.count ? format_duration(avg) : "");
      if (gpu) {
        const int64_t gpu_ns = tree.gpu_ns(row);
        cell(gpu_ns ? format_duration(gpu_ns) : "-", gpu_ns ? Style::kNormal : Style::kDim);
      }
      if (!diff) {
        const double pct = tree.share(row);
        cell(pct < 0 ? "-" : format_fixed(pct, 1), pct < 0 ? Style::kDim : Style::kNormal);
      } else if (const DiffEntry* e = session.diff_entry(row)) {
        const bool both = e->base_count && e->new_count;
        const double limit = session.diff()->limits.threshold_pct;
        const Style style = e->regression              ? Style::kRegression
                            : e->change_pct() < -limit ? Style::kImproved
                                                       : Style::kNormal;
        cell(both ? signed_pct(e->change_pct()) : "new", style);
        cell(e->regression     ? "▲"
             : e->code_changed ? "≠"
                               : "",
             e->regression ? Style::kRegression : Style::kChanged);
      }
    }
    if (at == cursor.selected) canvas.select(r.x, y, r.w);
  }
}

}  // namespace brickprof::view
