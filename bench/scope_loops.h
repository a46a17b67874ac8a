// The loops bench/scope_overhead.cpp times, split across translation units
// because the scope API binds lazily once per unit.
#pragma once

void scope_pairs_absent(long n);
void scope_pairs_loaded(long n);
void set_agent_enabled(bool on);
