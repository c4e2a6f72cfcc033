#!/usr/bin/env bash
# Run HERE (the CPU machine) before lending a GPU machine: fetches what the GPU machine lacks (ultralytics and its
# small dependencies, as Python 3.12 wheels), a stand-in for polars (54 MB, only used to re-read a CSV log) and the
# fonts the scene renderer needs, into .gpu/ (git-ignored), which `run` then carries (see tools/gpu_train.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu/wheels .gpu/stub/polars .gpu/fonts
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .gpu/wheels ultralytics==8.4.190 ultralytics-thop onnxslim  # torch, onnx(runtime), yaml, cv2 are there
cat > .gpu/stub/polars/__init__.py <<'PY'
"""Stand-in for polars on the GPU machine: ultralytics (plots=False) only re-reads its CSV log with it and
tolerates the failure (shared/ENVIRONMENT.md)."""


def read_csv(*args, **kwargs):
    raise ImportError("polars stand-in: not available on the GPU machine")


class DataFrame:
    def __init__(self, *args, **kwargs):
        raise ImportError("polars stand-in: not available on the GPU machine")
PY
for f in /usr/share/fonts/truetype/dejavu/*.ttf /usr/share/fonts/truetype/liberation2/*.ttf \
         /usr/share/fonts/truetype/freefont/*.ttf; do
  [ -f "$f" ] && cp -n "$f" .gpu/fonts/
done
du -sh .gpu
