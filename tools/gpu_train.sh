#!/usr/bin/env bash
# Run ON the GPU machine (device `run`, carry [".gpu"]), after tools/gpu_prepare.sh here: installs the carried
# wheels into a folder on PYTHONPATH, renders the synthetic scenes with all cores, trains, exports ONNX and puts
# best.pt, best.onnx, metrics.json and MODEL_CARD.md in $OUT, then trains the card reader (reader.onnx, reader.json,
# READER_CARD.md). One call, as the device time is counted in minutes:
#   IMAGES=30000 IMGSZ=640 HOURS=0.12 bash tools/gpu_train.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set by the device tool}"
IMAGES=${IMAGES:-30000}; IMGSZ=${IMGSZ:-640}; HOURS=${HOURS:-0.12}; CLOSEUP=${CLOSEUP:-0.5}; BATCH=${BATCH:-64}
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/wheels/*.whl
export PYTHONPATH="$PWD:/tmp/site:$PWD/.gpu/stub" TABLECAM_FONTS="$PWD/.gpu/fonts"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
start=$(date +%s)
python3 -m tablecam.cli train images="$IMAGES" imgsz="$IMGSZ" closeup="$CLOSEUP" hours="$HOURS" epochs=200 \
  device=0 batch="$BATCH" workers=14 out=/tmp/train seed=1 2>&1 | tr '\r' '\n' | grep -v '^\s*$' | tail -n 60
cp /tmp/train/best.pt /tmp/train/best.onnx /tmp/train/metrics.json /tmp/train/MODEL_CARD.md "$OUT"/
echo "total $(( $(date +%s) - start )) s"
# the card reader (stage two: which card each detected face is), trained on crops of 40,000 scenes
SCENES=${SCENES:-40000}; READER_EPOCHS=${READER_EPOCHS:-14}
python3 -m tablecam.cli train-reader scenes="$SCENES" epochs="$READER_EPOCHS" device=0 batch=256 out=/tmp/reader \
  2>&1 | grep -v 'batch [0-9]*/' | tail -n 30
cp /tmp/reader/reader.onnx /tmp/reader/reader.json /tmp/reader/READER_CARD.md "$OUT"/
echo "total with the reader $(( $(date +%s) - start )) s"
