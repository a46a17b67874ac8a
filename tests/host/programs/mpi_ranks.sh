#!/usr/bin/env bash
# An MPI job of two ranks where only some have the agent, as a wrapper
# script or an MPMD line makes it. MODE says which: rank0, rank1, all, or
# mpmd (two application contexts, the first preloaded). The agent, when
# the harness gives one, comes in BRICKPROF_CASE_AGENT; each rank runs this
# script again (--rank), which preloads it where MODE says. The ranks'
# lines are sorted: their order between ranks is the scheduler's.
#   mpi_ranks.sh MODE MPI_APP
set -euo pipefail
if [ "$1" = --rank ]; then
  want=${BRICKPROF_CASE_WANT:-}
  if [ -z "$want" ]; then
    case $BRICKPROF_CASE_MODE in
      all) want=yes ;;
      rank*) [ "rank$OMPI_COMM_WORLD_RANK" = "$BRICKPROF_CASE_MODE" ] && want=yes || want=no ;;
    esac
  fi
  if [ "$want" = yes ] && [ -n "${BRICKPROF_CASE_AGENT:-}" ]; then
    export LD_PRELOAD=$BRICKPROF_CASE_AGENT
  fi
  unset BRICKPROF_CASE_AGENT BRICKPROF_CASE_WANT BRICKPROF_CASE_MODE
  exec "$BRICKPROF_CASE_APP"
fi
export BRICKPROF_CASE_MODE=$1 BRICKPROF_CASE_APP=$2
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader)
if [ "$1" = mpmd ]; then
  "${mpirun[@]}" -np 1 env BRICKPROF_CASE_WANT=yes bash "$0" --rank : \
    -np 1 env BRICKPROF_CASE_WANT=no bash "$0" --rank | sort
else
  "${mpirun[@]}" -np 2 bash "$0" --rank | sort
fi
