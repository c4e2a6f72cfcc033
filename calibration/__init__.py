"""Calibration: table layouts (named zones as polygons, seats), homography, ArUco markers, clock and latency
offsets. Built in issue 4; imports ``engine`` only for zone names.

- :mod:`calibration.layout`: :class:`~calibration.layout.Layout` (YAML file, validated on load), zone membership
  (``Zone.contains``, ``Layout.zone_of``) and seat lookup (``Layout.seat_of``).
- :mod:`calibration.homography`: image <-> table (mm) homography, point mapping, top-down view.
- :mod:`calibration.markers`: the printable ArUco sheet, marker detection, the automatic layout.
"""
