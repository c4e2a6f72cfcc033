"""Calibration: table layouts (named zones as polygons, seats), homography, ArUco markers, clock and latency
offsets. Built in issue 4; imports ``engine`` for zone names and ``vision`` only to read a clap's frames and
sound (:mod:`calibration.latency`).

- :mod:`calibration.layout`: :class:`~calibration.layout.Layout` (YAML file, validated on load), zone membership
  (``Zone.contains``, ``Layout.zone_of``) and seat lookup (``Layout.seat_of``).
- :mod:`calibration.homography`: image <-> table (mm) homography, point mapping, top-down view.
- :mod:`calibration.markers`: the printable ArUco sheet, marker detection, the automatic layout.
- :mod:`calibration.latency`: the microphone-camera clock offset from one clap in view.
"""
