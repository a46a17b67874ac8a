// Draws the tree: a heading line with the columns (the sorted one marked),
// then one line per visible row: tree lines, the label coloured by kind, a
// kernel's launch configuration or a transfer's bytes, and the figures.
#pragma once

#include <string>

#include "tools/view/browse_tree.h"
#include "tools/view/canvas.h"
#include "tools/view/list_cursor.h"
#include "tools/view/search.h"
#include "tools/view/session.h"

namespace brickprof::view {

// Lines of the tree under its heading in a pane of `height` lines.
inline int tree_body_height(int height) { return height > 1 ? height - 1 : 0; }

void draw_tree(Canvas& canvas, Rect r, Session& session, ListCursor& cursor, const Matcher& match);

// The colour of a row by kind.
Style kind_style(NodeKind kind);
Style row_style(const BrowseTree& tree, uint32_t row);
// What a row shows after its label: "<<<256×4×1,256>>> smem 0B, 32 regs",
// "66.4MiB", or "".
std::string row_extra(const BrowseTree& tree, uint32_t row);

}  // namespace brickprof::view
