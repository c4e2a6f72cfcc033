"""Test settings. In CI (``TABLECAM_CI=1``, set by ``.ci/run``) hypothesis draws the same examples every run,
so a landing never depends on a lucky draw; locally each run explores new ones."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("TABLECAM_CI"):
    settings.load_profile("ci")
