// Which key does what, in one table: the browser looks actions up here and
// the help screen (`?`) is printed from the same table, so the two never
// disagree.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace brickprof::view {

enum class Action : uint8_t {
  kNone,
  kQuit,
  kHelp,
  kRedraw,
  kTab,  // the key's digit names the view
  kNextTab,
  kPrevTab,
  kUp,
  kDown,
  kPageUp,
  kPageDown,
  kTop,
  kBottom,
  kCollapse,  // or go to the parent
  kExpand,    // or go to the first child
  kToggle,
  kExpandAll,
  kCollapseAll,
  kSort,
  kInvertSort,
  kSlowest,
  kNextOnPath,
  kPrevOnPath,
  kSearch,
  kNextMatch,
  kPrevMatch,
  kDetail,
  kDetailDown,
  kDetailUp,
  kUnder,
  kClearUnder,
  kWhatIf,
  kClearWhatIf,
  kRank,
  kShowInTree,
  kRoofDevice,
  kRoofKind,
  kScrollLeft,
  kScrollRight,
};

// Where a binding applies: everywhere, in the tree, in the critical path's
// list of steps, in the roofline, or in a view shown as text.
enum class KeyScope : uint8_t { kGlobal, kTree, kList, kRoofline, kText };

struct Binding {
  KeyScope scope;
  std::array<int, 4> keys;  // unused slots are 0
  Action action;
  const char* help;
  const char* shown = nullptr;  // the keys as the help writes them, when not one by one
};

const std::vector<Binding>& key_bindings();

// The action of `key` where the browser is: the first binding of one of
// `scopes` (most specific first) that lists the key.
Action action_for(int key, const std::vector<KeyScope>& scopes);

// A key as the help shows it: "j", "Enter", "PgDn", "F1", "Space".
std::string key_name(int key);

}  // namespace brickprof::view
