// Where a launcher put the process (rank, local rank, world size, job) from
// each launcher's variables, and the output pattern that keeps ranks' files
// apart.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "agent/io/process_info.h"
#include "tests/support/fake_env.h"

namespace brickprof::agent {
namespace {

LaunchInfo launched(std::map<std::string, std::string> env) {
  test::fake_env() = std::move(env);
  return detect_launch(test::fake_getenv);
}

TEST(Launch, EachLaunchersVariables) {
  LaunchInfo o = launched({{"OMPI_COMM_WORLD_RANK", "3"},
                           {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                           {"OMPI_COMM_WORLD_SIZE", "8"},
                           {"PMIX_NAMESPACE", "4711"},
                           {"SLURM_PROCID", "0"}});  // mpirun inside a Slurm job
  EXPECT_EQ(o.launcher, "open-mpi");
  EXPECT_EQ(o.rank, 3);
  EXPECT_EQ(o.local_rank, 1);
  EXPECT_EQ(o.world_size, 8);
  EXPECT_EQ(o.job, "4711");
  LaunchInfo s = launched({{"SLURM_PROCID", "5"},
                           {"SLURM_LOCALID", "1"},
                           {"SLURM_NTASKS", "16"},
                           {"SLURM_JOB_ID", "99"},
                           {"SLURM_STEP_ID", "2"}});
  EXPECT_EQ(s.launcher, "slurm");
  EXPECT_EQ(s.rank, 5);
  EXPECT_EQ(s.world_size, 16);
  EXPECT_EQ(s.job, "99.2");
  LaunchInfo t = launched(
      {{"RANK", "1"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "2"}, {"TORCHELASTIC_RUN_ID", "abc"}});
  EXPECT_EQ(t.launcher, "torchrun");
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.world_size, 2);
  EXPECT_EQ(t.job, "abc");
  LaunchInfo p = launched({{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}, {"MPI_LOCALRANKID", "0"}});
  EXPECT_EQ(p.launcher, "pmi");
  EXPECT_EQ(p.world_size, 4);
  EXPECT_EQ(p.local_rank, 0);
  LaunchInfo x = launched({{"PMIX_RANK", "7"}});
  EXPECT_EQ(x.launcher, "pmix");
  EXPECT_EQ(x.rank, 7);
  EXPECT_EQ(x.world_size, 0);  // PMIx alone does not say
}

TEST(Launch, NoneOrNonsense) {
  EXPECT_EQ(launched({}).rank, -1);
  EXPECT_EQ(launched({}).launcher, "");
  EXPECT_EQ(launched({{"RANK", "x1"}}).rank, -1);
  EXPECT_EQ(launched({{"RANK", "-1"}}).rank, -1);
  // A size the rank does not fit in is not believed.
  LaunchInfo bad = launched({{"RANK", "4"}, {"WORLD_SIZE", "4"}});
  EXPECT_EQ(bad.rank, 4);
  EXPECT_EQ(bad.world_size, 0);
}

TEST(Launch, RanksOfAJobNeverShareAFile) {
  EXPECT_EQ(pattern_for_job("brickprof-%n-%p", 2), "brickprof-%n-%p-r%r");
  EXPECT_EQ(pattern_for_job("out/trace", 4), "out/trace-r%r");
  EXPECT_EQ(pattern_for_job("out/%n.rank%r", 4), "out/%n.rank%r");  // the user placed it
  EXPECT_EQ(pattern_for_job("out/100%%r", 4), "out/100%%r-r%r");    // a literal "%r"
  EXPECT_EQ(pattern_for_job("brickprof-%n-%p", 1), "brickprof-%n-%p");
  EXPECT_EQ(pattern_for_job("brickprof-%n-%p", 0), "brickprof-%n-%p");
}

}  // namespace
}  // namespace brickprof::agent
