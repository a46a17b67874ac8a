// A program whose names are terminal commands: scopes, a brick, a thread and
// its host-peak description hold an OSC 52 clipboard write, a clear-screen,
// other control characters, a C1 CSI, a bidi override and bytes that are not
// UTF-8. names_are_data.py runs it under `brickprof run` and reads every
// file and view of its trace for bytes a terminal would act on.
#include <brickprof/brickprof.h>
#include <pthread.h>

#include <thread>

namespace {

// What a hostile trace would carry (the same text as names_are_data.py's EVIL).
constexpr const char* kEvil = "evil\x1b]52;c;cHduZWQ=\x07\x1b[2J\r\n\t\x7f\xc2\x9b\xe2\x80\xae|";
constexpr const char* kNotUtf8 = "bad\xff\xfe\xc3(";

void work() {
  if (brickprof_push_name(BRICKPROF_KIND_SCOPE, kEvil, 0)) {
    if (brickprof_push_name(BRICKPROF_KIND_BRICK, kNotUtf8, 4096)) {
      BRICKPROF_WORK(1e6, 1e6);
      brickprof_pop();
    }
    brickprof_pop();
  }
}

}  // namespace

int main() {
  BRICKPROF_SET_HOST_PEAKS(100.0, 20.0, kEvil);
  work();
  std::thread worker([] {
    pthread_setname_np(pthread_self(), "w\x1b]2;x\x07\x1b[H");  // 15 bytes at most
    work();
  });
  worker.join();
  return 0;
}
