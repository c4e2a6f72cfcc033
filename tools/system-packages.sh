#!/usr/bin/env bash
# The Debian packages tablecam needs beside Python: make and venv for the setup, fonts for the card renderer,
# espeak-ng and PortAudio for spoken callouts, sox to measure sound, chromium to render the audit report in
# tests, xvfb to open the live window in tests. Installs only what is missing; as root with apt-get, else it
# says what to install and goes on.
set -euo pipefail
need=()
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
for pkg in make fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf fonts-urw-base35 espeak-ng libportaudio2 sox \
    chromium xvfb; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
((${#need[@]})) || exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
else
  echo "tablecam: please install these Debian packages: ${need[*]}" >&2
fi
