/* Starts one case program in the conditions the case asks for (closed
 * descriptors, ignored signals, resource limits, a private tmpfs) and puts
 * the agent's variables into the environment of that program only, so
 * nothing the harness runs to set the stage is ever profiled.
 *
 *   host_launch [--close FD] [--ignore SIG] [--fsize BYTES] [--nofile N]
 *               [--tmpfs DIR,SIZE[,ro]] [--env NAME=VALUE] [--maxrss FILE]
 *               -- PROGRAM ARGS...
 *
 * --maxrss runs PROGRAM as a child and writes its peak resident memory (KiB)
 * to FILE, then ends as it did: the peak of a process exec'd straight from
 * the harness would include the harness's own (the high-water mark survives
 * exec). Exits 125 with one line on stderr if the stage cannot be set. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ITEMS 32

static int fail(const char* what, const char* arg) {
  fprintf(stderr, "host_launch: %s %s: %s\n", what, arg, strerror(errno));
  return 125;
}

static int set_limit(int resource, const char* value) {
  struct rlimit limit;
  limit.rlim_cur = limit.rlim_max = strtoull(value, NULL, 10);
  return setrlimit(resource, &limit);
}

/* DIR,SIZE[,ro]: a tmpfs of SIZE bytes on DIR in a mount namespace of our
 * own, gone with the last process in it. */
static int mount_tmpfs(char* spec) {
  char* dir = strtok(spec, ",");
  char* size = strtok(NULL, ",");
  char* mode = strtok(NULL, ",");
  char options[64];
  unsigned long flags = (mode && strcmp(mode, "ro") == 0) ? MS_RDONLY : 0;
  if (!dir || !size) {
    errno = EINVAL;
    return -1;
  }
  if (unshare(CLONE_NEWNS) != 0) return -1;
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -1;
  snprintf(options, sizeof options, "size=%s,mode=0777", size);
  return mount("tmpfs", dir, "tmpfs", flags, options);
}

/* Runs argv as a child, writes its peak memory to `path`, and ends the way
 * the child ended. */
static int run_measured(char** argv, const char* path) {
  struct rusage usage;
  int status = 0;
  FILE* out;
  pid_t pid = fork();
  if (pid < 0) return fail("cannot fork for", argv[0]);
  if (pid == 0) {
    execvp(argv[0], argv);
    _exit(fail("cannot run", argv[0]));
  }
  if (wait4(pid, &status, 0, &usage) != pid) return fail("cannot wait for", argv[0]);
  out = fopen(path, "w");
  if (!out || fprintf(out, "%ld\n", usage.ru_maxrss) < 0 || fclose(out) != 0)
    return fail("cannot write", path);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}

int main(int argc, char** argv) {
  char* env[MAX_ITEMS];
  const char* maxrss = NULL;
  int envs = 0, i;
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core); /* a crash case should not write cores */
  for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
    const char* option = argv[i];
    char* value = i + 1 < argc ? argv[i + 1] : NULL;
    if (!value) {
      errno = EINVAL;
      return fail("missing value for", option);
    }
    if (strcmp(option, "--close") == 0) {
      close(atoi(value));
    } else if (strcmp(option, "--ignore") == 0) {
      if (signal(atoi(value), SIG_IGN) == SIG_ERR) return fail("cannot ignore signal", value);
    } else if (strcmp(option, "--fsize") == 0) {
      if (set_limit(RLIMIT_FSIZE, value) != 0) return fail("cannot set RLIMIT_FSIZE", value);
    } else if (strcmp(option, "--nofile") == 0) {
      if (set_limit(RLIMIT_NOFILE, value) != 0) return fail("cannot set RLIMIT_NOFILE", value);
    } else if (strcmp(option, "--tmpfs") == 0) {
      char spec[4096];
      snprintf(spec, sizeof spec, "%s", value);
      if (mount_tmpfs(spec) != 0) return fail("cannot mount a tmpfs:", value);
    } else if (strcmp(option, "--maxrss") == 0) {
      maxrss = value;
    } else if (strcmp(option, "--env") == 0 && envs < MAX_ITEMS) {
      env[envs++] = value;
    } else {
      errno = EINVAL;
      return fail("bad option", option);
    }
  }
  if (i + 1 >= argc) {
    errno = EINVAL;
    return fail("no program after", "--");
  }
  while (envs > 0) putenv(env[--envs]);
  if (maxrss) return run_measured(argv + i + 1, maxrss);
  execvp(argv[i + 1], argv + i + 1);
  return fail("cannot run", argv[i + 1]);
}
