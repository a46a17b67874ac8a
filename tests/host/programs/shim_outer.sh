#!/usr/bin/env bash
# A version-manager shim (as pyenv's): works out where it lives, then execs
# the next script of the chain with the program's arguments.
set -e
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export TORTURE_SHIM_ROOT="$here"
exec "$here/shim_inner.sh" "$@"
