"""Widths the tabs share, so that a phone stacks what a laptop shows side by side.

A Gradio row wraps a child onto its own line once the row is narrower than
the children's minimum widths together: two results of at least
``SIDE_BY_SIDE_MIN_PX`` each sit side by side from 640 px up (a laptop) and one
above the other on a phone (390 px), each the screen's width instead of 150 px.
"""

SIDE_BY_SIDE_MIN_PX = 320
