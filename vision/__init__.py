"""Vision: frames with true timestamps, detection, per-zone tracking, slap and audio onsets -> log events.

Yields :class:`engine.events.Event` observations; it never referees and never writes files (the app layer
does). Built in issues 3-4; imports ``engine`` and ``calibration`` only.
"""
