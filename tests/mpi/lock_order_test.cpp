// The MPI wrappers never call MPI while they hold their own lock. An MPI
// library may hold a lock of its own while it calls the program back (an
// attribute's delete callback in MPI_Comm_free, an error handler), and the
// program may call MPI there, through the wrappers: with the wrappers'
// lock held around a PMPI_ query on another thread, the two wait for each
// other for ever.
//
// The MPI library here is a stand-in in Open MPI's ABI (handles are
// pointers; the agent finds ompi_mpi_comm_world and the PMPI_ functions in
// this executable), locking as MPICH does under MPI_THREAD_MULTIPLE: one
// process-wide lock, recursive for its holder, around every call and held
// while the program's callbacks run (MPICH's global critical section). The
// test drives the two threads into the one order that deadlocked.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>

using Handle = uintptr_t;

namespace {

std::recursive_mutex g_mpi;  // the stand-in library's global lock
std::atomic<bool> g_sent{false};           // thread A's send returned from the library
std::atomic<bool> g_b_holds_mpi{false};    // thread B is inside PMPI_Comm_free
std::atomic<bool> g_a_asks_size{false};    // thread A is asking the size of the new communicator
int g_new_comm = 0;                        // a communicator the agent has not seen yet

void wait_for(const std::atomic<bool>& flag) {
  for (int i = 0; i < 5000 && !flag.load(); ++i) usleep(1000);
}

Handle world();
Handle new_comm() { return reinterpret_cast<Handle>(&g_new_comm); }

}  // namespace

#define STAND_IN extern "C" __attribute__((visibility("default")))

struct ompi_object {
  int id;
};
#define STAND_IN_OBJECT __attribute__((visibility("default")))
extern "C" {
STAND_IN_OBJECT ompi_object ompi_mpi_comm_world{0};
STAND_IN_OBJECT ompi_object ompi_mpi_comm_null{-1};
STAND_IN_OBJECT ompi_object ompi_mpi_byte{1};
}

namespace {
Handle world() { return reinterpret_cast<Handle>(&ompi_mpi_comm_world); }
}  // namespace

STAND_IN int PMPI_Init(int*, char***) {
  std::lock_guard<std::recursive_mutex> lock(g_mpi);
  return 0;
}
STAND_IN int PMPI_Finalize() { return 0; }
STAND_IN int PMPI_Comm_size(Handle comm, int* size) {
  if (comm == new_comm()) g_a_asks_size = true;
  std::lock_guard<std::recursive_mutex> lock(g_mpi);
  *size = comm == world() ? 1 : 2;
  return 0;
}
STAND_IN int PMPI_Comm_rank(Handle, int* rank) {
  std::lock_guard<std::recursive_mutex> lock(g_mpi);
  *rank = 0;
  return 0;
}
STAND_IN int PMPI_Comm_test_inter(Handle, int* inter) {
  std::lock_guard<std::recursive_mutex> lock(g_mpi);
  *inter = 0;
  return 0;
}
STAND_IN int PMPI_Type_size(Handle, int* size) {
  *size = 1;
  return 0;
}
STAND_IN int PMPI_Barrier(Handle) {
  std::lock_guard<std::recursive_mutex> lock(g_mpi);
  return 0;
}
STAND_IN int PMPI_Send(const void*, int, Handle, int, int, Handle) {
  {
    std::lock_guard<std::recursive_mutex> lock(g_mpi);
  }
  g_sent = true;
  wait_for(g_b_holds_mpi);  // the send is done; B takes the library's lock now
  return 0;
}
// Frees the communicator with the library's lock held, running its
// attribute's delete callback, which calls MPI_Barrier as a program may.
STAND_IN int MPI_Barrier(Handle comm);
STAND_IN int PMPI_Comm_free(Handle* comm) {
  std::lock_guard<std::recursive_mutex> lock(g_mpi);
  g_b_holds_mpi = true;
  wait_for(g_a_asks_size);
  MPI_Barrier(world());  // the delete callback's call
  *comm = reinterpret_cast<Handle>(&ompi_mpi_comm_null);
  return 0;
}

STAND_IN int MPI_Init(int* argc, char*** argv);
STAND_IN int MPI_Send(const void* buf, int count, Handle type, int dest, int tag, Handle comm);
STAND_IN int MPI_Comm_free(Handle* comm);

TEST(MpiLockOrder, NoPmpiCallUnderTheWrappersLock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::thread([] {  // the test's bound on a deadlock
          sleep(20);
          _exit(9);
        }).detach();
        MPI_Init(nullptr, nullptr);
        Handle freed = world();
        std::thread b([&] {
          wait_for(g_sent);
          MPI_Comm_free(&freed);
        });
        char byte = 0;
        MPI_Send(&byte, 1, reinterpret_cast<Handle>(&ompi_mpi_byte), 1, 0, new_comm());
        b.join();
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}
