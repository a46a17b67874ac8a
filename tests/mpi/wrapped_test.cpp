// kWrapped (agent/mpi/wrapped.h), the one list of the MPI functions the
// agent wraps, against what libbrickprof.so exports: every MPI_* symbol of
// `nm -D` has a row and every row a symbol, once. A recorded row records as
// the operation whose trace name is its own (MPI_Init_thread as MPI_Init),
// and every operation a program calls is recorded by some row.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

#include "agent/mpi/wrapped.h"

namespace brickprof::agent::mpi {
namespace {

// The MPI_ functions the agent defines and exports, as the loader sees them.
std::set<std::string> exported_mpi_functions(bool* ran) {
  std::set<std::string> names;
  FILE* nm = popen("nm -D --defined-only '" BRICKPROF_AGENT_PATH "'", "r");
  *ran = nm != nullptr;
  if (!nm) return names;
  char line[512];
  while (std::fgets(line, sizeof line, nm)) {
    char type = 0;
    char name[400];
    if (std::sscanf(line, "%*s %c %399s", &type, name) == 2 && type == 'T' &&
        std::string(name).rfind("MPI_", 0) == 0)
      names.insert(name);
  }
  *ran = pclose(nm) == 0;
  return names;
}

TEST(Wrapped, TableIsTheAgentsExportedMpiFunctions) {
  bool ran = false;
  const std::set<std::string> exported = exported_mpi_functions(&ran);
  if (!ran) GTEST_SKIP() << "nm (binutils) could not read " BRICKPROF_AGENT_PATH;
  std::set<std::string> rows;
  for (const WrappedCall& w : kWrapped)
    EXPECT_TRUE(rows.insert(std::string(w.name)).second) << w.name << " has two rows";
  for (const std::string& name : exported)
    EXPECT_TRUE(rows.count(name)) << name << " is exported but has no row in kWrapped";
  for (const std::string& name : rows)
    EXPECT_TRUE(exported.count(name)) << name << " has a row in kWrapped but is not exported";
  EXPECT_GT(exported.size(), 40u);
}

TEST(Wrapped, RecordedRowsRecordAsTheirOwnOperation) {
  std::set<CommOp> recorded;
  for (const WrappedCall& w : kWrapped) {
    if (w.how != Wrap::kRecorded) continue;
    recorded.insert(w.op);
    const std::string_view as = mpi_function_name(w.op);
    EXPECT_TRUE(w.name == as || (w.name == "MPI_Init_thread" && as == "MPI_Init"))
        << w.name << " records as " << as;
  }
  for (size_t op = 0; op <= static_cast<size_t>(CommOp::kWaitany); ++op) {
    if (static_cast<CommOp>(op) == CommOp::kClockSync) continue;  // the agent's own
    EXPECT_TRUE(recorded.count(static_cast<CommOp>(op)))
        << mpi_function_name(static_cast<CommOp>(op)) << " is recorded by no row";
  }
}

}  // namespace
}  // namespace brickprof::agent::mpi
