// The loops bench/scope_overhead.cpp times, split across translation units
// because the scope API binds lazily once per unit.
#pragma once

void scope_pairs_absent(long n);
void scope_pairs_loaded(long n);
void set_agent_enabled(bool on);
// brickprof_mem_alloc + brickprof_mem_free of one pool, and brickprof_set_shapes
// of a matrix product (two inputs), the same way.
void mem_pairs_absent(long n);
void mem_pairs_loaded(long n);
void shapes_absent(long n);
void shapes_loaded(long n);
// n micro tiles (BRICKPROF_TILE) in a row inside one brick, as a blocked
// inner loop marks them.
void tiles_absent(long n);
void tiles_loaded(long n);
