// The write deadline (agent/lifecycle/write_deadline.h): it fires on the
// writing thread even where every thread blocks SIGALRM (a watchdog's
// handler that _exits), deadlines on several threads never meet, and the
// host's own alarm is left as it was.
#include "agent/lifecycle/write_deadline.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <thread>

namespace brickprof::agent {
namespace {

std::atomic<int> g_host_alarms{0};
void count_host_alarm(int) { g_host_alarms.fetch_add(1); }

void set_alarm_action(void (*handler)(int)) {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, nullptr);
}

void (*alarm_handler_now())(int) {
  struct sigaction now;
  sigaction(SIGALRM, nullptr, &now);
  return now.sa_handler;
}

void block_alarm() {
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alarm, nullptr);
}

void set_host_alarm(int seconds) {
  itimerval timer;
  std::memset(&timer, 0, sizeof timer);
  timer.it_value.tv_sec = seconds;
  setitimer(ITIMER_REAL, &timer, nullptr);
}

double host_alarm_left() {
  itimerval timer;
  getitimer(ITIMER_REAL, &timer);
  return static_cast<double>(timer.it_value.tv_sec) + timer.it_value.tv_usec / 1e6;
}

[[noreturn]] void leave_with_3(const void* who) {
  const char* name = static_cast<const char*>(who);
  ssize_t ignored = write(STDERR_FILENO, name, std::strlen(name));
  (void)ignored;
  _exit(3);
}

class WriteDeadlineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_host_alarms = 0;
    set_alarm_action(count_host_alarm);
  }
  void TearDown() override {
    set_host_alarm(0);
    set_alarm_action(SIG_DFL);
  }
};

// An alarm() watchdog's handler calls _exit while the interrupted code
// holds a lock the write needs; SIGALRM is blocked in that handler and the
// program's other threads block every signal. The deadline must still
// fire, on the writing thread.
TEST_F(WriteDeadlineTest, FiresOnTheWritingThreadWhereEveryThreadBlocksAlarm) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        block_alarm();  // main, as if inside its own SIGALRM handler; inherited below
        std::thread helper([] { pause(); });  // a thread of the program's
        helper.detach();
        std::thread watchdog([] {  // the test's own bound on a deadline that never fires
          sleep(10);
          _exit(9);
        });
        watchdog.detach();
        WriteDeadline deadline(1, AfterWrite::kProcessEnds, leave_with_3, "gave up");
        for (;;) pause();  // the write, stuck
      },
      ::testing::ExitedWithCode(3), "gave up");
}

// Two threads write at once (an exec hook's write, and a signal's on
// another thread): each deadline gives up its own write, on its own thread.
TEST_F(WriteDeadlineTest, EachThreadsDeadlineGivesUpItsOwnWrite) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::thread long_write([] {
          WriteDeadline deadline(20, AfterWrite::kHostGoesOn, leave_with_3, "gave up the long one");
          for (;;) pause();
        });
        long_write.detach();
        usleep(100000);
        WriteDeadline deadline(1, AfterWrite::kProcessEnds, leave_with_3, "gave up the short one");
        for (;;) pause();
      },
      ::testing::ExitedWithCode(3), "^gave up the short one$");
}

// Deadlines on two threads that overlap (A starts, B starts, A ends, B
// ends) leave the host's alarm() and its SIGALRM action as they were: an
// exec after A's write must not inherit B's deadline as its own alarm.
TEST_F(WriteDeadlineTest, OverlappingDeadlinesLeaveTheHostAlarmAlone) {
  set_host_alarm(30);
  std::atomic<int> step{0};
  auto wait_for = [&](int n) {
    while (step.load() < n) std::this_thread::yield();
  };
  std::thread a([&] {
    {
      WriteDeadline deadline(10, AfterWrite::kHostGoesOn, leave_with_3, "a");
      step = 1;
      wait_for(2);
    }
    step = 3;
    wait_for(4);
  });
  std::thread b([&] {
    wait_for(1);
    {
      WriteDeadline deadline(10, AfterWrite::kProcessEnds, leave_with_3, "b");
      step = 2;
      wait_for(3);
      // A's write is over, B's goes on: what an exec on A would inherit.
      EXPECT_GT(host_alarm_left(), 25.0);
      WriteDeadline::before_exec();
      EXPECT_EQ(alarm_handler_now(), &count_host_alarm);
      WriteDeadline::exec_failed();
    }
    step = 4;
  });
  a.join();
  b.join();
  EXPECT_GT(host_alarm_left(), 25.0);
  EXPECT_EQ(alarm_handler_now(), &count_host_alarm);
  EXPECT_EQ(g_host_alarms.load(), 0);
}

// The host's SIGALRM that arrives during a write reaches it afterwards
// when it goes on (an exec keeps its alarm), and not at all when the
// process ends (it would have died before).
TEST_F(WriteDeadlineTest, AHostAlarmDuringTheWriteReachesItAfter) {
  {
    WriteDeadline deadline(10, AfterWrite::kHostGoesOn, leave_with_3, "write");
    kill(getpid(), SIGALRM);
    usleep(20000);
    EXPECT_EQ(g_host_alarms.load(), 0);
  }
  for (int i = 0; i < 100 && g_host_alarms.load() == 0; ++i) usleep(10000);
  EXPECT_EQ(g_host_alarms.load(), 1);
  {
    WriteDeadline deadline(10, AfterWrite::kProcessEnds, leave_with_3, "write");
    kill(getpid(), SIGALRM);
    usleep(20000);
  }
  usleep(50000);
  EXPECT_EQ(g_host_alarms.load(), 1);
}

// The writing thread's mask is as it was after the write: SIGALRM was
// unblocked for the deadline only.
TEST_F(WriteDeadlineTest, TheThreadsMaskIsPutBack) {
  std::thread t([] {
    block_alarm();
    { WriteDeadline deadline(10, AfterWrite::kHostGoesOn, leave_with_3, "write"); }
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, nullptr, &now);
    EXPECT_EQ(sigismember(&now, SIGALRM), 1);
  });
  t.join();
}

}  // namespace
}  // namespace brickprof::agent
