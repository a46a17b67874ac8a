#!/usr/bin/env python3
"""Prints TARGET relative to BASE (both absolute), for install-time paths."""
import os
import sys

print(os.path.relpath(sys.argv[1], sys.argv[2]))
