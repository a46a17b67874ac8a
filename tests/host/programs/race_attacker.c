/* Preloaded beside the agent in the shared-folder case: plays another user
 * of an output folder who wins the race every time. Whenever a file in
 * $TORTURE_SHARED_DIR is opened for writing by name without O_EXCL (a
 * temporary file reopened after it was created, or any file opened by a
 * name someone could predict), it first puts a symbolic link to
 * $TORTURE_VICTIM there, as an attacker watching the folder could. An agent
 * that writes only through descriptors it created exclusively (and
 * O_NOFOLLOW) never gets here. */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS /* open and open64 are two symbols to replace here */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void plant_link(const char* path) {
  const char* victim = getenv("TORTURE_VICTIM");
  const char* shared = getenv("TORTURE_SHARED_DIR");
  size_t n = shared ? strlen(shared) : 0;
  if (!path || !victim || !n || strncmp(path, shared, n) != 0 || path[n] != '/') return;
  unlink(path);
  if (symlink(victim, path) != 0) perror("race_attacker: symlink");
}

static int writes(const char* mode) { return !strchr(mode, 'x') && strpbrk(mode, "wa+"); }

/* libc's definition (through an integer: ISO C has no object-to-function cast). */
#define NEXT(type, name) ((type)(uintptr_t)dlsym(RTLD_NEXT, name))

FILE* fopen(const char* path, const char* mode) {
  if (writes(mode)) plant_link(path);
  return NEXT(FILE * (*)(const char*, const char*), "fopen")(path, mode);
}

FILE* fopen64(const char* path, const char* mode) {
  if (writes(mode)) plant_link(path);
  return NEXT(FILE * (*)(const char*, const char*), "fopen64")(path, mode);
}

static int forward_open(const char* name, const int* dir, const char* path, int flags,
                        mode_t mode) {
  if (!(flags & O_EXCL) && (flags & O_ACCMODE) != O_RDONLY) plant_link(path);
  if (!dir) return NEXT(int (*)(const char*, int, ...), name)(path, flags, mode);
  return NEXT(int (*)(int, const char*, int, ...), name)(*dir, path, flags, mode);
}

#define MODE_ARG(flags, mode)                                          \
  do {                                                                 \
    va_list args;                                                      \
    va_start(args, flags);                                             \
    mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(args, mode_t) : 0; \
    va_end(args);                                                      \
  } while (0)

int open(const char* path, int flags, ...) {
  mode_t mode;
  MODE_ARG(flags, mode);
  return forward_open("open", NULL, path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  mode_t mode;
  MODE_ARG(flags, mode);
  return forward_open("open64", NULL, path, flags, mode);
}

int openat(int dir, const char* path, int flags, ...) {
  mode_t mode;
  MODE_ARG(flags, mode);
  return forward_open("openat", &dir, path, flags, mode);
}
