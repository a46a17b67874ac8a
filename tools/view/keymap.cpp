// The key table (see keymap.h): vi keys and arrows alike, as in tig and
// htop.
#include "tools/view/keymap.h"

#include <algorithm>

#include "tools/view/keys.h"

namespace brickprof::view {

const std::vector<Binding>& key_bindings() {
  using K = KeyScope;
  using A = Action;
  static const std::vector<Binding> bindings = {
      {K::kGlobal, {'q', key::kF10}, A::kQuit, "quit"},
      {K::kGlobal, {'?', key::kF1}, A::kHelp, "this help"},
      {K::kGlobal, {'1'}, A::kTab, "show a view (the tabs at the top)", "1-9 0"},
      {K::kGlobal, {key::kTab}, A::kNextTab, "next view"},
      {K::kGlobal, {key::kBackTab}, A::kPrevTab, "previous view"},
      {K::kGlobal, {'j', key::kDown}, A::kDown, "down"},
      {K::kGlobal, {'k', key::kUp}, A::kUp, "up"},
      {K::kGlobal, {key::kPageDown, 6}, A::kPageDown, "page down"},
      {K::kGlobal, {key::kPageUp, 2}, A::kPageUp, "page up"},
      {K::kGlobal, {'g', key::kHome}, A::kTop, "first line"},
      {K::kGlobal, {'G', key::kEnd}, A::kBottom, "last line"},
      {K::kGlobal, {'/'}, A::kSearch, "search names (smart case)"},
      {K::kGlobal, {'n'}, A::kNextMatch, "next match"},
      {K::kGlobal, {'N'}, A::kPrevMatch, "previous match"},
      {K::kTree, {'h', key::kLeft}, A::kCollapse, "collapse, or go to the parent"},
      {K::kTree, {'l', key::kRight}, A::kExpand, "expand, or go to the first child"},
      {K::kTree, {key::kEnter, ' '}, A::kToggle, "expand or collapse; on a leaf, its details"},
      {K::kTree, {'x'}, A::kExpandAll, "expand everything below"},
      {K::kTree, {'X'}, A::kCollapseAll, "collapse everything below"},
      {K::kTree, {'s'}, A::kSort, "sort by the next column (tree order, total, avg, ...)"},
      {K::kTree, {'I'}, A::kInvertSort, "invert the sort order"},
      {K::kTree, {'S'}, A::kSlowest, "jump to the slowest kernel (most self time without GPU)"},
      {K::kTree, {'c'}, A::kNextOnPath, "next entry on the critical path"},
      {K::kTree, {'C'}, A::kPrevOnPath, "previous entry on the critical path"},
      {K::kList, {key::kEnter}, A::kShowInTree, "show the selected step in the tree"},
      {K::kGlobal, {'d'}, A::kDetail, "detail pane on/off"},
      {K::kGlobal, {'J'}, A::kDetailDown, "scroll the detail pane down"},
      {K::kGlobal, {'K'}, A::kDetailUp, "scroll the detail pane up"},
      {K::kGlobal, {'u'}, A::kUnder, "only what ran under scopes named ... (Tab completes)"},
      {K::kGlobal, {'U'}, A::kClearUnder, "the whole trace again"},
      {K::kGlobal, {'w'}, A::kWhatIf, "what-if: the selected brick, scope or kernel K x faster"},
      {K::kGlobal, {'W'}, A::kClearWhatIf, "forget the what-ifs"},
      {K::kGlobal, {'r'}, A::kRank, "next rank of a merged trace (all, rank 0, rank 1, ...)"},
      {K::kRoofline, {'b'}, A::kRoofKind, "roofline: bricks, kernels, or both"},
      {K::kRoofline, {']', '['}, A::kRoofDevice, "roofline: next device"},
      {K::kText, {'h', key::kLeft}, A::kScrollLeft, "scroll left"},
      {K::kText, {'l', key::kRight}, A::kScrollRight, "scroll right (long lines)"},
      {K::kGlobal, {key::kCtrlL}, A::kRedraw, "redraw the screen"},
  };
  return bindings;
}

Action action_for(int key, const std::vector<KeyScope>& scopes) {
  if (key >= '0' && key <= '9') return Action::kTab;
  for (KeyScope scope : scopes)
    for (const Binding& b : key_bindings())
      if (b.scope == scope && std::find(b.keys.begin(), b.keys.end(), key) != b.keys.end())
        return b.action;
  return Action::kNone;
}

std::string key_name(int key) {
  switch (key) {
    case key::kTab:
      return "Tab";
    case key::kBackTab:
      return "S-Tab";
    case key::kEnter:
      return "Enter";
    case ' ':
      return "Space";
    case key::kEscape:
      return "Esc";
    case key::kUp:
      return "Up";
    case key::kDown:
      return "Down";
    case key::kLeft:
      return "Left";
    case key::kRight:
      return "Right";
    case key::kPageUp:
      return "PgUp";
    case key::kPageDown:
      return "PgDn";
    case key::kHome:
      return "Home";
    case key::kEnd:
      return "End";
    case key::kCtrlL:
      return "C-l";
    case 2:
      return "C-b";
    case 6:
      return "C-f";
    default:
      break;
  }
  if (key >= key::kF1 && key <= key::kF10) return "F" + std::to_string(key - key::kF1 + 1);
  if (key > ' ' && key < 127) return std::string(1, static_cast<char>(key));
  return "?";
}

}  // namespace brickprof::view
