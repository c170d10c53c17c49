#!/bin/sh
# An interpreter whose Triton is broken: it answers ptxbench's question
# (which interpreter, which search path) as $REAL_PYTHON would, naming
# itself, and fails the way a broken install does when asked to run the
# Triton driver.
for a in "$@"; do
  case "$a" in
    *ptxbench-triton.py)
      echo "Traceback (most recent call last):" >&2
      echo "ImportError: this interpreter's triton is broken" >&2
      exit 1;;
    *sys.executable*)
      exec "$REAL_PYTHON" -c "import sys; print('$0'); print('\n'.join(sys.path))";;
  esac
done
exec "$REAL_PYTHON" "$@"
