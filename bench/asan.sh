#!/usr/bin/env bash
# AddressSanitizer job: build the native core with -fsanitize=address (and Cython's
# bounds checks) in a fresh venv, then run the fuzz soak and the solver and kernel tests
# under ASan. Not part of CI (it takes several minutes); run it before a release:
#   bash bench/asan.sh            # from the repository root
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${ASAN_WORK:-$(mktemp -d)}
echo "== AddressSanitizer build in $work"
git -C "$root" archive HEAD | tar -x -C "$work"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --upgrade pip
CFLAGS="-fsanitize=address -fno-omit-frame-pointer" LDFLAGS="-fsanitize=address" \
  RUMMY51_DEBUG_CYTHON=1 "$work/venv/bin/pip" install --quiet "$work[test]"
libasan=$(gcc -print-file-name=libasan.so)
cd "$work"
# leaks of the interpreter itself are not ours: detect memory errors only
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
LD_PRELOAD="$libasan" RUMMY51_FUZZ_SOAK=1 "$work/venv/bin/python" -m pytest -q -p no:cacheprovider \
  tests/test_fuzz.py tests/test_limits.py tests/test_solver_properties.py tests/test_batch.py \
  tests/test_fastgame.py tests/test_reliability.py tests/test_carousel_golden.py -k "not soak"
echo "== AddressSanitizer job passed"
