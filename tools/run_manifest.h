// The list of files the agents of one `brickprof run` wrote: run creates a
// private file and names it in BRICKPROF_RUN_MANIFEST; each agent appends a
// line per file it wrote (agent/io/output.h); run prints them when the program
// ends, like other profilers' "Generated:" lines.
#pragma once

#include <string>
#include <vector>

namespace brickprof::cli {

class RunManifest {
 public:
  // Creates `$TMPDIR/brickprof-run-XXXXXX` (else /tmp), mode 0600. If it
  // cannot, path() is empty and the run goes on without a listing.
  RunManifest();
  ~RunManifest();  // removes it
  RunManifest(const RunManifest&) = delete;
  RunManifest& operator=(const RunManifest&) = delete;

  const std::string& path() const { return path_; }
  // The files listed, each once, in the order written, that are still
  // there (a trace written before an exec that then failed is replaced).
  // Lines that are not an absolute path are skipped; a path is as the agent
  // wrote it, control characters and all: print it with printable().
  std::vector<std::string> written_files() const;
  // The agents wrote traces and every one holds nothing
  // (kManifestNothingRecorded, and no kManifestRecorded).
  bool nothing_recorded() const;

 private:
  std::string path_;
};

}  // namespace brickprof::cli
