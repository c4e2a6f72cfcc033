"""Calibration: table layouts (named zones as polygons, seats), homography, ArUco markers, clock and latency
offsets. Built in issue 4; imports ``engine`` only for zone names.
"""
