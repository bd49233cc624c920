#!/usr/bin/env python3
"""A deliberately wrong client: never finishes."""
import time
time.sleep(120)
