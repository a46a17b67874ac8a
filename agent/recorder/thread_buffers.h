// Each recording thread's chain of event chunks, its registration, and what
// happens when it exits: a pthread key destructor retires the buffer, so
// the state of exited threads does not grow without bound. The used part
// of its last chunk is copied into a shared arena and the chunk is freed
// (a thread that wrote a few records keeps a few words, not 8 KiB); full
// chunks are kept as they are; a thread that recorded nothing leaves
// nothing. Internal to the recorder (recorder.cpp is the hot path).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace brickprof::agent::thread_buffers {

struct Chunk {
  Chunk* next = nullptr;
  uint32_t capacity = 0;                  // words
  bool from_pool = false;                 // a page-pool block, else malloc'ed
  std::atomic<uint32_t> sealed_count{0};  // words used, once the owner moved on
  uint64_t words[1];                      // really `capacity` of them
};

// The head is the public header's brickprof__thread_buffer (cur, end): the
// inline path appends through it, so it stays valid memory even after the
// thread is retired (see retire() in the .cpp).
struct ThreadBuffer {
  std::atomic<uint64_t*> cur{nullptr};
  uint64_t* end = nullptr;
  Chunk* head = nullptr;
  Chunk* tail = nullptr;
  uint64_t seq = 0;  // registration order: the dump's thread order
  uint32_t tid = 0;
  uint32_t list_index = 0;  // where it sits in the live list
  // The thread's name, noted when it registers, starts a chunk and exits,
  // so a thread that exits before the dump keeps its name.
  char name[16] = {0};
  std::atomic<bool> truncated{false};
  std::atomic<uint64_t> dropped{0};
  uint32_t depth = 0;
  static constexpr uint32_t kMaxDepth = 128;
  uint32_t* stack = nullptr;  // open site ids for the scope-end hook, made on first need
  uint64_t* last_tile = nullptr;  // the tile record Recorder::tile wrote last (still last?)
  int64_t retired_ns = 0;     // while waiting in the graveyard for reuse
  ThreadBuffer* next_retired = nullptr;
};

// The words of one chunk (or of an exited thread's compacted tail).
struct Segment {
  const uint64_t* words = nullptr;
  uint32_t count = 0;
  Chunk* chunk = nullptr;  // what to free once consumed; null for arena words
};

// One thread's events for the dump, in order.
struct ThreadEvents {
  uint32_t tid = 0;
  std::string name;  // as last seen by the thread itself (it may have exited)
  std::vector<Segment> segments;
  bool truncated = false;  // stopped recording at the cap
};

// The calling thread's buffer, registered now (charged to the budget), or
// nullptr when the budget refuses.
ThreadBuffer* register_current();
// A new chunk for the calling thread's buffer, or nullptr (the budget).
Chunk* allocate_chunk(uint32_t words);
void note_name(ThreadBuffer* tb);

// Every thread's events in registration order, live and exited; from now on
// exiting threads leave their buffers as they are, until resume().
std::vector<ThreadEvents> snapshot();
void resume();
// Frees a consumed segment's chunk (a destructive dump; never the chunk a
// live thread writes to).
void release(const Segment& segment);

uint64_t dropped_by_retired();  // events exited threads could not record
uint64_t live_dropped();        // and those live threads could not
uint64_t retired_count();       // exited threads whose events are kept
// In a fork child: only the forking thread survives, and its buffer is
// abandoned with the parent's events.
void reset_after_fork();

// The calling thread's buffer (constinit: no TLS wrapper call on the hot path).
extern constinit thread_local ThreadBuffer* tls_buffer __attribute__((tls_model("initial-exec")));

}  // namespace brickprof::agent::thread_buffers
