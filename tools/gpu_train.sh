#!/usr/bin/env bash
# Run ON the GPU machine (device `run`, carry [".gpu"]), after tools/gpu_prepare.sh here: installs the carried
# wheels into a folder on PYTHONPATH, renders the synthetic scenes with all cores (at DATA_IMGSZ), trains at IMGSZ
# (the audit's detector input: 224 for frames, 160 for some zone crops), exports ONNX with any input size and puts
# best.pt, best.onnx, metrics.json, MODEL_CARD.md and the training log in $OUT; then, with READER=1, trains the card
# reader (reader.onnx, reader.json, READER_CARD.md). One call, as the device time is counted in minutes; last.pt is
# copied to $OUT every 20 s, so that a call stopped at its time limit still brings back the weights so far:
#   IMAGES=30000 DATA_IMGSZ=320 IMGSZ=224 HOURS=0.1 READER=0 bash tools/gpu_train.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set by the device tool}"
IMAGES=${IMAGES:-30000}; DATA_IMGSZ=${DATA_IMGSZ:-320}; IMGSZ=${IMGSZ:-224}; HOURS=${HOURS:-0.1}
CLOSEUP=${CLOSEUP:-0.6}; BATCH=${BATCH:-128}; SEED=${SEED:-21}; READER=${READER:-0}
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/wheels/*.whl
export PYTHONPATH="$PWD:/tmp/site:$PWD/.gpu/stub" TABLECAM_FONTS="$PWD/.gpu/fonts" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
df -h /dev/shm /tmp | tail -n 2 || true
start=$(date +%s)
python3 -m tablecam.cli synth images="$IMAGES" imgsz="$DATA_IMGSZ" closeup="$CLOSEUP" seed="$SEED" \
  out=/tmp/data workers="$(nproc)" 2>&1 | tr '\r' '\n' | grep -v '^\s*$' | tail -n 3
echo "data $(( $(date +%s) - start )) s"
( while sleep 20; do cp /tmp/train/run/weights/last.pt "$OUT"/last.pt 2>/dev/null || true
                    cp /tmp/train/run/results.csv "$OUT"/results.csv 2>/dev/null || true; done ) &
copier=$!
python3 -m tablecam.cli train data=/tmp/data imgsz="$IMGSZ" hours="$HOURS" epochs=300 device="${DEVICE:-0}" batch="$BATCH" \
  workers=14 out=/tmp/train seed="$SEED" mosaic=0.5 optimizer=AdamW lr0=0.002 warmup_epochs=1 2>&1 \
  | tr '\r' '\n' | grep -v '^\s*$' | tee "$OUT"/train.log | tail -n 40
kill "$copier" 2>/dev/null || true
cp /tmp/train/best.pt /tmp/train/best.onnx /tmp/train/metrics.json /tmp/train/MODEL_CARD.md "$OUT"/
cp /tmp/train/run/results.csv "$OUT"/results.csv 2>/dev/null || true
rm -f "$OUT"/last.pt
echo "total $(( $(date +%s) - start )) s"
if [ "$READER" = 1 ]; then  # the card reader (stage two: which card each detected face is)
  SCENES=${SCENES:-40000}; READER_EPOCHS=${READER_EPOCHS:-14}
  python3 -m tablecam.cli train-reader scenes="$SCENES" epochs="$READER_EPOCHS" device=0 batch=256 out=/tmp/reader \
    2>&1 | grep -v 'batch [0-9]*/' | tail -n 30
  cp /tmp/reader/reader.onnx /tmp/reader/reader.json /tmp/reader/READER_CARD.md "$OUT"/
  echo "total with the reader $(( $(date +%s) - start )) s"
fi
